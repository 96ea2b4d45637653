//===- Progress.cpp - phases and progress bars of a long compile ----------===//
#include "compiler/support/Progress.h"

#include "llvm/Support/Format.h"

using namespace kiln;

bool Progress::stderrIsTerminal() { return llvm::errs().is_displayed(); }

void Progress::phase(const std::string &name) {
  if (!enabled)
    return;
  finish();
  current = name;
  os << "kilnc: " << name << "...";
  os.flush();
  open = true;
  lastPercent = -1;
}

void Progress::advance(uint64_t done, uint64_t total) {
  if (!enabled || total == 0)
    return;
  int percent = (int)(done * 100 / total);
  if (percent == lastPercent)
    return;
  lastPercent = percent;
  constexpr int width = 30;
  int filled = percent * width / 100;
  // \r and an erase-line redraw the phase's line in place.
  os << "\r\x1b[Kkilnc: " << current << " [" << std::string(filled, '#')
     << std::string(width - filled, '.') << "] "
     << llvm::format("%3d%%", percent);
  os.flush();
  open = true;
}

void Progress::finish() {
  if (!enabled || !open)
    return;
  os << "\n";
  os.flush();
  open = false;
}
