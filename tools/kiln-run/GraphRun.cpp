//===- GraphRun.cpp - kiln-run for graph models (ONNX) ---------------------===//
//
//   kiln-run model.onnx --target=T --input=NAME=FILE.pb ... --output-dir=DIR
//
#include "tools/kiln-run/GraphRun.h"
#include "compiler/driver/Compile.h"
#include "compiler/targets/Target.h"
#include "tools/common/GraphHarness.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace llvm;

namespace kiln {

static int fail(const std::string &msg) {
  errs() << "kiln-run: error: " << msg << "\n";
  return 1;
}

/// A file name for an output: its name with path separators replaced.
static std::string fileNameFor(const std::string &name, size_t index) {
  std::string s;
  for (char c : name)
    s += (c == '/' || c == '\\' || c == ':' || (unsigned char)c < 32) ? '_' : c;
  if (s.empty() || s == "." || s == "..")
    s = "output_" + std::to_string(index);
  return s;
}

static std::string preview(const onnx::Tensor &t) {
  std::string s;
  size_t n = std::min<int64_t>(t.numel(), 6);
  if (t.dtype == onnx::F32 || t.dtype == onnx::F64) {
    std::vector<double> v = t.floats();
    for (size_t i = 0; i < n; ++i) {
      char buf[32];
      snprintf(buf, sizeof buf, "%s%.6g", i ? " " : "", v[i]);
      s += buf;
    }
  } else if (t.dtype != onnx::F16) {
    std::vector<int64_t> v = t.ints();
    for (size_t i = 0; i < n; ++i)
      s += (i ? " " : "") + std::to_string(v[i]);
  }
  if ((int64_t)n < t.numel())
    s += " ...";
  return s;
}

int runGraphModel(const GraphRunOptions &o) {
  std::string error;
  onnx::InputShapes shapes;
  for (const std::string &spec : o.inputShapes)
    if (!onnx::parseInputShape(spec, shapes, error))
      return fail(error);
  std::map<std::string, onnx::Tensor> frozen, given;
  for (const std::string &spec : o.frozenInputs)
    if (!onnx::parseTensorBinding(spec, "--freeze-input", frozen, error))
      return fail(error);
  for (const std::string &spec : o.inputs)
    if (!onnx::parseTensorBinding(spec, "--input", given, error))
      return fail(error);
  // Dynamic dimensions default to the shapes of the given inputs.
  for (const auto &[name, t] : given)
    if (!shapes.count(name))
      shapes[name] = {t.shape, "--input=" + name + "=... (a tensor of shape " +
                                   onnx::shapeString(t.shape) + ")"};

  CompileOptions opts;
  opts.target = o.target;
  opts.targetOptions.cpu = o.cpu;
  opts.targetOptions.sveBits = o.sveBits;
  opts.emit.name = "model";
  opts.pipeline.disabled = o.disabledPasses;
  opts.pipeline.halide = o.halide;
  opts.pipeline.layout = o.layout;
  opts.layout.threads = o.threads;
  auto target = createTarget(opts.target, opts.targetOptions, error);
  if (!target || !target->checkRun(o.vectorBits, error))
    return fail(error);
  mlir::MLIRContext ctx;
  LoadedModel loaded;
  if (!loadModel(ctx, o.model, loaded, error, shapes, frozen))
    return fail(error);
  if (!isGraphModule(*loaded.module))
    return fail(o.model + " is not a graph model");
  if (!runPipeline(*loaded.module, opts, error))
    return fail(error);

  std::vector<HarnessModel> models(1);
  models[0].name = opts.emit.name;
  describeGraph(*loaded.module, models[0].inputs, models[0].outputs);
  std::vector<onnx::Tensor> ins;
  for (const onnx::Tensor &want : models[0].inputs) {
    auto it = given.find(want.name);
    if (it == given.end())
      return fail("input '" + want.name + "' (" + onnx::dtypeName(want.dtype) +
                  " " + onnx::shapeString(want.shape) +
                  ") has no value: give --input=" + want.name + "=FILE.pb");
    if (it->second.dtype != want.dtype || it->second.shape != want.shape)
      return fail("--input=" + want.name + "=...: the file holds " +
                  onnx::dtypeName(it->second.dtype) + " " +
                  onnx::shapeString(it->second.shape) + ", the model takes " +
                  onnx::dtypeName(want.dtype) + " " +
                  onnx::shapeString(want.shape));
    ins.push_back(it->second);
    given.erase(it);
  }
  for (const auto &[name, t] : given)
    return fail("--input=" + name + "=...: the compiled model has no input '" +
                name + "'" + (frozen.count(name) ? " (it is frozen)" : ""));
  if (!generateLibrarySources(*loaded.module, *loaded.weights, opts.emit,
                              models[0].sources, error))
    return fail(error);

  SmallString<128> dir;
  if (!o.keepDir.empty()) {
    dir = o.keepDir;
  } else if (auto e = sys::fs::createUniqueDirectory("kiln-run", dir)) {
    return fail("cannot create a temporary directory: " + e.message());
  }
  auto cleanup = [&] {
    if (o.keepDir.empty())
      sys::fs::remove_directories(dir);
  };
  std::vector<onnx::Tensor> results;
  if (!buildHarness(models, *target, dir.str().str(), 1, error) ||
      !models[0].built) {
    cleanup();
    return fail(error.empty() ? models[0].buildError : error);
  }
  if (!runHarness(models, 0, *target, o.vectorBits, dir.str().str(), ins,
                  results, error)) {
    cleanup();
    return fail("the compiled model failed: " + error);
  }
  cleanup();
  if (!o.outputDir.empty())
    if (auto ec = sys::fs::create_directories(o.outputDir))
      return fail("cannot create " + o.outputDir + ": " + ec.message());
  for (size_t i = 0; i < results.size(); ++i) {
    results[i].name = models[0].outputs[i].name;
    outs() << results[i].name << ": " << onnx::dtypeName(results[i].dtype) << " "
            << onnx::shapeString(results[i].shape) << " = " << preview(results[i]);
    if (!o.outputDir.empty()) {
      std::string path = o.outputDir + "/" + fileNameFor(results[i].name, i) + ".pb";
      if (!onnx::writeTensorFile(path, results[i], error))
        return fail(error);
      outs() << "  -> " << path;
    }
    outs() << "\n";
  }
  return 0;
}
} // namespace kiln
