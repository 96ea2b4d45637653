//===- Pipeline.cpp - kilnc's pass pipeline, defined once ------------------===//
#include "compiler/passes/Pipeline.h"
#include "compiler/passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"

#include <algorithm>

using namespace mlir;
using namespace kiln;

const std::vector<PipelineStep> &kiln::pipelineSteps() {
  static const std::vector<PipelineStep> steps = {
      {"kiln-fold-constants", false, true},
      {"kiln-quantize", true, true},
      {"kiln-fuse-horizontal", true, true},
      {"kiln-fuse-elementwise", true, true},
      {"kiln-pack-weights", true, true},
      {"kiln-fold-conv-affine", true, true},
      {"kiln-fuse-tensor-epilogues", true, true},
      {"kiln-layout-channels", true, true},
      {"kiln-select-kernels", false, true},
      {"kiln-plan-memory", false, true},
      {"kiln-in-place", true, false},
  };
  return steps;
}

std::string kiln::pipelineStopPoints() {
  std::string s = "import";
  for (const PipelineStep &step : pipelineSteps())
    if (step.isPass)
      s += std::string(", ") + step.name;
  return s;
}

std::string kiln::pipelineOptionalSteps() {
  std::string s;
  for (const PipelineStep &step : pipelineSteps())
    if (step.optional)
      s += (s.empty() ? "" : ", ") + std::string(step.name);
  return s;
}

namespace {
const PipelineStep *findStep(const std::string &name) {
  for (const PipelineStep &step : pipelineSteps())
    if (name == step.name)
      return &step;
  return nullptr;
}

bool isDisabled(const PipelineOptions &o, const char *name) {
  return std::find(o.disabled.begin(), o.disabled.end(), name) != o.disabled.end();
}
} // namespace

bool kiln::checkPipelineOptions(const PipelineOptions &o, std::string &error) {
  if (!o.stopAfter.empty() && o.stopAfter != "import") {
    const PipelineStep *step = findStep(o.stopAfter);
    if (!step || !step->isPass) {
      error = "--stop-after=" + o.stopAfter + ": unknown pass (valid: " +
              pipelineStopPoints() + ")";
      return false;
    }
  }
  for (const std::string &name : o.disabled) {
    const PipelineStep *step = findStep(name);
    if (step && step->optional)
      continue;
    error = "--disable-pass=" + name +
            (step ? ": this pass is required" : ": unknown pass") +
            " (can be disabled: " + pipelineOptionalSteps() + ")";
    return false;
  }
  if (!o.quantizeExclude.empty() && o.quantize.empty() &&
      o.quantizeOverrides.empty()) {
    error = "--kiln-quantize-exclude=" + o.quantizeExclude +
            ": only goes with --kiln-quantize or --kiln-quantize-override "
            "(it names the tensors they leave as they are)";
    return false;
  }
  return true;
}

bool kiln::buildPipeline(OpPassManager &pm, const PipelineOptions &o,
                         std::string &error) {
  if (!checkPipelineOptions(o, error))
    return false;
  if (o.stopAfter == "import")
    return true;
  for (const PipelineStep &step : pipelineSteps()) {
    if (!step.isPass)
      continue;
    const std::string name = step.name;
    if (!isDisabled(o, step.name)) {
      if (name == "kiln-fold-constants") {
        pm.addPass(createFoldConstants());
      } else if (name == "kiln-quantize") {
        if (!o.quantize.empty() || !o.quantizeOverrides.empty()) {
          QuantizeOptions q;
          q.type = o.quantize;
          q.exclude = o.quantizeExclude;
          q.overrides = o.quantizeOverrides;
          pm.addPass(createQuantize(q));
        }
      } else if (name == "kiln-fuse-horizontal") {
        pm.addPass(createFuseHorizontal());
      } else if (name == "kiln-fuse-elementwise") {
        pm.addPass(createFuseElementwise());
      } else if (name == "kiln-pack-weights") {
        pm.addPass(createPackWeights());
      } else if (name == "kiln-fold-conv-affine") {
        pm.addPass(createFoldConvAffine());
      } else if (name == "kiln-fuse-tensor-epilogues") {
        pm.addPass(createFuseTensorEpilogues());
      } else if (name == "kiln-layout-channels") {
        LayoutChannelsOptions lco;
        lco.mode = o.layout;
        pm.addPass(createLayoutChannels(lco));
      } else if (name == "kiln-select-kernels") {
        SelectKernelsOptions sko;
        sko.halide = o.halide;
        pm.addPass(createSelectKernels(sko));
      } else if (name == "kiln-plan-memory") {
        PlanMemoryOptions pmo;
        pmo.inPlaceReuse = !isDisabled(o, "kiln-in-place");
        pm.addNestedPass<func::FuncOp>(createPlanMemory(pmo));
      }
    }
    if (o.stopAfter == name)
      break;
  }
  return true;
}

namespace {
struct PipelineCLOptions : PassPipelineOptions<PipelineCLOptions> {
  Option<std::string> quantize{
      *this, "quantize", llvm::cl::desc("as kilnc --kiln-quantize")};
  Option<std::string> quantizeExclude{
      *this, "quantize-exclude",
      llvm::cl::desc("as kilnc --kiln-quantize-exclude")};
  ListOption<std::string> quantizeOverrides{
      *this, "quantize-override",
      llvm::cl::desc("as kilnc --kiln-quantize-override")};
  ListOption<std::string> disabled{
      *this, "disable", llvm::cl::desc("as kilnc --disable-pass")};
  Option<std::string> stopAfter{*this, "stop-after",
                                llvm::cl::desc("as kilnc --stop-after")};
  Option<std::string> halide{*this, "halide", llvm::cl::desc("as kilnc --halide"),
                             llvm::cl::init("default")};
  Option<std::string> layout{*this, "layout", llvm::cl::desc("as kilnc --layout"),
                             llvm::cl::init("auto")};
};
} // namespace

void kiln::registerPipeline() {
  // Registered by hand rather than through PassPipelineRegistration so that a
  // bad option value fails the run with kiln-opt's error (through the
  // handler) instead of aborting the process.
  registerPassPipeline(
      "kiln-pipeline",
      "kilnc's passes after import (which records the target in the "
      "module), in kilnc's order and with its options",
      [](OpPassManager &pm, StringRef optionsStr,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        PipelineCLOptions cl;
        if (failed(cl.parseFromString(optionsStr)))
          return failure();
        PipelineOptions o;
        o.quantize = cl.quantize;
        o.quantizeExclude = cl.quantizeExclude;
        o.quantizeOverrides.assign(cl.quantizeOverrides.begin(),
                                   cl.quantizeOverrides.end());
        o.disabled.assign(cl.disabled.begin(), cl.disabled.end());
        o.stopAfter = cl.stopAfter;
        o.halide = cl.halide;
        o.layout = cl.layout;
        std::string error;
        if (!buildPipeline(pm, o, error))
          return errorHandler(Twine("--kiln-pipeline: ") + error);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(PipelineCLOptions());
      });
}
