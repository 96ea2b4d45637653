//===- KilnDialect.h - the kiln dialect, its types and ops ----------------===//
#ifndef KILN_DIALECT_KILNDIALECT_H
#define KILN_DIALECT_KILNDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/dialect/KilnDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialect/KilnTypes.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialect/KilnOps.h.inc"

namespace kiln {
/// Elements per block and bytes per block of a weight element type (1 and the
/// byte width for f32/f16/bf16); {0, 0} for anything else.
std::pair<int64_t, int64_t> blockLayout(mlir::Type elementType);
/// The GGML name of a weight element type ("f32", "q4_0", ...), or "".
llvm::StringRef weightTypeName(mlir::Type elementType);
/// Inverse of weightTypeName; null for an unknown name.
mlir::Type weightTypeFromName(mlir::MLIRContext *ctx, llvm::StringRef name);
/// Bytes a weight of this tensor type occupies in GGML layout.
int64_t weightBytes(mlir::RankedTensorType type);
/// Where a matmul over N output rows is cut for `threads` threads: the slice
/// starts, then N. Slices are multiples of 128 rows (every microkernel's row
/// tile divides 128), so one slice when N < 256 or threads == 1.
std::vector<int64_t> matmulSlices(int64_t N, int64_t threads);
} // namespace kiln

#endif
