//===- OnnxTestData.h - ONNX backend test directories (MLIR-free) ---------===//
#ifndef KILN_TOOLS_COMMON_ONNXTESTDATA_H
#define KILN_TOOLS_COMMON_ONNXTESTDATA_H

#include "compiler/frontend/onnx/Model.h"

#include <set>
#include <string>
#include <vector>

namespace kiln::onnx {
/// The operators the ONNX frontend commits to (issue 6's list, plus Constant
/// and Shape, which feed folded shape subgraphs): the conformance goal is
/// measured on the tests that use only these.
const std::set<std::string> &listedOps();
/// True if every node of the model's graph is a listed operator.
bool usesListedOpsOnly(const Model &model);

/// One test: DIR/model.onnx and DIR/test_data_set_*/{input,output}_N.pb.
struct TestDir {
  std::string name, dir;
  std::vector<std::string> dataSets; // sorted paths
};
/// The tests under `suite` whose name matches `filter` (empty: all), sorted.
std::vector<TestDir> listTests(const std::string &suite,
                               const std::string &filter, std::string &error);
/// Reads KIND_0.pb, KIND_1.pb, ... (KIND "input" or "output") of a data set.
bool readDataSet(const std::string &dir, const char *kind,
                 std::vector<Tensor> &out, std::string &error);
/// The graph's inputs that are not initializers, in graph order.
std::vector<std::string> runtimeInputs(const Model &model);
/// Dynamic dimensions fixed from the data set's inputs, by graph input.
InputShapes shapesFromInputs(const Model &model, const std::vector<Tensor> &ins);
/// The same inputs by graph-input name (initializers excluded).
std::map<std::string, Tensor> inputsByName(const Model &model,
                                           const std::vector<Tensor> &ins);
/// Compares an output with the expected one: floats within
/// |got - want| <= atol + rtol * |want| (NaN matches NaN, infinities exactly),
/// everything else exactly. False with `why` naming the first mismatch.
bool compareTensor(const Tensor &got, const Tensor &want, double rtol,
                   double atol, std::string &why);
} // namespace kiln::onnx

#endif
