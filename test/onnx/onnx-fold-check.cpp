//===- onnx-fold-check.cpp - ONNX node tests evaluated on the host --------===//
//
//   onnx-fold-check [--filter=REGEX] [SUITE]
//
// Lowers each test's model with its inputs as constants, so the whole graph
// folds on the host with the tensor kernels, and compares the outputs with
// the expected ones (the same tolerances as kiln-conformance). It needs no
// MLIR and no target toolchain, which makes it the quick loop for converter
// and kernel work; kiln-conformance is the real measure (it compiles, where
// some inputs are only known at run time).
//
#include "tools/common/OnnxTestData.h"

#include <cstdio>
#include <cstring>

using namespace kiln::onnx;

int main(int argc, char **argv) {
  std::string suite = "/usr/share/libonnx-testdata/data/node", filter;
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    if (!strncmp(argv[i], "--filter=", 9))
      filter = argv[i] + 9;
    else if (!strcmp(argv[i], "-q"))
      quiet = true;
    else if (argv[i][0] == '-') {
      fprintf(stderr, "usage: onnx-fold-check [--filter=REGEX] [-q] [SUITE]\n");
      return 2;
    } else
      suite = argv[i];
  }
  std::string error;
  std::vector<TestDir> tests = listTests(suite, filter, error);
  if (!error.empty()) {
    fprintf(stderr, "onnx-fold-check: %s\n", error.c_str());
    return 2;
  }
  int passed = 0, failed = 0, unsupported = 0, listedPassed = 0, listed = 0;
  for (const TestDir &t : tests) {
    std::string status = "PASS", reason;
    auto model = loadModel(t.dir + "/model.onnx", reason);
    bool isListed = model && usesListedOpsOnly(*model);
    if (!model)
      status = "UNSUPPORTED";
    for (size_t s = 0; model && s < t.dataSets.size() && status == "PASS"; ++s) {
      std::vector<Tensor> ins, want;
      if (!readDataSet(t.dataSets[s], "input", ins, reason) ||
          !readDataSet(t.dataSets[s], "output", want, reason)) {
        status = "UNSUPPORTED"; // sequences, optionals, strings
        break;
      }
      auto values = inputsByName(*model, ins);
      LoweredGraph g;
      if (!lowerModel(*model, shapesFromInputs(*model, ins), g, reason,
                      &values)) {
        status = "UNSUPPORTED";
        break;
      }
      if (g.outputs.size() != want.size()) {
        status = "FAIL";
        reason = "output count differs";
        break;
      }
      for (size_t k = 0; k < want.size(); ++k) {
        const Tensor &got = *g.tensors[g.outputs[k]];
        std::string why;
        if (!got.isConst) {
          status = "FAIL";
          reason = "output " + std::to_string(k) + " did not fold (kernel " +
                   (g.calls.empty() ? "?" : g.calls[0].kernel) +
                   " has no host implementation)";
          break;
        }
        if (!compareTensor(got, want[k], 1e-3, 1e-5, why)) {
          status = "FAIL";
          reason = "output " + std::to_string(k) + ": " + why;
          break;
        }
      }
    }
    for (char &c : reason)
      if (c == '\n')
        c = ' ';
    if (!quiet || status == "FAIL")
      printf("%s %s%s%s\n", status.c_str(), t.name.c_str(),
             reason.empty() ? "" : ": ", reason.c_str());
    passed += status == "PASS";
    failed += status == "FAIL";
    unsupported += status == "UNSUPPORTED";
    listed += isListed;
    listedPassed += isListed && status == "PASS";
  }
  printf("tests using only listed operators: %d of %d passed (%.1f%%)\n",
         listedPassed, listed, listed ? 100.0 * listedPassed / listed : 0.0);
  printf("%d passed, %d failed, %d unsupported\n", passed, failed, unsupported);
  return failed ? 1 : 0;
}
