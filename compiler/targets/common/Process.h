//===- Process.h - running the C toolchain and generated programs ---------===//
#ifndef KILN_TARGETS_COMMON_PROCESS_H
#define KILN_TARGETS_COMMON_PROCESS_H

#include <string>
#include <vector>

namespace kiln {
/// Runs argv[0] (searched in PATH) in directory `cwd` (empty: current), with
/// stdout and stderr captured into `output`. Returns the exit status, 127 if
/// the program could not be started, 128+signal if it was killed.
int runProgram(const std::vector<std::string> &argv, const std::string &cwd,
               std::string &output);
/// Shell-style quoting for messages.
std::string joinCommand(const std::vector<std::string> &argv);
} // namespace kiln

#endif
