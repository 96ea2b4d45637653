//===- GenericTarget.cpp - portable C11 for any CPU with a C compiler -----===//
//
// The generic target is the portable baseline and the first consumer of every
// new op: plain C kernels (kernels_generic.c) in f32 on dequantized weights,
// called with constant shapes, built for the host.
//
#include "compiler/targets/Target.h"

using namespace mlir;
using namespace kiln;

namespace {
class GenericTarget : public Target {
public:
  std::string name() const override { return "generic"; }
  std::vector<std::string> kernelFiles() const override {
    return {"kernels_generic.c"};
  }
  std::vector<std::string> cflags() const override {
    return {"-std=c11", "-O2", "-ffunction-sections", "-fdata-sections",
            "-fno-math-errno"};
  }
  std::vector<std::string>
  linkCommand(const std::vector<std::string> &inputs,
              const std::string &output) const override {
    std::vector<std::string> argv = {KILN_DEFAULT_CC};
    argv.insert(argv.end(), inputs.begin(), inputs.end());
    argv.insert(argv.end(), {"-o", output});
    return argv;
  }
};
} // namespace

namespace kiln {
std::unique_ptr<Target> createGenericTarget() {
  return std::make_unique<GenericTarget>();
}
} // namespace kiln
