//===- SveTarget.cpp - AArch64 SVE, vector-length agnostic by default -----===//
#include "compiler/targets/common/IsaTarget.h"

using namespace mlir;
using namespace kiln;

namespace {
class SveTarget : public IsaTarget {
public:
  explicit SveTarget(int64_t bits) : bits(bits) {}
  std::string name() const override { return "sve"; }
  std::vector<std::string> cflags() const override {
    std::vector<std::string> f = {"--target=aarch64-linux-gnu", "-std=c11", "-O2",
                                  "-ffunction-sections", "-fdata-sections",
                                  "-fno-math-errno", "-march=armv8.2-a+sve+dotprod"};
    if (bits)
      f.push_back("-msve-vector-bits=" + std::to_string(bits));
    return f;
  }
  std::vector<std::string>
  linkCommand(const std::vector<std::string> &inputs,
              const std::string &output) const override {
    return crossGccLink("aarch64-linux-gnu-gcc", inputs, output);
  }
  std::vector<std::string> runPrefix(int64_t vectorBits) const override {
    int64_t vl = bits ? bits : (vectorBits ? vectorBits : 128);
    return {"qemu-aarch64", "-cpu", "max,sve" + std::to_string(vl) + "=on",
            "-L", "/usr/aarch64-linux-gnu"};
  }
  std::vector<int64_t> testVectorBits() const override {
    if (bits)
      return {bits};
    return {128, 256, 512};
  }

private:
  int64_t bits; // 0: length agnostic
};
} // namespace

std::unique_ptr<Target> kiln::createSveTarget(const TargetOptions &o,
                                              std::string &error) {
  if (!o.cpu.empty()) {
    error = "--cpu does not apply to --target=sve (use --sve-bits)";
    return nullptr;
  }
  int64_t b = o.sveBits;
  if (b != 0 && (b < 128 || b > 2048 || (b & (b - 1)) != 0)) {
    error = "--sve-bits=" + std::to_string(b) +
            " is not valid (valid: 128, 256, 512, 1024, 2048)";
    return nullptr;
  }
  return std::make_unique<SveTarget>(b);
}
