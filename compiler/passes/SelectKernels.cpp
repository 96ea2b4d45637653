//===- SelectKernels.cpp - annotate each op with the kernel that runs it --===//
//
// Kernel choice is the last decision before emission, so it is written into the
// IR (`kiln.kernel`) where lit tests and reviewers can see it.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"

#include "llvm/ADT/StringSet.h"

namespace kiln {
#define GEN_PASS_DEF_SELECTKERNELS
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
// Weight element types the portable C kernels of each target can read.
const llvm::StringSet<> &supportedWeightTypes(StringRef target) {
  static const llvm::StringSet<> generic = {"f32",  "f16",  "bf16", "q8_0",
                                            "q4_0", "q4_1", "q4_k", "q6_k"};
  static const llvm::StringSet<> none;
  return target == "generic" ? generic : none;
}

struct SelectKernelsPass : kiln::impl::SelectKernelsBase<SelectKernelsPass> {
  using SelectKernelsBase::SelectKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (target != "generic") {
      module.emitError() << "kiln-select-kernels: unknown target '" << target
                         << "' (supported: generic)";
      return signalPassFailure();
    }
    SymbolTableCollection symbols;
    auto weightType = [&](Operation *op, FlatSymbolRefAttr sym) -> StringRef {
      auto w = symbols.lookupNearestSymbolFrom<WeightOp>(op, sym);
      return w ? weightTypeName(w.getTensorType().getElementType()) : "";
    };
    const auto &types = supportedWeightTypes(target);
    WalkResult result = module.walk([&](Operation *op) -> WalkResult {
      std::string kernel;
      if (auto e = dyn_cast<EmbeddingOp>(op)) {
        StringRef t = weightType(op, e.getTableAttr());
        if (!types.contains(t))
          return op->emitOpError() << "no " << target
                                   << " kernel reads embedding tables of type '"
                                   << t << "'";
        kernel = ("embedding_" + t + "_" + target).str();
      } else if (auto m = dyn_cast<MatMulOp>(op)) {
        StringRef t = weightType(op, m.getWeightAttr());
        if (!types.contains(t))
          return op->emitOpError() << "no " << target
                                   << " kernel multiplies by weights of type '"
                                   << t << "'";
        kernel = ("matmul_" + t + "_f32_" + target).str();
      } else if (auto r = dyn_cast<RoPEOp>(op)) {
        kernel = ("rope_" + r.getStyle() + "_f32_" + target).str();
      } else if (isa<RMSNormOp, AttentionOp, SiluMulOp, AddOp, LastTokenOp>(op)) {
        kernel = (op->getName().stripDialect() + "_f32_" + target).str();
      } else {
        return WalkResult::advance();
      }
      op->setAttr("kiln.kernel", StringAttr::get(op->getContext(), kernel));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
