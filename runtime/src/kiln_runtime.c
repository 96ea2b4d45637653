/* kiln_runtime.c - arena layout, sequences and the contiguous KV cache. */
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
  }
  return "unknown status";
}

static size_t seq_table_bytes(const kiln_layout *l) {
  return align_up((size_t)l->max_seqs * sizeof(kiln_seq));
}

static size_t kv_bytes(const kiln_layout *l) {
  return align_up((size_t)l->max_seqs * l->n_layers * 2u * l->context *
                  l->kv_width * sizeof(float));
}

size_t kiln_arena_bytes(const kiln_layout *l) {
  return seq_table_bytes(l) + kv_bytes(l) + align_up(l->activation_bytes);
}

kiln_status kiln_ctx_init(kiln_ctx *ctx, const kiln_layout *layout,
                          void *arena, size_t arena_bytes) {
  if (!ctx || !layout || !arena)
    return KILN_ERR_INVALID_ARGUMENT;
  if (layout->abi_version != KILN_ABI_VERSION ||
      layout->struct_size != sizeof(kiln_layout))
    return KILN_ERR_NOT_INITIALIZED;
  if ((uintptr_t)arena % KILN_ARENA_ALIGN != 0)
    return KILN_ERR_ARENA_MISALIGNED;
  if (arena_bytes < kiln_arena_bytes(layout))
    return KILN_ERR_ARENA_TOO_SMALL;
  uint8_t *base = (uint8_t *)arena;
  ctx->abi_version = KILN_ABI_VERSION;
  ctx->magic = KILN_CTX_MAGIC;
  ctx->layout = *layout;
  ctx->arena = base;
  ctx->arena_bytes = arena_bytes;
  ctx->weights = 0;
  ctx->seqs = (kiln_seq *)base;
  ctx->kv = (float *)(base + seq_table_bytes(layout));
  ctx->activations = base + seq_table_bytes(layout) + kv_bytes(layout);
  for (uint32_t i = 0; i < layout->max_seqs; ++i) {
    ctx->seqs[i].open = 0;
    ctx->seqs[i].length = 0;
  }
  return KILN_OK;
}

static int ctx_ok(const kiln_ctx *ctx) {
  return ctx && ctx->magic == KILN_CTX_MAGIC &&
         ctx->abi_version == KILN_ABI_VERSION;
}

kiln_status kiln_seq_open(kiln_ctx *ctx, int32_t *seq) {
  if (!seq)
    return KILN_ERR_INVALID_ARGUMENT;
  if (!ctx_ok(ctx))
    return KILN_ERR_NOT_INITIALIZED;
  for (uint32_t i = 0; i < ctx->layout.max_seqs; ++i) {
    if (!ctx->seqs[i].open) {
      ctx->seqs[i].open = 1;
      ctx->seqs[i].length = 0;
      *seq = (int32_t)i;
      return KILN_OK;
    }
  }
  return KILN_ERR_NO_FREE_SEQUENCE;
}

static int seq_ok(const kiln_ctx *ctx, int32_t seq) {
  return seq >= 0 && (uint32_t)seq < ctx->layout.max_seqs &&
         ctx->seqs[seq].open;
}

kiln_status kiln_seq_close(kiln_ctx *ctx, int32_t seq) {
  if (!ctx_ok(ctx))
    return KILN_ERR_NOT_INITIALIZED;
  if (!seq_ok(ctx, seq))
    return KILN_ERR_BAD_SEQUENCE;
  ctx->seqs[seq].open = 0;
  ctx->seqs[seq].length = 0;
  return KILN_OK;
}

kiln_status kiln_seq_reserve(const kiln_ctx *ctx, int32_t seq, size_t n) {
  if (!ctx_ok(ctx))
    return KILN_ERR_NOT_INITIALIZED;
  if (!seq_ok(ctx, seq))
    return KILN_ERR_BAD_SEQUENCE;
  if (n > (size_t)(ctx->layout.context - ctx->seqs[seq].length))
    return KILN_ERR_CONTEXT_FULL;
  return KILN_OK;
}

float *kiln_kv_row(const kiln_ctx *ctx, int32_t seq, uint32_t layer,
                   uint32_t which, uint32_t pos) {
  const kiln_layout *l = &ctx->layout;
  size_t plane = ((size_t)seq * l->n_layers + layer) * 2u + which;
  return ctx->kv + (plane * l->context + pos) * l->kv_width;
}
