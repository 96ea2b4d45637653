//===- Target.h - what a target contributes to a generated library --------===//
//
// Emission is shared: the weight blob, the header, the public API and the
// order of kernel calls. A target supplies the kernel chosen for each op, the
// kernels' source, the layout its matmul kernels read weights in, and the
// toolchain: how to compile for its ISA, link a program and run it (natively or
// under qemu-user).
//
#ifndef KILN_TARGETS_TARGET_H
#define KILN_TARGETS_TARGET_H

#include "compiler/dialect/KilnDialect.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {
/// Options that refine a target (kilnc --cpu=..., --sve-bits=...).
struct TargetOptions {
  std::string cpu;      // target-specific CPU/feature level ("" = default)
  int64_t sveBits = 0;  // SVE: fix the vector length (0 = length agnostic)
};

/// What the emitter knows while writing the body of the forward function.
class EmitContext {
public:
  virtual ~EmitContext() = default;
  /// C expression of type `float *` for an op result or operand.
  virtual std::string value(mlir::Value v) const = 0;
  /// C expression for the number of rows of `v`: "n" for the batch, "n_out"
  /// after kiln.last_token (the rows whose logits are wanted).
  virtual std::string rows(mlir::Value v) const = 0;
  /// C expression of type `const uint8_t *` for the bytes of weight `sym`;
  /// `asF32` selects the copy converted to f32 (norm scales, biases).
  virtual std::string weight(mlir::FlatSymbolRefAttr sym, bool asF32) const = 0;
  /// C expression of type `const float *` for the RoPE cos/sin table of `op`.
  virtual std::string ropeTable(mlir::Operation *op) const = 0;
  /// C expression of type `float *` for an op's planned scratch space.
  virtual std::string scratch(mlir::Operation *op) const = 0;
  /// The KV slot (kiln_kv_at's `layer`) of attention layer `layer`.
  virtual int64_t kvSlot(int64_t layer) const { return layer; }
};

/// The call of RMS norm `m`'s kernel `kernel` (with its kiln_ prefix) over
/// `rows` rows of the op's width from `in` to `out` (C expressions; a
/// grouped norm's rows are counted in the op's width, not in groups).
std::string rmsNormCall(RMSNormOp m, const std::string &kernel, const EmitContext &ec,
                        const std::string &rows, const std::string &in,
                        const std::string &out);

/// The Debian packages a target's toolchain comes from, so that a missing
/// piece can be named by the package that provides it (kilnc
/// --check-toolchain).
struct ToolchainPackages {
  /// Headers, start files and libm of the target's C library; empty for a
  /// freestanding target.
  std::string libc;
  /// Programs the toolchain runs (compiler, linker, emulator) by file name.
  std::vector<std::pair<std::string, std::string>> programs;
};

class Target {
public:
  virtual ~Target() = default;
  virtual std::string name() const = 0;

  // --- Kernels (which op runs which kernel: kernels/kernels.def) ----------
  /// The kernel sources of the target's libraries (kernels/), in dependency
  /// order; each is a translation unit of its own.
  virtual std::vector<std::string> kernelFiles() const = 0;
  /// Those files as the one unit kilnc writes into the generated source
  /// (kernels/common/kiln_kernels.h says why).
  std::string kernelSource() const;
  /// Appends the C statement that runs `op` (which carries kiln.kernel);
  /// matmuls, with their parts, thread slices and epilogues, are emitted by
  /// the shared emitter.
  virtual bool emitOp(mlir::Operation *op, const EmitContext &ec,
                      std::string &out, std::string &error) const;
  /// Rewrites a matmul weight ([N, K] in GGML block layout) into the layout
  /// `kernel` reads (its packer in the kernel table). The default keeps the
  /// GGML layout.
  virtual bool packWeight(llvm::StringRef kernel, int64_t N, int64_t K,
                          const uint8_t *ggml, size_t bytes,
                          std::vector<uint8_t> &out, std::string &error) const;

  // --- Toolchain -----------------------------------------------------------
  /// clang flags for compiling C for this target (triple, -march, -O).
  virtual std::vector<std::string> cflags() const = 0;
  /// Command that links `inputs` (sources, objects, archives) into `output`.
  virtual std::vector<std::string>
  linkCommand(const std::vector<std::string> &inputs,
              const std::string &output) const = 0;
  /// Prefix that runs a linked program (qemu-user for foreign ISAs); empty
  /// when it runs natively. `vectorBits` selects SVE/RVV vector length.
  virtual std::vector<std::string> runPrefix(int64_t vectorBits) const {
    return {};
  }
  /// Whether a program for this target can run on this machine, at
  /// `vectorBits` under qemu (checkVectorBits) and natively on a CPU with
  /// the level's features (checkHost); otherwise false with `error`.
  bool checkRun(int64_t vectorBits, std::string &error) const {
    return checkHost(error) && checkVectorBits(vectorBits, error);
  }
  /// Whether a program for this target can run at `vectorBits` (0: the
  /// default); otherwise false with `error` naming --vector-bits. Only the
  /// length-agnostic targets take a length.
  virtual bool checkVectorBits(int64_t vectorBits, std::string &error) const;
  /// Whether this machine runs the target's programs (those run natively
  /// need the CPU level's features); otherwise false with `error`.
  virtual bool checkHost(std::string &error) const { return true; }
  /// Vector lengths a length-agnostic target must be tested at.
  virtual std::vector<int64_t> testVectorBits() const { return {0}; }
  /// False for freestanding targets (no C library: Hexagon).
  virtual bool hosted() const { return true; }
  /// The most bytes one object (arena, weight blob, graph input or output)
  /// may take on the target: PTRDIFF_MAX of its C ABI (2^31 - 1 on 32-bit
  /// Hexagon), so no size the generated code holds in a size_t wraps.
  virtual uint64_t maxObjectBytes() const { return INT64_MAX; }
  /// Where the programs and the C library above come from. The default is
  /// the host's: clang-16 compiling and linking against Debian's libc6-dev.
  virtual ToolchainPackages packages() const;
};

/// The target `module` records in `kiln.target`, or null with `error`.
std::unique_ptr<Target> createModuleTarget(mlir::ModuleOp module,
                                           std::string &error);

/// Targets kilnc accepts, comma-separated, for messages and --help.
const char *supportedTargets();
/// The named target, or null with `error` listing the valid ones.
std::unique_ptr<Target> createTarget(const std::string &name,
                                     const TargetOptions &options,
                                     std::string &error);
} // namespace kiln

#endif
