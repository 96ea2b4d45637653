//===- FoldConvAffine.cpp - per-channel scales and shifts into conv weights ===//
//
// Exported CNNs follow convolutions with affine maps per output channel:
// inference BatchNormalization (y = x * a + b, a = scale / sqrt(var + eps),
// b = B - mean * a, nn.c's kiln_t_batchnorm), or the same spelled out as Mul
// and Add by per-channel or scalar constants (PaddleOCR's learnable scales).
// After a convolution (or ConvTranspose) whose weights and bias are
// constants, a chain of them folds into those constants: with the chain's
// composed y = x * a + c, W'[m] = W[m] * a[m] and bias'[m] = bias[m] * a[m]
// + c[m]. The chain then
// costs nothing at run time and its constants leave the library. Results
// differ from the unfolded graph by the rounding of the scaled weights
// (onnxruntime folds the same way). A Gemm's output columns are channels
// too (BatchNormalization of [N, C] after a fully connected layer): its B
// columns and C fold the same way.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"

#include "kernels/tensor/kiln_tensor.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <set>

namespace kiln {
#define GEN_PASS_DEF_FOLDCONVAFFINE
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
/// The M values, one per channel, of a constant operand `v` that broadcasts
/// against `out` ([N, M, ...]) as a scalar or along axis 1 only.
std::optional<std::vector<double>> channelValues(Value v,
                                                 RankedTensorType out) {
  std::optional<ArrayRef<float>> k = constantFloats(v);
  auto t = v.getType().cast<RankedTensorType>();
  const int64_t M = out.getDimSize(1);
  if (!k || t.getRank() > out.getRank())
    return std::nullopt;
  if (k->size() == 1)
    return std::vector<double>(M, (*k)[0]);
  if (!broadcastsPerChannel(t, out))
    return std::nullopt;
  return std::vector<double>(k->begin(), k->end());
}

/// y = x * a + c per channel.
struct Affine {
  std::vector<double> a, c;
};

/// `op` as an affine map per channel of its input `x` (of type `out`), or
/// std::nullopt: an f32 BatchNormalization with constant vectors, or an f32
/// Add, Sub, Mul or Div (x first) with a scalar or per-channel constant.
std::optional<Affine> affineStep(Operation *step, Value x,
                                 RankedTensorType out) {
  if (step->getNumResults() != 1 || step->getResult(0).getType() != out)
    return std::nullopt;
  const int64_t M = out.getDimSize(1);
  if (auto bn = dyn_cast<BatchNormOp>(step)) {
    std::optional<ArrayRef<float>> sc = constantFloats(bn.getScale()),
                                   bi = constantFloats(bn.getBias()),
                                   mu = constantFloats(bn.getMean()),
                                   va = constantFloats(bn.getVariance());
    if (bn.getInput() != x || !sc || !bi || !mu || !va ||
        sc->size() != (size_t)M)
      return std::nullopt;
    const float eps = bn.getEpsilon().convertToFloat();
    Affine s{std::vector<double>(M), std::vector<double>(M)};
    for (int64_t m = 0; m < M; ++m) {
      // The kernel's own a and b (nn.c's KILN_BATCHNORM_CHANNEL).
      const float a = (*sc)[m] / (float)std::sqrt((double)(*va)[m] + (double)eps);
      s.a[m] = a;
      s.c[m] = (*bi)[m] - (*mu)[m] * a;
    }
    return s;
  }
  auto bin = dyn_cast<BinaryOp>(step);
  if (!bin || !out.getElementType().isF32() ||
      (bin.getLhs() == x) == (bin.getRhs() == x))
    return std::nullopt;
  const bool xFirst = bin.getLhs() == x;
  std::optional<std::vector<double>> k =
      channelValues(xFirst ? bin.getRhs() : bin.getLhs(), out);
  if (!k)
    return std::nullopt;
  Affine s{std::vector<double>(M, 1.0), std::vector<double>(M, 0.0)};
  switch (bin.getKindCode()) {
  case KILN_BIN_ADD: s.c = *k; break;
  case KILN_BIN_MUL: s.a = *k; break;
  case KILN_BIN_SUB:
    for (int64_t m = 0; m < M; ++m) {
      s.a[m] = xFirst ? 1.0 : -1.0;
      s.c[m] = xFirst ? -(*k)[m] : (*k)[m];
    }
    break;
  case KILN_BIN_DIV:
    if (!xFirst)
      return std::nullopt;
    for (int64_t m = 0; m < M; ++m)
      s.a[m] = 1.0 / (*k)[m];
    break;
  default:
    return std::nullopt;
  }
  return s;
}

/// The chain of affine steps after `y` (of type `out`, M channels on axis
/// 1), each the only reader of the one before, composed into `total`.
SmallVector<Operation *> affineChain(Value y, RankedTensorType out, int64_t M,
                                     Affine &total) {
  total = {std::vector<double>(M, 1.0), std::vector<double>(M, 0.0)};
  SmallVector<Operation *> chain;
  Value cur = y;
  while (cur.hasOneUse()) {
    Operation *next = *cur.getUsers().begin();
    std::optional<Affine> s = affineStep(next, cur, out);
    if (!s)
      break;
    for (int64_t m = 0; m < M; ++m) {
      total.a[m] *= s->a[m];
      total.c[m] = total.c[m] * s->a[m] + s->c[m];
    }
    chain.push_back(next);
    cur = next->getResult(0);
  }
  return chain;
}

/// What a folded call becomes: its new weights (W's shape) and bias, and
/// how its operands, parameters and float parameters change.
struct Folded {
  std::vector<float> w, bias;
  RankedTensorType biasType;
};

bool allFinite(const std::vector<float> &v) {
  for (float x : v)
    if (!std::isfinite(x))
      return false;
  return true;
}

/// A Conv or ConvTranspose of C input and M output channels in G groups:
/// W' = W * a per output channel, bias' = bias * a + c.
std::optional<Folded> foldConv(MLIRContext *ctx, int64_t C, int64_t M,
                               int64_t G, bool transposed, ArrayRef<float> w,
                               std::optional<ArrayRef<float>> bias,
                               const Affine &total) {
  if (G < 1 || C % G || M % G || w.size() % (C * M / G))
    return std::nullopt;
  // W is [M, C / G, k...] (Conv) or [C, M / G, k...] (ConvTranspose:
  // input channel c of group c / (C / G) feeds outputs g * M / G + j).
  const int64_t taps = (int64_t)w.size() / (C * M / G);
  Folded f;
  f.w.resize(w.size());
  for (int64_t o = 0; o < (int64_t)w.size() / taps; ++o) {
    const int64_t m =
        transposed ? (o / (M / G)) / (C / G) * (M / G) + o % (M / G) : o / (C / G);
    for (int64_t i = o * taps; i < (o + 1) * taps; ++i)
      f.w[i] = (float)(w[i] * total.a[m]);
  }
  f.bias.resize(M);
  for (int64_t m = 0; m < M; ++m)
    f.bias[m] = (float)((bias ? (*bias)[m] : 0.0) * total.a[m] + total.c[m]);
  f.biasType = RankedTensorType::get({M}, Float32Type::get(ctx));
  return f;
}

/// A Gemm, Y = alpha A B + beta C with B [K, N] (the frontend transposes a
/// constant B of transB itself), whose N columns are the channels:
/// B' = B * a per column, C' = beta C a + c (per column, [N], when C is the
/// same on every row, else [M, N]) with beta' = 1.
std::optional<Folded> foldGemm(GemmOp gemm, ArrayRef<float> w,
                               std::optional<ArrayRef<float>> c,
                               const Affine &total) {
  auto y = gemm.getResult().getType().cast<RankedTensorType>();
  const int64_t M = y.getDimSize(0), N = y.getDimSize(1), K = gemm.getInner();
  const std::array<int64_t, 2> cs = gemm.getCStrides();
  const float beta = gemm.getBeta().convertToFloat();
  const bool hasC = c && beta != 0.0f;
  if (gemm.getTransB() || (int64_t)w.size() != K * N)
    return std::nullopt;
  Folded f;
  f.w.resize(w.size());
  for (int64_t i = 0; i < K * N; ++i)
    f.w[i] = (float)(w[i] * total.a[i % N]);
  const int64_t rows = hasC && cs[0] ? M : 1;
  f.bias.resize(rows * N);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < N; ++j)
      f.bias[i * N + j] = (float)(
          (hasC ? (double)beta * (*c)[i * cs[0] + j * cs[1]] : 0.0) *
              total.a[j] +
          total.c[j]);
  f.biasType = rows > 1 ? RankedTensorType::get({M, N}, y.getElementType())
                        : RankedTensorType::get({N}, y.getElementType());
  return f;
}

struct FoldConvAffine : kiln::impl::FoldConvAffineBase<FoldConvAffine> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ConstantNames names(module);

    // kiln.conv, kiln.conv_transpose and kiln.gemm without an epilogue.
    SmallVector<Operation *> producers;
    module.walk([&](Operation *op) {
      if (auto conv = dyn_cast<ConvOp>(op); conv && !conv.getEpilogue())
        producers.push_back(op);
      if (auto ct = dyn_cast<ConvTransposeOp>(op); ct && !ct.getEpilogue())
        producers.push_back(op);
      if (auto gemm = dyn_cast<GemmOp>(op); gemm && !gemm.getEpilogue())
        producers.push_back(op);
    });
    for (Operation *op : producers) {
      auto conv = dyn_cast<ConvOp>(op);
      auto ct = dyn_cast<ConvTransposeOp>(op);
      auto gemm = dyn_cast<GemmOp>(op);
      Value y = op->getResult(0);
      auto out = y.getType().cast<RankedTensorType>();
      if (!out.getElementType().isF32() || out.getRank() < 2)
        continue;
      // {X, W, bias} or {A, B, C} (null when omitted).
      SmallVector<Value> ins =
          conv ? SmallVector<Value>{conv.getInput(), conv.getFilter(),
                                    conv.getBias()}
          : ct ? SmallVector<Value>{ct.getInput(), ct.getFilter(), ct.getBias()}
               : SmallVector<Value>{gemm.getA(), gemm.getB(), gemm.getC()};
      Value wv = ins[1], bv = ins[2];
      std::optional<ArrayRef<float>> w = constantFloats(wv);
      std::optional<ArrayRef<float>> bias = constantFloats(bv);
      if (!w || (bv && !bias))
        continue;

      Affine total;
      SmallVector<Operation *> chain =
          affineChain(y, out, out.getDimSize(1), total);
      if (chain.empty())
        continue;
      std::optional<Folded> f;
      if (gemm)
        f = foldGemm(gemm, *w, bias, total);
      else
        f = foldConv(op->getContext(),
                     ins[0].getType().cast<ShapedType>().getDimSize(1),
                     out.getDimSize(1),
                     conv ? conv.getGroup() : ct.getGroup(), ct != nullptr,
                     *w, bias, total);
      if (!f || !allFinite(f->w) || !allFinite(f->bias))
        continue; // a division by zero or an overflow stays at run time

      OpBuilder builder(op);
      auto wc = wv.getDefiningOp<ConstantOp>();
      auto asChars = [](const std::vector<float> &v) {
        return ArrayRef<char>((const char *)v.data(), v.size() * sizeof(float));
      };
      Operation *last = chain.back();
      Value newW = builder.create<ConstantOp>(
          wc.getLoc(), names.unique(wc.getSource().str() + ".folded"),
          wc.getResult().getType().cast<RankedTensorType>(), asChars(f->w));
      Value newB = builder.create<ConstantOp>(
          last->getLoc(),
          names.unique(last->getAttrOfType<StringAttr>("node").str() + ".bias"),
          f->biasType, asChars(f->bias));
      SmallVector<Location> locs = {op->getLoc()};
      for (Operation *step : chain)
        locs.push_back(step->getLoc());
      Location loc = builder.getFusedLoc(locs);
      Operation *folded;
      if (conv)
        folded = builder.create<ConvOp>(
            loc, out, ins[0], newW, newB, ValueRange{}, conv.getStridesAttr(),
            conv.getDilationsAttr(), conv.getPadsAttr(), conv.getGroupAttr(),
            DenseI64ArrayAttr(), DenseF32ArrayAttr(), conv.getOnnxOpAttr(),
            conv.getNodeAttr());
      else if (gemm)
        folded = builder.create<GemmOp>(
            loc, out, ins[0], newW, newB, ValueRange{}, gemm.getTransAAttr(),
            UnitAttr(), gemm.getAlphaAttr(), builder.getF32FloatAttr(1.0f),
            DenseI64ArrayAttr(), DenseF32ArrayAttr(), gemm.getOnnxOpAttr(),
            gemm.getNodeAttr());
      else
        folded = builder.create<ConvTransposeOp>(
            loc, out, ins[0], newW, newB, ValueRange{}, ct.getStridesAttr(),
            ct.getDilationsAttr(), ct.getPadsAttr(), ct.getOutputPaddingAttr(),
            ct.getGroupAttr(), DenseI64ArrayAttr(), DenseF32ArrayAttr(),
            ct.getOnnxOpAttr(), ct.getNodeAttr());
      last->getResult(0).replaceAllUsesWith(folded->getResult(0));

      llvm::SetVector<Operation *> constants;
      SmallVector<Operation *> dead(chain.rbegin(), chain.rend());
      dead.push_back(op);
      for (Operation *d : dead)
        for (Value v : d->getOperands())
          if (auto c = v.getDefiningOp<ConstantOp>())
            constants.insert(c);
      for (Operation *d : dead)
        d->erase();
      for (Operation *c : constants)
        if (c->use_empty())
          c->erase();
    }
  }
};
} // namespace
