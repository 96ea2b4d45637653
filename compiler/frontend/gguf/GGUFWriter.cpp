//===- GGUFWriter.cpp - GGUF file writer
//------------------------------------===//
//
// Part of Kiln.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/gguf/GGUFWriter.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <unordered_set>

namespace kiln::gguf {

namespace {

class ByteSink {
public:
  explicit ByteSink(std::vector<uint8_t> &out) : out_(out) {}
  void u8(uint8_t v) { out_.push_back(v); }
  void le(uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i)
      out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void str(const std::string &s) {
    u64(s.size());
    out_.insert(out_.end(), s.begin(), s.end());
  }
  void bytes(const std::vector<uint8_t> &b) {
    out_.insert(out_.end(), b.begin(), b.end());
  }
  void padTo(uint64_t align) {
    while (out_.size() % align != 0)
      out_.push_back(0);
  }

private:
  std::vector<uint8_t> &out_;
};

// Writes the payload of v (without the type tag).
void writePayload(ByteSink &s, const Value &v) {
  switch (v.type) {
  case ValueType::UINT8:
    s.le(v.u, 1);
    return;
  case ValueType::INT8:
    s.le(static_cast<uint64_t>(v.i), 1);
    return;
  case ValueType::UINT16:
    s.le(v.u, 2);
    return;
  case ValueType::INT16:
    s.le(static_cast<uint64_t>(v.i), 2);
    return;
  case ValueType::UINT32:
    s.le(v.u, 4);
    return;
  case ValueType::INT32:
    s.le(static_cast<uint64_t>(v.i), 4);
    return;
  case ValueType::UINT64:
    s.le(v.u, 8);
    return;
  case ValueType::INT64:
    s.le(static_cast<uint64_t>(v.i), 8);
    return;
  case ValueType::FLOAT32: {
    float f = static_cast<float>(v.f);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    s.u32(bits);
    return;
  }
  case ValueType::FLOAT64: {
    uint64_t bits;
    std::memcpy(&bits, &v.f, sizeof bits);
    s.u64(bits);
    return;
  }
  case ValueType::BOOL:
    s.u8(v.b ? 1 : 0);
    return;
  case ValueType::STRING:
    s.str(v.s);
    return;
  case ValueType::ARRAY:
    s.u32(static_cast<uint32_t>(v.elemType));
    s.u64(v.arr.size());
    for (const Value &e : v.arr)
      writePayload(s, e);
    return;
  }
}

// Checks that v is well-formed (known types, array elements matching the
// element type, bounded nesting). Returns an empty string if fine.
std::string validateValue(const Value &v, uint32_t depth) {
  if (static_cast<uint32_t>(v.type) > static_cast<uint32_t>(ValueType::FLOAT64))
    return "unknown value type " +
           std::to_string(static_cast<uint32_t>(v.type));
  if (v.type != ValueType::ARRAY)
    return {};
  if (depth >= kMaxArrayNesting)
    return "array nesting deeper than " + std::to_string(kMaxArrayNesting);
  if (static_cast<uint32_t>(v.elemType) >
      static_cast<uint32_t>(ValueType::FLOAT64))
    return "unknown array element type " +
           std::to_string(static_cast<uint32_t>(v.elemType));
  if (v.elemType == ValueType::ARRAY && depth + 1 >= kMaxArrayNesting)
    return "array nesting deeper than " + std::to_string(kMaxArrayNesting);
  for (const Value &e : v.arr) {
    if (e.type != v.elemType)
      return std::string("array element of type ") + valueTypeName(e.type) +
             " in an array of " + valueTypeName(v.elemType);
    std::string err = validateValue(e, depth + 1);
    if (!err.empty())
      return err;
  }
  return {};
}

Value scalar(ValueType t) {
  Value v;
  v.type = t;
  return v;
}

} // namespace

Writer::Writer(uint32_t version, uint64_t alignment)
    : version_(version), alignment_(alignment) {
  if (version != 2 && version != 3) {
    setError("unsupported GGUF version " + std::to_string(version) +
             " (supported versions: 2, 3)");
    version_ = 3;
  }
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 ||
      alignment > std::numeric_limits<uint32_t>::max()) {
    setError("alignment " + std::to_string(alignment) +
             " is not a nonzero power of two that fits in 32 bits");
    alignment_ = kDefaultAlignment;
  }
}

void Writer::setError(const std::string &msg) {
  if (error_.empty())
    error_ = msg;
}

void Writer::put(const std::string &k, Value v) {
  for (auto &kv : kvs_) {
    if (kv.first == k) {
      kv.second = std::move(v);
      return;
    }
  }
  kvs_.emplace_back(k, std::move(v));
}

void Writer::addUInt32(const std::string &k, uint32_t v) {
  Value val = scalar(ValueType::UINT32);
  val.u = v;
  put(k, std::move(val));
}
void Writer::addUInt64(const std::string &k, uint64_t v) {
  Value val = scalar(ValueType::UINT64);
  val.u = v;
  put(k, std::move(val));
}
void Writer::addInt32(const std::string &k, int32_t v) {
  Value val = scalar(ValueType::INT32);
  val.i = v;
  put(k, std::move(val));
}
void Writer::addFloat32(const std::string &k, float v) {
  Value val = scalar(ValueType::FLOAT32);
  val.f = v;
  put(k, std::move(val));
}
void Writer::addBool(const std::string &k, bool v) {
  Value val = scalar(ValueType::BOOL);
  val.b = v;
  put(k, std::move(val));
}
void Writer::addString(const std::string &k, const std::string &v) {
  Value val = scalar(ValueType::STRING);
  val.s = v;
  put(k, std::move(val));
}
void Writer::addStringArray(const std::string &k,
                            const std::vector<std::string> &v) {
  Value val = scalar(ValueType::ARRAY);
  val.elemType = ValueType::STRING;
  val.arr.reserve(v.size());
  for (const std::string &s : v) {
    Value e = scalar(ValueType::STRING);
    e.s = s;
    val.arr.push_back(std::move(e));
  }
  put(k, std::move(val));
}
void Writer::addFloat32Array(const std::string &k,
                             const std::vector<float> &v) {
  Value val = scalar(ValueType::ARRAY);
  val.elemType = ValueType::FLOAT32;
  val.arr.reserve(v.size());
  for (float f : v) {
    Value e = scalar(ValueType::FLOAT32);
    e.f = f;
    val.arr.push_back(std::move(e));
  }
  put(k, std::move(val));
}
void Writer::addInt32Array(const std::string &k,
                           const std::vector<int32_t> &v) {
  Value val = scalar(ValueType::ARRAY);
  val.elemType = ValueType::INT32;
  val.arr.reserve(v.size());
  for (int32_t i : v) {
    Value e = scalar(ValueType::INT32);
    e.i = i;
    val.arr.push_back(std::move(e));
  }
  put(k, std::move(val));
}

void Writer::addValue(const std::string &k, const Value &v) {
  std::string err = validateValue(v, 0);
  if (!err.empty()) {
    setError("metadata key '" + k + "': " + err);
    return;
  }
  put(k, v);
}

void Writer::addTensor(const std::string &name, std::vector<uint64_t> dims,
                       GGMLType type, const void *data, size_t bytes) {
  const TypeTraits *tt = typeTraits(static_cast<uint32_t>(type));
  const std::string tn = "tensor '" + name + "'";
  if (!tt) {
    setError(tn + ": unsupported type id " +
             std::to_string(static_cast<uint32_t>(type)));
    return;
  }
  if (dims.empty() || dims.size() > kMaxDims) {
    setError(tn + ": expected 1 to 4 dimensions, got " +
             std::to_string(dims.size()));
    return;
  }
  uint64_t n = 1;
  for (uint64_t d : dims) {
    if (d == 0 ||
        d > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / n) {
      setError(tn + ": invalid or overflowing dimensions");
      return;
    }
    n *= d;
  }
  if (dims[0] % static_cast<uint64_t>(tt->blockSize) != 0) {
    setError(tn + ": first dimension " + std::to_string(dims[0]) +
             " is not a multiple of the block size " +
             std::to_string(tt->blockSize) + " of type " + tt->name);
    return;
  }
  const uint64_t expected = n / static_cast<uint64_t>(tt->blockSize) *
                            static_cast<uint64_t>(tt->blockBytes);
  if (expected != bytes) {
    setError(tn + ": expected " + std::to_string(expected) +
             " bytes of data, got " + std::to_string(bytes));
    return;
  }
  for (const Tensor &t : tensors_) {
    if (t.name == name) {
      setError("duplicate tensor name '" + name + "'");
      return;
    }
  }
  Tensor t;
  t.name = name;
  t.dims = std::move(dims);
  t.type = type;
  const auto *p = static_cast<const uint8_t *>(data);
  if (bytes)
    t.data.assign(p, p + bytes);
  tensors_.push_back(std::move(t));
}

std::vector<uint8_t> Writer::serialize() const {
  std::vector<uint8_t> out;
  ByteSink s(out);
  const bool writeAlignment = alignment_ != kDefaultAlignment;
  uint64_t kvCount = 0;
  for (const auto &kv : kvs_)
    if (kv.first != "general.alignment")
      ++kvCount;
  if (writeAlignment)
    ++kvCount;

  // Header.
  s.u8('G');
  s.u8('G');
  s.u8('U');
  s.u8('F');
  s.u32(version_);
  s.u64(tensors_.size());
  s.u64(kvCount);

  // Metadata.
  if (writeAlignment) {
    s.str("general.alignment");
    s.u32(static_cast<uint32_t>(ValueType::UINT32));
    s.u32(static_cast<uint32_t>(alignment_));
  }
  for (const auto &kv : kvs_) {
    if (kv.first == "general.alignment")
      continue;
    s.str(kv.first);
    s.u32(static_cast<uint32_t>(kv.second.type));
    writePayload(s, kv.second);
  }

  // Tensor infos.
  uint64_t offset = 0;
  for (const Tensor &t : tensors_) {
    s.str(t.name);
    s.u32(static_cast<uint32_t>(t.dims.size()));
    for (uint64_t d : t.dims)
      s.u64(d);
    s.u32(static_cast<uint32_t>(t.type));
    s.u64(offset);
    offset += t.data.size();
    offset = (offset + alignment_ - 1) / alignment_ * alignment_;
  }

  // Data section.
  s.padTo(alignment_);
  for (const Tensor &t : tensors_) {
    s.bytes(t.data);
    s.padTo(alignment_);
  }
  return out;
}

bool Writer::write(const std::string &path, std::string &error) const {
  if (!error_.empty()) {
    error = path + ": " + error_;
    return false;
  }
  std::vector<uint8_t> bytes = serialize();
  std::FILE *fp = std::fopen(path.c_str(), "wb");
  if (!fp) {
    error = path + ": cannot open for writing: " + std::strerror(errno);
    return false;
  }
  size_t written =
      bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), fp);
  bool ok = written == bytes.size();
  int savedErrno = errno;
  if (std::fclose(fp) != 0 && ok) {
    ok = false;
    savedErrno = errno;
  }
  if (!ok) {
    error = path + ": write failed: " + std::strerror(savedErrno);
    return false;
  }
  return true;
}

} // namespace kiln::gguf
