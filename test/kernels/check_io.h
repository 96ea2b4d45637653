/* check_io.h - output and entry point of the check programs that the kernel
 * tests build for every target (libm_check.c, halide_check.c): buffered
 * writes to standard output, on Hexagon (freestanding: no C library) through
 * the Linux syscalls qemu-hexagon serves, and CHECK_MAIN(run), which makes
 * run()'s result the exit status (_start on Hexagon, main elsewhere). */
#ifndef KILN_TEST_CHECK_IO_H
#define KILN_TEST_CHECK_IO_H

#include <stddef.h>
#include <stdint.h>

#if defined(__hexagon__)
static long check_sys3(long nr, long a, long b, long c) {
  register long r0 __asm__("r0") = a;
  register long r1 __asm__("r1") = b;
  register long r2 __asm__("r2") = c;
  register long r6 __asm__("r6") = nr;
  __asm__ volatile("trap0(#1)" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r6) : "memory");
  return r0;
}
static void sys_write(const char *s, size_t n) {
  check_sys3(64, 1, (long)s, (long)n);
}
#define CHECK_MAIN(run)                                                        \
  void _start(void) {                                                         \
    check_sys3(93, run(), 0, 0);                                              \
    for (;;) {                                                                \
    }                                                                         \
  }
#else
#include <unistd.h>
static void sys_write(const char *s, size_t n) {
  while (n) {
    long w = write(1, s, n);
    if (w <= 0)
      return;
    s += w;
    n -= (size_t)w;
  }
}
#define CHECK_MAIN(run)                                                        \
  int main(void) { return run(); }
#endif

static char check_buf[1 << 16];
static size_t check_used;
static void flush(void) {
  sys_write(check_buf, check_used);
  check_used = 0;
}
static void put_char(char c) {
  if (check_used == sizeof check_buf)
    flush();
  check_buf[check_used++] = c;
}
static void put_str(const char *s) {
  while (*s)
    put_char(*s++);
}

#endif
