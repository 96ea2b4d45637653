/* kiln.h - the Kiln runtime ABI shared by the compiler and generated libraries.
 *
 * Standalone (only <stddef.h> and <stdint.h>), C11, no allocator: every byte the
 * runtime touches lives in the caller's arena. Each generated model header
 * embeds this file, so two models' headers can be included together.
 */
#ifndef KILN_KILN_H
#define KILN_KILN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_ABI_VERSION 2u
/* Arena and every region in it are aligned to this many bytes. */
#define KILN_ARENA_ALIGN 64u

typedef enum kiln_status {
  KILN_OK = 0,
  KILN_ERR_INVALID_ARGUMENT = 1,  /* a NULL pointer, zero count or bad handle */
  KILN_ERR_ARENA_TOO_SMALL = 2,   /* arena smaller than NAME_ARENA_BYTES */
  KILN_ERR_ARENA_MISALIGNED = 3,  /* arena not aligned to KILN_ARENA_ALIGN */
  KILN_ERR_NOT_INITIALIZED = 4,   /* context not initialised, or ABI mismatch */
  KILN_ERR_NO_FREE_SEQUENCE = 5,  /* all NAME_MAX_SEQS sequences are open */
  KILN_ERR_BAD_SEQUENCE = 6,      /* sequence id not open */
  KILN_ERR_CONTEXT_FULL = 7,      /* the tokens do not fit in the context */
  KILN_ERR_TOKEN_OUT_OF_RANGE = 8,/* a token id >= the vocabulary size */
  KILN_ERR_WEIGHTS_MISSING = 9,   /* external weights not set */
  KILN_ERR_WEIGHTS_MISMATCH = 10, /* weights blob of another compile */
  KILN_ERR_KV_POOL_EXHAUSTED = 11, /* the KV block pool cannot hold the tokens */
  KILN_ERR_SCRATCH_TOO_SMALL = 12, /* less scratch than the call needs */
  KILN_ERR_OUTPUT_TOO_SMALL = 13   /* the result is longer than the buffer */
} kiln_status;

/* A short, static, human-readable description of a status. */
const char *kiln_status_string(kiln_status status);

/* Shape of a model's KV cache and activations, filled in by generated code.
 * The KV cache is paged: a pool of kv_blocks blocks of kv_block tokens each
 * (K and V of every full-attention layer); every sequence maps its positions
 * to blocks through its block table. kv_block == context gives the contiguous
 * layout. A sliding-window layer sees only its last positions, so it keeps
 * no blocks: each sequence has a ring of swa_ring positions per such layer
 * (position p at row p % swa_ring), enough for the window and one forward
 * call's new rows.
 * KV slots: generated code numbers the full-attention layers 0 ..
 * n_layers - swa_layers - 1 and the sliding-window layers after them. */
typedef struct kiln_layout {
  uint32_t abi_version;
  uint32_t struct_size;       /* sizeof(kiln_layout) */
  uint32_t n_layers;
  uint32_t kv_width;          /* num_kv_heads * head_dim */
  uint32_t context;           /* tokens per sequence */
  uint32_t max_seqs;          /* sequences open at once */
  uint32_t kv_block;          /* tokens per KV block */
  uint32_t kv_blocks;         /* blocks in the pool */
  uint64_t activation_bytes;  /* planned arena of one forward call */
  uint32_t max_threads;       /* threads the generated code splits work for */
  uint32_t kv_dtype;          /* element type of the KV cache: KILN_KV_F32 or
                                 KILN_KV_F16 (IEEE binary16, rounded to
                                 nearest even when stored) */
  uint32_t swa_layers;        /* of n_layers, those kept in rings (the last
                                 KV slots); 0: every layer in blocks */
  uint32_t swa_ring;          /* positions per ring, a multiple of kv_block
                                 (0 without sliding-window layers) */
} kiln_layout;
_Static_assert(sizeof(kiln_layout) == 56, "kiln_layout ABI");

/* kiln_layout.kv_dtype. f16 halves the bytes attention streams per cached
 * position (and the pool's size) at the cost of rounding K and V to 11
 * significant bits; arithmetic stays f32. */
#define KILN_KV_F32 0u
#define KILN_KV_F16 1u

/* An input or output of a graph model (NAME_inputs[], NAME_outputs[]):
 * dtype uses ONNX's TensorProto.DataType numbers (1 float, 7 int64, 9 bool
 * stored as one byte, ...), the shape is row-major. */
typedef struct kiln_tensor_info {
  const char *name;
  int32_t dtype;
  int32_t rank;
  const int64_t *shape;
  size_t bytes;
} kiln_tensor_info;

/* Bytes of arena the thread pool's state takes per thread, and fixed. */
#define KILN_POOL_BYTES_FIXED 512u
#define KILN_POOL_BYTES_PER_THREAD 64u

typedef struct kiln_seq {
  uint32_t open;
  uint32_t length;            /* tokens in the KV cache */
  uint32_t n_blocks;          /* entries of its block table in use */
  uint32_t reserved;
} kiln_seq;
_Static_assert(sizeof(kiln_seq) == 16, "kiln_seq ABI");

/* Run-time state; caller-owned storage, initialised by NAME_init. */
typedef struct kiln_ctx {
  uint32_t abi_version;
  uint32_t magic;
  kiln_layout layout;
  uint8_t *arena;
  size_t arena_bytes;
  const uint8_t *weights;     /* NULL until weights are set */
  kiln_seq *seqs;             /* max_seqs entries, in the arena */
  int32_t *block_tables;      /* max_seqs x blocks_per_seq, in the arena */
  uint32_t *block_refs;       /* reference count per block, in the arena */
  int32_t *free_blocks;       /* stack of free block ids, in the arena */
  uint32_t n_free;            /* entries on that stack */
  uint32_t blocks_per_seq;    /* ceil(context / kv_block) */
  uint8_t *kv;                /* the block pool, in the arena */
  uint8_t *rings;             /* sliding-window rings, max_seqs x swa_layers
                                 x K and V, in the arena */
  uint8_t *activations;       /* planned intermediates, in the arena */
  void *pool;                 /* thread pool state, in the arena; NULL: none */
  uint32_t threads;           /* threads working (1: the caller's only) */
} kiln_ctx;

/* A weight blob starts with this many header bytes: the magic "KILNWT01",
 * the payload's size and the model's fingerprint (little-endian uint64
 * each), then zeros. The payload follows, aligned to KILN_ARENA_ALIGN. */
#define KILN_BLOB_HEADER 64u

/* One forward pass of a language model over n rows: row r is token
 * tokens[r] of sequence row_seq[r] at position row_pos[r]; the logits of
 * rows out_rows[0..n_out) go to `logits` (n_out x vocab) unless NULL. */
typedef void (*kiln_forward_fn)(kiln_ctx *ctx, const int32_t *tokens,
                                const int32_t *row_seq, const uint32_t *row_pos,
                                int n, const int32_t *out_rows, int n_out,
                                float *logits);

/* What the runtime knows of one compiled model; the generated library
 * defines one (static const) and its NAME_* functions hand it to the
 * kiln_model_* functions below. */
typedef struct kiln_model {
  const kiln_layout *layout;
  const uint8_t *blob;        /* the embedded weight blob; NULL when the
                                 caller supplies it (--weights=external) */
  uint64_t blob_bytes;        /* the blob's size, header included */
  uint64_t fingerprint;       /* what the blob's header must carry */
  /* Language models only (NULL / 0 for graphs): */
  kiln_forward_fn forward;
  uint32_t vocab;             /* logits per row */
  uint32_t max_batch;         /* rows of one forward call (<= 4096) */
} kiln_model;

/* NAME_init: lays out the arena and attaches the embedded weights. */
kiln_status kiln_model_init(const kiln_model *model, kiln_ctx *ctx,
                            void *arena, size_t arena_bytes);
/* NAME_init_threads: kiln_model_init, then kiln_threads_start. */
kiln_status kiln_model_init_threads(const kiln_model *model, kiln_ctx *ctx,
                                    void *arena, size_t arena_bytes,
                                    uint32_t threads);
/* NAME_set_weights (--weights=external): checks and attaches a blob. */
kiln_status kiln_model_set_weights(const kiln_model *model, kiln_ctx *ctx,
                                   const void *weights, size_t bytes);
/* NAME_copy_weights: copies the embedded blob to dst and reads it there. */
kiln_status kiln_model_copy_weights(const kiln_model *model, kiln_ctx *ctx,
                                    void *dst, size_t bytes);
/* NAME_prefill: appends n tokens to seq in forward calls of at most
 * max_batch rows; the last token's logits go to `logits` unless NULL. */
kiln_status kiln_model_prefill(const kiln_model *model, kiln_ctx *ctx,
                               int32_t seq, const int32_t *tokens, size_t n,
                               float *logits);
/* NAME_decode_batch: appends tokens[i] to seqs[i] in one forward call; all
 * or nothing. */
kiln_status kiln_model_decode_batch(const kiln_model *model, kiln_ctx *ctx,
                                    const int32_t *seqs, const int32_t *tokens,
                                    size_t n, float *logits);

/* Bytes of arena a layout needs; 0 if the layout is invalid. */
size_t kiln_arena_bytes(const kiln_layout *layout);
/* Splits the arena into sequence table, block tables, the free list, the KV
 * block pool, the sliding-window rings and activations. */
kiln_status kiln_ctx_init(kiln_ctx *ctx, const kiln_layout *layout,
                          void *arena, size_t arena_bytes);
/* Opens an empty sequence (it holds no blocks until tokens arrive). */
kiln_status kiln_seq_open(kiln_ctx *ctx, int32_t *seq);
/* Opens `child` as a copy of `parent`: it shares all of parent's blocks by
 * reference count; whichever appends first to a shared, partly filled last
 * block gets its own copy (copy on write). Rings are copied. */
kiln_status kiln_seq_fork(kiln_ctx *ctx, int32_t parent, int32_t *child);
/* Closes a sequence and returns the blocks no other sequence holds. */
kiln_status kiln_seq_close(kiln_ctx *ctx, int32_t seq);
/* Checks, changing nothing, that `seq` is open and that its context and the
 * block pool can take `n` more tokens. */
kiln_status kiln_seq_reserve(const kiln_ctx *ctx, int32_t seq, size_t n);
/* Blocks the pool must supply for `n` more tokens of an open `seq`. */
uint32_t kiln_seq_blocks_needed(const kiln_ctx *ctx, int32_t seq, size_t n);
/* Makes room for `n` more tokens: copies a shared last block, takes new
 * blocks from the pool. Call only after kiln_seq_reserve succeeded. */
void kiln_seq_grow(kiln_ctx *ctx, int32_t seq, size_t n);
/* Blocks in the pool no sequence holds. */
uint32_t kiln_kv_free_blocks(const kiln_ctx *ctx);
/* Runs fn(arg, 0) .. fn(arg, count - 1), spread over the context's threads
 * (the calling thread takes part); returns when all have run. */
void kiln_parallel_for(kiln_ctx *ctx, void (*fn)(void *arg, int index),
                       void *arg, int count);
/* Starts threads - 1 workers (pthreads; hosted targets only). */
kiln_status kiln_threads_start(kiln_ctx *ctx, uint32_t threads);
/* Stops and joins the workers; the context stays usable with one thread. */
void kiln_threads_stop(kiln_ctx *ctx);

/* Bytes of one KV cache element of a layout (4 for f32, 2 for f16). */
size_t kiln_kv_elem_bytes(const kiln_layout *layout);
/* Row `pos` of the K (which = 0) or V (which = 1) cache of KV slot `layer`,
 * kv_width elements of the layout's kv_dtype; the position must lie in a
 * block the sequence holds (a ring slot: in the ring's last swa_ring
 * positions). Rows of one block are kv_width elements apart; so are those of
 * a kv_block-aligned block of a ring. */
void *kiln_kv_at(const kiln_ctx *ctx, int32_t seq, uint32_t layer,
                 uint32_t which, uint32_t pos);
/* kiln_kv_at for an f32 cache (kv_dtype KILN_KV_F32). */
float *kiln_kv_row(const kiln_ctx *ctx, int32_t seq, uint32_t layer,
                   uint32_t which, uint32_t pos);

#ifdef __cplusplus
}
#endif
#endif /* KILN_KILN_H */
