//===- Evaluator.h - the reference evaluator: plain f32 over kiln IR ------===//
//
// The oracle of every end-to-end test. It interprets the imported IR one op at
// a time with dequantized f32 weights and the most direct loops, sharing no
// code with any target's kernels.
//
#ifndef KILN_REFERENCE_EVALUATOR_H
#define KILN_REFERENCE_EVALUATOR_H

#include "compiler/frontend/WeightStore.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace kiln {
class Evaluator {
public:
  Evaluator(mlir::ModuleOp module, const WeightStore &store)
      : module(module), store(store) {}

  /// Dequantizes every weight; must succeed before run().
  bool prepare(std::string &error);
  /// Appends `tokens` to the (single) sequence and returns the logits of the
  /// last one. Positions continue from earlier calls until reset().
  bool run(llvm::ArrayRef<int32_t> tokens, std::vector<float> &logits,
           std::string &error);
  void reset();
  int64_t vocabSize() const { return vocab; }

private:
  mlir::ModuleOp module;
  const WeightStore &store;
  mlir::func::FuncOp forward;
  llvm::StringMap<std::vector<float>> weights;
  std::vector<std::vector<float>> keys, values; // per layer, rows of kv width
  int64_t position = 0, vocab = 0;
};
} // namespace kiln

#endif
