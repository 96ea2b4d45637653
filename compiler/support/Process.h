//===- Process.h - running the C toolchain and generated programs ---------===//
#ifndef KILN_SUPPORT_PROCESS_H
#define KILN_SUPPORT_PROCESS_H

#include <string>
#include <vector>

namespace kiln {
/// Runs argv[0] (searched in PATH) in directory `cwd` (empty: current), with
/// stdout and stderr captured into `output`. Returns the exit status, 127 if
/// the program could not be started, 128+signal if it was killed.
int runProgram(const std::vector<std::string> &argv, const std::string &cwd,
               std::string &output);
/// C source for programs kiln builds to run on a target (kiln-run's runner,
/// the microkernel checks): `out(s, n)` writes to stdout and `finish(rc)`
/// flushes and exits; through stdio on hosted targets, Linux syscalls on
/// freestanding Hexagon.
std::string programIoSource(bool hosted);
/// The entry point of such a program: calls `int run(void)`, then finish().
std::string programEntrySource(bool hosted);
/// Shell-style quoting for messages.
std::string joinCommand(const std::vector<std::string> &argv);
} // namespace kiln

#endif
