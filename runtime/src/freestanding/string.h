/* string.h - <string.h> for freestanding targets (Hexagon): the functions
 * kiln_freestanding.c implements. Placed beside generated library sources
 * for those targets only, like math.h. */
#ifndef KILN_FREESTANDING_STRING_H
#define KILN_FREESTANDING_STRING_H

#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);

#endif
