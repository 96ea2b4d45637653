//===- OnnxTestData.cpp - ONNX backend test directories -------------------===//
#include "tools/common/OnnxTestData.h"
#include "onnx.pb.h"

#include <algorithm>
#include <cmath>
#include <dirent.h>
#include <regex>
#include <set>
#include <sys/stat.h>

namespace kiln::onnx {

const std::set<std::string> &listedOps() {
  static const std::set<std::string> ops = {
      "MatMul", "Gemm", "Conv", "ConvTranspose", "BatchNormalization",
      "MaxPool", "AveragePool", "GlobalAveragePool", "Add", "Sub", "Mul",
      "Div", "Pow", "Sqrt", "Exp", "Log", "Abs", "Neg", "Reciprocal", "Relu",
      "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Erf",
      "Gelu", "Clip", "Softmax", "LogSoftmax", "LayerNormalization",
      "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
      "ReduceL2", "ArgMax", "Reshape", "Transpose", "Concat", "Split", "Slice",
      "Gather", "Squeeze", "Unsqueeze", "Flatten", "Expand", "Where", "Cast",
      "Equal", "Less", "Greater", "Not", "And", "Resize", "Pad", "Tile",
      "Range", "ConstantOfShape", "Identity", "Dropout", "Constant", "Shape"};
  return ops;
}

bool usesListedOpsOnly(const Model &model) {
  for (const auto &n : model.proto->graph().node())
    if (!listedOps().count(n.op_type()))
      return false;
  return true;
}

static bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

static std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.')
        names.push_back(e->d_name);
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<TestDir> listTests(const std::string &suite,
                               const std::string &filter, std::string &error) {
  std::vector<TestDir> tests;
  std::regex re;
  try {
    re = std::regex(filter.empty() ? ".*" : filter);
  } catch (const std::regex_error &e) {
    error = "--filter=" + filter + ": " + e.what();
    return tests;
  }
  for (const std::string &name : entries(suite)) {
    TestDir t;
    t.name = name;
    t.dir = suite + "/" + name;
    if (!exists(t.dir + "/model.onnx") || !std::regex_search(name, re))
      continue;
    for (const std::string &sub : entries(t.dir))
      if (sub.rfind("test_data_set_", 0) == 0)
        t.dataSets.push_back(t.dir + "/" + sub);
    tests.push_back(std::move(t));
  }
  return tests;
}

bool readDataSet(const std::string &dir, const char *kind,
                 std::vector<Tensor> &out, std::string &error) {
  out.clear();
  for (int i = 0;; ++i) {
    std::string path = dir + "/" + kind + "_" + std::to_string(i) + ".pb";
    if (!exists(path))
      return true;
    Tensor t;
    if (!readTensorFile(path, t, error))
      return false;
    out.push_back(std::move(t));
  }
}

std::vector<std::string> runtimeInputs(const Model &model) {
  std::set<std::string> inits;
  for (const auto &init : model.proto->graph().initializer())
    inits.insert(init.name());
  std::vector<std::string> names;
  for (const auto &in : model.proto->graph().input())
    if (!inits.count(in.name()))
      names.push_back(in.name());
  return names;
}

InputShapes shapesFromInputs(const Model &model, const std::vector<Tensor> &ins) {
  InputShapes shapes;
  std::vector<std::string> names = runtimeInputs(model);
  for (size_t i = 0; i < names.size() && i < ins.size(); ++i)
    shapes[names[i]] = {ins[i].shape, "input " + std::to_string(i) +
                                          " of the test's data set ('" +
                                          names[i] + "')"};
  return shapes;
}

std::map<std::string, Tensor> inputsByName(const Model &model,
                                           const std::vector<Tensor> &ins) {
  std::map<std::string, Tensor> byName;
  std::vector<std::string> names = runtimeInputs(model);
  for (size_t i = 0; i < names.size() && i < ins.size(); ++i)
    byName[names[i]] = ins[i];
  return byName;
}

bool compareTensor(const Tensor &got, const Tensor &want, double rtol,
                   double atol, std::string &why) {
  if (got.dtype != want.dtype || got.shape != want.shape) {
    why = "got " + dtypeName(got.dtype) + " " + shapeString(got.shape) +
          ", expected " + dtypeName(want.dtype) + " " + shapeString(want.shape);
    return false;
  }
  if (want.dtype == F32 || want.dtype == F64) {
    std::vector<double> g = got.floats(), w = want.floats();
    for (size_t i = 0; i < w.size(); ++i) {
      bool ok = (std::isnan(g[i]) && std::isnan(w[i])) ||
                (std::isinf(w[i]) && g[i] == w[i]) ||
                std::fabs(g[i] - w[i]) <= atol + rtol * std::fabs(w[i]);
      if (!ok) {
        char buf[160];
        snprintf(buf, sizeof buf, "element %zu: got %.9g, expected %.9g", i,
                 g[i], w[i]);
        why = buf;
        return false;
      }
    }
    return true;
  }
  if (got.data != want.data) {
    size_t elem = dtypeSize(want.dtype);
    for (size_t i = 0; i < want.data.size(); ++i)
      if (got.data[i] != want.data[i]) {
        size_t e = i / elem;
        if (want.dtype == F16) {
          why = "element " + std::to_string(e) + " differs (float16 bits)";
          break;
        }
        std::vector<int64_t> g = got.ints(), w = want.ints();
        why = "element " + std::to_string(e) + ": got " + std::to_string(g[e]) +
              ", expected " + std::to_string(w[e]);
        break;
      }
    return false;
  }
  return true;
}
} // namespace kiln::onnx
