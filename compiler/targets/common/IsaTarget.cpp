//===- IsaTarget.cpp - shared kernel selection of the ISA targets ---------===//
#include "compiler/targets/common/IsaTarget.h"
#include "compiler/targets/common/Embedded.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace kiln;

KernelChoice IsaTarget::selectKernel(Operation *op, StringRef weightType,
                                     std::string &error) const {
  static const llvm::StringSet<> q8Types = {"q8_0", "q4_0", "q4_k", "q6_k"};
  if (isa<AttentionOp>(op)) {
    std::string own = isaAttentionKernel(op);
    if (!own.empty()) {
      KernelChoice c;
      c.kernel = own;
      return c;
    }
  }
  auto matmul = dyn_cast<MatMulOp>(op);
  if (!matmul || !q8Types.contains(weightType))
    return selectGenericKernel(op, weightType, error);
  KernelChoice c;
  c.activation = "q8_0";
  int64_t K = matmul.getInput().getType().cast<RankedTensorType>().getDimSize(1);
  if (K % 32 != 0) {
    error = "K = " + std::to_string(K) + " is not a multiple of 32";
    return {};
  }
  c.scratchPerRow = K / 32 * 34;
  std::string own = isaMatMulKernel(weightType);
  c.kernel = !own.empty() ? own : ("matmul_" + weightType + "_q8_0_generic").str();
  if (!own.empty())
    c.tile = isaMatMulTile(own);
  return c;
}

// Names carry the register tile after the types: ..._q8_0_4x8_avx2 is 4
// activation rows x 8 weight rows; ..._128x_rvv is 128 weight rows for one
// activation row at a time.
std::vector<int64_t> IsaTarget::isaMatMulTile(llvm::StringRef kernel) const {
  llvm::SmallVector<llvm::StringRef> parts;
  kernel.split(parts, '_');
  for (llvm::StringRef part : parts) {
    if (!part.contains('x'))
      continue;
    auto [a, b] = part.split('x');
    int64_t mr, nr;
    if (a.getAsInteger(10, mr))
      continue;
    if (b.empty())
      return {1, mr};
    if (!b.getAsInteger(10, nr))
      return {mr, nr};
  }
  return {};
}

std::string IsaTarget::kernelSource() const {
  return embeddedSource("kernels_generic.c") + "\n" +
         embeddedSource("kernels_q8.c") + "\n" + isaKernelSource();
}

std::string IsaTarget::tiledAttentionKernel(Operation *op) {
  // KILN_AT_MAX_HEAD_DIM in attention_tiled.c.
  return cast<AttentionOp>(op).getHeadDim() <= 512 ? "attention_f32_tiled" : "";
}

std::string IsaTarget::withTiledAttention(const char *isaKernelFile) {
  return embeddedSource(isaKernelFile) + "\n" +
         embeddedSource("attention_tiled.c");
}

std::vector<std::string>
kiln::crossGccLink(const std::string &gcc,
                   const std::vector<std::string> &inputs,
                   const std::string &output) {
  std::vector<std::string> argv = {gcc};
  argv.insert(argv.end(), inputs.begin(), inputs.end());
  argv.insert(argv.end(), {"-lm", "-o", output});
  return argv;
}
