//===- NeonTarget.cpp - AArch64 NEON with dot product (optionally i8mm) ---===//
#include "compiler/targets/common/IsaTarget.h"

using namespace mlir;
using namespace kiln;

namespace {
class NeonTarget : public IsaTarget {
public:
  explicit NeonTarget(bool i8mm) : i8mm(i8mm) {}
  std::string name() const override { return "neon"; }
  std::vector<std::string> cflags() const override {
    return {"--target=aarch64-linux-gnu", "-std=c11", "-O2",
            "-ffunction-sections", "-fdata-sections", "-fno-math-errno",
            i8mm ? "-march=armv8.2-a+dotprod+i8mm" : "-march=armv8.2-a+dotprod"};
  }
  std::vector<std::string>
  linkCommand(const std::vector<std::string> &inputs,
              const std::string &output) const override {
    return crossGccLink("aarch64-linux-gnu-gcc", inputs, output);
  }
  std::vector<std::string> runPrefix(int64_t) const override {
    return {"qemu-aarch64", "-cpu", "max", "-L", "/usr/aarch64-linux-gnu"};
  }

private:
  bool i8mm;
};
} // namespace

std::unique_ptr<Target> kiln::createNeonTarget(const TargetOptions &o,
                                               std::string &error) {
  if (!o.cpu.empty() && o.cpu != "dotprod" && o.cpu != "i8mm") {
    error = "--cpu=" + o.cpu + " is not valid for --target=neon (valid: "
            "dotprod, i8mm)";
    return nullptr;
  }
  return std::make_unique<NeonTarget>(o.cpu == "i8mm");
}
