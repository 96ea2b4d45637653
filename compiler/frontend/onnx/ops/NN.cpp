//===- NN.cpp - MatMul, Gemm, Conv, ConvTranspose, pooling, normalization -===//
//
// Lowers the network operators onto gemm.c and nn.c. Every geometry (output
// sizes, pads from auto_pad, im2col chunk sizes) is settled here at compile
// time; the kernels just run the loops they are given.
#include "compiler/frontend/onnx/ops/Common.h"
#include "compiler/support/TensorPlans.h"

#include <cmath>

namespace kiln::onnx {
namespace {

std::string listString(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

void append(std::vector<int64_t> &p, const std::vector<int64_t> &v) {
  p.insert(p.end(), v.begin(), v.end());
}

/// The spatial geometry of a convolution or pooling window.
struct Window {
  size_t n = 0; // spatial rank
  std::vector<int64_t> in, k, out, stride, dil, padBegin, padEnd;
};

/// Reads strides, dilations, pads and auto_pad for a sliding window of
/// kernel `k` over spatial dims `in`, and computes the output size (floor,
/// or ceil with ceilMode). False with the context's error on bad attributes.
bool readWindow(NodeContext &c, const std::vector<int64_t> &in,
                const std::vector<int64_t> &k, bool ceilMode, Window &w) {
  size_t n = in.size();
  w.n = n;
  w.in = in;
  w.k = k;
  w.stride = c.has("strides") ? c.getInts("strides")
                              : std::vector<int64_t>(n, 1);
  w.dil = c.has("dilations") ? c.getInts("dilations")
                             : std::vector<int64_t>(n, 1);
  std::vector<int64_t> pads =
      c.has("pads") ? c.getInts("pads") : std::vector<int64_t>(2 * n, 0);
  if (w.stride.size() != n)
    return c.fail("strides " + listString(w.stride) + " must have " +
                  std::to_string(n) + " values (one per spatial dimension)");
  if (w.dil.size() != n)
    return c.fail("dilations " + listString(w.dil) + " must have " +
                  std::to_string(n) + " values");
  if (pads.size() != 2 * n)
    return c.fail("pads " + listString(pads) + " must have " +
                  std::to_string(2 * n) + " values");
  for (size_t d = 0; d < n; ++d) {
    if (w.stride[d] < 1 || w.dil[d] < 1 || k[d] < 1)
      return c.fail("strides, dilations and kernel_shape must be positive");
    if (pads[d] < 0 || pads[n + d] < 0)
      return c.fail("pads " + listString(pads) + " must not be negative");
  }
  std::string autoPad = c.getString("auto_pad", "NOTSET");
  w.padBegin.assign(n, 0);
  w.padEnd.assign(n, 0);
  w.out.assign(n, 0);
  auto overflow = [&] {
    return c.fail("the window (kernel " + listString(k) + ", dilations " +
                  listString(w.dil) + ", strides " + listString(w.stride) +
                  ", pads " + listString(pads) + ") overflows 64-bit sizes");
  };
  for (size_t d = 0; d < n; ++d) {
    const CheckedInt span = (CheckedInt(k[d]) - 1) * w.dil[d] + 1;
    const int64_t s = w.stride[d];
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      w.out[d] = ceilDiv(CheckedInt(in[d]), s).value();
      CheckedInt total = (CheckedInt(w.out[d]) - 1) * s + span - in[d];
      if (!total.ok())
        return overflow();
      int64_t t = std::max<int64_t>(0, total.value());
      w.padBegin[d] = autoPad == "SAME_UPPER" ? t / 2 : t - t / 2;
      w.padEnd[d] = t - w.padBegin[d];
      continue;
    }
    if (autoPad == "NOTSET") {
      w.padBegin[d] = pads[d];
      w.padEnd[d] = pads[n + d];
    } else if (autoPad != "VALID") {
      return c.unsupportedAttr("auto_pad", autoPad);
    }
    const CheckedInt avail =
        CheckedInt(in[d]) + w.padBegin[d] + w.padEnd[d] - span;
    if (!avail.ok())
      return overflow();
    if (avail.value() < 0)
      return c.fail("the window (kernel " + listString(k) + ", dilations " +
                    listString(w.dil) + ") is larger than the padded input " +
                    listString(in));
    const CheckedInt o = (ceilMode ? ceilDiv(avail, s) : avail / s) + 1;
    if (!o.ok())
      return overflow();
    w.out[d] = o.value();
    // With ceil_mode, a window must start inside the input or left padding
    // (in + padBegin is in range: avail summed it first).
    CheckedInt start = (CheckedInt(w.out[d]) - 1) * s;
    if (ceilMode && (!start.ok() || start.value() >= in[d] + w.padBegin[d]))
      --w.out[d];
  }
  return true;
}

/// Checks the kernel_shape attribute (when present) against `k`.
bool checkKernelShape(NodeContext &c, const std::vector<int64_t> &k) {
  if (c.has("kernel_shape") && c.getInts("kernel_shape") != k)
    return c.fail("kernel_shape " + listString(c.getInts("kernel_shape")) +
                  " does not match the weights' spatial shape " +
                  listString(k));
  return true;
}

// --- MatMul and Gemm -----------------------------------------------------------

const std::vector<int32_t> kMatMulTypes = {F32, F64, I32, I64, U32, U64};

RegisterConverter matmulOp({"MatMul"}, [](NodeContext &c) {
  if (!c.expectType(0, kMatMulTypes) || !c.expectType(1, kMatMulTypes))
    return false;
  Tensor *a = c.input(0), *b = c.input(1);
  if (a->dtype != b->dtype)
    return c.fail("A and B have different element types (" +
                  dtypeName(a->dtype) + " and " + dtypeName(b->dtype) + ")");
  if (a->rank() < 1 || b->rank() < 1)
    return c.fail("MatMul operands must have rank 1 or more (A is " +
                  shapeString(a->shape) + ", B is " + shapeString(b->shape) +
                  ")");
  // numpy: a 1-D A is a row [1, K], a 1-D B a column [K, 1]; the added
  // dimension is dropped from the result.
  std::vector<int64_t> as = a->shape, bs = b->shape;
  if (as.size() == 1)
    as.insert(as.begin(), 1);
  if (bs.size() == 1)
    bs.push_back(1);
  int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K)
    return c.fail("inner dimensions differ: A is " + shapeString(a->shape) +
                  ", B is " + shapeString(b->shape));
  std::vector<int64_t> aBatch(as.begin(), as.end() - 2),
      bBatch(bs.begin(), bs.end() - 2), batch;
  if (!broadcastShapes(aBatch, bBatch, batch))
    return c.fail("batch dimensions of A " + shapeString(a->shape) +
                  " and B " + shapeString(b->shape) + " do not broadcast");
  if (batch.size() > KILN_MAX_RANK_CXX)
    return c.fail("batch rank " + std::to_string(batch.size()) +
                  " exceeds Kiln's maximum of 8");
  std::vector<int64_t> shape = batch;
  if (a->rank() > 1)
    shape.push_back(M);
  if (b->rank() > 1)
    shape.push_back(N);
  Tensor &out = c.output(0, a->dtype, shape);
  std::vector<int64_t> p = planMatMul(a->dtype, a->shape, b->shape);
  p.push_back(0); // no epilogue
  c.call("matmul", p, {}, {a, b}, {&out}, matmulScratchBytes(a->dtype));
  return true;
});

RegisterConverter gemmOp({"Gemm"}, [](NodeContext &c) {
  if (!c.expectType(0, kMatMulTypes) || !c.expectType(1, kMatMulTypes))
    return false;
  Tensor *a = c.input(0), *b = c.input(1), *cc = c.input(2);
  if (a->dtype != b->dtype || (cc && cc->dtype != a->dtype))
    return c.fail("A, B and C must have the same element type");
  if (a->rank() != 2 || b->rank() != 2)
    return c.fail("A and B must be matrices (A is " + shapeString(a->shape) +
                  ", B is " + shapeString(b->shape) + ")");
  int64_t transA = c.getInt("transA", 0), transB = c.getInt("transB", 0);
  int64_t M = transA ? a->shape[1] : a->shape[0];
  int64_t K = transA ? a->shape[0] : a->shape[1];
  int64_t N = transB ? b->shape[0] : b->shape[1];
  int64_t Kb = transB ? b->shape[1] : b->shape[0];
  if (K != Kb)
    return c.fail("inner dimensions differ: A' is [" + std::to_string(M) +
                  "," + std::to_string(K) + "], B' is [" + std::to_string(Kb) +
                  "," + std::to_string(N) + "]");
  float alpha = c.getFloat("alpha", 1.0f), beta = c.getFloat("beta", 1.0f);
  int64_t csm = 0, csn = 0;
  if (cc) {
    std::vector<int64_t> bshape;
    if (cc->rank() > 2 || !broadcastShapes(cc->shape, {M, N}, bshape) ||
        bshape != std::vector<int64_t>{M, N})
      return c.fail("C " + shapeString(cc->shape) +
                    " does not broadcast to [" + std::to_string(M) + "," +
                    std::to_string(N) + "]");
    auto s = broadcastStrides(cc->shape, {M, N});
    csm = s[0];
    csn = s[1];
  }
  Tensor &out = c.output(0, a->dtype, {M, N});
  // A constant B with transB is transposed by kiln-pack-weights, in the IR.
  c.call("gemm", {a->dtype, M, N, K, transA, transB, cc ? 1 : 0, csm, csn, 0},
         {alpha, beta}, {a, b, cc}, {&out},
         gemmScratch(a->dtype, K, N, transB));
  return true;
});

// --- Conv and ConvTranspose ----------------------------------------------------

/// Checks X and W of a convolution: float tensors of rank >= 3, same rank.
bool checkConvInputs(NodeContext &c) {
  if (!c.expectType(0, {F32}) || !c.expectType(1, {F32}))
    return false;
  Tensor *x = c.input(0), *w = c.input(1);
  if (x->rank() < 3 || w->rank() != x->rank())
    return c.fail("X " + shapeString(x->shape) + " and W " +
                  shapeString(w->shape) +
                  " must have the same rank, 3 or more (N, C, spatial...)");
  if (x->rank() - 2 > 6)
    return c.fail("more than 6 spatial dimensions are not supported");
  return true;
}

RegisterConverter convOp({"Conv"}, [](NodeContext &c) {
  if (!checkConvInputs(c))
    return false;
  Tensor *x = c.input(0), *w = c.input(1), *bias = c.input(2);
  int64_t G = c.getInt("group", 1);
  int64_t N = x->shape[0], C = x->shape[1], M = w->shape[0];
  if (G < 1 || C % G != 0 || M % G != 0 || w->shape[1] * G != C)
    return c.fail("group=" + std::to_string(G) + " does not fit X " +
                  shapeString(x->shape) + " and W " + shapeString(w->shape) +
                  " (W[1] * group must equal the input channels and group "
                  "must divide the output channels)");
  if (bias && (bias->dtype != F32 || bias->shape != std::vector<int64_t>{M}))
    return c.fail("bias B must be a float vector of " + std::to_string(M) +
                  " elements, not " + shapeString(bias->shape));
  std::vector<int64_t> in(x->shape.begin() + 2, x->shape.end());
  std::vector<int64_t> k(w->shape.begin() + 2, w->shape.end());
  if (!checkKernelShape(c, k))
    return false;
  Window win;
  if (!readWindow(c, in, k, false, win))
    return false;
  std::vector<int64_t> shape = {N, M};
  append(shape, win.out);
  Tensor &out = c.output(0, F32, shape);
  if (!c.sizeError().empty())
    return true; // the graph walk reports the output's size
  ConvGeometry geometry{N, C, M, G, win.in, win.k, win.out, win.stride,
                        win.dil, win.padBegin};
  std::vector<int64_t> p;
  int64_t scratch = 0;
  if (!planConv(geometry, p, scratch))
    return c.fail("the convolution's scratch overflows 64-bit sizes");
  p.push_back(0); // no epilogue (kiln-fuse-tensor-epilogues adds one)
  c.call("conv", p, {}, {x, w, bias}, {&out}, scratch);
  return true;
});

RegisterConverter convTransposeOp({"ConvTranspose"}, [](NodeContext &c) {
  if (!checkConvInputs(c))
    return false;
  Tensor *x = c.input(0), *w = c.input(1), *bias = c.input(2);
  int64_t G = c.getInt("group", 1);
  int64_t N = x->shape[0], C = x->shape[1];
  if (G < 1 || w->shape[0] != C || C % G != 0)
    return c.fail("group=" + std::to_string(G) + " does not fit X " +
                  shapeString(x->shape) + " and W " + shapeString(w->shape) +
                  " (W[0] must equal the input channels, divisible by group)");
  int64_t M = w->shape[1] * G;
  if (bias && (bias->dtype != F32 || bias->shape != std::vector<int64_t>{M}))
    return c.fail("bias B must be a float vector of " + std::to_string(M) +
                  " elements, not " + shapeString(bias->shape));
  size_t n = x->shape.size() - 2;
  std::vector<int64_t> in(x->shape.begin() + 2, x->shape.end());
  std::vector<int64_t> k(w->shape.begin() + 2, w->shape.end());
  if (!checkKernelShape(c, k))
    return false;
  auto ints = [&](const char *name, int64_t dflt, size_t count,
                  std::vector<int64_t> &v) {
    v = c.has(name) ? c.getInts(name) : std::vector<int64_t>(count, dflt);
    if (v.size() != count)
      return c.fail(std::string(name) + " " + listString(v) + " must have " +
                    std::to_string(count) + " values");
    return true;
  };
  std::vector<int64_t> stride, dil, outPad, pads;
  if (!ints("strides", 1, n, stride) || !ints("dilations", 1, n, dil) ||
      !ints("output_padding", 0, n, outPad) || !ints("pads", 0, 2 * n, pads))
    return false;
  for (size_t d = 0; d < n; ++d)
    if (stride[d] < 1 || dil[d] < 1 || outPad[d] < 0)
      return c.fail("strides and dilations must be positive, output_padding "
                    "not negative");
  std::string autoPad = c.getString("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return c.unsupportedAttr("auto_pad", autoPad);
  std::vector<int64_t> outShape = c.getInts("output_shape");
  if (!outShape.empty() && outShape.size() != n && outShape.size() != n + 2)
    return c.fail("output_shape " + listString(outShape) + " must have " +
                  std::to_string(n) + " (spatial) or " +
                  std::to_string(n + 2) + " values");
  if (outShape.size() == n + 2)
    outShape.erase(outShape.begin(), outShape.begin() + 2);
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  std::vector<int64_t> out(n), padBegin(n), padEnd(n);
  for (size_t d = 0; d < n; ++d) {
    // The extent the kernel covers before any padding is taken away.
    const CheckedInt full = CheckedInt(stride[d]) * (CheckedInt(in[d]) - 1) +
                            outPad[d] + (CheckedInt(k[d]) - 1) * dil[d] + 1;
    CheckedInt o, begin;
    if (!outShape.empty() || same) {
      o = !outShape.empty() ? CheckedInt(outShape[d])
                            : CheckedInt(in[d]) * stride[d];
      CheckedInt total = full - o;
      begin = autoPad == "SAME_UPPER" ? floorDiv(total, 2)
                                      : total - floorDiv(total, 2);
    } else {
      if (autoPad == "NOTSET")
        begin = pads[d];
      o = full - (autoPad == "NOTSET" ? CheckedInt(pads[d]) + pads[n + d]
                                      : CheckedInt(0));
    }
    const CheckedInt end = full - o - begin;
    if (!o.ok() || !begin.ok() || !end.ok())
      return c.fail("the geometry (strides " + listString(stride) +
                    ", dilations " + listString(dil) + ", pads " +
                    listString(pads) + ", output_padding " +
                    listString(outPad) + ") overflows 64-bit sizes");
    out[d] = o.value();
    padBegin[d] = begin.value();
    padEnd[d] = end.value();
    if (out[d] < 1)
      return c.fail("the output would be empty along spatial dimension " +
                    std::to_string(d));
  }
  std::vector<int64_t> shape = {N, M};
  append(shape, out);
  Tensor &y = c.output(0, F32, shape);
  if (!c.sizeError().empty())
    return true; // the graph walk reports the output's size
  ConvGeometry geometry{N, C, M, G, in, k, out, stride, dil, padBegin};
  std::vector<int64_t> p;
  int64_t scratch = 0;
  if (!planConvTranspose(geometry, p, scratch))
    return c.fail("the convolution's scratch overflows 64-bit sizes");
  p.push_back(0); // no epilogue (kiln-fuse-tensor-epilogues adds one)
  if (Call *k = c.call("conv_transpose", p, {}, {x, w, bias}, {&y}, scratch)) {
    std::vector<int64_t> pads = padBegin;
    append(pads, padEnd);
    k->attrs = {{"pads", pads}, {"output_padding", outPad}};
  }
  return true;
});

// --- normalization ----------------------------------------------------------------

/// Checks that inputs [from, to) are vectors of `C` elements of X's type.
bool checkChannelParams(NodeContext &c, size_t from, size_t to, int64_t C) {
  for (size_t i = from; i < to; ++i) {
    Tensor *t = c.input(i);
    if (!t)
      return c.fail("input " + std::to_string(i) + " is required");
    if (t->dtype != c.input(0)->dtype)
      return c.fail("input " + std::to_string(i) + " ('" + t->name +
                    "') is " + dtypeName(t->dtype) + ", X is " +
                    dtypeName(c.input(0)->dtype) +
                    "; Kiln needs them to be the same type");
    if (t->shape != std::vector<int64_t>{C})
      return c.fail("input " + std::to_string(i) + " ('" + t->name +
                    "') has shape " + shapeString(t->shape) +
                    ", expected [" + std::to_string(C) + "] (one per channel)");
  }
  return true;
}

RegisterConverter batchNormOp({"BatchNormalization"}, [](NodeContext &c) {
  if (!c.expectType(0, {F32, F64}))
    return false;
  Tensor *x = c.input(0);
  if (c.getInt("training_mode", 0) != 0)
    return c.fail("training_mode=1 is not supported: Kiln compiles inference "
                  "graphs (running statistics are not updated)");
  if (c.opset() < 7 && c.has("is_test") && c.getInt("is_test", 0) == 0)
    return c.unsupportedAttr("is_test", "0 (training)");
  if (c.numOutputs() > 1)
    return c.fail("the mean/var/saved outputs exist only in training mode, "
                  "which Kiln does not support");
  if (c.opset() < 9 && c.getInt("spatial", 1) != 1)
    return c.unsupportedAttr("spatial", std::to_string(c.getInt("spatial", 1)));
  c.ignoreAttrs({"momentum"}); // how training updates the running statistics
  if (x->rank() < 2)
    return c.fail("X " + shapeString(x->shape) + " needs rank 2 or more (N, C, ...)");
  int64_t N = x->shape[0], C = x->shape[1];
  if (!checkChannelParams(c, 1, 5, C))
    return false;
  Tensor &out = c.output(0, x->dtype, x->shape);
  c.call("batchnorm", {x->dtype, N, C, product(x->shape, 2)},
         {c.getFloat("epsilon", 1e-5f)},
         {x, c.input(1), c.input(2), c.input(3), c.input(4)}, {&out});
  return true;
});

RegisterConverter instanceNormOp({"InstanceNormalization"}, [](NodeContext &c) {
  if (!c.expectType(0, {F32, F64}))
    return false;
  Tensor *x = c.input(0);
  if (x->rank() < 3)
    return c.fail("X " + shapeString(x->shape) + " needs rank 3 or more (N, C, spatial...)");
  int64_t N = x->shape[0], C = x->shape[1];
  if (!checkChannelParams(c, 1, 3, C))
    return false;
  Tensor &out = c.output(0, x->dtype, x->shape);
  c.call("instancenorm", {x->dtype, N, C, product(x->shape, 2)},
         {c.getFloat("epsilon", 1e-5f)}, {x, c.input(1), c.input(2)}, {&out});
  return true;
});

RegisterConverter lrnOp({"LRN"}, [](NodeContext &c) {
  if (!c.expectType(0, {F32}))
    return false;
  Tensor *x = c.input(0);
  if (x->rank() < 3)
    return c.fail("X " + shapeString(x->shape) + " needs rank 3 or more (N, C, spatial...)");
  if (!c.has("size") || c.getInt("size", 0) < 1)
    return c.fail("attribute size (a positive integer) is required");
  Tensor &out = c.output(0, F32, x->shape);
  c.call("lrn", {x->shape[0], x->shape[1], product(x->shape, 2), c.getInt("size", 1)},
         {c.getFloat("alpha", 1e-4f), c.getFloat("beta", 0.75f),
          c.getFloat("bias", 1.0f)},
         {x}, {&out});
  return true;
});

// --- pooling ----------------------------------------------------------------------

RegisterConverter poolOps({"MaxPool", "AveragePool"}, [](NodeContext &c) {
  bool isMax = c.opType() == "MaxPool";
  if (!c.expectType(0, isMax ? std::vector<int32_t>{F32, F64, I8, U8}
                             : std::vector<int32_t>{F32, F64}))
    return false;
  Tensor *x = c.input(0);
  if (x->rank() < 3)
    return c.fail("X " + shapeString(x->shape) +
                  " needs rank 3 or more (N, C, spatial...)");
  size_t n = x->shape.size() - 2;
  std::vector<int64_t> k = c.getInts("kernel_shape");
  if (k.size() != n)
    return c.fail("kernel_shape " + listString(k) + " must have " +
                  std::to_string(n) + " values (one per spatial dimension)");
  std::vector<int64_t> in(x->shape.begin() + 2, x->shape.end());
  int64_t ceilMode = c.getInt("ceil_mode", 0);
  int64_t storageOrder = c.getInt("storage_order", 0);
  if (storageOrder != 0 && storageOrder != 1)
    return c.unsupportedAttr("storage_order", std::to_string(storageOrder));
  Window win;
  if (!readWindow(c, in, k, ceilMode != 0, win))
    return false;
  std::vector<int64_t> shape = {x->shape[0], x->shape[1]};
  append(shape, win.out);
  Tensor &y = c.output(0, x->dtype, shape);
  std::vector<Tensor *> outs = {&y};
  bool wantIdx = isMax && c.numOutputs() > 1;
  if (wantIdx)
    outs.push_back(&c.output(1, I64, shape));
  std::vector<int64_t> p = {x->dtype, isMax ? 0 : 1,
                            c.getInt("count_include_pad", 0), storageOrder,
                            wantIdx, (int64_t)n, x->shape[0] * x->shape[1]};
  for (auto *v : {&win.in, &win.k, &win.out, &win.stride, &win.dil,
                  &win.padBegin, &win.padEnd})
    append(p, *v);
  // Average: the per-axis divisors (kiln_t_pool) live in the scratch.
  int64_t divisors = 0;
  for (int64_t o : win.out)
    divisors += o;
  c.call("pool", p, {}, {x}, outs, isMax ? 0 : divisors * 8);
  return true;
});

RegisterConverter globalPoolOps({"GlobalMaxPool", "GlobalAveragePool"},
                                [](NodeContext &c) {
  bool isMax = c.opType() == "GlobalMaxPool";
  if (!c.expectType(0, isMax ? std::vector<int32_t>{F32, F64, I8, U8}
                             : std::vector<int32_t>{F32, F64}))
    return false;
  Tensor *x = c.input(0);
  if (x->rank() < 3)
    return c.fail("X " + shapeString(x->shape) +
                  " needs rank 3 or more (N, C, spatial...)");
  std::vector<int64_t> shape(x->shape.size(), 1);
  shape[0] = x->shape[0];
  shape[1] = x->shape[1];
  int64_t S = product(x->shape, 2);
  if (S == 0)
    return c.fail("the spatial dimensions of X " + shapeString(x->shape) +
                  " are empty");
  Tensor &y = c.output(0, x->dtype, shape);
  c.call("global_pool", {x->dtype, isMax ? 0 : 1, x->shape[0] * x->shape[1], S},
         {}, {x}, {&y});
  return true;
});

} // namespace

void linkNNOps() {}
} // namespace kiln::onnx
