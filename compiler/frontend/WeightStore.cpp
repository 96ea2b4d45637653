//===- WeightStore.cpp - the bytes behind kiln.weight symbols -------------===//
#include "compiler/frontend/WeightStore.h"

using namespace kiln;

const uint8_t *WeightStore::bytes(WeightOp weight, std::string &error) const {
  const gguf::TensorInfo *t = file.tensor(weight.getSource().str());
  if (!t) {
    error = "weight @" + weight.getSymName().str() + ": tensor '" +
            weight.getSource().str() + "' is not in " + file.path();
    return nullptr;
  }
  auto type = weight.getTensorType();
  std::string want = weightTypeName(type.getElementType()).str();
  if (want != gguf::typeName(t->type)) {
    error = "weight @" + weight.getSymName().str() + ": IR says " + want +
            " but tensor '" + t->name + "' is " + gguf::typeName(t->type);
    return nullptr;
  }
  if ((uint64_t)type.getNumElements() != t->numElements ||
      (uint64_t)weightBytes(type) != t->numBytes) {
    error = "weight @" + weight.getSymName().str() + ": IR shape does not " +
            "match tensor '" + t->name + "'";
    return nullptr;
  }
  return t->data;
}

bool WeightStore::dequantized(WeightOp weight, std::vector<float> &out,
                              std::string &error) const {
  const uint8_t *data = bytes(weight, error);
  if (!data)
    return false;
  const gguf::TensorInfo *t = file.tensor(weight.getSource().str());
  out.resize(t->numElements);
  gguf::dequantize(t->type, data, out.data(), (int64_t)t->numElements);
  return true;
}
