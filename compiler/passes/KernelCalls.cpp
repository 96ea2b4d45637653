//===- KernelCalls.cpp - the kernel call a typed graph op becomes ---------===//
#include "compiler/passes/KernelCalls.h"

#include "compiler/dialect/KilnDialect.h"
#include "compiler/support/TensorPlans.h"
#include "kernels/tensor/kiln_tensor.h"

#include "mlir/IR/TypeUtilities.h"

#include <algorithm>
#include <iterator>
#include <type_traits>

using namespace mlir;
using namespace kiln;

namespace {
static_assert((int64_t)EpilogueKind::Save == KILN_EP_SAVE &&
                  (int64_t)EpilogueKind::Scalar == KILN_EP_SCALAR &&
                  (int64_t)EpilogueKind::Channel == KILN_EP_CHANNEL &&
                  (int64_t)EpilogueKind::Full == KILN_EP_FULL &&
                  (int64_t)EpilogueKind::Saved == KILN_EP_SAVED &&
                  (int64_t)EpilogueKind::Unary == KILN_EP_UNARY &&
                  (int64_t)EpilogueKind::Clip == KILN_EP_CLIP &&
                  (int64_t)EpilogueKind::BatchNorm == KILN_EP_BATCHNORM &&
                  (int64_t)EpilogueKind::Call == KILN_EP_CALL &&
                  (int64_t)EpilogueKind::Column == KILN_EP_COLUMN,
              "the typed ops' epilogue kinds are kiln_tensor.h's");

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

static_assert(std::size(kReduceKinds) == KILN_RED_LOGSUMEXP + 1 &&
                  kindCode(kReduceKinds, "sum_square") == KILN_RED_SUMSQ &&
                  kindCode(kReduceKinds, "log_sum") == KILN_RED_LOGSUM,
              "kiln.reduce's kinds are kiln_tensor.h's KILN_RED_*");
static_assert(std::size(kScatterReductions) == KILN_SCATTER_MIN + 1 &&
                  kindCode(kScatterReductions, "mul") == KILN_SCATTER_MUL,
              "the scatters' reductions are kiln_tensor.h's KILN_SCATTER_*");
static_assert(std::size(kPadModes) == KILN_PAD_EDGE + 1 &&
                  kindCode(kPadModes, "reflect") == KILN_PAD_REFLECT,
              "kiln.pad's modes are kiln_tensor.h's KILN_PAD_*");
static_assert(std::size(kSoftmaxKinds) == KILN_SM_HARDMAX + 1 &&
                  kindCode(kSoftmaxKinds, "log_softmax") == KILN_SM_LOGSOFTMAX,
              "kiln.softmax's kinds are kiln_tensor.h's KILN_SM_*");

/// kiln_tensor.h's number for an element type of a typed graph op (their
/// verifiers admit only these).
int32_t tensorDtype(Type t) {
  if (t.isF32())
    return KILN_F32;
  if (t.isF64())
    return KILN_F64;
  if (t.isF16())
    return KILN_F16;
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

int64_t elements(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// True if an epilogue runs `code` of kind `kind` on floats: kiln_t_binary's
/// arithmetic (not Pow, which it runs in double, nor the comparisons and
/// logic, which write bools) or a float kiln_t_unary.
bool epilogueCode(int64_t kind, int64_t code) {
  switch ((EpilogueKind)kind) {
  case EpilogueKind::Scalar:
  case EpilogueKind::Channel:
  case EpilogueKind::Full:
  case EpilogueKind::Saved:
  case EpilogueKind::Column:
    return code >= 0 && code <= KILN_BIN_PRELU && code != KILN_BIN_POW &&
           (code < KILN_BIN_EQUAL || code > KILN_BIN_XOR);
  case EpilogueKind::Unary:
    return code >= 0 && code <= KILN_UN_IDENTITY && code != KILN_UN_NOT;
  default:
    return true;
  }
}

/// A kiln.conv's or kiln.conv_transpose's geometry.
template <typename ConvLike> ConvGeometry geometryOf(ConvLike conv) {
  auto x = conv.getInput().getType().template cast<RankedTensorType>();
  auto w = conv.getFilter().getType().template cast<RankedTensorType>();
  auto y = conv.getResult().getType().template cast<RankedTensorType>();
  ConvGeometry g;
  g.N = x.getDimSize(0);
  g.C = x.getDimSize(1);
  g.M = y.getDimSize(1);
  g.G = conv.getGroup();
  g.in.assign(x.getShape().begin() + 2, x.getShape().end());
  g.k.assign(w.getShape().begin() + 2, w.getShape().end());
  g.out.assign(y.getShape().begin() + 2, y.getShape().end());
  g.stride.assign(conv.getStrides().begin(), conv.getStrides().end());
  g.dil.assign(conv.getDilations().begin(), conv.getDilations().end());
  g.padBegin.assign(conv.getPads().begin(),
                    conv.getPads().begin() + conv.getSpatialRank());
  return g;
}

/// Appends the epilogue of `op` (a kiln.conv, kiln.conv_transpose,
/// kiln.gemm or kiln.batch_matmul) to `call`: its count and operations, with
/// operand indices counted among the kernel's inputs (the epilogue's follow
/// the first `first`) and float indices among its floats (the epilogue's
/// follow those already in `call`). Its inputs take the slots after the
/// op's own operands, `first` of them with an absent one (-1), when `call`
/// has slots.
template <typename OpWithEpilogue>
bool appendEpilogue(OpWithEpilogue op, int64_t first, KernelCall &call,
                    std::string &why) {
  call.params.push_back(op.getEpilogueLength());
  const int64_t floatsAt = (int64_t)call.floats.size();
  if (auto ep = op.getEpilogue())
    for (size_t i = 0; i < ep->size(); i += 4) {
      int64_t kind = (*ep)[i], code = (*ep)[i + 1], a = (*ep)[i + 2],
              b = (*ep)[i + 3];
      if (!epilogueCode(kind, code)) {
        why = "epilogue operation " + std::to_string(i / 4) +
              ": no float epilogue runs code " + std::to_string(code);
        return false;
      }
      switch ((EpilogueKind)kind) {
      case EpilogueKind::Scalar:
      case EpilogueKind::Channel:
      case EpilogueKind::Full:
      case EpilogueKind::Column:
        a += first;
        break;
      case EpilogueKind::BatchNorm:
        a += first;
        b += floatsAt;
        break;
      case EpilogueKind::Unary:
        a += floatsAt;
        break;
      case EpilogueKind::Clip:
        a = a < 0 ? a : a + first;
        b = b < 0 ? b : b + first;
        break;
      default:
        break;
      }
      call.params.append({kind, code, a, b});
    }
  if (auto f = op.getEpilogueFloats())
    call.floats.append(f->begin(), f->end());
  // The epilogue's inputs are the op's last operands.
  const int64_t nOps = op->getNumOperands();
  if (!call.slots.empty())
    for (int64_t i = nOps - (int64_t)op.getEpilogueInputs().size(); i < nOps;
         ++i)
      call.slots.push_back(i);
  return true;
}

/// The call of a kiln.conv ("conv") or kiln.conv_transpose
/// ("conv_transpose"): the parameters and scratch TensorPlans chooses for
/// its shape, then its epilogue with operand indices counted among the
/// kernel's inputs (X, W, bias, then the epilogue's).
template <typename ConvLike>
std::optional<KernelCall> convCall(ConvLike conv, std::string &why) {
  const bool transposed = std::is_same<ConvLike, ConvTransposeOp>::value;
  std::vector<int64_t> params;
  int64_t scratch = 0;
  if (!(transposed ? planConvTranspose : planConv)(geometryOf(conv), params,
                                                    scratch)) {
    why = "its scratch overflows 64-bit sizes";
    return std::nullopt;
  }
  KernelCall call(transposed ? "conv_transpose" : "conv",
                  SmallVector<int64_t>(params.begin(), params.end()));
  if (!conv.getBias())
    call.slots = {0, 1, -1};
  if (!appendEpilogue(conv, 3, call, why)) // after X, W, bias
    return std::nullopt;
  call.scratch = scratch;
  return call;
}

/// kiln.conv_blocked: blocked.c's kiln_t_conv_nchwc p = {N, C, M, b,
/// depthwise, IH, IW, KH, KW, OH, OW, SH, SW, DH, DW, PH, PW, epilogue...}.
/// It reads C, the real input channels, from the filter (dense) or M.
std::optional<KernelCall> blockedConvCall(ConvBlockedOp conv,
                                          std::string &why) {
  auto x = conv.getInput().getType().cast<RankedTensorType>();
  auto w = conv.getFilter().getType().cast<RankedTensorType>();
  auto y = conv.getResult().getType().cast<RankedTensorType>();
  const int64_t b = conv.getBlock(), M = conv.getChannels();
  const bool dw = conv.getDepthwise();
  const int64_t C = dw ? M : x.getDimSize(1) * b;
  ArrayRef<int64_t> st = conv.getStrides(), dl = conv.getDilations(),
                    pd = conv.getPads();
  KernelCall call("conv_nchwc",
                  {x.getDimSize(0), C, M, b, dw ? 1 : 0, x.getDimSize(2),
                   x.getDimSize(3), w.getDimSize(dw ? 1 : 2),
                   w.getDimSize(dw ? 2 : 3), y.getDimSize(2), y.getDimSize(3),
                   st[0], st[1], dl[0], dl[1], pd[0], pd[1]});
  if (!conv.getBias())
    call.slots = {0, 1, -1};
  if (!appendEpilogue(conv, 3, call, why)) // after X, W, bias
    return std::nullopt;
  return call;
}

/// kiln.block_channels and kiln.unblock_channels: p = {N, C, S, b}.
KernelCall channelBlocksCall(Operation *op) {
  const bool block = isa<BlockChannelsOp>(op);
  auto plain = (block ? op->getOperand(0) : op->getResult(0))
                   .getType()
                   .cast<RankedTensorType>();
  auto blocked = (block ? op->getResult(0) : op->getOperand(0))
                     .getType()
                     .cast<RankedTensorType>();
  return KernelCall{block ? "block_channels" : "unblock_channels",
                    {plain.getDimSize(0), plain.getDimSize(1),
                     elements(plain.getShape().drop_front(2)),
                     blocked.getShape().back()}};
}

/// kiln.binary, kiln.unary, kiln.clip and kiln.batchnorm.
KernelCall elementwiseCall(Operation *op) {
  Value y = op->getResult(0);
  const int64_t count = y.getType().cast<ShapedType>().getNumElements();
  if (auto clip = dyn_cast<ClipOp>(op)) { // p = {type, count}, {x, min, max}
    KernelCall call{"clip", {elementDtype(y), count}};
    if (!clip.getMin() || !clip.getMax())
      call.slots = {0, clip.getMin() ? 1 : -1,
                    clip.getMax() ? (clip.getMin() ? 2 : 1) : -1};
    return call;
  }
  if (auto bn = dyn_cast<BatchNormOp>(op)) { // p = {type, N, C, S}, {eps}
    auto x = bn.getInput().getType().cast<RankedTensorType>();
    KernelCall call{"batchnorm",
                    {elementDtype(y), x.getDimSize(0), x.getDimSize(1),
                     elements(x.getShape().drop_front(2))}};
    call.floats = {bn.getEpsilon().convertToFloat()};
    return call;
  }
  if (auto bin = dyn_cast<BinaryOp>(op)) {
    std::vector<int64_t> p = planBinary(
        bin.getKindCode(), elementDtype(bin.getLhs()),
        elementDtype(bin.getRhs()), elementDtype(y), shapeOf(bin.getLhs()),
        shapeOf(bin.getRhs()), shapeOf(y));
    return KernelCall{"binary", SmallVector<int64_t>(p.begin(), p.end())};
  }
  auto un = cast<UnaryOp>(op); // p = {code, type, count}, {alpha, beta}
  KernelCall call{"unary", {un.getKindCode(), elementDtype(y), count}};
  call.floats = {un.getAlpha().convertToFloat(), un.getBeta().convertToFloat()};
  return call;
}

/// kiln.pool: nn.c's kiln_t_pool p = {dtype, kind (0 max, 1 average),
/// count_include_pad, storage_order, indices, nsp, N * C, in, k, out,
/// stride, dilation, pad_begin, pad_end}, an average's per-axis divisors
/// (int64) in the scratch. kiln.global_pool: kiln_t_global_pool p = {dtype,
/// kind, N * C, spatial size}.
KernelCall poolCall(Operation *op) {
  auto x = op->getOperand(0).getType().cast<RankedTensorType>();
  auto y = op->getResult(0).getType().cast<RankedTensorType>();
  const int64_t dtype = tensorDtype(x.getElementType());
  const int64_t NC = x.getDimSize(0) * x.getDimSize(1);
  if (auto g = dyn_cast<GlobalPoolOp>(op))
    return KernelCall{"global_pool",
                      {dtype, g.getKind() == "average", NC,
                       x.getNumElements() / std::max<int64_t>(1, NC)}};
  auto pool = cast<PoolOp>(op);
  const bool avg = pool.getKind() == "average";
  const int64_t n = x.getRank() - 2;
  KernelCall call{"pool",
                  {dtype, avg, pool.getCountIncludePad(),
                   (int64_t)pool.getStorageOrder(), op->getNumResults() > 1, n,
                   NC}};
  SmallVector<int64_t> &p = call.params;
  p.append(x.getShape().begin() + 2, x.getShape().end());
  p.append(pool.getKernelShape().begin(), pool.getKernelShape().end());
  p.append(y.getShape().begin() + 2, y.getShape().end());
  p.append(pool.getStrides().begin(), pool.getStrides().end());
  p.append(pool.getDilations().begin(), pool.getDilations().end());
  p.append(pool.getPads().begin(), pool.getPads().end());
  for (int64_t d = 0; avg && d < n; ++d)
    call.scratch += y.getDimSize(2 + d) * 8;
  return call;
}

/// kiln.gemm: p = {dtype, M, N, K, transA, transB, hasC, C's strides along
/// M and N (0 where it broadcasts), epilogue...}, f = {alpha, beta,
/// epilogue floats...}.
std::optional<KernelCall> gemmCall(GemmOp gemm, std::string &why) {
  auto y = gemm.getResult().getType().cast<RankedTensorType>();
  const int64_t M = y.getDimSize(0), N = y.getDimSize(1), K = gemm.getInner();
  const int32_t dtype = tensorDtype(y.getElementType());
  const std::array<int64_t, 2> cs = gemm.getCStrides();
  KernelCall call{"gemm",
                  {dtype, M, N, K, gemm.getTransA(), gemm.getTransB(),
                   gemm.getC() ? 1 : 0, cs[0], cs[1]}};
  call.floats = {gemm.getAlpha().convertToFloat(),
                 gemm.getBeta().convertToFloat()};
  if (!gemm.getC())
    call.slots = {0, 1, -1};
  if (!appendEpilogue(gemm, 3, call, why)) // after A, B, C
    return std::nullopt;
  call.scratch = gemmScratch(dtype, K, N, gemm.getTransB());
  return call;
}

/// kiln.batch_matmul: kiln_t_matmul's parameters (TensorPlans), then its
/// epilogue.
std::optional<KernelCall> matmulCall(BatchMatMulOp mm, std::string &why) {
  const int32_t dtype = elementDtype(mm.getResult());
  std::vector<int64_t> p =
      planMatMul(dtype, shapeOf(mm.getA()), shapeOf(mm.getB()));
  KernelCall call{"matmul", SmallVector<int64_t>(p.begin(), p.end())};
  call.scratch = matmulScratchBytes(dtype);
  if (!appendEpilogue(mm, 2, call, why)) // after A, B
    return std::nullopt;
  return call;
}

/// The normalizations (kiln.softmax, kiln.layer_norm,
/// kiln.instance_norm, kiln.lrn) and the reductions (kiln.reduce,
/// kiln.arg_reduce); each kernel documents its parameters
/// (kernels/tensor/*.c).
KernelCall normalizeOrReduceCall(Operation *op) {
  auto x = op->getOperand(0).getType().cast<RankedTensorType>();
  ArrayRef<int64_t> shape = x.getShape();
  const int32_t dtype = tensorDtype(x.getElementType());
  if (auto sm = dyn_cast<SoftmaxOp>(op)) { // {kind, dtype, outer, n, inner}
    const int64_t a = sm.getAxis();
    const int64_t n = sm.getFlatten() ? elements(shape.drop_front(a)) : shape[a];
    const int64_t inner = sm.getFlatten() ? 1 : elements(shape.drop_front(a + 1));
    KernelCall call{"softmax", {sm.getKindCode(), dtype,
                                elements(shape.take_front(a)), n, inner}};
    call.scratch = softmaxScratchBytes(dtype, inner);
    return call;
  }
  if (auto ln = dyn_cast<LayerNormOp>(op)) { // {dtype, outer, n}, {epsilon}
    const int64_t a = ln.getAxis();
    KernelCall call{"layernorm", {dtype, elements(shape.take_front(a)),
                                  elements(shape.drop_front(a))}};
    call.floats = {ln.getEpsilon().convertToFloat()};
    if (!ln.getBias())
      call.slots = {0, 1, -1};
    return call;
  }
  if (auto in = dyn_cast<InstanceNormOp>(op)) { // {dtype, N, C, S}, {eps}
    KernelCall call{"instancenorm", {dtype, shape[0], shape[1],
                                     elements(shape.drop_front(2))}};
    call.floats = {in.getEpsilon().convertToFloat()};
    return call;
  }
  if (auto lrn = dyn_cast<LrnOp>(op)) { // {N, C, S, size}, {alpha, beta, bias}
    KernelCall call{"lrn", {shape[0], shape[1], elements(shape.drop_front(2)),
                            (int64_t)lrn.getSize()}};
    call.floats = {lrn.getAlpha().convertToFloat(),
                   lrn.getBeta().convertToFloat(),
                   lrn.getBias().convertToFloat()};
    return call;
  }
  if (auto r = dyn_cast<ReduceOp>(op)) {
    std::vector<bool> reduced(shape.size(), false);
    for (int64_t a : r.getAxes())
      reduced[a] = true;
    KernelCall call{"reduce"};
    std::vector<int64_t> p = planReduce(
        r.getKindCode(), dtype, shapeOf(r.getInput()), reduced,
        r.getResult().getType().cast<ShapedType>().getNumElements(),
        call.scratch);
    call.params.assign(p.begin(), p.end());
    return call;
  }
  // {dtype, outer, n, inner, is_min, select_last}
  auto arg = cast<ArgReduceOp>(op);
  const int64_t a = arg.getAxis();
  return KernelCall{"argminmax",
                    {dtype, elements(shape.take_front(a)), shape[a],
                     elements(shape.drop_front(a + 1)), arg.getKind() == "min",
                     arg.getSelectLastIndex()}};
}
/// Bytes of one element (a byte per i1).
int64_t elementBytes(Type t) {
  return t.isInteger(1) ? 1 : (t.getIntOrFloatBitWidth() + 7) / 8;
}

/// Appends the indices' shape, then the input's dense strides: how
/// gather_elements and scatter_elements walk their elements.
void appendElementWalk(KernelCall &call, ShapedType indices, Value input) {
  call.params.append(indices.getShape().begin(), indices.getShape().end());
  std::vector<int64_t> st = denseStrides(shapeOf(input));
  call.params.append(st.begin(), st.end());
}

/// The data-movement ops; each kernel documents its parameters
/// (kernels/tensor/movement.c, elementwise.c).
std::optional<KernelCall> movementCall(Operation *op, std::string &why) {
  auto x = op->getOperand(0).getType().cast<RankedTensorType>();
  const int64_t bytes = elementBytes(x.getElementType());
  if (auto cat = dyn_cast<ConcatOp>(op)) { // {n, outer, bytes per input row}
    const int64_t a = cat.getAxis();
    KernelCall call("concat", {(int64_t)op->getNumOperands(),
                               elements(x.getShape().take_front(a))});
    for (Value v : cat.getInputs())
      call.params.push_back(
          elements(v.getType().cast<ShapedType>().getShape().drop_front(a)) *
          bytes);
    return call;
  }
  if (auto split = dyn_cast<SplitOp>(op)) { // {n, outer, bytes per part row}
    const int64_t a = split.getAxis();
    const int64_t inner = elements(x.getShape().drop_front(a + 1)) * bytes;
    KernelCall call("split", {(int64_t)op->getNumResults(),
                              elements(x.getShape().take_front(a))});
    for (Type t : op->getResultTypes())
      call.params.push_back(t.cast<ShapedType>().getDimSize(a) * inner);
    return call;
  }
  if (auto g = dyn_cast<GatherOp>(op)) {
    // {bytes, index type, outer, dim, inner bytes / bytes, index count}
    const int64_t a = g.getAxis();
    auto idx = g.getIndices().getType().cast<ShapedType>();
    return KernelCall("gather", {bytes, tensorDtype(idx.getElementType()),
                                 elements(x.getShape().take_front(a)),
                                 x.getDimSize(a),
                                 elements(x.getShape().drop_front(a + 1)),
                                 idx.getNumElements()});
  }
  if (auto w = dyn_cast<WhereOp>(op)) {
    // {bytes, rank, shape, the strides of condition, x and y}
    std::vector<int64_t> shape = shapeOf(w.getResult());
    KernelCall call("where", {elementBytes(w.getX().getType()
                                               .cast<ShapedType>()
                                               .getElementType()),
                              (int64_t)shape.size()});
    call.params.append(shape.begin(), shape.end());
    for (Value v : op->getOperands()) {
      std::vector<int64_t> s = broadcastStrides(shapeOf(v), shape);
      call.params.append(s.begin(), s.end());
    }
    return call;
  }
  if (auto sc = dyn_cast<StridedCopyOp>(op)) {
    // {bytes, offset, rank, shape, strides}, dimensions merged
    std::vector<int64_t> p;
    int64_t rank = 0;
    if (!planStridedCopy(bytes, sc.getOffset(),
                         std::vector<int64_t>(sc.getShape().begin(),
                                              sc.getShape().end()),
                         std::vector<int64_t>(sc.getStrides().begin(),
                                              sc.getStrides().end()),
                         p, rank)) {
      why = "the copy needs " + std::to_string(rank) +
            " dimensions after merging; the kernel's maximum is 16";
      return std::nullopt;
    }
    return KernelCall("strided_copy", SmallVector<int64_t>(p.begin(), p.end()));
  }
  if (auto g = dyn_cast<GatherElementsOp>(op)) {
    // {bytes, index type, rank, axis, axis size, indices' shape, input's
    // strides}
    auto idx = g.getIndices().getType().cast<ShapedType>();
    KernelCall call("gather_elements",
                    {bytes, tensorDtype(idx.getElementType()), x.getRank(),
                     (int64_t)g.getAxis(), x.getDimSize(g.getAxis())});
    appendElementWalk(call, idx, g.getInput());
    return call;
  }
  if (auto sc = dyn_cast<ScatterElementsOp>(op)) {
    // {type, reduction, index type, rank, axis, axis size, elements,
    // indices' shape, input's strides}
    auto idx = sc.getIndices().getType().cast<ShapedType>();
    KernelCall call("scatter_elements",
                    {tensorDtype(x.getElementType()),
                     kindCode(kScatterReductions, sc.getReduction()),
                     tensorDtype(idx.getElementType()), x.getRank(),
                     (int64_t)sc.getAxis(), x.getDimSize(sc.getAxis()),
                     x.getNumElements()});
    appendElementWalk(call, idx, sc.getInput());
    return call;
  }
  if (auto g = dyn_cast<GatherNdOp>(op)) {
    // {bytes, index type, batch, tuples per batch, k, slice elements,
    // elements per batch, the k dimensions, their strides}
    auto idx = g.getIndices().getType().cast<ShapedType>();
    const int64_t b = g.getBatchDims(), k = idx.getShape().back();
    ArrayRef<int64_t> xs = x.getShape();
    KernelCall call("gather_nd",
                    {bytes, tensorDtype(idx.getElementType()),
                     elements(xs.take_front(b)),
                     elements(idx.getShape().slice(b, idx.getRank() - 1 - b)),
                     k, elements(xs.drop_front(b + k)),
                     elements(xs.drop_front(b))});
    call.params.append(xs.begin() + b, xs.begin() + b + k);
    std::vector<int64_t> st =
        denseStrides(std::vector<int64_t>(xs.begin() + b, xs.end()));
    call.params.append(st.begin(), st.begin() + k);
    return call;
  }
  if (auto sc = dyn_cast<ScatterNdOp>(op)) {
    // {type, reduction, index type, elements, tuples, k, slice elements,
    // the k dimensions, their strides}
    auto idx = sc.getIndices().getType().cast<ShapedType>();
    const int64_t k = idx.getShape().back();
    ArrayRef<int64_t> xs = x.getShape();
    KernelCall call("scatter_nd",
                    {tensorDtype(x.getElementType()),
                     kindCode(kScatterReductions, sc.getReduction()),
                     tensorDtype(idx.getElementType()), x.getNumElements(),
                     elements(idx.getShape().drop_back()), k,
                     elements(xs.drop_front(k))});
    call.params.append(xs.begin(), xs.begin() + k);
    std::vector<int64_t> st = denseStrides(shapeOf(sc.getInput()));
    call.params.append(st.begin(), st.begin() + k);
    return call;
  }
  if (auto cs = dyn_cast<CumSumOp>(op)) {
    // {type, outer, axis size, inner, exclusive, reverse}
    const int64_t a = cs.getAxis();
    return KernelCall("cumsum", {tensorDtype(x.getElementType()),
                                 elements(x.getShape().take_front(a)),
                                 x.getDimSize(a),
                                 elements(x.getShape().drop_front(a + 1)),
                                 cs.getExclusive(), cs.getReverse()});
  }
  if (auto pad = dyn_cast<PadOp>(op)) {
    // {bytes, mode, rank, input shape, output shape, begin pads}
    auto y = pad.getResult().getType().cast<ShapedType>();
    const int64_t r = x.getRank();
    KernelCall call("pad", {bytes, kindCode(kPadModes, pad.getMode()), r});
    call.params.append(x.getShape().begin(), x.getShape().end());
    call.params.append(y.getShape().begin(), y.getShape().end());
    call.params.append(pad.getPads().begin(), pad.getPads().begin() + r);
    if (!pad.getValue())
      call.slots = {0, -1};
    return call;
  }
  if (auto r = dyn_cast<ResizeAxisOp>(op)) {
    // {dtype, outer, in, out, inner, taps, indices}, {extrapolation, weights}
    const int64_t a = r.getAxis();
    auto y = r.getResult().getType().cast<ShapedType>();
    KernelCall call("resize_axis",
                    {tensorDtype(x.getElementType()),
                     elements(x.getShape().take_front(a)), x.getDimSize(a),
                     y.getDimSize(a), elements(x.getShape().drop_front(a + 1)),
                     (int64_t)r.getTaps()});
    call.params.append(r.getIndices().begin(), r.getIndices().end());
    call.floats.push_back(r.getExtrapolationValue().convertToFloat());
    call.floats.append(r.getWeights().begin(), r.getWeights().end());
    return call;
  }
  if (auto t = dyn_cast<TriluOp>(op)) {
    // {bytes, matrices, rows, cols, k, upper}; a diagonal past the matrix
    // keeps all or nothing, so k is clamped to keep row + k in range.
    const int64_t r = x.getRank(), rows = x.getDimSize(r - 2),
                  cols = x.getDimSize(r - 1);
    return KernelCall("trilu", {bytes, elements(x.getShape().drop_back(2)),
                                rows, cols,
                                std::clamp<int64_t>(t.getK(), -rows, cols),
                                t.getUpper()});
  }
  if (auto oh = dyn_cast<OneHotOp>(op)) {
    // {value bytes, index type, outer, depth, inner}
    const int64_t a = oh.getAxis();
    return KernelCall("one_hot",
                      {elementBytes(getElementTypeOrSelf(oh.getValues())),
                       tensorDtype(x.getElementType()),
                       elements(x.getShape().take_front(a)), (int64_t)oh.getDepth(),
                       elements(x.getShape().drop_front(a))});
  }
  auto conversion = cast<CastOp>(op); // {from, to, count}
  return KernelCall("cast", {tensorDtype(x.getElementType()),
                             elementDtype(conversion.getResult()),
                             x.getNumElements()});
}
} // namespace

std::optional<KernelCall> kiln::kernelCallOf(Operation *op, std::string &why) {
  if (auto conv = dyn_cast<ConvOp>(op))
    return convCall(conv, why);
  if (auto conv = dyn_cast<ConvTransposeOp>(op))
    return convCall(conv, why);
  if (auto conv = dyn_cast<ConvBlockedOp>(op))
    return blockedConvCall(conv, why);
  if (isa<BlockChannelsOp, UnblockChannelsOp>(op))
    return channelBlocksCall(op);
  if (auto gemm = dyn_cast<GemmOp>(op))
    return gemmCall(gemm, why);
  if (isa<PoolOp, GlobalPoolOp>(op))
    return poolCall(op);
  if (isa<BinaryOp, UnaryOp, ClipOp, BatchNormOp>(op))
    return elementwiseCall(op);
  if (auto mm = dyn_cast<BatchMatMulOp>(op))
    return matmulCall(mm, why);
  if (isa<SoftmaxOp, LayerNormOp, InstanceNormOp, LrnOp, ReduceOp,
          ArgReduceOp>(op))
    return normalizeOrReduceCall(op);
  if (isa<ConcatOp, SplitOp, GatherOp, WhereOp, CastOp, StridedCopyOp,
          GatherElementsOp, ScatterElementsOp, GatherNdOp, ScatterNdOp,
          CumSumOp, PadOp, ResizeAxisOp, TriluOp, OneHotOp>(op))
    return movementCall(op, why);
  why = "is not a typed graph op";
  return std::nullopt;
}
