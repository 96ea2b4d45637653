//===- onnx_import_fuzzer.cpp - libFuzzer target for the ONNX frontend ----===//
//
// Parses arbitrary bytes as an ONNX model and lowers it: shape inference of
// every converter, constant folding with the host tensor kernels (whose
// outputs are capped, see kMaxFoldBytes), and every error path. Run with
// ASan and UBSan; a finding is a crash, a sanitizer report, a hang or an
// allocation over -malloc_limit_mb.
//
// ctest runs it briefly (fuzz-onnx-import); scripts/fuzz.sh runs it long.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/Graph.h"
#include "compiler/frontend/onnx/Model.h"
#include "onnx.pb.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string error;
  auto model = kiln::onnx::loadModelFromBuffer(data, size, "fuzz.onnx", error);
  if (!model)
    return 0;
  kiln::onnx::LoweredGraph graph;
  kiln::onnx::InputShapes shapes;
  // Dynamic dimensions get a small size, so that graphs that need them lower.
  for (const auto &in : model->proto->graph().input()) {
    if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
      continue;
    std::vector<int64_t> dims;
    for (const auto &d : in.type().tensor_type().shape().dim())
      dims.push_back(d.has_dim_value() ? d.dim_value() : 2);
    shapes[in.name()] = {dims, ""};
  }
  (void)kiln::onnx::lowerModel(*model, shapes, graph, error);
  return 0;
}
