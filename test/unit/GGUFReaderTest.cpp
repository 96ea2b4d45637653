//===- GGUFReaderTest.cpp - Tests for the GGUF reader and writer ----------===//

#include "compiler/frontend/gguf/GGUF.h"
#include "compiler/frontend/gguf/GGUFWriter.h"
#include "compiler/support/Quant.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

using namespace kiln::gguf;

namespace {

constexpr const char *kName = "t.gguf";

// Little-endian byte builder for hand-crafted (often malformed) files. pos()
// gives the offset of the next field, which the error tests compare against.
struct Raw {
  std::vector<uint8_t> b;
  uint64_t pos() const { return b.size(); }
  Raw &u8(uint8_t v) {
    b.push_back(v);
    return *this;
  }
  Raw &le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Raw &u32(uint32_t v) { return le(v, 4); }
  Raw &u64(uint64_t v) { return le(v, 8); }
  Raw &str(const std::string &s) {
    u64(s.size());
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Raw &raw(const std::string &s) {
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Raw &zeros(size_t n) {
    b.insert(b.end(), n, 0);
    return *this;
  }
  Raw &padTo(uint64_t a) {
    while (b.size() % a)
      b.push_back(0);
    return *this;
  }
  Raw &header(uint64_t tensors, uint64_t kvs, uint32_t version = 3) {
    raw("GGUF");
    u32(version);
    u64(tensors);
    u64(kvs);
    return *this;
  }
  // A tensor info; returns *this.
  Raw &tensorInfo(const std::string &name, std::vector<uint64_t> dims,
                  uint32_t type, uint64_t offset) {
    str(name);
    u32(static_cast<uint32_t>(dims.size()));
    for (uint64_t d : dims)
      u64(d);
    u32(type);
    u64(offset);
    return *this;
  }
};

constexpr uint32_t kU32 = static_cast<uint32_t>(ValueType::UINT32);
constexpr uint32_t kU64 = static_cast<uint32_t>(ValueType::UINT64);
constexpr uint32_t kStr = static_cast<uint32_t>(ValueType::STRING);
constexpr uint32_t kArr = static_cast<uint32_t>(ValueType::ARRAY);
constexpr uint32_t kF32 = static_cast<uint32_t>(GGMLType::F32);
constexpr uint32_t kQ4_0 = static_cast<uint32_t>(GGMLType::Q4_0);

std::unique_ptr<File> parse(const std::vector<uint8_t> &bytes,
                            std::string &err) {
  return File::fromBuffer(bytes.data(), bytes.size(), kName, err);
}

// Parses `bytes`, expects failure at `offset` with a message containing
// `phrase`.
void expectError(const std::vector<uint8_t> &bytes, uint64_t offset,
                 const std::string &phrase) {
  std::string err;
  auto f = parse(bytes, err);
  ASSERT_EQ(f, nullptr) << "unexpectedly parsed";
  const std::string prefix =
      std::string(kName) + ": at byte offset " + std::to_string(offset) + ": ";
  EXPECT_EQ(err.rfind(prefix, 0), 0u)
      << "expected prefix '" << prefix << "' in: " << err;
  EXPECT_NE(err.find(phrase), std::string::npos)
      << "expected phrase '" << phrase << "' in: " << err;
}

std::vector<float> iota(size_t n, float start = 0.f, float step = 1.f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = start + step * static_cast<float>(i);
  return v;
}

Value nestedArray(int depth) {
  Value v;
  v.type = ValueType::ARRAY;
  if (depth == 1) {
    v.elemType = ValueType::UINT32;
    Value e;
    e.type = ValueType::UINT32;
    e.u = 7;
    v.arr.push_back(e);
  } else {
    v.elemType = ValueType::ARRAY;
    v.arr.push_back(nestedArray(depth - 1));
  }
  return v;
}

// A small, valid file with every kind of metadata and all tensor types.
Writer makeSampleWriter(uint64_t alignment = 32) {
  Writer w(3, alignment);
  w.addString("general.architecture", "llama");
  w.addUInt32("llama.block_count", 2);
  w.addUInt64("big", (uint64_t(1) << 40) + 5);
  w.addInt32("neg", -12);
  w.addFloat32("llama.rope.freq_base", 10000.5f);
  w.addBool("flag", true);
  w.addStringArray("tokenizer.ggml.tokens", {"<s>", "</s>", "hello", ""});
  w.addFloat32Array("tokenizer.ggml.scores", {0.f, -1.5f, 2.25f, 3.f});
  w.addInt32Array("tokenizer.ggml.token_type", {1, 3, 1, -1});
  w.addValue("nested", nestedArray(3));
  Value f64;
  f64.type = ValueType::FLOAT64;
  f64.f = 0.1;
  w.addValue("f64", f64);
  // Integer scalars of every width; each signed width sign-extends from its
  // own size.
  auto addInt = [&](const char *key, ValueType type, int64_t i, uint64_t u) {
    Value val;
    val.type = type;
    val.i = i;
    val.u = u;
    w.addValue(key, val);
  };
  addInt("i8", ValueType::INT8, -5, 0);
  addInt("u16", ValueType::UINT16, 0, 65535);
  addInt("i16", ValueType::INT16, -300, 0);
  addInt("i64", ValueType::INT64, -(int64_t(1) << 40) - 3, 0);

  auto x = iota(512, -2.f, 0.01f);
  std::vector<uint8_t> buf;
  auto add = [&](const std::string &name, GGMLType t,
                 std::vector<uint64_t> dims) {
    int64_t n = 1;
    for (uint64_t d : dims)
      n *= static_cast<int64_t>(d);
    buf.assign(rowBytes(t, n), 0);
    quantize(t, x.data(), buf.data(), n);
    w.addTensor(name, dims, t, buf.data(), buf.size());
  };
  add("f32", GGMLType::F32, {3, 5});
  add("f16", GGMLType::F16, {7});
  add("bf16", GGMLType::BF16, {2, 2, 2, 2});
  add("q4_0", GGMLType::Q4_0, {64, 2});
  add("q4_1", GGMLType::Q4_1, {32});
  add("q8_0", GGMLType::Q8_0, {32, 3});
  add("q4_k", GGMLType::Q4_K, {256});
  add("q6_k", GGMLType::Q6_K, {256, 2});
  return w;
}

// Standard prefix for tensor-info tests: header + one string KV.
Raw headerWithOneKV(uint64_t tensors) {
  Raw r;
  r.header(tensors, 1);
  r.str("general.architecture").u32(kStr).str("llama");
  return r;
}

} // namespace

//===----------------------------------------------------------------------===//
// Valid files
//===----------------------------------------------------------------------===//

TEST(GGUFReader, ParsesWriterOutput) {
  Writer w = makeSampleWriter();
  ASSERT_EQ(w.error(), "");
  std::vector<uint8_t> bytes = w.serialize();
  std::string err;
  auto f = parse(bytes, err);
  ASSERT_NE(f, nullptr) << err;
  EXPECT_EQ(f->path(), kName);
  EXPECT_EQ(f->version(), 3u);
  EXPECT_EQ(f->alignment(), 32u);
  EXPECT_EQ(f->dataOffset() % 32, 0u);
  EXPECT_EQ(f->size(), bytes.size());

  // Metadata, in order; no general.alignment for the default alignment.
  const auto &md = f->metadata();
  ASSERT_EQ(md.size(), 15u);
  EXPECT_EQ(md[0].first, "general.architecture");
  EXPECT_EQ(md[12].first, "u16");
  EXPECT_EQ(f->find("general.alignment"), nullptr);
  EXPECT_EQ(f->getString("general.architecture"), "llama");
  EXPECT_EQ(f->getUInt("llama.block_count"), 2u);
  EXPECT_EQ(f->getUInt("big"), (uint64_t(1) << 40) + 5);
  EXPECT_EQ(f->getUInt("neg"), std::nullopt); // negative INT32
  EXPECT_EQ(f->find("neg")->i, -12);
  EXPECT_EQ(f->getFloat("neg"), -12.0);
  EXPECT_EQ(f->getFloat("llama.rope.freq_base"), 10000.5);
  EXPECT_EQ(f->getFloat("llama.block_count"), 2.0);
  EXPECT_EQ(f->getFloat("general.architecture"), std::nullopt);
  EXPECT_EQ(f->getString("llama.block_count"), std::nullopt);
  EXPECT_EQ(f->getUInt("missing"), std::nullopt);
  EXPECT_EQ(f->getUInt("flag"), std::nullopt);
  EXPECT_TRUE(f->find("flag")->b);
  EXPECT_EQ(f->find("f64")->f, 0.1);
  EXPECT_EQ(f->find("i8")->i, -5);
  EXPECT_EQ(f->getUInt("u16"), 65535u);
  EXPECT_EQ(f->find("i16")->i, -300);
  EXPECT_EQ(f->find("i64")->i, -(int64_t(1) << 40) - 3);

  const Value *tokens = f->find("tokenizer.ggml.tokens");
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->type, ValueType::ARRAY);
  EXPECT_EQ(tokens->elemType, ValueType::STRING);
  ASSERT_EQ(tokens->arr.size(), 4u);
  EXPECT_EQ(tokens->arr[2].s, "hello");
  EXPECT_EQ(tokens->arr[3].s, "");
  const Value *scores = f->find("tokenizer.ggml.scores");
  ASSERT_EQ(scores->arr.size(), 4u);
  EXPECT_EQ(scores->arr[2].f, 2.25);
  EXPECT_EQ(f->find("tokenizer.ggml.token_type")->arr[3].i, -1);
  const Value *nested = f->find("nested");
  ASSERT_EQ(nested->elemType, ValueType::ARRAY);
  ASSERT_EQ(nested->arr.size(), 1u);
  ASSERT_EQ(nested->arr[0].arr.size(), 1u);
  ASSERT_EQ(nested->arr[0].arr[0].elemType, ValueType::UINT32);
  EXPECT_EQ(nested->arr[0].arr[0].arr[0].u, 7u);

  // Tensors.
  const auto &ts = f->tensors();
  ASSERT_EQ(ts.size(), 8u);
  EXPECT_EQ(ts[0].name, "f32");
  EXPECT_EQ(ts[7].name, "q6_k");
  const TensorInfo *t = f->tensor("f32");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dims, (std::vector<uint64_t>{3, 5}));
  EXPECT_EQ(t->type, GGMLType::F32);
  EXPECT_EQ(t->numElements, 15u);
  EXPECT_EQ(t->numBytes, 60u);
  EXPECT_EQ(t->offset, 0u);
  EXPECT_EQ(t->fileOffset, f->dataOffset());
  EXPECT_EQ(t->data, bytes.data() + t->fileOffset);
  float v[15];
  dequantize(t->type, t->data, v, 15);
  EXPECT_EQ(v[0], -2.f);
  EXPECT_FLOAT_EQ(v[14], -2.f + 0.14f);
  EXPECT_EQ(f->tensor("nope"), nullptr);
  for (const TensorInfo &ti : ts) {
    EXPECT_EQ(ti.offset % 32, 0u) << ti.name;
    EXPECT_EQ(ti.numBytes,
              rowBytes(ti.type, static_cast<int64_t>(ti.numElements)));
    EXPECT_LE(ti.fileOffset + ti.numBytes, bytes.size());
  }
  EXPECT_EQ(f->tensor("q6_k")->numBytes, 420u);
  EXPECT_EQ(f->tensor("bf16")->dims.size(), 4u);
}

TEST(GGUFReader, CustomAlignment) {
  for (uint64_t a : {1u, 8u, 64u, 4096u}) {
    Writer w = makeSampleWriter(a);
    ASSERT_EQ(w.error(), "");
    auto bytes = w.serialize();
    std::string err;
    auto f = parse(bytes, err);
    ASSERT_NE(f, nullptr) << err;
    EXPECT_EQ(f->alignment(), a);
    EXPECT_EQ(f->getUInt("general.alignment"), a);
    EXPECT_EQ(f->find("general.alignment")->type, ValueType::UINT32);
    EXPECT_EQ(f->metadata()[0].first, "general.alignment");
    EXPECT_EQ(f->dataOffset() % a, 0u);
    for (const TensorInfo &t : f->tensors())
      EXPECT_EQ(t.offset % a, 0u);
  }
}

TEST(GGUFReader, AcceptsVersion2AndEmptyFiles) {
  Writer w(2);
  auto bytes = w.serialize();
  std::string err;
  auto f = parse(bytes, err);
  ASSERT_NE(f, nullptr) << err;
  EXPECT_EQ(f->version(), 2u);
  EXPECT_TRUE(f->metadata().empty());
  EXPECT_TRUE(f->tensors().empty());
  // Without tensors the padding before the (empty) data section is optional.
  Raw r;
  r.header(0, 0);
  f = parse(r.b, err);
  ASSERT_NE(f, nullptr) << err;
}

TEST(GGUFReader, AcceptsMaximumNestingDepth) {
  Writer w;
  w.addValue("deep", nestedArray(static_cast<int>(kMaxArrayNesting)));
  ASSERT_EQ(w.error(), "");
  auto bytes = w.serialize();
  std::string err;
  auto f = parse(bytes, err);
  ASSERT_NE(f, nullptr) << err;
}

TEST(GGUFReader, OpenMapsFileFromDisk) {
  char path[] = "/tmp/kiln-gguf-test-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  Writer w = makeSampleWriter();
  std::string err;
  ASSERT_TRUE(w.write(path, err)) << err;
  auto f = File::open(path, err);
  ASSERT_NE(f, nullptr) << err;
  EXPECT_EQ(f->path(), path);
  EXPECT_EQ(f->getString("general.architecture"), "llama");
  const TensorInfo *t = f->tensor("q8_0");
  ASSERT_NE(t, nullptr);
  std::vector<float> y(96);
  dequantize(t->type, t->data, y.data(), 96);
  EXPECT_NEAR(y[0], -2.f, 0.02f);
  f.reset();
  std::remove(path);

  auto g = File::open("/nonexistent/dir/model.gguf", err);
  EXPECT_EQ(g, nullptr);
  EXPECT_NE(err.find("/nonexistent/dir/model.gguf"), std::string::npos) << err;
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;

  g = File::open("/tmp", err);
  EXPECT_EQ(g, nullptr);
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
}

TEST(GGUFReader, OpenReportsParseErrorsWithPath) {
  char path[] = "/tmp/kiln-gguf-bad-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "GGUX\3\0\0\0", 8), 8);
  close(fd);
  std::string err;
  auto f = File::open(path, err);
  EXPECT_EQ(f, nullptr);
  EXPECT_EQ(err,
            std::string(path) +
                ": at byte offset 0: expected magic \"GGUF\", found \"GGUX\"");
  // Empty file.
  FILE *fp = std::fopen(path, "wb");
  std::fclose(fp);
  f = File::open(path, err);
  EXPECT_EQ(f, nullptr);
  EXPECT_NE(
      err.find("at byte offset 0: unexpected end of file while reading magic"),
      std::string::npos)
      << err;
  std::remove(path);
}

//===----------------------------------------------------------------------===//
// Header errors
//===----------------------------------------------------------------------===//

TEST(GGUFReaderErrors, WrongMagic) {
  Raw r;
  r.raw("GGUX").u32(3).u64(0).u64(0);
  std::string err;
  EXPECT_EQ(parse(r.b, err), nullptr);
  EXPECT_EQ(
      err, "t.gguf: at byte offset 0: expected magic \"GGUF\", found \"GGUX\"");
  Raw bin;
  bin.u32(0x00ff0a01u).u32(3);
  expectError(bin.b, 0, "found \"\\x01\\x0a\\xff\\x00\"");
}

TEST(GGUFReaderErrors, UnsupportedVersion) {
  Raw v1;
  v1.header(0, 0, 1);
  expectError(v1.b, 4, "unsupported GGUF version 1 (supported versions: 2, 3)");
  Raw v4;
  v4.header(0, 0, 4);
  expectError(v4.b, 4, "unsupported GGUF version 4 (supported versions: 2, 3)");
  Raw be;
  be.header(0, 0, 0x03000000u);
  expectError(be.b, 4, "big-endian");
}

TEST(GGUFReaderErrors, TruncatedHeader) {
  expectError(
      {}, 0,
      "unexpected end of file while reading magic (need 4 bytes, 0 available)");
  Raw r;
  r.raw("GGUF").u8(3);
  expectError(r.b, 4, "unexpected end of file while reading version");
  Raw r2;
  r2.raw("GGUF").u32(3).u32(0);
  expectError(r2.b, 8,
              "unexpected end of file while reading tensor count (need 8 "
              "bytes, 4 available)");
  Raw r3;
  r3.raw("GGUF").u32(3).u64(0).zeros(7);
  expectError(r3.b, 16,
              "unexpected end of file while reading metadata key/value count");
}

//===----------------------------------------------------------------------===//
// Metadata errors
//===----------------------------------------------------------------------===//

TEST(GGUFReaderErrors, TruncatedKey) {
  Raw r;
  r.header(0, 1);
  const uint64_t keyOff = r.pos();
  r.u64(10).raw("gen");
  expectError(r.b, keyOff,
              "metadata key #0 length 10 exceeds the 3 bytes remaining");
  Raw r2;
  r2.header(0, 2);
  r2.str("a").u32(kU32).u32(1);
  const uint64_t second = r2.pos();
  r2.u32(0);
  expectError(r2.b, second,
              "unexpected end of file while reading metadata key #1 length");
}

TEST(GGUFReaderErrors, TruncatedValue) {
  Raw r;
  r.header(0, 1);
  r.str("k");
  const uint64_t typeOff = r.pos();
  r.u8(4);
  expectError(
      r.b, typeOff,
      "unexpected end of file while reading value type of metadata key 'k'");
  Raw r2;
  r2.header(0, 1);
  r2.str("k").u32(kU32);
  const uint64_t valOff = r2.pos();
  r2.u8(1).u8(2);
  expectError(r2.b, valOff,
              "unexpected end of file while reading value of metadata key 'k' "
              "(need 4 bytes, "
              "2 available)");
  Raw r3;
  r3.header(0, 1);
  r3.str("s").u32(kStr);
  const uint64_t lenOff = r3.pos();
  r3.u64(5).raw("ab");
  expectError(r3.b, lenOff,
              "string value of metadata key 's' length 5 exceeds the 2 bytes "
              "remaining");
}

TEST(GGUFReaderErrors, TruncatedArray) {
  Raw r;
  r.header(0, 1);
  r.str("arr").u32(kArr);
  const uint64_t etOff = r.pos();
  r.u8(4).u8(0);
  expectError(r.b, etOff,
              "unexpected end of file while reading array element type of "
              "metadata key 'arr'");

  Raw r2;
  r2.header(0, 1);
  r2.str("arr").u32(kArr).u32(kU32);
  const uint64_t countOff = r2.pos();
  r2.u32(4);
  expectError(
      r2.b, countOff,
      "unexpected end of file while reading array count of metadata key 'arr'");

  Raw r3;
  r3.header(0, 1);
  r3.str("arr").u32(kArr).u32(kU32);
  const uint64_t countOff3 = r3.pos();
  r3.u64(4).u32(1).u32(2);
  expectError(r3.b, countOff3,
              "array count 4 for metadata key 'arr' exceeds the 8 bytes "
              "remaining in the file "
              "(each UINT32 element needs at least 4 bytes)");

  // Array of strings truncated inside the second element.
  Raw r4;
  r4.header(0, 1);
  r4.str("toks").u32(kArr).u32(kStr).u64(2).str("ab");
  const uint64_t secondLen = r4.pos();
  r4.u64(3).raw("x");
  expectError(r4.b, secondLen,
              "string value of metadata key 'toks' length 3 exceeds the 1 "
              "bytes remaining");
}

TEST(GGUFReaderErrors, HugeLengthsFailFast) {
  const uint64_t huge = uint64_t(1) << 60;
  Raw r;
  r.header(0, 1);
  const uint64_t keyOff = r.pos();
  r.u64(huge).raw("abc");
  expectError(r.b, keyOff,
              "length 1152921504606846976 exceeds the 3 bytes remaining");

  Raw r2;
  r2.header(0, 1);
  r2.str("arr").u32(kArr).u32(static_cast<uint32_t>(ValueType::UINT8));
  const uint64_t countOff = r2.pos();
  r2.u64(huge).zeros(16);
  expectError(r2.b, countOff,
              "array count 1152921504606846976 for metadata key 'arr' exceeds "
              "the 16 bytes remaining");

  // Array of arrays: each element needs at least 12 bytes.
  Raw r3;
  r3.header(0, 1);
  r3.str("arr").u32(kArr).u32(kArr);
  const uint64_t countOff3 = r3.pos();
  r3.u64(3).zeros(24);
  expectError(r3.b, countOff3, "each ARRAY element needs at least 12 bytes");

  // Huge tensor/kv counts do not allocate: the file just runs out.
  Raw r4;
  r4.header(huge, huge);
  expectError(r4.b, 24,
              "unexpected end of file while reading metadata key #0 length");
  Raw r5;
  r5.header(huge, 0);
  expectError(r5.b, 24,
              "unexpected end of file while reading name of tensor #0 length");
}

TEST(GGUFReaderErrors, NestingTooDeep) {
  // kMaxArrayNesting + 1 levels: the innermost ARRAY element type is refused.
  Raw r;
  r.header(0, 1);
  r.str("deep").u32(kArr);
  uint64_t failOff = 0;
  for (uint32_t level = 1; level <= kMaxArrayNesting; ++level) {
    if (level == kMaxArrayNesting)
      failOff = r.pos();
    r.u32(kArr).u64(1);
  }
  r.u32(kU32).u64(1).u32(7);
  expectError(
      r.b, failOff,
      "array nesting depth exceeds the limit of 8 for metadata key 'deep'");
}

TEST(GGUFReaderErrors, UnknownValueType) {
  Raw r;
  r.header(0, 1);
  r.str("k");
  const uint64_t typeOff = r.pos();
  r.u32(13).u32(0);
  expectError(r.b, typeOff, "unknown metadata value type 13 for key 'k'");

  Raw r2;
  r2.header(0, 1);
  r2.str("k").u32(kArr);
  const uint64_t etOff = r2.pos();
  r2.u32(99).u64(0);
  expectError(r2.b, etOff,
              "unknown array element type 99 for metadata key 'k'");
}

TEST(GGUFReaderErrors, DuplicateKey) {
  Raw r;
  r.header(0, 2);
  r.str("k").u32(kU32).u32(1);
  const uint64_t dupOff = r.pos();
  r.str("k").u32(kU32).u32(2);
  expectError(r.b, dupOff, "duplicate metadata key 'k'");
}

TEST(GGUFReaderErrors, BadAlignment) {
  for (uint32_t bad : {0u, 3u, 48u, 0x80000001u}) {
    Raw r;
    r.header(0, 1);
    r.str("general.alignment").u32(kU32);
    const uint64_t valOff = r.pos();
    r.u32(bad);
    expectError(r.b, valOff,
                "general.alignment must be a nonzero power of two, found " +
                    std::to_string(bad));
  }
  Raw r;
  r.header(0, 1);
  r.str("general.alignment");
  const uint64_t typeOff = r.pos();
  r.u32(kU64).u64(32);
  expectError(r.b, typeOff,
              "general.alignment must be of type UINT32, found UINT64");
}

//===----------------------------------------------------------------------===//
// Tensor info errors
//===----------------------------------------------------------------------===//

TEST(GGUFReaderErrors, TruncatedTensorInfo) {
  Raw r = headerWithOneKV(1);
  r.str("w");
  const uint64_t ndOff = r.pos();
  r.u8(1);
  expectError(r.b, ndOff,
              "unexpected end of file while reading number of dimensions of "
              "tensor 'w'");

  Raw r2 = headerWithOneKV(1);
  r2.str("w").u32(2).u64(32);
  const uint64_t d1 = r2.pos();
  expectError(r2.b, d1,
              "unexpected end of file while reading dimension 1 of tensor 'w'");

  Raw r3 = headerWithOneKV(1);
  r3.str("w").u32(1).u64(32).u32(kF32);
  const uint64_t offOff = r3.pos();
  r3.u32(0);
  expectError(r3.b, offOff,
              "unexpected end of file while reading data offset of tensor 'w'");

  Raw r4 = headerWithOneKV(1);
  const uint64_t nameOff = r4.pos();
  r4.u64(100).raw("w");
  expectError(r4.b, nameOff,
              "name of tensor #0 length 100 exceeds the 1 bytes remaining");
}

TEST(GGUFReaderErrors, BadDimensionCount) {
  for (uint32_t nd : {0u, 5u, 0xffffffffu}) {
    Raw r = headerWithOneKV(1);
    r.str("w");
    const uint64_t ndOff = r.pos();
    r.u32(nd).zeros(64);
    expectError(r.b, ndOff,
                "tensor 'w' has " + std::to_string(nd) +
                    " dimensions (expected 1 to 4)");
  }
}

TEST(GGUFReaderErrors, ZeroDimension) {
  Raw r = headerWithOneKV(1);
  r.str("w").u32(3).u64(4);
  const uint64_t d1 = r.pos();
  r.u64(0).u64(2).u32(kF32).u64(0);
  expectError(r.b, d1, "tensor 'w' dimension 1 is 0");
}

TEST(GGUFReaderErrors, ElementCountOverflow) {
  Raw r = headerWithOneKV(1);
  r.str("w").u32(3).u64(uint64_t(1) << 32);
  const uint64_t d1 = r.pos();
  r.u64(uint64_t(1) << 32).u64(2).u32(kF32).u64(0);
  expectError(r.b, d1,
              "tensor 'w' element count overflows 64 bits at dimension 1");
  // 2^62 elements of f32 is a valid count but its byte size overflows.
  Raw r2 = headerWithOneKV(1);
  r2.str("w").u32(2).u64(uint64_t(1) << 31).u64(uint64_t(1) << 31);
  const uint64_t typeOff = r2.pos();
  r2.u32(kF32).u64(0);
  expectError(r2.b, typeOff, "tensor 'w' data size overflows 64 bits");
}

TEST(GGUFReaderErrors, UnknownTensorType) {
  Raw r = headerWithOneKV(1);
  r.str("blk.0.attn_q.weight").u32(1).u64(256);
  const uint64_t typeOff = r.pos();
  r.u32(17).u64(0);
  expectError(r.b, typeOff,
              "tensor 'blk.0.attn_q.weight' has unsupported type id 17 (ggml "
              "type iq2_xs)");
  Raw r2 = headerWithOneKV(1);
  r2.str("w").u32(1).u64(256);
  const uint64_t typeOff2 = r2.pos();
  r2.u32(1000).u64(0);
  expectError(
      r2.b, typeOff2,
      "tensor 'w' has unsupported type id 1000 (not a known ggml type)");
}

TEST(GGUFReaderErrors, BlockSizeMismatch) {
  Raw r = headerWithOneKV(1);
  r.str("w").u32(2);
  const uint64_t d0 = r.pos();
  r.u64(48).u64(2).u32(kQ4_0).u64(0);
  expectError(r.b, d0,
              "tensor 'w' first dimension 48 is not a multiple of the block "
              "size 32 of type q4_0");
  Raw r2 = headerWithOneKV(1);
  r2.str("k").u32(1);
  const uint64_t d0b = r2.pos();
  r2.u64(128).u32(static_cast<uint32_t>(GGMLType::Q6_K)).u64(0);
  expectError(r2.b, d0b, "block size 256 of type q6_k");
}

TEST(GGUFReaderErrors, UnalignedOffset) {
  Raw r = headerWithOneKV(1);
  r.str("w").u32(1).u64(8).u32(kF32);
  const uint64_t offOff = r.pos();
  r.u64(16);
  r.padTo(32).zeros(64);
  expectError(
      r.b, offOff,
      "tensor 'w' data offset 16 is not a multiple of the alignment 32");
}

TEST(GGUFReaderErrors, DuplicateTensorName) {
  Raw r = headerWithOneKV(2);
  r.tensorInfo("w", {8}, kF32, 0);
  const uint64_t dupOff = r.pos();
  r.tensorInfo("w", {8}, kF32, 32);
  r.padTo(32).zeros(64);
  expectError(r.b, dupOff, "duplicate tensor name 'w'");
}

//===----------------------------------------------------------------------===//
// Data section errors
//===----------------------------------------------------------------------===//

TEST(GGUFReaderErrors, DataOutOfBounds) {
  Raw r = headerWithOneKV(1);
  r.str("w").u32(1).u64(8).u32(kF32);
  const uint64_t offOff = r.pos();
  r.u64(uint64_t(1) << 40);
  r.padTo(32).zeros(32);
  expectError(r.b, offOff, "tensor 'w' data offset 1099511627776");
  expectError(r.b, offOff, "is out of file bounds");
  // Offsets near 2^64 do not overflow the check.
  Raw r2 = headerWithOneKV(1);
  r2.str("w").u32(1).u64(8).u32(kF32);
  const uint64_t offOff2 = r2.pos();
  r2.u64(~uint64_t(31));
  r2.padTo(32).zeros(32);
  expectError(r2.b, offOff2, "is out of file bounds");
}

TEST(GGUFReaderErrors, TruncatedData) {
  Raw r = headerWithOneKV(1);
  r.tensorInfo("w", {16}, kF32, 0);
  r.padTo(32).zeros(60); // needs 64
  expectError(r.b, r.pos(), "unexpected end of file in the data of tensor 'w'");
}

TEST(GGUFReaderErrors, MissingTrailingPadding) {
  // The data section extends to the aligned end of the last tensor (writers
  // pad after every tensor), so a missing tail means the file was truncated.
  Raw r = headerWithOneKV(2);
  r.tensorInfo("a", {8}, kF32, 32);
  r.tensorInfo("b", {4}, kF32, 0);
  r.padTo(32).zeros(64); // "a" ends at 64, already aligned
  std::string err;
  EXPECT_NE(parse(r.b, err), nullptr) << err;
  Raw r2 = headerWithOneKV(1);
  r2.tensorInfo("w", {5}, kF32, 0); // 20 bytes, padded to 32
  r2.padTo(32).zeros(20);
  expectError(
      r2.b, r2.pos(),
      "unexpected end of file in the padding after the data of tensor 'w'");
}

TEST(GGUFReaderErrors, TruncatedPadding) {
  Raw r = headerWithOneKV(1);
  r.tensorInfo("w", {16}, kF32, 0);
  const uint64_t end = r.pos();
  ASSERT_NE(end % 32, 0u);
  expectError(r.b, end,
              "unexpected end of file in the padding before the data section");
}

TEST(GGUFReaderErrors, OverlappingTensors) {
  Raw r = headerWithOneKV(3);
  r.tensorInfo("a", {16}, kF32, 0); // [0, 64)
  r.tensorInfo("b", {8}, kF32, 64); // [64, 96)
  r.str("c").u32(1).u64(16).u32(kF32);
  const uint64_t offOff = r.pos();
  r.u64(32); // [32, 96): overlaps a and b
  r.padTo(32).zeros(128);
  expectError(r.b, offOff,
              "data of tensor 'c' (bytes 32..96 of the data section) overlaps "
              "data of tensor 'a' (bytes 0..64)");

  // Identical offsets.
  Raw r2 = headerWithOneKV(2);
  r2.tensorInfo("x", {8}, kF32, 0);
  const uint64_t yOff = r2.pos();
  r2.tensorInfo("y", {8}, kF32, 0);
  r2.padTo(32).zeros(64);
  expectError(r2.b, yOff + 8 + 1 + 4 + 8 + 4, "data of tensor 'y'");
  expectError(r2.b, yOff + 8 + 1 + 4 + 8 + 4, "overlaps data of tensor 'x'");

  // Adjacent tensors are fine.
  Raw ok = headerWithOneKV(2);
  ok.tensorInfo("a", {8}, kF32, 32);
  ok.tensorInfo("b", {8}, kF32, 0);
  ok.padTo(32).zeros(64);
  std::string err;
  EXPECT_NE(parse(ok.b, err), nullptr) << err;
}

TEST(GGUFReaderErrors, NamesAreSanitizedInMessages) {
  Raw r = headerWithOneKV(1);
  r.str(std::string("bad\n\x01'name")).u32(0).zeros(32);
  std::string err;
  EXPECT_EQ(parse(r.b, err), nullptr);
  EXPECT_NE(err.find("tensor 'bad\\x0a\\x01\\'name' has 0 dimensions"),
            std::string::npos)
      << err;
}

//===----------------------------------------------------------------------===//
// Sweeps
//===----------------------------------------------------------------------===//

TEST(GGUFReaderSweep, EveryTruncationFailsCleanly) {
  Writer w = makeSampleWriter();
  std::vector<uint8_t> full = w.serialize();
  ASSERT_LT(full.size(), 20000u);
  std::string err;
  ASSERT_NE(parse(full, err), nullptr) << err;
  const std::string prefix = std::string(kName) + ": at byte offset ";
  for (size_t len = 0; len < full.size(); ++len) {
    std::vector<uint8_t> part(full.begin(),
                              full.begin() + static_cast<long>(len));
    err.clear();
    auto f = File::fromBuffer(part.data(), part.size(), kName, err);
    ASSERT_EQ(f, nullptr) << "prefix of " << len << " bytes parsed";
    ASSERT_EQ(err.rfind(prefix, 0), 0u) << err;
    const uint64_t off =
        std::strtoull(err.c_str() + prefix.size(), nullptr, 10);
    ASSERT_LE(off, len) << err;
    const bool mentionsEnd =
        err.find("end of file") != std::string::npos ||
        err.find("remaining") != std::string::npos ||
        err.find("out of file bounds") != std::string::npos;
    ASSERT_TRUE(mentionsEnd) << "len " << len << ": " << err;
  }
}

TEST(GGUFReaderSweep, ByteMutationsNeverCrash) {
  // Corrupt every byte of the metadata/tensor-info area with a few values;
  // parsing must either succeed with in-bounds tensors or fail with a message.
  Writer w = makeSampleWriter();
  const std::vector<uint8_t> full = w.serialize();
  std::string err;
  auto good = parse(full, err);
  ASSERT_NE(good, nullptr);
  const size_t headerEnd = static_cast<size_t>(good->dataOffset());
  for (size_t i = 0; i < headerEnd; ++i) {
    for (uint8_t v : {uint8_t(0x00), uint8_t(0xff), uint8_t(0x7f),
                      uint8_t(0x09), static_cast<uint8_t>(full[i] ^ 1)}) {
      if (v == full[i])
        continue;
      std::vector<uint8_t> m = full;
      m[i] = v;
      err.clear();
      auto f = parse(m, err);
      if (!f) {
        ASSERT_EQ(err.rfind(std::string(kName) + ": at byte offset ", 0), 0u)
            << err;
        continue;
      }
      for (const TensorInfo &t : f->tensors())
        ASSERT_LE(t.fileOffset + t.numBytes, m.size());
    }
  }
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

TEST(GGUFWriter, HeaderBytes) {
  Writer w;
  w.addUInt32("a", 0x01020304u);
  auto b = w.serialize();
  Raw expected;
  expected.header(0, 1).str("a").u32(kU32).u32(0x01020304u).padTo(32);
  EXPECT_EQ(b, expected.b);
}

TEST(GGUFWriter, ReplacesExistingKeysInPlace) {
  Writer w;
  w.addUInt32("a", 1);
  w.addString("b", "x");
  w.addUInt32("a", 2);
  auto bytes = w.serialize();
  std::string err;
  auto f = parse(bytes, err);
  ASSERT_NE(f, nullptr) << err;
  ASSERT_EQ(f->metadata().size(), 2u);
  EXPECT_EQ(f->metadata()[0].first, "a");
  EXPECT_EQ(f->getUInt("a"), 2u);
}

TEST(GGUFWriter, RecordsMisuse) {
  float data[32] = {};
  {
    Writer w;
    w.addTensor("w", {32}, GGMLType::F32, data, 100);
    EXPECT_NE(w.error().find("expected 128 bytes of data, got 100"),
              std::string::npos);
    std::string err;
    EXPECT_FALSE(w.write("/tmp/kiln-never-written.gguf", err));
    EXPECT_NE(err.find("expected 128 bytes"), std::string::npos) << err;
  }
  {
    Writer w;
    w.addTensor("w", {32}, GGMLType::F32, data, 128);
    w.addTensor("w", {32}, GGMLType::F32, data, 128);
    EXPECT_NE(w.error().find("duplicate tensor name 'w'"), std::string::npos);
  }
  {
    Writer w;
    w.addTensor("w", {48}, GGMLType::Q4_0, data, 54);
    EXPECT_NE(w.error().find("not a multiple of the block size 32"),
              std::string::npos);
  }
  {
    Writer w;
    Value arr;
    arr.type = ValueType::ARRAY;
    arr.elemType = ValueType::UINT32;
    Value s;
    s.type = ValueType::STRING;
    arr.arr.push_back(s);
    w.addValue("bad", arr);
    EXPECT_NE(
        w.error().find("array element of type STRING in an array of UINT32"),
        std::string::npos)
        << w.error();
  }
  {
    Writer w;
    w.addValue("deep", nestedArray(static_cast<int>(kMaxArrayNesting) + 1));
    EXPECT_NE(w.error().find("nesting"), std::string::npos) << w.error();
  }
  EXPECT_NE(Writer(1).error().find("unsupported GGUF version 1"),
            std::string::npos);
  EXPECT_NE(Writer(3, 48).error().find("power of two"), std::string::npos);
  EXPECT_EQ(Writer(3, 48).alignment(), 32u);
}
