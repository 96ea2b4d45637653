/* start_hexagon.c - the freestanding entry of the consumer on Hexagon, where
 * no C library exists: _start runs the fixed prompt 1 5 9 (arguments are
 * ignored), writes the tokens and exits through Linux system calls, which
 * qemu-hexagon implements (write = 64, exit = 93, trap0(#1)). */
#include "generate.h"

static long syscall3(long nr, long a, long b, long c) {
  register long r0 __asm__("r0") = a;
  register long r1 __asm__("r1") = b;
  register long r2 __asm__("r2") = c;
  register long r6 __asm__("r6") = nr;
  __asm__ volatile("trap0(#1)" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r6) : "memory");
  return r0;
}

static size_t length(const char *s) {
  size_t n = 0;
  while (s[n])
    ++n;
  return n;
}

void _start(void) {
  static const int32_t prompt[] = {1, 5, 9};
  static char text[GENERATE_TEXT_BYTES];
  const char *error = 0;
  int n = generate(prompt, 3, text, &error);
  if (n < 0) {
    syscall3(64, 2, (long)error, (long)length(error));
    syscall3(64, 2, (long)"\n", 1);
  } else {
    syscall3(64, 1, (long)text, n);
  }
  syscall3(93, n < 0, 0, 0);
  for (;;) {
  }
}
