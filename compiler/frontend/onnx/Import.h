//===- Import.h - ONNX models to the kiln dialect --------------------------===//
#ifndef KILN_FRONTEND_ONNX_IMPORT_H
#define KILN_FRONTEND_ONNX_IMPORT_H

#include "compiler/dialect/KilnDialect.h"
#include "compiler/frontend/onnx/Graph.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace kiln {
/// Builds the module of a lowered ONNX graph: `func.func @run` whose
/// arguments and results are the graph's inputs and outputs (each with
/// kiln.name), one kiln.tensor_op per kernel call and one kiln.constant per
/// constant a call or output reads (its bytes in the IR).
mlir::OwningOpRef<mlir::ModuleOp>
importLoweredGraph(mlir::MLIRContext &ctx, const onnx::LoweredGraph &graph,
                   const std::string &path, std::string &error);
} // namespace kiln

#endif
