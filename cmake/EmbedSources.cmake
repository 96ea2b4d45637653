# kiln_embed_sources(OUT_CPP VAR_PREFIX file...) writes a C++ file defining
#   const kiln::EmbeddedFile VAR_PREFIX[]; const size_t VAR_PREFIX_count;
# holding each file's relative name and text, regenerated when a file changes.
function(kiln_embed_sources out_cpp var)
  set(files ${ARGN})
  string(REPLACE ";" "|" joined "${files}")
  add_custom_command(
    OUTPUT ${out_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_cpp} -DVAR=${var}
            -DROOT=${PROJECT_SOURCE_DIR} "-DFILES=${joined}"
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedSourcesScript.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/EmbedSourcesScript.cmake
    COMMENT "Embedding ${var}" VERBATIM)
endfunction()
