//===- Runner.h - the C program kiln-run links against a compiled model ---===//
#ifndef KILN_TOOLS_KILN_RUN_RUNNER_H
#define KILN_TOOLS_KILN_RUN_RUNNER_H

#include "compiler/weights/WeightStore.h"
#include "compiler/codegen/Emitter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {
class Target;

/// Writes the library of `module` (which went through runPipeline; `opts`'s
/// outDir is set here) and `source` as runner.c into a build
/// directory -- `keepDir`, or a temporary one removed afterwards -- compiles
/// and links them for `target`, and runs the program natively or under qemu
/// (`vectorBits` as kiln-run --vector-bits). `output` receives its stdout and
/// stderr, `status` its exit status. False with `error` when a step before the
/// run fails. Shared by kiln-run and kiln-perplexity.
bool buildAndRun(mlir::ModuleOp module, const WeightStore &weights,
                 EmitOptions opts, const Target &target,
                 const std::string &source, int64_t vectorBits,
                 const std::string &keepDir, std::string &output, int &status,
                 std::string &error);

struct RunPlan {
  std::vector<std::vector<int32_t>> prompts; // one per sequence
  int64_t generate = 0;
  std::vector<int64_t> logitsAt; // steps (decoded tokens) whose logits to dump
  bool hosted = true;            // false: freestanding (raw syscalls, _start)
  bool externalWeights = false;  // read model.weights (hosted only)
  int64_t threads = 1;           // threads the runner starts
  // One sequence: generation ends after any of these (end of text or turn).
  std::vector<int32_t> stopTokens;
  // Text through the library's own tokenizer (kilnc --tokenizer=embed): the
  // runner encodes promptText with these kiln_tokenize flags in
  // scratchBytes of scratch, prints the ids ("P ..."), and decodes what it
  // generates, a complete UTF-8 sequence at a time ("X <hex bytes>").
  bool embeddedTokenizer = false;
  std::string promptText;
  uint32_t tokenizeFlags = 0;
  size_t scratchBytes = 0;
};

/// Source of a runner for the library built with --name=model. It prefills
/// each sequence, decodes greedily (all sequences in one batched call per step
/// when there are several) and prints "T <seq> <id>" per generated token and
/// "L <seq> <step> <hex bits>..." per requested logits dump; "E <status>" on
/// error.
std::string runnerSource(const RunPlan &plan);

/// Parsed runner output.
struct RunOutput {
  std::vector<std::vector<int32_t>> tokens; // per sequence
  std::vector<int32_t> promptIds;           // the library's tokenizer's
  std::string text;                         // its decoded continuation
  // (sequence, step) -> logits
  std::vector<std::pair<std::pair<int, int64_t>, std::vector<float>>> logits;
};
bool parseRunnerOutput(const std::string &text, RunOutput &out,
                       std::string &error);
} // namespace kiln

#endif
