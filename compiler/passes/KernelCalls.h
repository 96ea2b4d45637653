//===- KernelCalls.h - the kernel call a typed graph op becomes -----------===//
//
// A typed graph op (kiln.conv, kiln.gemm, kiln.reduce, ...) runs as one call
// of a tensor kernel (kernels/tensor/, kiln_tensor.h): kiln-select-kernels
// writes that call into the IR as a kiln.tensor_op, and the host folder
// runs the same call on constants. Both read it from here.
//
#ifndef KILN_PASSES_KERNELCALLS_H
#define KILN_PASSES_KERNELCALLS_H

#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace kiln {

/// A kernel call: its operands are the op's, in the op's order.
struct KernelCall {
  KernelCall(std::string kernel, llvm::SmallVector<int64_t> params = {})
      : kernel(std::move(kernel)), params(std::move(params)) {}
  std::string kernel;                  // kiln_t_<kernel>
  llvm::SmallVector<int64_t> params;   // integer parameters
  llvm::SmallVector<float> floats;     // float parameters (may be empty)
  /// Each kernel input's operand index, -1 for an omitted optional input;
  /// empty when the kernel's inputs are the operands.
  llvm::SmallVector<int64_t> slots;
  int64_t scratch = 0;                 // bytes of scratch
};

/// The call `op` (a typed graph op, isTypedGraphOp) runs as; std::nullopt
/// with the reason in `why` if it has none (a convolution whose scratch
/// would overflow, an epilogue code no float epilogue runs).
std::optional<KernelCall> kernelCallOf(mlir::Operation *op, std::string &why);

} // namespace kiln

#endif
