//===- Emitter.h - from a planned module to libNAME.a + NAME.h ------------===//
#ifndef KILN_TARGETS_COMMON_EMITTER_H
#define KILN_TARGETS_COMMON_EMITTER_H

#include "compiler/frontend/WeightStore.h"
#include "compiler/targets/common/Target.h"

#include <string>
#include <vector>

namespace kiln {
struct CompileOptions {
  std::string target = "generic";
  TargetOptions targetOptions;  // --cpu, --sve-bits
  std::string name;             // C identifier prefixing the API
  std::string outDir;
  bool externalWeights = false; // write NAME.weights instead of embedding
  int64_t context = 0;          // tokens per sequence; 0: the model's own
  int64_t maxBatch = 32;        // rows of one forward call (prefill chunk)
  int64_t maxSeqs = 1;          // sequences open at once
  int64_t threads = 1;          // threads the code is split for (hosted)
  int64_t kvBlock = 16;         // tokens per KV block; 0: the whole context
  int64_t kvPoolTokens = 0;     // KV pool size; 0: every sequence full
  std::string cc;               // C compiler (default: the configured clang)
  std::string ar;               // archiver (default: the configured llvm-ar)
  std::string stopAfter;        // pipeline: stop after this pass ("" = all)
  std::string quantize;         // kiln-quantize type ("" = none)
  std::string quantizeExclude;  // regex of tensors to keep
  std::vector<std::string> quantizeOverrides; // REGEX=TYPE
  std::vector<std::string> disabledPasses; // --disable-pass: optional passes to skip
};

/// Writes OUTDIR/libNAME.a, OUTDIR/NAME.h (and NAME.weights) from a module
/// that went through the whole pipeline. Writes nothing on failure.
bool writeLibrary(mlir::ModuleOp module, const WeightStore &weights,
                  const CompileOptions &opts, std::string &error);
} // namespace kiln

#endif
