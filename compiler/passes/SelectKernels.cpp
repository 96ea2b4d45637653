//===- SelectKernels.cpp - annotate each op with the kernel that runs it --===//
//
// Kernel choice is the last decision before emission, so it is written into the
// IR (`kiln.kernel`, and the numerics it implies) where lit tests and reviewers
// can see it. The module's kiln.target names the ISA and CPU level; the kernel
// table (kernels/kernels.def) says which kernels they have.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/KernelCalls.h"
#include "compiler/passes/Passes.h"
#include "kernels/KernelTable.h"

#include "mlir/IR/Builders.h"


namespace kiln {
#define GEN_PASS_DEF_SELECTKERNELS
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
/// The kernel chosen for an op.
struct KernelChoice {
  std::string kernel;          // C function kiln_<kernel>
  std::string activation;      // "q8_0" / "q8_k" if activations are quantized, else ""
  int64_t scratchPerRow = 0;   // bytes of scratch per input row
  std::vector<int64_t> tile;   // the microkernel's register tile, if any
};

// ISA targets run matmuls over the Q8_0-activation types on integer dot
// products (their microkernel from the table, else the portable kernels_q8.c
// one); every other op and weight type, and every op of the generic target,
// uses the portable f32 kernels of kernels_generic.c.
KernelChoice choose(Operation *op, StringRef weightType,
                    const kernels::CpuLevel &level, std::string &error) {
  const bool onIsa = StringRef(level.isa) != "generic";
  KernelChoice c;
  if (isa<EmbeddingOp, MatMulOp>(op) &&
      !kernels::hasPortableKernel(weightType.str())) {
    error = "no kernel reads weights of type '" + weightType.str() + "'";
    return c;
  }
  if (auto matmul = dyn_cast<MatMulOp>(op);
      matmul && onIsa && kernels::hasQ8Activations(weightType.str())) {
    int64_t K =
        matmul.getInput().getType().cast<RankedTensorType>().getDimSize(1);
    if (K % 32 != 0) {
      error = "K = " + std::to_string(K) + " is not a multiple of 32";
      return c;
    }
    c.activation = "q8_0";
    if (const kernels::MatMulKernel *k =
            kernels::matmulKernel(level, weightType.str())) {
      c.kernel = k->name;
      c.tile = {k->mr, k->nr};
      c.activation = kernels::activationOf(*k);
      c.scratchPerRow = kernels::scratchRowBytes(*k, K);
    } else {
      c.kernel = ("matmul_" + weightType + "_q8_0_generic").str();
      c.scratchPerRow = kernels::activationRowBytes(c.activation, K);
    }
    return c;
  }
  // Sliding-window attention has the portable kernel on every target.
  if (auto a = dyn_cast<AttentionOp>(op); a && a.getWindow()) {
    c.kernel = "attention_swa_f32_generic";
    return c;
  }
  if (auto a = dyn_cast<AttentionOp>(op); a && onIsa)
    if (const kernels::AttentionKernel *k =
            kernels::attentionKernel(level, a.getHeadDim())) {
      c.kernel = k->name;
      return c;
    }
  // Float weights: the ISA's widening kernel where the table has one.
  if (auto matmul = dyn_cast<MatMulOp>(op); matmul && onIsa)
    if (const kernels::MatMulKernel *k =
            kernels::matmulKernel(level, weightType.str());
        k && StringRef(k->quantizer) == "none") {
      c.kernel = k->name;
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

/// What a graph call computes, in multiply-adds for the product kernels
/// (kernels::tensorMultiplyAdds) and in elements of its largest tensor
/// otherwise.
double tensorWork(TensorOp t, bool &gemmLike) {
  ArrayRef<int64_t> p = t.getParams();
  double macs = 0;
  gemmLike = kernels::tensorMultiplyAdds(t.getKernel().str(), p.data(),
                                         p.size(), macs) &&
             macs >= 0;
  if (gemmLike)
    return macs;
  // Memory-bound: its largest operand or result.
  double elements = 0;
  for (Value v : t->getOperands())
    elements = std::max(
        elements, (double)v.getType().cast<RankedTensorType>().getNumElements());
  for (Value r : t.getResults())
    elements = std::max(
        elements, (double)r.getType().cast<RankedTensorType>().getNumElements());
  return elements;
}

/// A graph call whose kernel splits its work runs in up to `threads` shares
/// when it is large enough that a share outweighs handing it to another
/// thread (a few microseconds): about 2^18 multiply-adds, or a tensor of
/// 2^16 elements for memory-bound work. No more shares than its split
/// dimension fills (kernels::tensorShares): an empty share costs a hand-off
/// and does nothing, and one share is no split at all.
int64_t tensorParts(TensorOp t, int64_t threads) {
  if (threads <= 1 || !kernels::tensorKernelHasParts(t.getKernel().str()))
    return 1;
  ArrayRef<int64_t> p = t.getParams();
  const int64_t shares =
      kernels::tensorShares(t.getKernel().str(), p.data(), p.size(), threads);
  if (shares < 2)
    return 1;
  bool gemmLike = false;
  const double work = tensorWork(t, gemmLike);
  return work >= (gemmLike ? 0x1p18 : 0x1p16) ? shares : 1;
}


/// Which graph calls run Halide pipelines (kernels/halide) on this target.
struct HalideChoice {
  bool sgemm = false;
};

/// Reads the pass's `halide` option for the target's CPU level: "default"
/// is the ISA's measured choice (docs/kernels.md, "Graph kernels:
/// hand-written and Halide"): on HVX Halide's GEMM loop takes fewer packets
/// than the C kernel's; on NEON and x86 the two tie or the C kernel is
/// ahead, so they keep it. "sgemm" runs the GEMM pipeline for f32 MatMuls
/// and for the convolutions that are GEMMs as they stand (1x1, stride 1,
/// unpadded). False with `error` for an unknown value or an ISA
/// Halide 14 does not generate for.
bool chooseHalide(StringRef option, const kernels::CpuLevel &level,
                  HalideChoice &choice, std::string &error) {
  const StringRef isa = level.isa;
  const bool supported = isa == "x86" || isa == "neon" || isa == "hvx";
  if (option == "default") {
    choice.sgemm = isa == "hvx";
    return true;
  }
  if (option == "none")
    return true;
  if (option == "sgemm") {
    if (!supported) {
      error = "halide=sgemm: Halide 14 generates no code for --target=" +
              isa.str() + " (x86, neon and hvx only)";
      return false;
    }
    choice.sgemm = true;
    return true;
  }
  error = "halide=" + option.str() + ": unknown value (default, none or sgemm)";
  return false;
}

/// The Halide kernel that can run call `t`, or "": an f32 matmul
/// ("halide_sgemm") or an f32 convolution that is a GEMM as it stands, a 1x1
/// kernel of stride 1 without padding ("halide_conv", per image and group),
/// with each matrix under 2^31 elements (the pipelines' 32-bit indices).
StringRef halideKernelFor(TensorOp t) {
  if (!t.getResult(0).getType().cast<RankedTensorType>().getElementType().isF32())
    return "";
  ArrayRef<int64_t> p = t.getParams();
  int64_t M, N, K;
  if (!kernels::tensorGemmShape(t.getKernel().str(), p.data(), p.size(), M, N, K))
    return "";
  auto under = [](int64_t a, int64_t b) {
    return a > 0 && b > 0 && a <= 0x7fffffff / b;
  };
  if (!under(M, K) || !under(K, N) || !under(M, N))
    return "";
  return t.getKernel() == "matmul" ? "halide_sgemm" : "halide_conv";
}

/// Replaces `op` by kiln.tensor_op `call` of its operands, with the same
/// results.
void replaceByCall(Operation *op, const KernelCall &call) {
  OpBuilder b(op);
  auto t = b.create<TensorOp>(
      op->getLoc(), op->getResultTypes(), op->getOperands(),
      b.getStringAttr(call.kernel), b.getDenseI64ArrayAttr(call.params),
      call.floats.empty() ? DenseF32ArrayAttr()
                          : b.getDenseF32ArrayAttr(call.floats),
      call.slots.empty() ? DenseI64ArrayAttr()
                         : b.getDenseI64ArrayAttr(call.slots),
      b.getI64IntegerAttr(call.scratch),
      op->getAttrOfType<StringAttr>("onnx_op"),
      op->getAttrOfType<StringAttr>("node"));
  op->replaceAllUsesWith(t->getResults());
  op->erase();
}

struct SelectKernelsPass : kiln::impl::SelectKernelsBase<SelectKernelsPass> {
  using SelectKernelsBase::SelectKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target = moduleTarget(module);
    if (!target) {
      module.emitError() << "kiln-select-kernels: the module has no "
                            "kiln.target (kilnc records it; in kiln-opt, run "
                            "--kiln-set-target first)";
      return signalPassFailure();
    }
    std::string error;
    const kernels::CpuLevel *level = kernels::resolveCpu(
        target.getIsa().str(), target.getCpu().str(), target.getSveBits(),
        error);
    if (!level) {
      module.emitError() << "kiln-select-kernels: kiln.target "
                         << target.getIsa() << ": " << error;
      return signalPassFailure();
    }
    SymbolTableCollection symbols;
    auto weightType = [&](Operation *op, FlatSymbolRefAttr sym) -> StringRef {
      auto w = symbols.lookupNearestSymbolFrom<WeightOp>(op, sym);
      return w ? weightTypeName(w.getTensorType().getElementType()) : "";
    };
    // Typed graph ops become the calls of the kernels chosen for them.
    SmallVector<Operation *> typed;
    module.walk([&](Operation *op) {
      if (isTypedGraphOp(op))
        typed.push_back(op);
    });
    for (Operation *op : typed) {
      std::string why;
      std::optional<KernelCall> call = kernelCallOf(op, why);
      if (!call) {
        op->emitOpError() << why;
        return signalPassFailure();
      }
      replaceByCall(op, *call);
    }
    HalideChoice halideChoice;
    if (!chooseHalide(halide, *level, halideChoice, error)) {
      module.emitError() << "kiln-select-kernels: " << error;
      return signalPassFailure();
    }
    Builder b(module.getContext());
    const int64_t threads = moduleLayout(module).threads;
    WalkResult result = module.walk([&](Operation *op) -> WalkResult {
      if (auto t = dyn_cast<TensorOp>(op)) { // graph ops name their kernel
        // A Halide pipeline is compiled for the call's shape and needs no
        // scratch; it runs on one thread (its object is one function).
        if (StringRef h = halideChoice.sgemm ? halideKernelFor(t) : "";
            !h.empty()) {
          t.setKernel(h);
          t.setScratch(0);
          return WalkResult::advance();
        }
        if (int64_t parts = tensorParts(t, threads); parts > 1)
          op->setAttr("kiln.parts", b.getI64IntegerAttr(parts));
        return WalkResult::advance();
      }
      if (op->getDialect() != op->getContext()->getLoadedDialect<KilnDialect>() ||
          isa<WeightOp, ConstantOp, ReshapeOp>(op)) // data, or a view
        return WalkResult::advance();
      StringRef wt;
      if (auto e = dyn_cast<EmbeddingOp>(op))
        wt = weightType(op, e.getTableAttr());
      else if (auto m = dyn_cast<MatMulOp>(op))
        wt = weightType(op, m.getWeightAttr());
      std::string why;
      KernelChoice choice = choose(op, wt, *level, why);
      if (choice.kernel.empty())
        return op->emitOpError()
               << "no " << target.getIsa() << " kernel: " << why;
      op->setAttr("kiln.kernel", b.getStringAttr(choice.kernel));
      if (!choice.activation.empty())
        op->setAttr("kiln.activation", b.getStringAttr(choice.activation));
      if (!choice.tile.empty())
        op->setAttr("kiln.tile", b.getDenseI64ArrayAttr(choice.tile));
      if (choice.scratchPerRow)
        op->setAttr("kiln.scratch_per_row",
                    b.getI64IntegerAttr(choice.scratchPerRow));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
