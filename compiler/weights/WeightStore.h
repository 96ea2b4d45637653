//===- WeightStore.h - the bytes behind kiln.weight symbols ---------------===//
//
// The IR names weights; the store maps each kiln.weight back to its bytes in
// the model file (any TensorSource), checked against the type the IR
// declares, and carries out what the weight op describes (a new element
// type, concatenated rows, scaled columns). The frontend fills it; the
// emitters and the reference evaluator read it.
//
#ifndef KILN_WEIGHTS_WEIGHTSTORE_H
#define KILN_WEIGHTS_WEIGHTSTORE_H

#include "compiler/dialect/KilnDialect.h"
#include "compiler/support/TensorSource.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {
class WeightStore {
public:
  explicit WeightStore(const TensorSource &file) : file(&file) {}
  /// A store of a graph model (ONNX): no weight file; its constants' bytes
  /// are in the IR (kiln.constant).
  WeightStore() = default;

  /// Raw bytes of `weight` in the GGML layout of its declared element type, or
  /// null with `error` naming the weight and the mismatch. A weight whose IR
  /// type differs from the file's (source_type, set by kiln-quantize) is
  /// converted here, once, with GGML's reference quantizers.
  const uint8_t *bytes(WeightOp weight, std::string &error) const;
  /// The weight dequantized to f32 (row-major, as the tensor type states).
  bool dequantized(WeightOp weight, std::vector<float> &out,
                   std::string &error) const;

private:
  const TensorSource *file = nullptr; // null for graph models
  mutable std::map<std::string, std::vector<uint8_t>> converted;
};
} // namespace kiln

#endif
