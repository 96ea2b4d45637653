//===- FuseTensorEpilogues.cpp - elementwise work into epilogues ---------===//
//
// Exported CNNs follow nearly every convolution (and transposed convolution)
// with a chain of elementwise calls: BatchNormalization (or its Mul and Add
// by per-channel constants), an activation (Relu, Clip, HardSigmoid, or
// HardSwish spelled out as x * Clip(x + 3, 0, 6) / 6), a residual Add.
// Transformers follow each MatMul with the Add of a bias per column, then an
// activation (Swish as x * Sigmoid(x * c), Gelu, Relu) or a residual Add.
// Each is a pass over the whole output and a buffer of its own. As the
// producer's epilogue (kiln_tensor.h) the chain runs on each block of output
// rows while it is in cache, with the standalone kernels' own loops, so
// results are unchanged bit for bit.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"

#include "kernels/tensor/kiln_tensor.h"

#include "mlir/IR/Builders.h"

namespace kiln {
#define GEN_PASS_DEF_FUSETENSOREPILOGUES
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
/// Longest chain between a saved value and the operation that reads it again.
constexpr int kMaxSavedChain = 8;

/// One epilogue operation and what it needs from the graph.
struct Step {
  int64_t kind = 0, code = 0;
  /// Operands (SCALAR/CHANNEL/FULL: one; CLIP: lo and hi, either null).
  Value x, y;
  /// kiln_t_binary's swapped order: op(other, running value).
  bool swap = false;
  SmallVector<Value, 4> channel; // BATCHNORM: scale, B, mean, var
  SmallVector<float, 2> floats;  // UNARY: alpha, beta; BATCHNORM: epsilon
  Operation *op = nullptr;       // the op it replaces
};

/// The output a producer's epilogue runs on: its type and, for a matrix
/// product, its kernel's columns (-1 for a convolution).
struct Output {
  RankedTensorType type;
  int64_t columns = -1;
};

/// How `other` broadcasts against the output: a scalar, the output's own
/// shape, or one value per channel (a convolution's axis 1) or per column (a
/// matrix product's last axis).
std::optional<int64_t> operandKind(Value other, const Output &out) {
  auto t = other.getType().dyn_cast<RankedTensorType>();
  if (!t || !t.getElementType().isF32())
    return std::nullopt;
  if (t.getNumElements() == 1)
    return KILN_EP_SCALAR;
  if (t == out.type)
    return KILN_EP_FULL;
  if (out.columns >= 0)
    return broadcastsPerColumn(t, out.type, out.columns)
               ? std::optional<int64_t>(KILN_EP_COLUMN)
               : std::nullopt;
  if (!broadcastsPerChannel(t, out.type))
    return std::nullopt;
  return KILN_EP_CHANNEL;
}

/// `op` if it is an f32 kiln.binary that an epilogue can run (anything but
/// pow) with a result of type `out`.
BinaryOp epilogueBinary(Operation *op, RankedTensorType out) {
  auto b = dyn_cast_or_null<BinaryOp>(op);
  if (!b || b.getKind() == "pow" || b.getResult().getType() != out ||
      !b.getLhs().getType().cast<ShapedType>().getElementType().isF32() ||
      !b.getRhs().getType().cast<ShapedType>().getElementType().isF32())
    return nullptr;
  return b;
}

/// `u` as an epilogue step on `cur` (of the output's type), if it is one: an
/// f32 binary with a scalar, per-channel (per-column) or same-shape other
/// operand, a unary, a clip with scalar bounds, or (after a convolution) a
/// batch normalization. `saved` may not be read here.
std::optional<Step> matchStep(Operation *u, Value cur, const Output &out,
                              Value saved) {
  if (u->getNumResults() != 1 || u->getResult(0).getType() != out.type)
    return std::nullopt;
  Step s;
  s.op = u;
  if (BinaryOp bin = epilogueBinary(u, out.type)) {
    if ((bin.getLhs() == cur) == (bin.getRhs() == cur))
      return std::nullopt; // neither, or op(x, x)
    s.swap = bin.getRhs() == cur;
    s.x = s.swap ? bin.getLhs() : bin.getRhs();
    if (s.x == saved)
      return std::nullopt;
    std::optional<int64_t> kind = operandKind(s.x, out);
    if (!kind)
      return std::nullopt;
    s.kind = *kind;
    s.code = bin.getKindCode();
    return s;
  }
  if (auto un = dyn_cast<UnaryOp>(u)) {
    if (un.getInput() != cur || !out.type.getElementType().isF32())
      return std::nullopt;
    s.kind = KILN_EP_UNARY;
    s.code = un.getKindCode();
    s.floats = {un.getAlpha().convertToFloat(), un.getBeta().convertToFloat()};
    return s;
  }
  if (auto clip = dyn_cast<ClipOp>(u)) {
    if (clip.getInput() != cur || !out.type.getElementType().isF32())
      return std::nullopt;
    for (Value bound : {clip.getMin(), clip.getMax()})
      if (bound && (bound == saved ||
                    operandKind(bound, out) != std::optional<int64_t>(
                                                   KILN_EP_SCALAR)))
        return std::nullopt;
    s.kind = KILN_EP_CLIP;
    s.x = clip.getMin();
    s.y = clip.getMax();
    return s;
  }
  if (auto bn = dyn_cast<BatchNormOp>(u)) {
    if (bn.getInput() != cur || !out.type.getElementType().isF32() ||
        out.columns >= 0)
      return std::nullopt;
    for (Value v : {bn.getScale(), bn.getBias(), bn.getMean(),
                    bn.getVariance()}) {
      if (v == saved)
        return std::nullopt;
      s.channel.push_back(v);
    }
    s.kind = KILN_EP_BATCHNORM;
    s.floats = {bn.getEpsilon().convertToFloat()};
    return s;
  }
  return std::nullopt;
}

/// The one user of `v`.
Operation *onlyUser(Value v) {
  return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

/// `cur` read by two ops, `a` starting a chain of steps and `b` combining
/// the chain's end with `cur` again (x * Clip(x + 3, 0, 6): HardSwish
/// spelled out): SAVE, the chain, then b on the saved value.
bool matchSaved(Value cur, Operation *a, Operation *b, const Output &out,
                SmallVector<Step> &steps) {
  SmallVector<Step> chain;
  Value v = cur;
  Operation *op = a;
  for (int i = 0; i < kMaxSavedChain && op; ++i) {
    if (op == b) {
      BinaryOp bin = epilogueBinary(b, out.type);
      if (!bin || v == cur ||
          !((bin.getLhs() == cur && bin.getRhs() == v) ||
            (bin.getLhs() == v && bin.getRhs() == cur)))
        return false;
      Step save;
      save.kind = KILN_EP_SAVE;
      Step use;
      use.kind = KILN_EP_SAVED;
      use.code = bin.getKindCode();
      use.swap = bin.getLhs() == cur; // op(saved, running value)
      use.op = b;
      steps.push_back(save);
      steps.append(chain.begin(), chain.end());
      steps.push_back(use);
      return true;
    }
    std::optional<Step> s = matchStep(op, v, out, cur);
    if (!s)
      return false;
    chain.push_back(*s);
    v = op->getResult(0);
    op = onlyUser(v);
  }
  return false;
}

struct FuseTensorEpiloguesPass
    : kiln::impl::FuseTensorEpiloguesBase<FuseTensorEpiloguesPass> {
  using FuseTensorEpiloguesBase::FuseTensorEpiloguesBase;

  void runOnOperation() override {
    SmallVector<Operation *> producers;
    getOperation().walk([&](Operation *op) {
      if (isa<ConvOp, ConvTransposeOp, GemmOp, BatchMatMulOp>(op))
        producers.push_back(op);
    });
    for (Operation *op : producers) {
      if (auto c = dyn_cast<ConvOp>(op))
        fuse(c, -1);
      else if (auto ct = dyn_cast<ConvTransposeOp>(op))
        fuse(ct, -1);
      else if (auto g = dyn_cast<GemmOp>(op))
        fuse(g, g.getResult().getType().cast<ShapedType>().getDimSize(1));
      else {
        auto mm = cast<BatchMatMulOp>(op);
        auto b = mm.getB().getType().cast<ShapedType>();
        fuse(mm, b.getRank() > 1 ? b.getDimSize(b.getRank() - 1) : 1);
      }
    }
  }

  /// Fuses the chain after `producer` (a kiln.conv, kiln.conv_transpose, or
  /// with its `columns` a kiln.gemm or kiln.batch_matmul) into its epilogue;
  /// the producer moves to where the chain ended.
  template <typename Producer> void fuse(Producer producer, int64_t columns) {
    Output out;
    out.type =
        producer.getResult().getType().template dyn_cast<RankedTensorType>();
    out.columns = columns;
    if (!out.type || !out.type.getElementType().isF32())
      return;
    SmallVector<Step> steps;
    Value cur = producer.getResult();
    while (true) {
      SmallVector<Operation *> users(cur.getUsers().begin(),
                                     cur.getUsers().end());
      if (users.size() == 1) {
        std::optional<Step> s = matchStep(users[0], cur, out, Value());
        if (!s)
          break;
        steps.push_back(*s);
        cur = users[0]->getResult(0);
        continue;
      }
      if (users.size() == 2 && users[0] != users[1]) {
        Operation *u0 = users[0], *u1 = users[1];
        SmallVector<Step> saved;
        if (!matchSaved(cur, u0, u1, out, saved) &&
            !matchSaved(cur, u1, u0, out, saved))
          break;
        steps.append(saved.begin(), saved.end());
        cur = saved.back().op->getResult(0);
        continue;
      }
      break;
    }
    if (steps.empty())
      return;

    // The epilogue's operands, floats and operations so far.
    SmallVector<Value> operands(producer.getEpilogueInputs().begin(),
                                producer.getEpilogueInputs().end());
    SmallVector<int64_t> ops;
    SmallVector<float> floats;
    if (auto e = producer.getEpilogue())
      ops.assign(e->begin(), e->end());
    if (auto f = producer.getEpilogueFloats())
      floats.assign(f->begin(), f->end());
    auto input = [&](Value v) -> int64_t {
      if (!v)
        return -1;
      operands.push_back(v);
      return (int64_t)operands.size() - 1;
    };
    SmallVector<Location> locs = {producer->getLoc()};
    for (const Step &s : steps) {
      int64_t a = 0, c = 0;
      switch (s.kind) {
      case KILN_EP_SCALAR:
      case KILN_EP_CHANNEL:
      case KILN_EP_FULL:
      case KILN_EP_COLUMN:
        a = input(s.x);
        c = s.swap;
        break;
      case KILN_EP_SAVED:
        c = s.swap;
        break;
      case KILN_EP_UNARY:
        a = (int64_t)floats.size();
        floats.append(s.floats.begin(), s.floats.end());
        break;
      case KILN_EP_CLIP:
        a = input(s.x);
        c = input(s.y);
        break;
      case KILN_EP_BATCHNORM: // the four vectors as consecutive inputs
        a = input(s.channel[0]);
        for (int i = 1; i < 4; ++i)
          input(s.channel[i]);
        c = (int64_t)floats.size();
        floats.push_back(s.floats[0]);
        break;
      }
      ops.append({s.kind, s.code, a, c});
      if (s.op)
        locs.push_back(s.op->getLoc());
    }

    Operation *last = steps.back().op;
    Builder b(producer.getContext());
    producer.getEpilogueInputsMutable().assign(operands);
    producer.setEpilogueAttr(b.getDenseI64ArrayAttr(ops));
    if (!floats.empty())
      producer.setEpilogueFloatsAttr(b.getDenseF32ArrayAttr(floats));
    producer->setLoc(b.getFusedLoc(locs));
    // After the chain's last op, so that every operand it read is defined.
    producer->moveBefore(last);
    last->getResult(0).replaceAllUsesWith(producer.getResult());
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
      if (it->op)
        it->op->erase();
  }
};
} // namespace
