/* kernels_neon.c - neon microkernels (none yet: the portable kernels serve). */
