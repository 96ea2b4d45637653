//===- Common.h - what every converter file includes ----------------------===//
//
// A converter file registers its operators with RegisterConverter at static
// initialization; the ONNX frontend library is linked whole (see
// CMakeLists.txt) so that no registration is dropped.
//
#ifndef KILN_FRONTEND_ONNX_OPS_COMMON_H
#define KILN_FRONTEND_ONNX_OPS_COMMON_H

#include "compiler/frontend/onnx/Graph.h"
#include "compiler/support/CheckedInt.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace kiln::onnx {
/// Each converter file defines one of these (empty): lowerModel references
/// them all so the linker keeps every file's registrations.
void linkElementwiseOps();
void linkReduceOps();
void linkResizeOps();
void linkMovementOps();
void linkNNOps();

/// KILN_MAX_RANK of kiln_tensor.h.
constexpr size_t KILN_MAX_RANK_CXX = 8;

/// Emits kiln_t_binary with operation code `op` (elementwise.c) computing
/// `out` (already declared with the broadcast shape) from a and b.
bool emitBinary(NodeContext &c, int op, Tensor *a, Tensor *b, Tensor &out);

/// Emits kiln_t_strided_copy (movement.c): `out` (declared with `shape`'s
/// element count) = x read at element `offset` with per-dimension `strides`
/// (elements; 0 broadcasts, negative reverses) over `shape`. Unit dimensions
/// are dropped and contiguous ones merged first. (Movement.cpp)
bool emitStridedCopy(NodeContext &c, Tensor *x, Tensor &out,
                     const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &strides, int64_t offset);
} // namespace kiln::onnx

#endif
