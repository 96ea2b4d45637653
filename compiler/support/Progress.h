//===- Progress.h - phases and progress bars of a long compile ------------===//
//
// A multi-GB model takes minutes to convert and pack; on a terminal kilnc shows
// which phase it is in and a bar for the long ones. Off a terminal (CI logs,
// build systems) and with -q it prints nothing, so logs stay clean.
//
#ifndef KILN_SUPPORT_PROGRESS_H
#define KILN_SUPPORT_PROGRESS_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace kiln {
class Progress {
public:
  /// Writes to `os` (stderr) only if `enabled`.
  Progress(llvm::raw_ostream &os, bool enabled) : os(os), enabled(enabled) {}
  ~Progress() { finish(); }
  /// True when stderr is a terminal (llvm::errs().is_displayed()).
  static bool stderrIsTerminal();
  /// Ends the previous phase's line and starts "kilnc: NAME".
  void phase(const std::string &name);
  /// Redraws the current phase's bar at done/total (only when it moves).
  void advance(uint64_t done, uint64_t total);
  /// Ends the current line.
  void finish();

private:
  llvm::raw_ostream &os;
  bool enabled;
  std::string current;
  bool open = false;
  int lastPercent = -1;
};
} // namespace kiln

#endif
