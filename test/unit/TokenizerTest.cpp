//===- TokenizerTest.cpp - Kiln's SentencePiece tokenizer against sentencepiece ===//
//
// The expected ids in Inputs/tokenizer-expected.txt are SentencePiece's own
// encoding of each text with the shipped model's tokenizer, written by
// models/train/tokenizer_fixture.py (see models/README.md).
//
#include "compiler/frontend/gguf/GGUF.h"
#include "compiler/frontend/gguf/GGUFWriter.h"
#include "tools/common/Tokenizer.h"

#include <gtest/gtest.h>

#include <fstream>
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

  gguf::Writer w;
  w.addString("tokenizer.ggml.model", "gpt2");
  auto b = w.serialize();
  auto g = gguf::File::fromBuffer(b.data(), b.size(), "bpe.gguf", error);
  ASSERT_TRUE(g) << error;
  EXPECT_FALSE(t.load(*g, error));
  EXPECT_NE(error.find("bpe.gguf: tokenizer.ggml.model is 'gpt2'"),
            std::string::npos)
      << error;

  gguf::Writer none;
  b = none.serialize();
  g = gguf::File::fromBuffer(b.data(), b.size(), "none.gguf", error);
  ASSERT_TRUE(g) << error;
  EXPECT_FALSE(t.load(*g, error));
  EXPECT_NE(error.find("missing key 'tokenizer.ggml.model'"), std::string::npos)
      << error;
}
} // namespace
