//===- HostKernels.h - the graph tensor kernels, run by the compiler ------===//
#ifndef KILN_SUPPORT_HOSTKERNELS_H
#define KILN_SUPPORT_HOSTKERNELS_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// The most bytes (results and scratch) a call folded at compile time may
/// take (64 MiB: shape computations and small constants; weights are
/// initializers, not folded); larger calls on constants run in the library
/// instead, so compile-time memory and time stay bounded.
constexpr uint64_t kMaxFoldBytes = uint64_t(1) << 26;

/// Runs kiln_t_<kernel> (kernels/tensor, built for the compiling machine) on
/// `in`, writing `out`: how constants fold, with the code the library calls,
/// so a folded value is the one the call would compute. False if there is no
/// such kernel.
bool runHostKernel(const std::string &kernel, const std::vector<int64_t> &p,
                   const std::vector<float> &f,
                   const std::vector<const void *> &in,
                   const std::vector<void *> &out, void *scratch);

} // namespace kiln

#endif
