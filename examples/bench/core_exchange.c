/* core_exchange.c - what moving data between two cores costs (Linux): a
 * cache line bounced between CPU A and CPU B, and CPU A reading a buffer
 * that CPU B wrote last against one that A wrote itself.
 *
 *   clang-16 -O2 examples/bench/core_exchange.c -lpthread -o core_exchange
 *   ./core_exchange [A B]        (default CPUs 0 and 1)
 *
 * Threads that split one graph step after another read what the other core
 * wrote; on cores with a shared L2 or L3 this is cheap, across core
 * complexes it is not. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BOUNCES = 200000 };
static volatile int flag __attribute__((aligned(64)));
static unsigned char *buf;
static size_t bytes;
static int cpu_a, cpu_b;

static void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void *answer(void *arg) {
  (void)arg;
  pin(cpu_b);
  for (int i = 0; i < BOUNCES; ++i) {
    while (flag != 1)
      continue;
    flag = 0;
  }
  return 0;
}

static void *write_buffer(void *arg) {
  pin(*(const int *)arg);
  memset(buf, 1, bytes);
  return 0;
}

/* GB/s of CPU A reading the buffer after `writer` wrote it. */
static double read_after(int writer) {
  pthread_t t;
  pthread_create(&t, 0, write_buffer, &writer);
  pthread_join(t, 0);
  const double t0 = now();
  unsigned long sum = 0;
  for (size_t i = 0; i < bytes; i += 64)
    sum += buf[i];
  const double t1 = now();
  if (sum != bytes / 64)
    return 0;
  return bytes / (t1 - t0) / 1e9;
}

int main(int argc, char **argv) {
  cpu_a = argc > 2 ? atoi(argv[1]) : 0;
  cpu_b = argc > 2 ? atoi(argv[2]) : 1;
  pin(cpu_a);
  pthread_t t;
  pthread_create(&t, 0, answer, 0);
  const double t0 = now();
  for (int i = 0; i < BOUNCES; ++i) {
    flag = 1;
    while (flag != 0)
      continue;
  }
  const double t1 = now();
  pthread_join(t, 0);
  printf("cache line CPU %d -> %d -> %d: %.0f ns\n", cpu_a, cpu_b, cpu_a,
         (t1 - t0) / BOUNCES * 1e9);
  buf = aligned_alloc(64, (size_t)4 << 20);
  if (!buf)
    return 1;
  for (size_t kib = 512; kib <= 4096; kib *= 8) {
    bytes = kib << 10;
    const double own = read_after(cpu_a), other = read_after(cpu_b);
    printf("CPU %d reads %zu KiB written by itself: %.1f GB/s, by CPU %d: %.1f GB/s\n",
           cpu_a, kib, own, cpu_b, other);
  }
  free(buf);
  return 0;
}
