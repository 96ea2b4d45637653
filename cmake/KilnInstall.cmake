# Install rules: the tools, the runtime sources and headers, the toolchain
# files and a relocatable CMake package (find_package(Kiln) + kiln_add_model).
# kilnc carries the runtime and kernel sources it pastes into every library
# (cmake/EmbedSources.cmake), so the installed copies are for users who build
# the runtime themselves or read it; kilnc never looks for them.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KILN_VERSION 0.1.0)
set(KILN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)

# The tools link Debian's libMLIR/libLLVM from /usr/lib/llvm-16/lib, which is
# not on the loader's path: the installed binaries keep that directory in
# their RPATH (the build tree's RPATH is otherwise dropped on install).
set_target_properties(kilnc kiln-opt kiln-run kiln-fixture kiln-bench kiln-perplexity
  kiln-tokenize kiln-conformance PROPERTIES
  INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS kilnc kiln-opt kiln-run kiln-fixture kiln-bench kiln-perplexity
  kiln-tokenize kiln-conformance
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Device profiles for kilnc --report --device=NAME, found at BIN/../share.
file(GLOB KILN_DEVICE_PROFILES ${PROJECT_SOURCE_DIR}/devices/*.json)
install(FILES ${KILN_DEVICE_PROFILES} DESTINATION ${CMAKE_INSTALL_DATADIR}/kiln/devices)
install(FILES ${PROJECT_SOURCE_DIR}/runtime/include/kiln/kiln.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln)
install(FILES
  ${PROJECT_SOURCE_DIR}/runtime/src/kiln_runtime.c
  ${PROJECT_SOURCE_DIR}/runtime/src/kiln_threads.c
  ${PROJECT_SOURCE_DIR}/runtime/src/kiln_freestanding.c
  ${PROJECT_SOURCE_DIR}/runtime/src/kiln_libm.c
  DESTINATION ${CMAKE_INSTALL_DATADIR}/kiln/runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/cmake/toolchains/
  DESTINATION ${KILN_INSTALL_CMAKEDIR}/toolchains FILES_MATCHING PATTERN "*.cmake")

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/package/KilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/KilnConfig.cmake
  INSTALL_DESTINATION ${KILN_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_DATADIR)
# The version file must not compare the consumer's pointer size with Kiln's:
# a cross build for a 32-bit target (hexagon) still uses the x86-64 kilnc.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/KilnConfigVersion.cmake
  VERSION ${KILN_VERSION} COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/KilnConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/KilnConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/package/KilnModel.cmake
  DESTINATION ${KILN_INSTALL_CMAKEDIR})
