//===- SetTarget.cpp - record the target in the module --------------------===//
#include "compiler/passes/Passes.h"
#include "compiler/targets/common/Target.h"

namespace kiln {
#define GEN_PASS_DEF_SETTARGET
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
struct SetTargetPass : kiln::impl::SetTargetBase<SetTargetPass> {
  using SetTargetBase::SetTargetBase;

  void runOnOperation() override {
    TargetOptions options;
    options.cpu = cpu;
    options.sveBits = sveBits;
    std::string error;
    if (!recordTarget(getOperation(), target, options, error)) {
      getOperation().emitError() << "kiln-set-target: " << error;
      signalPassFailure();
    }
  }
};
} // namespace
