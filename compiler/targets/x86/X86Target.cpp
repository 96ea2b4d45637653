//===- X86Target.cpp - x86-64 with AVX2+FMA, or AVX-512 VNNI --------------===//
#include "compiler/targets/common/IsaTarget.h"

using namespace mlir;
using namespace kiln;

namespace {
class X86Target : public IsaTarget {
public:
  explicit X86Target(std::string level) : level(std::move(level)) {}
  std::string name() const override { return "x86"; }
  std::vector<std::string> cflags() const override {
    std::vector<std::string> f = {"--target=x86_64-linux-gnu", "-std=c11", "-O2",
                                  "-ffunction-sections", "-fdata-sections",
                                  "-fno-math-errno"};
    if (level == "avx512vnni")
      f.insert(f.end(), {"-march=x86-64-v4", "-mavx512vnni"});
    else
      f.push_back("-march=x86-64-v3");
    return f;
  }
  std::vector<std::string>
  linkCommand(const std::vector<std::string> &inputs,
              const std::string &output) const override {
    std::vector<std::string> argv = {KILN_DEFAULT_CC};
    argv.insert(argv.end(), inputs.begin(), inputs.end());
    argv.insert(argv.end(), {"-lm", "-o", output});
    return argv;
  }

private:
  std::string level; // "avx2" or "avx512vnni"
};
} // namespace

std::unique_ptr<Target> kiln::createX86Target(const TargetOptions &o,
                                              std::string &error) {
  std::string cpu = o.cpu.empty() ? "host" : o.cpu;
  if (cpu == "host") {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl"))
      cpu = "avx512vnni";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      cpu = "avx2";
    else {
      error = "--cpu=host: this CPU has neither AVX2+FMA nor AVX-512 VNNI; "
              "pass --cpu=avx2 or --cpu=avx512vnni to cross-compile";
      return nullptr;
    }
  }
  if (cpu != "avx2" && cpu != "avx512vnni") {
    error = "--cpu=" + o.cpu + " is not valid for --target=x86 (valid: host, "
            "avx2, avx512vnni)";
    return nullptr;
  }
  return std::make_unique<X86Target>(cpu);
}
