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

// Values of the options that kilnc, kiln-run and kiln-bench share, checked
// the same way in each. On a bad value they return false with `error` naming
// the option, the value and what is expected.

/// --NAME=VALUE as an integer from `lo` to `hi`, or `word` (when not empty;
/// stored as 0); otherwise an error "--NAME=VALUE: expected EXPECTED".
inline bool parseCountOption(llvm::StringRef name, llvm::StringRef value,
                             int64_t lo, int64_t hi, llvm::StringRef word,
                             llvm::StringRef expected, int64_t &out,
                             std::string &error) {
  if (!word.empty() && value == word) {
    out = 0;
    return true;
  }
  if (!value.getAsInteger(10, out) && out >= lo && out <= hi)
    return true;
  error = "--" + name.str() + "=" + value.str() + ": expected " + expected.str();
  return false;
}

/// --threads=N: 1 to 256.
inline bool parseThreadsOption(llvm::StringRef value, int64_t &threads,
                               std::string &error) {
  return parseCountOption("threads", value, 1, 256, "", "1 to 256", threads,
                          error);
}

/// --max-batch=N: rows of one forward call, 1 to 4096, or `auto` (stored as
/// 0: the driver sizes the chunk to an L2 cache, see prefillChunk).
inline bool parseMaxBatchOption(llvm::StringRef value, int64_t &maxBatch,
                                std::string &error) {
  return parseCountOption("max-batch", value, 1, 4096, "auto",
                          "1 to 4096, or auto", maxBatch, error);
}

/// --kv-block=N: tokens per KV block, 1 to 65536, or `context` (stored as 0:
/// one block holds a whole sequence).
inline bool parseKvBlockOption(llvm::StringRef value, int64_t &block,
                               std::string &error) {
  return parseCountOption("kv-block", value, 1, 65536, "context",
                          "1 to 65536 or 'context'", block, error);
}

/// --kv-cache=f32|f16: the KV cache's element type.
inline bool parseKvCacheOption(llvm::StringRef value, bool &f16,
                               std::string &error) {
  if (value == "f32" || value == "f16") {
    f16 = value == "f16";
    return true;
  }
  error = "--kv-cache=" + value.str() + ": expected f32 or f16";
  return false;
}
} // namespace kiln

#endif
