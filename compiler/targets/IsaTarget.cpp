//===- IsaTarget.cpp - what the ISA targets share -------------------------===//
#include "compiler/targets/IsaTarget.h"

#include <cstring>

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
  if (llvm::StringRef(k->weight) == "q4_1")
    return packQ4_1AsQ5_1(*k, N, K, ggml, bytes, out, error);
  return pack(*k, N, K, ggml, bytes, out, error);
}

// The q4_1 rows of the kernel table run the q5_1 kernels (kernels.def): each
// 20-byte Q4_1 block (d, m, 16 bytes of nibbles) becomes the 24-byte Q5_1
// block with the same d, m and nibbles and fifth bits qh = 0, packed by the
// q5_1 layout.
bool IsaTarget::packQ4_1AsQ5_1(const kernels::MatMulKernel &k, int64_t N,
                               int64_t K, const uint8_t *ggml, size_t bytes,
                               std::vector<uint8_t> &out,
                               std::string &error) const {
  if (K % 32 != 0 || N <= 0 || bytes != (size_t)(N * (K / 32) * 20)) {
    error = std::string(k.name) + ": " + std::to_string(bytes) +
            " bytes are not " + std::to_string(N) + " rows of " +
            std::to_string(K) + " q4_1 weights";
    return false;
  }
  std::vector<uint8_t> q5((size_t)(N * (K / 32)) * 24, 0);
  for (size_t b = 0; b < (size_t)(N * (K / 32)); ++b) {
    std::memcpy(&q5[24 * b], ggml + 20 * b, 4);           // d, m
    std::memcpy(&q5[24 * b + 8], ggml + 20 * b + 4, 16);  // nibbles
  }
  kernels::MatMulKernel k5 = k;
  k5.weight = "q5_1";
  return pack(k5, N, K, q5.data(), q5.size(), out, error);
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
