/* kernels_rvv.c - rvv microkernels (none yet: the portable kernels serve). */
