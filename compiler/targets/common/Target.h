//===- Target.h - what a target contributes to a generated library --------===//
//
// Emission is shared: the weight blob, the header, the public API and the
// order of kernel calls. A target supplies its kernels' source, the C compiler
// flags for its ISA, and the call statement for each op's chosen kernel.
//
#ifndef KILN_TARGETS_COMMON_TARGET_H
#define KILN_TARGETS_COMMON_TARGET_H

#include "compiler/dialect/KilnDialect.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {
/// What the emitter knows while writing the body of the forward function.
class EmitContext {
public:
  virtual ~EmitContext() = default;
  /// C expression of type `float *` for an op result or operand.
  virtual std::string value(mlir::Value v) const = 0;
  /// C expression for the number of rows of `v` ("n" for the batch).
  virtual std::string rows(mlir::Value v) const = 0;
  /// C expression of type `const uint8_t *` for the bytes of weight `sym`;
  /// `asF32` selects the copy converted to f32 (norm scales, biases).
  virtual std::string weight(mlir::FlatSymbolRefAttr sym, bool asF32) const = 0;
  /// C expression of type `float *` for an op's planned scratch space.
  virtual std::string scratch(mlir::Operation *op) const = 0;
};

class Target {
public:
  virtual ~Target() = default;
  virtual std::string name() const = 0;
  /// Flags for clang when compiling generated C for this target.
  virtual std::vector<std::string> cflags() const = 0;
  /// Kernel definitions pasted into the generated source.
  virtual std::string kernelSource() const = 0;
  /// Appends the C statement that runs `op` (which carries kiln.kernel).
  virtual bool emitOp(mlir::Operation *op, const EmitContext &ec,
                      std::string &out, std::string &error) const = 0;
};

/// Targets kilnc accepts, comma-separated, for messages and --help.
const char *supportedTargets();
/// The named target, or null with `error` listing the valid ones.
std::unique_ptr<Target> createTarget(const std::string &name,
                                     std::string &error);
std::unique_ptr<Target> createGenericTarget();
} // namespace kiln

#endif
