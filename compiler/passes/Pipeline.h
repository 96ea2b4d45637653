//===- Pipeline.h - kilnc's pass pipeline, defined once -------------------===//
//
// kilnc runs it after import; kiln-opt registers it as --kiln-pipeline, so the
// IR kilnc writes can be replayed pass by pass from the imported IR.
//
#ifndef KILN_PASSES_PIPELINE_H
#define KILN_PASSES_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace kiln {
/// Writes `kiln.target` (#kiln.target<isa, cpu, sve_bits>) into `module`,
/// with the CPU options checked and resolved against the kernel table
/// (kernels::resolveCpu); false with `error` when they are not valid. kilnc
/// calls it right after import; kiln-set-target is the same as a pass.
bool recordTarget(mlir::ModuleOp module, const std::string &isa,
                  const std::string &cpu, int64_t sveBits, std::string &error);

/// One step of the pipeline, in order. An optional step can be switched off
/// (--disable-pass); "kiln-in-place" is memory planning's in-place reuse.
struct PipelineStep {
  const char *name;
  bool optional;
  bool isPass; // false: a behaviour of another pass (kiln-in-place)
};
/// The steps in order: kiln-fold-constants, kiln-quantize,
/// kiln-fuse-horizontal, kiln-fuse-elementwise, kiln-pack-weights,
/// kiln-fold-conv-affine,
/// kiln-fuse-tensor-epilogues, kiln-select-kernels, kiln-plan-memory, and
/// kiln-in-place.
const std::vector<PipelineStep> &pipelineSteps();
/// "import, kiln-quantize, ..., kiln-plan-memory": the points the pipeline
/// can stop after (kilnc --stop-after).
std::string pipelineStopPoints();
/// "kiln-quantize, ..., kiln-in-place": what --disable-pass accepts.
std::string pipelineOptionalSteps();

/// The pipeline's own options. The target is not one of them: it is in the
/// module (kiln.target, recorded by kilnc before the pipeline).
struct PipelineOptions {
  std::string quantize; // kiln-quantize; it runs only when a type is given
  std::string quantizeExclude;
  std::vector<std::string> quantizeOverrides;
  std::vector<std::string> disabled; // optional steps switched off
  std::string stopAfter;             // a pass name, "import" or "" (all)
  std::string halide = "default";    // kiln-select-kernels' halide option
  std::string layout = "auto";       // kiln-layout-channels' layout option
};

/// Checks `o.disabled` and `o.stopAfter` against the steps, with the messages
/// kilnc prints (e.g. "--stop-after=X: unknown pass (valid: ...)").
bool checkPipelineOptions(const PipelineOptions &o, std::string &error);
/// Adds the passes `o` selects to `pm` (nothing after `o.stopAfter`).
bool buildPipeline(mlir::OpPassManager &pm, const PipelineOptions &o,
                   std::string &error);
/// Registers --kiln-pipeline for kiln-opt, with the options above as
/// quantize=, quantize-exclude=, quantize-override=, disable=,
/// stop-after=, halide= and layout=.
void registerPipeline();
} // namespace kiln

#endif
