//===- VocabVectorsTest.cpp - the tokenizer against llama.cpp's test vectors ===//
//
// Every text of llama.cpp's tokenizer test vectors (test/tokenizer/vocab/)
// encoded with each vocabulary must give exactly llama.cpp's ids; every text
// must come back byte for byte from its ids; and so must random Unicode text.
//
#include "compiler/frontend/gguf/GGUF.h"
#include "compiler/frontend/gguf/GGUFWriter.h"
#include "compiler/frontend/gguf/Tokenizer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>

using namespace kiln;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Case {
  std::string text;
  std::vector<int32_t> ids;
};

// NAME.gguf.inp: texts separated by "\n__ggml_vocab_test__\n";
// NAME.gguf.out: one line of ids per text.
std::vector<Case> readVectors(const std::string &name) {
  const std::string base =
      KILN_SOURCE_DIR "/test/tokenizer/vocab/ggml-vocab-" + name + ".gguf";
  std::string inp = readFile(base + ".inp");
  std::vector<std::string> texts;
  const std::string sep = "\n__ggml_vocab_test__\n";
  for (size_t pos = 0; pos < inp.size();) {
    size_t next = inp.find(sep, pos);
    if (next == std::string::npos) {
      texts.push_back(inp.substr(pos));
      break;
    }
    texts.push_back(inp.substr(pos, next - pos));
    pos = next + sep.size();
  }
  std::ifstream out(base + ".out");
  std::vector<Case> cases;
  std::string line;
  for (size_t i = 0; std::getline(out, line); ++i) {
    Case c;
    c.text = i < texts.size() ? texts[i] : std::string();
    std::istringstream ls(line);
    for (int32_t id; ls >> id;)
      c.ids.push_back(id);
    cases.push_back(std::move(c));
  }
  EXPECT_EQ(cases.size(), texts.size()) << name;
  return cases;
}

// The vocabulary file of `name`; qwen35's is qwen2's with its own
// tokenizer.ggml.pre (test/tokenizer/vocab/README.md).
struct Vocabulary {
  std::vector<uint8_t> bytes;
  std::unique_ptr<gguf::File> file;
  Tokenizer tok;
};

void loadVocabulary(const std::string &name, Vocabulary &v) {
  std::string error;
  const std::string file = name == "qwen35" ? "qwen2" : name;
  v.file = gguf::File::open(KILN_VOCAB_DIR "/ggml-vocab-" + file + ".gguf",
                            error);
  ASSERT_TRUE(v.file) << error;
  if (name == "qwen35") {
    gguf::Writer w;
    for (const auto &kv : v.file->metadata()) {
      gguf::Value val = kv.second;
      if (kv.first == "tokenizer.ggml.pre")
        val.s = "qwen35";
      w.addValue(kv.first, val);
    }
    v.bytes = w.serialize();
    v.file = gguf::File::fromBuffer(v.bytes.data(), v.bytes.size(),
                                    "qwen35.gguf", error);
    ASSERT_TRUE(v.file) << error;
  }
  ASSERT_TRUE(v.tok.load(*v.file, error)) << error;
}

std::string show(const std::vector<int32_t> &ids) {
  std::string s;
  for (int32_t id : ids)
    s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

bool validUtf8(const std::string &s) {
  for (size_t i = 0; i < s.size();) {
    unsigned c = (unsigned char)s[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3
                               : (c >> 3) == 30 ? 4
                                                : 0;
    if (!len || s.size() - i < len)
      return false;
    for (size_t k = 1; k < len; ++k)
      if (((unsigned char)s[i + k] >> 6) != 2)
        return false;
    i += len;
  }
  return true;
}

class VocabVectors : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override { loadVocabulary(GetParam(), vocab); }
  Vocabulary vocab;
};

TEST_P(VocabVectors, MatchLlamaCpp) {
  std::vector<Case> cases = readVectors(GetParam());
  ASSERT_GE(cases.size(), 40u);
  int passed = 0;
  for (const Case &c : cases) {
    std::vector<int32_t> got = vocab.tok.encode(c.text, false, false);
    EXPECT_EQ(show(got), show(c.ids)) << GetParam() << ": '" << c.text << "'";
    passed += got == c.ids;
  }
  RecordProperty("passed", passed);
  std::printf("%s: %d of %zu vectors\n", GetParam(), passed, cases.size());
}

// Decoding the ids of every vector gives back its text, byte for byte
// (SentencePiece drops exactly the prefix space it added).
TEST_P(VocabVectors, DecodeRoundTrips) {
  for (const Case &c : readVectors(GetParam())) {
    if (!validUtf8(c.text))
      continue;
    EXPECT_EQ(vocab.tok.decode(vocab.tok.encode(c.text, true)), c.text)
        << GetParam();
  }
}

// The King James Bible (4.4 MB) encodes and decodes back byte for byte.
TEST_P(VocabVectors, KjvRoundTrips) {
  std::string text = readFile(KILN_VOCAB_DIR "/kjv.txt");
  ASSERT_GT(text.size(), 4000000u);
  std::vector<int32_t> ids = vocab.tok.encode(text, false);
  EXPECT_GT(ids.size(), text.size() / 8) << GetParam();
  EXPECT_TRUE(vocab.tok.decode(ids) == text) << GetParam();
}

// Every control and user-defined token, written in the text and parsed as
// special, is itself.
TEST_P(VocabVectors, EverySpecialTokenParses) {
  const kiln_vocab &v = vocab.tok.vocab();
  ASSERT_GT(v.n_special, 0u);
  for (uint32_t k = 0; k < v.n_special; ++k) {
    uint32_t id = v.special[k];
    std::string piece(v.pieces + v.piece_offsets[id],
                      v.piece_offsets[id + 1] - v.piece_offsets[id]);
    EXPECT_EQ(vocab.tok.encode(piece, false, true),
              std::vector<int32_t>{(int32_t)id})
        << GetParam() << ": " << piece;
  }
}

// Random code points from every plane, as text, encode and decode back.
// Some byte-level vocabularies have no token for a few bytes (starcoder's and
// falcon's lack 0xf1, which starts code points U+40000..U+7FFFF): those bytes
// are dropped, as llama.cpp drops them.
TEST_P(VocabVectors, RandomUnicodeRoundTrips) {
  const kiln_vocab &v = vocab.tok.vocab();
  auto encodable = [&](const std::string &text) {
    if (v.kind != KILN_VOCAB_BPE)
      return text;
    std::string out;
    for (char c : text)
      if (v.byte_tokens[(unsigned char)c] >= 0)
        out += c;
    return out;
  };
  std::mt19937 rng(2024);
  for (int round = 0; round < 40; ++round) {
    std::string text;
    int n = 1 + (int)(rng() % 200);
    for (int i = 0; i < n; ++i) {
      uint32_t cp;
      switch (rng() % 4) {
      case 0: cp = 0x20 + rng() % 0x5f; break;       // ASCII
      case 1: cp = " \t\n\r"[rng() % 4]; break;      // whitespace
      case 2: cp = 0x80 + rng() % 0xff80; break;     // BMP
      default: cp = 0x10000 + rng() % 0x100000; break;
      }
      if (cp >= 0xd800 && cp <= 0xdfff)
        cp = 'x';
      char buf[4];
      size_t len;
      if (cp < 0x80) {
        buf[0] = (char)cp, len = 1;
      } else if (cp < 0x800) {
        buf[0] = (char)(0xc0 | (cp >> 6)), buf[1] = (char)(0x80 | (cp & 63));
        len = 2;
      } else if (cp < 0x10000) {
        buf[0] = (char)(0xe0 | (cp >> 12));
        buf[1] = (char)(0x80 | ((cp >> 6) & 63));
        buf[2] = (char)(0x80 | (cp & 63));
        len = 3;
      } else {
        buf[0] = (char)(0xf0 | (cp >> 18));
        buf[1] = (char)(0x80 | ((cp >> 12) & 63));
        buf[2] = (char)(0x80 | ((cp >> 6) & 63));
        buf[3] = (char)(0x80 | (cp & 63));
        len = 4;
      }
      text.append(buf, len);
    }
    EXPECT_EQ(vocab.tok.decode(vocab.tok.encode(text, false)), encodable(text))
        << GetParam() << " round " << round;
  }
}

// Special tokens written in text, as llama.cpp tokenizes them (its
// llama_tokenize with add_special and parse_special, on the same files):
// Phi-3's special tokens take the whitespace after them along (llama.cpp
// sets that by the model's general.name), except <s>, <unk> and
// <|endoftext|>; llama's do not.
TEST(VocabSpecialTokens, StripWhitespaceAsLlamaCpp) {
  struct Case {
    const char *vocab, *text;
    std::vector<int32_t> ids;
  };
  const std::vector<Case> cases = {
      {"phi-3", "<|user|>\nHello there<|end|>\n<|assistant|>\n",
       {1, 32010, 15043, 727, 32007, 32001}},
      {"phi-3", "  <|system|>  You are\n<s> ok </s>  x<|endoftext|>\n y",
       {1, 1678, 32006, 887, 526, 13, 1, 29871, 3431, 29871, 2, 921, 32000,
        29871, 13, 343}},
      {"llama-spm", "  <|system|>  You are\n<s> ok </s>  x<|endoftext|>\n y",
       {1, 259, 529, 29989, 5205, 29989, 29958, 29871, 887, 526, 13, 1, 29871,
        3431, 29871, 2, 259, 921, 29966, 29989, 355, 974, 726, 29989, 29958, 13,
        343}},
  };
  for (const Case &c : cases) {
    Vocabulary v;
    loadVocabulary(c.vocab, v);
    EXPECT_EQ(show(v.tok.encode(c.text, true, true)), show(c.ids))
        << c.vocab << ": " << c.text;
  }
}

INSTANTIATE_TEST_SUITE_P(LlamaCpp, VocabVectors,
                         ::testing::Values("gpt-2", "mpt", "llama-bpe", "qwen2",
                                           "qwen35", "starcoder", "refact",
                                           "falcon", "llama-spm", "phi-3"),
                         [](const auto &info) {
                           std::string s = info.param;
                           for (char &c : s)
                             if (c == '-')
                               c = '_';
                           return s;
                         });

} // namespace
