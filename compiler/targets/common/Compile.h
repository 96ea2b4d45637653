//===- Compile.h - from a model file to a static library ------------------===//
#ifndef KILN_TARGETS_COMMON_COMPILE_H
#define KILN_TARGETS_COMMON_COMPILE_H

#include "compiler/frontend/WeightStore.h"
#include "compiler/frontend/gguf/GGUF.h"

#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>

namespace kiln {
struct CompileOptions {
  std::string target = "generic";
  std::string name;             // C identifier prefixing the API
  std::string outDir;
  bool externalWeights = false; // write NAME.weights instead of embedding
  int64_t context = 0;          // tokens per sequence; 0: the model's own
  int64_t maxBatch = 32;        // rows of one forward call (prefill chunk)
  int64_t maxSeqs = 1;          // sequences open at once
  std::string cc;               // C compiler (default: the configured clang)
  std::string ar;               // archiver (default: the configured llvm-ar)
  std::string stopAfter;        // pipeline: stop after this pass ("" = all)
};

struct LoadedModel {
  std::unique_ptr<gguf::File> file;
  std::unique_ptr<WeightStore> weights;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// A C identifier made from a model path: "tiny-llama.Q4_0.gguf" ->
/// "tiny_llama_Q4_0".
std::string defaultModelName(const std::string &path);
/// Maps, validates and imports a model file (GGUF).
bool loadModel(mlir::MLIRContext &ctx, const std::string &path,
               LoadedModel &model, std::string &error);
/// Records the compile options in the module and runs kilnc's pipeline
/// (kernel selection, memory planning) up to `opts.stopAfter`.
bool runPipeline(mlir::ModuleOp module, const CompileOptions &opts,
                 std::string &error);
/// Writes OUTDIR/libNAME.a, OUTDIR/NAME.h (and NAME.weights) from a module
/// that went through the whole pipeline. Writes nothing on failure.
bool writeLibrary(mlir::ModuleOp module, const WeightStore &weights,
                  const CompileOptions &opts, std::string &error);
} // namespace kiln

#endif
