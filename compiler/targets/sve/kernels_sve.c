/* kernels_sve.c - sve microkernels (none yet: the portable kernels serve). */
