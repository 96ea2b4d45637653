//===- IsaTarget.cpp - what the ISA targets share -------------------------===//
#include "compiler/targets/IsaTarget.h"

using namespace mlir;
using namespace kiln;

bool IsaTarget::packWeight(llvm::StringRef kernel, int64_t N, int64_t K,
                           const uint8_t *ggml, size_t bytes,
                           std::vector<uint8_t> &out, std::string &error) const {
  const kernels::MatMulKernel *k = kernels::matmulKernelNamed(kernel.str());
  if (!k || llvm::StringRef(k->packer) == "ggml")
    return Target::packWeight(kernel, N, K, ggml, bytes, out, error);
  if (name() != k->isa) {
    error = kernel.str() + " is a " + k->isa + " kernel, not " + name();
    return false;
  }
  return pack(*k, N, K, ggml, bytes, out, error);
}

std::vector<std::string> IsaTarget::kernelFiles() const {
  std::vector<std::string> files = {"kernels_generic.c", "kernels_q8.c"};
  for (std::string &f : isaKernelFiles())
    files.push_back(std::move(f));
  return files;
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
