/* kernels_x86.c - x86 microkernels (none yet: the portable kernels serve). */
