//===- ToolOptions.h - options kiln's tools parse before LLVM's -----------===//
//
// libLLVM registers global options of its own ("stop-after", "threads"), so a
// tool that wants those names takes them out of argv before
// cl::ParseCommandLineOptions sees them.
//
#ifndef KILN_TOOLS_COMMON_TOOLOPTIONS_H
#define KILN_TOOLS_COMMON_TOOLOPTIONS_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {
/// Removes every `--NAME=VALUE` (or `-NAME=VALUE`) whose NAME is a key of
/// `values` from argc/argv, storing VALUE there (the last one wins). `storage`
/// keeps the remaining argv alive.
inline void takeOptions(int &argc, char **&argv,
                        std::map<std::string, std::string> &values,
                        std::vector<char *> &storage) {
  storage.clear();
  for (int i = 0; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    bool taken = false;
    for (auto &[name, value] : values) {
      llvm::StringRef rest = a;
      if ((rest.consume_front("--" + name + "=") ||
           rest.consume_front("-" + name + "="))) {
        value = rest.str();
        taken = true;
        break;
      }
    }
    if (!taken)
      storage.push_back(argv[i]);
  }
  argc = (int)storage.size();
  argv = storage.data();
}
} // namespace kiln

#endif
