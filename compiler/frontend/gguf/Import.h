//===- Import.h - GGUF language models to the kiln dialect ----------------===//
#ifndef KILN_FRONTEND_GGUF_IMPORT_H
#define KILN_FRONTEND_GGUF_IMPORT_H

#include "compiler/frontend/gguf/GGUF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace kiln {
/// Architectures importGGUF understands, for error messages and --help.
const char *supportedGGUFArchitectures();

/// Builds a module holding one kiln.weight per tensor the model uses and
/// `func.func @forward(tokens) -> logits of the last token`. On failure returns
/// null and sets `error` to a message naming the file and the key or tensor.
mlir::OwningOpRef<mlir::ModuleOp> importGGUF(mlir::MLIRContext &ctx,
                                             const gguf::File &file,
                                             std::string &error);
} // namespace kiln

#endif
