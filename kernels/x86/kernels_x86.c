/* kernels_x86.c - x86 matmul microkernels: Q8_0 activations times Q8_0, Q4_0,
 * Q2_K, Q3_K, Q4_K, Q6_K, Q5_0, Q5_1, Q5_K, IQ4_NL and IQ4_XS weights, AVX2
 * (x86-64-v3) and AVX-512 VNNI.
 *
 * Weights arrive packed by X86Target::packWeight: groups of NR rows (8 for
 * AVX2, 16 for AVX-512), each group [metadata of all blocks, padded to 64
 * bytes][quants]. Quants are interleaved in 4-byte words, one word per row in
 * each 32/64-byte vector, so a u8 x s8 dot product of a weight vector with a
 * broadcast 4-byte activation word leaves row i's partial sum in 32-bit lane
 * i: the accumulators hold NR outputs each, without horizontal reductions.
 * A tile is up to 4 activation rows (MR) by NR weight rows, or under AVX-512
 * two tiles' 8 rows; each weight vector is loaded once per tile and used for
 * every activation row.
 *
 * Activations are quantized by kiln_q8_rows (the numerics of kernels_q8.c);
 * integer block sums are exact, so results differ from the scalar kernels only
 * in the rounding of the float accumulation.
 *
 * Unsigned weights (Q4_0 nibbles, Q4_K, the five-bit types, VNNI Q8_0 stored
 * as q + 128) use u8 x s8 products and subtract offset x (sum of the
 * activation block); signed weights under AVX2 (Q8_0, Q6_K, the IQ4 levels)
 * use |w| x sign(a, w).
 */
#include "kiln_kernels.h"

#include <immintrin.h>

#define KILN_X86_MR 4

/* With AVX-512's 32 vector registers, loops over a tile's activation rows
 * (MR) or a decode walk's groups (G) are unrolled whole, so each accumulator
 * stays in a register: left to its cost model, clang keeps some of these
 * loops rolled, and a rolled loop indexes its accumulators in memory, so
 * every block waits on a store and a reload. With AVX2's 16 the unrolled
 * tiles spill more than the rolled loop costs (Q8_0 1.06-1.14x, Q4_0
 * 1.06-1.11x the time in a paired harness), so there clang decides. */
#if defined(__AVX512F__)
#define KILN_X86_UNROLL _Pragma("clang loop unroll(full)")
#else
#define KILN_X86_UNROLL
#endif

/* Activations in tiles: the x86 kernels read Q8_0 blocks quantized by
 * kiln_x86_q8_tiles in tiles of up to 4 rows. A tile of rt rows whose first
 * row is r0 starts KILN_X86_TILE_AT(r0, nb) bytes into the scratch and holds
 * rt x nb block scales as f32, then the blocks' sums of quants (int32), then
 * the blocks, block b of the tile's row r at index KILN_X86_AT(rt, r, b) of
 * all three: one pointer walks all rows of a tile, their blocks side by side.
 * The scales and sums are made once here, not by every kernel call that
 * reads the rows (with threads, each slice of a matmul is a call). */
#define KILN_X86_AT(MR, r, b) ((int64_t)(b) * (MR) + (r))
#define KILN_X86_ROW_BYTES(nb) ((int64_t)(nb) * (4 + 4 + 34))
#define KILN_X86_TILE_AT(r0, nb) ((int64_t)(r0) * KILN_X86_ROW_BYTES(nb))

typedef struct {
  const float *da;
  const int32_t *as;
  const kiln_q8_block *a;
} kiln_x86_tile_act;

static inline kiln_x86_tile_act kiln_x86_tile_of(const uint8_t *q, int r0,
                                                 int rt, int nb) {
  const uint8_t *t = q + KILN_X86_TILE_AT(r0, nb);
  kiln_x86_tile_act v = {(const float *)t,
                         (const int32_t *)(t + (int64_t)rt * nb * 4),
                         (const kiln_q8_block *)(t + (int64_t)rt * nb * 8)};
  return v;
}

/* The sum of 32 int8: flipped to unsigned (+128 each), summed in groups of
 * 8 by VPSADBW against zero, 4096 taken back. */
static inline int32_t kiln_x86_sum32(const int8_t *q) {
  const __m256i u = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)q),
                                     _mm256_set1_epi8((char)0x80));
  const __m256i s = _mm256_sad_epu8(u, _mm256_setzero_si256());
  const __m128i h = _mm_add_epi64(_mm256_castsi256_si128(s),
                                  _mm256_extracti128_si256(s, 1));
  return (int32_t)(_mm_cvtsi128_si64(h) + _mm_extract_epi64(h, 1)) - 4096;
}

KILN_KERNEL const uint8_t *kiln_x86_q8_tiles(const float *x, int rows, int K,
                                             void *scratch) {
  uint8_t *q = (uint8_t *)scratch;
  const int nb = K / 32;
  for (int r0 = 0; x && r0 < rows; r0 += KILN_X86_MR) {
    const int rt = rows - r0 < KILN_X86_MR ? rows - r0 : KILN_X86_MR;
    uint8_t *t = q + KILN_X86_TILE_AT(r0, nb);
    float *da = (float *)t;
    int32_t *as = (int32_t *)(t + (int64_t)rt * nb * 4);
    kiln_q8_block *blk = (kiln_q8_block *)(t + (int64_t)rt * nb * 8);
    /* Each row's blocks first, then their scales and sums: read back at
     * once, a block's quants (stored 8 bytes at a time) would wait for the
     * stores to complete, since a 32-byte load cannot be forwarded from
     * several smaller stores. */
    for (int r = 0; r < rt; ++r) {
      for (int b = 0; b < nb; ++b)
        kiln_quantize_row_q8_0(x + (int64_t)(r0 + r) * K + 32 * b, 32,
                               blk + KILN_X86_AT(rt, r, b));
      for (int b = 0; b < nb; ++b) {
        const int64_t i = KILN_X86_AT(rt, r, b);
        da[i] = _cvtsh_ss(blk[i].d);
        as[i] = kiln_x86_sum32(blk[i].qs);
      }
    }
  }
  return q;
}

static inline int32_t kiln_x86_ld32(const void *p) {
  int32_t v;
  __builtin_memcpy(&v, p, 4);
  return v;
}

/* Rows whose tiles run against each group of weights before the next
 * group: all of them unless their activations outgrow L2. Each panel
 * streams the whole weight matrix again, so a panel holds a prefill chunk of
 * 32 rows up to K = 14336 (Llama 3 8B's FFN): 16384 blocks of 42 bytes.
 * (MicrokernelTest sets a small limit to run several panels.) */
#ifndef KILN_X86_PANEL_BLOCKS
#define KILN_X86_PANEL_BLOCKS 16384
#endif
static int kiln_x86_panel(int rows, int nb) {
  int p = KILN_X86_PANEL_BLOCKS / nb;
  p = p < KILN_X86_MR ? KILN_X86_MR : p - p % KILN_X86_MR;
  return p < rows ? p : rows;
}

/* Prefill: while the tiles of one group of weight rows run, the next group
 * is fetched into L2, a share of its bytes per tile, so the first tile of
 * every group does not wait on memory for its weights (the in-tile prefetch
 * alone is a few hundred cycles ahead, about one DRAM latency). A kernel
 * whose tiles take the share (the 8-row tiles) requests it from inside the
 * tile, after the loads of its first block: the same prefetches issued by
 * the driver just before the tile left the Q8_0 prefill markedly slower, and
 * spread evenly over the tile's blocks they slowed the two-thread Q4_0
 * prefill (docs/notes/benchmarks-history.md, "Zen 5: where the next group's
 * prefetch is issued"). */
typedef struct {
  const char *p;
  int64_t bytes;
} kiln_x86_pf_share;

static inline kiln_x86_pf_share kiln_x86_next_share(const uint8_t *next,
                                                    int64_t groupBytes, int tile,
                                                    int n, int tiles) {
  const int64_t share = (groupBytes / tiles + 63) & ~(int64_t)63;
  kiln_x86_pf_share s = {(const char *)next + tile * share, 0};
  const int64_t left = groupBytes - tile * share;
  s.bytes = left < 0 ? 0 : left < n * share ? left : n * share;
  return s;
}

static inline void kiln_x86_pf_fetch(const kiln_x86_pf_share *s) {
  for (int64_t o = 0; o < s->bytes; o += 64)
    _mm_prefetch(s->p + o, _MM_HINT_T1);
}

static inline void kiln_x86_pf_next_group(const uint8_t *next, int64_t groupBytes,
                                          int tile, int tiles) {
  const kiln_x86_pf_share s = kiln_x86_next_share(next, groupBytes, tile, 1, tiles);
  kiln_x86_pf_fetch(&s);
}

/* Each quantized kernel has two entries: kiln_NAME, the table's signature
 * (output row r at y + r * N), and kiln_NAME_ld, which puts output row r at
 * y + r * ldy. With threads, a slice of a matmul's output columns is written
 * straight into its rows through the second (ldy = the full width) rather
 * than into scratch and then copied. A library calls one or the other. */
#define KILN_X86_LD_ATTRS __attribute__((unused))
/* Q4_1 runs the Q5_1 kernel (KILN_Q4_1_AS_Q5_1 in kiln_kernels.h): both
 * entries of kiln_matmul_q4_1_q8_0_SUFFIX call the Q5_1 ones. */
#define KILN_X86_Q4_1_AS_Q5_1(SUFFIX)                                          \
  KILN_KERNEL KILN_X86_LD_ATTRS void kiln_matmul_q4_1_q8_0_##SUFFIX##_ld(      \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, int64_t ldy, void *scratch) {               \
    kiln_matmul_q5_1_q8_0_##SUFFIX##_ld(x, rows, K, w, N, bias, y, ldy,        \
                                        scratch);                              \
  }                                                                            \
  KILN_X86_PLAIN_ENTRY(matmul_q4_1_q8_0_##SUFFIX)
#define KILN_X86_PLAIN_ENTRY(NAME)                                             \
  KILN_KERNEL __attribute__((unused)) void kiln_##NAME(                        \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    kiln_##NAME##_ld(x, rows, K, w, N, bias, y, N, scratch);                   \
  }

/* The driver shared by all kernels: quantize (with the scales and sums),
 * then for each panel of rows, each group of NR weight rows, each tile of up
 * to 4 activation rows, run TILE(group, metaBytes, nb, activations, da, as,
 * MR, acc) and store.
 * Decode (a panel of one row) may instead walk G = 4 or 2 groups at once with
 * TILEG(group, groupBytes, metaBytes, nb, activations, da, as, G, acc[G]):
 * G independent weight streams in flight (HASG = the most groups a kernel
 * walks, 2 or 4).
 * A kernel with HAS8 runs two full tiles at once where the panel has 8 more
 * rows, TILE8(group, metaBytes, nb, tile0, tile1, share, acc[8]): each load
 * of the weights then serves 8 rows, and the tile fetches its share of the
 * next group itself. Once a group outgrows L1 the tiles reread it
 * from L2, and unpacked weights (Q4_0's nibbles) are unpacked once per tile. */
#define KILN_X86_MATMUL(NAME, NR, ACC_T, BS, META, QUANT, TILE, STORE, HASG,   \
                        TILEG, HAS8, TILE8)                                    \
  KILN_KERNEL KILN_X86_LD_ATTRS void kiln_##NAME##_ld(                        \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, int64_t ldy, void *scratch) {               \
    const uint8_t *q = kiln_x86_q8_tiles(x, rows, K, scratch);                 \
    const int nb = K / 32, nsb = K / (BS);                                     \
    const int64_t metaBytes = ((int64_t)nsb * (META) + 63) & ~(int64_t)63;     \
    const int64_t groupBytes = metaBytes + (int64_t)nsb * (QUANT);             \
    const int panel = kiln_x86_panel(rows, nb);                                \
    for (int p0 = 0; p0 < rows; p0 += panel) {                                 \
      const int pr = rows - p0 < panel ? rows - p0 : panel;                    \
      for (int j0 = 0; j0 < N; j0 += (NR)) {                                   \
        const uint8_t *grp = w + (int64_t)(j0 / (NR)) * groupBytes;            \
        if ((HASG) && pr == 1 && N - j0 >= 2 * (NR)) {                         \
          const kiln_x86_tile_act t = kiln_x86_tile_of(q, p0, 1, nb);          \
          const int G = (HASG) >= 4 && N - j0 >= 4 * (NR) ? 4 : 2;             \
          ACC_T accg[4];                                                       \
          if (G == 4)                                                          \
            TILEG(grp, groupBytes, metaBytes, nb, t.a, t.da, t.as, 4, accg);   \
          else                                                                 \
            TILEG(grp, groupBytes, metaBytes, nb, t.a, t.da, t.as, 2, accg);   \
          KILN_X86_UNROLL                                                      \
          for (int g = 0; g < G; ++g)                                          \
            STORE(y + (int64_t)p0 * ldy + j0 + g * (NR), accg[g],              \
                  bias ? bias + j0 + g * (NR) : (const float *)0, (NR));       \
          j0 += (G - 1) * (NR);                                                \
          continue;                                                            \
        }                                                                      \
        const int n = N - j0 < (NR) ? N - j0 : (NR);                           \
        for (int r0 = 0; r0 < pr; r0 += KILN_X86_MR) {                         \
          const int rt = pr - r0 < KILN_X86_MR ? pr - r0 : KILN_X86_MR;        \
          const kiln_x86_tile_act t = kiln_x86_tile_of(q, p0 + r0, rt, nb);    \
          const int tiles = (pr + KILN_X86_MR - 1) / KILN_X86_MR;              \
          ACC_T acc[2 * KILN_X86_MR];                                          \
          if ((HAS8) && pr - r0 >= 2 * KILN_X86_MR) {                          \
            const kiln_x86_tile_act t1 =                                       \
                kiln_x86_tile_of(q, p0 + r0 + KILN_X86_MR, KILN_X86_MR, nb);   \
            const kiln_x86_pf_share pfs = kiln_x86_next_share(                 \
                grp + groupBytes, groupBytes, r0 / KILN_X86_MR, 2, tiles);     \
            TILE8(grp, metaBytes, nb, t, t1, &pfs, acc);                       \
            for (int r = 0; r < 2 * KILN_X86_MR; ++r)                          \
              STORE(y + (int64_t)(p0 + r0 + r) * ldy + j0, acc[r],             \
                    bias ? bias + j0 : (const float *)0, n);                   \
            r0 += KILN_X86_MR;                                                 \
            continue;                                                          \
          }                                                                    \
          kiln_x86_pf_next_group(grp + groupBytes, groupBytes, r0 / KILN_X86_MR, \
                                 tiles);                                       \
          switch (rt) {                                                        \
          case 4: TILE(grp, metaBytes, nb, t.a, t.da, t.as, 4, acc); break;    \
          case 3: TILE(grp, metaBytes, nb, t.a, t.da, t.as, 3, acc); break;    \
          case 2: TILE(grp, metaBytes, nb, t.a, t.da, t.as, 2, acc); break;    \
          default: TILE(grp, metaBytes, nb, t.a, t.da, t.as, 1, acc); break;   \
          }                                                                    \
          for (int r = 0; r < rt; ++r)                                         \
            STORE(y + (int64_t)(p0 + r0 + r) * ldy + j0, acc[r],               \
                  bias ? bias + j0 : (const float *)0, n);                     \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }                                                                            \
  KILN_X86_PLAIN_ENTRY(NAME)

/* The driver of the kernels that read Q8_K activations (one float scale per
 * 256 values, kiln_x86_q8k_rows): quantize, then for each group of NR weight
 * rows either walk G = 4 or 2 groups at once for one activation row (decode),
 * WALK(group, groupBytes, metaBytes, nsb, activations, G, acc[G]), or run
 * tiles of up to 4 activation rows, TILE(group, metaBytes, nsb, activations,
 * MR, acc), and store. Groups are [META bytes of metadata per super-block,
 * padded to 64][QUANT bytes of quants per super-block]. */
#define KILN_X86_Q8K_MATMUL(NAME, NR, ACC_T, META, QUANT, TILE, WALK, STORE,   \
                            HAS8)                                              \
  KILN_KERNEL KILN_X86_LD_ATTRS void kiln_##NAME##_ld(                        \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, int64_t ldy, void *scratch) {               \
    const kiln_x86_q8kx *a = kiln_x86_q8k_rows(x, rows, K, scratch);           \
    const int nsb = K / 256;                                                   \
    const int64_t metaBytes = ((int64_t)nsb * (META) + 63) & ~(int64_t)63;     \
    const int64_t groupBytes = metaBytes + (int64_t)nsb * (QUANT);             \
    for (int j0 = 0; j0 < N; j0 += (NR)) {                                     \
      const uint8_t *grp = w + (int64_t)(j0 / (NR)) * groupBytes;              \
      if (rows == 1 && N - j0 >= 2 * (NR)) {                                   \
        const int G = N - j0 >= 4 * (NR) ? 4 : 2;                              \
        ACC_T accg[4];                                                         \
        if (G == 4)                                                            \
          WALK(grp, groupBytes, metaBytes, nsb, a, 4, accg);                   \
        else                                                                   \
          WALK(grp, groupBytes, metaBytes, nsb, a, 2, accg);                   \
        KILN_X86_UNROLL                                                        \
        for (int g = 0; g < G; ++g)                                            \
          STORE(y + j0 + g * (NR), accg[g],                                    \
                bias ? bias + j0 + g * (NR) : (const float *)0, (NR));         \
        j0 += (G - 1) * (NR);                                                  \
        continue;                                                              \
      }                                                                        \
      const int n = N - j0 < (NR) ? N - j0 : (NR);                             \
      for (int r0 = 0; r0 < rows; r0 += KILN_X86_MR) {                         \
        const int rt = rows - r0 < KILN_X86_MR ? rows - r0 : KILN_X86_MR;      \
        const kiln_x86_q8kx *ar = a + (int64_t)r0 * nsb;                       \
        kiln_x86_pf_next_group(grp + groupBytes, groupBytes, r0 / KILN_X86_MR, \
                               (rows + KILN_X86_MR - 1) / KILN_X86_MR);        \
        ACC_T acc[2 * KILN_X86_MR];                                            \
        if ((HAS8) && rows - r0 >= 2 * KILN_X86_MR) {                          \
          TILE(grp, metaBytes, nsb, ar, 2 * KILN_X86_MR, acc);                 \
          for (int r = 0; r < 2 * KILN_X86_MR; ++r)                            \
            STORE(y + (int64_t)(r0 + r) * ldy + j0, acc[r],                    \
                  bias ? bias + j0 : (const float *)0, n);                     \
          r0 += KILN_X86_MR;                                                   \
          continue;                                                            \
        }                                                                      \
        switch (rt) {                                                          \
        case 4: TILE(grp, metaBytes, nsb, ar, 4, acc); break;                  \
        case 3: TILE(grp, metaBytes, nsb, ar, 3, acc); break;                  \
        case 2: TILE(grp, metaBytes, nsb, ar, 2, acc); break;                  \
        default: TILE(grp, metaBytes, nsb, ar, 1, acc); break;                 \
        }                                                                      \
        for (int r = 0; r < rt; ++r)                                           \
          STORE(y + (int64_t)(r0 + r) * ldy + j0, acc[r],                      \
                bias ? bias + j0 : (const float *)0, n);                       \
      }                                                                        \
    }                                                                          \
  }                                                                            \
  KILN_X86_PLAIN_ENTRY(NAME)

#define KILN_X86_INLINE static inline __attribute__((always_inline))
#define KILN_X86_NO_TILE8(g, m, nb, t0, t1, pf, acc) ((void)(t1), (void)(pf))

/* Software prefetch of the quant stream of the AVX-512 tiles, KILN_X86_PF
 * bytes ahead. One activation row leaves the out-of-order window holding too
 * few of the kernel's loads to cover memory latency (see
 * docs/notes/benchmarks-history.md, "Where Kiln's decode time goes"), and an
 * 8-row tile, whose group comes from L2 (the first tile's from DRAM), still
 * waited on its weight loads with the lines 4 Q8_0 blocks ahead: 4 KiB is 8
 * Q8_0 blocks, 16 of Q4_0 ("Zen 5: the prefetch distance of the tiles").
 * Past the end of the weights a prefetch is a no-op, never a fault. */
#define KILN_X86_PF 4096
#define KILN_X86_PREFETCH(p, bytes)                                            \
  for (int pf = 0; pf < (bytes); pf += 64)                                     \
    _mm_prefetch((const char *)(p) + KILN_X86_PF + pf, _MM_HINT_T0)

/* Prefetch for block b of the decode walk of G groups at once, starting at
 * group g0 (groups groupBytes apart; each metaBytes of metadata, `meta` bytes
 * per block, then its quants, `bytes` per block): each of the G quant
 * streams KILN_X86_PFG / G bytes ahead (8 KiB ahead in all), across group
 * ends, into the cache level KILN_X86_PF_HINT names. With AVX2, into L2
 * (T1): on the AVX2 EPYC (Zen 3) a prefetch into L1 held one of the core's
 * few L1 miss buffers until its line arrived from DRAM, which capped the
 * lines in flight below what the read bandwidth needs, while L2 tracks many
 * more and the hardware moves the lines on to L1 as the loads reach them
 * (docs/performance.md, "Weight types against llama.cpp"). With AVX-512,
 * into L1 (T0): on a Zen 5 EPYC the AVX-512 walks streamed 7-20% more bytes
 * per second that way, and the L2 hint left them at 0.75 of a plain sum
 * (docs/notes/benchmarks-history.md, "Zen 5"). In a stream's last KILN_X86_PFG / G
 * bytes the lines after its group are the next stream's group, already being
 * read; what this stream reads next is group g + G, in the next call, so its
 * quants are fetched instead, and that group's metadata is fetched a line at
 * a time across this walk, so neither starts cold
 * (docs/notes/benchmarks-history.md, "Decode bandwidth: prefetch across
 * groups"). Every walk below calls this once per block. */
#define KILN_X86_PFG 8192
#if defined(__AVX512F__)
#define KILN_X86_PF_HINT _MM_HINT_T0
#else
#define KILN_X86_PF_HINT _MM_HINT_T1
#endif
KILN_X86_INLINE void kiln_x86_pf_groups(const uint8_t *g0, int64_t groupBytes,
                                        int64_t metaBytes, int nb, int b, int G,
                                        int bytes, int meta) {
  const int dist = KILN_X86_PFG / G, lim = nb - dist / bytes;
  const int64_t skip = (G - 1) * groupBytes + metaBytes, next = G * groupBytes;
  KILN_X86_UNROLL
  for (int g = 0; g < G; ++g) {
    const uint8_t *grp = g0 + g * groupBytes;
    const char *p = (const char *)grp + metaBytes + bytes * (int64_t)b + dist;
    p += b >= lim ? skip : 0;
    for (int o = 0; o < bytes; o += 64)
      _mm_prefetch(p + o, KILN_X86_PF_HINT);
    /* The first block that crosses into group g + G lands past the head of
     * its quants when dist is not a multiple of bytes (or the group is
     * shorter than dist): fetch the head up to there. */
    if (b == (lim > 0 ? lim : 0)) {
      const char *head = (const char *)grp + next + metaBytes;
      for (const char *h = head; h < p && h < head + dist; h += 64)
        _mm_prefetch(h, KILN_X86_PF_HINT);
    }
    for (int o = (meta * b + 63) & ~63; o < meta * (b + 1); o += 64)
      _mm_prefetch((const char *)grp + next + o, KILN_X86_PF_HINT);
  }
}

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
/* ------------------------------------------------------------------ AVX2 */

KILN_X86_INLINE void kiln_x86_store8(float *y, __m256 acc, const float *bias,
                                     int n) {
  if (n == 8) {
    if (bias)
      acc = _mm256_add_ps(acc, _mm256_loadu_ps(bias));
    _mm256_storeu_ps(y, acc);
    return;
  }
  float t[8];
  _mm256_storeu_ps(t, acc);
  for (int i = 0; i < n; ++i)
    y[i] = t[i] + (bias ? bias[i] : 0.0f);
}

#define KILN_X86_BC(p) _mm256_set1_epi32(kiln_x86_ld32(p))

/* Sum over one 32-element block of unsigned nibbles (lo: elements 4c..4c+3,
 * hi: 16+4c..) times activations q: int16 pairs per lane (<= 8*2*15*127). */
KILN_X86_INLINE __m256i kiln_x86_dot_u4_avx2(const __m256i lo[4],
                                             const __m256i hi[4],
                                             const int8_t *q) {
  __m256i s = _mm256_maddubs_epi16(lo[0], KILN_X86_BC(q));
  s = _mm256_add_epi16(s, _mm256_maddubs_epi16(hi[0], KILN_X86_BC(q + 16)));
  for (int c = 1; c < 4; ++c) {
    s = _mm256_add_epi16(s, _mm256_maddubs_epi16(lo[c], KILN_X86_BC(q + 4 * c)));
    s = _mm256_add_epi16(s,
                         _mm256_maddubs_epi16(hi[c], KILN_X86_BC(q + 16 + 4 * c)));
  }
  return s;
}

KILN_X86_INLINE void kiln_x86_split_u4_avx2(const uint8_t *p, __m256i lo[4],
                                            __m256i hi[4]) {
  const __m256i m4 = _mm256_set1_epi8(0x0f);
  for (int c = 0; c < 4; ++c) {
    __m256i v = _mm256_load_si256((const __m256i *)(p + 32 * c));
    lo[c] = _mm256_and_si256(v, m4);
    hi[c] = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
  }
}

/* Q4_0: meta nb x 8 fp16; quants 128 bytes per block. */
KILN_X86_INLINE void kiln_x86_tile_q4_0_avx2(const uint8_t *grp, int64_t metaBytes,
                                             int nb, const kiln_q8_block *a,
                                             const float *da, const int32_t *as,
                                             int MR, __m256 *acc) {
  const __m256i ones = _mm256_set1_epi16(1);
  KILN_X86_UNROLL
  for (int r = 0; r < MR; ++r)
    acc[r] = _mm256_setzero_ps();
  const uint8_t *qp = grp + metaBytes;
  for (int b = 0; b < nb; ++b, qp += 128) {
    const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(grp + 16 * b)));
    __m256i lo[4], hi[4];
    kiln_x86_split_u4_avx2(qp, lo, hi);
    KILN_X86_UNROLL
    for (int r = 0; r < MR; ++r) {
      const int64_t i = KILN_X86_AT(MR, r, b);
      __m256i s = kiln_x86_dot_u4_avx2(lo, hi, a[i].qs);
      __m256i d = _mm256_sub_epi32(_mm256_madd_epi16(s, ones),
                                   _mm256_set1_epi32(8 * as[i]));
      acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d),
                               _mm256_mul_ps(dw, _mm256_set1_ps(da[i])), acc[r]);
    }
  }
}

/* Q8_0: meta nb x 8 fp16; quants 256 bytes per block, signed. */
KILN_X86_INLINE void kiln_x86_tile_q8_0_avx2(const uint8_t *grp, int64_t metaBytes,
                                             int nb, const kiln_q8_block *a,
                                             const float *da, const int32_t *as,
                                             int MR, __m256 *acc) {
  const __m256i ones = _mm256_set1_epi16(1);
  KILN_X86_UNROLL
  for (int r = 0; r < MR; ++r)
    acc[r] = _mm256_setzero_ps();
  const uint8_t *qp = grp + metaBytes;
  for (int b = 0; b < nb; ++b, qp += 256) {
    const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(grp + 16 * b)));
    __m256i wv[8], aw[8];
    for (int c = 0; c < 8; ++c) {
      wv[c] = _mm256_load_si256((const __m256i *)(qp + 32 * c));
      aw[c] = _mm256_abs_epi8(wv[c]);
    }
    KILN_X86_UNROLL
    for (int r = 0; r < MR; ++r) {
      const int64_t i = KILN_X86_AT(MR, r, b);
      const int8_t *q = a[i].qs;
      __m256i s0 = _mm256_madd_epi16(
          _mm256_maddubs_epi16(aw[0], _mm256_sign_epi8(KILN_X86_BC(q), wv[0])), ones);
      __m256i s1 = _mm256_madd_epi16(
          _mm256_maddubs_epi16(aw[1], _mm256_sign_epi8(KILN_X86_BC(q + 4), wv[1])), ones);
      for (int c = 2; c < 8; c += 2) {
        s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_maddubs_epi16(
            aw[c], _mm256_sign_epi8(KILN_X86_BC(q + 4 * c), wv[c])), ones));
        s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_maddubs_epi16(
            aw[c + 1], _mm256_sign_epi8(KILN_X86_BC(q + 4 * c + 4), wv[c + 1])), ones));
      }
      acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(s0, s1)),
                               _mm256_mul_ps(dw, _mm256_set1_ps(da[i])), acc[r]);
    }
  }
  (void)as;
}

/* Bits 4..5 of element 4c'+t (byte t of each word holds c' = 0..3 at 2c'). */
KILN_X86_INLINE __m256i kiln_x86_hbits_avx2(__m256i h, int c) {
  const __m256i m = _mm256_set1_epi8(0x30);
  switch (c) {
  case 0: return _mm256_and_si256(_mm256_slli_epi16(h, 4), m);
  case 1: return _mm256_and_si256(_mm256_slli_epi16(h, 2), m);
  case 2: return _mm256_and_si256(h, m);
  default: return _mm256_and_si256(_mm256_srli_epi16(h, 2), m);
  }
}

/* Both int16 halves of each lane = the int8 scale of that row. */
KILN_X86_INLINE __m256i kiln_x86_scale16_avx2(const uint8_t *p) {
  __m256i s = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p));
  return _mm256_or_si256(_mm256_and_si256(s, _mm256_set1_epi32(0xffff)),
                         _mm256_slli_epi32(s, 16));
}

/* Five-bit values of one block: the nibble words at p and the fifth-bit
 * word of each row at p + 128, as lo[c] (elements 4c+t) and hi[c]
 * (16+4c+t). The shifts move bit c (lo) or 4+c (hi) of each byte to bit 4. */
KILN_X86_INLINE void kiln_x86_split_u5_avx2(const uint8_t *p, __m256i lo[4],
                                            __m256i hi[4]) {
  const __m256i m4 = _mm256_set1_epi8(0x0f), b4 = _mm256_set1_epi8(0x10);
  const __m256i h = _mm256_load_si256((const __m256i *)(p + 128));
  for (int c = 0; c < 4; ++c) {
    const __m256i v = _mm256_load_si256((const __m256i *)(p + 32 * c));
    lo[c] = _mm256_or_si256(_mm256_and_si256(v, m4),
                            _mm256_and_si256(_mm256_slli_epi16(h, 4 - c), b4));
    hi[c] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(v, 4), m4),
                            _mm256_and_si256(_mm256_srli_epi16(h, c), b4));
  }
}

/* Sum over one block of unsigned five-bit values times activations q, in
 * 32-bit lanes: four u8 x s8 pair sums per int16 stay <= 4*2*31*127. */
KILN_X86_INLINE __m256i kiln_x86_dot_u5_avx2(const __m256i lo[4],
                                             const __m256i hi[4],
                                             const int8_t *q) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i s[2];
  for (int h = 0; h < 2; ++h) {
    const int c = 2 * h;
    __m256i t = _mm256_maddubs_epi16(lo[c], KILN_X86_BC(q + 4 * c));
    t = _mm256_add_epi16(t, _mm256_maddubs_epi16(hi[c], KILN_X86_BC(q + 16 + 4 * c)));
    t = _mm256_add_epi16(t, _mm256_maddubs_epi16(lo[c + 1], KILN_X86_BC(q + 4 * c + 4)));
    t = _mm256_add_epi16(t, _mm256_maddubs_epi16(hi[c + 1], KILN_X86_BC(q + 20 + 4 * c)));
    s[h] = _mm256_madd_epi16(t, ones);
  }
  return _mm256_add_epi32(s[0], s[1]);
}

/* Q5_0: meta nb x 8 fp16 d; 160 bytes of quants per block; x = (u - 16) d. */
KILN_X86_INLINE void kiln_x86_tile_q5_0_avx2(const uint8_t *grp, int64_t metaBytes,
                                             int nb, const kiln_q8_block *a,
                                             const float *da, const int32_t *as,
                                             int MR, __m256 *acc) {
  KILN_X86_UNROLL
  for (int r = 0; r < MR; ++r)
    acc[r] = _mm256_setzero_ps();
  const uint8_t *qp = grp + metaBytes;
  for (int b = 0; b < nb; ++b, qp += 160) {
    const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(grp + 16 * b)));
    __m256i lo[4], hi[4];
    kiln_x86_split_u5_avx2(qp, lo, hi);
    KILN_X86_UNROLL
    for (int r = 0; r < MR; ++r) {
      const int64_t i = KILN_X86_AT(MR, r, b);
      const __m256i d = _mm256_sub_epi32(kiln_x86_dot_u5_avx2(lo, hi, a[i].qs),
                                         _mm256_set1_epi32(16 * as[i]));
      acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d),
                               _mm256_mul_ps(dw, _mm256_set1_ps(da[i])), acc[r]);
    }
  }
}

/* Q5_1: meta nb x (8 fp16 d, 8 fp16 m); x = u d + m. */
KILN_X86_INLINE void kiln_x86_tile_q5_1_avx2(const uint8_t *grp, int64_t metaBytes,
                                             int nb, const kiln_q8_block *a,
                                             const float *da, const int32_t *as,
                                             int MR, __m256 *acc) {
  KILN_X86_UNROLL
  for (int r = 0; r < MR; ++r)
    acc[r] = _mm256_setzero_ps();
  const uint8_t *qp = grp + metaBytes;
  for (int b = 0; b < nb; ++b, qp += 160) {
    const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(grp + 32 * b)));
    const __m256 mw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(grp + 32 * b + 16)));
    __m256i lo[4], hi[4];
    kiln_x86_split_u5_avx2(qp, lo, hi);
    KILN_X86_UNROLL
    for (int r = 0; r < MR; ++r) {
      const int64_t i = KILN_X86_AT(MR, r, b);
      const __m256i s = kiln_x86_dot_u5_avx2(lo, hi, a[i].qs);
      acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s),
                               _mm256_mul_ps(dw, _mm256_set1_ps(da[i])), acc[r]);
      acc[r] = _mm256_fmadd_ps(mw, _mm256_set1_ps(da[i] * (float)as[i]), acc[r]);
    }
  }
}

/* IQ4 levels of one block's nibble words (8 vectors: elements 4c+t, then
 * 16+4c+t), and their magnitudes for the |w| x sign(a, w) products. */
KILN_X86_INLINE void kiln_x86_split_iq4_avx2(const uint8_t *p, __m256i w[8],
                                             __m256i aw[8]) {
  const __m256i m4 = _mm256_set1_epi8(0x0f);
  const __m256i lut = _mm256_setr_epi8(
      -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
      -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);
  for (int c = 0; c < 4; ++c) {
    const __m256i v = _mm256_load_si256((const __m256i *)(p + 32 * c));
    w[c] = _mm256_shuffle_epi8(lut, _mm256_and_si256(v, m4));
    w[c + 4] = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), m4));
  }
  for (int c = 0; c < 8; ++c)
    aw[c] = _mm256_abs_epi8(w[c]);
}

/* Sum of one block of signed levels times activations q (|w|, |q| <= 127:
 * one u8 x s8 pair per int16, widened at once by VPMADDWD with sc: both
 * int16 halves of each lane one multiplier of that row, 1 for a plain sum,
 * IQ4_XS's block scale on Q8_K activations). */
KILN_X86_INLINE __m256i kiln_x86_dot_s8_scaled_avx2(const __m256i w[8],
                                                    const __m256i aw[8],
                                                    const int8_t *q, __m256i sc) {
  __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
  for (int c = 0; c < 4; ++c) {
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_maddubs_epi16(
        aw[c], _mm256_sign_epi8(KILN_X86_BC(q + 4 * c), w[c])), sc));
    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_maddubs_epi16(
        aw[c + 4], _mm256_sign_epi8(KILN_X86_BC(q + 16 + 4 * c), w[c + 4])), sc));
  }
  return _mm256_add_epi32(s0, s1);
}
KILN_X86_INLINE __m256i kiln_x86_dot_s8_avx2(const __m256i w[8],
                                             const __m256i aw[8],
                                             const int8_t *q) {
  return kiln_x86_dot_s8_scaled_avx2(w, aw, q, _mm256_set1_epi16(1));
}

/* IQ4_NL: meta nb x 8 fp16 d; 128 bytes of level indices per block. */
KILN_X86_INLINE void kiln_x86_tile_iq4_nl_avx2(const uint8_t *grp, int64_t metaBytes,
                                               int nb, const kiln_q8_block *a,
                                               const float *da, const int32_t *as,
                                               int MR, __m256 *acc) {
  KILN_X86_UNROLL
  for (int r = 0; r < MR; ++r)
    acc[r] = _mm256_setzero_ps();
  const uint8_t *qp = grp + metaBytes;
  for (int b = 0; b < nb; ++b, qp += 128) {
    const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(grp + 16 * b)));
    __m256i w[8], aw[8];
    kiln_x86_split_iq4_avx2(qp, w, aw);
    KILN_X86_UNROLL
    for (int r = 0; r < MR; ++r) {
      const int64_t i = KILN_X86_AT(MR, r, b);
      acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(kiln_x86_dot_s8_avx2(w, aw, a[i].qs)),
                               _mm256_mul_ps(dw, _mm256_set1_ps(da[i])), acc[r]);
    }
  }
  (void)as;
}

/* Decode: one activation row against G consecutive groups, block by block
 * (as the AVX-512 kernels below: G quant streams in flight, prefetched
 * across group ends). The integer sums are exact and the float steps per
 * group are those of the tiles above, so results are bit-identical. */
KILN_X86_INLINE void kiln_x86_tileg_q4_0_avx2(const uint8_t *g0, int64_t groupBytes,
                                              int64_t metaBytes, int nb,
                                              const kiln_q8_block *a, const float *da,
                                              const int32_t *as, int G, __m256 *acc) {
  const __m256i ones = _mm256_set1_epi16(1), m4 = _mm256_set1_epi8(0x0f);
  __m256 accg[4];
  KILN_X86_UNROLL
  for (int g = 0; g < G; ++g)
    accg[g] = _mm256_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    kiln_x86_pf_groups(g0, groupBytes, metaBytes, nb, b, G, 128, 16);
    const int8_t *q = a[b].qs;
    __m256i s[4];
    for (int c = 0; c < 4; ++c) {
      const __m256i lo = KILN_X86_BC(q + 4 * c), hi = KILN_X86_BC(q + 16 + 4 * c);
      KILN_X86_UNROLL
      for (int g = 0; g < G; ++g) {
        const __m256i v = _mm256_load_si256(
            (const __m256i *)(g0 + g * groupBytes + metaBytes + 128 * (int64_t)b + 32 * c));
        const __m256i p = _mm256_add_epi16(
            _mm256_maddubs_epi16(_mm256_and_si256(v, m4), lo),
            _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v, 4), m4), hi));
        s[g] = c ? _mm256_add_epi16(s[g], p) : p;
      }
    }
    const __m256 dab = _mm256_set1_ps(da[b]);
    const __m256i off = _mm256_set1_epi32(8 * as[b]);
    KILN_X86_UNROLL
    for (int g = 0; g < G; ++g) {
      const __m256 dw = _mm256_cvtph_ps(
          _mm_loadu_si128((const __m128i *)(g0 + g * groupBytes + 16 * b)));
      const __m256i d = _mm256_sub_epi32(_mm256_madd_epi16(s[g], ones), off);
      accg[g] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d), _mm256_mul_ps(dw, dab), accg[g]);
    }
  }
  KILN_X86_UNROLL
  for (int g = 0; g < G; ++g)
    acc[g] = accg[g];
}

KILN_X86_INLINE void kiln_x86_tileg_q8_0_avx2(const uint8_t *g0, int64_t groupBytes,
                                              int64_t metaBytes, int nb,
                                              const kiln_q8_block *a, const float *da,
                                              const int32_t *as, int G, __m256 *acc) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 accg[4];
  KILN_X86_UNROLL
  for (int g = 0; g < G; ++g)
    accg[g] = _mm256_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    kiln_x86_pf_groups(g0, groupBytes, metaBytes, nb, b, G, 256, 16);
    const int8_t *q = a[b].qs;
    __m256i s[4];
    for (int c = 0; c < 8; ++c) {
      const __m256i x = KILN_X86_BC(q + 4 * c);
      KILN_X86_UNROLL
      for (int g = 0; g < G; ++g) {
        const __m256i w = _mm256_load_si256(
            (const __m256i *)(g0 + g * groupBytes + metaBytes + 256 * (int64_t)b + 32 * c));
        const __m256i p = _mm256_madd_epi16(
            _mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(x, w)), ones);
        s[g] = c ? _mm256_add_epi32(s[g], p) : p;
      }
    }
    const __m256 dab = _mm256_set1_ps(da[b]);
    KILN_X86_UNROLL
    for (int g = 0; g < G; ++g) {
      const __m256 dw = _mm256_cvtph_ps(
          _mm_loadu_si128((const __m128i *)(g0 + g * groupBytes + 16 * b)));
      accg[g] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s[g]), _mm256_mul_ps(dw, dab), accg[g]);
    }
  }
  (void)as;
  KILN_X86_UNROLL
  for (int g = 0; g < G; ++g)
    acc[g] = accg[g];
}

/* Decode walks of the five-bit and IQ4 types: one activation row against G
 * consecutive groups (as the Q4_0 walk), each 32-element block a STEP that
 * adds one group's contribution to its accumulator. Integer sums are exact
 * and the float steps those of the tiles above. */
#define KILN_X86_TILEG_OF(T, QB, MB)                                           \
  KILN_X86_INLINE void kiln_x86_tileg_##T##_avx2(                              \
      const uint8_t *g0, int64_t groupBytes, int64_t metaBytes, int nb,        \
      const kiln_q8_block *a, const float *da, const int32_t *as, int G,       \
      __m256 *acc) {                                                           \
    __m256 accg[4];                                                            \
    KILN_X86_UNROLL                                                            \
    for (int g = 0; g < G; ++g)                                                \
      accg[g] = _mm256_setzero_ps();                                           \
    for (int b = 0; b < nb; ++b) {                                             \
      kiln_x86_pf_groups(g0, groupBytes, metaBytes, nb, b, G, QB, MB);         \
      KILN_X86_UNROLL                                                          \
      for (int g = 0; g < G; ++g)                                              \
        kiln_x86_step_##T##_avx2(g0 + g * groupBytes, metaBytes, b, a[b].qs,   \
                                 da[b], as[b], &accg[g]);                      \
    }                                                                          \
    KILN_X86_UNROLL                                                            \
    for (int g = 0; g < G; ++g)                                                \
      acc[g] = accg[g];                                                        \
  }

KILN_X86_INLINE void kiln_x86_step_q5_0_avx2(const uint8_t *grp, int64_t metaBytes,
                                             int b, const int8_t *q, float da,
                                             int32_t as, __m256 *acc) {
  __m256i lo[4], hi[4];
  kiln_x86_split_u5_avx2(grp + metaBytes + 160 * (int64_t)b, lo, hi);
  const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(grp + 16 * b)));
  const __m256i d = _mm256_sub_epi32(kiln_x86_dot_u5_avx2(lo, hi, q),
                                     _mm256_set1_epi32(16 * as));
  *acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d), _mm256_mul_ps(dw, _mm256_set1_ps(da)), *acc);
}
KILN_X86_TILEG_OF(q5_0, 160, 16)

KILN_X86_INLINE void kiln_x86_step_q5_1_avx2(const uint8_t *grp, int64_t metaBytes,
                                             int b, const int8_t *q, float da,
                                             int32_t as, __m256 *acc) {
  __m256i lo[4], hi[4];
  kiln_x86_split_u5_avx2(grp + metaBytes + 160 * (int64_t)b, lo, hi);
  const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(grp + 32 * b)));
  const __m256 mw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(grp + 32 * b + 16)));
  const __m256i s = kiln_x86_dot_u5_avx2(lo, hi, q);
  *acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_mul_ps(dw, _mm256_set1_ps(da)), *acc);
  *acc = _mm256_fmadd_ps(mw, _mm256_set1_ps(da * (float)as), *acc);
}
KILN_X86_TILEG_OF(q5_1, 160, 32)

KILN_X86_INLINE void kiln_x86_step_iq4_nl_avx2(const uint8_t *grp, int64_t metaBytes,
                                               int b, const int8_t *q, float da,
                                               int32_t as, __m256 *acc) {
  __m256i w[8], aw[8];
  kiln_x86_split_iq4_avx2(grp + metaBytes + 128 * (int64_t)b, w, aw);
  const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(grp + 16 * b)));
  *acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(kiln_x86_dot_s8_avx2(w, aw, q)),
                         _mm256_mul_ps(dw, _mm256_set1_ps(da)), *acc);
  (void)as;
}
KILN_X86_TILEG_OF(iq4_nl, 128, 16)


/* ---- Q2_K and Q3_K (AVX2) ---------------------------------------------- */

/* The two-bit planes at p (and, for q3_k, the third bits at p + 64) as
 * bytes: lo[c] elements 4c+t, hi[c] 16+4c+t (0..3, or 0..7 with the third
 * bit at bit 2). */
KILN_X86_INLINE void kiln_x86_split_u2_avx2(const uint8_t *p, int three,
                                            __m256i lo[4], __m256i hi[4]) {
  const __m256i m2 = _mm256_set1_epi8(3), b2 = _mm256_set1_epi8(4);
  const __m256i l0 = _mm256_load_si256((const __m256i *)p),
                l1 = _mm256_load_si256((const __m256i *)(p + 32));
  const __m256i h = three ? _mm256_load_si256((const __m256i *)(p + 64))
                          : _mm256_setzero_si256();
  for (int c = 0; c < 4; ++c) {
    lo[c] = _mm256_and_si256(_mm256_srli_epi16(l0, 2 * c), m2);
    hi[c] = _mm256_and_si256(_mm256_srli_epi16(l1, 2 * c), m2);
    if (three) {
      const __m256i hl = c <= 2 ? _mm256_slli_epi16(h, 2 - c) : _mm256_srli_epi16(h, 1);
      lo[c] = _mm256_or_si256(lo[c], _mm256_and_si256(hl, b2));
      hi[c] = _mm256_or_si256(hi[c], _mm256_and_si256(_mm256_srli_epi16(h, 2 + c), b2));
    }
  }
}

/* Q4_0 walks up to 4 groups at once, Q8_0 2: with 16 vector registers,
 * Q8_0's walk of 4 spills its accumulators; Q4_0's does not. */
KILN_X86_MATMUL(matmul_q4_0_q8_0_4x8_avx2, 8, __m256, 32, 16, 128,
                kiln_x86_tile_q4_0_avx2, kiln_x86_store8, 4,
                kiln_x86_tileg_q4_0_avx2, 0, KILN_X86_NO_TILE8)
KILN_X86_MATMUL(matmul_q8_0_q8_0_4x8_avx2, 8, __m256, 32, 16, 256,
                kiln_x86_tile_q8_0_avx2, kiln_x86_store8, 2,
                kiln_x86_tileg_q8_0_avx2, 0, KILN_X86_NO_TILE8)
KILN_X86_MATMUL(matmul_q5_0_q8_0_4x8_avx2, 8, __m256, 32, 16, 160,
                kiln_x86_tile_q5_0_avx2, kiln_x86_store8, 4,
                kiln_x86_tileg_q5_0_avx2, 0, KILN_X86_NO_TILE8)
KILN_X86_MATMUL(matmul_q5_1_q8_0_4x8_avx2, 8, __m256, 32, 32, 160,
                kiln_x86_tile_q5_1_avx2, kiln_x86_store8, 4,
                kiln_x86_tileg_q5_1_avx2, 0, KILN_X86_NO_TILE8)
KILN_X86_Q4_1_AS_Q5_1(4x8_avx2)
KILN_X86_MATMUL(matmul_iq4_nl_q8_0_4x8_avx2, 8, __m256, 32, 16, 128,
                kiln_x86_tile_iq4_nl_avx2, kiln_x86_store8, 4,
                kiln_x86_tileg_iq4_nl_avx2, 0, KILN_X86_NO_TILE8)
/* ---- Q8_K activations of the K-quant kernels ----------------------------
 * ggml's Q8_K block, then the sums of its eight 32-element blocks as four
 * int16 pairs (blocks 2k and 2k+1 in int32 k), the operand the Q4_K and
 * Q5_K min term's VPMADDWD (VPDPWSSD) broadcasts. They are paired once per
 * row here, not in every tile that reads the row: a row meets every group of
 * the weights. The pair sums fit int16 (32 x 127). */
typedef struct {
  kiln_q8k_block q;
  int32_t pairs[4];
} kiln_x86_q8kx;
_Static_assert(sizeof(kiln_x86_q8kx) == 308,
               "scratchRowBytes of kiln_x86_q8k_rows in KernelTable.cpp");

KILN_KERNEL const kiln_x86_q8kx *kiln_x86_q8k_rows(const float *x, int rows, int K,
                                                   void *scratch) {
  kiln_x86_q8kx *o = (kiln_x86_q8kx *)scratch;
  const int64_t n = x ? (int64_t)rows * (K / 256) : 0; /* 0: already quantized */
  for (int64_t i = 0; i < n; ++i) {
    kiln_quantize_row_q8_k(x + 256 * i, 256, &o[i].q);
    const int16_t *s = o[i].q.bsums;
    for (int k = 0; k < 4; ++k)
      o[i].pairs[k] = (int32_t)((uint32_t)(uint16_t)(s[4 * k] + s[4 * k + 1]) |
                                (uint32_t)(uint16_t)(s[4 * k + 2] + s[4 * k + 3]) << 16);
  }
  return o;
}

/* ---- Q4_K with Q8_K activations ----------------------------------------
 * The activations of Q4_K are quantized as ggml's Q8_K (kiln_x86_q8k_rows): one
 * float scale per 256 values, so a super-block's eight 32-element blocks
 * sum in integers, each scaled by its 6-bit scale (vpmaddwd), and the float
 * steps and the min term run once per super-block instead of once per
 * block. Weights are the Q4_K groups above: per super-block 8 d, 8 dmin
 * (fp16), 8x8 u8 scales, 8x8 u8 mins, then 128 bytes of nibble words per
 * block. */

/* Both int16 halves of each lane = the u8 scale of that row. */
KILN_X86_INLINE __m256i kiln_x86_uscale16_avx2(const uint8_t *p) {
  const __m256i s = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
  return _mm256_or_si256(s, _mm256_slli_epi32(s, 16));
}

/* Int16 pair sums s[r] (<= 8*2*15*127) of one block of nibble words at qp
 * times activation rows r = 0..MR-1 at q + r * stride: each word column is
 * split once for every row, the sums carried across the four columns, so a
 * tile's registers hold the rows' sums and integer accumulators unspilled. */
KILN_X86_INLINE void kiln_x86_dots_u4_avx2(const uint8_t *qp, const int8_t *q,
                                           int64_t stride, int MR, __m256i *s) {
  const __m256i m4 = _mm256_set1_epi8(0x0f);
  for (int c = 0; c < 4; ++c) {
    const __m256i v = _mm256_load_si256((const __m256i *)(qp + 32 * c));
    const __m256i lo = _mm256_and_si256(v, m4);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
    KILN_X86_UNROLL
    for (int r = 0; r < MR; ++r) {
      const int8_t *qr = q + r * stride;
      const __m256i p = _mm256_add_epi16(
          _mm256_maddubs_epi16(lo, KILN_X86_BC(qr + 4 * c)),
          _mm256_maddubs_epi16(hi, KILN_X86_BC(qr + 16 + 4 * c)));
      s[r] = c ? _mm256_add_epi16(s[r], p) : p;
    }
  }
}

/* A super-block's metadata shared by every activation row: d and dmin as
 * floats, and the mins as int16 pairs (lane i of mp[k] holds the mins of
 * blocks 2k and 2k+1 of row i). */
typedef struct {
  __m256 d, dmin;
  __m256i mp[4];
} kiln_x86_q4kk_meta;
KILN_X86_INLINE void kiln_x86_q4kk_meta_avx2(const uint8_t *m, kiln_x86_q4kk_meta *t) {
  t->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)m));
  t->dmin = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(m + 16)));
  for (int k = 0; k < 4; ++k)
    t->mp[k] = _mm256_cvtepu8_epi16(
        _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(m + 96 + 16 * k)),
                          _mm_loadl_epi64((const __m128i *)(m + 104 + 16 * k))));
}

/* The float steps of one super-block for one activation block a: the
 * integer sum isum times d * da, minus dmin * da times the sum over blocks
 * of min x the activation block's sum (vpmaddwd of the mins' and the block
 * sums' int16 pairs). */
KILN_X86_INLINE void kiln_x86_q4kk_acc_avx2(const kiln_x86_q4kk_meta *t,
                                            const kiln_x86_q8kx *a, __m256i isum,
                                            __m256 *acc) {
  const __m256i *mp = t->mp;
  __m256i msum = _mm256_madd_epi16(mp[0], _mm256_set1_epi32(a->pairs[0]));
  for (int k = 1; k < 4; ++k)
    msum = _mm256_add_epi32(msum, _mm256_madd_epi16(mp[k], _mm256_set1_epi32(a->pairs[k])));
  const __m256 da = _mm256_set1_ps(a->q.d);
  *acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(t->d, da), *acc);
  *acc = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(msum), _mm256_mul_ps(t->dmin, da), *acc);
}

/* Q5_K's block (its five-bit values 0..31, kiln_x86_split_u5_avx2) times
 * activation rows r at q + r * stride, times its scales sc: int16 pair sums
 * of two word columns (<= 4*2*31*127) go to int32 by VPMADDWD with sc. */
KILN_X86_INLINE void kiln_x86_dots_u5_avx2(const uint8_t *qp, const int8_t *q,
                                           int64_t stride, int MR, __m256i sc,
                                           __m256i *t) {
  __m256i lo[4], hi[4];
  kiln_x86_split_u5_avx2(qp, lo, hi);
  KILN_X86_UNROLL
  for (int r = 0; r < MR; ++r) {
    const int8_t *qr = q + r * stride;
    __m256i sum = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {
      const int c = 2 * h;
      __m256i p = _mm256_maddubs_epi16(lo[c], KILN_X86_BC(qr + 4 * c));
      p = _mm256_add_epi16(p, _mm256_maddubs_epi16(hi[c], KILN_X86_BC(qr + 16 + 4 * c)));
      p = _mm256_add_epi16(p, _mm256_maddubs_epi16(lo[c + 1], KILN_X86_BC(qr + 4 * c + 4)));
      p = _mm256_add_epi16(p, _mm256_maddubs_epi16(hi[c + 1], KILN_X86_BC(qr + 20 + 4 * c)));
      sum = _mm256_add_epi32(sum, _mm256_madd_epi16(p, sc));
    }
    t[r] = sum;
  }
}

/* IQ4_XS (AVX2): per super-block 8 fp16 d, then 8x8 int8 scales (ls - 32,
 * block j's at 16 + 8j); 128 bytes of level indices per block. Its signed
 * levels enter VPMADDUBSW as |w| against sign(a, w), and each block's int16
 * pairs are widened by VPMADDWD with the signed block scale, so the super-block
 * sums in integers (|sum| < 8 x 8 x 2 x 127 x 127 x 32 < 2^31) and there is
 * no min term. Both int16 halves of each lane = the signed scale of that
 * row. */
KILN_X86_INLINE __m256i kiln_x86_sscale16_avx2(const uint8_t *p) {
  const __m256i s = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p));
  return _mm256_blend_epi16(s, _mm256_slli_epi32(s, 16), 0xAA);
}

/* The walks and tiles below serve three types: `kind` 0 is Q4_K, 1 Q5_K
 * (160 metadata bytes a super-block, 128 or 160 quant bytes a block), 2
 * IQ4_XS (80 metadata bytes, 128 quant bytes). */
#define KILN_X86_KMIN_MB(kind) ((kind) == 2 ? 80 : 160)
#define KILN_X86_KMIN_QB(kind) ((kind) == 1 ? 160 : 128)
/* Block j's scales of the super-block whose metadata is m. */
KILN_X86_INLINE __m256i kiln_x86_kmin_sc_avx2(const uint8_t *m, int kind, int j) {
  return kind == 2 ? kiln_x86_sscale16_avx2(m + 16 + 8 * j)
                   : kiln_x86_uscale16_avx2(m + 32 + 8 * j);
}

/* Block j of Q4_K (128 bytes of nibble words), Q5_K (160: the fifth-bit
 * words after them) or IQ4_XS times MR activation rows, times its scales. */
KILN_X86_INLINE void kiln_x86_kmin_dots_avx2(const uint8_t *qp, const int8_t *q,
                                             int64_t stride, int MR, int kind,
                                             __m256i sc, __m256i *t) {
  if (kind == 1) {
    kiln_x86_dots_u5_avx2(qp, q, stride, MR, sc, t);
    return;
  }
  if (kind == 2) {
    __m256i w[8], aw[8];
    kiln_x86_split_iq4_avx2(qp, w, aw);
    KILN_X86_UNROLL
    for (int r = 0; r < MR; ++r)
      t[r] = kiln_x86_dot_s8_scaled_avx2(w, aw, q + r * stride, sc);
    return;
  }
  __m256i s[KILN_X86_MR];
  kiln_x86_dots_u4_avx2(qp, q, stride, MR, s);
  KILN_X86_UNROLL
  for (int r = 0; r < MR; ++r)
    t[r] = _mm256_madd_epi16(s[r], sc);
}

/* The float steps of one super-block (metadata m) for one activation block. */
KILN_X86_INLINE void kiln_x86_kmin_acc_avx2(const uint8_t *m, int kind,
                                            const kiln_x86_q8kx *a, __m256i isum,
                                            __m256 *acc) {
  if (kind == 2) {
    const __m256 d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)m));
    *acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(d, _mm256_set1_ps(a->q.d)),
                           *acc);
    return;
  }
  kiln_x86_q4kk_meta t;
  kiln_x86_q4kk_meta_avx2(m, &t);
  kiln_x86_q4kk_acc_avx2(&t, a, isum, acc);
}

/* Tile: MR activation rows (nsb super-blocks each) by one group. */
KILN_X86_INLINE void kiln_x86_tile_kmin_kk_avx2(const uint8_t *grp, int64_t metaBytes,
                                                int nsb, const kiln_x86_q8kx *a,
                                                int MR, int kind, __m256 *acc) {
  KILN_X86_UNROLL
  for (int r = 0; r < MR; ++r)
    acc[r] = _mm256_setzero_ps();
  const int64_t qb = KILN_X86_KMIN_QB(kind);
  const uint8_t *qp = grp + metaBytes;
  const int64_t stride = (int64_t)nsb * (int64_t)sizeof(kiln_x86_q8kx);
  for (int sb = 0; sb < nsb; ++sb) {
    const uint8_t *m = grp + KILN_X86_KMIN_MB(kind) * sb;
    __m256i isum[KILN_X86_MR];
    for (int j = 0; j < 8; ++j, qp += qb) {
      __m256i t[KILN_X86_MR];
      kiln_x86_kmin_dots_avx2(qp, a[sb].q.qs + 32 * j, stride, MR, kind,
                              kiln_x86_kmin_sc_avx2(m, kind, j), t);
      KILN_X86_UNROLL
      for (int r = 0; r < MR; ++r)
        isum[r] = j ? _mm256_add_epi32(isum[r], t[r]) : t[r];
    }
    KILN_X86_UNROLL
    for (int r = 0; r < MR; ++r)
      kiln_x86_kmin_acc_avx2(m, kind, a + (int64_t)r * nsb + sb, isum[r], &acc[r]);
  }
}

/* Decode walk: one activation row against G groups at once (the prefetch
 * schedule of the other walks). */
KILN_X86_INLINE void kiln_x86_walk_kmin_kk_avx2(const uint8_t *g0, int64_t groupBytes,
                                                int64_t metaBytes, int nsb,
                                                const kiln_x86_q8kx *a, int G, int kind,
                                                __m256 *acc) {
  const int qb = KILN_X86_KMIN_QB(kind), mb = KILN_X86_KMIN_MB(kind);
  __m256 accg[4];
  KILN_X86_UNROLL
  for (int g = 0; g < G; ++g)
    accg[g] = _mm256_setzero_ps();
  for (int sb = 0; sb < nsb; ++sb) {
    __m256i isum[4];
    for (int j = 0; j < 8; ++j) {
      const int b = sb * 8 + j;
      kiln_x86_pf_groups(g0, groupBytes, metaBytes, nsb * 8, b, G, qb, mb / 8);
      KILN_X86_UNROLL
      for (int g = 0; g < G; ++g) {
        const uint8_t *grp = g0 + g * groupBytes;
        __m256i t;
        kiln_x86_kmin_dots_avx2(grp + metaBytes + qb * (int64_t)b, a[sb].q.qs + 32 * j, 0, 1,
                                kind, kiln_x86_kmin_sc_avx2(grp + mb * sb, kind, j), &t);
        isum[g] = j ? _mm256_add_epi32(isum[g], t) : t;
      }
    }
    KILN_X86_UNROLL
    for (int g = 0; g < G; ++g)
      kiln_x86_kmin_acc_avx2(g0 + g * groupBytes + mb * sb, kind, a + sb, isum[g], &accg[g]);
  }
  KILN_X86_UNROLL
  for (int g = 0; g < G; ++g)
    acc[g] = accg[g];
}
#define KILN_X86_KMIN_KK_AVX2(T, KIND)                                         \
  KILN_X86_INLINE void kiln_x86_tile_##T##_kk_avx2(const uint8_t *grp, int64_t metaBytes, \
                                                   int nsb, const kiln_x86_q8kx *a, int MR, \
                                                   __m256 *acc) {              \
    kiln_x86_tile_kmin_kk_avx2(grp, metaBytes, nsb, a, MR, KIND, acc);         \
  }                                                                            \
  KILN_X86_INLINE void kiln_x86_walk_##T##_kk_avx2(                            \
      const uint8_t *g0, int64_t groupBytes, int64_t metaBytes, int nsb,       \
      const kiln_x86_q8kx *a, int G, __m256 *acc) {                            \
    kiln_x86_walk_kmin_kk_avx2(g0, groupBytes, metaBytes, nsb, a, G, KIND, acc); \
  }
KILN_X86_KMIN_KK_AVX2(q4, 0)
KILN_X86_KMIN_KK_AVX2(q5, 1)
KILN_X86_KMIN_KK_AVX2(iq4_xs, 2)

/* ---- Q6_K, Q3_K and Q2_K with Q8_K activations (AVX2) ------------------
 * TYPE 6, 3, 2. Q6_K's and Q3_K's metadata is a record of 144 bytes per
 * super-block ahead of the quants (8 fp16 d, then the int8 scales of the
 * 16-element sub-blocks, 8 rows each: block j's at 16 + 16j, the halves 8
 * apart); Q6_K's blocks are 192 bytes (nibble words, then the high bit
 * pairs), Q3_K's 96 (two-bit planes, then the third bits). Q2_K's
 * super-blocks are records of 800 bytes (8 fp16 d, 8 fp16 dmin, the u8
 * scales at 32 and mins at 160 in that order, the quants at 288, 64 bytes a
 * block). The values enter VPMADDUBSW unsigned (u = q + 32, q + 4, q), so
 * no row pays the |w| x sign(a, w) form's VPSIGNB: the offset, -32 or -4 x
 * scale x Q8_K's 16-element sums, and Q2_K's mins times those sums are one
 * VPMADDWD a block on (scale, scale) or (min, min) int16 pairs. A
 * super-block sums in integers; one float step each. */
typedef struct {
  __m256i sc0, sc1, pairs;
} kiln_x86_k16k_sc_avx2;
KILN_X86_INLINE const uint8_t *kiln_x86_k16k_meta_avx2(const uint8_t *grp, int type, int sb) {
  return grp + (int64_t)(type == 2 ? 800 : 144) * sb;
}
KILN_X86_INLINE void kiln_x86_k16k_scales_avx2(const uint8_t *m, int type, int j,
                                               kiln_x86_k16k_sc_avx2 *s) {
  if (type == 2) {
    s->sc0 = kiln_x86_uscale16_avx2(m + 32 + 16 * j);
    s->sc1 = kiln_x86_uscale16_avx2(m + 40 + 16 * j);
    s->pairs = _mm256_cvtepu8_epi16(
        _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(m + 160 + 16 * j)),
                          _mm_loadl_epi64((const __m128i *)(m + 168 + 16 * j))));
    return;
  }
  s->sc0 = kiln_x86_scale16_avx2(m + 16 + 16 * j);
  s->sc1 = kiln_x86_scale16_avx2(m + 24 + 16 * j);
  const __m256i pairs = _mm256_cvtepi8_epi16(
      _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(m + 16 + 16 * j)),
                        _mm_loadl_epi64((const __m128i *)(m + 24 + 16 * j))));
  s->pairs = _mm256_sub_epi16(_mm256_setzero_si256(),
                              _mm256_slli_epi16(pairs, type == 6 ? 5 : 2));
}
/* Block j's unsigned values of super-block sb: lo[c] elements 4c+t, hi[c]
 * 16+4c+t. */
KILN_X86_INLINE void kiln_x86_k16k_u_avx2(const uint8_t *grp, int64_t metaBytes, int type,
                                          int sb, int j, __m256i lo[4], __m256i hi[4]) {
  const int64_t b = (int64_t)sb * 8 + j;
  if (type == 6) {
    const uint8_t *qp = grp + metaBytes + 192 * b;
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const __m256i h0 = _mm256_load_si256((const __m256i *)(qp + 128));
    const __m256i h1 = _mm256_load_si256((const __m256i *)(qp + 160));
    for (int c = 0; c < 4; ++c) {
      const __m256i v = _mm256_load_si256((const __m256i *)(qp + 32 * c));
      lo[c] = _mm256_or_si256(_mm256_and_si256(v, m4), kiln_x86_hbits_avx2(h0, c));
      hi[c] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(v, 4), m4),
                              kiln_x86_hbits_avx2(h1, c));
    }
  } else if (type == 3) {
    kiln_x86_split_u2_avx2(grp + metaBytes + 96 * b, 1, lo, hi);
  } else {
    kiln_x86_split_u2_avx2(grp + 800 * (int64_t)sb + 288 + 64 * j, 0, lo, hi);
  }
}
/* One activation row's block j (its values at q, Q8_K's 16-element sums at
 * bsums) into the integer sums isum and, for Q2_K, msum. Q6_K's int16 pair
 * sums take two word columns (<= 4*63*127), the others' four (<= 8*7*127). */
KILN_X86_INLINE void kiln_x86_k16k_row_avx2(const __m256i lo[4], const __m256i hi[4],
                                            const kiln_x86_k16k_sc_avx2 *s, int type,
                                            const int8_t *q, const int16_t *bsums,
                                            __m256i *isum, __m256i *msum) {
  __m256i t;
  if (type == 6) {
    t = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {
      const __m256i *u = h ? hi : lo;
      const __m256i sc = h ? s->sc1 : s->sc0;
      for (int c = 0; c < 4; c += 2) {
        const __m256i p = _mm256_add_epi16(
            _mm256_maddubs_epi16(u[c], KILN_X86_BC(q + 16 * h + 4 * c)),
            _mm256_maddubs_epi16(u[c + 1], KILN_X86_BC(q + 16 * h + 4 * c + 4)));
        t = _mm256_add_epi32(t, _mm256_madd_epi16(p, sc));
      }
    }
  } else {
    __m256i p0 = _mm256_maddubs_epi16(lo[0], KILN_X86_BC(q));
    __m256i p1 = _mm256_maddubs_epi16(hi[0], KILN_X86_BC(q + 16));
    for (int c = 1; c < 4; ++c) {
      p0 = _mm256_add_epi16(p0, _mm256_maddubs_epi16(lo[c], KILN_X86_BC(q + 4 * c)));
      p1 = _mm256_add_epi16(p1, _mm256_maddubs_epi16(hi[c], KILN_X86_BC(q + 16 + 4 * c)));
    }
    t = _mm256_add_epi32(_mm256_madd_epi16(p0, s->sc0), _mm256_madd_epi16(p1, s->sc1));
  }
  const __m256i o = _mm256_madd_epi16(s->pairs, KILN_X86_BC(bsums));
  if (type == 2) {
    *isum = _mm256_add_epi32(*isum, t);
    *msum = _mm256_add_epi32(*msum, o);
  } else {
    *isum = _mm256_add_epi32(*isum, _mm256_add_epi32(t, o));
  }
}
/* The float step of one super-block: acc += (isum x d - msum x dmin) x the
 * row's scale; the first super-block assigns *acc. */
KILN_X86_INLINE void kiln_x86_k16k_acc_avx2(const uint8_t *m, int type, const kiln_x86_q8kx *a,
                                            __m256i isum, __m256i msum, int first,
                                            __m256 *acc) {
  const __m256 da = _mm256_set1_ps(a->q.d);
  const __m256 d = _mm256_mul_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)m)), da);
  __m256 v = first ? _mm256_mul_ps(_mm256_cvtepi32_ps(isum), d)
                   : _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), d, *acc);
  if (type == 2) {
    const __m256 dm =
        _mm256_mul_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(m + 16))), da);
    v = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(msum), dm, v);
  }
  *acc = v;
}

/* The tile (MR activation rows by one group) and the decode walk (one row by
 * G groups) of Q6_K, Q3_K and Q2_K against Q8_K activations, from an ISA's
 * kiln_x86_k16k_{meta,u,scales,row,acc}_ISA; W: the group's rows / 8 (the
 * block and metadata bytes scale with it); PF: prefetch in the tile. */
#define KILN_X86_K16K_KERNELS(ISA, VI, VF, ZI, W, PF)                          \
  KILN_X86_INLINE void kiln_x86_tile_k16k_##ISA(const uint8_t *grp, int64_t metaBytes, \
                                                int nsb, const kiln_x86_q8kx *a, \
                                                int MR, int type, VF *acc) {   \
    const int64_t qb = (W) * (type == 6 ? 192 : type == 3 ? 96 : 100);        \
    for (int sb = 0; sb < nsb; ++sb) {                                         \
      const uint8_t *m = kiln_x86_k16k_meta_##ISA(grp, type, sb);              \
      VI isum[2 * KILN_X86_MR], msum[2 * KILN_X86_MR];                         \
      KILN_X86_UNROLL                                                          \
      for (int r = 0; r < MR; ++r)                                             \
        isum[r] = msum[r] = ZI();                                              \
      for (int j = 0; j < 8; ++j) {                                            \
        if (PF)                                                                \
          KILN_X86_PREFETCH(grp + metaBytes + qb * ((int64_t)sb * 8 + j), qb);  \
        VI lo[4], hi[4];                                                       \
        kiln_x86_k16k_u_##ISA(grp, metaBytes, type, sb, j, lo, hi);            \
        kiln_x86_k16k_sc_##ISA s;                                              \
        kiln_x86_k16k_scales_##ISA(m, type, j, &s);                            \
        KILN_X86_UNROLL                                                        \
        for (int r = 0; r < MR; ++r) {                                         \
          const kiln_q8k_block *ar = &a[(int64_t)r * nsb + sb].q;              \
          kiln_x86_k16k_row_##ISA(lo, hi, &s, type, ar->qs + 32 * j,           \
                                  ar->bsums + 2 * j, &isum[r], &msum[r]);      \
        }                                                                      \
      }                                                                        \
      KILN_X86_UNROLL                                                          \
      for (int r = 0; r < MR; ++r)                                             \
        kiln_x86_k16k_acc_##ISA(m, type, a + (int64_t)r * nsb + sb, isum[r],   \
                                msum[r], sb == 0, &acc[r]);                    \
    }                                                                          \
  }                                                                            \
  KILN_X86_INLINE void kiln_x86_walk_k16k_##ISA(                               \
      const uint8_t *g0, int64_t groupBytes, int64_t metaBytes, int nsb,       \
      const kiln_x86_q8kx *a, int G, int type, VF *acc) {                      \
    const int qb = (W) * (type == 6 ? 192 : type == 3 ? 96 : 100);            \
    const int mb = type == 2 ? 0 : 18 * (W);                                   \
    for (int sb = 0; sb < nsb; ++sb) {                                         \
      VI isum[4], msum[4];                                                     \
      KILN_X86_UNROLL                                                          \
      for (int g = 0; g < G; ++g)                                              \
        isum[g] = msum[g] = ZI();                                              \
      for (int j = 0; j < 8; ++j) {                                            \
        kiln_x86_pf_groups(g0, groupBytes, metaBytes, nsb * 8, sb * 8 + j, G, qb, mb); \
        KILN_X86_UNROLL                                                        \
        for (int g = 0; g < G; ++g) {                                          \
          const uint8_t *grp = g0 + g * groupBytes;                            \
          VI lo[4], hi[4];                                                     \
          kiln_x86_k16k_u_##ISA(grp, metaBytes, type, sb, j, lo, hi);          \
          kiln_x86_k16k_sc_##ISA s;                                            \
          kiln_x86_k16k_scales_##ISA(kiln_x86_k16k_meta_##ISA(grp, type, sb), type, j, &s); \
          kiln_x86_k16k_row_##ISA(lo, hi, &s, type, a[sb].q.qs + 32 * j,       \
                                  a[sb].q.bsums + 2 * j, &isum[g], &msum[g]);  \
        }                                                                      \
      }                                                                        \
      KILN_X86_UNROLL                                                          \
      for (int g = 0; g < G; ++g)                                              \
        kiln_x86_k16k_acc_##ISA(kiln_x86_k16k_meta_##ISA(g0 + g * groupBytes, type, sb), \
                                type, a + sb, isum[g], msum[g], sb == 0, &acc[g]); \
    }                                                                          \
  }
/* The per-type entries of KILN_X86_Q8K_MATMUL. */
#define KILN_X86_K16K_TYPE(T, TYPE, ISA, VF)                                   \
  KILN_X86_INLINE void kiln_x86_tile_##T##_kk_##ISA(const uint8_t *grp, int64_t metaBytes, \
                                                    int nsb, const kiln_x86_q8kx *a, \
                                                    int MR, VF *acc) {         \
    kiln_x86_tile_k16k_##ISA(grp, metaBytes, nsb, a, MR, TYPE, acc);           \
  }                                                                            \
  KILN_X86_INLINE void kiln_x86_walk_##T##_kk_##ISA(                           \
      const uint8_t *g0, int64_t groupBytes, int64_t metaBytes, int nsb,       \
      const kiln_x86_q8kx *a, int G, VF *acc) {                                \
    kiln_x86_walk_k16k_##ISA(g0, groupBytes, metaBytes, nsb, a, G, TYPE, acc); \
  }
KILN_X86_K16K_KERNELS(avx2, __m256i, __m256, _mm256_setzero_si256, 1, 0)
KILN_X86_K16K_TYPE(q6, 6, avx2, __m256)
KILN_X86_K16K_TYPE(q3, 3, avx2, __m256)
KILN_X86_K16K_TYPE(q2, 2, avx2, __m256)

KILN_X86_Q8K_MATMUL(matmul_q4_k_q8_k_4x8_avx2, 8, __m256, 160, 1024,
                    kiln_x86_tile_q4_kk_avx2, kiln_x86_walk_q4_kk_avx2, kiln_x86_store8, 0)
KILN_X86_Q8K_MATMUL(matmul_q5_k_q8_k_4x8_avx2, 8, __m256, 160, 1280,
                    kiln_x86_tile_q5_kk_avx2, kiln_x86_walk_q5_kk_avx2, kiln_x86_store8, 0)
KILN_X86_Q8K_MATMUL(matmul_iq4_xs_q8_k_4x8_avx2, 8, __m256, 80, 1024,
                    kiln_x86_tile_iq4_xs_kk_avx2, kiln_x86_walk_iq4_xs_kk_avx2, kiln_x86_store8, 0)
KILN_X86_Q8K_MATMUL(matmul_q6_k_q8_k_4x8_avx2, 8, __m256, 144, 1536,
                    kiln_x86_tile_q6_kk_avx2, kiln_x86_walk_q6_kk_avx2, kiln_x86_store8, 0)
KILN_X86_Q8K_MATMUL(matmul_q3_k_q8_k_4x8_avx2, 8, __m256, 144, 768,
                    kiln_x86_tile_q3_kk_avx2, kiln_x86_walk_q3_kk_avx2, kiln_x86_store8, 0)
KILN_X86_Q8K_MATMUL(matmul_q2_k_q8_k_4x8_avx2, 8, __m256, 0, 800,
                    kiln_x86_tile_q2_kk_avx2, kiln_x86_walk_q2_kk_avx2, kiln_x86_store8, 0)
#endif /* AVX2 */

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VNNI__)
/* ------------------------------------------------------------ AVX-512 VNNI */

KILN_X86_INLINE void kiln_x86_store16(float *y, __m512 acc, const float *bias,
                                      int n) {
  if (n == 16) {
    if (bias)
      acc = _mm512_add_ps(acc, _mm512_loadu_ps(bias));
    _mm512_storeu_ps(y, acc);
    return;
  }
  float t[16];
  _mm512_storeu_ps(t, acc);
  for (int i = 0; i < n; ++i)
    y[i] = t[i] + (bias ? bias[i] : 0.0f);
}

#define KILN_X86_BC512(p) _mm512_set1_epi32(kiln_x86_ld32(p))

/* The Q4_0 and Q8_0 tiles take up to 8 rows: row r from activation tile
 * t[r / KILN_X86_MR], so 8 rows are two full tiles of the scratch's layout
 * and fewer are one tile of MR rows; KILN_X86_TILE_ROW is row r's index in
 * its tile. */
#define KILN_X86_TILE_ROW(MR, r, b)                                            \
  KILN_X86_AT((MR) < KILN_X86_MR ? (MR) : KILN_X86_MR, (r) % KILN_X86_MR, b)

/* Q4_0: meta nb x 16 fp16; quants 256 bytes per block (unsigned nibbles). */
KILN_X86_INLINE void kiln_x86_tiles_q4_0_vnni(const uint8_t *grp, int64_t metaBytes,
                                              int nb, const kiln_x86_tile_act *t,
                                              int MR, const kiln_x86_pf_share *pf,
                                              __m512 *acc) {
  const __m512i m4 = _mm512_set1_epi8(0x0f);
  KILN_X86_UNROLL
  for (int r = 0; r < MR; ++r)
    acc[r] = _mm512_setzero_ps();
  const uint8_t *qp = grp + metaBytes;
  for (int b = 0; b < nb; ++b, qp += 256) {
    KILN_X86_PREFETCH(qp, 256);
    const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(grp + 32 * b)));
    __m512i lo[4], hi[4];
    for (int c = 0; c < 4; ++c) {
      __m512i v = _mm512_load_si512((const void *)(qp + 64 * c));
      lo[c] = _mm512_and_si512(v, m4);
      hi[c] = _mm512_and_si512(_mm512_srli_epi16(v, 4), m4);
    }
    if (pf && b == 0)
      kiln_x86_pf_fetch(pf);
    KILN_X86_UNROLL
    for (int r = 0; r < MR; ++r) {
      const kiln_x86_tile_act *ta = &t[r / KILN_X86_MR];
      const int64_t i = KILN_X86_TILE_ROW(MR, r, b);
      const int8_t *q = ta->a[i].qs;
      /* One chain per row: the tile's rows are independent chains enough,
       * and the blocks' chains overlap out of order. */
      __m512i s0 = _mm512_set1_epi32(-8 * ta->as[i]);
      for (int c = 0; c < 4; ++c) {
        s0 = _mm512_dpbusd_epi32(s0, lo[c], KILN_X86_BC512(q + 4 * c));
        s0 = _mm512_dpbusd_epi32(s0, hi[c], KILN_X86_BC512(q + 16 + 4 * c));
      }
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s0),
                               _mm512_mul_ps(dw, _mm512_set1_ps(ta->da[i])), acc[r]);
    }
  }
}

/* Q8_0: meta nb x 16 fp16; quants 512 bytes per block, stored as q + 128. */
KILN_X86_INLINE void kiln_x86_tiles_q8_0_vnni(const uint8_t *grp, int64_t metaBytes,
                                              int nb, const kiln_x86_tile_act *t,
                                              int MR, const kiln_x86_pf_share *pf,
                                              __m512 *acc) {
  KILN_X86_UNROLL
  for (int r = 0; r < MR; ++r)
    acc[r] = _mm512_setzero_ps();
  const uint8_t *qp = grp + metaBytes;
  for (int b = 0; b < nb; ++b, qp += 512) {
    KILN_X86_PREFETCH(qp, 512);
    const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(grp + 32 * b)));
    __m512i wv[8];
    for (int c = 0; c < 8; ++c)
      wv[c] = _mm512_load_si512((const void *)(qp + 64 * c));
    if (pf && b == 0)
      kiln_x86_pf_fetch(pf);
    KILN_X86_UNROLL
    for (int r = 0; r < MR; ++r) {
      const kiln_x86_tile_act *ta = &t[r / KILN_X86_MR];
      const int64_t i = KILN_X86_TILE_ROW(MR, r, b);
      const int8_t *q = ta->a[i].qs;
      /* One chain per row, as Q4_0's. */
      __m512i s0 = _mm512_set1_epi32(-128 * ta->as[i]);
      for (int c = 0; c < 8; ++c)
        s0 = _mm512_dpbusd_epi32(s0, wv[c], KILN_X86_BC512(q + 4 * c));
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s0),
                               _mm512_mul_ps(dw, _mm512_set1_ps(ta->da[i])), acc[r]);
    }
  }
}

/* The driver's entries: one tile of MR <= 4 rows, or two full ones. */
#define KILN_X86_TILES_OF(T)                                                   \
  KILN_X86_INLINE void kiln_x86_tile_##T##_vnni(                               \
      const uint8_t *grp, int64_t metaBytes, int nb, const kiln_q8_block *a,   \
      const float *da, const int32_t *as, int MR, __m512 *acc) {               \
    const kiln_x86_tile_act t = {da, as, a};                                   \
    kiln_x86_tiles_##T##_vnni(grp, metaBytes, nb, &t, MR, 0, acc);             \
  }                                                                            \
  KILN_X86_INLINE void kiln_x86_tile8_##T##_vnni(                              \
      const uint8_t *grp, int64_t metaBytes, int nb, kiln_x86_tile_act t0,     \
      kiln_x86_tile_act t1, const kiln_x86_pf_share *pf, __m512 *acc) {        \
    const kiln_x86_tile_act t[2] = {t0, t1};                                   \
    kiln_x86_tiles_##T##_vnni(grp, metaBytes, nb, t, 2 * KILN_X86_MR, pf, acc); \
  }
KILN_X86_TILES_OF(q4_0)
KILN_X86_TILES_OF(q8_0)

/* Decode: one activation row against G (2 or 4) consecutive groups g0,
 * g0 + groupBytes, ..., block by block, so the loads of G quant streams are
 * in flight together (docs/notes/benchmarks-history.md: one stream leaves the kernel at
 * about half of what a plain read gets). The arithmetic per group is that of
 * the tiles above, so results are bit-identical. */
KILN_X86_INLINE void kiln_x86_tileg_q4_0_vnni(const uint8_t *g0, int64_t groupBytes,
                                              int64_t metaBytes, int nb,
                                              const kiln_q8_block *a, const float *da,
                                              const int32_t *as, int G, __m512 *acc) {
  const __m512i m4 = _mm512_set1_epi8(0x0f);
  __m512 accg[4];
  KILN_X86_UNROLL
  for (int g = 0; g < G; ++g)
    accg[g] = _mm512_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    kiln_x86_pf_groups(g0, groupBytes, metaBytes, nb, b, G, 256, 32);
    const int8_t *q = a[b].qs;
    const __m512 dab = _mm512_set1_ps(da[b]);
    const __m512i off = _mm512_set1_epi32(-8 * as[b]);
    __m512i v[4][4];
    KILN_X86_UNROLL
    for (int g = 0; g < G; ++g)
      for (int c = 0; c < 4; ++c)
        v[g][c] = _mm512_load_si512(
            (const void *)(g0 + g * groupBytes + metaBytes + 256 * (int64_t)b + 64 * c));
    __m512i s0[4], s1[4];
    KILN_X86_UNROLL
    for (int g = 0; g < G; ++g)
      s0[g] = off, s1[g] = _mm512_setzero_si512();
    for (int c = 0; c < 4; ++c) {
      const __m512i lo = KILN_X86_BC512(q + 4 * c), hi = KILN_X86_BC512(q + 16 + 4 * c);
      KILN_X86_UNROLL
      for (int g = 0; g < G; ++g) {
        s0[g] = _mm512_dpbusd_epi32(s0[g], _mm512_and_si512(v[g][c], m4), lo);
        s1[g] = _mm512_dpbusd_epi32(s1[g], _mm512_and_si512(_mm512_srli_epi16(v[g][c], 4), m4), hi);
      }
    }
    KILN_X86_UNROLL
    for (int g = 0; g < G; ++g) {
      const __m512 d = _mm512_cvtph_ps(
          _mm256_loadu_si256((const __m256i *)(g0 + g * groupBytes + 32 * b)));
      accg[g] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(s0[g], s1[g])),
                                _mm512_mul_ps(d, dab), accg[g]);
    }
  }
  KILN_X86_UNROLL
  for (int g = 0; g < G; ++g)
    acc[g] = accg[g];
}

KILN_X86_INLINE void kiln_x86_tileg_q8_0_vnni(const uint8_t *g0, int64_t groupBytes,
                                              int64_t metaBytes, int nb,
                                              const kiln_q8_block *a, const float *da,
                                              const int32_t *as, int G, __m512 *acc) {
  __m512 accg[4];
  KILN_X86_UNROLL
  for (int g = 0; g < G; ++g)
    accg[g] = _mm512_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    kiln_x86_pf_groups(g0, groupBytes, metaBytes, nb, b, G, 512, 32);
    const int8_t *q = a[b].qs;
    const __m512 dab = _mm512_set1_ps(da[b]);
    const __m512i off = _mm512_set1_epi32(-128 * as[b]);
    __m512i s0[4], s1[4];
    KILN_X86_UNROLL
    for (int g = 0; g < G; ++g)
      s0[g] = off, s1[g] = _mm512_setzero_si512();
    for (int c = 0; c < 8; c += 2) {
      const __m512i x0 = KILN_X86_BC512(q + 4 * c), x1 = KILN_X86_BC512(q + 4 * c + 4);
      KILN_X86_UNROLL
      for (int g = 0; g < G; ++g) {
        const uint8_t *qg = g0 + g * groupBytes + metaBytes + 512 * (int64_t)b;
        s0[g] = _mm512_dpbusd_epi32(s0[g], _mm512_load_si512((const void *)(qg + 64 * c)), x0);
        s1[g] = _mm512_dpbusd_epi32(s1[g], _mm512_load_si512((const void *)(qg + 64 * c + 64)), x1);
      }
    }
    KILN_X86_UNROLL
    for (int g = 0; g < G; ++g) {
      const __m512 d = _mm512_cvtph_ps(
          _mm256_loadu_si256((const __m256i *)(g0 + g * groupBytes + 32 * b)));
      accg[g] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(s0[g], s1[g])),
                                _mm512_mul_ps(d, dab), accg[g]);
    }
  }
  KILN_X86_UNROLL
  for (int g = 0; g < G; ++g)
    acc[g] = accg[g];
}

/* The five-bit and IQ4 types as unsigned bytes for VPDPBUSD: u[c] holds
 * elements 4c+t (c < 4) or 16+4(c-4)+t of each row's block; the exact 32-bit
 * dot products need no pair-sum limit. Five-bit values come from 256 bytes
 * of nibble words and 64 bytes of fifth bits (as AVX2), IQ4 levels from a
 * table of level + 128 (offset 128 x activation sum subtracted). */
KILN_X86_INLINE void kiln_x86_vnni_u5(const uint8_t *p, __m512i u[8]) {
  const __m512i m4 = _mm512_set1_epi8(0x0f), b4 = _mm512_set1_epi8(0x10);
  const __m512i h = _mm512_load_si512((const void *)(p + 256));
  for (int c = 0; c < 4; ++c) {
    const __m512i v = _mm512_load_si512((const void *)(p + 64 * c));
    u[c] = _mm512_or_si512(_mm512_and_si512(v, m4),
                           _mm512_and_si512(_mm512_slli_epi16(h, 4 - c), b4));
    u[c + 4] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(v, 4), m4),
                               _mm512_and_si512(_mm512_srli_epi16(h, c), b4));
  }
}
KILN_X86_INLINE void kiln_x86_vnni_u4(const uint8_t *p, __m512i u[8]) {
  const __m512i m4 = _mm512_set1_epi8(0x0f);
  for (int c = 0; c < 4; ++c) {
    const __m512i v = _mm512_load_si512((const void *)(p + 64 * c));
    u[c] = _mm512_and_si512(v, m4);
    u[c + 4] = _mm512_and_si512(_mm512_srli_epi16(v, 4), m4);
  }
}
KILN_X86_INLINE void kiln_x86_vnni_iq4(const uint8_t *p, __m512i u[8]) {
  const __m512i m4 = _mm512_set1_epi8(0x0f);
  const __m512i lut = _mm512_broadcast_i32x4(_mm_setr_epi8(
      1, 24, 45, 63, 79, 93, 106, 118, (char)129, (char)141, (char)153,
      (char)166, (char)181, (char)197, (char)217, (char)241));
  for (int c = 0; c < 4; ++c) {
    const __m512i v = _mm512_load_si512((const void *)(p + 64 * c));
    u[c] = _mm512_shuffle_epi8(lut, _mm512_and_si512(v, m4));
    u[c + 4] = _mm512_shuffle_epi8(lut, _mm512_and_si512(_mm512_srli_epi16(v, 4), m4));
  }
}
KILN_X86_INLINE __m512i kiln_x86_vnni_dot8(const __m512i u[8], const int8_t *q,
                                           int32_t init) {
  __m512i s0 = _mm512_set1_epi32(init), s1 = _mm512_setzero_si512();
  for (int c = 0; c < 4; ++c) {
    s0 = _mm512_dpbusd_epi32(s0, u[c], KILN_X86_BC512(q + 4 * c));
    s1 = _mm512_dpbusd_epi32(s1, u[c + 4], KILN_X86_BC512(q + 16 + 4 * c));
  }
  return _mm512_add_epi32(s0, s1);
}

/* Per-block weight scales ds (row lanes) and, for the types with a min, the
 * term mt added per unit of activation sum; b is the 32-element block. */
KILN_X86_INLINE void kiln_x86_vnni_scales_q5_0(const uint8_t *grp, int b,
                                               __m512 *ds, __m512 *mt) {
  *ds = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(grp + 32 * b)));
  (void)mt;
}
#define kiln_x86_vnni_scales_iq4_nl kiln_x86_vnni_scales_q5_0
KILN_X86_INLINE void kiln_x86_vnni_scales_q5_1(const uint8_t *grp, int b,
                                               __m512 *ds, __m512 *mt) {
  *ds = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(grp + 64 * b)));
  *mt = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(grp + 64 * b + 32)));
}

/* Tile and decode walk of type T: QB quant bytes per block and group, MB
 * metadata bytes per block (prefetch), DECODE the weight bytes, OFF the
 * offset of the unsigned values, HASMIN whether mt applies. */
#define KILN_X86_VNNI_KERNELS(T, QB, MB, DECODE, OFF, HASMIN)                  \
  KILN_X86_INLINE void kiln_x86_vnni_block_##T(const uint8_t *grp,             \
                                               const __m512i u[8], int b,      \
                                               const int8_t *q, float da,      \
                                               int32_t as, __m512 *acc) {      \
    __m512 ds, mt;                                                             \
    kiln_x86_vnni_scales_##T(grp, b, &ds, &mt);                                \
    const __m512i s = kiln_x86_vnni_dot8(u, q, -(OFF) * as);                   \
    *acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s),                              \
                           _mm512_mul_ps(ds, _mm512_set1_ps(da)), *acc);       \
    if (HASMIN)                                                                \
      *acc = _mm512_fmadd_ps(mt, _mm512_set1_ps(da * (float)as), *acc);        \
  }                                                                            \
  KILN_X86_INLINE void kiln_x86_tiles_##T##_vnni(                              \
      const uint8_t *grp, int64_t metaBytes, int nb,                           \
      const kiln_x86_tile_act *t, int MR, const kiln_x86_pf_share *pf,         \
      __m512 *acc) {                                                           \
    KILN_X86_UNROLL                                                            \
    for (int r = 0; r < MR; ++r)                                               \
      acc[r] = _mm512_setzero_ps();                                            \
    const uint8_t *qp = grp + metaBytes;                                       \
    for (int b = 0; b < nb; ++b, qp += (QB)) {                                 \
      KILN_X86_PREFETCH(qp, QB);                                               \
      __m512i u[8];                                                            \
      DECODE(qp, u);                                                           \
      if (pf && b == 0)                                                        \
        kiln_x86_pf_fetch(pf);                                                 \
      KILN_X86_UNROLL                                                          \
      for (int r = 0; r < MR; ++r) {                                           \
        const kiln_x86_tile_act *ta = &t[r / KILN_X86_MR];                     \
        const int64_t i = KILN_X86_TILE_ROW(MR, r, b);                         \
        kiln_x86_vnni_block_##T(grp, u, b, ta->a[i].qs, ta->da[i], ta->as[i],  \
                                &acc[r]);                                      \
      }                                                                        \
    }                                                                          \
  }                                                                            \
  KILN_X86_TILES_OF(T)                                                         \
  KILN_X86_INLINE void kiln_x86_tileg_##T##_vnni(                              \
      const uint8_t *g0, int64_t groupBytes, int64_t metaBytes, int nb,        \
      const kiln_q8_block *a, const float *da, const int32_t *as, int G,       \
      __m512 *acc) {                                                           \
    __m512 accg[4];                                                            \
    KILN_X86_UNROLL                                                            \
    for (int g = 0; g < G; ++g)                                                \
      accg[g] = _mm512_setzero_ps();                                           \
    for (int b = 0; b < nb; ++b) {                                             \
      kiln_x86_pf_groups(g0, groupBytes, metaBytes, nb, b, G, QB, MB);         \
      KILN_X86_UNROLL                                                          \
      for (int g = 0; g < G; ++g) {                                            \
        const uint8_t *grp = g0 + g * groupBytes;                              \
        __m512i u[8];                                                          \
        DECODE(grp + metaBytes + (QB) * (int64_t)b, u);                        \
        kiln_x86_vnni_block_##T(grp, u, b, a[b].qs, da[b], as[b], &accg[g]);   \
      }                                                                        \
    }                                                                          \
    KILN_X86_UNROLL                                                            \
    for (int g = 0; g < G; ++g)                                                \
      acc[g] = accg[g];                                                        \
  }

KILN_X86_VNNI_KERNELS(q5_0, 320, 32, kiln_x86_vnni_u5, 16, 0)
KILN_X86_VNNI_KERNELS(q5_1, 320, 64, kiln_x86_vnni_u5, 0, 1)
KILN_X86_VNNI_KERNELS(iq4_nl, 256, 32, kiln_x86_vnni_iq4, 128, 0)

/* ---- Q4_K, Q5_K and IQ4_XS with Q8_K activations (AVX-512 VNNI) --------
 * As the AVX2 Q4_K kernel: a super-block's eight blocks sum in integers,
 * each VPDPBUSD block sum (<= 32 x 31 x 128) times its 6-bit scale
 * (VPMULLD), the float steps and the min term once per super-block. Weights
 * are the VNNI Q4_K (Q5_K) groups: per super-block 16 d, 16 dmin (fp16),
 * 8x16 u8 scales, 8x16 u8 mins, then 256 bytes of nibble words per block
 * (Q5_K: and 64 of fifth bits); IQ4_XS's below. */

/* A super-block's metadata shared by every activation row: d and dmin as
 * floats, the mins as int16 pairs (lane i of mp[k]: the mins of blocks 2k
 * and 2k+1 of row i). */
typedef struct {
  __m512 d, dmin;
  __m512i mp[4];
} kiln_x86_q4kk_vmeta;
/* IQ4_XS's super-block (iq4 set): 16 d (fp16), then 8x16 int8 scales
 * (ls - 32). Its values enter VPDPBUSD as u = level + 128
 * (kiln_x86_vnni_iq4), so each block's sum carries 128 x the activation
 * block's sum; with the signed scales in the mins' place, msum below is the
 * sum of scale x activation block sum and isum - 128 msum the exact integer
 * dot product (|isum| < 2^28), converted once. */
KILN_X86_INLINE void kiln_x86_q4kk_meta_vnni(const uint8_t *m, int iq4,
                                             kiln_x86_q4kk_vmeta *t) {
  t->d = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)m));
  t->dmin = iq4 ? t->d : _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(m + 32)));
  const uint8_t *mins = m + (iq4 ? 32 : 192);
  for (int k = 0; k < 4; ++k) {
    const __m128i m0 = _mm_loadu_si128((const __m128i *)(mins + 32 * k));
    const __m128i m1 = _mm_loadu_si128((const __m128i *)(mins + 16 + 32 * k));
    const __m256i pairs = _mm256_set_m128i(_mm_unpackhi_epi8(m0, m1), _mm_unpacklo_epi8(m0, m1));
    t->mp[k] = iq4 ? _mm512_cvtepi8_epi16(pairs) : _mm512_cvtepu8_epi16(pairs);
  }
}

/* The float steps of one super-block for one activation block a: (isum x d
 * - msum x dmin) x da, msum the mins times the activation's 32-element sums
 * (VPDPWSSD on the int16 pairs, broadcast from memory). The first super-block
 * assigns *acc: a zeroed accumulator array is stored in halves and reloaded
 * whole, which stalls on store forwarding. */
KILN_X86_INLINE void kiln_x86_q4kk_acc_vnni(const kiln_x86_q4kk_vmeta *t, int iq4,
                                            const kiln_x86_q8kx *a, __m512i isum,
                                            int first, __m512 *acc) {
  __m512i msum = _mm512_madd_epi16(t->mp[0], _mm512_set1_epi32(a->pairs[0]));
  for (int k = 1; k < 4; ++k)
    msum = _mm512_dpwssd_epi32(msum, t->mp[k], _mm512_set1_epi32(a->pairs[k]));
  const __m512 f =
      iq4 ? _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(isum, _mm512_slli_epi32(msum, 7))),
                          t->d)
          : _mm512_fnmadd_ps(_mm512_cvtepi32_ps(msum), t->dmin,
                             _mm512_mul_ps(_mm512_cvtepi32_ps(isum), t->d));
  const __m512 da = _mm512_set1_ps(a->q.d);
  *acc = first ? _mm512_mul_ps(f, da) : _mm512_fmadd_ps(f, da, *acc);
}

/* Q5_K and IQ4_XS share the walks: `kind` 0 is Q4_K, 1 Q5_K (u = the
 * five-bit value, kiln_x86_vnni_u5: 320 quant bytes per block, the fifth
 * bits after the nibbles; the same metadata), 2 IQ4_XS (u = level + 128,
 * 160 metadata bytes a super-block, signed scales). */
#define KILN_X86_K45_QB(kind) ((kind) == 1 ? 320 : 256)
#define KILN_X86_K45_MB(kind) ((kind) == 2 ? 160 : 320)
KILN_X86_INLINE void kiln_x86_k45_u_vnni(const uint8_t *p, int kind, __m512i u[8]) {
  if (kind == 1)
    kiln_x86_vnni_u5(p, u);
  else if (kind == 2)
    kiln_x86_vnni_iq4(p, u);
  else
    kiln_x86_vnni_u4(p, u);
}
/* Block j's 16 scales (metadata m of the super-block) as int32 lanes. */
KILN_X86_INLINE __m512i kiln_x86_k45_sc_vnni(const uint8_t *m, int kind, int j) {
  if (kind == 2)
    return _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(m + 32 + 16 * j)));
  return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(m + 64 + 16 * j)));
}
KILN_X86_INLINE void kiln_x86_k45_acc_vnni(const uint8_t *m, int kind,
                                           const kiln_x86_q8kx *a, __m512i isum,
                                           int first, __m512 *acc) {
  kiln_x86_q4kk_vmeta t;
  kiln_x86_q4kk_meta_vnni(m, kind == 2, &t);
  kiln_x86_q4kk_acc_vnni(&t, kind == 2, a, isum, first, acc);
}

/* Tile: MR (up to 8) activation rows (nsb super-blocks each) by one group. */
KILN_X86_INLINE void kiln_x86_tile_k45_vnni(const uint8_t *grp, int64_t metaBytes,
                                            int nsb, const kiln_x86_q8kx *a,
                                            int MR, int kind, __m512 *acc) {
  const uint8_t *qp = grp + metaBytes;
  for (int sb = 0; sb < nsb; ++sb) {
    const uint8_t *m = grp + KILN_X86_K45_MB(kind) * sb;
    __m512i isum[2 * KILN_X86_MR];
    KILN_X86_UNROLL
    for (int r = 0; r < MR; ++r)
      isum[r] = _mm512_setzero_si512();
    for (int j = 0; j < 8; ++j, qp += KILN_X86_K45_QB(kind)) {
      KILN_X86_PREFETCH(qp, KILN_X86_K45_QB(kind));
      __m512i u[8];
      kiln_x86_k45_u_vnni(qp, kind, u);
      const __m512i sc = kiln_x86_k45_sc_vnni(m, kind, j);
      KILN_X86_UNROLL
      for (int r = 0; r < MR; ++r) {
        /* One chain per row, as Q4_0's: the rows are chains enough. */
        const int8_t *q = a[(int64_t)r * nsb + sb].q.qs + 32 * j;
        __m512i s = _mm512_setzero_si512();
        for (int c = 0; c < 8; ++c)
          s = _mm512_dpbusd_epi32(s, u[c], KILN_X86_BC512(q + 16 * (c / 4) + 4 * (c % 4)));
        isum[r] = _mm512_add_epi32(isum[r], _mm512_mullo_epi32(s, sc));
      }
    }
    KILN_X86_UNROLL
    for (int r = 0; r < MR; ++r)
      kiln_x86_k45_acc_vnni(m, kind, a + (int64_t)r * nsb + sb, isum[r], sb == 0, &acc[r]);
  }
}

/* Decode walk: one activation row against G groups at once. */
KILN_X86_INLINE void kiln_x86_walk_k45_vnni(const uint8_t *g0, int64_t groupBytes,
                                            int64_t metaBytes, int nsb,
                                            const kiln_x86_q8kx *a, int G, int kind,
                                            __m512 *acc) {
  const int mb = KILN_X86_K45_MB(kind);
  for (int sb = 0; sb < nsb; ++sb) {
    __m512i isum[4];
    for (int j = 0; j < 8; ++j) {
      const int b = sb * 8 + j;
      kiln_x86_pf_groups(g0, groupBytes, metaBytes, nsb * 8, b, G, KILN_X86_K45_QB(kind), mb / 8);
      KILN_X86_UNROLL
      for (int g = 0; g < G; ++g) {
        const uint8_t *grp = g0 + g * groupBytes;
        __m512i u[8];
        kiln_x86_k45_u_vnni(grp + metaBytes + KILN_X86_K45_QB(kind) * (int64_t)b, kind, u);
        const __m512i sc = kiln_x86_k45_sc_vnni(grp + mb * sb, kind, j);
        const __m512i t = _mm512_mullo_epi32(kiln_x86_vnni_dot8(u, a[sb].q.qs + 32 * j, 0), sc);
        isum[g] = j ? _mm512_add_epi32(isum[g], t) : t;
      }
    }
    KILN_X86_UNROLL
    for (int g = 0; g < G; ++g)
      kiln_x86_k45_acc_vnni(g0 + g * groupBytes + mb * sb, kind, a + sb, isum[g],
                            sb == 0, &acc[g]);
  }
}
#define KILN_X86_K45_ENTRIES(T, KIND)                                          \
  KILN_X86_INLINE void kiln_x86_tile_##T##_vnni(const uint8_t *grp, int64_t metaBytes, \
                                                int nsb, const kiln_x86_q8kx *a, \
                                                int MR, __m512 *acc) {         \
    kiln_x86_tile_k45_vnni(grp, metaBytes, nsb, a, MR, KIND, acc);            \
  }                                                                            \
  KILN_X86_INLINE void kiln_x86_walk_##T##_vnni(                               \
      const uint8_t *g0, int64_t groupBytes, int64_t metaBytes, int nsb,       \
      const kiln_x86_q8kx *a, int G, __m512 *acc) {                            \
    kiln_x86_walk_k45_vnni(g0, groupBytes, metaBytes, nsb, a, G, KIND, acc);   \
  }
KILN_X86_K45_ENTRIES(q4_kk, 0)
KILN_X86_K45_ENTRIES(q5_kk, 1)
KILN_X86_K45_ENTRIES(iq4_xsk, 2)

/* Q2_K and Q3_K: the AVX2 layouts at 16 rows, as unsigned values (Q3_K:
 * u = q + 4; Q2_K: q, its mins apart). Their super-blocks sum as Q6_K's,
 * below. */
KILN_X86_INLINE void kiln_x86_split_u2_vnni(const uint8_t *p, int three,
                                            __m512i lo[4], __m512i hi[4]) {
  const __m512i m2 = _mm512_set1_epi8(3), b2 = _mm512_set1_epi8(4);
  const __m512i l0 = _mm512_load_si512((const void *)p),
                l1 = _mm512_load_si512((const void *)(p + 64));
  const __m512i h = three ? _mm512_load_si512((const void *)(p + 128))
                          : _mm512_setzero_si512();
  for (int c = 0; c < 4; ++c) {
    lo[c] = _mm512_and_si512(_mm512_srli_epi16(l0, 2 * c), m2);
    hi[c] = _mm512_and_si512(_mm512_srli_epi16(l1, 2 * c), m2);
    if (three) {
      const __m512i hl = c <= 2 ? _mm512_slli_epi16(h, 2 - c) : _mm512_srli_epi16(h, 1);
      lo[c] = _mm512_or_si512(lo[c], _mm512_and_si512(hl, b2));
      hi[c] = _mm512_or_si512(hi[c], _mm512_and_si512(_mm512_srli_epi16(h, 2 + c), b2));
    }
  }
}
/* Q6_K with Q8_K activations: the AVX2 layout at 16 rows (metadata as
 * Q3_K's); per 32-element block 4 nibble words and 2 words of high bit
 * pairs per row, joined into u = q + 32 (0..63). A super-block sums in
 * integers: each half block's VPDPBUSD sum times its int8 scale (VPMULLD),
 * and the offset, -32 x scale x the activation's 16-element sum, by one
 * VPDPWSSD per block on (scale, scale) pairs against the Q8_K block's sums,
 * broadcast from memory; one float step per super-block. (With Q8_0
 * activations every row needed its half sums and a float step per block.) */
KILN_X86_INLINE void kiln_x86_q6k_u_vnni(const uint8_t *p, __m512i lo[4], __m512i hi[4]) {
  const __m512i m4 = _mm512_set1_epi8(0x0f), m30 = _mm512_set1_epi8(0x30);
  const __m512i h0 = _mm512_load_si512((const void *)(p + 256)),
                h1 = _mm512_load_si512((const void *)(p + 320));
  for (int c = 0; c < 4; ++c) {
    const __m512i v = _mm512_load_si512((const void *)(p + 64 * c));
    /* bits 2c..2c+1 of each high byte to bits 4..5 */
    const __m512i a0 = c < 3 ? _mm512_slli_epi16(h0, 4 - 2 * c) : _mm512_srli_epi16(h0, 2);
    const __m512i a1 = c < 3 ? _mm512_slli_epi16(h1, 4 - 2 * c) : _mm512_srli_epi16(h1, 2);
    lo[c] = _mm512_or_si512(_mm512_and_si512(v, m4), _mm512_and_si512(a0, m30));
    hi[c] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(v, 4), m4),
                            _mm512_and_si512(a1, m30));
  }
}

/* Q6_K, Q3_K and Q2_K against Q8_K activations (TYPE 6, 3, 2). Q6_K's and
 * Q3_K's metadata is a record of 288 bytes per super-block ahead of the
 * quants (16 fp16 d, then the int8 scales of the 16-element sub-blocks, 16
 * rows each: block j's at 32j, the halves 16 apart); Q2_K's super-blocks
 * are records of 1600 bytes (16 fp16 d, 16 fp16 dmin, the u8 scales at 64
 * and the u8 mins at 320 in that order, the quants at 576). Block j of
 * metadata m: the two half scales as int32 lanes, and as int16 pairs, lane i
 * (x sc0[i], x sc1[i]), the offset of the unsigned values (-32 or -4 times
 * the scales) or Q2_K's mins. */
typedef struct {
  __m512i sc0, sc1, pairs;
} kiln_x86_k16k_sc_vnni;
KILN_X86_INLINE const uint8_t *kiln_x86_k16k_meta_vnni(const uint8_t *grp, int type, int sb) {
  return grp + (int64_t)(type == 2 ? 1600 : 288) * sb;
}
KILN_X86_INLINE void kiln_x86_k16k_scales_vnni(const uint8_t *m, int type, int j,
                                               kiln_x86_k16k_sc_vnni *s) {
  const int so = type == 2 ? 64 : 32;
  const __m128i b0 = _mm_loadu_si128((const __m128i *)(m + so + 32 * j)),
                b1 = _mm_loadu_si128((const __m128i *)(m + so + 16 + 32 * j));
  if (type == 2) {
    s->sc0 = _mm512_cvtepu8_epi32(b0);
    s->sc1 = _mm512_cvtepu8_epi32(b1);
    const __m128i n0 = _mm_loadu_si128((const __m128i *)(m + 320 + 32 * j)),
                  n1 = _mm_loadu_si128((const __m128i *)(m + 336 + 32 * j));
    s->pairs = _mm512_cvtepu8_epi16(
        _mm256_set_m128i(_mm_unpackhi_epi8(n0, n1), _mm_unpacklo_epi8(n0, n1)));
    return;
  }
  s->sc0 = _mm512_cvtepi8_epi32(b0);
  s->sc1 = _mm512_cvtepi8_epi32(b1);
  const __m512i pairs = _mm512_cvtepi8_epi16(
      _mm256_set_m128i(_mm_unpackhi_epi8(b0, b1), _mm_unpacklo_epi8(b0, b1)));
  s->pairs = _mm512_sub_epi16(_mm512_setzero_si512(),
                              _mm512_slli_epi16(pairs, type == 6 ? 5 : 2));
}

/* Block j's unsigned values of super-block sb. */
KILN_X86_INLINE void kiln_x86_k16k_u_vnni(const uint8_t *grp, int64_t metaBytes, int type,
                                          int sb, int j, __m512i lo[4], __m512i hi[4]) {
  const int64_t b = (int64_t)sb * 8 + j;
  if (type == 6)
    kiln_x86_q6k_u_vnni(grp + metaBytes + 384 * b, lo, hi);
  else if (type == 3)
    kiln_x86_split_u2_vnni(grp + metaBytes + 192 * b, 1, lo, hi);
  else
    kiln_x86_split_u2_vnni(grp + 1600 * (int64_t)sb + 576 + 128 * j, 0, lo, hi);
}

/* One activation row's block j (its 32 values at q, the Q8_K block's
 * 16-element sums at bsums) added to the integer sums: isum, and for Q2_K
 * the mins' msum. */
KILN_X86_INLINE void kiln_x86_k16k_row_vnni(const __m512i lo[4], const __m512i hi[4],
                                            const kiln_x86_k16k_sc_vnni *s, int type,
                                            const int8_t *q, const int16_t *bsums,
                                            __m512i *isum, __m512i *msum) {
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
  for (int c = 0; c < 4; ++c) {
    s0 = _mm512_dpbusd_epi32(s0, lo[c], KILN_X86_BC512(q + 4 * c));
    s1 = _mm512_dpbusd_epi32(s1, hi[c], KILN_X86_BC512(q + 16 + 4 * c));
  }
  const __m512i i = _mm512_add_epi32(*isum, _mm512_add_epi32(_mm512_mullo_epi32(s0, s->sc0),
                                                             _mm512_mullo_epi32(s1, s->sc1)));
  if (type == 2) {
    *isum = i;
    *msum = _mm512_dpwssd_epi32(*msum, s->pairs, KILN_X86_BC512(bsums));
  } else {
    *isum = _mm512_dpwssd_epi32(i, s->pairs, KILN_X86_BC512(bsums));
  }
}

/* The float step of one super-block: acc += (isum x d - msum x dmin) x the
 * row's scale. The first super-block assigns *acc (as Q4_K's: no reload of a
 * zeroed array). */
KILN_X86_INLINE void kiln_x86_k16k_acc_vnni(const uint8_t *m, int type, const kiln_x86_q8kx *a,
                                            __m512i isum, __m512i msum, int first,
                                            __m512 *acc) {
  const __m512 da = _mm512_set1_ps(a->q.d);
  const __m512 d = _mm512_mul_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)m)), da);
  __m512 v = first ? _mm512_mul_ps(_mm512_cvtepi32_ps(isum), d)
                   : _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum), d, *acc);
  if (type == 2) {
    const __m512 dm = _mm512_mul_ps(
        _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(m + 32))), da);
    v = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(msum), dm, v);
  }
  *acc = v;
}

KILN_X86_K16K_KERNELS(vnni, __m512i, __m512, _mm512_setzero_si512, 2, 1)
KILN_X86_K16K_TYPE(q6, 6, vnni, __m512)
KILN_X86_K16K_TYPE(q3, 3, vnni, __m512)
KILN_X86_K16K_TYPE(q2, 2, vnni, __m512)

KILN_X86_MATMUL(matmul_q4_0_q8_0_4x16_avx512vnni, 16, __m512, 32, 32, 256,
                kiln_x86_tile_q4_0_vnni, kiln_x86_store16, 4, kiln_x86_tileg_q4_0_vnni,
                1, kiln_x86_tile8_q4_0_vnni)
KILN_X86_MATMUL(matmul_q8_0_q8_0_4x16_avx512vnni, 16, __m512, 32, 32, 512,
                kiln_x86_tile_q8_0_vnni, kiln_x86_store16, 4, kiln_x86_tileg_q8_0_vnni,
                1, kiln_x86_tile8_q8_0_vnni)
KILN_X86_MATMUL(matmul_q5_0_q8_0_4x16_avx512vnni, 16, __m512, 32, 32, 320,
                kiln_x86_tile_q5_0_vnni, kiln_x86_store16, 4, kiln_x86_tileg_q5_0_vnni,
                1, kiln_x86_tile8_q5_0_vnni)
KILN_X86_MATMUL(matmul_q5_1_q8_0_4x16_avx512vnni, 16, __m512, 32, 64, 320,
                kiln_x86_tile_q5_1_vnni, kiln_x86_store16, 4, kiln_x86_tileg_q5_1_vnni,
                1, kiln_x86_tile8_q5_1_vnni)
KILN_X86_Q4_1_AS_Q5_1(4x16_avx512vnni)
KILN_X86_Q8K_MATMUL(matmul_q4_k_q8_k_4x16_avx512vnni, 16, __m512, 320, 2048,
                    kiln_x86_tile_q4_kk_vnni, kiln_x86_walk_q4_kk_vnni, kiln_x86_store16, 1)
KILN_X86_Q8K_MATMUL(matmul_q6_k_q8_k_4x16_avx512vnni, 16, __m512, 288, 3072,
                    kiln_x86_tile_q6_kk_vnni, kiln_x86_walk_q6_kk_vnni, kiln_x86_store16, 1)
KILN_X86_Q8K_MATMUL(matmul_q5_k_q8_k_4x16_avx512vnni, 16, __m512, 320, 2560,
                    kiln_x86_tile_q5_kk_vnni, kiln_x86_walk_q5_kk_vnni, kiln_x86_store16, 1)
KILN_X86_MATMUL(matmul_iq4_nl_q8_0_4x16_avx512vnni, 16, __m512, 32, 32, 256,
                kiln_x86_tile_iq4_nl_vnni, kiln_x86_store16, 4, kiln_x86_tileg_iq4_nl_vnni,
                1, kiln_x86_tile8_iq4_nl_vnni)
KILN_X86_Q8K_MATMUL(matmul_q3_k_q8_k_4x16_avx512vnni, 16, __m512, 288, 1536,
                    kiln_x86_tile_q3_kk_vnni, kiln_x86_walk_q3_kk_vnni, kiln_x86_store16, 1)
KILN_X86_Q8K_MATMUL(matmul_q2_k_q8_k_4x16_avx512vnni, 16, __m512, 0, 1600,
                    kiln_x86_tile_q2_kk_vnni, kiln_x86_walk_q2_kk_vnni, kiln_x86_store16, 1)
KILN_X86_Q8K_MATMUL(matmul_iq4_xs_q8_k_4x16_avx512vnni, 16, __m512, 160, 2048,
                    kiln_x86_tile_iq4_xsk_vnni, kiln_x86_walk_iq4_xsk_vnni, kiln_x86_store16, 1)
#endif /* AVX-512 VNNI */

/* ---- float weights, f32 activations ------------------------------------ */

/* y[r][j] = x[r] . W[j] (+ bias[j]) for f32, f16 or bf16 rows of W (ELEM
 * elements), four input rows per pass over a weight row, eight lanes loaded
 * and widened at a time. */
#define KILN_X86_FLOAT_MATMUL(T, ELEM, LOAD8, SCALAR)                          \
  KILN_KERNEL void kiln_matmul_##T##_f32_4x1_avx2(const float *x, int rows, int K, \
                                            const uint8_t *w, int N,           \
                                            const float *bias, float *y) {     \
    const ELEM *we = (const ELEM *)w;                                          \
    for (int j = 0; j < N; ++j) {                                              \
      const ELEM *wr = we + (int64_t)j * K;                                    \
      for (int r0 = 0; r0 < rows; r0 += 4) {                                   \
        const int nr = rows - r0 < 4 ? rows - r0 : 4;                          \
        __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(),            \
                         _mm256_setzero_ps(), _mm256_setzero_ps()};            \
        int k = 0;                                                             \
        for (; k + 8 <= K; k += 8) {                                           \
          const __m256 wv = LOAD8(wr + k);                                     \
          for (int i = 0; i < nr; ++i)                                         \
            acc[i] = _mm256_fmadd_ps(                                          \
                wv, _mm256_loadu_ps(x + (int64_t)(r0 + i) * K + k), acc[i]);   \
        }                                                                      \
        for (int i = 0; i < nr; ++i) {                                         \
          __m128 s = _mm_add_ps(_mm256_castps256_ps128(acc[i]),                \
                                _mm256_extractf128_ps(acc[i], 1));             \
          s = _mm_add_ps(s, _mm_movehl_ps(s, s));                              \
          s = _mm_add_ss(s, _mm_movehdup_ps(s));                               \
          float sum = _mm_cvtss_f32(s);                                        \
          for (int kk = k; kk < K; ++kk)                                       \
            sum += SCALAR(wr[kk]) * x[(int64_t)(r0 + i) * K + kk];             \
          y[(int64_t)(r0 + i) * N + j] = sum + (bias ? bias[j] : 0.0f);        \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

static inline __m256 kiln_x86_load8_f16(const uint16_t *p) {
  return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}
static inline __m256 kiln_x86_load8_bf16(const uint16_t *p) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(
      _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)), 16));
}
static inline float kiln_x86_f16_scalar(uint16_t h) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h)));
}
static inline float kiln_x86_bf16_scalar(uint16_t h) {
  union { uint32_t u; float f; } v = {(uint32_t)h << 16};
  return v.f;
}
static inline float kiln_x86_f32_scalar(float f) { return f; }
KILN_X86_FLOAT_MATMUL(f32, float, _mm256_loadu_ps, kiln_x86_f32_scalar)
KILN_X86_FLOAT_MATMUL(f16, uint16_t, kiln_x86_load8_f16, kiln_x86_f16_scalar)
KILN_X86_FLOAT_MATMUL(bf16, uint16_t, kiln_x86_load8_bf16, kiln_x86_bf16_scalar)
