//===- tokenizer_fuzzer.cpp - libFuzzer target for the tokenizer ----------===//
//
// The first byte picks what the rest is:
//   even: a GGUF file whose tokenizer.ggml.* vocabulary Tokenizer::load reads
//         (the loader's checks; then encode and decode on that vocabulary);
//   odd:  text encoded and decoded with a fixed valid vocabulary (byte
//         fallback, merges, invalid UTF-8).
// Run with ASan and UBSan; ctest runs it briefly (fuzz-tokenizer).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/gguf/GGUF.h"
#include "compiler/frontend/gguf/GGUFWriter.h"
#include "tools/common/Tokenizer.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {
const kiln::Tokenizer &fixedVocabulary() {
  static kiln::Tokenizer t;
  static std::vector<uint8_t> bytes;
  static std::unique_ptr<kiln::gguf::File> file;
  static bool ready = false;
  if (ready)
    return t;
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
  std::vector<float> scores(toks.size());
  for (size_t i = 0; i < scores.size(); ++i)
    scores[i] = -(float)i;
  w.addString("tokenizer.ggml.model", "llama");
  w.addStringArray("tokenizer.ggml.tokens", toks);
  w.addFloat32Array("tokenizer.ggml.scores", scores);
  w.addInt32Array("tokenizer.ggml.token_type", types);
  bytes = w.serialize();
  std::string error;
  file = kiln::gguf::File::fromBuffer(bytes.data(), bytes.size(), "v.gguf",
                                      error);
  if (!file || !t.load(*file, error)) {
    fprintf(stderr, "tokenizer_fuzzer: fixed vocabulary: %s\n", error.c_str());
    __builtin_trap();
  }
  ready = true;
  return t;
}

void exercise(const kiln::Tokenizer &t, const std::string &text) {
  std::vector<int32_t> ids = t.encode(text, true);
  (void)t.decode(ids);
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
    exercise(fixedVocabulary(), std::string((const char *)data, size));
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
