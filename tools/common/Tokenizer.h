//===- Tokenizer.h - SentencePiece tokenizer from a GGUF's vocabulary -----===//
//
// The tokenizer of a GGUF with tokenizer.ggml.model = "llama": SentencePiece
// semantics as llama.cpp's SPM tokenizer implements them, read from
// tokenizer.ggml.tokens / scores / token_type.
//
// Encoding: a dummy-prefix space is added, every ' ' becomes U+2581, the text
// is split into UTF-8 characters, and the adjacent pair whose concatenation is
// a vocabulary piece with the highest score is merged, leftmost first on ties,
// until no pair merges (SentencePiece's BPE encoder). A symbol that is not a
// piece falls back to its bytes' <0xNN> tokens, or to the unknown token when
// the vocabulary has no byte tokens. No normalization beyond that: this is the
// identity normalizer of llama's SentencePiece models.
//
// Decoding: pieces concatenated, U+2581 back to ' ', byte tokens as their
// byte, control tokens (BOS/EOS) as nothing, the unknown token as " \u2047 ".
//
#ifndef KILN_TOOLS_COMMON_TOKENIZER_H
#define KILN_TOOLS_COMMON_TOKENIZER_H

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln {
namespace gguf {
class File;
}

class Tokenizer {
public:
  /// Reads the vocabulary of `file`; false with `error` naming the key when
  /// the file has no usable "llama" tokenizer.
  bool load(const gguf::File &file, std::string &error);

  /// Token ids of `text`, after BOS if `addBos`.
  std::vector<int32_t> encode(const std::string &text, bool addBos) const;
  /// Text of `ids`. `first` drops the dummy-prefix space of the first piece,
  /// as SentencePiece does; a continuation (generated tokens after a prompt)
  /// keeps it.
  std::string decode(const std::vector<int32_t> &ids, bool first = true) const;

  int32_t bos() const { return bosId; }
  int32_t eos() const { return eosId; }
  bool addBosByDefault() const { return addBos; }
  size_t size() const { return pieces.size(); }

private:
  enum TokenType { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4,
                   Unused = 5, Byte = 6 };
  std::vector<std::string> pieces;
  std::vector<float> scores;
  std::vector<int32_t> types;
  std::unordered_map<std::string, int32_t> mergeable; // normal + user pieces
  int32_t byteIds[256];
  bool haveBytes = false;
  int32_t unkId = 0, bosId = 1, eosId = 2;
  bool addBos = true;
};
} // namespace kiln

#endif
