//===- FoldBatchNorm.cpp - BatchNormalization into the convolution weights -===//
//
// Inference BatchNormalization is an affine map per channel, y = x * a + b
// with a = scale / sqrt(var + epsilon) and b = B - mean * a (nn.c's
// kiln_t_batchnorm). After a convolution whose weights and bias are
// constants it folds into them: W'[m] = W[m] * a[m], bias'[m] = bias[m] *
// a[m] + b[m]. The normalization then costs nothing at run time, and its
// four parameter vectors leave the library. The results differ from the
// unfolded graph by the rounding of W * a (onnxruntime folds the same way).
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"

#include "kernels/tensor/kiln_tensor.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <set>

namespace kiln {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
/// The f32 elements of `v` when a kiln.constant with its bytes defines it.
std::optional<ArrayRef<float>> constantFloats(Value v) {
  auto c = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!c || !c.getResult().getType().cast<ShapedType>().getElementType().isF32())
    return std::nullopt;
  std::optional<ArrayRef<char>> bytes = c.bytes();
  if (!bytes)
    return std::nullopt;
  return ArrayRef<float>((const float *)bytes->data(),
                         bytes->size() / sizeof(float));
}

/// A convolution's kernel input `slot` (0 X, 1 W, 2 bias), or null when the
/// node omitted it.
Value convInput(TensorOp conv, int64_t slot) {
  if (auto slots = conv.getSlots()) {
    int64_t s = (*slots)[slot];
    return s < 0 ? Value() : conv.getInputs()[s];
  }
  return slot < (int64_t)conv.getInputs().size() ? conv.getInputs()[slot]
                                                 : Value();
}

struct FoldBatchNorm : kiln::impl::FoldBatchNormBase<FoldBatchNorm> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::set<std::string> names;
    module.walk([&](ConstantOp c) { names.insert(c.getSource().str()); });
    // A source name not yet in the module: the library's weight table and
    // messages name constants by it.
    auto uniqueName = [&](std::string name) {
      std::string base = name;
      for (int k = 2; names.count(name); ++k)
        name = base + "#" + std::to_string(k);
      names.insert(name);
      return name;
    };

    SmallVector<TensorOp> norms;
    module.walk([&](TensorOp op) {
      if (op.getKernel() == "batchnorm")
        norms.push_back(op);
    });
    for (TensorOp bn : norms) {
      // p = {dtype, N, C, S}, f = {epsilon}, in = {X, scale, B, mean, var}.
      if (bn.getParams()[0] != KILN_F32 || bn.getSlots() ||
          bn.getInputs().size() != 5)
        continue;
      Value x = bn.getInputs()[0];
      auto conv = x.getDefiningOp<TensorOp>();
      if (!conv || conv.getKernel() != "conv" || !x.hasOneUse())
        continue;
      // p = {n, N, C, M, G, chunk, mode, in[n], k[n], out[n], stride[n],
      // dil[n], padBegin[n], epilogue operations (none yet)}.
      ArrayRef<int64_t> p = conv.getParams();
      if (p.back() != 0)
        continue;
      const int64_t M = p[3];
      Value wv = convInput(conv, 1), bv = convInput(conv, 2);
      std::optional<ArrayRef<float>> w = constantFloats(wv);
      std::optional<ArrayRef<float>> bias = constantFloats(bv);
      if (!w || (bv && !bias))
        continue;
      std::optional<ArrayRef<float>> sc = constantFloats(bn.getInputs()[1]),
                                     bi = constantFloats(bn.getInputs()[2]),
                                     mu = constantFloats(bn.getInputs()[3]),
                                     va = constantFloats(bn.getInputs()[4]);
      if (!sc || !bi || !mu || !va || sc->size() != (size_t)M ||
          w->size() % M != 0)
        continue;

      // The kernel's own a and b (nn.c's KILN_BATCHNORM_CHANNEL), then the
      // weights and bias scaled.
      const float eps = (*bn.getFparams())[0];
      const size_t per = w->size() / M;
      std::vector<float> w2(w->size()), b2(M);
      for (int64_t m = 0; m < M; ++m) {
        const float a = (*sc)[m] / (float)std::sqrt((double)(*va)[m] + (double)eps);
        const float b = (*bi)[m] - (*mu)[m] * a;
        for (size_t i = 0; i < per; ++i)
          w2[m * per + i] = (*w)[m * per + i] * a;
        b2[m] = (bias ? (*bias)[m] : 0.0f) * a + b;
      }

      OpBuilder builder(conv);
      auto wc = wv.getDefiningOp<ConstantOp>();
      auto asChars = [](const std::vector<float> &v) {
        return ArrayRef<char>((const char *)v.data(), v.size() * sizeof(float));
      };
      Value newW = builder.create<ConstantOp>(
          wc.getLoc(), uniqueName(wc.getSource().str() + ".bn"),
          wc.getResult().getType().cast<RankedTensorType>(), asChars(w2));
      Value newB = builder.create<ConstantOp>(
          bn.getLoc(), uniqueName(bn.getNode().str() + ".bias"),
          RankedTensorType::get({M}, builder.getF32Type()), asChars(b2));
      auto folded = builder.create<TensorOp>(
          builder.getFusedLoc({conv.getLoc(), bn.getLoc()}),
          bn->getResultTypes(), ValueRange{convInput(conv, 0), newW, newB},
          conv.getKernelAttr(), conv.getParamsAttr(), conv.getFparamsAttr(),
          DenseI64ArrayAttr(), conv.getScratchAttr(), conv.getOnnxOpAttr(),
          conv.getNodeAttr());
      bn.getResult(0).replaceAllUsesWith(folded.getResult(0));
      llvm::SetVector<Operation *> constants;
      for (Operation *op : {bn.getOperation(), conv.getOperation()})
        for (Value v : op->getOperands())
          if (auto c = v.getDefiningOp<ConstantOp>())
            constants.insert(c);
      bn.erase();
      conv.erase();
      for (Operation *c : constants)
        if (c->use_empty())
          c->erase();
    }
  }
};
} // namespace
