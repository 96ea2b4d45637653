//===- Emitter.h - from a planned module to libNAME.a + NAME.h ------------===//
#ifndef KILN_CODEGEN_EMITTER_H
#define KILN_CODEGEN_EMITTER_H

#include "compiler/codegen/HalideObjects.h"
#include "compiler/weights/WeightStore.h"
#include "compiler/targets/Target.h"
#include "kiln/kiln.h"
#include "kiln/kiln_tokenizer.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace kiln {
class Progress;

/// What codegen needs besides the IR: names, places and programs. The
/// target and the layout come from the module (kiln.target, kiln.max_batch,
/// kiln.kv_block, ...), where the driver records them.
struct EmitOptions {
  std::string name;             // C identifier prefixing the API
  std::string outDir;
  std::string cc;               // C compiler (default: the configured clang)
  std::string ar;               // archiver (default: the configured llvm-ar)
  std::string cacheDir;         // object cache (default: KILN_CACHE_DIR)
  Progress *progress = nullptr; // phases and bars on a terminal (kilnc)
  /// --tokenizer=embed: the tables compiled into the library (must outlive
  /// the emitter's calls); nullptr for none.
  const kiln_vocab *tokenizer = nullptr;
};

/// EmitOptions with the module's target name and layout: what the emitters
/// read while they write a library.
struct ModuleOptions : EmitOptions, LayoutOptions {
  std::string target;
  ModuleOptions(mlir::ModuleOp module, const EmitOptions &emit);
};

/// A library's files before compilation: what --emit=c writes and
/// --emit=lib compiles.
struct LibrarySources {
  std::vector<std::pair<std::string, std::string>> texts; // relative name, text
  std::string header;               // NAME.h
  std::string blobFile;             // NAME_weights.bin (.incbin) or NAME.weights
  std::vector<uint8_t> blob;        // the weight blob
  bool external = false;            // blob read at run time (NAME_set_weights)
  std::vector<std::string> units;   // sources compiled into the archive, in order
  std::vector<std::string> cflags;  // flags for each unit besides -I<dir>
  std::vector<HalideObject> halide; // pipeline objects linked beside the units
};

/// Where the KV cache of each attention layer lives. Full-attention layers
/// take KV slots 0, 1, ... in the block pool; a sliding-window layer needs
/// only its window plus one forward call's new rows, so when that many
/// positions (in whole KV blocks) are fewer than the context, it takes a slot
/// after them, in a ring per sequence.
struct KvPlan {
  int64_t layers = 0;    // attention layers
  int64_t kvWidth = 0;   // widest K or V row, elements
  int64_t swaLayers = 0; // layers kept in rings
  int64_t swaRing = 0;   // positions per ring (0: none)
  std::vector<int64_t> slot; // KV slot of each layer
};
KvPlan planKv(mlir::func::FuncOp forward, const LayoutOptions &opts,
              int64_t context);

/// The kiln_layout a library with layout `opts` states in its header: KV
/// blocks and pool from --kv-block, --kv-pool-tokens and --max-seqs, the cache
/// type from --kv-cache, the rings from `kv`. The emitter writes it and kilnc
/// --report sizes the arena with it, so the two cannot disagree.
kiln_layout libraryLayout(const LayoutOptions &opts, int64_t context,
                          const KvPlan &kv, int64_t activationBytes);

/// Generates the model's C source, header, runtime and weight blob from a
/// module that went through the whole pipeline.
bool generateLibrarySources(mlir::ModuleOp module, const WeightStore &weights,
                            const EmitOptions &opts, LibrarySources &out,
                            std::string &error);
/// Writes `sources` (texts and blob) into `dir`.
bool writeLibrarySources(const LibrarySources &sources, const std::string &dir,
                         std::string &error);
/// Writes the bytes (or the text) to `path`; false with `error` naming it.
bool writeFile(const std::string &path, const void *data, size_t size,
               std::string &error);
inline bool writeFile(const std::string &path, const std::string &text,
                      std::string &error) {
  return writeFile(path, text.data(), text.size(), error);
}

/// A private directory inside an output directory: results are built there
/// and moved into place at the end, so a failure leaves nothing partial.
/// Removed (with whatever is left in it) when destroyed.
struct StagingDir {
  std::string path, outDir;
  bool create(const std::string &outDir, std::string &error);
  /// Moves these entries (files or directories) of `path` into outDir.
  bool publish(const std::vector<std::string> &names, std::string &error);
  ~StagingDir();
};

/// Writes OUTDIR/libNAME.a, OUTDIR/NAME.h (and NAME.weights) from a module
/// that went through the whole pipeline. Writes nothing on failure.
bool writeLibrary(mlir::ModuleOp module, const WeightStore &weights,
                  const EmitOptions &opts, std::string &error);
/// --emit=c: writes the sources of that library, its weights and kiln.mk (a
/// Makefile fragment building libNAME.a with any C compiler for the target)
/// into OUTDIR. Writes nothing on failure. (EmitC.cpp)
bool writeCSources(mlir::ModuleOp module, const WeightStore &weights,
                   const EmitOptions &opts, std::string &error);
} // namespace kiln

#endif
