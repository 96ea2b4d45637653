/* kiln_threads.c - the thread pool of hosted targets (pthreads).
 *
 * Compiled with -DKILN_THREADS into the archives of hosted targets; its state
 * lives in the arena region the layout reserves for it, so the pool allocates
 * nothing itself (the threads' stacks are the operating system's). */
#define _POSIX_C_SOURCE 200809L
#include "kiln/kiln.h"

#include <pthread.h>
#include <time.h>

/* How long a thread busy-waits for the next parallel section (a worker) or for
 * the others to finish (the caller) before it sleeps on a condition variable.
 * A decode step runs about a hundred parallel sections a few microseconds
 * apart, and waking a sleeping thread through the kernel takes longer than
 * such a section (docs/notes/benchmarks-history.md, "Threads that wait
 * spinning"). Bounded, so idle and oversubscribed threads still sleep.
 * -DKILN_SPIN_US=0 (always sleep) is how the pool's tests reach the sleeping
 * path. */
#ifndef KILN_SPIN_US
#define KILN_SPIN_US 200
#endif

typedef struct kiln_pool {
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  void (*fn)(void *, int);
  void *arg;
  /* Written under mu; generation and finished are also read without it
   * (atomically) while spinning. */
  int count, next, finished, stop;
  int sleepers;     /* workers waiting on go */
  int main_waiting; /* the caller waits on done */
  unsigned generation;
  uint32_t workers;
  pthread_t thread[]; /* workers entries, in the arena's pool region */
} kiln_pool;

_Static_assert(sizeof(kiln_pool) <= KILN_POOL_BYTES_FIXED,
               "kiln_pool must fit the region the layout reserves");
_Static_assert(sizeof(pthread_t) <= KILN_POOL_BYTES_PER_THREAD,
               "pthread_t must fit the region the layout reserves");

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Spins until *word != value (returns 1) or KILN_SPIN_US passed (returns 0). */
static int spin_while_equal(const int *word, int value) {
  if (KILN_SPIN_US <= 0)
    return 0;
  uint64_t deadline = 0;
  for (unsigned i = 0;; ++i) {
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != value)
      return 1;
    cpu_relax();
    if ((i & 63) == 63) {
      uint64_t t = now_ns();
      if (!deadline)
        deadline = t + (uint64_t)KILN_SPIN_US * 1000u;
      else if (t >= deadline)
        return 0;
    }
  }
}

/* Takes and runs indices until none are left; called with mu held. */
static void run_slices(kiln_pool *p) {
  while (p->next < p->count) {
    int i = p->next++;
    pthread_mutex_unlock(&p->mu);
    p->fn(p->arg, i);
    pthread_mutex_lock(&p->mu);
    __atomic_store_n(&p->finished, p->finished + 1, __ATOMIC_RELEASE);
    if (p->finished == p->count && p->main_waiting)
      pthread_cond_broadcast(&p->done);
  }
}

static void *worker(void *arg) {
  kiln_pool *p = arg;
  pthread_mutex_lock(&p->mu);
  unsigned seen = p->generation;
  while (!p->stop) {
    if (p->generation == seen) {
      pthread_mutex_unlock(&p->mu);
      spin_while_equal((const int *)&p->generation, (int)seen);
      pthread_mutex_lock(&p->mu);
      ++p->sleepers;
      while (p->generation == seen && !p->stop)
        pthread_cond_wait(&p->go, &p->mu);
      --p->sleepers;
      if (p->stop)
        break;
    }
    seen = p->generation;
    run_slices(p);
  }
  pthread_mutex_unlock(&p->mu);
  return 0;
}

kiln_status kiln_threads_start(kiln_ctx *ctx, uint32_t threads) {
  if (!ctx || ctx->magic != 0x4b494c4eu)
    return KILN_ERR_NOT_INITIALIZED;
  if (threads < 1 || threads > ctx->layout.max_threads)
    return KILN_ERR_INVALID_ARGUMENT;
  if (threads == 1)
    return KILN_OK;
  if (!ctx->pool || ctx->threads > 1) /* no pool, or already started */
    return KILN_ERR_INVALID_ARGUMENT;
  kiln_pool *p = ctx->pool;
  pthread_mutex_init(&p->mu, 0);
  pthread_cond_init(&p->go, 0);
  pthread_cond_init(&p->done, 0);
  p->fn = 0;
  p->arg = 0;
  p->count = p->next = p->finished = p->stop = 0;
  p->sleepers = p->main_waiting = 0;
  p->generation = 0;
  p->workers = 0;
  for (uint32_t i = 0; i + 1 < threads; ++i) {
    if (pthread_create(&p->thread[i], 0, worker, p) != 0) {
      ctx->threads = p->workers + 1;
      kiln_threads_stop(ctx);
      return KILN_ERR_INVALID_ARGUMENT;
    }
    ++p->workers;
  }
  ctx->threads = threads;
  return KILN_OK;
}

void kiln_threads_stop(kiln_ctx *ctx) {
  if (!ctx || !ctx->pool || ctx->threads <= 1)
    return;
  kiln_pool *p = ctx->pool;
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  for (uint32_t i = 0; i < p->workers; ++i)
    pthread_join(p->thread[i], 0);
  p->workers = 0;
  pthread_cond_destroy(&p->go);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->mu);
  ctx->threads = 1;
}

void kiln_parallel_for(kiln_ctx *ctx, void (*fn)(void *, int), void *arg,
                       int count) {
  if (ctx->threads <= 1 || count <= 1) {
    for (int i = 0; i < count; ++i)
      fn(arg, i);
    return;
  }
  kiln_pool *p = ctx->pool;
  pthread_mutex_lock(&p->mu);
  p->fn = fn;
  p->arg = arg;
  p->count = count;
  p->next = 0;
  __atomic_store_n(&p->finished, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&p->generation, p->generation + 1, __ATOMIC_RELEASE);
  if (p->sleepers)
    pthread_cond_broadcast(&p->go);
  run_slices(p);
  if (p->finished < p->count) {
    /* The others are still running slices: wait for the count to move. */
    pthread_mutex_unlock(&p->mu);
    for (int f; (f = __atomic_load_n(&p->finished, __ATOMIC_ACQUIRE)) < count;)
      if (!spin_while_equal(&p->finished, f))
        break;
    pthread_mutex_lock(&p->mu);
    p->main_waiting = 1;
    while (p->finished < p->count)
      pthread_cond_wait(&p->done, &p->mu);
    p->main_waiting = 0;
  }
  p->count = 0;
  pthread_mutex_unlock(&p->mu);
}
