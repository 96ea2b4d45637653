//===- Passes.h - declarations and registration of every kiln pass --------===//
#ifndef KILN_PASSES_PASSES_H
#define KILN_PASSES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln {
#define GEN_PASS_DECL
#include "compiler/passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/passes/Passes.h.inc"

/// Attaches the TensorFoldInterface, backed by the host build of
/// kernels/tensor, to the kiln dialect of every context using `registry`,
/// so that kiln.tensor_op folds wherever MLIR folds (canonicalize too).
void registerTensorFolding(mlir::DialectRegistry &registry);
} // namespace kiln

#endif
