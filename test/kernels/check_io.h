/* check_io.h - output and entry point of the check programs that the kernel
 * tests build for every target (libm_check.c, halide_check.c): buffered
 * writes to standard output (on Hexagon, freestanding, through the Linux
 * syscalls qemu-hexagon serves) and CHECK_MAIN(run), which makes run()'s
 * result the exit status (_start on Hexagon, main elsewhere). */
#ifndef KILN_TEST_CHECK_IO_H
#define KILN_TEST_CHECK_IO_H

#include <stddef.h>
#include <stdint.h>

/* out(s, n) and finish(rc): kiln::programIoSource for the target, written
 * beside this header by writeCheckIo (CheckProgram.h). */
#include "program_io.h"

#if defined(__hexagon__)
#define CHECK_MAIN(run)                                                        \
  void _start(void) { finish(run()); }
#else
#define CHECK_MAIN(run)                                                        \
  int main(void) { finish(run()); }
#endif

static char check_buf[1 << 16];
static size_t check_used;
static void flush(void) {
  out(check_buf, check_used);
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
