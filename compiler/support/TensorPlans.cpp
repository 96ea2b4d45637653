//===- TensorPlans.cpp - how the tensor kernels run a static shape --------===//
#include "compiler/support/TensorPlans.h"

#include "compiler/support/CheckedInt.h"
#include "kernels/tensor/kiln_tensor.h"

#include <algorithm>

namespace kiln {

int64_t columnChunk(int64_t rowBytes, int64_t cols) {
  if (rowBytes <= 0 || cols <= kColumnBudget / rowBytes) // all of them
    return std::max<int64_t>(cols, 1);
  int64_t chunk = kColumnBudget / std::max<int64_t>(rowBytes, 1) / 16 * 16;
  return std::max<int64_t>(chunk, 16);
}

static CheckedInt product(const std::vector<int64_t> &v) {
  CheckedInt r = 1;
  for (int64_t x : v)
    r = r * x;
  return r;
}

bool planConv(const ConvGeometry &g, std::vector<int64_t> &params,
              int64_t &scratch) {
  const size_t n = g.in.size();
  bool direct = true;
  for (size_t d = 0; d < n; ++d)
    direct &= g.k[d] == 1 && g.stride[d] == 1 && g.padBegin[d] == 0;
  // A 1x1 kernel of stride 1 without padding reads X as the GEMM's B as it
  // is, when the output covers the whole input (no end padding either).
  for (size_t d = 0; d < n && direct; ++d)
    direct &= g.out[d] == g.in[d];
  const CheckedInt CK = product(g.k) * (g.C / g.G);
  const CheckedInt P = product(g.out);
  if (!CK.ok() || !P.ok() || !(CK * 4).ok())
    return false;
  int64_t chunk = direct ? P.value() : columnChunk(CK.value() * 4, P.value());
  // A 2-D depthwise convolution builds no columns: its scratch holds one
  // channel, each row zero-padded to the width the taps read (nn.c's
  // dw_padded_width).
  const bool depthwise = n == 2 && g.C == g.G && g.M == g.G && !direct;
  CheckedInt columns = CK * chunk;
  if (depthwise)
    columns = CheckedInt(g.in[0]) *
              ((CheckedInt(g.out[1]) - 1) * g.stride[1] +
               (CheckedInt(g.k[1]) - 1) * g.dil[1] + 1);
  // Small maps (nn.c's dw_small_map): the padded plane and the output plane.
  if (depthwise && g.stride[0] == 1 && g.stride[1] == 1 && g.out[1] < 32) {
    const CheckedInt tail = (CheckedInt(g.k[1]) - 1) * g.dil[1];
    const CheckedInt Wp = CheckedInt(g.out[1]) + tail;
    const CheckedInt Hp =
        CheckedInt(g.out[0]) + (CheckedInt(g.k[0]) - 1) * g.dil[0];
    columns = (Hp + g.out[0]) * Wp + tail;
  }
  // A 2-D convolution of stride 1 builds no columns either when its output
  // rows are wide enough that the padded row (Wp) adds at most an eighth of
  // dropped columns: nn.c's conv_shifted, the GEMM reading the taps as
  // shifted rows of a padded copy of the input rows a chunk of output rows
  // reads. Its scratch: the tap offsets, that copy (chunk + (KH - 1) * dh
  // rows of Wp per channel, sized for about 256 KiB so that it stays in L2
  // while the GEMM reads it 9 times over) and mg x chunk output rows of Wp.
  int mode = direct ? 1 : 0;
  if (n == 2 && !direct && !depthwise && g.stride[0] == 1 &&
      g.stride[1] == 1) {
    const CheckedInt Wp =
        CheckedInt(g.out[1]) + (CheckedInt(g.k[1]) - 1) * g.dil[1];
    const int64_t mg = g.M / g.G;
    const CheckedInt rowFloats = Wp * mg;
    if (rowFloats.ok() && rowFloats.value() > 0 && (Wp * 8).ok() &&
        (CheckedInt(g.out[1]) * 9).ok() && Wp.value() * 8 <= g.out[1] * 9) {
      const CheckedInt copyRow = Wp * (g.C / g.G),
                       halo = (CheckedInt(g.k[0]) - 1) * g.dil[0];
      if (copyRow.ok() && copyRow.value() > 0 && halo.ok()) {
        mode = 2;
        chunk = std::min(65536 / rowFloats.value(),
                         65536 / copyRow.value() - halo.value());
        chunk = std::clamp<int64_t>(chunk, 1, g.out[0]);
        columns = CK * 2 + copyRow * (halo + chunk) +
                  (CheckedInt(g.k[1]) - 1) * g.dil[1] +
                  CheckedInt(mg) * chunk * Wp;
      }
    }
  }
  const CheckedInt bytes = columns * 4 + kSgemmPackBytes;
  if (!bytes.ok())
    return false;
  scratch = direct ? kSgemmPackBytes : bytes.value();
  params = {(int64_t)n, g.N, g.C, g.M, g.G, chunk, mode};
  for (const std::vector<int64_t> *v :
       {&g.in, &g.k, &g.out, &g.stride, &g.dil, &g.padBegin})
    params.insert(params.end(), v->begin(), v->end());
  return true;
}

bool planConvTranspose(const ConvGeometry &g, std::vector<int64_t> &params,
                       int64_t &scratch) {
  const CheckedInt MK = CheckedInt(g.M / std::max<int64_t>(g.G, 1)) * product(g.k);
  const CheckedInt Pin = product(g.in);
  if (!MK.ok() || !Pin.ok())
    return false;
  const int64_t chunk = columnChunk(MK.value() * 4, Pin.value());
  const CheckedInt bytes = MK * chunk * 4 + kSgemmPackBytes;
  if (!bytes.ok())
    return false;
  params = {(int64_t)g.in.size(), g.N, g.C, g.M, g.G, chunk};
  for (const auto *v : {&g.in, &g.k, &g.out, &g.stride, &g.dil, &g.padBegin})
    params.insert(params.end(), v->begin(), v->end());
  scratch = bytes.value();
  return true;
}

std::vector<int64_t> denseStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int i = (int)shape.size() - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &shape,
                                      const std::vector<int64_t> &outShape) {
  std::vector<int64_t> dense = denseStrides(shape);
  std::vector<int64_t> s(outShape.size(), 0);
  size_t off = outShape.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    s[off + i] = shape[i] == 1 ? 0 : dense[i];
  return s;
}

/// Drops dimensions of size 1 and merges adjacent dimensions that every
/// operand walks as one (stride[d] == stride[d + 1] * shape[d + 1], which
/// includes broadcasting both), so the kernel's inner loop runs as long as
/// possible with constant strides: x[1, C, H, W] + bias[1, C, 1, 1] becomes
/// [C, H * W] with strides (H * W, 1) and (1, 0). The output is dense, so it
/// merges wherever the operands do. An empty tensor is left as it is.
static void mergeDims(std::vector<int64_t> &shape,
                      std::vector<std::vector<int64_t>> &strides) {
  for (int64_t d : shape)
    if (d == 0)
      return;
  std::vector<int64_t> outShape;
  std::vector<std::vector<int64_t>> out(strides.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    bool merge = !outShape.empty();
    for (size_t t = 0; merge && t < strides.size(); ++t)
      merge = out[t].back() == strides[t][d] * shape[d];
    if (merge) {
      outShape.back() *= shape[d];
      for (size_t t = 0; t < strides.size(); ++t)
        out[t].back() = strides[t][d];
      continue;
    }
    outShape.push_back(shape[d]);
    for (size_t t = 0; t < strides.size(); ++t)
      out[t].push_back(strides[t][d]);
  }
  if (outShape.empty() && !shape.empty()) { // all ones: one element
    outShape.push_back(1);
    for (auto &o : out)
      o.push_back(0);
  }
  shape = std::move(outShape);
  strides = std::move(out);
}

std::vector<int64_t> planBinary(int64_t code, int32_t ta, int32_t tb,
                                int32_t to, const std::vector<int64_t> &a,
                                const std::vector<int64_t> &b,
                                const std::vector<int64_t> &out) {
  std::vector<int64_t> shape = out;
  std::vector<std::vector<int64_t>> strides = {broadcastStrides(a, shape),
                                               broadcastStrides(b, shape)};
  mergeDims(shape, strides);
  std::vector<int64_t> p = {code, ta, tb, to, (int64_t)shape.size()};
  p.insert(p.end(), shape.begin(), shape.end());
  for (const auto &s : strides)
    p.insert(p.end(), s.begin(), s.end());
  return p;
}

bool planStridedCopy(int64_t elementBytes, int64_t offset,
                     const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &strides,
                     std::vector<int64_t> &params, int64_t &rank) {
  std::vector<int64_t> s, st;
  if (product(shape).ok() && product(shape).value() == 0) {
    s = {0};
    st = {1};
    offset = 0;
  } else {
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1)
        continue;
      int64_t span = 0, merged = 0;
      if (!s.empty() &&
          !__builtin_mul_overflow(strides[d], shape[d], &span) &&
          st.back() == span &&
          !__builtin_mul_overflow(s.back(), shape[d], &merged)) {
        s.back() = merged;
        st.back() = strides[d];
        continue;
      }
      s.push_back(shape[d]);
      st.push_back(strides[d]);
    }
  }
  rank = (int64_t)s.size();
  if (rank > 16)
    return false;
  params = {elementBytes, offset, rank};
  params.insert(params.end(), s.begin(), s.end());
  params.insert(params.end(), st.begin(), st.end());
  return true;
}

int64_t gemmScratch(int32_t dtype, int64_t K, int64_t N, bool transB) {
  if (dtype != KILN_F32) // the other types run plain loops
    return 0;
  return kSgemmPackBytes + (transB ? K * N * 4 : 0);
}

std::vector<int64_t> planMatMul(int32_t dtype, std::vector<int64_t> a,
                                std::vector<int64_t> b) {
  if (a.size() == 1)
    a.insert(a.begin(), 1);
  if (b.size() == 1)
    b.push_back(1);
  const int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
  std::vector<int64_t> aBatch(a.begin(), a.end() - 2),
      bBatch(b.begin(), b.end() - 2);
  std::vector<int64_t> batch(std::max(aBatch.size(), bBatch.size()), 1);
  for (size_t i = 0; i < batch.size(); ++i) { // right-aligned, 1 broadcasts
    const size_t r = batch.size() - 1 - i;
    if (i < aBatch.size() && aBatch[aBatch.size() - 1 - i] != 1)
      batch[r] = aBatch[aBatch.size() - 1 - i];
    if (i < bBatch.size() && bBatch[bBatch.size() - 1 - i] != 1)
      batch[r] = bBatch[bBatch.size() - 1 - i];
  }
  std::vector<int64_t> sa = broadcastStrides(aBatch, batch),
                       sb = broadcastStrides(bBatch, batch);
  for (auto &s : sa)
    s *= M * K;
  for (auto &s : sb)
    s *= K * N;
  std::vector<int64_t> p = {dtype, M, N, K, (int64_t)batch.size()};
  p.insert(p.end(), batch.begin(), batch.end());
  p.insert(p.end(), sa.begin(), sa.end());
  p.insert(p.end(), sb.begin(), sb.end());
  return p;
}

int64_t matmulScratchBytes(int32_t dtype) {
  return dtype == KILN_F32 ? kSgemmPackBytes : 0;
}

int64_t softmaxScratchBytes(int32_t dtype, int64_t inner) {
  return inner > 1 ? 2 * inner * (int64_t)kiln_dtype_size(dtype) : 0;
}

std::vector<int64_t> planReduce(int64_t op, int32_t dtype,
                                const std::vector<int64_t> &shape,
                                const std::vector<bool> &reduced,
                                int64_t outElements, int64_t &scratch) {
  std::vector<int64_t> merged;
  std::vector<bool> kind;
  int64_t inElements = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    inElements *= shape[d];
    if (shape[d] == 1)
      continue;
    if (!kind.empty() && kind.back() == reduced[d]) {
      merged.back() *= shape[d];
    } else {
      merged.push_back(shape[d]);
      kind.push_back(reduced[d]);
    }
  }
  if (merged.empty()) {
    merged.push_back(1);
    kind.push_back(true);
  }
  std::vector<int64_t> ostr(merged.size(), 0);
  for (size_t d = merged.size(), s = 1; d-- > 0;)
    if (!kind[d]) {
      ostr[d] = (int64_t)s;
      s *= merged[d];
    }
  std::vector<int64_t> p = {op, dtype, (int64_t)merged.size()};
  p.insert(p.end(), merged.begin(), merged.end());
  p.insert(p.end(), ostr.begin(), ostr.end());
  p.push_back(outElements);
  p.push_back(inElements);
  scratch = outElements * 8 * (op == KILN_RED_LOGSUMEXP ? 2 : 1);
  return p;
}

} // namespace kiln
