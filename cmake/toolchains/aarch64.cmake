# Toolchain file: AArch64 Linux with clang-16 and Debian's aarch64-linux-gnu
# cross packages (gcc-aarch64-linux-gnu provides the C library, crt files and
# GNU ld that clang links with). Programs run under qemu-aarch64, so ctest runs
# the cross-built tests. kiln_add_model() compiles for NEON (dotprod) by
# default; -DKILN_AARCH64_SVE=ON selects SVE (vector-length agnostic, qemu
# emulating KILN_SVE_BITS-bit vectors, default 128).
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=<prefix>/lib/cmake/Kiln/toolchains/aarch64.cmake ...
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(KILN_CROSS_TRIPLE aarch64-linux-gnu)
include("${CMAKE_CURRENT_LIST_DIR}/KilnCrossCommon.cmake")

set(KILN_AARCH64_SVE OFF CACHE BOOL "Compile models for SVE instead of NEON")
set(KILN_SVE_BITS 128 CACHE STRING "SVE vector length qemu emulates (128..2048)")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES KILN_AARCH64_SVE KILN_SVE_BITS)

if(KILN_AARCH64_SVE)
  set(CMAKE_C_FLAGS_INIT "-march=armv8.2-a+sve+dotprod")
  set(_kiln_qemu_cpu "max,sve${KILN_SVE_BITS}=on")
  set(KILN_DEFAULT_TARGET sve)
else()
  set(CMAKE_C_FLAGS_INIT "-march=armv8.2-a+dotprod")
  set(_kiln_qemu_cpu max)
  set(KILN_DEFAULT_TARGET neon)
endif()
set(CMAKE_CXX_FLAGS_INIT "${CMAKE_C_FLAGS_INIT}")
kiln_cross_emulator(qemu-aarch64 -cpu ${_kiln_qemu_cpu})
