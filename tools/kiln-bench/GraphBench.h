//===- GraphBench.h - kiln-bench on ONNX graphs ---------------------------===//
#ifndef KILN_TOOLS_KILN_BENCH_GRAPHBENCH_H
#define KILN_TOOLS_KILN_BENCH_GRAPHBENCH_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::bench {
struct GraphBenchOptions {
  std::string modelPath, cpu, keep;
  std::vector<std::string> inputShapes; // --input-shape=NAME=D0,D1,...
  int64_t runs = 5, iterations = 20, threads = 1;
  bool json = false;
  std::string vsOnnxruntime; // the peer's driver, or empty
  std::string halide = "default"; // --halide
  std::string layout = "auto";    // --layout
  std::vector<std::string> disabledPasses; // --disable-pass
};

/// Compiles the graph for the host, links tools/kiln-bench/graph_driver.c
/// against it and runs it (and the peer, alternately) `runs` times after a
/// warm-up; prints run latency, cold start and peak memory. Returns the
/// process exit status.
int graphBench(const GraphBenchOptions &options);
} // namespace kiln::bench

#endif
