//===- ToolchainCheck.cpp - does this machine have what a target needs -----===//
#include "compiler/codegen/ToolchainCheck.h"
#include "compiler/codegen/Toolchain.h"
#include "compiler/support/Process.h"
#include "compiler/targets/Target.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdio>
#include <regex>

using namespace kiln;

namespace {
const char *kExpected = "kiln toolchain ok\n";

// A hosted probe needs the C library's headers, its start files at link time
// and the C library at run time (qemu's -L prefix); a freestanding one only
// the compiler's own headers and the linker. Generated libraries call no libm
// (the runtime brings its own), so neither does the probe: sqrtf and fabsf
// are instructions under -fno-math-errno.
std::string probeSource(bool hosted) {
  std::string s = "/* probe.c - written by kilnc --check-toolchain */\n"
                  "#include <stddef.h>\n#include <stdint.h>\n";
  if (hosted)
    s += "#include <math.h>\n#include <string.h>\n";
  s += programIoSource(hosted);
  if (hosted)
    s += R"c(static int run(void) {
  volatile float x = 2.0f;
  char text[32];
  memcpy(text, "kiln toolchain ok\n", 19);
  float r = sqrtf(x);
  if (!(fabsf(r * r - 2.0f) < 1e-5f))
    return 3;
  out(text, strlen(text));
  return 0;
}
)c";
  else
    s += R"c(static int run(void) {
  static const char text[] = "kiln toolchain ok\n";
  volatile uint32_t x = 40u;
  if ((uint64_t)x * x != 1600u)
    return 3;
  out(text, sizeof text - 1);
  return 0;
}
)c";
  return s + programEntrySource(hosted);
}

// The first `n` lines of `text`, each after `indent`.
std::string firstLines(const std::string &text, int n,
                       const std::string &indent = "") {
  std::string s;
  size_t at = 0;
  for (int i = 0; i < n && at < text.size(); ++i) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos)
      end = text.size();
    s += (i ? "\n" : "") + indent + text.substr(at, end - at);
    at = end + 1;
  }
  return s;
}

std::string packageOf(const ToolchainPackages &p, const std::string &program) {
  const std::string base = llvm::sys::path::filename(program).str();
  for (const auto &[name, package] : p.programs)
    if (name == base)
      return package;
  return "";
}

std::string withPackage(const std::string &what, const std::string &package) {
  return package.empty() ? what : what + " (Debian package " + package + ")";
}
} // namespace

std::string kiln::diagnoseToolchainFailure(const std::vector<std::string> &argv,
                                           int status, const std::string &output,
                                           const ToolchainPackages &packages) {
  // clang's resource headers (stdint.h, stddef.h) come with clang; a
  // freestanding target has no other headers.
  const std::string libc =
      packages.libc.empty() ? "libclang-common-16-dev" : packages.libc;
  if (status == 127 && !argv.empty())
    return withPackage("program '" + argv[0] + "' not found",
                       packageOf(packages, argv[0]));
  std::smatch m;
  static const std::regex header("fatal error: '([^']+)' file not found");
  if (std::regex_search(output, m, header))
    return withPackage("header <" + m[1].str() + "> not found", libc);
  static const std::regex startFile(
      "cannot find (crt1\\.o|Scrt1\\.o|crti\\.o|crtn\\.o|-lm|-lc)\\b");
  if (std::regex_search(output, m, startFile))
    return withPackage("the C library's " + m[1].str() + " not found", libc);
  static const std::regex runtimeLib(
      "Could not open '([^']+)'|error while loading shared libraries: ([^:]+)");
  if (std::regex_search(output, m, runtimeLib))
    return withPackage("the target's C library (" +
                           (m[1].matched ? m[1].str() : m[2].str()) +
                           ") not found",
                       libc);
  static const std::regex linker(
      "invalid linker name in argument '-fuse-ld=([a-z.]+)'|"
      "unable to execute command: Executable \"([^\"]+)\" doesn't exist");
  if (std::regex_search(output, m, linker)) {
    std::string program = m[1].matched ? "ld." + m[1].str() : m[2].str();
    return withPackage("program '" + program + "' not found",
                       packageOf(packages, program));
  }
  return "";
}

bool kiln::checkToolchain(const Target &target, const std::string &cc,
                          std::string &summary, std::string &error) {
  llvm::SmallString<128> tmp;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("kiln-toolchain", tmp)) {
    error = "cannot create a temporary directory: " + ec.message();
    return false;
  }
  const std::string dir = tmp.str().str();
  struct Cleanup {
    std::string dir;
    ~Cleanup() { llvm::sys::fs::remove_directories(dir); }
  } cleanup{dir};
  {
    std::FILE *f = std::fopen((dir + "/probe.c").c_str(), "w");
    if (!f) {
      error = "cannot write " + dir + "/probe.c";
      return false;
    }
    std::fputs(probeSource(target.hosted()).c_str(), f);
    std::fclose(f);
  }
  const ToolchainPackages packages = target.packages();
  auto step = [&](const char *what, std::vector<std::string> argv,
                  std::string &output) {
    int status = runProgram(argv, dir, output);
    if (status == 0)
      return true;
    std::string cause = diagnoseToolchainFailure(argv, status, output, packages);
    error = std::string(what) + " failed" + (cause.empty() ? "" : ": " + cause) +
            "\n  command: " + joinCommand(argv) + " (exit status " +
            std::to_string(status) + ")";
    if (!output.empty())
      error += "\n" + firstLines(output, 6, "  ");
    return false;
  };

  // The commands every library, runner and harness is built and run with.
  const Toolchain toolchain(target, cc);
  std::string output;
  if (!step("compiling", toolchain.compileCommand("probe.c", {}), output) ||
      !step("linking", toolchain.linkCommand({"probe.o"}, "probe"), output))
    return false;
  std::vector<std::string> run = toolchain.runCommand({dir + "/probe"}, 0);
  const std::string runner =
      run.size() == 1 ? "natively" : "under " + run.front();
  if (!step("running", run, output))
    return false;
  if (output != kExpected) {
    error = "running printed '" + firstLines(output, 3) + "', expected '" +
            firstLines(kExpected, 1) + "'\n  command: " + joinCommand(run);
    return false;
  }
  summary = "compiled, linked and ran " + runner;
  return true;
}
