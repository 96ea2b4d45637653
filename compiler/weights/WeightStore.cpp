//===- WeightStore.cpp - the bytes behind kiln.weight symbols -------------===//
//
// A weight is usually one tensor of the file, returned zero-copy. Passes can
// derive weights (a new element type, rows of several tensors concatenated,
// columns scaled by a vector); those are materialized once, here, from the
// file's tensors, and cached for the life of the store.
//
#include "compiler/weights/WeightStore.h"

using namespace kiln;

const uint8_t *WeightStore::bytes(WeightOp weight, std::string &error) const {
  const std::string what = "weight @" + weight.getSymName().str();
  auto type = weight.getTensorType();
  const std::string want = weightTypeName(type.getElementType()).str();
  if (!file) {
    error = what + ": a graph model has no weight file";
    return nullptr;
  }
  const int64_t K = type.getShape().back();

  std::vector<const gguf::TensorInfo *> parts;
  uint64_t elems = 0;
  for (llvm::StringRef name : weight.getSourceTensors()) {
    const gguf::TensorInfo *t = file->tensor(name.str());
    if (!t) {
      error = what + ": tensor '" + name.str() + "' is not in " + file->path();
      return nullptr;
    }
    if (!parts.empty() && t->type != parts[0]->type) {
      error = what + " concatenates tensors of different types: '" +
              parts[0]->name + "' is " + gguf::typeName(parts[0]->type) +
              ", '" + t->name + "' is " + gguf::typeName(t->type);
      return nullptr;
    }
    if (type.getRank() > 1 && (t->dims.empty() || (int64_t)t->dims[0] != K)) {
      error = what + ": tensor '" + t->name + "' rows are not " +
              std::to_string(K) + " long";
      return nullptr;
    }
    parts.push_back(t);
    elems += t->numElements;
  }
  const std::string stored = gguf::typeName(parts[0]->type);
  auto from = weight.getSourceType();
  if (from && weightTypeName(*from) != stored) {
    error = what + ": source_type " + weightTypeName(*from).str() +
            " but tensor '" + parts[0]->name + "' is " + stored;
    return nullptr;
  }
  if (!from && want != stored) {
    error = what + ": IR says " + want + " but tensor '" + parts[0]->name +
            "' is " + stored;
    return nullptr;
  }
  if ((uint64_t)type.getNumElements() != elems) {
    error = what + ": IR shape does not match tensor '" + parts[0]->name + "'" +
            (parts.size() > 1 ? " and the tensors concatenated to it" : "");
    return nullptr;
  }
  auto scaleName = weight.getScaleColumns();
  if (!from && parts.size() == 1 && !scaleName)
    return parts[0]->data;

  auto it = converted.find(weight.getSymName().str());
  if (it != converted.end())
    return it->second.data();
  std::vector<uint8_t> out((size_t)weightBytes(type));
  if (!from && !scaleName) {
    // Same type: the rows of each tensor, one after the other.
    size_t at = 0;
    for (const gguf::TensorInfo *t : parts) {
      std::copy_n(t->data, t->numBytes, out.begin() + at);
      at += t->numBytes;
    }
  } else {
    std::vector<float> values((size_t)elems);
    size_t at = 0;
    for (const gguf::TensorInfo *t : parts) {
      gguf::dequantize(t->type, t->data, values.data() + at,
                       (int64_t)t->numElements);
      at += t->numElements;
    }
    if (scaleName) {
      const gguf::TensorInfo *s = file->tensor(scaleName->str());
      if (!s || s->numElements != (uint64_t)K) {
        error = what + ": scale_columns tensor '" + scaleName->str() + "' " +
                (s ? "is not a vector of " + std::to_string(K) + " values"
                   : "is not in " + file->path());
        return nullptr;
      }
      std::vector<float> scale((size_t)K);
      gguf::dequantize(s->type, s->data, scale.data(), K);
      for (size_t i = 0; i < values.size(); ++i)
        values[i] *= scale[i % (size_t)K];
    }
    gguf::quantize(*gguf::typeFromName(want), values.data(), out.data(),
                   (int64_t)values.size());
  }
  return converted.emplace(weight.getSymName().str(), std::move(out))
      .first->second.data();
}

bool WeightStore::dequantized(WeightOp weight, std::vector<float> &out,
                              std::string &error) const {
  const uint8_t *data = bytes(weight, error);
  if (!data)
    return false;
  auto type = weight.getTensorType();
  auto irType = gguf::typeFromName(weightTypeName(type.getElementType()).str());
  out.resize((size_t)type.getNumElements());
  gguf::dequantize(*irType, data, out.data(), (int64_t)out.size());
  return true;
}
