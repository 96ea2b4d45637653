//===- KernelTable.cpp - the ISA kernels of kernels.def, for the compiler --===//
#include "kernels/KernelTable.h"

#include "kernels/CpuNames.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

using namespace kiln::kernels;

bool CpuLevel::has(const std::string &feature) const {
  if (feature.empty())
    return true;
  std::istringstream words(features);
  for (std::string w; words >> w;)
    if (w == feature)
      return true;
  return false;
}

bool CpuLevel::covers(const CpuLevel &other) const {
  std::istringstream words(other.features);
  for (std::string w; words >> w;)
    if (!has(w))
      return false;
  return true;
}

const std::vector<CpuLevel> &kiln::kernels::cpuLevels() {
  static const std::vector<CpuLevel> rows = {
#define KILN_CPU(ISA, CPU, FEATURES) {#ISA, CPU, FEATURES},
#include "kernels/kernels.def"
  };
  return rows;
}

const std::vector<MatMulKernel> &kiln::kernels::matmulKernels() {
  static const std::vector<MatMulKernel> rows = {
#define KILN_MATMUL(ISA, FEATURE, WEIGHT, NAME, MR, NR, PACKER, QUANTIZER)     \
  {#ISA, FEATURE, #WEIGHT, #NAME, MR, NR, #PACKER, #QUANTIZER},
#include "kernels/kernels.def"
  };
  return rows;
}

const std::vector<AttentionKernel> &kiln::kernels::attentionKernels() {
  static const std::vector<AttentionKernel> rows = {
#define KILN_ATTENTION(ISA, FEATURE, NAME, MAX_HEAD_DIM)                       \
  {#ISA, FEATURE, #NAME, MAX_HEAD_DIM},
#include "kernels/kernels.def"
  };
  return rows;
}

std::string kiln::kernels::isaList() {
  std::string s;
  for (const CpuLevel &l : cpuLevels())
    if (s.find(l.isa) == std::string::npos)
      s += (s.empty() ? "" : ", ") + std::string(l.isa);
  return s;
}

namespace {
// The last level of `isa` in the table whose features all satisfy `has`.
template <typename Has>
const CpuLevel *bestLevel(const std::string &isa, Has has) {
  const CpuLevel *best = nullptr;
  for (const CpuLevel &l : cpuLevels()) {
    if (isa != l.isa)
      continue;
    std::istringstream words(l.features);
    bool all = true;
    for (std::string w; words >> w;)
      all &= has(w);
    if (all)
      best = &l;
  }
  return best;
}

std::string levelsOf(const std::string &isa) {
  std::string s;
  for (const CpuLevel &l : cpuLevels())
    if (isa == l.isa)
      s += (s.empty() ? "" : ", ") + std::string(l.cpu);
  return s;
}

// The x86 level this machine's CPU runs.
const CpuLevel *cpuidLevel() {
  __builtin_cpu_init();
  return bestLevel("x86", [](const std::string &feature) {
    if (feature == "avx2")
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (feature == "avx512vnni")
      return __builtin_cpu_supports("avx512vnni") &&
             __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl");
    return false;
  });
}

} // namespace

const CpuLevel *kiln::kernels::hostCpu(std::string &error) {
  const CpuLevel *host = cpuidLevel();
  if (!host) {
    error = "this CPU has neither AVX2+FMA nor AVX-512 VNNI";
    return nullptr;
  }
  const char *cap = getenv("KILN_HOST_CPU");
  if (!cap || !*cap)
    return host;
  const CpuLevel *capped = findCpu("x86", cap);
  if (!capped) {
    error = "KILN_HOST_CPU=" + std::string(cap) +
            " is not an x86 level (valid: " + levelsOf("x86") + ")";
    return nullptr;
  }
  return host->covers(*capped) ? capped : host;
}

namespace {
// The level of the CPU name `cpu` (CpuNames.h).
const CpuLevel *namedLevel(const std::string &isa, const std::string &cpu,
                           std::string &error) {
  std::set<std::string> has;
  if (!cpuFeatures(isa, cpu, has, error)) {
    error = "--cpu=" + cpu + ": " + error;
    return nullptr;
  }
  // cpuFeatures refuses a CPU below the ISA's lowest level.
  return bestLevel(
      isa, [&](const std::string &feature) { return has.count(feature) > 0; });
}

} // namespace

const CpuLevel *kiln::kernels::findCpu(const std::string &isa,
                                       const std::string &cpu) {
  for (const CpuLevel &l : cpuLevels())
    if (isa == l.isa && cpu == l.cpu)
      return &l;
  return nullptr;
}

const CpuLevel *kiln::kernels::resolveCpu(const std::string &isa,
                                          const std::string &cpuOption,
                                          int64_t sveBits, std::string &error) {
  const CpuLevel *first = nullptr;
  for (const CpuLevel &l : cpuLevels())
    if (isa == l.isa) {
      first = &l;
      break;
    }
  if (!first) {
    error = "unknown target '" + isa + "' (supported: " + isaList() + ")";
    return nullptr;
  }
  if (isa != "sve" && sveBits) {
    error = "--sve-bits only applies to --target=sve";
    return nullptr;
  }
  if (isa == "sve" && sveBits != 0 &&
      (sveBits < 128 || sveBits > 2048 || (sveBits & (sveBits - 1)) != 0)) {
    error = "--sve-bits=" + std::to_string(sveBits) +
            " is not valid (valid: 128, 256, 512, 1024, 2048)";
    return nullptr;
  }
  std::string cpu = cpuOption;
  if (isa == "x86" && cpu.empty())
    cpu = "host";
  if (isa == "x86" && cpu == "host") {
    if (const CpuLevel *l = hostCpu(error))
      return l;
    error = "--cpu=host: " + error +
            "; pass --cpu=avx2 or --cpu=avx512vnni to cross-compile";
    return nullptr;
  }
  if (cpu.empty())
    return first;
  if (!first->cpu[0]) { // an ISA without levels
    error = "--cpu does not apply to --target=" + isa +
            (isa == "sve" ? " (use --sve-bits)" : "");
    return nullptr;
  }
  if (const CpuLevel *l = findCpu(isa, cpu))
    return l;
  if (isCpuName(isa, cpu))
    return namedLevel(isa, cpu, error);
  const std::string names = cpuNameExamples(isa);
  error = "--cpu=" + cpu + " is not valid for --target=" + isa + " (valid: " +
          (isa == "x86" ? "host, " : "") + levelsOf(isa) +
          (names.empty() ? "" : ", or " + names) +
          (isa == "hvx" ? "; qemu-hexagon 7.2 runs v67 and older" : "") + ")";
  return nullptr;
}

const MatMulKernel *kiln::kernels::matmulKernel(const CpuLevel &level,
                                                const std::string &weight) {
  for (const MatMulKernel &k : matmulKernels())
    if (!std::strcmp(k.isa, level.isa) && weight == k.weight &&
        level.has(k.feature))
      return &k;
  return nullptr;
}

const MatMulKernel *kiln::kernels::matmulKernelNamed(const std::string &name) {
  for (const MatMulKernel &k : matmulKernels())
    if (name == k.name)
      return &k;
  return nullptr;
}

const AttentionKernel *kiln::kernels::attentionKernel(const CpuLevel &level,
                                                      int64_t headDim) {
  for (const AttentionKernel &k : attentionKernels())
    if (!std::strcmp(k.isa, level.isa) && level.has(k.feature) &&
        headDim <= k.maxHeadDim)
      return &k;
  return nullptr;
}

bool kiln::kernels::hasQ8Activations(const std::string &weight) {
  for (const char *t : {"q8_0", "q4_0", "q4_1", "q4_k", "q6_k", "q5_0", "q5_1",
                        "q5_k", "q2_k", "q3_k", "iq4_nl", "iq4_xs"})
    if (weight == t)
      return true;
  return false;
}

const char *kiln::kernels::activationOf(const MatMulKernel &k) {
  return std::strcmp(k.quantizer, "kiln_q8k_rows") &&
                 std::strcmp(k.quantizer, "kiln_x86_q8k_rows") &&
                 std::strcmp(k.quantizer, "kiln_neon_mmk_rows")
             ? "q8_0"
             : "q8_k";
}

bool kiln::kernels::hasRowStrideEntry(const MatMulKernel &k) {
  return !std::strcmp(k.isa, "x86") && std::strcmp(k.quantizer, "none");
}

int64_t kiln::kernels::activationRowBytes(const std::string &activation,
                                          int64_t K) {
  return activation == "q8_k" ? K / 256 * 292 : K / 32 * 34;
}

int64_t kiln::kernels::scratchRowBytes(const MatMulKernel &k, int64_t K) {
  // kiln_x86_q8_tiles keeps each block's scale (f32) and sum of quants
  // (int32) beside it (KILN_X86_ROW_BYTES in kernels_x86.c).
  if (!std::strcmp(k.quantizer, "kiln_x86_q8_tiles"))
    return K / 32 * (34 + 8);
  // kiln_x86_q8k_rows keeps each Q8_K block's 32-element sums, paired as
  // four int32, after it (kiln_x86_q8kx in kernels_x86.c).
  if (!std::strcmp(k.quantizer, "kiln_x86_q8k_rows"))
    return K / 256 * (292 + 16);
  // kiln_neon_mm_rows keeps each row pair's scales as four f32 in the lane
  // order of the SMMLA sums (kernels_neon.c).
  if (!std::strcmp(k.quantizer, "kiln_neon_mm_rows"))
    return K / 32 * 40;
  // kiln_neon_mmk_rows: per row pair and super-block 512 interleaved bytes,
  // 8 x 4 int16 block sums and 4 f32 scales (kernels_neon.c).
  if (!std::strcmp(k.quantizer, "kiln_neon_mmk_rows"))
    return K / 256 * 296;
  return activationRowBytes(activationOf(k), K);
}

bool kiln::kernels::hasPortableKernel(const std::string &weight) {
  for (const char *t : {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q4_k",
                        "q6_k", "q5_0", "q5_1", "q2_k", "q3_k", "q5_k",
                        "iq4_nl", "iq4_xs"})
    if (weight == t)
      return true;
  return false;
}

bool kiln::kernels::tensorKernelHasParts(const std::string &kernel) {
  static const char *const withParts[] = {
#define KILN_TENSOR_PARTS(name) #name,
#include "kernels/tensor/kiln_tensor_kernels.def"
#undef KILN_TENSOR_PARTS
  };
  for (const char *k : withParts)
    if (kernel == k)
      return true;
  return false;
}

int64_t kiln::kernels::tensorEpilogueAt(const std::string &kernel,
                                        const int64_t *p, size_t n) {
  int64_t at = -1;
  const bool conv = kernel == "conv" || kernel == "halide_conv";
  if ((conv || kernel == "conv_transpose") && n > 0 && p[0] >= 1 && p[0] <= 6)
    at = (conv ? 7 : 6) + 6 * p[0];
  else if ((kernel == "matmul" || kernel == "halide_sgemm") && n > 4 &&
           p[4] >= 0 && p[4] <= 8)
    at = 5 + 3 * p[4];
  else if (kernel == "gemm")
    at = 9;
  else if (kernel == "conv_nchwc")
    at = 17;
  if (at < 0 || (int64_t)n < at + 1 || p[at] < 0 ||
      (int64_t)n != at + 1 + 4 * p[at])
    return -1;
  return at;
}

bool kiln::kernels::tensorMultiplyAdds(const std::string &kernel,
                                       const int64_t *p, size_t n,
                                       double &macs) {
  auto product = [&](size_t from, int64_t count) {
    double r = 1;
    for (int64_t i = 0; i < count; ++i)
      r *= (double)p[from + i];
    return r;
  };
  macs = -1;
  if (kernel == "conv" || kernel == "halide_conv") { // {nsp, N, C, M, group, chunk, direct, in, k, out}
    if (n >= 7 && p[0] >= 1 && p[0] <= 6 && n >= size_t(7 + 3 * p[0]) &&
        p[4] >= 1)
      macs = (double)p[1] * p[3] * (double)(p[2] / p[4]) *
             product(7 + p[0], p[0]) * product(7 + 2 * p[0], p[0]);
    return true;
  }
  if (kernel == "conv_nchwc") { // {N, C, M, cb, depthwise, IH, IW, KH, KW, OH, OW}
    if (n >= 11)
      macs = (double)p[0] * p[2] * (p[4] ? 1.0 : (double)p[1]) * p[7] * p[8] *
             p[9] * p[10];
    return true;
  }
  if (kernel == "conv_transpose") { // {nsp, N, C, M, group, chunk, in, k}
    if (n >= 6 && p[0] >= 1 && p[0] <= 6 && n >= size_t(6 + 2 * p[0]) &&
        p[4] >= 1)
      macs = (double)p[1] * p[2] * (double)(p[3] / p[4]) * product(6, p[0]) *
             product(6 + p[0], p[0]);
    return true;
  }
  if (kernel == "matmul" || kernel == "halide_sgemm") { // {dtype, M, N, K, R, batch}
    if (n >= 5 && p[4] >= 0 && p[4] <= 8 && n >= size_t(5 + p[4]))
      macs = (double)p[1] * p[2] * p[3] * product(5, p[4]);
    return true;
  }
  if (kernel == "gemm") { // {dtype, M, N, K, ...}
    if (n >= 4)
      macs = (double)p[1] * p[2] * p[3];
    return true;
  }
  return false;
}

bool kiln::kernels::tensorGemmShape(const std::string &kernel,
                                    const int64_t *p, size_t n, int64_t &M,
                                    int64_t &N, int64_t &K) {
  if (kernel == "matmul" || kernel == "halide_sgemm") {
    if (n < 5)
      return false;
    M = p[1], N = p[2], K = p[3];
    return true;
  }
  if (kernel != "conv" && kernel != "halide_conv")
    return false;
  if (n < 7 || p[0] < 1 || p[0] > 6 || p[4] < 1 || p[6] != 1 ||
      n < size_t(7 + 3 * p[0]))
    return false;
  M = p[3] / p[4], K = p[2] / p[4], N = 1;
  for (int64_t d = 0; d < p[0]; ++d) {
    const int64_t e = p[7 + 2 * p[0] + d];
    if (e <= 0 || N > INT64_MAX / e)
      return false;
    N *= e;
  }
  return true;
}

int64_t kiln::kernels::tensorShares(const std::string &kernel, const int64_t *p,
                                    size_t n, int64_t parts) {
  int64_t units = parts;
  if (kernel == "conv" && n >= 7 && p[0] >= 1 && p[0] <= 6 &&
      n >= size_t(7 + 3 * p[0]) && p[4] >= 1) {
    // conv_share (tensor/nn.c): {nsp, N, C, M, group, chunk, direct, in, k,
    // out}; its order of cases.
    const int64_t nsp = p[0], N = p[1], G = p[4], cg = p[2] / G, mg = p[3] / G,
                  direct = p[6];
    const int64_t *od = p + 7 + 2 * nsp;
    int64_t P = 1;
    for (int64_t i = 0; i < nsp; ++i)
      P *= od[i];
    if (direct == 2)
      units = od[0]; // output rows
    else if (nsp == 2 && cg == 1 && mg == 1 && !direct)
      units = N * G; // depthwise channels
    else if (!(P >= 64 * parts && !(direct && mg >= 64 * parts)))
      units = mg; // output channels (else positions, 64 or more a share)
  } else if (kernel == "conv_transpose" && n >= 5 && p[4] >= 1) {
    units = p[3] / p[4]; // output channels of each group
  } else if (kernel == "conv_nchwc" && n >= 11 && p[3] >= 1) {
    units = p[0] * ((p[2] + p[3] - 1) / p[3]) * p[9]; // output rows
  } else if ((kernel == "softmax" || kernel == "global_pool") && n >= 3) {
    units = p[2]; // {op, dtype, outer, ...}, {dtype, kind, NC, S}
  }
  return std::max<int64_t>(1, std::min(parts, units));
}
