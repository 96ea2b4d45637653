//===- PackWeights.cpp - constant weights in the layout their kernel reads -===//
//
// A library should spend its runs on arithmetic, not on rearranging weights
// it could have received in the right order. kiln_t_gemm reads B row-major
// ([K, N]); given trans_b it first transposes B into its scratch, K x N
// copies per call, as many as the multiply-adds of a one-row product. When
// B is a constant the transpose is done here, once.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace kiln {
#define GEN_PASS_DEF_PACKWEIGHTS
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
/// A new constant holding B ([N, K], f32) transposed, placed before `at`;
/// null if B's bytes are not there.
Value transposeConstant(ConstantOp c, RankedTensorType type, Operation *at,
                        ConstantNames &names) {
  std::optional<ArrayRef<char>> bytes = c.bytes();
  const int64_t n = type.getDimSize(0), k = type.getDimSize(1);
  if (!bytes || (int64_t)bytes->size() != n * k * 4)
    return Value();
  const float *b = (const float *)bytes->data();
  std::vector<float> t((size_t)(n * k));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < k; ++i)
      t[(size_t)(i * n + j)] = b[j * k + i];
  OpBuilder builder(at);
  return builder.create<ConstantOp>(
      c.getLoc(), names.unique(c.getSource().str() + ".t"),
      RankedTensorType::get({k, n}, type.getElementType()),
      ArrayRef<char>((const char *)t.data(), t.size() * sizeof(float)));
}

struct PackWeights : kiln::impl::PackWeightsBase<PackWeights> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ConstantNames names(module);
    // One transposed copy per constant, however many products read it.
    llvm::DenseMap<Operation *, Value> transposed;
    SmallVector<GemmOp> gemms;
    module.walk([&](GemmOp g) {
      if (g.getTransB())
        gemms.push_back(g);
    });
    for (GemmOp gemm : gemms) {
      auto c = gemm.getB().getDefiningOp<ConstantOp>();
      auto type = gemm.getB().getType().cast<RankedTensorType>();
      if (!c || !type.getElementType().isF32() || type.getRank() != 2)
        continue;
      Value &packed = transposed[c];
      if (!packed)
        packed = transposeConstant(c, type, gemm, names);
      if (!packed)
        continue;
      gemm.getBMutable().assign(packed);
      gemm.setTransB(false);
    }
    for (auto &[c, packed] : transposed)
      if (c->use_empty())
        c->erase();
  }
};
} // namespace
