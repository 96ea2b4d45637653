//===- AttentionTest.cpp - ISA attention kernels against the generic one --===//
//
// For every target with its own attention kernel (x86 at AVX2 and, when the
// host has it, AVX-512; NEON and SVE under qemu-aarch64; RVV under
// qemu-riscv64 at VLEN 128 and 512): one program, built
// with the target's flags and
// the runtime (paged KV cache, thread pool), runs kiln_attention_f32_generic
// and the target's kernel on the same random queries, keys and values, and
// compares the outputs. The calls cover what the generated code does: a
// prefill chunk from position 0, a second chunk over cached rows, batched
// decode of three sequences, and a call whose rows form runs of different
// sequences; KV blocks of 3 to 16 tokens and one contiguous block; GQA ratios
// 1 to 32 (wider than a vector); head dimensions 8 to 128 (the one-row path
// needs a multiple of the vector width, the tile path takes any); very peaked scores (exp underflow); one
// and two threads. Every configuration runs with an f32 and an f16 KV cache;
// with f16 both kernels must also store bit-identical binary16 rows, and the
// generic kernel's f32 <-> binary16 conversions must agree with the
// hardware's (F16C, round to nearest even) on every half and on edge and
// random floats.
//
// Both kernels compute the same sums in a different order with different
// exp implementations (the ISA kernel's polynomial is within 2 ulp), so the
// bound is max |isa - generic| <= 2e-5 * max |generic| per call.
//
#include "kernels/Embedded.h"
#include "compiler/targets/IsaTarget.h"
#include "compiler/support/Process.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <unistd.h>

using namespace kiln;

namespace {
struct Param {
  std::string target, cpu;
  int64_t vectorBits = 0; // of qemu's CPU (0: the target's default)
};

void PrintTo(const Param &p, std::ostream *os) {
  *os << p.target << ":" << p.cpu << ":" << p.vectorBits;
}

std::vector<Param> params() {
  // RVV at the smallest and the largest VLEN the e2e tests run: the kernel's
  // fixed-width vectors span several registers at 128 bits, part of one at
  // 512.
  std::vector<Param> list = {{"x86", "avx2"},     {"neon", "dotprod"},
                             {"sve", ""},         {"rvv", "rv64gv", 128},
                             {"rvv", "rv64gv", 512}};
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512vnni"))
    list.push_back({"x86", "avx512vnni"});
  return list;
}

// The checks the program runs (and prints one line for): 8 configurations x
// 2 cache types x 2 thread counts x 5 calls, and the conversions.
constexpr int kChecks = 8 * 2 * 2 * 5 + 1;

const char *kProgram = R"c(
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;
static float uniform(void) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return (float)((rng >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f;
}

#define TOL 2e-5f
static int failures;
static uint32_t kv_dtype; /* of the configurations being run */

static uint16_t half_bits(float x) {
  _Float16 h = (_Float16)x;
  uint16_t b;
  memcpy(&b, &h, 2);
  return b;
}

/* kiln_g_to_f16 and kiln_g_f16 against the hardware's conversions. */
static void conversions(void) {
  int bad = 0;
  for (uint32_t b = 0; b < 65536; ++b) { /* every half, widened */
    _Float16 h;
    uint16_t u = (uint16_t)b;
    memcpy(&h, &u, 2);
    float want = (float)h, got = kiln_g_f16(u);
    if ((u & 0x7c00u) == 0x7c00u && (u & 0x3ffu)) {
      bad += got == got; /* NaN stays NaN */
      continue;
    }
    bad += memcmp(&want, &got, 4) != 0;
  }
  const float edges[] = {0.0f, -0.0f, 1.0f, 65504.0f, 65519.99f, 65520.0f,
                         -65520.0f, 1e9f, 6.1035156e-05f, 6.1035152e-05f,
                         5.9604645e-08f, 2.9802322e-08f, 2.9802326e-08f,
                         8.940697e-08f, 1.0f + 1.0f / 2048.0f,
                         1.0f + 3.0f / 2048.0f, -3.0517578e-05f};
  for (unsigned i = 0; i < sizeof edges / sizeof *edges; ++i)
    bad += half_bits(edges[i]) != kiln_g_to_f16(edges[i]);
  uint32_t worst = 0;
  for (int i = 0; i < 2000000; ++i) { /* random floats, all exponents */
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    uint32_t u = (uint32_t)(rng >> 32);
    if ((u & 0x7f800000u) == 0x7f800000u) continue; /* inf and NaN: above */
    if ((u & 0x7f800000u) > 0x48000000u) u &= 0xc7ffffffu; /* mostly in range */
    float x;
    memcpy(&x, &u, 4);
    if (half_bits(x) != kiln_g_to_f16(x)) { ++bad; worst = u; }
  }
  float inf = 1e30f * 1e30f, nan = inf - inf;
  bad += kiln_g_to_f16(inf) != 0x7c00u || kiln_g_to_f16(-inf) != 0xfc00u;
  bad += (kiln_g_to_f16(nan) & 0x7fffu) <= 0x7c00u;
  failures += bad != 0;
  printf("%s conversions: %d mismatches (last 0x%08x)\n", bad ? "FAIL" : "ok", bad, worst);
}

/* One call of both kernels on `rows` rows; grows the sequences first and
 * advances them after, as the generated forward does. */
static void call(kiln_ctx *ctx, const char *what, int heads, int kv_heads,
                 int D, float sharp, int rows, const int32_t *seq,
                 const uint32_t *pos) {
  const int qw = heads * D, kvw = kv_heads * D;
  float *q = malloc(sizeof(float) * rows * qw), *k = malloc(sizeof(float) * rows * kvw);
  float *v = malloc(sizeof(float) * rows * kvw), *og = malloc(sizeof(float) * rows * qw);
  float *ot = malloc(sizeof(float) * rows * qw);
  float *scores = malloc(sizeof(float) * ctx->layout.context);
  for (int i = 0; i < rows * qw; ++i) { q[i] = 2.0f * sharp * uniform(); ot[i] = 1e30f; }
  for (int i = 0; i < rows * kvw; ++i) { k[i] = 2.0f * uniform(); v[i] = uniform(); }
  for (int r = 0; r < rows; ++r) {
    int first = 1;
    for (int p = 0; p < r; ++p) first &= seq[p] != seq[r];
    if (first) {
      int n = 0;
      for (int p = r; p < rows; ++p) n += seq[p] == seq[r];
      kiln_seq_grow(ctx, seq[r], (size_t)n);
    }
  }
  const float scale = 1.0f / __builtin_sqrtf((float)D);
  const size_t row_bytes = (size_t)kvw * kiln_kv_elem_bytes(&ctx->layout);
  uint8_t *stored = malloc(2 * rows * row_bytes);
  int same = 1;
  for (uint32_t layer = 0; layer < ctx->layout.n_layers; ++layer) {
    kiln_attention_f32_generic(ctx, layer, seq, pos, q, k, v, rows, heads, kv_heads, D, scale, og, scores);
    for (int r = 0; r < rows; ++r)
      for (uint32_t w = 0; w < 2; ++w)
        memcpy(stored + (2 * r + w) * row_bytes, kiln_kv_at(ctx, seq[r], layer, w, pos[r]), row_bytes);
    kiln_attention_f32_tiled(ctx, layer, seq, pos, q, k, v, rows, heads, kv_heads, D, scale, ot, scores);
    for (int r = 0; r < rows; ++r)
      for (uint32_t w = 0; w < 2; ++w)
        same &= !memcmp(stored + (2 * r + w) * row_bytes, kiln_kv_at(ctx, seq[r], layer, w, pos[r]), row_bytes);
  }
  free(stored);
  for (int r = 0; r < rows; ++r) ctx->seqs[seq[r]].length++;
  float diff = 0, mag = 0;
  for (int i = 0; i < rows * qw; ++i) {
    float d = ot[i] - og[i], m = og[i];
    d = d < 0 ? -d : d; m = m < 0 ? -m : m;
    if (!(d <= diff)) diff = d; /* NaN propagates */
    if (m > mag) mag = m;
  }
  int ok = diff <= TOL * mag && mag > 0 && same;
  failures += !ok;
  printf("%s kv=%s heads=%d kv_heads=%d head_dim=%d block=%u threads=%u %s: max diff %g of %g%s\n",
         ok ? "ok" : "FAIL", kv_dtype == KILN_KV_F16 ? "f16" : "f32", heads, kv_heads, D,
         ctx->layout.kv_block, ctx->threads, what, diff, mag,
         same ? "" : ", stored rows differ");
  free(q); free(k); free(v); free(og); free(ot); free(scores);
}

static void config(int heads, int kv_heads, int D, uint32_t block, float sharp) {
  for (uint32_t threads = 1; threads <= 2; ++threads) {
    kiln_layout l = {0};
    l.abi_version = KILN_ABI_VERSION; l.struct_size = sizeof l; l.n_layers = 2;
    l.kv_width = (uint32_t)(kv_heads * D); l.context = 96; l.max_seqs = 3;
    l.kv_block = block; l.kv_blocks = 3 * ((96 + block - 1) / block);
    l.activation_bytes = 64; l.max_threads = 2; l.kv_dtype = kv_dtype;
    size_t bytes = kiln_arena_bytes(&l);
    void *arena = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    kiln_ctx ctx;
    if (!bytes || !arena || kiln_ctx_init(&ctx, &l, arena, bytes) != KILN_OK ||
        kiln_threads_start(&ctx, threads) != KILN_OK) {
      printf("FAIL setup\n"); ++failures; return;
    }
    int32_t s[3];
    for (int i = 0; i < 3; ++i) kiln_seq_open(&ctx, &s[i]);
    int32_t seq[64]; uint32_t pos[64];
    for (int r = 0; r < 37; ++r) { seq[r] = s[0]; pos[r] = (uint32_t)r; }
    call(&ctx, "prefill 37 rows", heads, kv_heads, D, sharp, 37, seq, pos);
    for (int r = 0; r < 20; ++r) { seq[r] = s[0]; pos[r] = 37u + (uint32_t)r; }
    call(&ctx, "second chunk of 20", heads, kv_heads, D, sharp, 20, seq, pos);
    for (int r = 0; r < 5; ++r) { seq[r] = s[1]; pos[r] = (uint32_t)r; }
    seq[5] = s[2]; pos[5] = 0;
    call(&ctx, "runs of two sequences", heads, kv_heads, D, sharp, 6, seq, pos);
    seq[0] = s[2]; pos[0] = 1; seq[1] = s[0]; pos[1] = 57; seq[2] = s[1]; pos[2] = 5;
    call(&ctx, "batched decode", heads, kv_heads, D, sharp, 3, seq, pos);
    seq[0] = s[0]; pos[0] = 58;
    call(&ctx, "decode", heads, kv_heads, D, sharp, 1, seq, pos);
    kiln_threads_stop(&ctx);
    free(arena);
  }
}

int main(void) {
  conversions();
  for (int t = 0; t < 2; ++t) {
    kv_dtype = t ? KILN_KV_F16 : KILN_KV_F32;
    config(16, 4, 64, 16, 1.0f);
    config(8, 1, 32, 5, 1.0f);
    config(4, 4, 128, 16, 1.0f);
    config(6, 2, 48, 7, 1.0f);
    config(16, 2, 16, 96, 1.0f);  /* one block per sequence (contiguous) */
    config(2, 1, 8, 3, 40.0f);    /* peaked scores: exp underflows to 0 */
    config(32, 1, 16, 4, 1.0f);   /* a group wider than the vector */
    config(4, 2, 10, 5, 1.0f);    /* output dimensions past the last 8 (4) */
  }
  return failures != 0;
}
)c";

class AttentionKernel : public ::testing::TestWithParam<Param> {};

TEST_P(AttentionKernel, MatchesGenericKernel) {
  const Param &p = GetParam();
  TargetOptions options;
  options.cpu = p.cpu;
  std::string error;
  auto target = createTarget(p.target, options, error);
  ASSERT_TRUE(target) << error;

  char tmpl[] = "/tmp/kiln-attention-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::string out;
  runProgram({"mkdir", "-p", dir + "/kiln"}, "", out);
  auto write = [&](const std::string &name, const std::string &text) {
    FILE *f = fopen((dir + "/" + name).c_str(), "w");
    ASSERT_NE(f, nullptr) << name;
    fputs(text.c_str(), f);
    fclose(f);
  };
  write("kiln/kiln.h", embeddedSource("kiln.h"));
  write("kiln_runtime.c", embeddedSource("kiln_runtime.c"));
  write("kiln_threads.c", embeddedSource("kiln_threads.c"));
  write("check.c", "#include \"kiln/kiln.h\"\n" + target->kernelSource() +
                       "\n" + kProgram);
  std::vector<std::string> objects;
  for (const char *src : {"check", "kiln_runtime", "kiln_threads"}) {
    std::vector<std::string> cc = {KILN_DEFAULT_CC};
    for (const auto &f : target->cflags())
      cc.push_back(f);
    // The program's reference conversions are binary16 hardware ones; RVV
    // has them with Zfh (the kernels use integer bit operations for f16, so
    // the extension changes nothing else).
    if (p.target == "rvv")
      cc.push_back("-march=rv64gv_zfh");
    cc.insert(cc.end(), {"-DKILN_THREADS", "-I.", "-c", std::string(src) + ".c",
                         "-o", std::string(src) + ".o"});
    ASSERT_EQ(runProgram(cc, dir, out), 0) << joinCommand(cc) << "\n" << out;
    objects.push_back(std::string(src) + ".o");
  }
  auto link = target->linkCommand(objects, "check");
  link.push_back("-lpthread");
  ASSERT_EQ(runProgram(link, dir, out), 0) << joinCommand(link) << "\n" << out;
  std::vector<std::string> run = target->runPrefix(p.vectorBits);
  if (p.target == "rvv")
    for (std::string &arg : run)
      if (arg.rfind("rv64,", 0) == 0)
        arg += ",Zfh=true";
  run.push_back(dir + "/check");
  const int rc = runProgram(run, dir, out);
  EXPECT_EQ(rc, 0) << out;
  std::printf("%s", out.c_str()); // the measured differences, for the log
  int ok = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    ok += line.rfind("ok ", 0) == 0;
  EXPECT_EQ(ok, kChecks) << out;
  runProgram({"rm", "-rf", dir}, "", out);
}

INSTANTIATE_TEST_SUITE_P(Isa, AttentionKernel, ::testing::ValuesIn(params()),
                         [](const auto &info) {
                           const Param &p = info.param;
                           return p.target + (p.cpu.empty() ? "" : "_" + p.cpu) +
                                  (p.vectorBits ? "_" + std::to_string(p.vectorBits)
                                                : "");
                         });
} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
