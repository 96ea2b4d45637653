//===- GenericTarget.cpp - portable C11 for any CPU with a C compiler -----===//
//
// The generic target is the portable baseline and the first consumer of every
// new op: plain C kernels (kernels_generic.c) in f32 on dequantized weights,
// called with constant shapes, built for the host.
//
#include "compiler/targets/common/Embedded.h"
#include "compiler/targets/common/Target.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace kiln;

namespace {
class GenericTarget : public Target {
public:
  std::string name() const override { return "generic"; }
  KernelChoice selectKernel(Operation *op, StringRef weightType,
                            std::string &error) const override {
    return selectGenericKernel(op, weightType, error);
  }
  std::string kernelSource() const override {
    return embeddedSource("kernels_generic.c");
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

  /// The f32 kernels of kernels_generic.c, which every target can fall back on.
  static KernelChoice selectGenericKernel(Operation *op, StringRef weightType,
                                          std::string &error) {
    static const llvm::StringSet<> types = {"f32",  "f16",  "bf16", "q8_0",
                                            "q4_0", "q4_1", "q4_k", "q6_k"};
    KernelChoice c;
    if (isa<EmbeddingOp, MatMulOp>(op) && !types.contains(weightType)) {
      error = "no kernel reads weights of type '" + weightType.str() + "'";
      return c;
    }
    if (isa<EmbeddingOp>(op))
      c.kernel = ("embedding_" + weightType + "_generic").str();
    else if (isa<MatMulOp>(op))
      c.kernel = ("matmul_" + weightType + "_f32_generic").str();
    else if (auto r = dyn_cast<RoPEOp>(op))
      c.kernel = ("rope_" + r.getStyle() + "_f32_generic").str();
    else
      c.kernel = (op->getName().stripDialect() + "_f32_generic").str();
    return c;
  }
};
} // namespace

namespace kiln {
KernelChoice selectGenericKernel(Operation *op, StringRef weightType,
                                 std::string &error) {
  return GenericTarget::selectGenericKernel(op, weightType, error);
}
std::unique_ptr<Target> createGenericTarget() {
  return std::make_unique<GenericTarget>();
}
} // namespace kiln
