//===- CheckProgram.h - files of the per-target check programs ------------===//
//
// LibmTest and HalideTest write a check program's sources into a temporary
// directory, build them with a target's compiler flags and link command and
// run the result (under qemu for foreign ISAs).
//
#ifndef KILN_TEST_KERNELS_CHECKPROGRAM_H
#define KILN_TEST_KERNELS_CHECKPROGRAM_H

#include "compiler/support/Process.h"

#include <fstream>
#include <sstream>
#include <string>

namespace kiln::test {

inline bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  return bool(f);
}

inline std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Copies test/kernels/NAME of the source tree into DIR; false if it is
/// missing or empty.
inline bool copyCheckSource(const std::string &dir, const std::string &name) {
  std::string text =
      readFile(std::string(KILN_SOURCE_DIR) + "/test/kernels/" + name);
  return !text.empty() && writeFile(dir + "/" + name, text);
}

/// Writes check_io.h into DIR with the output functions it includes
/// (program_io.h: kiln::programIoSource, stdio on hosted targets, system
/// calls on freestanding ones).
inline bool writeCheckIo(const std::string &dir, bool hosted) {
  return copyCheckSource(dir, "check_io.h") &&
         writeFile(dir + "/program_io.h", programIoSource(hosted));
}

} // namespace kiln::test

#endif
