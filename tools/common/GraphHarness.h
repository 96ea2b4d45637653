//===- GraphHarness.h - building and running graph-model libraries --------===//
//
// kiln-run (ONNX models) and kiln-conformance compile one or many graph
// models for a target into a single test program, then run it once per
// model (natively or under qemu): the program reads each input from a raw
// file and writes each output to one, so a crash costs one case, not the run.
//
#ifndef KILN_TOOLS_COMMON_GRAPHHARNESS_H
#define KILN_TOOLS_COMMON_GRAPHHARNESS_H

#include "compiler/frontend/onnx/Graph.h"
#include "compiler/codegen/Emitter.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {
class Target;

/// One compiled graph model of a harness.
struct HarnessModel {
  std::string name;          // C prefix (CompileOptions::name)
  LibrarySources sources;    // from generateLibrarySources, embedded weights
  std::vector<onnx::Tensor> inputs, outputs; // names, types, shapes (no data)
  uint64_t arenaBytes = 0;   // NAME_ARENA_BYTES
  bool built = false;        // compiled into the program
  std::string buildError;    // why not, when built is false
};

/// The graph's inputs and outputs (name, type, shape) of a planned module.
void describeGraph(mlir::ModuleOp module, std::vector<onnx::Tensor> &inputs,
                   std::vector<onnx::Tensor> &outputs);

/// Writes every model's sources into `dir`, compiles them (`jobs` at a
/// time) and links `dir/harness`. A model whose source does not compile is
/// left out with its buildError set; false only if nothing could be built.
bool buildHarness(std::vector<HarnessModel> &models, const Target &target,
                  const std::string &dir, int jobs, std::string &error);

/// Runs model `index` of the harness on `inputs` (in the model's order),
/// filling `outputs`. False with `error` (the program's message, status or
/// signal) if the run fails.
bool runHarness(const std::vector<HarnessModel> &models, size_t index,
                const Target &target, int64_t vectorBits,
                const std::string &dir, const std::vector<onnx::Tensor> &inputs,
                std::vector<onnx::Tensor> &outputs, std::string &error);

/// Runs `fn(i)` for i in [0, n) on `jobs` threads.
void parallelFor(size_t n, int jobs, const std::function<void(size_t)> &fn);
} // namespace kiln

#endif
