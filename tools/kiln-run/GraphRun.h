//===- GraphRun.h - kiln-run for graph models (ONNX) -----------------------===//
#ifndef KILN_TOOLS_KILN_RUN_GRAPHRUN_H
#define KILN_TOOLS_KILN_RUN_GRAPHRUN_H

#include <string>
#include <vector>

namespace kiln {
struct GraphRunOptions {
  std::string model, target, cpu, outputDir, keepDir;
  int64_t sveBits = 0, vectorBits = 0;
  std::vector<std::string> inputs;       // NAME=FILE.pb
  std::vector<std::string> inputShapes;  // NAME=D0,D1,...
  std::vector<std::string> frozenInputs; // NAME=FILE.pb
  std::vector<std::string> disabledPasses; // --disable-pass
  std::string halide = "default";           // --halide
  std::string layout = "auto";              // --layout
  int64_t threads = 1; // compiled for and started with
};
/// Compiles the ONNX model for the target, runs it on the inputs (natively
/// or under qemu) and writes each output as OUTPUT_DIR/NAME.pb (a TensorProto),
/// printing one line per output. Returns the process exit status.
int runGraphModel(const GraphRunOptions &o);
} // namespace kiln

#endif
