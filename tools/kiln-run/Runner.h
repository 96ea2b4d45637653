//===- Runner.h - the C program kiln-run links against a compiled model ---===//
#ifndef KILN_TOOLS_KILN_RUN_RUNNER_H
#define KILN_TOOLS_KILN_RUN_RUNNER_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {
struct RunPlan {
  std::vector<int32_t> prompt;
  int64_t generate = 0;
  std::vector<int64_t> logitsAt; // steps (decoded tokens) whose logits to dump
  bool hosted = true;            // false: freestanding (raw syscalls, _start)
  bool externalWeights = false;  // read model.weights (hosted only)
};

/// Source of a runner for the library built with --name=model. It prefills,
/// decodes greedily and prints "T <id>" per generated token and
/// "L <step> <hex bits>..." per requested logits dump; "E <status>" on error.
std::string runnerSource(const RunPlan &plan);

/// Parsed runner output.
struct RunOutput {
  std::vector<int32_t> tokens;
  std::vector<std::pair<int64_t, std::vector<float>>> logits;
};
bool parseRunnerOutput(const std::string &text, RunOutput &out,
                       std::string &error);
} // namespace kiln

#endif
