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
  if (auto from = weight.getSourceType()) {
    std::string stored = weightTypeName(*from).str();
    if (stored != gguf::typeName(t->type)) {
      error = "weight @" + weight.getSymName().str() + ": source_type " +
              stored + " but tensor '" + t->name + "' is " +
              gguf::typeName(t->type);
      return nullptr;
    }
    if ((uint64_t)type.getNumElements() != t->numElements) {
      error = "weight @" + weight.getSymName().str() +
              ": IR shape does not match tensor '" + t->name + "'";
      return nullptr;
    }
    auto it = converted.find(weight.getSymName().str());
    if (it == converted.end()) {
      auto target = gguf::typeFromName(want);
      std::vector<float> values(t->numElements);
      gguf::dequantize(t->type, t->data, values.data(), (int64_t)t->numElements);
      std::vector<uint8_t> bytes((size_t)weightBytes(type));
      gguf::quantize(*target, values.data(), bytes.data(), (int64_t)values.size());
      it = converted.emplace(weight.getSymName().str(), std::move(bytes)).first;
    }
    return it->second.data();
  }
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
  auto type = weight.getTensorType();
  auto irType = gguf::typeFromName(weightTypeName(type.getElementType()).str());
  out.resize((size_t)type.getNumElements());
  gguf::dequantize(*irType, data, out.data(), (int64_t)out.size());
  return true;
}
