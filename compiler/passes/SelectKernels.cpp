//===- SelectKernels.cpp - annotate each op with the kernel that runs it --===//
//
// Kernel choice is the last decision before emission, so it is written into the
// IR (`kiln.kernel`, and the numerics it implies) where lit tests and reviewers
// can see it. The target decides; this pass records.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"
#include "compiler/targets/common/Target.h"

namespace kiln {
#define GEN_PASS_DEF_SELECTKERNELS
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
struct SelectKernelsPass : kiln::impl::SelectKernelsBase<SelectKernelsPass> {
  using SelectKernelsBase::SelectKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    auto t = createModuleTarget(module, error);
    if (!t) {
      module.emitError() << "kiln-select-kernels: " << error;
      return signalPassFailure();
    }
    SymbolTableCollection symbols;
    auto weightType = [&](Operation *op, FlatSymbolRefAttr sym) -> StringRef {
      auto w = symbols.lookupNearestSymbolFrom<WeightOp>(op, sym);
      return w ? weightTypeName(w.getTensorType().getElementType()) : "";
    };
    Builder b(module.getContext());
    WalkResult result = module.walk([&](Operation *op) -> WalkResult {
      if (op->getDialect() != op->getContext()->getLoadedDialect<KilnDialect>() ||
          isa<WeightOp, ConstantOp, TensorOp>(op)) // graph ops name their kernel
        return WalkResult::advance();
      StringRef wt;
      if (auto e = dyn_cast<EmbeddingOp>(op))
        wt = weightType(op, e.getTableAttr());
      else if (auto m = dyn_cast<MatMulOp>(op))
        wt = weightType(op, m.getWeightAttr());
      std::string why;
      KernelChoice choice = t->selectKernel(op, wt, why);
      if (choice.kernel.empty())
        return op->emitOpError() << "no " << t->name() << " kernel: " << why;
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
