//===- FoldConstants.cpp - graph calls on constants, computed at compile time ===//
//
// A graph call whose inputs are all constants has one value whatever the
// library's input: it is computed once, here, by the same C kernel the
// library would call (built for the compiling machine), and becomes a
// constant. The dialect declares the hook (TensorFoldInterface), this file
// backs it with the kernels, since compiler/dialect links none; with it
// attached, MLIR's folding driver folds and erases calls nobody reads.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/KernelCalls.h"
#include "compiler/passes/Passes.h"
#include "compiler/support/HostKernels.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_FOLDCONSTANTS
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
/// Bytes of a result of `type` (one per bool), or -1 past kMaxFoldBytes.
int64_t resultBytes(Type type) {
  auto t = type.cast<RankedTensorType>();
  Type e = t.getElementType();
  const uint64_t elem = e.isInteger(1) ? 1 : (e.getIntOrFloatBitWidth() + 7) / 8;
  uint64_t n = elem;
  for (int64_t d : t.getShape()) {
    if (d != 0 && (uint64_t)d > kMaxFoldBytes / std::max<uint64_t>(n, 1))
      return -1;
    n *= (uint64_t)d;
  }
  return (int64_t)n;
}

/// Runs kernel `kernel` on the host into `outputs`, one per result of
/// `results`; false if it has no host build or the results and scratch take
/// more than kMaxFoldBytes.
bool runOnHost(const std::string &kernel, ArrayRef<int64_t> params,
               ArrayRef<float> floats, int64_t scratchBytes,
               TypeRange results, ArrayRef<const char *> inputs,
               std::vector<std::vector<char>> &outputs) {
  uint64_t total = (uint64_t)std::max<int64_t>(scratchBytes, 0);
  if (total > kMaxFoldBytes)
    return false;
  std::vector<int64_t> sizes;
  for (Type r : results) {
    const int64_t n = resultBytes(r);
    if (n < 0 || (total += (uint64_t)n) > kMaxFoldBytes)
      return false;
    sizes.push_back(n);
  }
  static char empty[64];
  outputs.assign(sizes.size(), {});
  std::vector<void *> out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    outputs[i].assign((size_t)sizes[i], 0);
    out.push_back(outputs[i].empty() ? empty : outputs[i].data());
  }
  std::vector<uint64_t> scratch((size_t)std::max<int64_t>(scratchBytes, 0) / 8 +
                                1);
  return runHostKernel(kernel, std::vector<int64_t>(params.begin(), params.end()),
                       std::vector<float>(floats.begin(), floats.end()),
                       std::vector<const void *>(inputs.begin(), inputs.end()),
                       out, scratch.data());
}

struct HostTensorFolder : TensorFoldInterface {
  using TensorFoldInterface::TensorFoldInterface;

  bool fold(TensorOp op, ArrayRef<const char *> inputs,
            std::vector<std::vector<char>> &outputs) const override {
    ArrayRef<float> floats;
    if (auto fp = op.getFparams())
      floats = *fp;
    return runOnHost(op.getKernel().str(), op.getParams(), floats,
                     op.getScratch(), op->getResultTypes(), inputs, outputs);
  }

  bool foldTyped(Operation *op, ArrayRef<const char *> operands,
                 std::vector<std::vector<char>> &outputs) const override {
    std::string why;
    std::optional<KernelCall> call = kernelCallOf(op, why);
    if (!call)
      return false; // kiln-select-kernels reports it
    SmallVector<const char *> inputs(operands.begin(), operands.end());
    if (!call->slots.empty()) {
      inputs.clear();
      for (int64_t s : call->slots)
        inputs.push_back(s < 0 ? nullptr : operands[s]);
    }
    return runOnHost(call->kernel, call->params, call->floats, call->scratch,
                     op->getResultTypes(), inputs, outputs);
  }
};

struct FoldConstants : kiln::impl::FoldConstantsBase<FoldConstants> {
  void getDependentDialects(DialectRegistry &registry) const override {
    registerTensorFolding(registry);
  }
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(applyPatternsAndFoldGreedily(func, FrozenRewritePatternSet())))
        return signalPassFailure();
  }
};
} // namespace

void kiln::registerTensorFolding(DialectRegistry &registry) {
  registry.insert<KilnDialect>();
  registry.addExtension(+[](MLIRContext *, KilnDialect *dialect) {
    if (!dialect->getRegisteredInterface<TensorFoldInterface>())
      dialect->addInterfaces<HostTensorFolder>();
  });
}
