//===- IsaTarget.h - what the ISA targets share ---------------------------===//
//
// x86, NEON, SVE, RVV and HVX paste the portable kernels, kernels_q8.c and
// their own kernel file into every library, and pack matmul weights into the
// layouts the kernel table names for their kernels.
//
#ifndef KILN_TARGETS_ISATARGET_H
#define KILN_TARGETS_ISATARGET_H

#include "compiler/targets/Target.h"
#include "kernels/KernelTable.h"

namespace kiln {
class IsaTarget : public Target {
public:
  /// The portable kernels, then the ISA's.
  std::vector<std::string> kernelFiles() const override;
  /// Packs for the kernel's table row: its packer's layout (q4_1 rows: as
  /// Q5_1 blocks), or the GGML layout as it is ("ggml", and kernels outside
  /// the table).
  bool packWeight(llvm::StringRef kernel, int64_t N, int64_t K,
                  const uint8_t *ggml, size_t bytes, std::vector<uint8_t> &out,
                  std::string &error) const final;

protected:
  /// Writes the layout `k.packer` of a [N, K] GGML weight; the target's
  /// packers, one per layout name in kernels.def.
  virtual bool pack(const kernels::MatMulKernel &k, int64_t N, int64_t K,
                    const uint8_t *ggml, size_t bytes,
                    std::vector<uint8_t> &out, std::string &error) const = 0;
  /// The ISA's microkernel files (after the portable kernels); the ISAs the
  /// table gives the tiled attention add attention_tiled.c.
  virtual std::vector<std::string> isaKernelFiles() const = 0;

private:
  /// Q4_1 weights in the q5_1 layout of the same table row (fifth bits 0).
  bool packQ4_1AsQ5_1(const kernels::MatMulKernel &k, int64_t N, int64_t K,
                      const uint8_t *ggml, size_t bytes,
                      std::vector<uint8_t> &out, std::string &error) const;
};

std::unique_ptr<Target> createX86Target(const TargetOptions &);
std::unique_ptr<Target> createNeonTarget(const TargetOptions &);
std::unique_ptr<Target> createSveTarget(const TargetOptions &);
std::unique_ptr<Target> createRvvTarget(const TargetOptions &);
std::unique_ptr<Target> createHvxTarget(const TargetOptions &);

/// Link command of a Linux target through its Debian cross gcc.
std::vector<std::string> crossGccLink(const std::string &gcc,
                                      const std::vector<std::string> &inputs,
                                      const std::string &output);
} // namespace kiln

#endif
