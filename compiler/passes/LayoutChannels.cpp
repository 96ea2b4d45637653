//===- LayoutChannels.cpp - convolution regions in blocked channels -----===//
//
// A convolution in NCHW either builds a column matrix (im2col) or a padded
// copy of its input for the GEMM, and a depthwise one vectorizes along rows
// that are a few positions long deep in a CNN. With the channels in blocks of
// a vector's width ([N, C/b, H, W, b], kernels/tensor/blocked.c) neither is
// needed: a register tile of positions accumulates a vector of output
// channels per broadcast input value, and a depthwise tap is one vector
// multiply-add. The layout pays only where the values it gives stay in it:
// so the pass finds regions of ops that can all run on blocked values
// (dense and depthwise 2-D convolutions with their epilogues, elementwise
// ops whose operands share the channel axis, global pooling) joined by the
// values they pass each other, converts the chosen regions, and converts
// values only where they enter or leave them. Constant operands are
// packed at compile time (the convolutions' weights in the kernel's order,
// zeros for the padded channels).
//
// Which regions: all of them with layout=nchwc; with layout=auto (kilnc's
// default) those where the blocked kernels were measured to gain: x86 at
// the AVX-512 level, regions whose channel padding costs at most 5% more
// multiply-adds (docs/onnx.md).
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"
#include "kernels/KernelTable.h"
#include "kernels/tensor/kiln_tensor.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"

namespace kiln {
#define GEN_PASS_DEF_LAYOUTCHANNELS
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
bool isPlainActivation(Type t) {
  auto r = t.dyn_cast<RankedTensorType>();
  return r && r.getRank() == 4 && r.getElementType().isF32();
}

/// Which epilogue inputs of `conv` its operations read as same-shape
/// (FULL) operands: those are values of the result's layout.
SmallVector<bool> fullInputs(ConvOp conv) {
  SmallVector<bool> full(conv.getEpilogueInputs().size(), false);
  if (auto ep = conv.getEpilogue())
    for (size_t i = 0; i < ep->size(); i += 4)
      if ((*ep)[i] == (int64_t)EpilogueKind::Full)
        full[(*ep)[i + 2]] = true;
  return full;
}

/// A unary operation that maps 0 to a finite value: the padded lanes of a
/// block (zeros after each convolution) stay finite through it, so the
/// next convolution's zero weights for them add nothing.
bool finiteAtZero(int64_t code) {
  switch (code) {
  case KILN_UN_LOG: case KILN_UN_RECIPROCAL: case KILN_UN_NOT:
    return false;
  default:
    return true;
  }
}

/// True if `op` can run on blocked values: its activations are [N, C, H, W]
/// f32 (2-D), its channel axis is never broadcast, and (outside a
/// convolution, which zeroes its padded lanes last) nothing in it turns a
/// padded lane's zero into something that is not finite.
bool blockable(Operation *op, int64_t b) {
  if (auto conv = dyn_cast<ConvOp>(op)) {
    auto x = conv.getInput().getType().cast<RankedTensorType>();
    auto y = conv.getResult().getType().cast<RankedTensorType>();
    if (!isPlainActivation(x) || !isPlainActivation(y) ||
        !constantFloats(conv.getFilter()) ||
        (conv.getBias() && !constantFloats(conv.getBias())))
      return false;
    const int64_t G = conv.getGroup(), C = x.getDimSize(1),
                  M = y.getDimSize(1);
    if (!(G == 1 || (G == C && M == C)))
      return false;
    // A dense one with fewer input channels than a block (an image's
    // stem, 3 channels) would multiply mostly padding: it stays in NCHW
    // and its output enters the region.
    if (G == 1 && C < b)
      return false;
    // Its epilogue may do anything to the padded lanes: the kernel zeroes
    // them after it.
    return true;
  }
  if (auto un = dyn_cast<UnaryOp>(op))
    return isPlainActivation(un.getType()) && finiteAtZero(un.getKindCode());
  if (auto clip = dyn_cast<ClipOp>(op))
    return isPlainActivation(clip.getType());
  if (auto bin = dyn_cast<BinaryOp>(op)) {
    auto y = bin.getType().dyn_cast<RankedTensorType>();
    if (!isPlainActivation(y))
      return false;
    switch (bin.getKindCode()) {
    case KILN_BIN_ADD: case KILN_BIN_SUB: case KILN_BIN_MUL:
    case KILN_BIN_MAX: case KILN_BIN_MIN: case KILN_BIN_PRELU:
      break;
    default:
      return false;
    }
    for (Value v : {bin.getLhs(), bin.getRhs()}) {
      auto t = v.getType().dyn_cast<RankedTensorType>();
      if (!isPlainActivation(t) || t.getDimSize(1) != y.getDimSize(1) ||
          t.getDimSize(0) != y.getDimSize(0))
        return false;
    }
    return true;
  }
  if (auto pool = dyn_cast<GlobalPoolOp>(op))
    return isPlainActivation(pool.getInput().getType()) &&
           (pool.getKind() == "average" || pool.getKind() == "max");
  return false;
}

/// The multiply-adds of `conv` with its channel counts rounded up to
/// multiples of `b` (b = 1: as it is).
double convMacs(ConvOp conv, int64_t b) {
  auto x = conv.getInput().getType().cast<RankedTensorType>();
  auto y = conv.getResult().getType().cast<RankedTensorType>();
  auto w = conv.getFilter().getType().cast<RankedTensorType>();
  auto up = [&](int64_t c) { return double((c + b - 1) / b * b); };
  const double taps = double(w.getDimSize(2)) * w.getDimSize(3);
  const double positions =
      double(y.getDimSize(0)) * y.getDimSize(2) * y.getDimSize(3);
  const double channels = conv.getGroup() == 1
                              ? up(y.getDimSize(1)) * up(x.getDimSize(1))
                              : up(y.getDimSize(1));
  return channels * taps * positions;
}

/// The activation operands of a region op: those that take the blocked
/// layout when the op does (a convolution's filter, bias and per-channel or
/// scalar epilogue inputs, and a clip's bounds, do not).
SmallVector<unsigned> activationOperands(Operation *op) {
  SmallVector<unsigned> idx;
  if (auto conv = dyn_cast<ConvOp>(op)) {
    idx.push_back(0);
    SmallVector<bool> full = fullInputs(conv);
    const unsigned first = conv.getODSOperandIndexAndLength(3).first;
    for (unsigned i = 0; i < full.size(); ++i)
      if (full[i])
        idx.push_back(first + i);
    return idx;
  }
  if (isa<BinaryOp>(op))
    return {0, 1};
  return {0};
}

struct LayoutChannelsPass
    : kiln::impl::LayoutChannelsBase<LayoutChannelsPass> {
  using LayoutChannelsBase::LayoutChannelsBase;

  /// The block width for the module's target: the floats of one vector
  /// register (x86: 16 at the AVX-512 level, 8 at AVX2; NEON, SVE's
  /// minimum and RVV at VLEN 128: 4; the portable target: 8, which any C
  /// compiler vectorizes). 0: no blocked layout (HVX: no float vectors the
  /// kernels use).
  static int64_t blockFor(StringRef isa, StringRef cpu) {
    if (isa == "x86") {
      const kernels::CpuLevel *level = kernels::findCpu(isa.str(), cpu.str());
      return level && level->has("avx512vnni") ? 16 : 8;
    }
    if (isa == "generic")
      return 8;
    if (isa == "neon" || isa == "sve" || isa == "rvv")
      return 4;
    return 0;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (mode == "nchw")
      return;
    if (mode != "nchwc" && mode != "auto") {
      module.emitError() << "kiln-layout-channels: layout=" << mode
                         << ": unknown value (auto, nchw or nchwc)";
      return signalPassFailure();
    }
    TargetAttr target = moduleTarget(module);
    const StringRef isa = target ? target.getIsa() : StringRef("generic");
    const int64_t b = blockFor(isa, target ? target.getCpu() : StringRef());
    // `auto` blocks where the kernels were measured to gain: x86 at the
    // AVX-512 level (16 lanes; at AVX2's 8 the blocked tiles lose to the
    // NCHW GEMMs, docs/onnx.md).
    if (mode == "auto" && (isa != "x86" || b != 16))
      return;
    if (b == 0) {
      module.emitError() << "kiln-layout-channels: layout=nchwc: no blocked "
                            "convolution kernels for --target="
                         << isa
                         << " (x86, neon, sve, rvv and generic have them)";
      return signalPassFailure();
    }
    ConstantNames names(module);
    module.walk([&](func::FuncOp func) {
      if (!func.isExternal())
        runOnFunction(func, b, names);
    });
  }

  void runOnFunction(func::FuncOp func, int64_t b, ConstantNames &names) {
    // Regions: blockable ops joined by the activations they pass each other.
    SmallVector<Operation *> members;
    llvm::EquivalenceClasses<Operation *> regions;
    func.walk([&](Operation *op) {
      if (op->getParentOp() != func || !blockable(op, b))
        return;
      members.push_back(op);
      regions.insert(op);
      for (unsigned i : activationOperands(op))
        if (Operation *def = op->getOperand(i).getDefiningOp();
            def && regions.findValue(def) != regions.end())
          regions.unionSets(def, op);
    });
    // The regions with a convolution (elementwise work alone gains nothing
    // from the layout), and with `auto` only those whose padded channels
    // add at most 5% to their multiply-adds: the blocked tiles run about as
    // fast as the NCHW GEMMs per multiply-add, so padding decides.
    llvm::DenseMap<Operation *, std::pair<double, double>> macs;
    for (Operation *op : members)
      if (auto conv = dyn_cast<ConvOp>(op)) {
        std::pair<double, double> &m = macs[regions.getLeaderValue(op)];
        m.first += convMacs(conv, 1);
        m.second += convMacs(conv, b);
      }
    llvm::SmallPtrSet<Operation *, 32> chosen;
    for (Operation *op : members) {
      auto it = macs.find(regions.getLeaderValue(op));
      if (it != macs.end() &&
          (mode == "nchwc" || it->second.second <= 1.05 * it->second.first))
        chosen.insert(op);
    }
    if (chosen.empty())
      return;

    llvm::DenseMap<Value, Value> blocked; // a plain value -> its blocked form
    OpBuilder builder(func.getContext());
    // The blocked form of `v`, read by region op `user`: the region's own
    // value, a packed constant, or a conversion placed after v's definition.
    auto blockedValue = [&](Value v, Operation *user) -> Value {
      if (Value bv = blocked.lookup(v))
        return bv;
      auto t = v.getType().cast<RankedTensorType>();
      RankedTensorType bt = channelBlockedType(t, b);
      Value bv;
      if (std::optional<ArrayRef<float>> k = constantFloats(v)) {
        auto c = v.getDefiningOp<ConstantOp>();
        builder.setInsertionPointAfter(c);
        std::vector<float> packed(bt.getNumElements(), 0.0f);
        const int64_t N = t.getDimSize(0), C = t.getDimSize(1),
                      S = t.getDimSize(2) * t.getDimSize(3),
                      Cb = bt.getDimSize(1);
        for (int64_t n = 0; n < N; ++n)
          for (int64_t ch = 0; ch < C; ++ch)
            for (int64_t s = 0; s < S; ++s)
              packed[((n * Cb + ch / b) * S + s) * b + ch % b] =
                  (*k)[(n * C + ch) * S + s];
        bv = builder.create<ConstantOp>(
            c.getLoc(), names.unique(c.getSource().str() + ".nchwc"), bt,
            ArrayRef<char>((const char *)packed.data(),
                           packed.size() * sizeof(float)));
      } else {
        if (Operation *def = v.getDefiningOp())
          builder.setInsertionPointAfter(def);
        else
          builder.setInsertionPointToStart(v.getParentBlock());
        bv = builder.create<BlockChannelsOp>(
            v.getLoc(), bt, v, user->getAttrOfType<StringAttr>("onnx_op"),
            user->getAttrOfType<StringAttr>("node"));
      }
      blocked[v] = bv;
      return bv;
    };

    SmallVector<Operation *> order;
    for (Operation *op : members)
      if (chosen.count(op))
        order.push_back(op);
    for (Operation *op : order) {
      Value y = op->getResult(0);
      auto yt = y.getType().cast<RankedTensorType>();
      SmallVector<Value> ins;
      for (unsigned i : activationOperands(op))
        ins.push_back(blockedValue(op->getOperand(i), op));
      builder.setInsertionPoint(op);
      Operation *nb = nullptr;
      if (auto conv = dyn_cast<ConvOp>(op))
        nb = blockedConv(builder, conv, ins, b, names);
      else if (auto un = dyn_cast<UnaryOp>(op))
        nb = builder.create<UnaryOp>(un.getLoc(), ins[0].getType(), ins[0],
                                     un.getKindAttr(), un.getAlphaAttr(),
                                     un.getBetaAttr(), un.getOnnxOpAttr(),
                                     un.getNodeAttr());
      else if (auto clip = dyn_cast<ClipOp>(op))
        nb = builder.create<ClipOp>(clip.getLoc(), ins[0].getType(), ins[0],
                                    clip.getMin(), clip.getMax(),
                                    clip.getOnnxOpAttr(), clip.getNodeAttr());
      else if (auto bin = dyn_cast<BinaryOp>(op))
        nb = builder.create<BinaryOp>(
            bin.getLoc(), channelBlockedType(yt, b), ins[0], ins[1],
            bin.getKindAttr(), bin.getOnnxOpAttr(), bin.getNodeAttr());
      else if (auto pool = dyn_cast<GlobalPoolOp>(op))
        nb = builder.create<ReduceOp>(
            pool.getLoc(), channelBlockedType(yt, b), ins[0],
            builder.getStringAttr(pool.getKind() == "average" ? "mean" : "max"),
            builder.getDenseI64ArrayAttr({2, 3}), builder.getBoolAttr(true),
            pool.getOnnxOpAttr(), pool.getNodeAttr());
      Value ny = nb->getResult(0);
      blocked[y] = ny;
      // Readers outside the region, and region ops that read it as
      // something else than an activation (a per-channel epilogue input, a
      // clip bound), read it back in NCHW.
      auto readsPlain = [&](OpOperand &use) {
        Operation *u = use.getOwner();
        return !chosen.count(u) ||
               !llvm::is_contained(activationOperands(u),
                                   use.getOperandNumber());
      };
      if (llvm::any_of(y.getUses(), readsPlain)) {
        builder.setInsertionPointAfter(nb);
        Value plain = builder.create<UnblockChannelsOp>(
            op->getLoc(), yt, ny, op->getAttrOfType<StringAttr>("onnx_op"),
            op->getAttrOfType<StringAttr>("node"));
        y.replaceUsesWithIf(plain, readsPlain);
      }
    }
    for (Operation *op : llvm::reverse(order)) {
      SmallVector<Value> operands(op->getOperands());
      op->erase();
      for (Value v : operands)
        if (auto c = v.getDefiningOp<ConstantOp>(); c && c->use_empty())
          c->erase();
    }
  }

  /// kiln.conv_blocked for `conv`, its filter and bias packed (zeros for
  /// padded channels), its activation inputs `ins` already blocked.
  Operation *blockedConv(OpBuilder &builder, ConvOp conv, ArrayRef<Value> ins,
                         int64_t b, ConstantNames &names) {
    auto x = conv.getInput().getType().cast<RankedTensorType>();
    auto y = conv.getResult().getType().cast<RankedTensorType>();
    auto wt = conv.getFilter().getType().cast<RankedTensorType>();
    const int64_t C = x.getDimSize(1), M = y.getDimSize(1),
                  KH = wt.getDimSize(2), KW = wt.getDimSize(3);
    const int64_t Cb = (C + b - 1) / b, Mb = (M + b - 1) / b;
    const bool dw = conv.getGroup() != 1;
    ArrayRef<float> w = *constantFloats(conv.getFilter());
    std::vector<float> pw;
    SmallVector<int64_t> pshape;
    if (dw) { // W [C, 1, KH, KW] -> [Cb, KH, KW, b]
      pshape = {Cb, KH, KW, b};
      pw.assign(Cb * KH * KW * b, 0.0f);
      for (int64_t c = 0; c < C; ++c)
        for (int64_t k = 0; k < KH * KW; ++k)
          pw[((c / b) * KH * KW + k) * b + c % b] = w[c * KH * KW + k];
    } else { // W [M, C, KH, KW] -> [Mb, Cb, KH, KW, b (in), b (out)]
      pshape = {Mb, Cb, KH, KW, b, b};
      pw.assign(Mb * Cb * KH * KW * b * b, 0.0f);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t k = 0; k < KH * KW; ++k)
            pw[((((m / b) * Cb + c / b) * KH * KW + k) * b + c % b) * b +
               m % b] = w[(m * C + c) * KH * KW + k];
    }
    auto source = conv.getFilter().getDefiningOp<ConstantOp>();
    auto bytes = [](const std::vector<float> &v) {
      return ArrayRef<char>((const char *)v.data(), v.size() * sizeof(float));
    };
    Value filter = builder.create<ConstantOp>(
        source.getLoc(), names.unique(source.getSource().str() + ".nchwc"),
        RankedTensorType::get(pshape, builder.getF32Type()), bytes(pw));
    Value bias;
    if (conv.getBias()) {
      ArrayRef<float> bv = *constantFloats(conv.getBias());
      std::vector<float> pb(Mb * b, 0.0f);
      std::copy(bv.begin(), bv.end(), pb.begin());
      auto bsrc = conv.getBias().getDefiningOp<ConstantOp>();
      bias = builder.create<ConstantOp>(
          bsrc.getLoc(), names.unique(bsrc.getSource().str() + ".nchwc"),
          RankedTensorType::get({Mb * b}, builder.getF32Type()), bytes(pb));
    }
    // Epilogue inputs: same-shape ones blocked (in `ins` after X), the
    // others as they are.
    SmallVector<Value> epIn;
    SmallVector<bool> full = fullInputs(conv);
    size_t next = 1;
    for (auto [i, v] : llvm::enumerate(conv.getEpilogueInputs()))
      epIn.push_back(full[i] ? ins[next++] : v);
    return builder.create<ConvBlockedOp>(
        conv.getLoc(), channelBlockedType(y, b), ins[0], filter, bias, epIn,
        conv.getStridesAttr(), conv.getDilationsAttr(), conv.getPadsAttr(),
        builder.getI64IntegerAttr(M), dw ? builder.getUnitAttr() : UnitAttr(),
        conv.getEpilogueAttr(), conv.getEpilogueFloatsAttr(),
        conv.getOnnxOpAttr(), conv.getNodeAttr());
  }
};
} // namespace
