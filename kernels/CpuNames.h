//===- CpuNames.h - --cpu as clang spells a CPU: AArch64 and x86 ----------===//
//
// Plain C++: `--target=neon --cpu=armv8.6-a` or `cortex-a78+i8mm`, and
// `--target=x86 --cpu=znver4` or `x86-64-v3`, spelled as clang's -march and
// -mcpu spell them, read into the feature words of kernels.def's KILN_CPU
// rows. The level kilnc compiles for is the best one those features allow.
//
#ifndef KILN_KERNELS_CPUNAMES_H
#define KILN_KERNELS_CPUNAMES_H

#include <set>
#include <string>

namespace kiln::kernels {
/// Whether `cpu` is for `isa` a CPU name rather than one of its levels:
/// AArch64 (isa "neon"): has a '+', starts with "armv" or names a known
/// core; x86: names a known architecture or core.
bool isCpuName(const std::string &isa, const std::string &cpu);
/// What CPU names `isa` takes, for messages ("" if none).
std::string cpuNameExamples(const std::string &isa);
/// Reads the CPU name `cpu` of `isa` into the KILN_CPU feature words it has
/// ("dotprod", "i8mm"; "avx2", "avx512vnni").
///
/// AArch64: an architecture (armv8-a, armv8.1-a ... armv8.9-a, armv9-a ...
/// armv9.4-a) or core (cortex-a78, neoverse-v1, ...), then "+feature" or
/// "+nofeature" words (LLVM's extension names). x86: an -march name
/// (x86-64-v3, haswell, znver4, icelake-server, ...). False with `error`
/// for a word it does not know or a CPU without what the ISA's lowest level
/// needs (Advanced SIMD and the dot product; AVX2 with FMA).
bool cpuFeatures(const std::string &isa, const std::string &cpu,
                 std::set<std::string> &features, std::string &error);
} // namespace kiln::kernels

#endif
