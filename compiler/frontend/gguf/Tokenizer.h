//===- Tokenizer.h - a GGUF's tokenizer, read and checked into tables -----===//
//
// Reads the tokenizer.ggml.* keys of a GGUF file into the tables of
// runtime/include/kiln/kiln_tokenizer.h and encodes and decodes with the
// runtime's C tokenizer, the same code a library built with --tokenizer=embed
// carries. Two kinds (tokenizer.ggml.model):
//
//   llama  SentencePiece: pieces merged by score, U+2581 for spaces, <0xNN>
//          byte fallback, a space before the text (add_space_prefix).
//   gpt2   byte-level BPE: the pre-tokenizer tokenizer.ggml.pre names splits
//          the text into words, whose bytes merge by tokenizer.ggml.merges
//          rank.
//
// Every vocabulary the loader accepts is consistent: special token ids in
// range, byte tokens exactly <0xNN>, pieces valid UTF-8 and unique, merges
// naming existing tokens whose concatenation is a token, and no key that would
// change tokenization that Kiln does not implement. Anything else is an error
// naming the key, the token index and what was expected.
//
#ifndef KILN_FRONTEND_GGUF_TOKENIZER_H
#define KILN_FRONTEND_GGUF_TOKENIZER_H

#include "kiln/kiln_tokenizer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln {
namespace gguf {
class File;
}

class Tokenizer {
public:
  /// Reads the vocabulary of `file`; false with `error` naming the key and
  /// token when the file has no usable tokenizer.
  bool load(const gguf::File &file, std::string &error);

  /// Token ids of `text`. `addSpecial` adds BOS/EOS as the vocabulary says
  /// (tokenizer.ggml.add_bos_token / add_eos_token); `parseSpecial` reads
  /// control tokens written in the text (<|begin_of_text|>) as themselves.
  std::vector<int32_t> encode(const std::string &text, bool addSpecial,
                              bool parseSpecial = false) const;
  /// Bytes of `ids`; ids outside the vocabulary are skipped. `first` drops
  /// SentencePiece's prefix space of the first piece (a continuation after a
  /// prompt keeps it); `special` writes control tokens' pieces.
  std::string decode(const std::vector<int32_t> &ids, bool first = true,
                     bool special = false) const;

  int32_t bos() const { return vocab().bos; }
  int32_t eos() const { return vocab().eos; }
  /// Whether generation ends at `id`: EOS, end of turn or end of message.
  bool endsGeneration(int32_t id) const;
  bool addBosByDefault() const {
    return (vocab().flags & KILN_VOCAB_ADD_BOS) != 0;
  }
  size_t size() const { return vocab().n_tokens; }
  /// "llama" or "gpt2", and for gpt2 the pre-tokenizer's name.
  const std::string &model() const { return data->model; }
  const std::string &preTokenizer() const { return data->pre; }

  /// The tables, for the C tokenizer (valid while this object lives).
  const kiln_vocab &vocab() const { return data->vocab; }

private:
  struct Data {
    std::string model, pre;
    std::vector<uint32_t> offsets;
    std::string pieces;
    std::vector<uint8_t> types;
    std::vector<float> scores;
    std::vector<uint32_t> sorted;
    std::vector<uint64_t> mergePairs;
    std::vector<uint32_t> mergeRanks, mergeResults;
    std::vector<uint32_t> special;
    std::vector<uint8_t> attrs; // KILN_TOKEN_LSTRIP / RSTRIP, or empty
    kiln_vocab vocab{};
  };
  std::shared_ptr<const Data> data = std::make_shared<Data>();
};

/// The pre-tokenizer a tokenizer.ggml.pre value selects, or KILN_PRE_NONE
/// when Kiln does not implement it.
kiln_pre_tokenizer preTokenizerNamed(const std::string &name);
/// The tokenizer.ggml.pre values Kiln implements, comma-separated.
std::string knownPreTokenizers();

} // namespace kiln

#endif
