//===- TokenizerTest.cpp - Kiln's SentencePiece tokenizer against sentencepiece ===//
//
// The expected ids in Inputs/tokenizer-expected.txt are SentencePiece's own
// encoding of each text with the shipped model's tokenizer, written by
// models/train/tokenizer_fixture.py (see models/README.md).
//
#include "compiler/frontend/gguf/GGUF.h"
#include "compiler/frontend/gguf/GGUFWriter.h"
#include "compiler/frontend/gguf/Tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

using namespace kiln;

namespace {
const std::string kModel = KILN_SOURCE_DIR "/models/kjv-llama.gguf";

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Text files by name: the held-out sample lives with the model.
std::string textPath(const std::string &name) {
  std::ifstream m(KILN_SOURCE_DIR "/models/" + name);
  if (m)
    return KILN_SOURCE_DIR "/models/" + name;
  return KILN_SOURCE_DIR "/test/unit/Inputs/" + name;
}

class ShippedTokenizer : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    file = gguf::File::open(kModel, error);
    ASSERT_TRUE(file) << error;
    ASSERT_TRUE(tok.load(*file, error)) << error;
  }
  std::unique_ptr<gguf::File> file;
  Tokenizer tok;
};

TEST_F(ShippedTokenizer, MatchesSentencePieceIds) {
  std::ifstream in(KILN_SOURCE_DIR "/test/unit/Inputs/tokenizer-expected.txt");
  ASSERT_TRUE(in);
  std::string line;
  int texts = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string name;
    ls >> name;
    std::vector<int32_t> expected;
    for (int32_t id; ls >> id;)
      expected.push_back(id);
    std::string text = readFile(textPath(name));
    ASSERT_FALSE(text.empty()) << name;
    std::vector<int32_t> got = tok.encode(text, /*addBos=*/false);
    ASSERT_EQ(got.size(), expected.size()) << name;
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], expected[i]) << name << ": first difference at " << i;
    ++texts;
  }
  EXPECT_EQ(texts, 2);
}

TEST_F(ShippedTokenizer, DecodeRoundTrips) {
  for (const char *name :
       {"kjv-llama.heldout-sample.txt", "tokenizer-unicode.txt"}) {
    std::string text = readFile(textPath(name));
    EXPECT_EQ(tok.decode(tok.encode(text, true)), text) << name;
  }
}

TEST_F(ShippedTokenizer, BosAndEmptyText) {
  EXPECT_TRUE(tok.addBosByDefault());
  EXPECT_EQ(tok.encode("", false), std::vector<int32_t>{});
  EXPECT_EQ(tok.encode("", true), std::vector<int32_t>{tok.bos()});
  auto ids = tok.encode("In the beginning", true);
  ASSERT_GE(ids.size(), 2u);
  EXPECT_EQ(ids[0], tok.bos());
  // A continuation keeps the space its first piece starts with.
  std::vector<int32_t> rest(ids.begin() + 2, ids.end());
  EXPECT_EQ(tok.decode(rest, /*first=*/false)[0], ' ');
}

// A vocabulary in which merge order decides the result: "abc" merges as
// (a b) c when "ab" outscores "bc", else a (b c).
std::unique_ptr<gguf::File> vocabFile(std::vector<uint8_t> &bytes,
                                      float abScore, float bcScore,
                                      const std::string &byteToken = "<0x00>") {
  gguf::Writer w;
  w.addString("general.architecture", "llama");
  std::vector<std::string> toks = {"<unk>", "<s>", "</s>", byteToken, "a",
                                   "b", "c", "ab", "bc", "\xe2\x96\x81"};
  std::vector<float> scores = {0, 0, 0, 0, -1, -1, -1, abScore, bcScore, -1};
  std::vector<int32_t> types = {2, 3, 3, 6, 1, 1, 1, 1, 1, 1};
  w.addString("tokenizer.ggml.model", "llama");
  w.addStringArray("tokenizer.ggml.tokens", toks);
  w.addFloat32Array("tokenizer.ggml.scores", scores);
  w.addInt32Array("tokenizer.ggml.token_type", types);
  bytes = w.serialize();
  std::string error;
  auto f = gguf::File::fromBuffer(bytes.data(), bytes.size(), "vocab.gguf",
                                  error);
  EXPECT_TRUE(f) << error;
  return f;
}

TEST(Tokenizer, MergesHighestScoreFirst) {
  std::vector<uint8_t> bytes;
  std::string error;
  Tokenizer t;
  auto f = vocabFile(bytes, -2, -3);
  ASSERT_TRUE(t.load(*f, error)) << error;
  EXPECT_EQ(t.encode("abc", false), (std::vector<int32_t>{9, 7, 6}));
  auto g = vocabFile(bytes, -3, -2);
  ASSERT_TRUE(t.load(*g, error)) << error;
  EXPECT_EQ(t.encode("abc", false), (std::vector<int32_t>{9, 4, 8}));
  // Only byte 0x00 has a token here: other bytes fall back to <unk>.
  EXPECT_EQ(t.encode("x", false), (std::vector<int32_t>{9, 0}));
  EXPECT_EQ(t.decode({1, 9, 7, 6, 2}), "abc");
}

TEST(Tokenizer, RejectsBadVocabulary) {
  std::vector<uint8_t> bytes;
  std::string error;
  Tokenizer t;
  auto f = vocabFile(bytes, -2, -3, "<0xZZ>");
  EXPECT_FALSE(t.load(*f, error));
  EXPECT_NE(error.find("vocab.gguf: byte token 3 '<0xZZ>'"), std::string::npos)
      << error;
  // sscanf's %2X reads a sign or a space: these once indexed far out of
  // the byte table (SIGBUS). Each must be refused, naming the token.
  for (const char *bad : {"<0x-1>", "<0x+1>", "<0x 1>", "<0x1>", "<0x1G>",
                          "<0X41>", "<0x41)", "<0x411>"}) {
    auto b = vocabFile(bytes, -2, -3, bad);
    EXPECT_FALSE(t.load(*b, error)) << bad;
    EXPECT_NE(error.find(std::string("byte token 3 '") + bad +
                         "' is not of the form <0xNN>"),
              std::string::npos)
        << error;
  }
  auto ok = vocabFile(bytes, -2, -3, "<0xfF>");
  EXPECT_TRUE(t.load(*ok, error)) << error;
  EXPECT_EQ(t.decode({3}), "\xff");

  gguf::Writer none;
  auto b = none.serialize();
  auto g = gguf::File::fromBuffer(b.data(), b.size(), "none.gguf", error);
  ASSERT_TRUE(g) << error;
  EXPECT_FALSE(t.load(*g, error));
  EXPECT_NE(error.find("missing key 'tokenizer.ggml.model'"), std::string::npos)
      << error;
}

// ---- byte-level BPE vocabularies built in the test -------------------------

using Metadata = std::vector<std::pair<std::string, gguf::Value>>;

gguf::Value str(const std::string &v) {
  gguf::Value x;
  x.type = gguf::ValueType::STRING;
  x.s = v;
  return x;
}
gguf::Value u32(uint64_t v) {
  gguf::Value x;
  x.type = gguf::ValueType::UINT32;
  x.u = v;
  return x;
}
gguf::Value f32(float v) {
  gguf::Value x;
  x.type = gguf::ValueType::FLOAT32;
  x.f = v;
  return x;
}
gguf::Value i32(int64_t v) {
  gguf::Value x;
  x.type = gguf::ValueType::INT32;
  x.i = v;
  return x;
}
gguf::Value boolean(bool v) {
  gguf::Value x;
  x.type = gguf::ValueType::BOOL;
  x.b = v;
  return x;
}
gguf::Value strs(const std::vector<std::string> &v) {
  gguf::Value x;
  x.type = gguf::ValueType::ARRAY;
  x.elemType = gguf::ValueType::STRING;
  for (const auto &s : v)
    x.arr.push_back(str(s));
  return x;
}
gguf::Value i32s(const std::vector<int32_t> &v) {
  gguf::Value x;
  x.type = gguf::ValueType::ARRAY;
  x.elemType = gguf::ValueType::INT32;
  for (int32_t i : v) {
    gguf::Value e;
    e.type = gguf::ValueType::INT32;
    e.i = i;
    x.arr.push_back(e);
  }
  return x;
}

std::string byteChar(unsigned b) {
  char c[2];
  return std::string(c, kiln_bpe_byte_char((unsigned char)b, c));
}

// Ids 0..255: the bytes' characters; then "ab", "abc", "Ġa" (space a),
// "<|end|>" (control), "<my>" (user-defined), "<|e" (control).
const int kAb = 256, kAbc = 257, kSpaceA = 258, kEnd = 259, kMine = 260,
          kPartial = 261;
Metadata bpeMetadata() {
  std::vector<std::string> toks;
  std::vector<int32_t> types;
  for (unsigned b = 0; b < 256; ++b) {
    toks.push_back(byteChar(b));
    types.push_back(1);
  }
  for (const char *t : {"ab", "abc", "\xc4\xa0" "a"}) {
    toks.push_back(t);
    types.push_back(1);
  }
  toks.push_back("<|end|>");
  types.push_back(3);
  toks.push_back("<my>");
  types.push_back(4);
  toks.push_back("<|e");
  types.push_back(3);
  return {{"tokenizer.ggml.model", str("gpt2")},
          {"tokenizer.ggml.pre", str("gpt-2")},
          {"tokenizer.ggml.tokens", strs(toks)},
          {"tokenizer.ggml.token_type", i32s(types)},
          {"tokenizer.ggml.merges", strs({"a b", "ab c", "\xc4\xa0 a"})},
          {"tokenizer.ggml.bos_token_id", u32(kEnd)},
          {"tokenizer.ggml.eos_token_id", u32(kEnd)}};
}

struct Loaded {
  std::vector<uint8_t> bytes;
  std::unique_ptr<gguf::File> file;
  Tokenizer tok;
  std::string error;
  bool ok = false;
};

void load(const Metadata &md, Loaded &l) {
  gguf::Writer w;
  for (const auto &kv : md)
    w.addValue(kv.first, kv.second);
  l.bytes = w.serialize();
  l.file = gguf::File::fromBuffer(l.bytes.data(), l.bytes.size(), "bpe.gguf",
                                  l.error);
  ASSERT_TRUE(l.file) << l.error;
  l.ok = l.tok.load(*l.file, l.error);
}

void set(Metadata &md, const std::string &key, gguf::Value v) {
  for (auto &kv : md)
    if (kv.first == key) {
      kv.second = std::move(v);
      return;
    }
  md.push_back({key, std::move(v)});
}

void drop(Metadata &md, const std::string &key) {
  md.erase(std::remove_if(md.begin(), md.end(),
                          [&](const auto &kv) { return kv.first == key; }),
           md.end());
}

TEST(BpeTokenizer, MergesSpecialTokensAndBos) {
  Loaded l;
  load(bpeMetadata(), l);
  ASSERT_TRUE(l.ok) << l.error;
  const Tokenizer &t = l.tok;
  EXPECT_EQ(t.encode("abc", false), (std::vector<int32_t>{kAbc}));
  EXPECT_EQ(t.encode("ab a", false), (std::vector<int32_t>{kAb, kSpaceA}));
  // A control token in text is text unless special tokens are parsed; a
  // user-defined token is always itself.
  EXPECT_EQ(t.encode("x<|end|>", false, true),
            (std::vector<int32_t>{'x', kEnd}));
  std::vector<int32_t> plain = t.encode("<|end|>", false, false);
  EXPECT_EQ(plain.size(), 7u);
  EXPECT_EQ(t.encode("<my>ab", false), (std::vector<int32_t>{kMine, kAb}));
  // Longest first: "<|end|>" is cut before "<|e" can take its start.
  EXPECT_EQ(t.encode("<|e<|end|>", false, true),
            (std::vector<int32_t>{kPartial, kEnd}));
  // gpt-2 adds no BOS unless the vocabulary says so.
  EXPECT_EQ(t.encode("ab", true), (std::vector<int32_t>{kAb}));
  EXPECT_TRUE(t.endsGeneration(kEnd));
  EXPECT_FALSE(t.endsGeneration(kAb));
  // Decoding: bytes back; control pieces only when asked.
  EXPECT_EQ(t.decode({kAb, kSpaceA, kEnd, kMine}), "ab a<my>");
  EXPECT_EQ(t.decode({kAb, kEnd}, true, true), "ab<|end|>");
  EXPECT_EQ(t.decode({0, 10, 255}), std::string("\x00\n\xff", 3));

  Metadata md = bpeMetadata();
  set(md, "tokenizer.ggml.add_bos_token", boolean(true));
  set(md, "tokenizer.ggml.add_eos_token", boolean(true));
  Loaded b;
  load(md, b);
  ASSERT_TRUE(b.ok) << b.error;
  EXPECT_EQ(b.tok.encode("ab", true), (std::vector<int32_t>{kEnd, kAb, kEnd}));
  EXPECT_EQ(b.tok.encode("ab", false), (std::vector<int32_t>{kAb}));
}

// Invalid UTF-8 reads as U+FFFD per byte, as llama.cpp reads it; empty text
// has no ids; long text takes linear time.
TEST(BpeTokenizer, InvalidEmptyAndLongText) {
  Loaded l;
  load(bpeMetadata(), l);
  ASSERT_TRUE(l.ok) << l.error;
  const Tokenizer &t = l.tok;
  EXPECT_TRUE(t.encode("", true).empty());
  EXPECT_EQ(t.decode(t.encode("\xff", false)), "\xef\xbf\xbd");
  EXPECT_EQ(t.decode(t.encode("a\xe2\x96", false)), "a\xef\xbf\xbd\xef\xbf\xbd");
  std::string big(1 << 20, 'a');
  for (size_t i = 0; i < big.size(); i += 7)
    big[i] = ' ';
  std::vector<int32_t> ids = t.encode(big, false);
  EXPECT_EQ(t.decode(ids), big);
  // One word of a megabyte: merges in O(n log n), not O(n^2).
  std::string word(1 << 20, 'b');
  EXPECT_EQ(t.encode(word, false).size(), word.size());
}

struct BadCase {
  const char *what;
  std::function<void(Metadata &)> change;
  const char *error;
};

TEST(BpeTokenizer, RejectsMalformedVocabularies) {
  const std::vector<BadCase> cases = {
      {"unknown model", [](Metadata &m) { set(m, "tokenizer.ggml.model", str("bert")); },
       "tokenizer.ggml.model is 'bert'; Kiln reads 'llama' (SentencePiece) and "
       "'gpt2' (byte-level BPE) vocabularies"},
      {"no pre", [](Metadata &m) { drop(m, "tokenizer.ggml.pre"); },
       "byte-level BPE vocabulary without 'tokenizer.ggml.pre'"},
      {"unknown pre", [](Metadata &m) { set(m, "tokenizer.ggml.pre", str("deepseek-v3")); },
       "tokenizer.ggml.pre is 'deepseek-v3', a pre-tokenizer Kiln does not "
       "implement"},
      {"no merges", [](Metadata &m) { drop(m, "tokenizer.ggml.merges"); },
       "missing key 'tokenizer.ggml.merges'"},
      {"merges of the wrong type",
       [](Metadata &m) { set(m, "tokenizer.ggml.merges", i32s({1})); },
       "key 'tokenizer.ggml.merges' must be an array of STRING"},
      {"merge without a space",
       [](Metadata &m) { set(m, "tokenizer.ggml.merges", strs({"a b", "ab"})); },
       "tokenizer.ggml.merges[1] 'ab' is not two pieces separated by a space"},
      {"merge of an unknown piece",
       [](Metadata &m) { set(m, "tokenizer.ggml.merges", strs({"a zz"})); },
       "tokenizer.ggml.merges[0] 'a zz' names a piece that is not a token"},
      {"merge into no token",
       [](Metadata &m) { set(m, "tokenizer.ggml.merges", strs({"b a"})); },
       "tokenizer.ggml.merges[0] 'b a' merges into 'ba', which is not a token"},
      {"duplicate piece",
       [](Metadata &m) {
         auto &t = m[2].second.arr;
         t[kAbc].s = "ab";
       },
       "token 257 'ab' repeats token 256; pieces must be unique"},
      {"invalid UTF-8",
       [](Metadata &m) { m[2].second.arr[kAbc].s = "a\xff"; },
       "token 257 'a\\xff' is not valid UTF-8"},
      {"empty normal token", [](Metadata &m) { m[2].second.arr[kAbc].s = ""; },
       "token 257 is empty"},
      {"token type out of range",
       [](Metadata &m) { m[3].second.arr[kAbc].i = 9; },
       "token 257 'abc' has token_type 9; expected 1 (normal) to 6 (byte)"},
      {"byte token not <0xNN>",
       [](Metadata &m) { m[3].second.arr[kAbc].i = 6; },
       "byte token 257 'abc' is not of the form <0xNN>"},
      {"types of another length",
       [](Metadata &m) { set(m, "tokenizer.ggml.token_type", i32s({1, 1})); },
       "tokenizer.ggml.scores and token_type must have one entry per token "
       "(262), not 262 and 2"},
      {"BOS out of range",
       [](Metadata &m) { set(m, "tokenizer.ggml.bos_token_id", u32(262)); },
       "key 'tokenizer.ggml.bos_token_id' must be a token id below 262"},
      {"EOS not an integer",
       [](Metadata &m) { set(m, "tokenizer.ggml.eos_token_id", str("2")); },
       "key 'tokenizer.ggml.eos_token_id' is a STRING; a token id is an "
       "integer below 262"},
      {"EOS a float",
       [](Metadata &m) { set(m, "tokenizer.ggml.eos_token_id", f32(2.0f)); },
       "key 'tokenizer.ggml.eos_token_id' is a FLOAT32; a token id is an "
       "integer below 262"},
      {"EOS negative",
       [](Metadata &m) { set(m, "tokenizer.ggml.eos_token_id", i32(-1)); },
       "key 'tokenizer.ggml.eos_token_id' must be a token id below 262"},
      {"add_bos_token not a bool",
       [](Metadata &m) { set(m, "tokenizer.ggml.add_bos_token", u32(1)); },
       "key 'tokenizer.ggml.add_bos_token' must be a BOOL"},
      {"add_bos_token without BOS",
       [](Metadata &m) {
         drop(m, "tokenizer.ggml.bos_token_id");
         set(m, "tokenizer.ggml.add_bos_token", boolean(true));
       },
       "tokenizer.ggml.add_bos_token is set but the vocabulary has no BOS "
       "token"},
      {"space prefix on BPE",
       [](Metadata &m) { set(m, "tokenizer.ggml.add_space_prefix", boolean(true)); },
       "tokenizer.ggml.add_space_prefix is set on a byte-level BPE vocabulary"},
      {"a key that changes tokenization",
       [](Metadata &m) { set(m, "tokenizer.ggml.precompiled_charsmap", i32s({0})); },
       "tokenizer key 'tokenizer.ggml.precompiled_charsmap' is not supported"},
      {"no tokens",
       [](Metadata &m) {
         set(m, "tokenizer.ggml.tokens", strs({}));
         drop(m, "tokenizer.ggml.token_type");
       },
       "tokenizer.ggml.tokens has 0 entries"},
  };
  for (const BadCase &c : cases) {
    Metadata md = bpeMetadata();
    c.change(md);
    Loaded l;
    load(md, l);
    EXPECT_FALSE(l.ok) << c.what;
    EXPECT_NE(l.error.find(std::string("bpe.gguf: ") + c.error),
              std::string::npos)
        << c.what << ": " << l.error;
  }
}

TEST(Tokenizer, RejectsNonFiniteScores) {
  std::vector<uint8_t> bytes;
  std::string error;
  gguf::Writer w;
  w.addString("tokenizer.ggml.model", "llama");
  w.addStringArray("tokenizer.ggml.tokens", {"<unk>", "a"});
  w.addFloat32Array("tokenizer.ggml.scores", {0, NAN});
  w.addInt32Array("tokenizer.ggml.token_type", {2, 1});
  bytes = w.serialize();
  auto f = gguf::File::fromBuffer(bytes.data(), bytes.size(), "nan.gguf", error);
  ASSERT_TRUE(f) << error;
  Tokenizer t;
  EXPECT_FALSE(t.load(*f, error));
  EXPECT_NE(error.find("token 1 'a' has a score that is not finite"),
            std::string::npos)
      << error;
}

// Streaming: a printer that writes only what kiln_utf8_complete allows never
// splits a character, and writes every byte once the text is complete.
TEST(Tokenizer, StreamingPrintsWholeCharacters) {
  EXPECT_EQ(kiln_utf8_complete("ab", 2), 2u);
  EXPECT_EQ(kiln_utf8_complete("a\xc3", 2), 1u);
  EXPECT_EQ(kiln_utf8_complete("a\xc3\xa9", 3), 3u);
  EXPECT_EQ(kiln_utf8_complete("\xf0\x9f\xa6", 3), 0u);
  EXPECT_EQ(kiln_utf8_complete("\xf0\x9f\xa6\x99", 4), 4u);
  EXPECT_EQ(kiln_utf8_complete("\x80\x80", 2), 2u); // no start: not held

  Loaded l;
  load(bpeMetadata(), l);
  ASSERT_TRUE(l.ok) << l.error;
  const std::string text = "ab \xf0\x9f\xa6\x99 caf\xc3\xa9 ab";
  std::string pending, printed;
  for (int32_t id : l.tok.encode(text, false)) {
    pending += l.tok.decode({id});
    size_t n = kiln_utf8_complete(pending.data(), pending.size());
    std::string chunk = pending.substr(0, n);
    pending.erase(0, n);
    EXPECT_EQ(kiln_utf8_complete(chunk.data(), chunk.size()), chunk.size());
    printed += chunk;
  }
  EXPECT_TRUE(pending.empty());
  EXPECT_EQ(printed, text);
}
} // namespace
