# Toolchain file: Hexagon v67 with HVX (128-byte vectors), freestanding, with
# clang-16 and ld.lld. There is no C library for Hexagon here: programs are
# built with -nostdlib, provide their own _start and exit through the Linux
# syscall (see tools/kiln-run/Runner.cpp); they run under qemu-hexagon (7.2
# runs v67 and older). kiln_add_model() compiles for hvx by default; the
# library carries memcpy/memset and the division helpers it needs.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR hexagon)
set(KILN_CROSS_TRIPLE hexagon)
include("${CMAKE_CURRENT_LIST_DIR}/KilnCrossCommon.cmake")

# No C library: try_compile checks can only build static libraries.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-mv67 -mhvx -mhvx-length=128b -ffreestanding")
set(CMAKE_CXX_FLAGS_INIT "${CMAKE_C_FLAGS_INIT}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostdlib -static -fuse-ld=lld")
set(KILN_DEFAULT_TARGET hvx)
kiln_cross_emulator(qemu-hexagon)
