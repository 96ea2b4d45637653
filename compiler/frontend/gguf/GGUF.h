//===- GGUF.h - Zero-copy GGUF reader
//---------------------------------------===//
//
// Part of Kiln. Plain C++17 + POSIX, no MLIR/LLVM dependency.
//
// Reads GGUF v2/v3 files (the llama.cpp / ggml model container):
//
//   magic "GGUF" | u32 version | u64 tensor_count | u64 kv_count
//   kv_count x { gguf_string key | u32 value_type | value }
//   tensor_count x { gguf_string name | u32 n_dims | u64 dims[n_dims]
//                    | u32 type | u64 offset }
//   padding to general.alignment (default 32)
//   data section (each tensor's offset is relative to its start)
//
// where gguf_string = u64 length + bytes and an array value is
// u32 element_type + u64 count + elements. Everything is little-endian.
//
// The file is mapped read-only and tensor data is never copied. Every
// structural property is validated up front, so that after a successful
// open() every TensorInfo::data points at numBytes readable bytes. Malformed
// input never crashes, hangs or triggers large allocations; errors are
// reported as
//
//   <file>: at byte offset <N>: <what was expected / found>
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_FRONTEND_GGUF_GGUF_H
#define KILN_COMPILER_FRONTEND_GGUF_GGUF_H

#include "compiler/support/Quant.h"
#include "compiler/support/TensorSource.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kiln::gguf {

/// Metadata value types as stored in GGUF.
enum class ValueType : uint32_t {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
};

/// "UINT8", "INT8", ..., "FLOAT64" ("UNKNOWN" for other values).
const char *valueTypeName(ValueType t);
/// INT8, INT16, INT32 or INT64.
bool isSignedInteger(ValueType t);

/// A metadata value. Only the member matching `type` is meaningful:
/// `u` for UINT*, `i` for INT*, `f` for FLOAT32/FLOAT64, `b` for BOOL, `s` for
/// STRING, and `elemType` + `arr` for ARRAY (arrays may nest).
struct Value {
  ValueType type = ValueType::UINT8;
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  ValueType elemType = ValueType::UINT8; // for ARRAY
  std::vector<Value> arr;                // for ARRAY (nested arrays allowed)
};

/// Describes one tensor of a parsed file.
/// Structural limits enforced by the reader.
constexpr uint32_t kMaxArrayNesting = 8; // array-of-array depth
constexpr uint32_t kMaxDims = 4;         // tensor rank
/// Total number of metadata array elements (over all arrays, including
/// nested ones) accepted in one file. Real vocabularies are < 1M entries;
/// the limit bounds memory use (~100 bytes per Value) for hostile input.
constexpr uint64_t kMaxMetadataElements = uint64_t(1) << 23;
constexpr uint64_t kDefaultAlignment = 32;

class File : public TensorSource {
public:
  /// Maps the file read-only (mmap) - zero copy. On failure returns nullptr
  /// and sets `error`.
  static std::unique_ptr<File> open(const std::string &path,
                                    std::string &error);
  /// Parses a caller-owned buffer (not copied; must outlive the File).
  /// `name` is used in messages and returned by path().
  static std::unique_ptr<File> fromBuffer(const uint8_t *data, size_t size,
                                          const std::string &name,
                                          std::string &error);
  ~File() override;
  File(const File &) = delete;
  File &operator=(const File &) = delete;

  const std::string &path() const override { return path_; }
  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  /// Absolute offset of the data section.
  uint64_t dataOffset() const { return dataOffset_; }

  /// Metadata in file order.
  const std::vector<std::pair<std::string, Value>> &metadata() const {
    return metadata_;
  }
  /// nullptr if the key is absent.
  const Value *find(const std::string &key) const;

  /// Accepts any integer value type (UINT8..UINT64, and INT8..INT64 if
  /// non-negative); std::nullopt if absent or of another type.
  std::optional<uint64_t> getUInt(const std::string &key) const;
  /// Accepts FLOAT32/FLOAT64 and integer types.
  std::optional<double> getFloat(const std::string &key) const;
  /// Accepts STRING only.
  std::optional<std::string> getString(const std::string &key) const;

  /// Tensors in file (tensor-info) order.
  const std::vector<TensorInfo> &tensors() const { return tensors_; }
  /// nullptr if there is no tensor with that name.
  const TensorInfo *tensor(const std::string &name) const override;

  /// Size in bytes of the underlying file / buffer.
  size_t size() const { return size_; }

private:
  File() = default;
  class Parser;
  friend class Parser;

  std::string path_;
  const uint8_t *base_ = nullptr;
  size_t size_ = 0;
  void *mapping_ = nullptr; // non-null if we own an mmap of size_ bytes
  size_t mappingSize_ = 0;

  uint32_t version_ = 0;
  uint64_t alignment_ = kDefaultAlignment;
  uint64_t dataOffset_ = 0;
  std::vector<std::pair<std::string, Value>> metadata_;
  std::unordered_map<std::string, size_t> keyIndex_;
  std::vector<TensorInfo> tensors_;
  std::unordered_map<std::string, size_t> tensorIndex_;
};

} // namespace kiln::gguf

#endif // KILN_COMPILER_FRONTEND_GGUF_GGUF_H
