//===- tokenizer_fuzzer.cpp - libFuzzer target for the tokenizer ----------===//
//
// The first byte picks what the rest is:
//   even: a GGUF file whose tokenizer.ggml.* vocabulary Tokenizer::load reads
//         (the loader's checks; then encode and decode on that vocabulary);
//   odd:  text encoded and decoded with a fixed valid vocabulary, chosen by
//         bits 1-3: a SentencePiece one (byte fallback, merges) or a
//         byte-level BPE one with each pre-tokenizer (special tokens,
//         invalid UTF-8). Encoding then decoding must give back the text.
// Run with ASan and UBSan; ctest runs it briefly (fuzz-tokenizer).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/gguf/GGUF.h"
#include "compiler/frontend/gguf/GGUFWriter.h"
#include "compiler/frontend/gguf/Tokenizer.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {
kiln::Tokenizer loadOrTrap(const kiln::gguf::Writer &w) {
  static std::vector<std::vector<uint8_t>> keep; // the files must outlive us
  static std::vector<std::unique_ptr<kiln::gguf::File>> files;
  keep.push_back(w.serialize());
  std::string error;
  files.push_back(kiln::gguf::File::fromBuffer(
      keep.back().data(), keep.back().size(), "v.gguf", error));
  kiln::Tokenizer t;
  if (!files.back() || !t.load(*files.back(), error)) {
    fprintf(stderr, "tokenizer_fuzzer: fixed vocabulary: %s\n", error.c_str());
    __builtin_trap();
  }
  return t;
}

kiln::Tokenizer spmVocabulary() {
  kiln::gguf::Writer w;
  std::vector<std::string> toks = {"<unk>", "<s>", "</s>"};
  std::vector<int32_t> types = {2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    snprintf(buf, sizeof buf, "<0x%02X>", b);
    toks.push_back(buf);
    types.push_back(6);
  }
  for (const char *p : {"\xe2\x96\x81", "a", "b", "ab", "\xe2\x96\x81" "ab",
                        "\xc3\xa9", "\xe2\x96\x81" "\xc3\xa9"}) {
    toks.push_back(p);
    types.push_back(1);
  }
  toks.push_back("<user>");
  types.push_back(4);
  std::vector<float> scores(toks.size());
  for (size_t i = 0; i < scores.size(); ++i)
    scores[i] = -(float)i;
  w.addString("tokenizer.ggml.model", "llama");
  w.addStringArray("tokenizer.ggml.tokens", toks);
  w.addFloat32Array("tokenizer.ggml.scores", scores);
  w.addInt32Array("tokenizer.ggml.token_type", types);
  return loadOrTrap(w);
}

std::string byteChar(unsigned b) {
  char c[2];
  return std::string(c, kiln_bpe_byte_char((unsigned char)b, c));
}

kiln::Tokenizer bpeVocabulary(const char *pre) {
  kiln::gguf::Writer w;
  std::vector<std::string> toks;
  std::vector<int32_t> types;
  for (unsigned b = 0; b < 256; ++b) {
    toks.push_back(byteChar(b));
    types.push_back(1);
  }
  const std::string sp = byteChar(' '), nl = byteChar('\n');
  for (const std::string &t :
       {std::string("ab"), std::string("abc"), sp + "a", sp + sp, nl + nl,
        std::string("12"), std::string("123")}) {
    toks.push_back(t);
    types.push_back(1);
  }
  toks.push_back("<|end|>");
  types.push_back(3);
  toks.push_back("<|e");
  types.push_back(3);
  toks.push_back("<user>");
  types.push_back(4);
  w.addString("tokenizer.ggml.model", "gpt2");
  w.addString("tokenizer.ggml.pre", pre);
  w.addStringArray("tokenizer.ggml.tokens", toks);
  w.addInt32Array("tokenizer.ggml.token_type", types);
  w.addStringArray("tokenizer.ggml.merges",
                   {"a b", "ab c", sp + " a", sp + " " + sp, nl + " " + nl,
                    "1 2", "12 3"});
  w.addUInt32("tokenizer.ggml.bos_token_id", 256 + 7);
  w.addUInt32("tokenizer.ggml.eos_token_id", 256 + 7);
  return loadOrTrap(w);
}

const kiln::Tokenizer &fixedVocabulary(unsigned which) {
  static const char *const pres[] = {"gpt-2",  "llama-bpe", "qwen2",
                                     "qwen35", "smollm",    "falcon"};
  static std::vector<kiln::Tokenizer> all;
  if (all.empty()) {
    all.push_back(spmVocabulary());
    for (const char *p : pres)
      all.push_back(bpeVocabulary(p));
  }
  return all[which % all.size()];
}

bool validUtf8(const std::string &s) {
  for (size_t i = 0; i < s.size();) {
    unsigned c = (unsigned char)s[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3
                               : (c >> 3) == 30 ? 4
                                                : 0;
    if (!len || s.size() - i < len)
      return false;
    uint32_t cp = len == 1 ? c : c & (0x7f >> len);
    for (size_t k = 1; k < len; ++k) {
      if (((unsigned char)s[i + k] >> 6) != 2)
        return false;
      cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    // Overlong forms and code points above U+10FFFF are read differently.
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10ffff)
      return false;
    i += len;
  }
  return true;
}

void exercise(const kiln::Tokenizer &t, const std::string &text,
              bool roundTrip = false) {
  std::vector<int32_t> ids = t.encode(text, true);
  std::string back = t.decode(ids);
  // Valid UTF-8 comes back byte for byte (the fixed vocabularies have a
  // token for every byte). Not for SentencePiece where U+2581 stands for a
  // space, or where a user-defined token is followed by text: that text gets
  // the space prefix again, as llama.cpp gives it.
  const bool spm = t.model() == "llama";
  if (spm && (text.find("\xe2\x96\x81") != std::string::npos ||
              text.find("<user>") != std::string::npos))
    roundTrip = false;
  if (roundTrip && validUtf8(text) && back != text) {
    fprintf(stderr, "tokenizer_fuzzer: '%s' came back as '%s'\n",
            text.c_str(), back.c_str());
    __builtin_trap();
  }
  (void)t.encode(text, false, true);
  // Ids out of range and every piece type must decode without faults.
  ids.insert(ids.end(), {-1, 0, 1, 2, 3, 1 << 30});
  (void)t.decode(ids, false);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const uint8_t mode = data[0];
  ++data, --size;
  if (mode & 1) {
    exercise(fixedVocabulary(mode >> 1), std::string((const char *)data, size),
             /*roundTrip=*/true);
    return 0;
  }
  std::string error;
  auto file = kiln::gguf::File::fromBuffer(data, size, "fuzz.gguf", error);
  if (!file)
    return 0;
  kiln::Tokenizer t;
  if (t.load(*file, error))
    exercise(t, "Hello w\xc3\xb6rld <0x41> \xff\xfe");
  return 0;
}
