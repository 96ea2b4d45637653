//===- GGUF.cpp - Zero-copy GGUF reader
//-------------------------------------===//
//
// Part of Kiln.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/gguf/GGUF.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::gguf {

bool isSignedInteger(ValueType t) {
  return t == ValueType::INT8 || t == ValueType::INT16 ||
         t == ValueType::INT32 || t == ValueType::INT64;
}

const char *valueTypeName(ValueType t) {
  switch (t) {
  case ValueType::UINT8:
    return "UINT8";
  case ValueType::INT8:
    return "INT8";
  case ValueType::UINT16:
    return "UINT16";
  case ValueType::INT16:
    return "INT16";
  case ValueType::UINT32:
    return "UINT32";
  case ValueType::INT32:
    return "INT32";
  case ValueType::FLOAT32:
    return "FLOAT32";
  case ValueType::BOOL:
    return "BOOL";
  case ValueType::STRING:
    return "STRING";
  case ValueType::ARRAY:
    return "ARRAY";
  case ValueType::UINT64:
    return "UINT64";
  case ValueType::INT64:
    return "INT64";
  case ValueType::FLOAT64:
    return "FLOAT64";
  }
  return "UNKNOWN";
}

namespace {

constexpr uint32_t kMaxValueType = static_cast<uint32_t>(ValueType::FLOAT64);
/// Upper bound for up-front reservations driven by counts read from the file
/// (vectors still grow past it as entries are actually parsed).
constexpr uint64_t kMaxReserve = 4096;

/// Size in bytes of a scalar of type t; 0 for STRING/ARRAY.
uint64_t scalarSize(ValueType t) {
  switch (t) {
  case ValueType::UINT8:
  case ValueType::INT8:
  case ValueType::BOOL:
    return 1;
  case ValueType::UINT16:
  case ValueType::INT16:
    return 2;
  case ValueType::UINT32:
  case ValueType::INT32:
  case ValueType::FLOAT32:
    return 4;
  case ValueType::UINT64:
  case ValueType::INT64:
  case ValueType::FLOAT64:
    return 8;
  case ValueType::STRING:
  case ValueType::ARRAY:
    return 0;
  }
  return 0;
}

/// Minimum number of bytes an element of type t occupies on disk.
uint64_t minEncodedSize(ValueType t) {
  if (t == ValueType::STRING)
    return 8; // u64 length
  if (t == ValueType::ARRAY)
    return 12; // u32 element type + u64 count
  return scalarSize(t);
}

/// Quote a (possibly binary, possibly huge) name for use in a diagnostic.
std::string quote(const std::string &s) {
  constexpr size_t kMaxShown = 80;
  std::string out = "'";
  size_t shown = std::min(s.size(), kMaxShown);
  for (size_t i = 0; i < shown; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (s.size() > kMaxShown)
    out += "...";
  out += "'";
  return out;
}

std::string escapeBytes(const uint8_t *p, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = p[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string supportedTypesList() { return typeList(); }

} // namespace

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

class File::Parser {
public:
  Parser(File &file, std::string &error)
      : f_(file), p_(file.base_), size_(file.size_), error_(error) {}

  bool parse();

private:
  struct PendingTensor {
    uint64_t offsetField; // file position of the tensor's u64 offset
  };

  File &f_;
  const uint8_t *p_;
  uint64_t size_;
  uint64_t pos_ = 0;
  std::string &error_;
  uint64_t metadataElements_ = 0;
  std::vector<PendingTensor> pending_;

  bool fail(uint64_t offset, const std::string &msg) {
    error_ =
        f_.path_ + ": at byte offset " + std::to_string(offset) + ": " + msg;
    return false;
  }

  uint64_t remaining() const { return size_ - pos_; }

  bool need(uint64_t n, const std::string &what) {
    if (remaining() >= n)
      return true;
    return fail(pos_, "unexpected end of file while reading " + what +
                          " (need " + std::to_string(n) + " bytes, " +
                          std::to_string(remaining()) + " available)");
  }

  uint64_t loadLE(unsigned n) const {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i)
      v |= static_cast<uint64_t>(p_[pos_ + i]) << (8 * i);
    return v;
  }

  // An n-byte little-endian integer (n <= 8).
  bool readLE(unsigned n, uint64_t &v, const std::string &what) {
    if (!need(n, what))
      return false;
    v = loadLE(n);
    pos_ += n;
    return true;
  }
  bool readU32(uint32_t &v, const std::string &what) {
    uint64_t x;
    if (!readLE(4, x, what))
      return false;
    v = static_cast<uint32_t>(x);
    return true;
  }
  bool readU64(uint64_t &v, const std::string &what) {
    return readLE(8, v, what);
  }

  bool readString(std::string &s, const std::string &what) {
    const uint64_t lenOff = pos_;
    uint64_t len;
    if (!readU64(len, what + " length"))
      return false;
    if (len > remaining())
      return fail(lenOff, what + " length " + std::to_string(len) +
                              " exceeds the " + std::to_string(remaining()) +
                              " bytes remaining in the file");
    s.assign(reinterpret_cast<const char *>(p_ + pos_),
             static_cast<size_t>(len));
    pos_ += len;
    return true;
  }

  bool readValue(ValueType type, Value &v, uint32_t depth,
                 const std::string &key);
  bool readArray(Value &v, uint32_t depth, const std::string &key);
  bool parseHeader(uint64_t &tensorCount, uint64_t &kvCount);
  bool parseMetadata(uint64_t kvCount);
  bool parseTensorInfos(uint64_t tensorCount);
  bool layoutData();
};

bool File::Parser::readValue(ValueType type, Value &v, uint32_t depth,
                             const std::string &key) {
  v.type = type;
  const std::string what = "value of metadata key " + quote(key);
  if (type == ValueType::STRING)
    return readString(v.s, "string " + what);
  if (type == ValueType::ARRAY)
    return readArray(v, depth + 1, key);
  // Every other type is a little-endian scalar of scalarSize(type) bytes.
  const unsigned n = static_cast<unsigned>(scalarSize(type));
  uint64_t x = 0;
  if (n != 0 && !readLE(n, x, what))
    return false;
  switch (type) {
  case ValueType::UINT8:
  case ValueType::UINT16:
  case ValueType::UINT32:
  case ValueType::UINT64:
    v.u = x;
    return true;
  case ValueType::INT8:
  case ValueType::INT16:
  case ValueType::INT32:
  case ValueType::INT64: { // sign-extended from the value's width
    const unsigned shift = 64 - 8 * n;
    v.i = static_cast<int64_t>(x << shift) >> shift;
    return true;
  }
  case ValueType::FLOAT32: {
    const uint32_t bits = static_cast<uint32_t>(x);
    float fl;
    std::memcpy(&fl, &bits, sizeof fl);
    v.f = fl;
    return true;
  }
  case ValueType::FLOAT64:
    std::memcpy(&v.f, &x, sizeof x);
    return true;
  case ValueType::BOOL:
    v.b = x != 0;
    return true;
  case ValueType::STRING: // read above
  case ValueType::ARRAY:
    break;
  }
  return fail(pos_, "internal error: unhandled value type");
}

bool File::Parser::readArray(Value &v, uint32_t depth, const std::string &key) {
  v.type = ValueType::ARRAY;
  const uint64_t typeOff = pos_;
  uint32_t rawType;
  if (!readU32(rawType, "array element type of metadata key " + quote(key)))
    return false;
  if (rawType > kMaxValueType)
    return fail(typeOff, "unknown array element type " +
                             std::to_string(rawType) + " for metadata key " +
                             quote(key) + " (expected 0..12)");
  const auto elemType = static_cast<ValueType>(rawType);
  if (elemType == ValueType::ARRAY && depth >= kMaxArrayNesting)
    return fail(typeOff, "array nesting depth exceeds the limit of " +
                             std::to_string(kMaxArrayNesting) +
                             " for metadata key " + quote(key));
  v.elemType = elemType;

  const uint64_t countOff = pos_;
  uint64_t count;
  if (!readU64(count, "array count of metadata key " + quote(key)))
    return false;
  const uint64_t minSize = minEncodedSize(elemType);
  if (count > remaining() / minSize)
    return fail(countOff,
                "array count " + std::to_string(count) + " for metadata key " +
                    quote(key) + " exceeds the " + std::to_string(remaining()) +
                    " bytes remaining in the file (each " +
                    valueTypeName(elemType) + " element needs at least " +
                    std::to_string(minSize) + " bytes)");
  if (count > kMaxMetadataElements - metadataElements_)
    return fail(countOff, "array count " + std::to_string(count) +
                              " for metadata key " + quote(key) +
                              " exceeds the limit of " +
                              std::to_string(kMaxMetadataElements) +
                              " metadata array elements per file");
  metadataElements_ += count;

  // `count` is bounded by the file size and the element limit above.
  v.arr.resize(static_cast<size_t>(count));
  for (Value &e : v.arr)
    if (!readValue(elemType, e, depth, key))
      return false;
  return true;
}

bool File::Parser::parseHeader(uint64_t &tensorCount, uint64_t &kvCount) {
  if (!need(4, "magic"))
    return false;
  if (std::memcmp(p_, "GGUF", 4) != 0)
    return fail(0, "expected magic \"GGUF\", found \"" + escapeBytes(p_, 4) +
                       "\"");
  pos_ = 4;
  uint32_t version;
  if (!readU32(version, "version"))
    return false;
  if (version != 2 && version != 3) {
    std::string msg = "unsupported GGUF version " + std::to_string(version) +
                      " (supported versions: 2, 3)";
    if (version == 0x02000000u || version == 0x03000000u)
      msg += "; this looks like a big-endian GGUF file, which is not "
             "supported";
    return fail(4, msg);
  }
  f_.version_ = version;
  if (!readU64(tensorCount, "tensor count"))
    return false;
  if (!readU64(kvCount, "metadata key/value count"))
    return false;
  return true;
}

bool File::Parser::parseMetadata(uint64_t kvCount) {
  // Every key/value needs at least 8 (key length) + 4 (type) + 1 bytes; do not
  // trust kvCount for the reservation.
  f_.metadata_.reserve(static_cast<size_t>(
      std::min<uint64_t>({kvCount, remaining() / 13, kMaxReserve})));
  for (uint64_t k = 0; k < kvCount; ++k) {
    const uint64_t keyOff = pos_;
    std::string key;
    if (!readString(key, "metadata key #" + std::to_string(k)))
      return false;
    if (f_.keyIndex_.count(key))
      return fail(keyOff, "duplicate metadata key " + quote(key));

    const uint64_t typeOff = pos_;
    uint32_t rawType;
    if (!readU32(rawType, "value type of metadata key " + quote(key)))
      return false;
    if (rawType > kMaxValueType)
      return fail(typeOff, "unknown metadata value type " +
                               std::to_string(rawType) + " for key " +
                               quote(key) + " (expected 0..12)");
    const uint64_t valueOff = pos_;
    Value value;
    if (!readValue(static_cast<ValueType>(rawType), value, 0, key))
      return false;

    if (key == "general.alignment") {
      if (value.type != ValueType::UINT32)
        return fail(typeOff,
                    "general.alignment must be of type UINT32, found " +
                        std::string(valueTypeName(value.type)));
      if (value.u == 0 || (value.u & (value.u - 1)) != 0)
        return fail(valueOff,
                    "general.alignment must be a nonzero power of two, found " +
                        std::to_string(value.u));
      f_.alignment_ = value.u;
    }

    f_.keyIndex_.emplace(key, f_.metadata_.size());
    f_.metadata_.emplace_back(std::move(key), std::move(value));
  }
  return true;
}

bool File::Parser::parseTensorInfos(uint64_t tensorCount) {
  // A tensor info needs at least 8 + 4 + 8 + 4 + 8 bytes.
  const size_t reserve = static_cast<size_t>(
      std::min<uint64_t>({tensorCount, remaining() / 32, kMaxReserve}));
  f_.tensors_.reserve(reserve);
  pending_.reserve(reserve);
  for (uint64_t t = 0; t < tensorCount; ++t) {
    const uint64_t nameOff = pos_;
    TensorInfo info;
    if (!readString(info.name, "name of tensor #" + std::to_string(t)))
      return false;
    if (f_.tensorIndex_.count(info.name))
      return fail(nameOff, "duplicate tensor name " + quote(info.name));
    const std::string tn = "tensor " + quote(info.name);

    const uint64_t ndimsOff = pos_;
    uint32_t nDims;
    if (!readU32(nDims, "number of dimensions of " + tn))
      return false;
    if (nDims == 0 || nDims > kMaxDims)
      return fail(ndimsOff, tn + " has " + std::to_string(nDims) +
                                " dimensions (expected 1 to " +
                                std::to_string(kMaxDims) + ")");

    uint64_t dim0Off = pos_;
    uint64_t numElements = 1;
    info.dims.resize(nDims);
    for (uint32_t d = 0; d < nDims; ++d) {
      const uint64_t dimOff = pos_;
      if (!readU64(info.dims[d],
                   "dimension " + std::to_string(d) + " of " + tn))
        return false;
      const uint64_t dim = info.dims[d];
      if (dim == 0)
        return fail(dimOff, tn + " dimension " + std::to_string(d) +
                                " is 0 (dimensions must be positive)");
      constexpr uint64_t kMaxElems =
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
      if (dim > kMaxElems / numElements)
        return fail(dimOff, tn +
                                " element count overflows 64 bits at "
                                "dimension " +
                                std::to_string(d) + " (" + std::to_string(dim) +
                                ")");
      numElements *= dim;
    }
    info.numElements = numElements;

    const uint64_t typeOff = pos_;
    uint32_t rawType;
    if (!readU32(rawType, "type of " + tn))
      return false;
    const TypeTraits *tt = typeTraits(rawType);
    if (!tt) {
      std::string msg =
          tn + " has unsupported type id " + std::to_string(rawType);
      if (const char *gn = ggmlTypeName(rawType))
        msg += std::string(" (ggml type ") + gn + ")";
      else
        msg += " (not a known ggml type)";
      msg += "; Kiln supports " + supportedTypesList();
      return fail(typeOff, msg);
    }
    info.type = static_cast<GGMLType>(rawType);
    if (info.dims[0] % static_cast<uint64_t>(tt->blockSize) != 0)
      return fail(dim0Off,
                  tn + " first dimension " + std::to_string(info.dims[0]) +
                      " is not a multiple of the block size " +
                      std::to_string(tt->blockSize) + " of type " + tt->name);
    const uint64_t blocks = numElements / static_cast<uint64_t>(tt->blockSize);
    const uint64_t blockBytes = static_cast<uint64_t>(tt->blockBytes);
    if (blocks > std::numeric_limits<uint64_t>::max() / blockBytes)
      return fail(typeOff, tn + " data size overflows 64 bits");
    info.numBytes = blocks * blockBytes;

    const uint64_t offsetOff = pos_;
    if (!readU64(info.offset, "data offset of " + tn))
      return false;
    if (info.offset % f_.alignment_ != 0)
      return fail(offsetOff, tn + " data offset " +
                                 std::to_string(info.offset) +
                                 " is not a multiple of the alignment " +
                                 std::to_string(f_.alignment_));
    info.fileOffset = 0;
    info.data = nullptr;
    f_.tensorIndex_.emplace(info.name, f_.tensors_.size());
    f_.tensors_.push_back(std::move(info));
    pending_.push_back({offsetOff});
  }
  return true;
}

bool File::Parser::layoutData() {
  const uint64_t align = f_.alignment_;
  const uint64_t endOfInfos = pos_;
  // pos_ <= size_ <= 2^63 and align <= 2^31, so this cannot overflow.
  const uint64_t dataOffset = (endOfInfos + align - 1) / align * align;
  f_.dataOffset_ = dataOffset;
  if (f_.tensors_.empty())
    return true; // no data section needed (padding may be absent)
  if (dataOffset > size_)
    return fail(endOfInfos,
                "unexpected end of file in the padding before the data "
                "section (data would start at byte " +
                    std::to_string(dataOffset) + ", file has " +
                    std::to_string(size_) + " bytes)");

  const uint64_t dataSize = size_ - dataOffset;
  for (size_t i = 0; i < f_.tensors_.size(); ++i) {
    TensorInfo &t = f_.tensors_[i];
    const std::string tn = "tensor " + quote(t.name);
    if (t.offset > dataSize)
      return fail(
          pending_[i].offsetField,
          tn + " data offset " + std::to_string(t.offset) + " (absolute " +
              (t.offset > std::numeric_limits<uint64_t>::max() - dataOffset
                   ? std::string("beyond 2^64")
                   : std::to_string(dataOffset + t.offset)) +
              ") is out of file bounds (file has " + std::to_string(size_) +
              " bytes)");
    t.fileOffset = dataOffset + t.offset;
    if (t.numBytes > size_ - t.fileOffset)
      return fail(size_, "unexpected end of file in the data of " + tn +
                             " (needs bytes " + std::to_string(t.fileOffset) +
                             " to " + std::to_string(t.fileOffset) + "+" +
                             std::to_string(t.numBytes) + ", file has " +
                             std::to_string(size_) + " bytes)");
    t.data = p_ + t.fileOffset;
  }

  // Like ggml, the data section extends to the aligned end of its last
  // tensor: writers pad after every tensor, so a file whose trailing padding
  // is missing has been truncated.
  size_t last = 0;
  for (size_t i = 1; i < f_.tensors_.size(); ++i)
    if (f_.tensors_[i].offset + f_.tensors_[i].numBytes >
        f_.tensors_[last].offset + f_.tensors_[last].numBytes)
      last = i;
  {
    const TensorInfo &t = f_.tensors_[last];
    const uint64_t end = t.offset + t.numBytes; // <= dataSize, no overflow
    const uint64_t paddedEnd = (end + align - 1) / align * align;
    if (paddedEnd > dataSize)
      return fail(size_, "unexpected end of file in the padding after the data "
                         "of tensor " +
                             quote(t.name) +
                             " (the data section must extend "
                             "to byte " +
                             std::to_string(dataOffset + paddedEnd) +
                             ", file has " + std::to_string(size_) + " bytes)");
  }

  // Overlap check: sort by offset and compare neighbours.
  std::vector<size_t> order(f_.tensors_.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const TensorInfo &ta = f_.tensors_[a], &tb = f_.tensors_[b];
    return ta.offset != tb.offset ? ta.offset < tb.offset : a < b;
  });
  for (size_t k = 1; k < order.size(); ++k) {
    const TensorInfo &a = f_.tensors_[order[k - 1]];
    const TensorInfo &b = f_.tensors_[order[k]];
    // Both ranges are inside the file, so the sums cannot overflow.
    if (a.offset + a.numBytes > b.offset) {
      // Report at the later tensor info (in file order).
      const size_t later = std::max(order[k - 1], order[k]);
      const TensorInfo &first = later == order[k] ? a : b;
      const TensorInfo &second = later == order[k] ? b : a;
      return fail(pending_[later].offsetField,
                  "data of tensor " + quote(second.name) + " (bytes " +
                      std::to_string(second.offset) + ".." +
                      std::to_string(second.offset + second.numBytes) +
                      " of the data section) overlaps data of tensor " +
                      quote(first.name) + " (bytes " +
                      std::to_string(first.offset) + ".." +
                      std::to_string(first.offset + first.numBytes) + ")");
    }
  }
  return true;
}

bool File::Parser::parse() {
  uint64_t tensorCount = 0, kvCount = 0;
  if (!parseHeader(tensorCount, kvCount))
    return false;
  if (!parseMetadata(kvCount))
    return false;
  if (!parseTensorInfos(tensorCount))
    return false;
  return layoutData();
}

//===----------------------------------------------------------------------===//
// File
//===----------------------------------------------------------------------===//

File::~File() {
  if (mapping_)
    ::munmap(mapping_, mappingSize_);
}

std::unique_ptr<File> File::fromBuffer(const uint8_t *data, size_t size,
                                       const std::string &name,
                                       std::string &error) {
  std::unique_ptr<File> f(new File());
  f->path_ = name;
  f->base_ = data;
  f->size_ = data ? size : 0;
  Parser parser(*f, error);
  if (!parser.parse())
    return nullptr;
  return f;
}

std::unique_ptr<File> File::open(const std::string &path, std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": cannot open file: " + std::strerror(errno);
    return nullptr;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    error = path + ": cannot stat file: " + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  if (!S_ISREG(st.st_mode)) {
    error = path + ": not a regular file";
    ::close(fd);
    return nullptr;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void *map = nullptr;
  if (size > 0) {
    map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      error = path + ": cannot map file: " + std::strerror(errno);
      ::close(fd);
      return nullptr;
    }
  }
  ::close(fd);

  std::unique_ptr<File> f(new File());
  f->path_ = path;
  f->base_ = static_cast<const uint8_t *>(map);
  f->size_ = size;
  f->mapping_ = map;
  f->mappingSize_ = size;
  Parser parser(*f, error);
  if (!parser.parse())
    return nullptr; // ~File unmaps
  return f;
}

const Value *File::find(const std::string &key) const {
  auto it = keyIndex_.find(key);
  return it == keyIndex_.end() ? nullptr : &metadata_[it->second].second;
}

std::optional<uint64_t> File::getUInt(const std::string &key) const {
  const Value *v = find(key);
  if (!v)
    return std::nullopt;
  switch (v->type) {
  case ValueType::UINT8:
  case ValueType::UINT16:
  case ValueType::UINT32:
  case ValueType::UINT64:
    return v->u;
  case ValueType::INT8:
  case ValueType::INT16:
  case ValueType::INT32:
  case ValueType::INT64:
    if (v->i < 0)
      return std::nullopt;
    return static_cast<uint64_t>(v->i);
  default:
    return std::nullopt;
  }
}

std::optional<double> File::getFloat(const std::string &key) const {
  const Value *v = find(key);
  if (!v)
    return std::nullopt;
  switch (v->type) {
  case ValueType::FLOAT32:
  case ValueType::FLOAT64:
    return v->f;
  case ValueType::UINT8:
  case ValueType::UINT16:
  case ValueType::UINT32:
  case ValueType::UINT64:
    return static_cast<double>(v->u);
  case ValueType::INT8:
  case ValueType::INT16:
  case ValueType::INT32:
  case ValueType::INT64:
    return static_cast<double>(v->i);
  default:
    return std::nullopt;
  }
}

std::optional<std::string> File::getString(const std::string &key) const {
  const Value *v = find(key);
  if (!v || v->type != ValueType::STRING)
    return std::nullopt;
  return v->s;
}

const TensorInfo *File::tensor(const std::string &name) const {
  auto it = tensorIndex_.find(name);
  return it == tensorIndex_.end() ? nullptr : &tensors_[it->second];
}

} // namespace kiln::gguf
