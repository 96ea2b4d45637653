//===- Target.cpp - shared emission of kernel calls, the target registry --===//
#include "compiler/targets/Target.h"
#include "compiler/targets/IsaTarget.h"
#include "kernels/Embedded.h"
#include "kernels/KernelTable.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace kiln;

std::string Target::kernelSource() const {
  return kernelUnit(kernelFiles());
}

namespace {
std::string num(int64_t v) { return std::to_string(v); }

std::string floatLit(double f) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.9gf", f);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos)
    s.insert(s.size() - 1, ".0");
  return s;
}

int64_t width(Value v) {
  return v.getType().cast<RankedTensorType>().getDimSize(1);
}
} // namespace

std::string kiln::rmsNormCall(RMSNormOp m, const std::string &kernel,
                              const EmitContext &ec, const std::string &rows,
                              const std::string &in, const std::string &out) {
  std::string scale = m.getWeightAttr() ? ec.weight(m.getWeightAttr(), true) : "0";
  // A row of width W in groups of G is W / G rows of width G.
  const int64_t w = width(m.getResult()), g = m.getGroup() ? *m.getGroup() : w;
  std::string n = g != w ? "(" + rows + ") * " + num(w / g) : rows;
  return kernel + "(" + in + ", " + n + ", " + num(g) + ", " + scale + ", " +
         floatLit(m.getEpsilon().convertToFloat()) + ", " + out + ")";
}

// Every target's kernels share one signature per op, so one emitter serves all.
bool Target::emitOp(Operation *op, const EmitContext &ec, std::string &out,
                    std::string &error) const {
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
    if (auto scale = e.getScale())
      call += ";\n  for (int64_t i = 0; i < (int64_t)n * " + num(width(result)) +
              "; ++i)\n    " + ec.value(result) + "[i] *= " +
              floatLit(scale->convertToFloat());
  } else if (auto m = dyn_cast<RMSNormOp>(op)) {
    call = rmsNormCall(m, k, ec, ec.rows(m.getInput()), ec.value(m.getInput()),
                       ec.value(result));
  } else if (auto r = dyn_cast<RoPEOp>(op)) {
    call = k + "(" + ec.value(r.getInput()) + ", " + ec.rows(r.getInput()) +
           ", " + num(width(result)) + ", " + num(r.getHeadDim()) +
           ", row_pos, " + ec.ropeTable(op) + ", " + ec.value(result) + ")";
  } else if (auto a = dyn_cast<AttentionOp>(op)) {
    call = k + "(ctx, " + num(ec.kvSlot(a.getLayer())) + "u, row_seq, row_pos, " +
           ec.value(a.getQuery()) + ", " + ec.value(a.getKey()) + ", " +
           ec.value(a.getValue()) + ", " + ec.rows(a.getQuery()) + ", " +
           num(a.getNumHeads()) + ", " + num(a.getNumKvHeads()) + ", " +
           num(a.getHeadDim()) + ", " +
           floatLit(1.0 / std::sqrt((double)a.getHeadDim())) + ", " +
           (a.getWindow() ? num((int64_t)*a.getWindow()) + "u, " : "") +
           ec.value(result) + ", " + ec.scratch(op) + ")";
  } else if (auto s = dyn_cast<SiluMulOp>(op)) {
    call = k + "(" + ec.value(s.getGate()) + ", " + ec.value(s.getUp()) +
           ", (int64_t)" + ec.rows(result) + " * " + num(width(result)) + ", " +
           ec.value(result) + ")";
  } else if (auto s = dyn_cast<GeluMulOp>(op)) {
    call = k + "(" + ec.value(s.getGate()) + ", " + ec.value(s.getUp()) +
           ", (int64_t)" + ec.rows(result) + " * " + num(width(result)) + ", " +
           ec.value(result) + ")";
  } else if (auto a = dyn_cast<AddOp>(op)) {
    call = k + "(" + ec.value(a.getLhs()) + ", " + ec.value(a.getRhs()) +
           ", (int64_t)" + ec.rows(result) + " * " + num(width(result)) + ", " +
           ec.value(result) + ")";
  } else if (auto l = dyn_cast<LastTokenOp>(op)) {
    call = k + "(" + ec.value(l.getInput()) + ", out_rows, n_out, " +
           num(width(result)) + ", " + ec.value(result) + ")";
  } else {
    error = name() + " target cannot emit " + op->getName().getStringRef().str();
    return false;
  }
  out += "  " + call + ";\n";
  return true;
}

bool Target::packWeight(StringRef kernel, int64_t N, int64_t K,
                        const uint8_t *ggml, size_t bytes,
                        std::vector<uint8_t> &out, std::string &error) const {
  out.assign(ggml, ggml + bytes);
  return true;
}

bool Target::checkVectorBits(int64_t vectorBits, std::string &error) const {
  if (vectorBits == 0)
    return true;
  error = "--vector-bits=" + std::to_string(vectorBits) +
          ": only the sve and rvv targets run at a chosen vector length";
  return false;
}

ToolchainPackages Target::packages() const {
  return {"libc6-dev", {{"clang-16", "clang-16"}}};
}

std::unique_ptr<Target> kiln::createModuleTarget(ModuleOp module,
                                                 std::string &error) {
  TargetAttr attr = moduleTarget(module);
  if (!attr) {
    error = "the module has no kiln.target (kilnc records it; in kiln-opt, "
            "run --kiln-set-target first)";
    return nullptr;
  }
  TargetOptions options;
  options.cpu = attr.getCpu().str();
  options.sveBits = attr.getSveBits();
  std::unique_ptr<Target> t = createTarget(attr.getIsa().str(), options, error);
  if (!t)
    error = "kiln.target " + attr.getIsa().str() + ": " + error;
  return t;
}

namespace kiln {
std::unique_ptr<Target> createGenericTarget();
} // namespace kiln

const char *kiln::supportedTargets() {
  static const std::string list = kernels::isaList();
  return list.c_str();
}

std::unique_ptr<Target> kiln::createTarget(const std::string &name,
                                           const TargetOptions &options,
                                           std::string &error) {
  // The kernel table checks the options and resolves the CPU level.
  const kernels::CpuLevel *level =
      kernels::resolveCpu(name, options.cpu, options.sveBits, error);
  if (!level)
    return nullptr;
  if (name == "generic")
    return createGenericTarget();
  TargetOptions resolved{level->cpu, options.sveBits};
  if (name == "x86")
    return createX86Target(resolved);
  if (name == "neon")
    return createNeonTarget(resolved);
  if (name == "sve")
    return createSveTarget(resolved);
  if (name == "rvv")
    return createRvvTarget(resolved);
  return createHvxTarget(resolved);
}
