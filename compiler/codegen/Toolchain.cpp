//===- Toolchain.cpp - building and running C for a target ----------------===//
#include "compiler/codegen/Toolchain.h"
#include "compiler/support/Process.h"
#include "compiler/targets/Target.h"

#include "llvm/Support/Path.h"

using namespace kiln;

Toolchain::Toolchain(const Target &target, std::string cc, std::string ar)
    : target(target), cc(cc.empty() ? KILN_DEFAULT_CC : std::move(cc)),
      ar(ar.empty() ? KILN_DEFAULT_AR : std::move(ar)),
      cache(objectCacheFromEnvironment()) {}

namespace {
bool step(const char *what, const std::vector<std::string> &argv,
          const std::string &dir, std::string &error) {
  std::string output;
  if (runProgram(argv, dir, output) == 0)
    return true;
  error = std::string(what) + " failed: " + joinCommand(argv) + "\n" + output;
  return false;
}
} // namespace

std::vector<std::string>
Toolchain::compileCommand(const std::string &source,
                          const std::vector<std::string> &cflags) const {
  // Relative paths only, run inside the source's directory: nothing of the
  // build machine's directories ends up in the objects.
  std::vector<std::string> argv = {cc};
  const std::vector<std::string> own = target.cflags();
  const std::vector<std::string> &flags = cflags.empty() ? own : cflags;
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-I.", "-c", source, "-o",
                           llvm::sys::path::stem(source).str() + ".o"});
  return argv;
}

std::vector<std::string>
Toolchain::linkCommand(const std::vector<std::string> &inputs,
                       const std::string &program) const {
  return target.linkCommand(inputs, program);
}

std::vector<std::string>
Toolchain::runCommand(const std::vector<std::string> &argv,
                      int64_t vectorBits) const {
  std::vector<std::string> full = target.runPrefix(vectorBits);
  full.insert(full.end(), argv.begin(), argv.end());
  return full;
}

bool Toolchain::compile(const std::string &dir, const std::string &source,
                        const std::vector<std::string> &cflags,
                        std::string &error) const {
  std::vector<std::string> argv = compileCommand(source, cflags);
  std::string key;
  if (!cache.key(dir, source, argv, key, error))
    return false;
  std::string object = dir + "/" + argv.back();
  if (!key.empty() && cache.fetch(key, object))
    return true;
  if (!step("C compiler", argv, dir, error))
    return false;
  return key.empty() || cache.store(key, object, error);
}

bool Toolchain::archive(const std::string &dir, const std::string &library,
                        const std::vector<std::string> &objects,
                        std::string &error) const {
  std::vector<std::string> argv = {ar, "rcsD", library};
  argv.insert(argv.end(), objects.begin(), objects.end());
  return step("archiver", argv, dir, error);
}

bool Toolchain::link(const std::string &dir,
                     const std::vector<std::string> &inputs,
                     const std::string &program, std::string &error) const {
  return step("linker", linkCommand(inputs, program), dir, error);
}

int Toolchain::run(const std::vector<std::string> &argv, int64_t vectorBits,
                   const std::string &cwd, std::string &output) const {
  return runProgram(runCommand(argv, vectorBits), cwd, output);
}
