//===- RvvTarget.cpp - RISC-V RV64GCV (RVV 1.0), vector-length agnostic ---===//
#include "compiler/targets/common/IsaTarget.h"

using namespace mlir;
using namespace kiln;

namespace {
class RvvTarget : public IsaTarget {
public:
  std::string name() const override { return "rvv"; }
  std::vector<std::string> cflags() const override {
    return {"--target=riscv64-linux-gnu", "-std=c11", "-O2",
            "-ffunction-sections", "-fdata-sections", "-fno-math-errno",
            "-march=rv64gcv"};
  }
  // ld.lld fails on R_RISCV_ALIGN relaxations here: link with the cross gcc.
  std::vector<std::string>
  linkCommand(const std::vector<std::string> &inputs,
              const std::string &output) const override {
    return crossGccLink("riscv64-linux-gnu-gcc", inputs, output);
  }
  std::vector<std::string> runPrefix(int64_t vectorBits) const override {
    return {"qemu-riscv64", "-cpu",
            "rv64,v=true,vext_spec=v1.0,vlen=" + std::to_string(vectorBits ? vectorBits : 128),
            "-L", "/usr/riscv64-linux-gnu"};
  }
  std::vector<int64_t> testVectorBits() const override { return {128, 256, 512}; }
};
} // namespace

std::unique_ptr<Target> kiln::createRvvTarget(const TargetOptions &o,
                                              std::string &error) {
  if (!o.cpu.empty()) {
    error = "--cpu does not apply to --target=rvv";
    return nullptr;
  }
  return std::make_unique<RvvTarget>();
}
