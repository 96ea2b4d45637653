# Toolchain file: RISC-V RV64 Linux with clang-16 and Debian's
# riscv64-linux-gnu cross packages; programs run under qemu-riscv64 with the
# vector extension (VLEN = KILN_RVV_VLEN, default 128), so ctest runs the
# cross-built tests. kiln_add_model() compiles for rvv by default.
#
# The program's own code is built for rv64gc (no vector instructions). Models
# are compiled for rv64gcv, except that under qemu-user older than 8.1
# (Debian 12 ships 7.2) KILN_DEFAULT_CPU defaults to rv64gv: qemu 7.2 aborts
# translating a vector instruction that straddles a page, which only
# compressed (2-byte aligned) code produces. Set -DKILN_DEFAULT_CPU=rv64gcv
# to override.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(KILN_CROSS_TRIPLE riscv64-linux-gnu)
include("${CMAKE_CURRENT_LIST_DIR}/KilnCrossCommon.cmake")

set(KILN_RVV_VLEN 128 CACHE STRING "RVV vector length (VLEN) qemu emulates")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES KILN_RVV_VLEN)
set(CMAKE_C_FLAGS_INIT "-march=rv64gc")
set(CMAKE_CXX_FLAGS_INIT "-march=rv64gc")
set(KILN_DEFAULT_TARGET rvv)
kiln_cross_emulator(qemu-riscv64 -cpu rv64,v=true,vext_spec=v1.0,vlen=${KILN_RVV_VLEN})

if(NOT DEFINED KILN_DEFAULT_CPU)
  set(_kiln_cpu rv64gcv)
  execute_process(COMMAND ${CMAKE_CROSSCOMPILING_EMULATOR} --version
                  OUTPUT_VARIABLE _kiln_qemu_version ERROR_QUIET)
  if(_kiln_qemu_version MATCHES "version ([0-9]+\\.[0-9]+)"
     AND CMAKE_MATCH_1 VERSION_LESS 8.1)
    set(_kiln_cpu rv64gv)
  endif()
  set(KILN_DEFAULT_CPU ${_kiln_cpu} CACHE STRING "kilnc --cpu for rvv models")
endif()
