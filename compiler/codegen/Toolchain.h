//===- Toolchain.h - building and running C for a target ------------------===//
//
// The one place that turns a target's toolchain description (compiler flags,
// link command, emulator) into commands: kilnc's libraries, kiln-run's and
// kiln-perplexity's runner, kiln-conformance's harness and kiln-bench's
// driver are all compiled, archived, linked and run through it.
//
#ifndef KILN_CODEGEN_TOOLCHAIN_H
#define KILN_CODEGEN_TOOLCHAIN_H

#include "compiler/codegen/ObjectCache.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {
class Target;

class Toolchain {
public:
  /// `cc` and `ar` empty: clang-16 and llvm-ar-16 (kilnc --cc, --ar).
  /// Compiled C objects are kept in KILN_CACHE_DIR when it is set.
  explicit Toolchain(const Target &target, std::string cc = {},
                     std::string ar = {});
  /// Keep compiled C objects in `dir` ("": compile every time).
  void setCacheDir(std::string dir) { cache = ObjectCache(std::move(dir)); }

  /// The commands the steps below run: compiling `source` to its stem + ".o"
  /// with `cflags` (the target's own when empty), linking, and running a
  /// program natively or under the target's emulator.
  std::vector<std::string>
  compileCommand(const std::string &source,
                 const std::vector<std::string> &cflags) const;
  std::vector<std::string> linkCommand(const std::vector<std::string> &inputs,
                                       const std::string &program) const;
  std::vector<std::string> runCommand(const std::vector<std::string> &argv,
                                      int64_t vectorBits) const;

  /// Compiles `source` (a path relative to `dir`, run there with -I.) into
  /// its stem + ".o" beside it, with `cflags` (the target's own when empty),
  /// or copies it from the object cache. False with `error` = "C compiler
  /// failed: COMMAND\nOUTPUT".
  bool compile(const std::string &dir, const std::string &source,
               const std::vector<std::string> &cflags,
               std::string &error) const;
  /// Archives `objects` (in `dir`) into `library`, deterministically.
  bool archive(const std::string &dir, const std::string &library,
               const std::vector<std::string> &objects,
               std::string &error) const;
  /// Links `inputs` (in `dir`: objects, archives, -l flags) into `program`.
  bool link(const std::string &dir, const std::vector<std::string> &inputs,
            const std::string &program, std::string &error) const;
  /// Runs `argv` (an absolute program path and its arguments) natively or
  /// under the target's emulator at `vectorBits`, in `cwd`; its exit status,
  /// with stdout and stderr in `output`.
  int run(const std::vector<std::string> &argv, int64_t vectorBits,
          const std::string &cwd, std::string &output) const;

private:
  const Target &target;
  std::string cc, ar;
  ObjectCache cache;
};
} // namespace kiln

#endif
