//===- HvxTarget.cpp - Hexagon v67 with 128-byte HVX, freestanding --------===//
//
// No C library exists for Hexagon here: the library is built freestanding and
// the runtime brings the memcpy/memset the compiler may call.
//
#include "compiler/targets/common/IsaTarget.h"

using namespace mlir;
using namespace kiln;

namespace {
class HvxTarget : public IsaTarget {
public:
  std::string name() const override { return "hvx"; }
  std::vector<std::string> cflags() const override {
    return {"--target=hexagon", "-mv67", "-mhvx", "-mhvx-length=128b",
            "-std=c11", "-O2", "-ffreestanding", "-ffunction-sections",
            "-fdata-sections", "-fno-math-errno"};
  }
  std::vector<std::string>
  linkCommand(const std::vector<std::string> &inputs,
              const std::string &output) const override {
    std::vector<std::string> argv = {KILN_DEFAULT_CC, "--target=hexagon", "-mv67",
                                     "-nostdlib", "-static", "-fuse-ld=lld"};
    argv.insert(argv.end(), inputs.begin(), inputs.end());
    argv.insert(argv.end(), {"-o", output});
    return argv;
  }
  std::vector<std::string> runPrefix(int64_t) const override {
    return {"qemu-hexagon"};
  }
  bool hosted() const override { return false; }
};
} // namespace

std::unique_ptr<Target> kiln::createHvxTarget(const TargetOptions &o,
                                              std::string &error) {
  if (!o.cpu.empty() && o.cpu != "v67") {
    error = "--cpu=" + o.cpu + " is not valid for --target=hvx (valid: v67; "
            "qemu-hexagon 7.2 runs v67 and older)";
    return nullptr;
  }
  return std::make_unique<HvxTarget>();
}
