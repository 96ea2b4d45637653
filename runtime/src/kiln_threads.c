/* kiln_threads.c - the thread pool of hosted targets (pthreads).
 *
 * Compiled with -DKILN_THREADS into the archives of hosted targets; its state
 * lives in the arena region the layout reserves for it, so the pool allocates
 * nothing itself (the threads' stacks are the operating system's). */
#define _POSIX_C_SOURCE 200809L
#include "kiln/kiln.h"

#include <pthread.h>

typedef struct kiln_pool {
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  void (*fn)(void *, int);
  void *arg;
  int count, next, finished, stop;
  unsigned generation;
  uint32_t workers;
  pthread_t thread[]; /* workers entries, in the arena's pool region */
} kiln_pool;

_Static_assert(sizeof(kiln_pool) <= KILN_POOL_BYTES_FIXED,
               "kiln_pool must fit the region the layout reserves");
_Static_assert(sizeof(pthread_t) <= KILN_POOL_BYTES_PER_THREAD,
               "pthread_t must fit the region the layout reserves");

/* Takes and runs indices until none are left; called with mu held. */
static void run_slices(kiln_pool *p) {
  while (p->next < p->count) {
    int i = p->next++;
    pthread_mutex_unlock(&p->mu);
    p->fn(p->arg, i);
    pthread_mutex_lock(&p->mu);
    if (++p->finished == p->count)
      pthread_cond_broadcast(&p->done);
  }
}

static void *worker(void *arg) {
  kiln_pool *p = arg;
  pthread_mutex_lock(&p->mu);
  unsigned seen = p->generation;
  while (!p->stop) {
    while (p->generation == seen && !p->stop)
      pthread_cond_wait(&p->go, &p->mu);
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
  p->finished = 0;
  ++p->generation;
  pthread_cond_broadcast(&p->go);
  run_slices(p);
  while (p->finished < p->count)
    pthread_cond_wait(&p->done, &p->mu);
  p->count = 0;
  pthread_mutex_unlock(&p->mu);
}
