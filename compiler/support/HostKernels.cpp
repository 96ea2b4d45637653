//===- HostKernels.cpp - the graph tensor kernels, run by the compiler ----===//
#include "compiler/support/HostKernels.h"

#include "kernels/tensor/kiln_tensor.h"

#include <unordered_map>

bool kiln::runHostKernel(const std::string &kernel,
                         const std::vector<int64_t> &p,
                         const std::vector<float> &f,
                         const std::vector<const void *> &in,
                         const std::vector<void *> &out, void *scratch) {
  static const std::unordered_map<std::string, kiln_tensor_kernel> table = {
#define KILN_TENSOR_KERNEL(name) {#name, kiln_t_##name},
#include "kernels/tensor/kiln_tensor_kernels.def"
#undef KILN_TENSOR_KERNEL
  };
  auto it = table.find(kernel);
  if (it == table.end())
    return false;
  static const float noFloats[4] = {0, 0, 0, 0};
  it->second(p.data(), f.empty() ? noFloats : f.data(), in.data(), out.data(),
             scratch);
  return true;
}
