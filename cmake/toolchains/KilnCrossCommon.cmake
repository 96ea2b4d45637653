# Shared part of Kiln's toolchain files (included, not a toolchain itself):
# clang-16 for the triple in KILN_CROSS_TRIPLE, the Debian cross sysroot under
# /usr/<triple> for find_library/find_path, and kiln_cross_emulator().
find_program(KILN_CROSS_CLANG NAMES clang-16 clang PATHS /usr/lib/llvm-16/bin
             NO_CMAKE_FIND_ROOT_PATH)
find_program(KILN_CROSS_CLANGXX NAMES clang++-16 clang++ PATHS /usr/lib/llvm-16/bin
             NO_CMAKE_FIND_ROOT_PATH)
set(CMAKE_C_COMPILER "${KILN_CROSS_CLANG}")
set(CMAKE_CXX_COMPILER "${KILN_CROSS_CLANGXX}")
set(CMAKE_ASM_COMPILER "${KILN_CROSS_CLANG}")
set(CMAKE_C_COMPILER_TARGET ${KILN_CROSS_TRIPLE})
set(CMAKE_CXX_COMPILER_TARGET ${KILN_CROSS_TRIPLE})
set(CMAKE_ASM_COMPILER_TARGET ${KILN_CROSS_TRIPLE})

# clang finds the Debian cross C library and GNU ld by itself
# (/usr/lib/gcc-cross/<triple>/12); the root path keeps find_library and
# find_path on the target's files. Programs (kilnc, qemu) and packages
# (find_package(Kiln) on the host) are searched on the build machine.
if(EXISTS /usr/${KILN_CROSS_TRIPLE})
  set(CMAKE_FIND_ROOT_PATH /usr/${KILN_CROSS_TRIPLE})
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# kiln_cross_emulator(qemu-X args...): CMAKE_CROSSCOMPILING_EMULATOR, with
# -L <sysroot> for the dynamic loader and libraries of hosted targets.
macro(kiln_cross_emulator qemu)
  find_program(KILN_CROSS_QEMU_${CMAKE_SYSTEM_PROCESSOR} ${qemu} NO_CMAKE_FIND_ROOT_PATH)
  if(NOT KILN_CROSS_QEMU_${CMAKE_SYSTEM_PROCESSOR})
    set(KILN_CROSS_QEMU_${CMAKE_SYSTEM_PROCESSOR} ${qemu})
  endif()
  set(CMAKE_CROSSCOMPILING_EMULATOR "${KILN_CROSS_QEMU_${CMAKE_SYSTEM_PROCESSOR}}" ${ARGN})
  if(EXISTS /usr/${KILN_CROSS_TRIPLE})
    list(APPEND CMAKE_CROSSCOMPILING_EMULATOR -L /usr/${KILN_CROSS_TRIPLE})
  endif()
endmacro()
