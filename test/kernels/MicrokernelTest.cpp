//===- MicrokernelTest.cpp - ISA microkernels against the scalar kernels --===//
//
// For every (target, weight type) with an ISA matmul microkernel: quantize
// random weights, pack them with the target's packWeight, and build one program
// for the target that runs both the microkernel and the portable scalar kernel
// (kernels_q8.c, on the unpacked GGML weights) over awkward shapes: one row,
// N not a multiple of any tile, K of one block, an all-zero activation block.
// The program runs natively or under qemu-user at each vector length the
// target is tested at. Integer products are exact, so the only difference is
// the order of float sums: max |isa - scalar| <= 1e-5 * max |scalar|. The
// float-weight kernels round every product, so theirs is held to 1e-5 of the
// largest sum of |w x| instead: a row whose terms cancel has a small output
// and the same rounding.
// The activation quantizer the target's kernels share (kiln_q8_rows, vectorized
// on x86) must give exactly the bytes of the frontend's GGML Q8_0 quantizer,
// ties (x / d = n + 0.5) rounded away from zero included.
//
#include "compiler/support/Quant.h"
#include "kernels/Embedded.h"
#include "compiler/targets/IsaTarget.h"
#include "compiler/support/Process.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace kiln;

namespace {
constexpr double kTol = 1e-5;

struct Param {
  std::string target, type, kernel;
};

void PrintTo(const Param &p, std::ostream *os) { *os << p.kernel; }

// Every matmul microkernel of the kernel table (kernels/kernels.def), at each
// CPU level of its ISA that selects it; x86 at AVX-512 VNNI only when this
// host can run it, RVV without compressed code (see below).
std::vector<Param> params() {
  std::vector<Param> list;
  __builtin_cpu_init();
  const bool vnni = __builtin_cpu_supports("avx512vnni");
  for (const kernels::MatMulKernel &k : kernels::matmulKernels())
    for (const kernels::CpuLevel &l : kernels::cpuLevels()) {
      const std::string isa = l.isa, cpu = l.cpu;
      if (isa != k.isa || kernels::matmulKernel(l, k.weight) != &k ||
          (isa == "rvv" && l.has("c")) || (cpu == "avx512vnni" && !vnni))
        continue;
      list.push_back({cpu.empty() ? isa : isa + ":" + cpu, k.weight, k.name});
    }
  return list;
}

struct Shape {
  int rows, N, K;
  // Weights times this: 1e-4 (1e-3 for the K-quants, whose super-block
  // scales are smaller still) makes the f16 block scales subnormal (below
  // 6.1e-5), which every kernel must widen exactly; the bias is then zero.
  float weightScale = 1.0f;
  // Block scales far apart: weights (1) or activations (2) of every block
  // but each sixteenth (weights) or eighth (activations) times 2^-9, so
  // that the small blocks carry a few percent of each output. HVX's fixed
  // point keeps a scale's mantissa whole however far it is from the row's
  // or the chunk's largest; one that lost bits fails here. 3 (float
  // kernels): weights of +infinity, NaN and -infinity in three rows, which
  // the ISA kernel must carry into those rows' outputs as the scalar one
  // does (RVV widens f16 in integers and keeps them by hand). 4: an
  // activation of +infinity, NaN and -infinity in three of four rows, whose rows'
  // outputs the scalar kernel makes infinite or NaN: the ISA kernel's must
  // be infinite or NaN too (HVX's fixed point makes them NaN).
  int spread = 0;
};

uint64_t rng = 88172645463325252ull;
float uniform() {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (float)((rng >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f;
}

template <typename T> void hexArray(std::ostream &os, const char *ctype,
                                    const std::string &name,
                                    const std::vector<T> &v) {
  os << "static const " << ctype << " " << name << "[] = {";
  for (size_t i = 0; i < v.size(); ++i)
    os << (i % 16 ? "" : "\n  ") << "0x" << std::hex << (uint64_t)v[i]
       << std::dec << "u,";
  if (v.empty())
    os << "0";
  os << "};\n";
}

class Microkernel : public ::testing::TestWithParam<Param> {};

TEST_P(Microkernel, MatchesScalarKernel) {
  const Param &p = GetParam();
  std::string targetName = p.target.substr(0, p.target.find(':'));
  TargetOptions options;
  // rvv: qemu 7.2 aborts on page-straddling RVV code, so no compressed code.
  if (p.target.find(':') != std::string::npos)
    options.cpu = p.target.substr(p.target.find(':') + 1);
  std::string error;
  auto target = createTarget(targetName, options, error);
  ASSERT_TRUE(target) << error;
  auto type = gguf::typeFromName(p.type);
  ASSERT_TRUE(type);
  const bool kquant = gguf::typeTraits(*type)->blockSize == 256;
  std::vector<Shape> shapes =
      kquant ? std::vector<Shape>{{1, 1, 256}, {1, 33, 512}, {3, 7, 256},
                                  {5, 16, 256}, {2, 17, 512}, {4, 64, 256},
                                  {1, 117, 512}, {2, 19, 256, 1e-3f},
                                  // NEON i8mm: 7 rows, then 8 and 3.
                                  {7, 9, 256}, {11, 6, 512},
                                  // RVV: two full 128-row tiles and a
                                  // partial one.
                                  {1, 300, 256},
                                  // 9 super-blocks: HVX's passes of 4,
                                  // 4 and 1 over each tile.
                                  {2, 40, 2304}, {2, 40, 256, 1.0f, 3},
                                  {4, 40, 512, 1.0f, 4}}
             : std::vector<Shape>{{1, 1, 32}, {1, 33, 256}, {3, 7, 96},
                                  {5, 16, 256}, {2, 17, 512}, {4, 64, 64},
                                  // Decode, one row over many groups: on x86
                                  // the walks of 4 and 2 groups at once, a
                                  // single group and a ragged tail (groups
                                  // of 16: 4 + 2 + 1 + 5 rows; of 8:
                                  // 3 x 4 + 2 + 5 rows).
                                  {1, 117, 96},
                                  // Row groups of 8 (NEON i8mm): 7 rows,
                                  // then 8 and 3.
                                  {7, 9, 64}, {11, 6, 96},
                                  // x86 AVX-512 Q4_0/Q8_0: two tiles of 4
                                  // at once (8 rows), then 4 and 1.
                                  {13, 20, 64},
                                  {2, 19, 64, 1e-4f}, {1, 300, 64},
                                  {2, 40, 1024, 1.0f, 1}, {2, 40, 1024, 1.0f, 2},
                                  {2, 40, 256, 1.0f, 3}, {4, 40, 512, 1.0f, 4}};

  // Float-weight kernels take any K: tails of the vector loop too.
  const kernels::MatMulKernel *row = kernels::matmulKernelNamed(p.kernel);
  const bool floatKernel = row && std::string(row->quantizer) == "none";
  // Kernels that read Q8_K activations: against the portable Q8_K kernel.
  const bool q8k = row && std::string(kernels::activationOf(*row)) == "q8_k";
  const std::string act = q8k ? "q8_k" : "q8_0";
  if (floatKernel)
    shapes.insert(shapes.end(),
                  {{3, 5, 37}, {1, 9, 1}, {6, 3, 70}, {2, 5, 40, 1.0f, 3}, {4, 5, 40, 1.0f, 4}});

  std::ostringstream os;
  os << "#include \"kiln/kiln.h\"\n" << target->kernelSource() << "\n"
     << "#define Q8_KERNEL " << (floatKernel ? 0 : 1) << "\n"
     << (q8k ? "#define Q8_ROWS kiln_q8k_rows\n#define Q8_ROW_BYTES(K) ((K) / 256 * 292)\n"
             : "#define Q8_ROWS kiln_q8_rows\n#define Q8_ROW_BYTES(K) ((K) / 32 * 34)\n");
  size_t maxOut = 0, maxScratch = 0, maxN = 0, maxPacked = 0;
  for (size_t c = 0; c < shapes.size(); ++c) {
    const Shape &s = shapes[c];
    std::vector<float> wf((size_t)s.N * s.K), x((size_t)s.rows * s.K), bias(s.N);
    for (float &v : wf)
      v = s.weightScale * uniform();
    for (float &v : x)
      v = 4.0f * uniform();
    for (size_t i = 0; s.spread == 1 && i < wf.size(); ++i)
      if ((i % s.K) / 32 % 16 != 0)
        wf[i] *= 0x1p-9f;
    for (size_t i = 0; s.spread == 2 && i < x.size(); ++i)
      if ((i % s.K) / 32 % 8 != 0)
        x[i] *= 0x1p-9f;
    if (s.spread == 3) {
      wf[1 * s.K + 3] = INFINITY;
      wf[2 * s.K + 17] = NAN;
      wf[4 * s.K + 39] = -INFINITY;
    }
    if (s.spread == 4) { // one activation row each
      x[0 * s.K + s.K - 3] = INFINITY;
      x[1 * s.K + 1] = NAN;
      x[2 * s.K + s.K / 2] = -INFINITY;
    }
    if (c == 2) { // an all-zero activation block: d = 0
      std::fill(x.begin(), x.begin() + 32, 0.0f);
      // A block with d = 1 exactly (amax 127) whose values are ties.
      const float ties[8] = {127.0f, 2.5f, -3.5f, 0.5f, -0.5f, 126.5f, -1.5f, 0.0f};
      for (int j = 0; j < 32; ++j)
        x[32 + j] = ties[j % 8] * (j % 16 < 8 ? 1.0f : -1.0f);
    }
    for (float &v : bias)
      v = s.weightScale == 1.0f ? uniform() : 0.0f;
    std::vector<uint8_t> ggml(gguf::rowBytes(*type, (int64_t)wf.size()));
    gguf::quantize(*type, wf.data(), ggml.data(), (int64_t)wf.size());
    std::vector<uint8_t> packed;
    ASSERT_TRUE(target->packWeight(p.kernel, s.N, s.K, ggml.data(), ggml.size(),
                                   packed, error))
        << error;
    // RVV's K-quant and IQ4_XS layouts keep the scales in the file's form
    // (f16, packed 6-bit), so the packed weight is no larger than the file's.
    if (targetName == "rvv" && ((p.type.size() == 4 && p.type[0] == 'q' &&
                                 p.type[3] == 'k') || // q2_k .. q6_k
                                p.type == "iq4_xs"))
      EXPECT_LE(packed.size(), ggml.size()) << p.kernel;
    // HVX's K-quant and IQ4_XS layouts unpack at most Q3_K's 12 scale bytes
    // to 16 and widen an f16 d to f32 (116 bytes a row and super-block
    // against 110), and end in 128 bytes of padding.
    if (targetName == "hvx" && ((p.type.size() == 4 && p.type[0] == 'q' &&
                                 p.type[3] == 'k') ||
                                p.type == "iq4_xs"))
      EXPECT_LE(packed.size(), ggml.size() * 116 / 110 + 128) << p.kernel;
    std::vector<uint8_t> q8; // the activations as GGML's Q8_0 / Q8_K blocks
    if (q8k) {
      q8.resize((size_t)(x.size() / 256 * gguf::kQ8KBlockBytes));
      gguf::quantizeQ8K(x.data(), q8.data(), (int64_t)x.size());
    } else if (!floatKernel) {
      q8.resize(gguf::rowBytes(*gguf::typeFromName("q8_0"), (int64_t)x.size()));
      gguf::quantize(*gguf::typeFromName("q8_0"), x.data(), q8.data(),
                     (int64_t)x.size());
    }
    std::vector<uint32_t> xbits(x.size()), bbits(bias.size());
    std::memcpy(xbits.data(), x.data(), x.size() * 4);
    std::memcpy(bbits.data(), bias.data(), bias.size() * 4);
    std::string n = std::to_string(c);
    hexArray(os, "uint8_t", "w_ggml" + n, ggml);
    // Float weights with their sign bits cleared, for the bound above.
    std::vector<uint8_t> wabs;
    if (floatKernel) {
      const size_t elem = ggml.size() / wf.size();
      wabs = ggml;
      for (size_t i = elem - 1; i < wabs.size(); i += elem)
        wabs[i] &= 0x7f;
    }
    hexArray(os, "uint8_t", "w_abs" + n, wabs);
    hexArray(os, "uint8_t", "w_packed" + n, packed);
    hexArray(os, "uint32_t", "x_bits" + n, xbits);
    hexArray(os, "uint32_t", "b_bits" + n, bbits);
    hexArray(os, "uint8_t", "x_q8" + n, q8);
    maxPacked = std::max(maxPacked, packed.size());
    maxOut = std::max(maxOut, (size_t)s.rows * s.N);
    maxN = std::max(maxN, (size_t)s.N);
    maxScratch = std::max(
        maxScratch,
        (size_t)(s.rows * std::max(kernels::activationRowBytes(act, s.K),
                                   row ? kernels::scratchRowBytes(*row, s.K) : 0)) +
            64);
  }
  size_t maxX = 0;
  for (const Shape &sh : shapes)
    maxX = std::max(maxX, (size_t)sh.rows * sh.K);
  os << "static float xa[" << maxX << "], y_abs[" << maxOut << "];\n";
  os << "static float xf[" << maxX << "], bf[" << maxN << "], y_ref[" << maxOut
     << "], y_isa[" << maxOut << "];\n"
     << "static _Alignas(64) uint8_t scratch[" << maxScratch + 64 << "];\n"
     << "static _Alignas(64) uint8_t wcopy[" << maxPacked + 64 << "];\n";
  os << programIoSource(target->hosted());
  os << R"c(static void put_hex(uint32_t v) {
  char t[9];
  for (int i = 0; i < 8; ++i) t[i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
  t[8] = ' ';
  out(t, 9);
}
static void put_float(float f) { union { float f; uint32_t u; } v = {f}; put_hex(v.u); }
static void check(const uint32_t *xb, const uint32_t *bb, const uint8_t *wg,
                  const uint8_t *wa, const uint8_t *wp, unsigned long wp_bytes,
                  const uint8_t *xq, int rows, int N, int K, int loose) {
  for (int i = 0; i < rows * K; ++i) { union { uint32_t u; float f; } v = {xb[i]}; xf[i] = v.f; }
  for (int i = 0; i < N; ++i) { union { uint32_t u; float f; } v = {bb[i]}; bf[i] = v.f; }
  /* Packed weights are read from 64-byte aligned memory, as in the blob. */
  for (unsigned long i = 0; i < wp_bytes; ++i) wcopy[i] = wp[i];
)c";
  // Float-weight kernels against the portable f32 kernel.
  if (floatKernel)
    os << "  kiln_matmul_" << p.type << "_f32_generic(xf, rows, K, wg, N, bf, y_ref);\n"
       << "  kiln_" << p.kernel << "(xf, rows, K, wcopy, N, bf, y_isa);\n"
       << "  for (int i = 0; i < rows * K; ++i) {\n"
       << "    union { float f; uint32_t u; } v = {xf[i]};\n"
       << "    v.u &= 0x7fffffffu;\n    xa[i] = v.f;\n  }\n"
       << "  kiln_matmul_" << p.type << "_f32_generic(xa, rows, K, wa, N, 0, y_abs);\n";
  else
    os << "  kiln_matmul_" << p.type << "_" << act
       << "_generic(xf, rows, K, wg, N, bf, y_ref, scratch);\n"
       << "  kiln_" << p.kernel << "(xf, rows, K, wcopy, N, bf, y_isa, scratch);\n";
  os
     << R"c(  float diff = 0, mag = 0;
  uint32_t unalike = 0; /* outputs infinite or NaN in y_ref, not so in y_isa */
  for (int i = 0; i < rows * N; ++i) {
    if (y_ref[i] - y_ref[i] != 0.0f) {
      /* loose: infinite or NaN, either */
      unalike += loose ? y_isa[i] - y_isa[i] == 0.0f
                       : !(y_ref[i] == y_isa[i] || (y_ref[i] != y_ref[i] && y_isa[i] != y_isa[i]));
      continue;
    }
    float d = y_isa[i] - y_ref[i], m = Q8_KERNEL ? y_ref[i] : y_abs[i];
    d = d < 0 ? -d : d; m = m < 0 ? -m : m;
    if (!(d <= diff)) diff = d;  /* NaN propagates */
    if (m > mag) mag = m;
  }
  /* The activation quantizer against GGML's Q8_0 (Q8_K) bytes. */
  uint32_t bad = 0;
  if (Q8_KERNEL) {
    const uint8_t *q = (const uint8_t *)Q8_ROWS(xf, rows, K, scratch);
    for (int i = 0; i < rows * Q8_ROW_BYTES(K); ++i) bad += q[i] != xq[i];
  }
  put_float(diff); put_float(mag); put_hex(bad); put_hex(unalike); out("\n", 1);
}
static int run(void) {
)c";
  for (size_t c = 0; c < shapes.size(); ++c) {
    std::string n = std::to_string(c);
    os << "  check(x_bits" << n << ", b_bits" << n << ", w_ggml" << n
       << ", w_abs" << n
       << ", w_packed" << n << ", sizeof w_packed" << n << ", x_q8" << n << ", "
       << shapes[c].rows
       << ", " << shapes[c].N << ", " << shapes[c].K << ", "
       << (shapes[c].spread == 4) << ");\n";
  }
  os << "  return 0;\n}\n";
  os << programEntrySource(target->hosted());

  char tmpl[] = "/tmp/kiln-ukernel-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  std::string out;
  runProgram({"mkdir", "-p", dir + "/kiln"}, "", out);
  {
    FILE *f = fopen((dir + "/check.c").c_str(), "w");
    fputs(os.str().c_str(), f);
    fclose(f);
    f = fopen((dir + "/kiln/kiln.h").c_str(), "w");
    fputs(embeddedSource("kiln.h").c_str(), f);
    fclose(f);
  }
  std::vector<std::string> cc = {KILN_DEFAULT_CC};
  for (const auto &f : target->cflags())
    cc.push_back(f);
  // x86: panels of 32 activation blocks, so shapes of 5 rows run two panels
  // (a tile of 4 rows, then one of 1) through the tiled activations.
  if (targetName == "x86")
    cc.push_back("-DKILN_X86_PANEL_BLOCKS=32");
  cc.insert(cc.end(), {"-I.", "-c", "check.c", "-o", "check.o"});
  ASSERT_EQ(runProgram(cc, dir, out), 0) << joinCommand(cc) << "\n" << out;
  auto link = target->linkCommand({"check.o"}, "check");
  ASSERT_EQ(runProgram(link, dir, out), 0) << joinCommand(link) << "\n" << out;
  for (int64_t bits : target->testVectorBits()) {
    auto run = target->runPrefix(bits);
    run.push_back(dir + "/check");
    ASSERT_EQ(runProgram(run, dir, out), 0) << joinCommand(run) << "\n" << out;
    std::istringstream in(out);
    for (size_t c = 0; c < shapes.size(); ++c) {
      std::string d, m, q, u;
      ASSERT_TRUE(in >> d >> m >> q >> u) << out;
      EXPECT_EQ(std::stoul(u, nullptr, 16), 0u)
          << p.kernel << ": outputs infinite or NaN in the scalar kernel that "
          << "are not so in this one, rows=" << shapes[c].rows
          << " K=" << shapes[c].K << " vector bits " << bits;
      // GGML's quantizer turns an infinite or NaN activation into bytes by
      // float-to-integer conversions C leaves undefined; they are not compared.
      if (shapes[c].spread != 4)
        EXPECT_EQ(std::stoul(q, nullptr, 16), 0u)
          << "bytes of the activation quantizer that differ from GGML's " << act
          << ", rows="
          << shapes[c].rows << " K=" << shapes[c].K << " vector bits " << bits;
      uint32_t db = std::stoul(d, nullptr, 16), mb = std::stoul(m, nullptr, 16);
      float diff, mag;
      std::memcpy(&diff, &db, 4);
      std::memcpy(&mag, &mb, 4);
      EXPECT_GT(mag, 0.0f);
      EXPECT_LE(diff, kTol * mag)
          << p.kernel << " rows=" << shapes[c].rows << " N=" << shapes[c].N
          << " K=" << shapes[c].K << " vector bits " << bits;
    }
  }
  runProgram({"rm", "-rf", dir}, "", out);
}

// No (ISA level, quantized weight type) pair falls back to the portable
// scalar kernels of kernels_q8.c on the decode path: every CPU level of every
// ISA but the generic target selects a microkernel for each weight type some
// ISA quantizes activations for.
TEST(KernelTable, EveryCpuLevelHasAMicrokernelForEveryQuantizedType) {
  std::set<std::string> types;
  for (const kernels::MatMulKernel &k : kernels::matmulKernels())
    if (kernels::hasQ8Activations(k.weight))
      types.insert(k.weight);
  EXPECT_GE(types.size(), 11u);
  for (const kernels::CpuLevel &l : kernels::cpuLevels())
    for (const std::string &t : types)
      if (std::string(l.isa) != "generic")
        EXPECT_NE(kernels::matmulKernel(l, t), nullptr)
          << l.isa << " --cpu=" << l.cpu << " has no " << t << " microkernel";
}

// The same for float weights (F32, F16, BF16 files, and the F16 output and
// embedding matrices of quantized ones) on every ISA with float vectors:
// all but the generic target and HVX, whose v67 vector unit has no float
// arithmetic (there kilnc --report names the portable kernel).
TEST(KernelTable, EveryFloatVectorIsaHasFloatWeightKernels) {
  for (const kernels::CpuLevel &l : kernels::cpuLevels())
    for (const char *t : {"f32", "f16", "bf16"}) {
      const std::string isa = l.isa;
      if (isa == "generic" || isa == "hvx")
        continue;
      const kernels::MatMulKernel *k = kernels::matmulKernel(l, t);
      EXPECT_TRUE(k && std::string(k->quantizer) == "none")
          << isa << " --cpu=" << l.cpu << " has no " << t << " kernel";
    }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Microkernel);
INSTANTIATE_TEST_SUITE_P(Isa, Microkernel, ::testing::ValuesIn(params()),
                         [](const auto &info) {
                           std::string n = info.param.target + "_" +
                                           info.param.type + "_" +
                                           info.param.kernel;
                           for (char &c : n)
                             if (!isalnum((unsigned char)c))
                               c = '_';
                           return n;
                         });
} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
