/* kiln_tokenizer.h - a GGUF model's tokenizer as read-only tables, with encode
 * and decode that work in caller-provided memory.
 *
 * The tables (kiln_vocab) are filled either by a host tool that read them from
 * a GGUF file, or as constant data compiled into a model's library. Two kinds:
 *
 *   KILN_VOCAB_SPM  tokenizer.ggml.model = "llama": SentencePiece BPE by piece
 *                   score, spaces as U+2581, <0xNN> byte fallback.
 *   KILN_VOCAB_BPE  tokenizer.ggml.model = "gpt2": byte-level BPE by merge
 *                   rank after the pre-tokenizer that tokenizer.ggml.pre names.
 *
 * Both follow llama.cpp's tokenizers token for token (its test vectors are the
 * tests' oracle), including its treatment of invalid UTF-8 (each byte that
 * does not start a valid sequence is read as U+FFFD). Standalone C11, no
 * allocation, no globals with state.
 */
#ifndef KILN_KILN_TOKENIZER_H
#define KILN_KILN_TOKENIZER_H

#include "kiln/kiln.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_VOCAB_VERSION 1u

enum kiln_vocab_kind { KILN_VOCAB_SPM = 1, KILN_VOCAB_BPE = 2 };

/* Pre-tokenizers of byte-level BPE, by the regular expressions they split
 * with (named by the tokenizer.ggml.pre values that select them). */
enum kiln_pre_tokenizer {
  KILN_PRE_NONE = 0,
  KILN_PRE_GPT2 = 1,      /* gpt-2, mpt, phi-2, olmo: 's|'t|...| ?\p{L}+|... */
  KILN_PRE_LLAMA3 = 2,    /* llama-bpe, dbrx, smaug-bpe: \p{N}{1,3} */
  KILN_PRE_QWEN2 = 3,     /* qwen2, stablelm2, deepseek-r1-qwen: \p{N} */
  KILN_PRE_QWEN35 = 4,    /* qwen35: qwen2 with marks as letters */
  KILN_PRE_STARCODER = 5, /* starcoder, smollm, refact, command-r: \p{N},
                             then gpt-2's */
  KILN_PRE_FALCON = 6     /* falcon: punctuation runs, gpt-2's, 3 digits */
};

/* Token types, as GGUF's tokenizer.ggml.token_type stores them. */
enum kiln_token_type {
  KILN_TOKEN_NORMAL = 1,
  KILN_TOKEN_UNKNOWN = 2,
  KILN_TOKEN_CONTROL = 3,
  KILN_TOKEN_USER_DEFINED = 4,
  KILN_TOKEN_UNUSED = 5,
  KILN_TOKEN_BYTE = 6
};

/* kiln_vocab.flags */
#define KILN_VOCAB_ADD_BOS 0x1u       /* tokenize adds BOS (ADD_SPECIAL) */
#define KILN_VOCAB_ADD_EOS 0x2u       /* tokenize adds EOS (ADD_SPECIAL) */
#define KILN_VOCAB_IGNORE_MERGES 0x4u /* BPE: a word that is a token is one */
#define KILN_VOCAB_SPACE_PREFIX 0x8u  /* SPM: a space before the text */

typedef struct kiln_vocab {
  uint32_t version; /* KILN_VOCAB_VERSION */
  uint8_t kind;     /* kiln_vocab_kind */
  uint8_t pre;      /* kiln_pre_tokenizer (BPE) */
  uint8_t flags;    /* KILN_VOCAB_* */
  uint8_t reserved;
  uint32_t n_tokens;
  /* Piece i is pieces[piece_offsets[i] .. piece_offsets[i + 1]). */
  const uint32_t *piece_offsets; /* n_tokens + 1 */
  const char *pieces;
  const uint8_t *token_types; /* kiln_token_type */
  const float *scores;        /* SPM: merge priority of each piece */
  /* Token ids ordered by their pieces' bytes (shorter first on a common
   * prefix): the piece-to-id lookup. Pieces are unique. */
  const uint32_t *sorted;
  /* BPE merges: (left id << 32 | right id) ascending, each with its rank
   * (lower merges first) and the id of the merged piece. */
  uint32_t n_merges;
  const uint64_t *merge_pairs;
  const uint32_t *merge_ranks;
  const uint32_t *merge_results;
  /* Tokens matched verbatim in text before pre-tokenization, longest piece
   * first: user-defined always, control and unknown with
   * KILN_TOKENIZE_PARSE_SPECIAL. */
  uint32_t n_special;
  const uint32_t *special;
  /* The token of each byte: BPE the token of the byte's character in the
   * byte-to-unicode map, SPM the <0xNN> token; -1 where there is none. */
  int32_t byte_tokens[256];
  int32_t bos, eos, eot, eom, unk; /* -1 when the vocabulary has none */
  /* KILN_TOKEN_LSTRIP / RSTRIP of each token, or NULL for none: a special
   * token cut out of text takes the whitespace before / after it along. */
  const uint8_t *token_attrs;
} kiln_vocab;

#define KILN_TOKEN_LSTRIP 0x1u
#define KILN_TOKEN_RSTRIP 0x2u

/* kiln_tokenize flags */
#define KILN_TOKENIZE_ADD_SPECIAL 0x1u   /* BOS/EOS as the vocabulary says */
#define KILN_TOKENIZE_PARSE_SPECIAL 0x2u /* control tokens written in text */

/* Scratch bytes kiln_tokenize needs for `len` bytes of text. */
kiln_status kiln_tokenize_scratch(const kiln_vocab *vocab, size_t len,
                                  size_t *bytes);

/* Token ids of text[0 .. len). *n_ids is the number of ids the whole text
 * needs; when it exceeds max_ids, the first max_ids are written and the
 * status is KILN_ERR_OUTPUT_TOO_SMALL. */
kiln_status kiln_tokenize(const kiln_vocab *vocab, const char *text,
                          size_t len, uint32_t flags, void *scratch,
                          size_t scratch_bytes, int32_t *ids, size_t max_ids,
                          size_t *n_ids);

/* kiln_detokenize flags */
#define KILN_DETOKENIZE_SPECIAL 0x1u /* write control tokens' pieces */
/* SPM: keep the space of the first piece (ids that continue a text). */
#define KILN_DETOKENIZE_CONTINUATION 0x2u

/* The bytes of ids[0 .. n). *n_bytes is the length of the whole text; when
 * it exceeds cap, the first cap bytes are written and the status is
 * KILN_ERR_OUTPUT_TOO_SMALL. */
kiln_status kiln_detokenize(const kiln_vocab *vocab, const int32_t *ids,
                            size_t n, uint32_t flags, char *text, size_t cap,
                            size_t *n_bytes);

/* The byte a byte token's piece stands for: "<0xHH>" with exactly two hex
 * digits; -1 for any other piece. */
int kiln_byte_token(const char *piece, size_t len);

/* The UTF-8 of the character that stands for `byte` in byte-level BPE
 * pieces (GPT-2's byte-to-unicode map: printable Latin-1 bytes stand for
 * themselves, the other 68 for U+0100.. in byte order). Returns its length,
 * 1 or 2. */
size_t kiln_bpe_byte_char(unsigned char byte, char out[2]);

/* Length of the longest prefix of text[0 .. len) that does not end inside a
 * UTF-8 sequence: what a streaming printer may write now. */
size_t kiln_utf8_complete(const char *text, size_t len);

#ifdef __cplusplus
}
#endif

#endif
