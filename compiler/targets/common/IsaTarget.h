//===- IsaTarget.h - shared kernel selection of the ISA targets -----------===//
//
// x86, NEON, SVE, RVV and HVX share one policy: matmuls over Q8_0, Q4_0, Q4_K
// and Q6_K weights quantize their activations to Q8_0 blocks and use integer
// dot products (the ISA's microkernel where it has one, else the portable
// kernels_q8.c); every other op and weight type uses the portable f32 kernels.
//
#ifndef KILN_TARGETS_COMMON_ISATARGET_H
#define KILN_TARGETS_COMMON_ISATARGET_H

#include "compiler/targets/common/Target.h"

namespace kiln {
KernelChoice selectGenericKernel(mlir::Operation *op, llvm::StringRef weightType,
                                 std::string &error);

class IsaTarget : public Target {
public:
  KernelChoice selectKernel(mlir::Operation *op, llvm::StringRef weightType,
                            std::string &error) const override;
  std::string kernelSource() const override;

  /// The ISA's own matmul kernel for weights of `weightType` with Q8_0
  /// activations, or "" to use the portable one. Its C signature is that of
  /// kiln_matmul_<type>_q8_0_generic (kernels_q8.c), reading weights in the
  /// layout packWeight() writes for it.
  virtual std::string isaMatMulKernel(llvm::StringRef weightType) const {
    return "";
  }

  /// The ISA's own attention kernel for `op` (same C signature as
  /// kiln_attention_f32_generic), or "" for the generic one.
  virtual std::string isaAttentionKernel(mlir::Operation *op) const {
    return "";
  }

  /// The register tile of one of its kernels: {activation rows, weight rows}.
  /// The default reads it from the name (..._MRxNR_isa, ..._NRx_isa).
  virtual std::vector<int64_t> isaMatMulTile(llvm::StringRef kernel) const;

protected:
  /// Source of the ISA's microkernels (after the portable kernels).
  virtual std::string isaKernelSource() const { return ""; }

  /// For the ISAs attention_tiled.c's fixed-width vectors are written for
  /// (x86, NEON, SVE): its kernel where its stack arrays fit (head dimensions
  /// up to 512), else "" (the generic kernel) ...
  static std::string tiledAttentionKernel(mlir::Operation *op);
  /// ... and the ISA's own kernel file followed by attention_tiled.c.
  static std::string withTiledAttention(const char *isaKernelFile);
};

std::unique_ptr<Target> createX86Target(const TargetOptions &, std::string &);
std::unique_ptr<Target> createNeonTarget(const TargetOptions &, std::string &);
std::unique_ptr<Target> createSveTarget(const TargetOptions &, std::string &);
std::unique_ptr<Target> createRvvTarget(const TargetOptions &, std::string &);
std::unique_ptr<Target> createHvxTarget(const TargetOptions &, std::string &);

/// Link command of a Linux target through its Debian cross gcc.
std::vector<std::string> crossGccLink(const std::string &gcc,
                                      const std::vector<std::string> &inputs,
                                      const std::string &output);
} // namespace kiln

#endif
