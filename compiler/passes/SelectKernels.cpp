//===- SelectKernels.cpp - annotate each op with the kernel that runs it --===//
//
// Kernel choice is the last decision before emission, so it is written into the
// IR (`kiln.kernel`, and the numerics it implies) where lit tests and reviewers
// can see it. The module's kiln.target names the ISA and CPU level; the kernel
// table (kernels/kernels.def) says which kernels they have.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"
#include "compiler/support/TensorPlans.h"
#include "kernels/KernelTable.h"
#include "kernels/tensor/kiln_tensor.h"

#include "mlir/IR/Builders.h"

#include <iterator>

namespace kiln {
#define GEN_PASS_DEF_SELECTKERNELS
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
/// The kernel chosen for an op.
struct KernelChoice {
  std::string kernel;          // C function kiln_<kernel>
  std::string activation;      // "q8_0" / "q8_k" if activations are quantized, else ""
  int64_t scratchPerRow = 0;   // bytes of scratch per input row
  std::vector<int64_t> tile;   // the microkernel's register tile, if any
};

// ISA targets run matmuls over the Q8_0-activation types on integer dot
// products (their microkernel from the table, else the portable kernels_q8.c
// one); every other op and weight type, and every op of the generic target,
// uses the portable f32 kernels of kernels_generic.c.
KernelChoice choose(Operation *op, StringRef weightType,
                    const kernels::CpuLevel &level, std::string &error) {
  const bool onIsa = StringRef(level.isa) != "generic";
  KernelChoice c;
  if (isa<EmbeddingOp, MatMulOp>(op) &&
      !kernels::hasPortableKernel(weightType.str())) {
    error = "no kernel reads weights of type '" + weightType.str() + "'";
    return c;
  }
  if (auto matmul = dyn_cast<MatMulOp>(op);
      matmul && onIsa && kernels::hasQ8Activations(weightType.str())) {
    int64_t K =
        matmul.getInput().getType().cast<RankedTensorType>().getDimSize(1);
    if (K % 32 != 0) {
      error = "K = " + std::to_string(K) + " is not a multiple of 32";
      return c;
    }
    c.activation = "q8_0";
    if (const kernels::MatMulKernel *k =
            kernels::matmulKernel(level, weightType.str())) {
      c.kernel = k->name;
      c.tile = {k->mr, k->nr};
      c.activation = kernels::activationOf(*k);
      c.scratchPerRow = kernels::scratchRowBytes(*k, K);
    } else {
      c.kernel = ("matmul_" + weightType + "_q8_0_generic").str();
      c.scratchPerRow = kernels::activationRowBytes(c.activation, K);
    }
    return c;
  }
  // Sliding-window attention has the portable kernel on every target.
  if (auto a = dyn_cast<AttentionOp>(op); a && a.getWindow()) {
    c.kernel = "attention_swa_f32_generic";
    return c;
  }
  if (auto a = dyn_cast<AttentionOp>(op); a && onIsa)
    if (const kernels::AttentionKernel *k =
            kernels::attentionKernel(level, a.getHeadDim())) {
      c.kernel = k->name;
      return c;
    }
  // Float weights: the ISA's widening kernel where the table has one.
  if (auto matmul = dyn_cast<MatMulOp>(op); matmul && onIsa)
    if (const kernels::MatMulKernel *k =
            kernels::matmulKernel(level, weightType.str());
        k && StringRef(k->quantizer) == "none") {
      c.kernel = k->name;
      return c;
    }
  if (isa<EmbeddingOp>(op))
    c.kernel = ("embedding_" + weightType + "_generic").str();
  else if (isa<MatMulOp>(op))
    c.kernel = ("matmul_" + weightType + "_f32_generic").str();
  else if (auto r = dyn_cast<RoPEOp>(op))
    c.kernel = ("rope_" + r.getStyle() + "_f32_generic").str();
  else
    c.kernel = (op->getName().stripDialect() + "_f32_generic").str();
  return c;
}

double product(ArrayRef<int64_t> v) { // in double: a count that cannot wrap
  double r = 1;
  for (int64_t x : v)
    r *= (double)x;
  return r;
}

/// What a graph call computes, in multiply-adds for the GEMM kernels (read
/// from their parameters, kiln_tensor.h) and in elements of its largest
/// tensor otherwise.
double tensorWork(TensorOp t, bool &gemmLike) {
  ArrayRef<int64_t> p = t.getParams();
  StringRef k = t.getKernel();
  gemmLike = true;
  if (k == "conv" && p.size() >= 7 && p[0] >= 1 &&
      p.size() >= size_t(7 + 3 * p[0])) { // {nsp, N, C, M, G, .., in, k, out}
    const int64_t nsp = p[0];
    return (double)p[1] * p[3] * (p[2] / std::max<int64_t>(1, p[4])) *
           product(p.slice(7 + nsp, nsp)) * product(p.slice(7 + 2 * nsp, nsp));
  }
  if (k == "conv_transpose" && p.size() >= 6 && p[0] >= 1 &&
      p.size() >= size_t(6 + 2 * p[0])) { // {nsp, N, C, M, G, chunk, in, k}
    const int64_t nsp = p[0];
    return (double)p[1] * p[2] * (p[3] / std::max<int64_t>(1, p[4])) *
           product(p.slice(6, nsp)) * product(p.slice(6 + nsp, nsp));
  }
  if (k == "matmul" && p.size() >= 5 && p.size() >= size_t(5 + p[4]))
    return (double)p[1] * p[2] * p[3] * product(p.slice(5, p[4])); // M N K batch
  gemmLike = false; // memory-bound: its largest operand or result
  double elements = 0;
  for (Value v : t->getOperands())
    elements = std::max(
        elements, (double)v.getType().cast<RankedTensorType>().getNumElements());
  for (Value r : t.getResults())
    elements = std::max(
        elements, (double)r.getType().cast<RankedTensorType>().getNumElements());
  return elements;
}

/// A graph call whose kernel splits its work runs in `threads` shares when
/// it is large enough that a share outweighs handing it to another thread
/// (a few microseconds): about 2^18 multiply-adds, or a tensor of 2^16
/// elements for memory-bound work.
int64_t tensorParts(TensorOp t, int64_t threads) {
  if (threads <= 1 || !kernels::tensorKernelHasParts(t.getKernel().str()))
    return 1;
  // Softmax splits its outer index (p = {op, dtype, outer, n, inner}): with
  // one, every share but the first would have nothing to do.
  ArrayRef<int64_t> p = t.getParams();
  if (t.getKernel() == "softmax" && p.size() >= 3 && p[2] < 2)
    return 1;
  bool gemmLike = false;
  const double work = tensorWork(t, gemmLike);
  return work >= (gemmLike ? 0x1p18 : 0x1p16) ? threads : 1;
}

static_assert((int64_t)EpilogueKind::Save == KILN_EP_SAVE &&
                  (int64_t)EpilogueKind::Scalar == KILN_EP_SCALAR &&
                  (int64_t)EpilogueKind::Channel == KILN_EP_CHANNEL &&
                  (int64_t)EpilogueKind::Full == KILN_EP_FULL &&
                  (int64_t)EpilogueKind::Saved == KILN_EP_SAVED &&
                  (int64_t)EpilogueKind::Unary == KILN_EP_UNARY &&
                  (int64_t)EpilogueKind::Clip == KILN_EP_CLIP &&
                  (int64_t)EpilogueKind::BatchNorm == KILN_EP_BATCHNORM &&
                  (int64_t)EpilogueKind::Count == KILN_EP_CALL,
              "kiln.conv's epilogue kinds are kiln_tensor.h's");

/// True if an epilogue runs `code` of kind `kind` on floats: kiln_t_binary's
/// arithmetic (not Pow, which it runs in double, nor the comparisons and
/// logic, which write bools) or a float kiln_t_unary.
bool epilogueCode(int64_t kind, int64_t code) {
  switch ((EpilogueKind)kind) {
  case EpilogueKind::Scalar:
  case EpilogueKind::Channel:
  case EpilogueKind::Full:
  case EpilogueKind::Saved:
    return code >= 0 && code <= KILN_BIN_PRELU && code != KILN_BIN_POW &&
           (code < KILN_BIN_EQUAL || code > KILN_BIN_XOR);
  case EpilogueKind::Unary:
    return code >= 0 && code <= KILN_UN_IDENTITY && code != KILN_UN_NOT;
  default:
    return true;
  }
}

/// kiln.conv as its kernel call, kiln.tensor_op "conv": the algorithm and
/// scratch planConv chooses for its shape, then its epilogue with operand
/// indices counted among the kernel's inputs (X, W, bias, then the
/// epilogue's).
LogicalResult lowerConv(ConvOp conv) {
  auto x = conv.getInput().getType().cast<RankedTensorType>();
  auto w = conv.getFilter().getType().cast<RankedTensorType>();
  auto y = conv.getResult().getType().cast<RankedTensorType>();
  const int64_t n = conv.getSpatialRank();
  ConvGeometry g;
  g.N = x.getDimSize(0);
  g.C = x.getDimSize(1);
  g.M = w.getDimSize(0);
  g.G = conv.getGroup();
  g.in.assign(x.getShape().begin() + 2, x.getShape().end());
  g.k.assign(w.getShape().begin() + 2, w.getShape().end());
  g.out.assign(y.getShape().begin() + 2, y.getShape().end());
  g.stride.assign(conv.getStrides().begin(), conv.getStrides().end());
  g.dil.assign(conv.getDilations().begin(), conv.getDilations().end());
  g.padBegin.assign(conv.getPads().begin(), conv.getPads().begin() + n);
  std::vector<int64_t> params;
  int64_t scratch = 0;
  if (!planConv(g, params, scratch))
    return conv.emitOpError("its scratch overflows 64-bit sizes");
  params.push_back(conv.getEpilogueLength());
  constexpr int64_t kFirst = 3; // the epilogue's inputs follow X, W, bias
  if (auto ep = conv.getEpilogue())
    for (size_t i = 0; i < ep->size(); i += 4) {
      int64_t kind = (*ep)[i], code = (*ep)[i + 1], a = (*ep)[i + 2],
              b = (*ep)[i + 3];
      if (!epilogueCode(kind, code))
        return conv.emitOpError("epilogue operation ")
               << i / 4 << ": no float epilogue runs code " << code;
      switch ((EpilogueKind)kind) {
      case EpilogueKind::Scalar:
      case EpilogueKind::Channel:
      case EpilogueKind::Full:
      case EpilogueKind::BatchNorm:
        a += kFirst;
        break;
      case EpilogueKind::Clip:
        a = a < 0 ? a : a + kFirst;
        b = b < 0 ? b : b + kFirst;
        break;
      default:
        break;
      }
      params.insert(params.end(), {kind, code, a, b});
    }
  SmallVector<Value> operands = {conv.getInput(), conv.getFilter()};
  if (conv.getBias())
    operands.push_back(conv.getBias());
  operands.append(conv.getEpilogueInputs().begin(),
                  conv.getEpilogueInputs().end());
  SmallVector<int64_t> slots;
  if (!conv.getBias()) {
    slots = {0, 1, -1};
    for (int64_t i = 2; i < (int64_t)operands.size(); ++i)
      slots.push_back(i);
  }
  OpBuilder b(conv);
  auto call = b.create<TensorOp>(
      conv.getLoc(), TypeRange{y}, operands, b.getStringAttr("conv"),
      b.getDenseI64ArrayAttr(params),
      conv.getEpilogueFloats() ? conv.getEpilogueFloatsAttr()
                               : DenseF32ArrayAttr(),
      slots.empty() ? DenseI64ArrayAttr() : b.getDenseI64ArrayAttr(slots),
      b.getI64IntegerAttr(scratch), conv.getOnnxOpAttr(), conv.getNodeAttr());
  conv.getResult().replaceAllUsesWith(call->getResult(0));
  conv->erase();
  return success();
}

static_assert(std::size(kBinaryKinds) == KILN_BIN_PRELU + 1 &&
                  kindCode(kBinaryKinds, "pow") == KILN_BIN_POW &&
                  kindCode(kBinaryKinds, "equal") == KILN_BIN_EQUAL &&
                  kindCode(kBinaryKinds, "prelu") == KILN_BIN_PRELU,
              "kiln.binary's kinds are kiln_tensor.h's KILN_BIN_*");
static_assert(std::size(kUnaryKinds) == KILN_UN_IDENTITY + 1 &&
                  kindCode(kUnaryKinds, "hard_sigmoid") ==
                      KILN_UN_HARD_SIGMOID &&
                  kindCode(kUnaryKinds, "not") == KILN_UN_NOT &&
                  kindCode(kUnaryKinds, "celu") == KILN_UN_CELU,
              "kiln.unary's kinds are kiln_tensor.h's KILN_UN_*");

/// kiln_tensor.h's number for an element type of a typed graph op (their
/// verifiers admit only these).
int32_t tensorDtype(Type t) {
  if (t.isF32())
    return KILN_F32;
  if (t.isF64())
    return KILN_F64;
  const bool u = t.isUnsignedInteger();
  switch (t.getIntOrFloatBitWidth()) {
  case 1: return KILN_BOOL;
  case 8: return u ? KILN_U8 : KILN_I8;
  case 16: return u ? KILN_U16 : KILN_I16;
  case 32: return u ? KILN_U32 : KILN_I32;
  default: return u ? KILN_U64 : KILN_I64;
  }
}

int32_t elementDtype(Value v) {
  return tensorDtype(v.getType().cast<ShapedType>().getElementType());
}

std::vector<int64_t> shapeOf(Value v) {
  ArrayRef<int64_t> s = v.getType().cast<ShapedType>().getShape();
  return std::vector<int64_t>(s.begin(), s.end());
}

/// kiln.binary, kiln.unary, kiln.clip and kiln.batchnorm as their kernel
/// calls.
void lowerElementwise(Operation *op) {
  OpBuilder b(op);
  Value y = op->getResult(0);
  SmallVector<int64_t> params;
  DenseF32ArrayAttr floats;
  DenseI64ArrayAttr slots;
  StringRef kernel;
  auto onnxOp = op->getAttrOfType<StringAttr>("onnx_op");
  auto node = op->getAttrOfType<StringAttr>("node");
  const int64_t count = y.getType().cast<ShapedType>().getNumElements();
  if (auto clip = dyn_cast<ClipOp>(op)) { // p = {type, count}, {x, min, max}
    kernel = "clip";
    params = {elementDtype(y), count};
    if (!clip.getMin() || !clip.getMax())
      slots = b.getDenseI64ArrayAttr(
          {0, clip.getMin() ? 1 : -1,
           clip.getMax() ? (clip.getMin() ? 2 : 1) : -1});
  } else if (auto bn = dyn_cast<BatchNormOp>(op)) { // p = {type, N, C, S}
    kernel = "batchnorm";
    auto x = bn.getInput().getType().cast<RankedTensorType>();
    int64_t spatial = 1;
    for (int64_t d : x.getShape().drop_front(2))
      spatial *= d;
    params = {elementDtype(y), x.getDimSize(0), x.getDimSize(1), spatial};
    floats = b.getDenseF32ArrayAttr({bn.getEpsilon().convertToFloat()});
  } else if (auto bin = dyn_cast<BinaryOp>(op)) {
    kernel = "binary";
    std::vector<int64_t> p = planBinary(
        bin.getKindCode(), elementDtype(bin.getLhs()),
        elementDtype(bin.getRhs()), elementDtype(y), shapeOf(bin.getLhs()),
        shapeOf(bin.getRhs()), shapeOf(y));
    params.assign(p.begin(), p.end());
  } else {
    auto un = cast<UnaryOp>(op);
    kernel = "unary";
    params = {un.getKindCode(), elementDtype(y), count};
    floats = b.getDenseF32ArrayAttr(
        {un.getAlpha().convertToFloat(), un.getBeta().convertToFloat()});
  }
  auto call = b.create<TensorOp>(
      op->getLoc(), TypeRange{y.getType()}, op->getOperands(),
      b.getStringAttr(kernel), b.getDenseI64ArrayAttr(params), floats, slots,
      b.getI64IntegerAttr(0), onnxOp, node);
  y.replaceAllUsesWith(call->getResult(0));
  op->erase();
}

/// kiln.pool and kiln.global_pool as their kernel calls: nn.c's
/// kiln_t_pool p = {dtype, kind (0 max, 1 average), count_include_pad,
/// storage_order, indices, nsp, N * C, in, k, out, stride, dilation,
/// pad_begin, pad_end}, an average's per-axis divisors (int64) in the
/// scratch; kiln_t_global_pool p = {dtype, kind, N * C, spatial size}.
void lowerPool(Operation *op) {
  OpBuilder b(op);
  auto x = op->getOperand(0).getType().cast<RankedTensorType>();
  auto y = op->getResult(0).getType().cast<RankedTensorType>();
  const int64_t dtype = tensorDtype(x.getElementType());
  const int64_t NC = x.getDimSize(0) * x.getDimSize(1);
  SmallVector<int64_t> params;
  int64_t scratch = 0;
  StringRef kernel;
  if (auto pool = dyn_cast<PoolOp>(op)) {
    kernel = "pool";
    const bool avg = pool.getKind() == "average";
    const int64_t n = x.getRank() - 2;
    params = {dtype, avg, pool.getCountIncludePad(),
              (int64_t)pool.getStorageOrder(),
              op->getNumResults() > 1, n, NC};
    params.append(x.getShape().begin() + 2, x.getShape().end());
    params.append(pool.getKernelShape().begin(), pool.getKernelShape().end());
    params.append(y.getShape().begin() + 2, y.getShape().end());
    params.append(pool.getStrides().begin(), pool.getStrides().end());
    params.append(pool.getDilations().begin(), pool.getDilations().end());
    params.append(pool.getPads().begin(), pool.getPads().end());
    for (int64_t d = 0; avg && d < n; ++d)
      scratch += y.getDimSize(2 + d) * 8;
  } else {
    kernel = "global_pool";
    params = {dtype, cast<GlobalPoolOp>(op).getKind() == "average", NC,
              x.getNumElements() / std::max<int64_t>(1, NC)};
  }
  auto call = b.create<TensorOp>(
      op->getLoc(), op->getResultTypes(), op->getOperands(),
      b.getStringAttr(kernel), b.getDenseI64ArrayAttr(params),
      DenseF32ArrayAttr(), DenseI64ArrayAttr(), b.getI64IntegerAttr(scratch),
      op->getAttrOfType<StringAttr>("onnx_op"),
      op->getAttrOfType<StringAttr>("node"));
  op->replaceAllUsesWith(call->getResults());
  op->erase();
}

/// kiln.gemm as its kernel call, kiln.tensor_op "gemm": p = {dtype, M, N,
/// K, transA, transB, hasC, C's strides along M and N (0 where it
/// broadcasts)}, f = {alpha, beta}.
void lowerGemm(GemmOp gemm) {
  auto y = gemm.getResult().getType().cast<RankedTensorType>();
  const int64_t M = y.getDimSize(0), N = y.getDimSize(1), K = gemm.getInner();
  const int32_t dtype = tensorDtype(y.getElementType());
  const std::array<int64_t, 2> cs = gemm.getCStrides();
  SmallVector<Value> operands = {gemm.getA(), gemm.getB()};
  if (gemm.getC())
    operands.push_back(gemm.getC());
  OpBuilder b(gemm);
  auto call = b.create<TensorOp>(
      gemm.getLoc(), TypeRange{y}, operands, b.getStringAttr("gemm"),
      b.getDenseI64ArrayAttr({dtype, M, N, K, gemm.getTransA(),
                              gemm.getTransB(), gemm.getC() ? 1 : 0, cs[0],
                              cs[1]}),
      b.getDenseF32ArrayAttr({gemm.getAlpha().convertToFloat(),
                              gemm.getBeta().convertToFloat()}),
      gemm.getC() ? DenseI64ArrayAttr() : b.getDenseI64ArrayAttr({0, 1, -1}),
      b.getI64IntegerAttr(gemmScratch(dtype, K, N, gemm.getTransB())),
      gemm.getOnnxOpAttr(), gemm.getNodeAttr());
  gemm.getResult().replaceAllUsesWith(call->getResult(0));
  gemm->erase();
}

struct SelectKernelsPass : kiln::impl::SelectKernelsBase<SelectKernelsPass> {
  using SelectKernelsBase::SelectKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target = moduleTarget(module);
    if (!target) {
      module.emitError() << "kiln-select-kernels: the module has no "
                            "kiln.target (kilnc records it; in kiln-opt, run "
                            "--kiln-set-target first)";
      return signalPassFailure();
    }
    std::string error;
    const kernels::CpuLevel *level = kernels::resolveCpu(
        target.getIsa().str(), target.getCpu().str(), target.getSveBits(),
        error);
    if (!level) {
      module.emitError() << "kiln-select-kernels: kiln.target "
                         << target.getIsa() << ": " << error;
      return signalPassFailure();
    }
    SymbolTableCollection symbols;
    auto weightType = [&](Operation *op, FlatSymbolRefAttr sym) -> StringRef {
      auto w = symbols.lookupNearestSymbolFrom<WeightOp>(op, sym);
      return w ? weightTypeName(w.getTensorType().getElementType()) : "";
    };
    // Typed graph ops become the calls of the kernels chosen for them.
    SmallVector<Operation *> typed;
    module.walk([&](Operation *op) {
      if (isTypedGraphOp(op))
        typed.push_back(op);
    });
    for (Operation *op : typed) {
      if (auto c = dyn_cast<ConvOp>(op)) {
        if (failed(lowerConv(c)))
          return signalPassFailure();
      } else if (auto g = dyn_cast<GemmOp>(op)) {
        lowerGemm(g);
      } else if (isa<PoolOp, GlobalPoolOp>(op)) {
        lowerPool(op);
      } else {
        lowerElementwise(op);
      }
    }
    Builder b(module.getContext());
    const int64_t threads = moduleLayout(module).threads;
    WalkResult result = module.walk([&](Operation *op) -> WalkResult {
      if (auto t = dyn_cast<TensorOp>(op)) { // graph ops name their kernel
        if (int64_t parts = tensorParts(t, threads); parts > 1)
          op->setAttr("kiln.parts", b.getI64IntegerAttr(parts));
        return WalkResult::advance();
      }
      if (op->getDialect() != op->getContext()->getLoadedDialect<KilnDialect>() ||
          isa<WeightOp, ConstantOp, ReshapeOp>(op)) // data, or a view
        return WalkResult::advance();
      StringRef wt;
      if (auto e = dyn_cast<EmbeddingOp>(op))
        wt = weightType(op, e.getTableAttr());
      else if (auto m = dyn_cast<MatMulOp>(op))
        wt = weightType(op, m.getWeightAttr());
      std::string why;
      KernelChoice choice = choose(op, wt, *level, why);
      if (choice.kernel.empty())
        return op->emitOpError()
               << "no " << target.getIsa() << " kernel: " << why;
      op->setAttr("kiln.kernel", b.getStringAttr(choice.kernel));
      if (!choice.activation.empty())
        op->setAttr("kiln.activation", b.getStringAttr(choice.activation));
      if (!choice.tile.empty())
        op->setAttr("kiln.tile", b.getDenseI64ArrayAttr(choice.tile));
      if (choice.scratchPerRow)
        op->setAttr("kiln.scratch_per_row",
                    b.getI64IntegerAttr(choice.scratchPerRow));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
