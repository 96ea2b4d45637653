//===- ArmCpu.h - AArch64 --cpu strings: architectures, cores, features ---===//
//
// Plain C++: `--target=neon --cpu=armv8.6-a`, `--cpu=cortex-a78+i8mm` and
// the like, spelled as clang's -march and -mcpu spell them, read into the
// feature words of kernels.def's KILN_CPU rows.
//
#ifndef KILN_KERNELS_ARMCPU_H
#define KILN_KERNELS_ARMCPU_H

#include <set>
#include <string>

namespace kiln::kernels {
/// Reads `cpu`, an AArch64 architecture (armv8-a, armv8.1-a ... armv8.9-a,
/// armv9-a ... armv9.4-a) or core (cortex-a78, neoverse-v1, ...) followed by
/// "+feature" or "+nofeature" words, into the features it has that Kiln's
/// NEON kernels use ("dotprod", "i8mm"). False with `error` for a word it
/// does not know or a CPU without Advanced SIMD; true also when the CPU
/// lacks the dot product (the caller says which level it needs).
bool armFeatures(const std::string &cpu, std::set<std::string> &features,
                 std::string &error);
/// Whether `cpu` looks like an architecture or core string (it has a '+',
/// starts with "armv", or names a known core), not a level name.
bool isArmCpuString(const std::string &cpu);
} // namespace kiln::kernels

#endif
