//===- FuseElementwise.cpp - elementwise work into matmul epilogues -------===//
//
// A residual add or a SiLU gate after a matmul is a second pass over the
// matmul's output (and, on a thread pool, a second dispatch). As an epilogue
// it runs on the output while it is in cache, and the separate op and its
// buffer disappear. RMSNorm's per-column scale can move into the weights of
// the matmuls that read the norm, which then only normalizes.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace kiln {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
/// The matmul that defines `v` if it can take an epilogue: one result, no
/// epilogue yet, and `v` has no other user.
MatMulOp fusableProducer(Value v) {
  auto m = v.getDefiningOp<MatMulOp>();
  if (!m || m.getSplit() || m.getEpilogue() || !v.hasOneUse())
    return nullptr;
  return m;
}

/// True if `v` is available where `op` is (defined before it, or an argument).
bool availableAt(Value v, Operation *op) {
  Operation *def = v.getDefiningOp();
  return !def || (def->getBlock() == op->getBlock() && def->isBeforeInBlock(op));
}

struct FuseElementwisePass
    : kiln::impl::FuseElementwiseBase<FuseElementwisePass> {
  using FuseElementwiseBase::FuseElementwiseBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b(module.getContext());
    // Collected first: fusing erases the elementwise ops (never a norm).
    SmallVector<Operation *> elementwise;
    SmallVector<RMSNormOp> norms;
    module.walk([&](Operation *op) {
      if (isa<AddOp, SiluMulOp>(op))
        elementwise.push_back(op);
      else if (auto norm = dyn_cast<RMSNormOp>(op))
        norms.push_back(norm);
    });
    for (Operation *op : elementwise) {
      if (auto add = dyn_cast<AddOp>(op))
        fuseAdd(add, b);
      else
        fuseSiluMul(cast<SiluMulOp>(op), b);
    }
    if (foldNorms) {
      SymbolTable symbols(module); // kept current by foldNorm's insert/erase
      for (RMSNormOp norm : norms)
        foldNorm(norm, module, symbols, b);
    }
  }

  /// Gives `m` the epilogue and `op`'s place in the graph.
  void setEpilogue(MatMulOp m, StringRef epilogue, Value other, Operation *op,
                   OpBuilder &b) {
    m.setEpilogueAttr(b.getStringAttr(epilogue));
    m.getOtherMutable().assign(other);
    m->setLoc(b.getFusedLoc({m.getLoc(), op->getLoc()}));
    op->getResult(0).replaceAllUsesWith(m.getOutput());
    op->erase();
  }

  void fuseAdd(AddOp add, OpBuilder &b) {
    for (auto [mm, other] : {std::pair(add.getRhs(), add.getLhs()),
                             std::pair(add.getLhs(), add.getRhs())}) {
      MatMulOp m = fusableProducer(mm);
      if (m && mm != other && availableAt(other, m)) {
        setEpilogue(m, "add", other, add, b);
        return;
      }
    }
  }

  void fuseSiluMul(SiluMulOp op, OpBuilder &b) {
    Value g = op.getGate(), u = op.getUp();
    // Gate and up as the two halves of one split matmul.
    auto split = g.getDefiningOp<MatMulOp>();
    if (split && split == u.getDefiningOp<MatMulOp>() && split.getSplit() &&
        !split.getEpilogue() && split.getOutputs().size() == 2 &&
        g == split.getOutputs()[0] && u == split.getOutputs()[1] &&
        g.hasOneUse() && u.hasOneUse() &&
        split.getParts()[0] == split.getParts()[1]) {
      b.setInsertionPoint(split);
      auto fused = b.create<MatMulOp>(
          b.getFusedLoc({split.getLoc(), op.getLoc()}),
          TypeRange{op.getType()}, split.getInput(), split.getWeightAttr(),
          split.getBiasAttr(), split.getSplitAttr(), b.getStringAttr("swiglu"),
          Value());
      for (NamedAttribute a : split->getAttrs())
        if (a.getName().getValue().startswith("kiln."))
          fused->setAttr(a.getName(), a.getValue());
      op.getResult().replaceAllUsesWith(fused.getOutput());
      op.erase();
      split.erase();
      return;
    }
    // The later of the two matmuls computes the product in its epilogue.
    MatMulOp up = fusableProducer(u), gate = fusableProducer(g);
    if (up && availableAt(g, up))
      return setEpilogue(up, "mul_silu", g, op, b);
    if (gate && availableAt(u, gate))
      return setEpilogue(gate, "silu_mul", u, op, b);
  }

  /// rms_norm(x, @g) -> rms_norm(x), each reader's weight W -> W diag(g).
  void foldNorm(RMSNormOp norm, ModuleOp module, SymbolTable &symbols,
                OpBuilder &b) {
    if (!norm.getWeightAttr())
      return;
    WeightOp scale = symbols.lookup<WeightOp>(norm.getWeightAttr().getValue());
    if (!scale || scale.getConcat() || scale.getScaleColumns() ||
        scale.getSourceType() || norm.getResult().use_empty())
      return;
    SmallVector<MatMulOp> readers;
    for (OpOperand &use : norm.getResult().getUses()) {
      auto m = dyn_cast<MatMulOp>(use.getOwner());
      if (!m || use.getOperandNumber() != 0)
        return;
      WeightOp w = symbols.lookup<WeightOp>(m.getWeight());
      // f32 weights only: their kernels read f32 activations on every target,
      // so moving the scale reorders one product; a quantized weight (or
      // quantized activations) would round differently.
      if (!w || !w.getTensorType().getElementType().isF32() ||
          w.getSourceType() || w.getScaleColumns())
        return;
      readers.push_back(m);
    }
    for (MatMulOp m : readers) {
      WeightOp w = symbols.lookup<WeightOp>(m.getWeight());
      b.setInsertionPoint(w);
      auto folded = cast<WeightOp>(b.clone(*w));
      folded.setSymName((w.getSymName() + "*" + scale.getSymName()).str());
      folded.setScaleColumnsAttr(scale.getSourceAttr());
      symbols.insert(folded);
      m.setWeightAttr(FlatSymbolRefAttr::get(folded.getSymNameAttr()));
      if (SymbolTable::symbolKnownUseEmpty(w, module))
        symbols.erase(w);
    }
    norm.removeWeightAttr();
    if (SymbolTable::symbolKnownUseEmpty(scale, module))
      symbols.erase(scale);
  }
};
} // namespace
