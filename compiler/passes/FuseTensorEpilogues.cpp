//===- FuseTensorEpilogues.cpp - graph elementwise work into conv epilogues ===//
//
// Exported CNNs follow nearly every convolution (and transposed convolution)
// with a chain of elementwise calls: BatchNormalization (or its Mul and Add
// by per-channel constants), an activation (Relu, Clip, HardSigmoid, or
// HardSwish spelled out as x * Clip(x + 3, 0, 6) / 6), a residual Add. Each
// is a pass over the whole output and a buffer of its own. As the
// convolution's epilogue (kiln_tensor.h) the chain runs on each block of
// output rows while it is in cache, with the standalone kernels' own loops,
// so results are unchanged bit for bit.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/ChannelOperands.h"
#include "compiler/passes/Passes.h"

#include "kernels/KernelTable.h"
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
  TensorOp op;                  // the call it replaces
};

/// How `other` broadcasts against the output type `out` ([N, M, ...]): a
/// scalar, one value per channel (axis 1), or the output's own shape.
std::optional<int64_t> operandKind(Value other, RankedTensorType out) {
  auto t = other.getType().dyn_cast<RankedTensorType>();
  if (!t || !t.getElementType().isF32())
    return std::nullopt;
  if (t.getNumElements() == 1)
    return KILN_EP_SCALAR;
  if (t == out)
    return KILN_EP_FULL;
  if (!broadcastsPerChannel(t, out))
    return std::nullopt;
  return KILN_EP_CHANNEL;
}

/// True if `op` is an f32 binary call that an epilogue can run (anything but
/// Pow) with a result of type `out`.
bool isEpilogueBinary(TensorOp op, ArrayRef<Value> ins, RankedTensorType out) {
  ArrayRef<int64_t> p = op.getParams();
  return op.getKernel() == "binary" && ins.size() == 2 && p.size() >= 4 &&
         p[0] != KILN_BIN_POW && p[1] == KILN_F32 && p[2] == KILN_F32 &&
         p[3] == KILN_F32 && op->getNumResults() == 1 &&
         op->getResult(0).getType() == out;
}

/// `u` as an epilogue step on `cur` (of type `out`), if it is one: an f32
/// binary with a scalar, per-channel or same-shape other operand, a unary,
/// or a clip with scalar bounds. `saved` may not be read here.
std::optional<Step> matchStep(TensorOp u, Value cur, RankedTensorType out,
                              Value saved) {
  if (u->getNumResults() != 1 || u->getResult(0).getType() != out)
    return std::nullopt;
  ArrayRef<int64_t> p = u.getParams();
  SmallVector<Value> ins = u.getKernelInputs();
  Step s;
  s.op = u;
  StringRef k = u.getKernel();
  if (isEpilogueBinary(u, ins, out)) {
    if ((ins[0] == cur) == (ins[1] == cur))
      return std::nullopt; // neither, or op(x, x)
    s.swap = ins[1] == cur;
    s.x = s.swap ? ins[0] : ins[1];
    if (s.x == saved)
      return std::nullopt;
    std::optional<int64_t> kind = operandKind(s.x, out);
    if (!kind)
      return std::nullopt;
    s.kind = *kind;
    s.code = p[0];
    return s;
  }
  if (k == "unary" && ins.size() == 1 && ins[0] == cur && p.size() >= 2 &&
      p[1] == KILN_F32) {
    s.kind = KILN_EP_UNARY;
    s.code = p[0];
    auto f = u.getFparams();
    s.floats = {f && f->size() > 0 ? (*f)[0] : 0.0f,
                f && f->size() > 1 ? (*f)[1] : 0.0f};
    return s;
  }
  if (k == "clip" && ins.size() == 3 && ins[0] == cur && p.size() >= 1 &&
      p[0] == KILN_F32) {
    for (Value bound : {ins[1], ins[2]})
      if (bound && (bound == saved ||
                    operandKind(bound, out) != std::optional<int64_t>(
                                                   KILN_EP_SCALAR)))
        return std::nullopt;
    s.kind = KILN_EP_CLIP;
    s.x = ins[1];
    s.y = ins[2];
    return s;
  }
  if (k == "batchnorm" && ins.size() == 5 && ins[0] == cur && p.size() >= 1 &&
      p[0] == KILN_F32) {
    auto perChannel = RankedTensorType::get({out.getDimSize(1)},
                                            out.getElementType());
    for (int i = 1; i < 5; ++i) {
      if (!ins[i] || ins[i] == saved || ins[i].getType() != perChannel)
        return std::nullopt;
      s.channel.push_back(ins[i]);
    }
    auto f = u.getFparams();
    if (!f || f->empty())
      return std::nullopt;
    s.kind = KILN_EP_BATCHNORM;
    s.floats = {(*f)[0]};
    return s;
  }
  return std::nullopt;
}

/// The one user of `v` if it is a tensor op.
TensorOp onlyUser(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  return dyn_cast<TensorOp>(*v.getUsers().begin());
}

/// `cur` read by two calls, `a` starting a chain of steps and `b` combining
/// the chain's end with `cur` again (x * Clip(x + 3, 0, 6): HardSwish
/// spelled out): SAVE, the chain, then b on the saved value.
bool matchSaved(Value cur, TensorOp a, TensorOp b, RankedTensorType out,
                SmallVector<Step> &steps) {
  SmallVector<Step> chain;
  Value v = cur;
  TensorOp op = a;
  for (int i = 0; i < kMaxSavedChain && op; ++i) {
    if (op == b) {
      SmallVector<Value> ins = b.getKernelInputs();
      ArrayRef<int64_t> p = b.getParams();
      if (!isEpilogueBinary(b, ins, out) || v == cur ||
          !((ins[0] == cur && ins[1] == v) || (ins[0] == v && ins[1] == cur)))
        return false;
      Step save;
      save.kind = KILN_EP_SAVE;
      save.op = nullptr;
      Step use;
      use.kind = KILN_EP_SAVED;
      use.code = p[0];
      use.swap = ins[0] == cur; // op(saved, running value)
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
    SmallVector<TensorOp> convs;
    getOperation().walk([&](TensorOp op) {
      if ((op.getKernel() == "conv" || op.getKernel() == "conv_transpose") &&
          op->getNumResults() == 1)
        convs.push_back(op);
    });
    OpBuilder b(getOperation().getContext());
    for (TensorOp conv : convs)
      fuse(conv, b);
  }

  void fuse(TensorOp conv, OpBuilder &b) {
    ArrayRef<int64_t> p0 = conv.getParams();
    const int64_t at = kernels::tensorEpilogueAt(conv.getKernel().str(),
                                                 p0.data(), p0.size());
    auto out = conv->getResult(0).getType().dyn_cast<RankedTensorType>();
    if (at < 0 || !out || !out.getElementType().isF32())
      return;
    SmallVector<Step> steps;
    Value cur = conv->getResult(0);
    while (true) {
      SmallVector<Operation *> users(cur.getUsers().begin(),
                                     cur.getUsers().end());
      if (users.size() == 1) {
        auto u = dyn_cast<TensorOp>(users[0]);
        std::optional<Step> s =
            u ? matchStep(u, cur, out, Value()) : std::nullopt;
        if (!s)
          break;
        steps.push_back(*s);
        cur = u->getResult(0);
        continue;
      }
      if (users.size() == 2 && users[0] != users[1]) {
        auto u0 = dyn_cast<TensorOp>(users[0]),
             u1 = dyn_cast<TensorOp>(users[1]);
        if (!u0 || !u1)
          break;
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

    // The fused call: conv's kernel inputs, then each step's operands.
    SmallVector<Value> operands(conv.getInputs().begin(),
                                conv.getInputs().end());
    SmallVector<int64_t> slots = conv.getKernelSlots();
    auto input = [&](Value v) -> int64_t {
      if (!v)
        return -1;
      operands.push_back(v);
      slots.push_back((int64_t)operands.size() - 1);
      return (int64_t)slots.size() - 1;
    };
    ArrayRef<int64_t> p = conv.getParams();
    SmallVector<int64_t> params(p.begin(), p.begin() + at);
    params.push_back(p[at] + (int64_t)steps.size());
    params.append(p.begin() + at + 1, p.end());
    SmallVector<float> floats;
    if (auto f = conv.getFparams())
      floats.assign(f->begin(), f->end());
    SmallVector<Location> locs = {conv.getLoc()};
    for (const Step &s : steps) {
      int64_t a = 0, c = 0;
      switch (s.kind) {
      case KILN_EP_SCALAR:
      case KILN_EP_CHANNEL:
      case KILN_EP_FULL:
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
      params.append({s.kind, s.code, a, c});
      if (s.op)
        locs.push_back(s.op->getLoc());
    }
    bool absent = false;
    for (int64_t s : slots)
      absent |= s < 0;

    TensorOp last = steps.back().op;
    b.setInsertionPoint(last);
    auto fused = b.create<TensorOp>(
        b.getFusedLoc(locs), TypeRange{out}, operands, conv.getKernelAttr(),
        b.getDenseI64ArrayAttr(params),
        floats.empty() ? DenseF32ArrayAttr() : b.getDenseF32ArrayAttr(floats),
        absent ? b.getDenseI64ArrayAttr(slots) : DenseI64ArrayAttr(),
        conv.getScratchAttr(), conv.getOnnxOpAttr(), conv.getNodeAttr());
    for (NamedAttribute a : conv->getAttrs())
      if (a.getName().getValue().startswith("kiln."))
        fused->setAttr(a.getName(), a.getValue());
    last->getResult(0).replaceAllUsesWith(fused->getResult(0));
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
      if (it->op)
        it->op->erase();
    conv->erase();
  }
};
} // namespace
