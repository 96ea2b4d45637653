/* kiln_runtime.c - arena layout, sequences and the paged KV cache. */
#include "kiln/kiln.h"

#define KILN_CTX_MAGIC 0x4b494c4eu /* "KILN" */

static size_t align_up(size_t v) {
  return (v + KILN_ARENA_ALIGN - 1) / KILN_ARENA_ALIGN * KILN_ARENA_ALIGN;
}

const char *kiln_status_string(kiln_status status) {
  switch (status) {
  case KILN_OK: return "ok";
  case KILN_ERR_INVALID_ARGUMENT: return "invalid argument";
  case KILN_ERR_ARENA_TOO_SMALL: return "arena too small";
  case KILN_ERR_ARENA_MISALIGNED: return "arena not aligned to KILN_ARENA_ALIGN";
  case KILN_ERR_NOT_INITIALIZED: return "context not initialized";
  case KILN_ERR_NO_FREE_SEQUENCE: return "no free sequence";
  case KILN_ERR_BAD_SEQUENCE: return "sequence not open";
  case KILN_ERR_CONTEXT_FULL: return "context full";
  case KILN_ERR_TOKEN_OUT_OF_RANGE: return "token id out of range";
  case KILN_ERR_WEIGHTS_MISSING: return "weights not set";
  case KILN_ERR_WEIGHTS_MISMATCH: return "weights do not belong to this model";
  case KILN_ERR_KV_POOL_EXHAUSTED: return "KV block pool exhausted";
  case KILN_ERR_SCRATCH_TOO_SMALL: return "scratch memory too small";
  case KILN_ERR_OUTPUT_TOO_SMALL: return "output buffer too small";
  }
  return "unknown status";
}

/* The arena, in order: sequence table, block tables, reference counts, free
 * stack, block pool, sliding-window rings, thread pool, activations; each
 * region aligned. */
typedef struct regions {
  size_t tables, refs, free_list, pool, rings, threads, activations, end;
} regions;

static uint32_t blocks_per_seq(const kiln_layout *l) {
  return (l->context + l->kv_block - 1) / l->kv_block;
}

/* A ring is whole kv_block blocks, so a block-aligned run of positions is
 * contiguous in it as in a pool block. */
static int rings_ok(const kiln_layout *l) {
  if (l->swa_layers == 0)
    return l->swa_ring == 0;
  return l->swa_layers <= l->n_layers && l->swa_ring > 0 &&
         l->swa_ring % l->kv_block == 0;
}

static int layout_ok(const kiln_layout *l) {
  return l && l->abi_version == KILN_ABI_VERSION &&
         l->struct_size == sizeof(kiln_layout) && l->kv_block > 0 &&
         l->kv_block <= l->context && l->max_seqs > 0 && l->kv_blocks > 0 &&
         l->max_threads >= 1 && l->max_threads <= 256 &&
         (l->kv_dtype == KILN_KV_F32 || l->kv_dtype == KILN_KV_F16) &&
         rings_ok(l);
}

size_t kiln_kv_elem_bytes(const kiln_layout *l) {
  return l && l->kv_dtype == KILN_KV_F16 ? 2u : 4u;
}

/* Bytes of one block: K and V rows of kv_block positions of every layer kept
 * in blocks. */
static size_t block_bytes(const kiln_layout *l) {
  return (size_t)(l->n_layers - l->swa_layers) * 2u * l->kv_block *
         l->kv_width * kiln_kv_elem_bytes(l);
}

/* Bytes of one sequence's rings: K and V of every sliding-window layer. */
static size_t seq_ring_bytes(const kiln_layout *l) {
  return (size_t)l->swa_layers * 2u * l->swa_ring * l->kv_width *
         kiln_kv_elem_bytes(l);
}

static regions layout_regions(const kiln_layout *l) {
  regions r;
  r.tables = align_up((size_t)l->max_seqs * sizeof(kiln_seq));
  r.refs = r.tables + align_up((size_t)l->max_seqs * blocks_per_seq(l) * sizeof(int32_t));
  r.free_list = r.refs + align_up((size_t)l->kv_blocks * sizeof(uint32_t));
  r.pool = r.free_list + align_up((size_t)l->kv_blocks * sizeof(int32_t));
  r.rings = r.pool + align_up((size_t)l->kv_blocks * block_bytes(l));
  r.threads = r.rings + align_up((size_t)l->max_seqs * seq_ring_bytes(l));
  r.activations = r.threads + (l->max_threads > 1
                                   ? align_up(KILN_POOL_BYTES_FIXED +
                                              (size_t)l->max_threads *
                                                  KILN_POOL_BYTES_PER_THREAD)
                                   : 0);
  r.end = r.activations + align_up(l->activation_bytes);
  return r;
}

size_t kiln_arena_bytes(const kiln_layout *l) {
  return layout_ok(l) ? layout_regions(l).end : 0;
}

kiln_status kiln_ctx_init(kiln_ctx *ctx, const kiln_layout *layout,
                          void *arena, size_t arena_bytes) {
  if (!ctx || !layout || !arena)
    return KILN_ERR_INVALID_ARGUMENT;
  if (!layout_ok(layout))
    return KILN_ERR_NOT_INITIALIZED;
  if ((uintptr_t)arena % KILN_ARENA_ALIGN != 0)
    return KILN_ERR_ARENA_MISALIGNED;
  regions r = layout_regions(layout);
  if (arena_bytes < r.end)
    return KILN_ERR_ARENA_TOO_SMALL;
  uint8_t *base = (uint8_t *)arena;
  ctx->abi_version = KILN_ABI_VERSION;
  ctx->magic = KILN_CTX_MAGIC;
  ctx->layout = *layout;
  ctx->arena = base;
  ctx->arena_bytes = arena_bytes;
  ctx->weights = 0;
  ctx->seqs = (kiln_seq *)base;
  ctx->block_tables = (int32_t *)(base + r.tables);
  ctx->block_refs = (uint32_t *)(base + r.refs);
  ctx->free_blocks = (int32_t *)(base + r.free_list);
  ctx->blocks_per_seq = blocks_per_seq(layout);
  ctx->kv = base + r.pool;
  ctx->rings = base + r.rings;
  ctx->activations = base + r.activations;
  ctx->pool = layout->max_threads > 1 ? (void *)(base + r.threads) : 0;
  ctx->threads = 1;
  for (uint32_t i = 0; i < layout->max_seqs; ++i) {
    kiln_seq empty = {0, 0, 0, 0};
    ctx->seqs[i] = empty;
  }
  /* Pop order 0, 1, 2, ...: the stack holds the highest id at the bottom. */
  ctx->n_free = layout->kv_blocks;
  for (uint32_t i = 0; i < layout->kv_blocks; ++i) {
    ctx->free_blocks[i] = (int32_t)(layout->kv_blocks - 1 - i);
    ctx->block_refs[i] = 0;
  }
  return KILN_OK;
}

static int ctx_ok(const kiln_ctx *ctx) {
  return ctx && ctx->magic == KILN_CTX_MAGIC &&
         ctx->abi_version == KILN_ABI_VERSION;
}

static int seq_ok(const kiln_ctx *ctx, int32_t seq) {
  return seq >= 0 && (uint32_t)seq < ctx->layout.max_seqs &&
         ctx->seqs[seq].open;
}

static int32_t *table_of(const kiln_ctx *ctx, int32_t seq) {
  return ctx->block_tables + (size_t)seq * ctx->blocks_per_seq;
}

static int32_t find_closed(const kiln_ctx *ctx) {
  for (uint32_t i = 0; i < ctx->layout.max_seqs; ++i)
    if (!ctx->seqs[i].open)
      return (int32_t)i;
  return -1;
}

kiln_status kiln_seq_open(kiln_ctx *ctx, int32_t *seq) {
  if (!seq)
    return KILN_ERR_INVALID_ARGUMENT;
  if (!ctx_ok(ctx))
    return KILN_ERR_NOT_INITIALIZED;
  int32_t s = find_closed(ctx);
  if (s < 0)
    return KILN_ERR_NO_FREE_SEQUENCE;
  kiln_seq fresh = {1, 0, 0, 0};
  ctx->seqs[s] = fresh;
  *seq = s;
  return KILN_OK;
}

kiln_status kiln_seq_fork(kiln_ctx *ctx, int32_t parent, int32_t *child) {
  if (!child)
    return KILN_ERR_INVALID_ARGUMENT;
  if (!ctx_ok(ctx))
    return KILN_ERR_NOT_INITIALIZED;
  if (!seq_ok(ctx, parent))
    return KILN_ERR_BAD_SEQUENCE;
  int32_t c = find_closed(ctx);
  if (c < 0)
    return KILN_ERR_NO_FREE_SEQUENCE;
  ctx->seqs[c] = ctx->seqs[parent];
  const int32_t *from = table_of(ctx, parent);
  int32_t *to = table_of(ctx, c);
  for (uint32_t i = 0; i < ctx->seqs[parent].n_blocks; ++i) {
    to[i] = from[i];
    ++ctx->block_refs[from[i]];
  }
  const size_t ring = seq_ring_bytes(&ctx->layout);
  const uint8_t *src = ctx->rings + (size_t)parent * ring;
  uint8_t *dst = ctx->rings + (size_t)c * ring;
  for (size_t i = 0; i < ring; ++i)
    dst[i] = src[i];
  *child = c;
  return KILN_OK;
}

kiln_status kiln_seq_close(kiln_ctx *ctx, int32_t seq) {
  if (!ctx_ok(ctx))
    return KILN_ERR_NOT_INITIALIZED;
  if (!seq_ok(ctx, seq))
    return KILN_ERR_BAD_SEQUENCE;
  int32_t *table = table_of(ctx, seq);
  for (uint32_t i = 0; i < ctx->seqs[seq].n_blocks; ++i)
    if (--ctx->block_refs[table[i]] == 0)
      ctx->free_blocks[ctx->n_free++] = table[i];
  kiln_seq closed = {0, 0, 0, 0};
  ctx->seqs[seq] = closed;
  return KILN_OK;
}

/* Blocks `seq` must take from the pool to hold `n` more tokens. */
static uint32_t blocks_needed(const kiln_ctx *ctx, int32_t seq, size_t n) {
  const kiln_seq *s = &ctx->seqs[seq];
  const uint32_t B = ctx->layout.kv_block;
  uint32_t need = (uint32_t)((s->length + n + B - 1) / B) - s->n_blocks;
  /* A partly filled last block that others share is copied before writing. */
  if (n > 0 && s->length % B != 0 &&
      ctx->block_refs[table_of(ctx, seq)[s->n_blocks - 1]] > 1)
    ++need;
  return need;
}

uint32_t kiln_seq_blocks_needed(const kiln_ctx *ctx, int32_t seq, size_t n) {
  return ctx_ok(ctx) && seq_ok(ctx, seq) ? blocks_needed(ctx, seq, n) : 0;
}

kiln_status kiln_seq_reserve(const kiln_ctx *ctx, int32_t seq, size_t n) {
  if (!ctx_ok(ctx))
    return KILN_ERR_NOT_INITIALIZED;
  if (!seq_ok(ctx, seq))
    return KILN_ERR_BAD_SEQUENCE;
  if (n > (size_t)(ctx->layout.context - ctx->seqs[seq].length))
    return KILN_ERR_CONTEXT_FULL;
  if (blocks_needed(ctx, seq, n) > ctx->n_free)
    return KILN_ERR_KV_POOL_EXHAUSTED;
  return KILN_OK;
}

static uint8_t *block_base(const kiln_ctx *ctx, int32_t block) {
  return ctx->kv + (size_t)block * block_bytes(&ctx->layout);
}

void kiln_seq_grow(kiln_ctx *ctx, int32_t seq, size_t n) {
  kiln_seq *s = &ctx->seqs[seq];
  int32_t *table = table_of(ctx, seq);
  const uint32_t B = ctx->layout.kv_block;
  if (n > 0 && s->length % B != 0) {
    int32_t last = table[s->n_blocks - 1];
    if (ctx->block_refs[last] > 1) {
      int32_t copy = ctx->free_blocks[--ctx->n_free];
      const uint8_t *src = block_base(ctx, last);
      uint8_t *dst = block_base(ctx, copy);
      const size_t count = block_bytes(&ctx->layout);
      for (size_t i = 0; i < count; ++i)
        dst[i] = src[i];
      --ctx->block_refs[last];
      ctx->block_refs[copy] = 1;
      table[s->n_blocks - 1] = copy;
    }
  }
  uint32_t want = (uint32_t)((s->length + n + B - 1) / B);
  while (s->n_blocks < want) {
    int32_t b = ctx->free_blocks[--ctx->n_free];
    ctx->block_refs[b] = 1;
    table[s->n_blocks++] = b;
  }
}

uint32_t kiln_kv_free_blocks(const kiln_ctx *ctx) {
  return ctx_ok(ctx) ? ctx->n_free : 0;
}

void *kiln_kv_at(const kiln_ctx *ctx, int32_t seq, uint32_t layer,
                 uint32_t which, uint32_t pos) {
  const kiln_layout *l = &ctx->layout;
  const uint32_t full = l->n_layers - l->swa_layers;
  if (layer >= full)
    return ctx->rings + (size_t)seq * seq_ring_bytes(l) +
           (((size_t)(layer - full) * 2u + which) * l->swa_ring +
            pos % l->swa_ring) *
               l->kv_width * kiln_kv_elem_bytes(l);
  int32_t block = table_of(ctx, seq)[pos / l->kv_block];
  return block_base(ctx, block) +
         (((size_t)layer * 2u + which) * l->kv_block + pos % l->kv_block) *
             l->kv_width * kiln_kv_elem_bytes(l);
}

float *kiln_kv_row(const kiln_ctx *ctx, int32_t seq, uint32_t layer,
                   uint32_t which, uint32_t pos) {
  return (float *)kiln_kv_at(ctx, seq, layer, which, pos);
}

/* ---- the generated API, driven by the model's descriptor ---- */

static uint64_t load_u64(const uint8_t *b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= (uint64_t)b[i] << (8 * i);
  return v;
}

/* A blob belongs to the model when its size, magic, payload size and
 * fingerprint are the ones the model was compiled with. */
static int blob_ok(const kiln_model *m, const uint8_t *b, size_t bytes) {
  static const uint8_t magic[8] = {'K', 'I', 'L', 'N', 'W', 'T', '0', '1'};
  if (bytes != m->blob_bytes || bytes < KILN_BLOB_HEADER)
    return 0;
  for (int i = 0; i < 8; ++i)
    if (b[i] != magic[i])
      return 0;
  return load_u64(b + 8) == bytes - KILN_BLOB_HEADER &&
         load_u64(b + 16) == m->fingerprint;
}

kiln_status kiln_model_init(const kiln_model *m, kiln_ctx *ctx, void *arena,
                            size_t arena_bytes) {
  kiln_status s = kiln_ctx_init(ctx, m->layout, arena, arena_bytes);
  if (s != KILN_OK)
    return s;
  if (m->blob) {
    if (!blob_ok(m, m->blob, m->blob_bytes))
      return KILN_ERR_WEIGHTS_MISMATCH;
    ctx->weights = m->blob + KILN_BLOB_HEADER;
  }
  return KILN_OK;
}

kiln_status kiln_model_init_threads(const kiln_model *m, kiln_ctx *ctx,
                                    void *arena, size_t arena_bytes,
                                    uint32_t threads) {
  kiln_status s = kiln_model_init(m, ctx, arena, arena_bytes);
  return s == KILN_OK ? kiln_threads_start(ctx, threads) : s;
}

kiln_status kiln_model_set_weights(const kiln_model *m, kiln_ctx *ctx,
                                   const void *weights, size_t bytes) {
  if (!ctx || !weights)
    return KILN_ERR_INVALID_ARGUMENT;
  if (!ctx_ok(ctx))
    return KILN_ERR_NOT_INITIALIZED;
  if ((uintptr_t)weights % KILN_ARENA_ALIGN != 0 ||
      !blob_ok(m, (const uint8_t *)weights, bytes))
    return KILN_ERR_WEIGHTS_MISMATCH;
  ctx->weights = (const uint8_t *)weights + KILN_BLOB_HEADER;
  return KILN_OK;
}

kiln_status kiln_model_copy_weights(const kiln_model *m, kiln_ctx *ctx,
                                    void *dst, size_t bytes) {
  if (!ctx || !dst)
    return KILN_ERR_INVALID_ARGUMENT;
  if (!ctx_ok(ctx))
    return KILN_ERR_NOT_INITIALIZED;
  if ((uintptr_t)dst % KILN_ARENA_ALIGN != 0)
    return KILN_ERR_ARENA_MISALIGNED;
  if (bytes < m->blob_bytes)
    return KILN_ERR_ARENA_TOO_SMALL;
  /* A byte loop would do, but memcpy streams at the read bandwidth;
     freestanding targets get it from kiln_freestanding.c. */
  __builtin_memcpy(dst, m->blob, (size_t)m->blob_bytes);
  if (!blob_ok(m, (const uint8_t *)dst, (size_t)m->blob_bytes))
    return KILN_ERR_WEIGHTS_MISMATCH;
  ctx->weights = (const uint8_t *)dst + KILN_BLOB_HEADER;
  return KILN_OK;
}

kiln_status kiln_model_prefill(const kiln_model *m, kiln_ctx *ctx, int32_t seq,
                               const int32_t *tokens, size_t n,
                               float *logits) {
  if (!ctx || !tokens || n == 0)
    return KILN_ERR_INVALID_ARGUMENT;
  kiln_status s = kiln_seq_reserve(ctx, seq, n);
  if (s != KILN_OK)
    return s;
  if (!ctx->weights)
    return KILN_ERR_WEIGHTS_MISSING;
  for (size_t i = 0; i < n; ++i)
    if (tokens[i] < 0 || (uint32_t)tokens[i] >= m->vocab)
      return KILN_ERR_TOKEN_OUT_OF_RANGE;
  kiln_seq_grow(ctx, seq, n);
  const size_t batch = m->max_batch;
  int32_t row_seq[batch]; /* max_batch <= 4096: kilnc's limit */
  uint32_t row_pos[batch];
  for (size_t i = 0; i < n; i += batch) {
    size_t c = n - i < batch ? n - i : batch;
    for (size_t r = 0; r < c; ++r) {
      row_seq[r] = seq;
      row_pos[r] = ctx->seqs[seq].length + (uint32_t)r;
    }
    const int32_t last = (int32_t)c - 1;
    const int final = i + c == n;
    m->forward(ctx, tokens + i, row_seq, row_pos, (int)c, &last, final,
               final ? logits : 0);
    ctx->seqs[seq].length += (uint32_t)c;
  }
  return KILN_OK;
}

kiln_status kiln_model_decode_batch(const kiln_model *m, kiln_ctx *ctx,
                                    const int32_t *seqs, const int32_t *tokens,
                                    size_t n, float *logits) {
  if (!ctx || !seqs || !tokens || n == 0 || n > m->max_batch)
    return KILN_ERR_INVALID_ARGUMENT;
  /* Admission: every sequence open, distinct, with room for its token, and
     the pool able to hold all of them at once. */
  uint32_t blocks = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < i; ++j)
      if (seqs[j] == seqs[i])
        return KILN_ERR_INVALID_ARGUMENT;
    kiln_status s = kiln_seq_reserve(ctx, seqs[i], 1);
    if (s != KILN_OK)
      return s;
    blocks += kiln_seq_blocks_needed(ctx, seqs[i], 1);
    if (tokens[i] < 0 || (uint32_t)tokens[i] >= m->vocab)
      return KILN_ERR_TOKEN_OUT_OF_RANGE;
  }
  if (blocks > kiln_kv_free_blocks(ctx))
    return KILN_ERR_KV_POOL_EXHAUSTED;
  if (!ctx->weights)
    return KILN_ERR_WEIGHTS_MISSING;
  int32_t out_rows[n];
  uint32_t row_pos[n];
  for (size_t i = 0; i < n; ++i) {
    kiln_seq_grow(ctx, seqs[i], 1);
    row_pos[i] = ctx->seqs[seqs[i]].length;
    out_rows[i] = (int32_t)i;
  }
  m->forward(ctx, tokens, seqs, row_pos, (int)n, out_rows, (int)n, logits);
  for (size_t i = 0; i < n; ++i)
    ++ctx->seqs[seqs[i]].length;
  return KILN_OK;
}

/* Without a pool (one thread, or a freestanding target) work runs inline. */
#if !defined(KILN_THREADS)
void kiln_parallel_for(kiln_ctx *ctx, void (*fn)(void *, int), void *arg,
                       int count) {
  (void)ctx;
  for (int i = 0; i < count; ++i)
    fn(arg, i);
}

kiln_status kiln_threads_start(kiln_ctx *ctx, uint32_t threads) {
  if (!ctx_ok(ctx))
    return KILN_ERR_NOT_INITIALIZED;
  return threads == 1 ? KILN_OK : KILN_ERR_INVALID_ARGUMENT;
}

void kiln_threads_stop(kiln_ctx *ctx) { (void)ctx; }
#endif
