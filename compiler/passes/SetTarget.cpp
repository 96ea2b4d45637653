//===- SetTarget.cpp - record the target in the module --------------------===//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"
#include "compiler/passes/Pipeline.h"
#include "kernels/KernelTable.h"

namespace kiln {
#define GEN_PASS_DEF_SETTARGET
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

bool kiln::recordTarget(ModuleOp module, const std::string &isa,
                        const std::string &cpu, int64_t sveBits,
                        std::string &error) {
  const kernels::CpuLevel *level = kernels::resolveCpu(isa, cpu, sveBits, error);
  if (!level)
    return false;
  module->setAttr("kiln.target", TargetAttr::get(module.getContext(), isa,
                                                 level->cpu, sveBits));
  return true;
}

namespace {
struct SetTargetPass : kiln::impl::SetTargetBase<SetTargetPass> {
  using SetTargetBase::SetTargetBase;

  void runOnOperation() override {
    std::string error;
    if (!recordTarget(getOperation(), target, cpu, sveBits, error)) {
      getOperation().emitError() << "kiln-set-target: " << error;
      signalPassFailure();
    }
  }
};
} // namespace
