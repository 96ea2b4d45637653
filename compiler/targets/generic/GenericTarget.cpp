//===- GenericTarget.cpp - portable C11 for any CPU with a C compiler -----===//
//
// The generic target is the portable baseline and the first consumer of every
// new op: plain C kernels (kernels_generic.c) called with constant shapes.
//
#include "compiler/targets/common/Embedded.h"
#include "compiler/targets/common/Target.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace kiln;

namespace {
std::string num(int64_t v) { return std::to_string(v); }

std::string floatLit(float f) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.9gf", (double)f);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos)
    s.insert(s.size() - 1, ".0");
  return s;
}

int64_t width(Value v) {
  return v.getType().cast<RankedTensorType>().getDimSize(1);
}

class GenericTarget : public Target {
public:
  std::string name() const override { return "generic"; }
  std::vector<std::string> cflags() const override {
    return {"-std=c11", "-O2", "-ffunction-sections", "-fdata-sections",
            "-fno-math-errno"};
  }
  std::string kernelSource() const override {
    return embeddedSource("kernels_generic.c");
  }
  bool emitOp(Operation *op, const EmitContext &ec, std::string &out,
              std::string &error) const override;
};

bool GenericTarget::emitOp(Operation *op, const EmitContext &ec,
                           std::string &out, std::string &error) const {
  auto kernelAttr = op->getAttrOfType<StringAttr>("kiln.kernel");
  if (!kernelAttr) {
    error = "op " + op->getName().getStringRef().str() +
            " has no kiln.kernel; run kiln-select-kernels first";
    return false;
  }
  std::string k = "kiln_" + kernelAttr.str();
  std::string call;
  Value result = op->getNumResults() ? op->getResult(0) : Value();
  if (auto e = dyn_cast<EmbeddingOp>(op)) {
    call = k + "(" + ec.weight(e.getTableAttr(), false) + ", tokens, n, " +
           num(width(result)) + ", " + ec.value(result) + ")";
  } else if (auto m = dyn_cast<RMSNormOp>(op)) {
    call = k + "(" + ec.value(m.getInput()) + ", " + ec.rows(m.getInput()) +
           ", " + num(width(result)) + ", " + ec.weight(m.getWeightAttr(), true) +
           ", " + floatLit(m.getEpsilon().convertToFloat()) + ", " +
           ec.value(result) + ")";
  } else if (auto m = dyn_cast<MatMulOp>(op)) {
    std::string bias = m.getBiasAttr() ? ec.weight(m.getBiasAttr(), true) : "0";
    call = k + "(" + ec.value(m.getInput()) + ", " + ec.rows(m.getInput()) +
           ", " + num(width(m.getInput())) + ", " +
           ec.weight(m.getWeightAttr(), false) + ", " + num(width(result)) +
           ", " + bias + ", " + ec.value(result) + ")";
  } else if (auto r = dyn_cast<RoPEOp>(op)) {
    call = k + "(" + ec.value(r.getInput()) + ", " + ec.rows(r.getInput()) +
           ", " + num(width(result)) + ", " + num(r.getHeadDim()) +
           ", pos0, " + floatLit(r.getTheta().convertToFloat()) + ", " +
           ec.value(result) + ")";
  } else if (auto a = dyn_cast<AttentionOp>(op)) {
    call = k + "(ctx, seq, " + num(a.getLayer()) + "u, pos0, " +
           ec.value(a.getQuery()) + ", " + ec.value(a.getKey()) + ", " +
           ec.value(a.getValue()) + ", " + ec.rows(a.getQuery()) + ", " +
           num(a.getNumHeads()) + ", " + num(a.getNumKvHeads()) + ", " +
           num(a.getHeadDim()) + ", " + ec.value(result) + ", " +
           ec.scratch(op) + ")";
  } else if (auto s = dyn_cast<SiluMulOp>(op)) {
    call = k + "(" + ec.value(s.getGate()) + ", " + ec.value(s.getUp()) +
           ", (int64_t)" + ec.rows(result) + " * " + num(width(result)) + ", " +
           ec.value(result) + ")";
  } else if (auto a = dyn_cast<AddOp>(op)) {
    call = k + "(" + ec.value(a.getLhs()) + ", " + ec.value(a.getRhs()) +
           ", (int64_t)" + ec.rows(result) + " * " + num(width(result)) + ", " +
           ec.value(result) + ")";
  } else if (auto l = dyn_cast<LastTokenOp>(op)) {
    call = k + "(" + ec.value(l.getInput()) + ", " + ec.rows(l.getInput()) +
           ", " + num(width(result)) + ", " + ec.value(result) + ")";
  } else {
    error = "generic target cannot emit " + op->getName().getStringRef().str();
    return false;
  }
  out += "  " + call + ";\n";
  return true;
}
} // namespace

std::unique_ptr<Target> kiln::createGenericTarget() {
  return std::make_unique<GenericTarget>();
}

const char *kiln::supportedTargets() { return "generic"; }

std::unique_ptr<Target> kiln::createTarget(const std::string &name,
                                           std::string &error) {
  if (name == "generic")
    return createGenericTarget();
  error = "unknown target '" + name + "' (supported: " + supportedTargets() + ")";
  return nullptr;
}
