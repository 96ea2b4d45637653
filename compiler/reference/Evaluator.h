//===- Evaluator.h - the reference evaluator: plain f32 over kiln IR ------===//
//
// The oracle of every end-to-end test. It interprets the imported IR one op at
// a time with dequantized f32 weights and the most direct loops, sharing no
// code with any target's kernels.
//
#ifndef KILN_REFERENCE_EVALUATOR_H
#define KILN_REFERENCE_EVALUATOR_H

#include "compiler/weights/WeightStore.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {
class Evaluator {
public:
  Evaluator(mlir::ModuleOp module, const WeightStore &store)
      : module(module), store(store) {}

  /// Dequantizes every weight; must succeed before run().
  bool prepare(std::string &error);
  /// Appends `tokens` to sequence `seq` (any id; sequences start empty) and
  /// returns the logits of the last one.
  bool run(llvm::ArrayRef<int32_t> tokens, std::vector<float> &logits,
           std::string &error, int32_t seq = 0);
  /// Appends tokens[i] to seqs[i] in one batch; logits[i] for each.
  bool runBatch(llvm::ArrayRef<int32_t> seqs, llvm::ArrayRef<int32_t> tokens,
                std::vector<std::vector<float>> &logits, std::string &error);
  void reset();
  int64_t vocabSize() const { return vocab; }
  /// Keeps K and V as a binary16 cache would (kilnc --kv-cache=f16): each
  /// value rounded to nearest even when stored; arithmetic stays f64.
  void setKvF16(bool on) { kvF16 = on; }

private:
  mlir::ModuleOp module;
  const WeightStore &store;
  mlir::func::FuncOp forward;
  llvm::StringMap<std::vector<float>> weights;
  /// Rows of one forward call: token, sequence, position; the logits of the
  /// rows in outRows are returned.
  bool forwardRows(llvm::ArrayRef<int32_t> tokens, llvm::ArrayRef<int32_t> seqs,
                   llvm::ArrayRef<int64_t> outRows,
                   std::vector<std::vector<float>> &logits, std::string &error);

  struct SeqState {
    std::vector<std::vector<float>> keys, values; // per layer, rows of kv width
    int64_t length = 0;
  };
  std::map<int32_t, SeqState> seqs;
  int64_t vocab = 0;
  bool kvF16 = false;
};
} // namespace kiln

#endif
