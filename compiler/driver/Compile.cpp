//===- Compile.cpp - load, import and run kilnc's pipeline ----------------===//
#include "compiler/driver/Compile.h"
#include "compiler/frontend/gguf/Import.h"
#include "compiler/frontend/onnx/Import.h"
#include "onnx.pb.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/dialect/KilnDialect.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Path.h"

#include <cctype>


using namespace mlir;
using namespace kiln;

std::string kiln::defaultModelName(const std::string &path) {
  std::string stem = llvm::sys::path::stem(path).str();
  std::string name;
  for (char c : stem)
    name += std::isalnum((unsigned char)c) ? c : '_';
  if (name.empty() || std::isdigit((unsigned char)name[0]))
    name = "m_" + name;
  return name;
}

bool kiln::isGraphModule(ModuleOp module) {
  return module->hasAttr("kiln.graph");
}

bool kiln::loadModel(MLIRContext &ctx, const std::string &path,
                     LoadedModel &model, std::string &error,
                     const onnx::InputShapes &inputShapes,
                     const std::map<std::string, onnx::Tensor> &frozenInputs,
                     uint64_t maxTensorBytes) {
  if (llvm::StringRef(path).endswith(".onnx")) {
    auto m = onnx::loadModel(path, error);
    if (!m)
      return false;
    m->maxTensorBytes = maxTensorBytes;
    onnx::LoweredGraph graph;
    for (const auto &[name, value] : frozenInputs) {
      bool found = false;
      for (const auto &in : m->proto->graph().input())
        found |= in.name() == name;
      if (!found) {
        error = "--freeze-input=" + name + "=...: the model has no input '" +
                name + "'";
        return false;
      }
    }
    if (!onnx::lowerModel(*m, inputShapes, graph, error, &frozenInputs)) {
      error = path + ": " + error;
      return false;
    }
    model.weights = std::make_unique<WeightStore>();
    model.module = importLoweredGraph(ctx, graph, path, error);
    if (!model.module)
      return false;
    (*model.module)->setAttr(
        "kiln.source",
        StringAttr::get(&ctx, llvm::sys::path::filename(path)));
    return true;
  }
  if (!inputShapes.empty() || !frozenInputs.empty()) {
    error = std::string(inputShapes.empty() ? "--freeze-input" : "--input-shape") +
            " applies to ONNX models, not " + path;
    return false;
  }
  if (!llvm::StringRef(path).endswith(".gguf")) {
    error = path + ": unknown model format (expected a .gguf or .onnx file)";
    return false;
  }
  model.file = gguf::File::open(path, error);
  if (!model.file)
    return false;
  model.module = importGGUF(ctx, *model.file, error);
  if (!model.module)
    return false;
  model.weights = std::make_unique<WeightStore>(*model.file);
  return true;
}

int64_t kiln::prefillChunk(ModuleOp module, int64_t l2Bytes,
                           int64_t context) {
  int64_t widest = 0;
  module.walk([&](MatMulOp op) {
    auto in = op.getInput().getType().cast<RankedTensorType>();
    if (in.getRank() == 2 && !in.isDynamicDim(1))
      widest = std::max(widest, in.getDimSize(1));
  });
  int64_t chunk = 32;
  if (l2Bytes > 0 && widest > 0) {
    // One byte per value and a 2-byte scale per 32 (Q8_0, the activations
    // the int8 kernels read; the x86 tiles add the sums, a few bytes more).
    const int64_t rowBytes = widest + (widest + 31) / 32 * 2;
    chunk = 16;
    while (chunk < 128 && 2 * chunk * rowBytes <= l2Bytes / 2)
      chunk *= 2;
  }
  // No more rows than a sequence can hold.
  return context > 0 ? std::min(chunk, context) : chunk;
}

bool kiln::runPipeline(ModuleOp module, const CompileOptions &opts,
                       std::string &error) {
  if (!recordTarget(module, opts.target, opts.targetOptions.cpu,
                    opts.targetOptions.sveBits, error))
    return false;
  auto modelContext = module->getAttrOfType<IntegerAttr>("kiln.context_length");
  if (opts.layout.context > 0 && modelContext &&
      opts.layout.context > modelContext.getInt()) {
    error = "--context=" + std::to_string(opts.layout.context) +
            " exceeds the model's context length " +
            std::to_string(modelContext.getInt());
    return false;
  }
  LayoutOptions layout = opts.layout;
  if (layout.maxBatch == 0) {
    layout.maxBatch = prefillChunk(
        module, layout.l2CacheBytes,
        layout.context > 0 ? layout.context
                           : (modelContext ? modelContext.getInt() : 0));
    if (layout.l2CacheBytes > 0)
      module->setAttr("kiln.max_batch_l2_bytes",
                      IntegerAttr::get(IntegerType::get(module.getContext(), 64),
                                       layout.l2CacheBytes));
  }
  recordLayout(module, layout);

  PassManager pm(module.getContext());
  if (!buildPipeline(pm, opts.pipeline, error))
    return false;
  if (opts.pipeline.stopAfter == "import")
    return true;
  if (failed(pm.run(module))) {
    error = "compilation pipeline failed (see the diagnostics above)";
    return false;
  }
  return true;
}
