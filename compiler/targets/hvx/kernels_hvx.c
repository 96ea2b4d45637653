/* kernels_hvx.c - hvx microkernels (none yet: the portable kernels serve). */
