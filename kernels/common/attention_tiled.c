/* attention_tiled.c - causal grouped-query attention over the paged KV cache,
 * in tiles of query vectors, for targets whose clang lowers fixed-width
 * vectors well: x86, NEON, SVE, RVV (after kernels_generic.c in kilnc's
 * kernel unit; the generic attention kernel's signature).
 *
 * Why: the generic kernel walks one (row, head) at a time, so every K and V
 * row of the cache is read once per query head and its scores go through a
 * scalar exp; in a prefill chunk that made attention 4% of the FLOPs but 43%
 * of the time (docs/notes/benchmarks-history.md, "Where Kiln's prefill time goes").
 *
 * Here the query vectors that share a KV head (the `group` heads of one row,
 * and the next rows of the same sequence) fill the KILN_AT_LANES lanes of a
 * vector, lane i holding query vector i transposed (qT[d][i]). A walk over
 * the keys then does, per key, one FMA per dimension with the key's element
 * broadcast, producing the scores of all lanes at once; softmax is online
 * (flash-attention style: running max m, running sum l, output rescaled by
 * exp(m_old - m_new) when the max grows), so no score buffer is needed and
 * the exp is a vector polynomial; the output accumulates transposed (accT[d]
 * += p * V[d]) and is written back once per tile.
 *
 * Work splits into tasks of (KV head, tiles) that read disjoint parts of the
 * cache; with a thread pool they run in parallel. Under AVX-512 a task takes
 * two consecutive tiles, so each key and value element loaded (and each f16
 * chunk widened) serves twice the query vectors. New K and V rows are
 * stored first, so a row sees the rows before it in the same call (a prefill
 * chunk) exactly as those of earlier calls.
 *
 * An f16 cache (layout.kv_dtype KILN_KV_F16) is rounded as the generic
 * kernel rounds it (to nearest even) and widened to f32 as it is read: whole
 * vectors at a time where the ISA converts them (F16C, AArch64), so the
 * arithmetic is the f32 kernel's on the same rounded values. */
#include "kiln_kernels.h"

#ifndef KILN_AT_LANES
#if defined(__AVX512F__)
#define KILN_AT_LANES 16
#else
#define KILN_AT_LANES 8
#endif
#endif
/* Output dimensions updated together over a chunk of keys: their
 * accumulators and the chunk's L probabilities stay in registers (32 vector
 * registers of 16 lanes; 8 lanes may take two registers each). */
#if KILN_AT_LANES == 16
#define KILN_AT_PV 8
#else
#define KILN_AT_PV 4
#endif
#define KILN_AT_MAX_HEAD_DIM 512 /* kernel selection falls back above this */

typedef float kiln_at_v __attribute__((vector_size(4 * KILN_AT_LANES)));
typedef int32_t kiln_at_vi __attribute__((vector_size(4 * KILN_AT_LANES)));

/* Lane-wise mask ? a : b (the vector ?: of GCC vectors is C++-only). */
static inline kiln_at_v kiln_at_sel(kiln_at_vi mask, kiln_at_v a, kiln_at_v b) {
  return (kiln_at_v)(((kiln_at_vi)a & mask) | ((kiln_at_vi)b & ~mask));
}

/* Below this, exp underflows to 0 (and -3e38, a masked score, lands here). */
#define KILN_AT_EXP_MIN (-87.0f)

/* exp of every lane: x = n ln2 + r, |r| <= ln2/2, exp(r) by a degree-6
 * polynomial (Cephes' expf coefficients), 2^n through the exponent bits.
 * Within 2 ulp of expf for x in [-87, 0]; 0 below -87. Every caller passes
 * a score minus a running maximum at least as large, so x <= 0 and there is
 * no upper clamp. */
static inline kiln_at_v kiln_at_exp(kiln_at_v x) {
  const kiln_at_v lo = (kiln_at_v){0} + KILN_AT_EXP_MIN;
  const kiln_at_vi small = x < lo;
  x = kiln_at_sel(small, lo, x);
  const float magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to int */
  kiln_at_v t = x * 1.44269504088896341f + magic;
  const kiln_at_vi n = (kiln_at_vi)t - (kiln_at_vi)((kiln_at_v){0} + magic);
  t = t - magic;
  kiln_at_v r = x - t * 0.693359375f;
  r = r - t * -2.12194440e-4f;
  kiln_at_v p = (kiln_at_v){0} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const kiln_at_vi bits = (kiln_at_vi)p + (n << 23);
  return (kiln_at_v)(bits & ~small);
}

static inline kiln_at_v kiln_at_max(kiln_at_v a, kiln_at_v b) {
  return kiln_at_sel(a > b, a, b);
}

/* Cache elements <-> f32 vectors. With F16C (x86) or AArch64's FCVTL/FCVTN a
 * vector of binary16 converts in an instruction or two each way (round to
 * nearest even, the default mode of both); other ISAs go element by element
 * through the generic kernel's conversions. */
#if defined(__F16C__) || defined(__aarch64__)
#define KILN_AT_HALF_VECTORS 1
typedef _Float16 kiln_at_h __attribute__((vector_size(2 * KILN_AT_LANES)));
#else
#define KILN_AT_HALF_VECTORS 0
#endif
static inline __attribute__((always_inline)) kiln_at_v
kiln_at_load(const void *p, const int f16) {
  kiln_at_v x;
  if (!f16) {
    __builtin_memcpy(&x, p, sizeof x);
    return x;
  }
#if KILN_AT_HALF_VECTORS
  kiln_at_h h;
  __builtin_memcpy(&h, p, sizeof h);
  x = __builtin_convertvector(h, kiln_at_v);
#else
  for (int i = 0; i < KILN_AT_LANES; ++i)
    x[i] = kiln_g_f16(((const uint16_t *)p)[i]);
#endif
  return x;
}

/* n elements of `from` to the cache row `to`. */
static void kiln_at_store(void *to, const float *from, int n, int f16) {
  if (!f16) {
    __builtin_memcpy(to, from, (size_t)n * sizeof(float));
    return;
  }
  uint16_t *h = (uint16_t *)to;
  int i = 0;
#if KILN_AT_HALF_VECTORS
  for (; i + KILN_AT_LANES <= n; i += KILN_AT_LANES) {
    kiln_at_v x;
    __builtin_memcpy(&x, from + i, sizeof x);
    const kiln_at_h y = __builtin_convertvector(x, kiln_at_h);
    __builtin_memcpy(h + i, &y, sizeof y);
  }
#endif
  for (; i < n; ++i)
    h[i] = kiln_g_to_f16(from[i]);
}

/* n elements of the cache row `from` as f32. */
static void kiln_at_widen(float *to, const void *from, int n) {
  int i = 0;
  for (; i + KILN_AT_LANES <= n; i += KILN_AT_LANES) {
    const kiln_at_v x = kiln_at_load((const uint16_t *)from + i, 1);
    __builtin_memcpy(to + i, &x, sizeof x);
  }
  for (; i < n; ++i)
    to[i] = kiln_g_f16(((const uint16_t *)from)[i]);
}

typedef struct {
  const kiln_ctx *ctx;
  uint32_t layer;
  const int32_t *seq;
  const uint32_t *pos;
  const float *q;
  int rows, heads, kv_heads, head_dim;
  int parts; /* prefill: tasks per KV head; decode: parts per row */
  float scale;
  float *out;
  int f16; /* the cache holds binary16 */
} kiln_at_args;

/* Tiles of one KV head: the rows are cut into runs of one sequence, and each
 * run's (row, head-in-group) pairs, row-major, into tiles of KILN_AT_LANES.
 * A task takes up to `per` consecutive tiles of one run. Finds task `want`'s
 * run, first pair and tile count; returns the number of tasks. */
static int kiln_at_task_at(const int32_t *seq, int rows, int group, int per,
                           int want, int *run0, int *run_len, int *pair0,
                           int *ntiles) {
  int tasks = 0;
  for (int r0 = 0; r0 < rows;) {
    int r1 = r0 + 1;
    while (r1 < rows && seq[r1] == seq[r0])
      ++r1;
    const int pairs = (r1 - r0) * group;
    const int tiles = (pairs + KILN_AT_LANES - 1) / KILN_AT_LANES;
    const int n = (tiles + per - 1) / per;
    if (want >= tasks && want < tasks + n) {
      const int first = (want - tasks) * per;
      *run0 = r0;
      *run_len = r1 - r0;
      *pair0 = first * KILN_AT_LANES;
      *ntiles = tiles - first < per ? tiles - first : per;
    }
    tasks += n;
    r0 = r1;
  }
  return tasks;
}

/* Tiles a task takes together: each chunk of keys is then widened (f16) and
 * its elements loaded once for NT tiles, and every broadcast key or value
 * element feeds NT FMAs. Two need twice the accumulators, which only
 * AVX-512's 32 registers of 16 lanes hold. */
#if KILN_AT_LANES == 16
#define KILN_AT_TILES 2
#else
#define KILN_AT_TILES 1
#endif
/* Groups of KILN_AT_LANES keys a prefill softmax step takes at most. */
#define KILN_AT_STEP_GROUPS 4

/* NT tiles of KILN_AT_LANES query vectors each, of KV head kh, all of one
 * sequence, against every key up to the last lane's position. */
static inline __attribute__((always_inline)) void
kiln_at_tiles_of(const kiln_at_args *a, int kh, int run0, int run_len,
                 int pair0, const int NT) {
  enum { L = KILN_AT_LANES };
  const int D = a->head_dim, group = a->heads / a->kv_heads;
  const int qw = a->heads * D, kvw = a->kv_heads * D;
  const int32_t seq = a->seq[run0];
  const uint32_t block = a->ctx->layout.kv_block;
  int lane_row[NT][L], lane_head[NT][L], active[NT];
  float posf[L];
  kiln_at_v posv[NT];
  uint32_t keys = 0, seen[NT]; /* keys every active lane of tile u sees */
  for (int u = 0; u < NT; ++u) {
    active[u] = 0;
    seen[u] = UINT32_MAX;
    for (int i = 0; i < L; ++i) {
      const int p = pair0 + u * L + i;
      if (p < run_len * group) {
        lane_row[u][i] = run0 + p / group;
        lane_head[u][i] = kh * group + p % group;
        const uint32_t pos = a->pos[lane_row[u][i]];
        posf[i] = (float)pos; /* exact: positions are < 2^24 */
        keys = pos + 1 > keys ? pos + 1 : keys;
        seen[u] = pos + 1 < seen[u] ? pos + 1 : seen[u];
        active[u] = i + 1;
      } else {
        lane_row[u][i] = lane_head[u][i] = -1;
        posf[i] = -1.0f; /* masks every key */
      }
    }
    __builtin_memcpy(&posv[u], posf, sizeof posf);
  }
  kiln_at_v qT[D][NT], accT[D][NT];
  /* Query vector i into lane i, a lane at a time: each lane's row is
   * contiguous (vectorized over the lanes, this loop gathers, microcoded
   * and slow on some cores). */
  for (int d = 0; d < D; ++d)
    for (int u = 0; u < NT; ++u) {
      qT[d][u] = (kiln_at_v){0};
      accT[d][u] = (kiln_at_v){0};
    }
  for (int u = 0; u < NT; ++u)
    for (int i = 0; i < active[u]; ++i) {
      const float *qi = a->q + (int64_t)lane_row[u][i] * qw + lane_head[u][i] * D;
      _Pragma("clang loop vectorize(disable)")
      for (int d = 0; d < D; ++d)
        qT[d][u][i] = qi[d] * a->scale;
    }
  kiln_at_v m[NT], l[NT];
  for (int u = 0; u < NT; ++u)
    m[u] = (kiln_at_v){0} - 3.0e38f, l[u] = (kiln_at_v){0};
  /* Keys are taken KC at a time (whole groups of L, within one KV block):
   * one running-max update and one rescale of the accumulators per step,
   * whose PV loop keeps its accumulators in registers over all KC keys.
   * KC * D is at most 8192, so the widened f16 rows below stay within the
   * stack the kernel's other arrays take at KILN_AT_MAX_HEAD_DIM. */
  const int KC = D <= 128 ? KILN_AT_STEP_GROUPS * L : D <= 256 ? 2 * L : L;
  /* An f16 step is widened once here, then read L * NT times per element. */
  float kf[a->f16 ? KC : 1][a->f16 ? D : 1], vf[a->f16 ? KC : 1][a->f16 ? D : 1];
  const size_t es = a->f16 ? 2u : 4u;
  const float *kr[KILN_AT_STEP_GROUPS * L], *vr[KILN_AT_STEP_GROUPS * L];
  kiln_at_v s[NT][KILN_AT_STEP_GROUPS * L];

  for (uint32_t b0 = 0; b0 < keys; b0 += block) {
    const uint32_t nb = keys - b0 < block ? keys - b0 : block;
    const uint8_t *kb =
        (const uint8_t *)kiln_kv_at(a->ctx, seq, a->layer, 0, b0) + kh * D * es;
    const uint8_t *vb =
        (const uint8_t *)kiln_kv_at(a->ctx, seq, a->layer, 1, b0) + kh * D * es;
    for (uint32_t c0 = 0; c0 < nb; c0 += (uint32_t)KC) {
      const int nk = nb - c0 < (uint32_t)KC ? (int)(nb - c0) : KC;
      const int nj = (nk + L - 1) / L * L; /* keys scored, whole groups */
      /* Keys past nk point at the step's first key; their p is 0. */
      for (int j = 0; j < nj; ++j) {
        const uint32_t t = c0 + (j < nk ? (uint32_t)j : 0u);
        const uint8_t *kt = kb + (int64_t)t * kvw * es, *vt = vb + (int64_t)t * kvw * es;
        if (a->f16) {
          if (j < nk) {
            kiln_at_widen(kf[j], kt, D);
            kiln_at_widen(vf[j], vt, D);
          }
          kr[j] = kf[j < nk ? j : 0];
          vr[j] = vf[j < nk ? j : 0];
        } else {
          kr[j] = (const float *)kt;
          vr[j] = (const float *)vt;
        }
      }
      /* Eight keys' scores at a time: eight independent FMA chains per
       * tile, as many as two FMA pipes of four cycles' latency keep busy. */
      for (int j = 0; j < nj; j += 8) {
        kiln_at_v sj[NT][8];
        _Pragma("clang loop unroll(full)")
        for (int u = 0; u < NT; ++u)
          _Pragma("clang loop unroll(full)")
          for (int e = 0; e < 8; ++e)
            sj[u][e] = (kiln_at_v){0};
        for (int d = 0; d < D; ++d) {
          _Pragma("clang loop unroll(full)")
          for (int u = 0; u < NT; ++u) {
            const kiln_at_v qd = qT[d][u];
            _Pragma("clang loop unroll(full)")
            for (int e = 0; e < 8; ++e)
              sj[u][e] += qd * kr[j + e][d];
          }
        }
        _Pragma("clang loop unroll(full)")
        for (int u = 0; u < NT; ++u)
          _Pragma("clang loop unroll(full)")
          for (int e = 0; e < 8; ++e)
            s[u][j + e] = sj[u][e];
      }
      kiln_at_v alpha[NT];
      for (int u = 0; u < NT; ++u) {
        kiln_at_v mx = m[u];
        /* Masked only in the steps that reach past a lane's position: in a
         * prefill, the last one or two. Inactive lanes, unmasked, score 0
         * (their queries are 0) and are never written. */
        if (b0 + c0 + (uint32_t)nk > seen[u])
          for (int j = 0; j < nk; ++j) {
            const float t = (float)(b0 + c0 + (uint32_t)j);
            const kiln_at_v masked = (kiln_at_v){0} - 3.0e38f;
            s[u][j] = kiln_at_sel(t <= posv[u], s[u][j], masked);
          }
        for (int j = 0; j < nk; ++j)
          mx = kiln_at_max(mx, s[u][j]);
        alpha[u] = kiln_at_exp(m[u] - mx);
        m[u] = mx;
        kiln_at_v sum = {0};
        for (int j = 0; j < nk; ++j) {
          s[u][j] = kiln_at_exp(s[u][j] - mx);
          sum += s[u][j];
        }
        l[u] = l[u] * alpha[u] + sum;
      }
      /* KILN_AT_PV dimensions at a time, each its own chain over the keys
       * (one dimension's chain alone waits on every FMA's latency). */
      int d = 0;
      for (; d + KILN_AT_PV <= D; d += KILN_AT_PV) {
        kiln_at_v acc[NT][KILN_AT_PV];
        _Pragma("clang loop unroll(full)")
        for (int u = 0; u < NT; ++u)
          _Pragma("clang loop unroll(full)")
          for (int e = 0; e < KILN_AT_PV; ++e)
            acc[u][e] = accT[d + e][u] * alpha[u];
        for (int j = 0; j < nk; ++j) {
          const float *v = vr[j] + d;
          _Pragma("clang loop unroll(full)")
          for (int e = 0; e < KILN_AT_PV; ++e) {
            const float ve = v[e];
            _Pragma("clang loop unroll(full)")
            for (int u = 0; u < NT; ++u)
              acc[u][e] += s[u][j] * ve;
          }
        }
        _Pragma("clang loop unroll(full)")
        for (int u = 0; u < NT; ++u)
          _Pragma("clang loop unroll(full)")
          for (int e = 0; e < KILN_AT_PV; ++e)
            accT[d + e][u] = acc[u][e];
      }
      for (; d < D; ++d)
        for (int u = 0; u < NT; ++u) {
          kiln_at_v acc = accT[d][u] * alpha[u];
          for (int j = 0; j < nk; ++j)
            acc += s[u][j] * vr[j][d];
          accT[d][u] = acc;
        }
    }
  }
  /* Lane by lane, each lane's output row written in order (vectorized over
   * the lanes this loop is a scatter, microcoded and slow on some cores). */
  for (int u = 0; u < NT; ++u) {
    const kiln_at_v inv = 1.0f / l[u];
    for (int i = 0; i < active[u]; ++i) {
      float *oi = a->out + (int64_t)lane_row[u][i] * qw + lane_head[u][i] * D;
      _Pragma("clang loop vectorize(disable)")
      for (int d = 0; d < D; ++d)
        oi[d] = accT[d][u][i] * inv[i];
    }
  }
}

/* Sums of the lanes of each of P[0..L-1]: lane t of the result is the sum of
 * P[t]'s lanes. A tree of half-vector shuffles and adds (L - 1 of each per
 * level pair) instead of L separate horizontal reductions. */
static inline kiln_at_v kiln_at_hsums(const kiln_at_v *P) {
#if KILN_AT_LANES == 16
  kiln_at_v Q[8], R[4], S[2];
  for (int i = 0; i < 8; ++i)
    Q[i] = __builtin_shufflevector(P[2 * i], P[2 * i + 1], 0, 1, 2, 3, 4, 5, 6, 7,
                                   16, 17, 18, 19, 20, 21, 22, 23) +
           __builtin_shufflevector(P[2 * i], P[2 * i + 1], 8, 9, 10, 11, 12, 13,
                                   14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  for (int j = 0; j < 4; ++j)
    R[j] = __builtin_shufflevector(Q[2 * j], Q[2 * j + 1], 0, 1, 2, 3, 8, 9, 10,
                                   11, 16, 17, 18, 19, 24, 25, 26, 27) +
           __builtin_shufflevector(Q[2 * j], Q[2 * j + 1], 4, 5, 6, 7, 12, 13, 14,
                                   15, 20, 21, 22, 23, 28, 29, 30, 31);
  for (int k = 0; k < 2; ++k)
    S[k] = __builtin_shufflevector(R[2 * k], R[2 * k + 1], 0, 1, 4, 5, 8, 9, 12,
                                   13, 16, 17, 20, 21, 24, 25, 28, 29) +
           __builtin_shufflevector(R[2 * k], R[2 * k + 1], 2, 3, 6, 7, 10, 11, 14,
                                   15, 18, 19, 22, 23, 26, 27, 30, 31);
  return __builtin_shufflevector(S[0], S[1], 0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                 20, 22, 24, 26, 28, 30) +
         __builtin_shufflevector(S[0], S[1], 1, 3, 5, 7, 9, 11, 13, 15, 17, 19,
                                 21, 23, 25, 27, 29, 31);
#elif KILN_AT_LANES == 8
  kiln_at_v Q[4], R[2];
  for (int i = 0; i < 4; ++i)
    Q[i] = __builtin_shufflevector(P[2 * i], P[2 * i + 1], 0, 1, 2, 3, 8, 9, 10, 11) +
           __builtin_shufflevector(P[2 * i], P[2 * i + 1], 4, 5, 6, 7, 12, 13, 14, 15);
  for (int j = 0; j < 2; ++j)
    R[j] = __builtin_shufflevector(Q[2 * j], Q[2 * j + 1], 0, 1, 4, 5, 8, 9, 12, 13) +
           __builtin_shufflevector(Q[2 * j], Q[2 * j + 1], 2, 3, 6, 7, 10, 11, 14, 15);
  return __builtin_shufflevector(R[0], R[1], 0, 2, 4, 6, 8, 10, 12, 14) +
         __builtin_shufflevector(R[0], R[1], 1, 3, 5, 7, 9, 11, 13, 15);
#else
#error "KILN_AT_LANES must be 8 or 16"
#endif
}

/* The largest lane of v and the sum of its lanes, by trees of half-swapped
 * copies. */
#if KILN_AT_LANES == 16
#define KILN_AT_SWAP8(v) __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7)
#define KILN_AT_SWAP4(v) __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11)
#define KILN_AT_SWAP2(v) __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13)
#define KILN_AT_SWAP1(v) __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14)
#else
#define KILN_AT_SWAP8(v) (v)
#define KILN_AT_SWAP4(v) __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3)
#define KILN_AT_SWAP2(v) __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5)
#define KILN_AT_SWAP1(v) __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6)
#endif
static inline float kiln_at_hmax(kiln_at_v v) {
  if (KILN_AT_LANES == 16)
    v = kiln_at_max(v, KILN_AT_SWAP8(v));
  v = kiln_at_max(v, KILN_AT_SWAP4(v));
  v = kiln_at_max(v, KILN_AT_SWAP2(v));
  v = kiln_at_max(v, KILN_AT_SWAP1(v));
  return v[0];
}
static inline float kiln_at_hsum(kiln_at_v v) {
  if (KILN_AT_LANES == 16)
    v += KILN_AT_SWAP8(v);
  v += KILN_AT_SWAP4(v);
  v += KILN_AT_SWAP2(v);
  v += KILN_AT_SWAP1(v);
  return v[0];
}

/* Query heads h0 .. h0+nh-1 (nh <= KILN_AT_ROW_HEADS) of one row: decode,
 * where a tile would leave most lanes idle. Here the lanes hold keys
 * instead: a chunk of L keys is scored per head by products over
 * head-dimension chunks whose lane sums come out of kiln_at_hsums, and the
 * output accumulates along the head dimension (acc[dc] += p[t] * V[t][dc]).
 * The heads may span several KV heads: positions are walked once for all,
 * so each cached K and V row is read whole, in order. Needs head_dim % L
 * == 0. */
#define KILN_AT_ROW_HEADS 16
static inline __attribute__((always_inline)) void
kiln_at_row_of(const kiln_at_args *a, int row, int h0, int nh, const int f16) {
  enum { L = KILN_AT_LANES, MAXC = KILN_AT_MAX_HEAD_DIM / KILN_AT_LANES };
  const int D = a->head_dim, C = D / L, group = a->heads / a->kv_heads;
  const int qw = a->heads * D, kvw = a->kv_heads * D;
  const int32_t seq = a->seq[row];
  const uint32_t keys = a->pos[row] + 1, block = a->ctx->layout.kv_block;
  const float *qrow = a->q + (int64_t)row * qw;
  float *orow = a->out + (int64_t)row * qw;
  kiln_at_v q[KILN_AT_ROW_HEADS][MAXC], acc[KILN_AT_ROW_HEADS][MAXC];
  kiln_at_v l[KILN_AT_ROW_HEADS]; /* lane sums of the exponentials */
  float m[KILN_AT_ROW_HEADS];
  for (int g = 0; g < nh; ++g) {
    const float *qh = qrow + (h0 + g) * D;
    for (int c = 0; c < C; ++c) {
      __builtin_memcpy(&q[g][c], qh + c * L, sizeof(kiln_at_v));
      q[g][c] *= a->scale;
      acc[g][c] = (kiln_at_v){0};
    }
    m[g] = -3.0e38f;
    l[g] = (kiln_at_v){0};
  }
  const int kh0 = h0 / group, kh1 = (h0 + nh - 1) / group;
  const int64_t es = f16 ? 2 : 4; /* bytes per cache element */
  const int64_t kspan = (kh1 - kh0 + 1) * D * es; /* bytes of each row read */
  for (uint32_t b0 = 0; b0 < keys; b0 += block) {
    const uint32_t nb = keys - b0 < block ? keys - b0 : block;
    const uint8_t *kb = (const uint8_t *)kiln_kv_at(a->ctx, seq, a->layer, 0, b0);
    const uint8_t *vb = (const uint8_t *)kiln_kv_at(a->ctx, seq, a->layer, 1, b0);
    for (uint32_t c0 = 0; c0 < nb; c0 += L) {
      const int nk = nb - c0 < (uint32_t)L ? (int)(nb - c0) : L;
      kiln_at_vi valid;
      for (int j = 0; j < L; ++j)
        valid[j] = j < nk ? -1 : 0;
      /* Decode reads each K and V row once, from beyond the caches (the
       * weights streamed since evicted them): ask for the next chunk's rows
       * now, while this one is scored. */
      {
        const uint8_t *nk0 = 0, *nv0 = 0;
        if (c0 + L < nb) {
          nk0 = kb + (int64_t)(c0 + L) * kvw * es;
          nv0 = vb + (int64_t)(c0 + L) * kvw * es;
        } else if (b0 + block < keys) {
          nk0 = (const uint8_t *)kiln_kv_at(a->ctx, seq, a->layer, 0, b0 + block);
          nv0 = (const uint8_t *)kiln_kv_at(a->ctx, seq, a->layer, 1, b0 + block);
        }
        if (nk0) {
          const uint32_t left = keys - (b0 + c0 + L);
          const int n = left < (uint32_t)L ? (int)left : L;
          for (int j = 0; j < n; ++j)
            for (int64_t off = kh0 * D * es; off < kh0 * D * es + kspan; off += 64) {
              __builtin_prefetch(nk0 + (int64_t)j * kvw * es + off, 0, 3);
              __builtin_prefetch(nv0 + (int64_t)j * kvw * es + off, 0, 3);
            }
        }
      }
      const uint8_t *kr[L], *vr[L];
      int kh = -1;
      for (int g = 0; g < nh; ++g) {
        if ((h0 + g) / group != kh) { /* rows of the next KV head */
          kh = (h0 + g) / group;
          for (int j = 0; j < L; ++j) {
            const uint32_t t = c0 + (j < nk ? (uint32_t)j : 0u);
            kr[j] = kb + ((int64_t)t * kvw + kh * D) * es;
            vr[j] = vb + ((int64_t)t * kvw + kh * D) * es;
          }
        }
        kiln_at_v P[L];
        for (int j = 0; j < L; ++j) {
          kiln_at_v sum = q[g][0] * kiln_at_load(kr[j], f16);
          for (int c = 1; c < C; ++c)
            sum += q[g][c] * kiln_at_load(kr[j] + c * L * es, f16);
          P[j] = sum;
        }
        const kiln_at_v sc =
            kiln_at_sel(valid, kiln_at_hsums(P), (kiln_at_v){0} - 3.0e38f);
        const float cmax = kiln_at_hmax(sc);
        const float mx = cmax > m[g] ? cmax : m[g];
        const kiln_at_v e = kiln_at_exp(sc - mx);
        const kiln_at_v alpha = kiln_at_exp((kiln_at_v){0} + (m[g] - mx));
        float p[L];
        __builtin_memcpy(p, &e, sizeof p);
        m[g] = mx;
        l[g] = l[g] * alpha + e;
        for (int c = 0; c < C; ++c) {
          kiln_at_v o = acc[g][c] * alpha[0];
          for (int j = 0; j < L; ++j)
            o += p[j] * kiln_at_load(vr[j] + c * L * es, f16);
          acc[g][c] = o;
        }
      }
    }
  }
  for (int g = 0; g < nh; ++g) {
    float *oh = orow + (h0 + g) * D;
    const float inv = 1.0f / kiln_at_hsum(l[g]);
    for (int c = 0; c < C; ++c) {
      kiln_at_v o = acc[g][c] * inv;
      __builtin_memcpy(oh + c * L, &o, sizeof o);
    }
  }
}

/* The one-row walk for each cache type, specialised at compile time. */
static void kiln_at_row(const kiln_at_args *a, int row, int h0, int nh) {
  if (a->f16)
    kiln_at_row_of(a, row, h0, nh, 1);
  else
    kiln_at_row_of(a, row, h0, nh, 0);
}

/* Task t: tiles task (tiles - 1 - t / kv_heads) of KV head t % kv_heads
 * (a->parts counts tasks of up to KILN_AT_TILES tiles); the last tiles (the
 * longest prefixes) go first so that threads finish together. */
static void kiln_at_task(void *arg, int t) {
  const kiln_at_args *a = (const kiln_at_args *)arg;
  const int kh = t % a->kv_heads, task = a->parts - 1 - t / a->kv_heads;
  int run0 = 0, run_len = 0, pair0 = 0, ntiles = 1;
  kiln_at_task_at(a->seq, a->rows, a->heads / a->kv_heads, KILN_AT_TILES, task,
                  &run0, &run_len, &pair0, &ntiles);
#if KILN_AT_TILES == 2
  if (ntiles == 2) {
    kiln_at_tiles_of(a, kh, run0, run_len, pair0, 2);
    return;
  }
#endif
  kiln_at_tiles_of(a, kh, run0, run_len, pair0, 1);
}

/* Decode (every row a different sequence): task t is part t % parts of row
 * t / parts, a range of whole KV heads' query heads. */
static void kiln_at_row_task(void *arg, int t) {
  const kiln_at_args *a = (const kiln_at_args *)arg;
  const int row = t / a->parts, part = t % a->parts;
  const int group = a->heads / a->kv_heads;
  const int kh0 = part * a->kv_heads / a->parts;
  const int kh1 = (part + 1) * a->kv_heads / a->parts;
  for (int h = kh0 * group; h < kh1 * group; h += KILN_AT_ROW_HEADS) {
    const int n = kh1 * group - h;
    kiln_at_row(a, row, h, n < KILN_AT_ROW_HEADS ? n : KILN_AT_ROW_HEADS);
  }
}

KILN_KERNEL void kiln_attention_f32_tiled(const kiln_ctx *ctx, uint32_t layer,
                                     const int32_t *seq, const uint32_t *pos,
                                     const float *q, const float *k,
                                     const float *v, int rows, int heads,
                                     int kv_heads, int head_dim, float scale,
                                     float *out, float *scores) {
  (void)scores;
  const int kvw = kv_heads * head_dim;
  const int f16 = ctx->layout.kv_dtype == KILN_KV_F16;
  for (int r = 0; r < rows; ++r) {
    kiln_at_store(kiln_kv_at(ctx, seq[r], layer, 0, pos[r]),
                  k + (int64_t)r * kvw, kvw, f16);
    kiln_at_store(kiln_kv_at(ctx, seq[r], layer, 1, pos[r]),
                  v + (int64_t)r * kvw, kvw, f16);
  }
  kiln_at_args a = {ctx, layer, seq, pos, q, rows, heads, kv_heads, head_dim,
                    0, scale, out, f16};
  /* The pool never writes the context; it takes a non-const one because
   * starting and stopping threads do. */
  int decode = head_dim % KILN_AT_LANES == 0;
  for (int r = 1; r < rows && decode; ++r)
    decode = seq[r] != seq[r - 1];
  if (decode) {
    /* One part per thread (whole KV heads each) when there are few rows. */
    const int threads = (int)ctx->threads;
    a.parts = rows >= threads ? 1 : (kv_heads < threads ? kv_heads : threads);
    kiln_parallel_for((kiln_ctx *)ctx, kiln_at_row_task, &a, rows * a.parts);
    return;
  }
  int run0, run_len, pair0, ntiles;
  a.parts = kiln_at_task_at(seq, rows, heads / kv_heads, KILN_AT_TILES, -1,
                            &run0, &run_len, &pair0, &ntiles);
  kiln_parallel_for((kiln_ctx *)ctx, kiln_at_task, &a, a.parts * kv_heads);
}
