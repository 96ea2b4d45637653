//===- ToolchainCheck.h - does this machine have what a target needs -------===//
//
// Compiles, links and runs a small C program for a target with exactly the
// commands the generated libraries and kiln-run use, and when a step fails,
// names what is missing and the Debian package that provides it.
//
#ifndef KILN_CODEGEN_TOOLCHAINCHECK_H
#define KILN_CODEGEN_TOOLCHAINCHECK_H

#include <string>
#include <vector>

namespace kiln {
class Target;
struct ToolchainPackages;

/// Builds and runs the probe for `target` in a temporary directory, compiling
/// with `cc` (empty: the default clang-16). True with a one-line `summary` of
/// what ran; false with `error` naming the step, what is missing and its
/// package, the command and the tool's first lines of output.
bool checkToolchain(const Target &target, const std::string &cc,
                    std::string &summary, std::string &error);

/// What a failed toolchain step's exit status and output say is missing, as
/// "header <bits/libc-header-start.h> not found (Debian package
/// libc6-dev-arm64-cross)"; empty when the output names nothing known.
std::string diagnoseToolchainFailure(const std::vector<std::string> &argv,
                                     int status, const std::string &output,
                                     const ToolchainPackages &packages);
} // namespace kiln

#endif
