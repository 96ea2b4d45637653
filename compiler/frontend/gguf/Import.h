//===- Import.h - GGUF language models to the kiln dialect ----------------===//
#ifndef KILN_FRONTEND_GGUF_IMPORT_H
#define KILN_FRONTEND_GGUF_IMPORT_H

#include "compiler/frontend/gguf/GGUF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace kiln {
/// Architectures importGGUF understands, for error messages and --help.
const char *supportedGGUFArchitectures();

/// How the importer treats a metadata key: `read` (it sets the model),
/// `checked` (only the value Kiln implements is accepted, anything else is an
/// error naming the key) or `ignored` (it cannot change the math; `why` says
/// why). Keys under "ARCH." belong to the architecture; "NS.*" is a whole
/// namespace. Any key no rule covers is an error: Kiln refuses what it does
/// not understand rather than risk a silent wrong answer.
struct GGUFKeyRule {
  const char *key, *use, *why;
};
const std::vector<GGUFKeyRule> &ggufKeyRules();

/// Builds a module holding one kiln.weight per tensor the model uses and
/// `func.func @forward(tokens) -> logits of the last token`. On failure returns
/// null and sets `error` to a message naming the file and the key or tensor.
/// Every key must be covered by ggufKeyRules() and every tensor must be one
/// the architecture's graph reads.
mlir::OwningOpRef<mlir::ModuleOp> importGGUF(mlir::MLIRContext &ctx,
                                             const gguf::File &file,
                                             std::string &error);
} // namespace kiln

#endif
