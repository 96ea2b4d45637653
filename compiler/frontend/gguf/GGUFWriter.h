//===- GGUFWriter.h - GGUF file writer
//--------------------------------------===//
//
// Part of Kiln. Plain C++17, no MLIR/LLVM dependency.
//
// Builds a GGUF v2/v3 file in memory:
//
//   Writer w;                         // version 3, alignment 32
//   w.addString("general.architecture", "llama");
//   w.addUInt32("llama.block_count", 2);
//   w.addTensor("tok_embd.weight", {64, 10}, GGMLType::F32, data, bytes);
//   std::string err;
//   if (!w.write("model.gguf", err)) ...
//
// Metadata is written in insertion order; adding an existing key replaces its
// value in place (like ggml's gguf_set_*). Tensor data is copied, laid out in
// insertion order, each tensor starting at a multiple of the alignment.
// `general.alignment` is written (as UINT32, first) only if the alignment is
// not the default 32; a user-supplied "general.alignment" entry is ignored in
// favour of the constructor argument.
//
// Misuse (duplicate tensor name, data size not matching dims/type, invalid
// dims, array elements not matching the declared element type, bad version or
// alignment) does not throw: the first such problem is recorded, error()
// reports it, and write() fails with it. serialize() always produces a
// structurally valid file from the accepted parts.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_FRONTEND_GGUF_GGUFWRITER_H
#define KILN_COMPILER_FRONTEND_GGUF_GGUFWRITER_H

#include "compiler/frontend/gguf/GGUF.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln::gguf {

class Writer {
public:
  explicit Writer(uint32_t version = 3, uint64_t alignment = 32);

  void addUInt32(const std::string &k, uint32_t v);
  void addUInt64(const std::string &k, uint64_t v);
  void addInt32(const std::string &k, int32_t v);
  void addFloat32(const std::string &k, float v);
  void addBool(const std::string &k, bool v);
  void addString(const std::string &k, const std::string &v);
  void addStringArray(const std::string &k, const std::vector<std::string> &v);
  void addFloat32Array(const std::string &k, const std::vector<float> &v);
  void addInt32Array(const std::string &k, const std::vector<int32_t> &v);
  /// Any value, including (nested) arrays. Array elements must all have the
  /// array's elemType.
  void addValue(const std::string &k, const Value &v);

  /// `bytes` must equal rowBytes(type, product of dims); dims[0] (innermost)
  /// must be a multiple of the type's block size; 1..4 positive dims.
  void addTensor(const std::string &name, std::vector<uint64_t> dims,
                 GGMLType type, const void *data, size_t bytes);

  /// The whole file.
  std::vector<uint8_t> serialize() const;
  /// Serializes and writes to `path`; false (with `error` set) on misuse or
  /// I/O failure.
  bool write(const std::string &path, std::string &error) const;

  /// First recorded misuse, empty if none.
  const std::string &error() const { return error_; }
  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }

private:
  struct Tensor {
    std::string name;
    std::vector<uint64_t> dims;
    GGMLType type;
    std::vector<uint8_t> data;
  };

  void setError(const std::string &msg);
  void put(const std::string &k, Value v);

  uint32_t version_;
  uint64_t alignment_;
  std::string error_;
  std::vector<std::pair<std::string, Value>> kvs_;
  std::vector<Tensor> tensors_;
};

} // namespace kiln::gguf

#endif // KILN_COMPILER_FRONTEND_GGUF_GGUFWRITER_H
