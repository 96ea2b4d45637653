# KilnModel.cmake - kiln_add_model(): compile a model with kilnc at build time.
#
#   kiln_add_model(<name> MODEL <file.gguf>
#                  [TARGET generic|x86|neon|sve|rvv|hvx] [CPU <cpu>]
#                  [QUANTIZE f16|q8_0|q4_0|q4_k] [C_NAME <identifier>]
#                  [OPTIONS <kilnc option>...])
#
# adds a custom command that runs the host kilnc into
# ${CMAKE_CURRENT_BINARY_DIR}/kiln/<name>/ (lib<C_NAME>.a, <C_NAME>.h), a
# custom target <name>_kiln that drives it, and an imported static library
# kiln::<name> carrying the include directory of the generated header, so
# target_link_libraries(app PRIVATE kiln::<name>) is all a program needs.
#
# kilnc re-runs only when the model file, kilnc itself or the arguments change:
# the arguments live in <name>.args, rewritten only when they differ.
# TARGET defaults to KILN_DEFAULT_TARGET (set by Kiln's toolchain files) or
# generic; CPU to KILN_DEFAULT_CPU when TARGET is the default target. C_NAME
# (the API prefix) defaults to <name>.
# After the call, <name>_KILN_DIR holds the output directory.
function(kiln_add_model name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "MODEL;TARGET;CPU;QUANTIZE;C_NAME"
                        "OPTIONS")
  set(where "kiln_add_model(${name})")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${where}: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "${where}: MODEL <file.gguf> is required")
  endif()
  if(TARGET kiln::${name} OR TARGET ${name}_kiln)
    message(FATAL_ERROR "${where}: a model named '${name}' already exists")
  endif()
  set(c_name "${name}")
  if(ARG_C_NAME)
    set(c_name "${ARG_C_NAME}")
  endif()
  if(NOT c_name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${where}: '${c_name}' is not a C identifier; "
                        "pass C_NAME <identifier>")
  endif()
  set(target "${ARG_TARGET}")
  if(NOT target)
    set(target "${KILN_DEFAULT_TARGET}")
  endif()
  if(NOT target)
    set(target generic)
  endif()
  set(valid_targets generic x86 neon sve rvv hvx)
  if(NOT target IN_LIST valid_targets)
    string(JOIN ", " valid ${valid_targets})
    message(FATAL_ERROR "${where}: TARGET '${target}' is not one of ${valid}")
  endif()
  set(cpu "${ARG_CPU}")
  if(NOT cpu AND target STREQUAL "${KILN_DEFAULT_TARGET}")
    set(cpu "${KILN_DEFAULT_CPU}")
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")

  set(out "${CMAKE_CURRENT_BINARY_DIR}/kiln/${name}")
  set(args "--target=${target}" "--name=${c_name}")
  if(cpu)
    list(APPEND args "--cpu=${cpu}")
  endif()
  if(ARG_QUANTIZE)
    list(APPEND args "--kiln-quantize=${ARG_QUANTIZE}")
  endif()
  list(APPEND args ${ARG_OPTIONS})
  set(outputs "${out}/lib${c_name}.a" "${out}/${c_name}.h")
  if("--weights=external" IN_LIST ARG_OPTIONS)
    list(APPEND outputs "${out}/${c_name}.weights")
  endif()

  # The stamp of the options: one argument per line, written only when the
  # text changes, so its timestamp moves exactly when the options do.
  set(args_file "${CMAKE_CURRENT_BINARY_DIR}/kiln/${name}.args")
  string(JOIN "\n" text "${model}" ${args})
  set(old "")
  if(EXISTS "${args_file}")
    file(READ "${args_file}" old)
  endif()
  if(NOT old STREQUAL "${text}\n")
    file(WRITE "${args_file}" "${text}\n")
  endif()
  # Imported targets need their include directory to exist at generate time.
  file(MAKE_DIRECTORY "${out}")

  # The host kilnc by path: a target name in COMMAND would get the
  # cross-compiling emulator prepended.
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${KILN_KILNC_EXECUTABLE}" "${model}" -o "${out}" ${args}
    DEPENDS "${model}" "${args_file}" "${KILN_KILNC_EXECUTABLE}"
    COMMENT "Compiling model ${name} (${target}) with kilnc"
    VERBATIM)
  add_custom_target(${name}_kiln DEPENDS ${outputs})

  add_library(kiln::${name} STATIC IMPORTED GLOBAL)
  set_target_properties(kiln::${name} PROPERTIES
    IMPORTED_LOCATION "${out}/lib${c_name}.a"
    INTERFACE_INCLUDE_DIRECTORIES "${out}"
    KILN_TARGET "${target}")
  if(NOT target STREQUAL "hvx" AND TARGET Threads::Threads)
    set_property(TARGET kiln::${name} PROPERTY INTERFACE_LINK_LIBRARIES Threads::Threads)
  endif()
  # Whoever links kiln::<name> waits for kilnc (dependencies of an imported
  # target are followed transitively).
  add_dependencies(kiln::${name} ${name}_kiln)
  set(${name}_KILN_DIR "${out}" PARENT_SCOPE)
endfunction()
