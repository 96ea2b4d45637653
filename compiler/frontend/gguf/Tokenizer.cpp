//===- Tokenizer.cpp - a GGUF's tokenizer, read and checked into tables ---===//
#include "compiler/frontend/gguf/Tokenizer.h"
#include "compiler/frontend/gguf/GGUF.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <string_view>
#include <unordered_map>

using namespace kiln;

namespace {

// tokenizer.ggml.pre values and what they select, as llama.cpp's vocabulary
// loader defines them: the regular expressions, whether a word that is
// itself a token skips the merges, and whether BOS is added by default.
struct PreTokenizer {
  const char *name;
  kiln_pre_tokenizer pre;
  bool ignoreMerges, addBos;
};

const PreTokenizer kPreTokenizers[] = {
    {"gpt-2", KILN_PRE_GPT2, false, false},
    {"phi-2", KILN_PRE_GPT2, false, false},
    {"mpt", KILN_PRE_GPT2, false, false},
    {"olmo", KILN_PRE_GPT2, false, false},
    {"jais", KILN_PRE_GPT2, false, false},
    {"exaone4", KILN_PRE_GPT2, false, false},
    {"llama3", KILN_PRE_LLAMA3, true, true},
    {"llama-v3", KILN_PRE_LLAMA3, true, true},
    {"llama-bpe", KILN_PRE_LLAMA3, true, true},
    {"falcon3", KILN_PRE_LLAMA3, true, true},
    {"pixtral", KILN_PRE_LLAMA3, true, true},
    {"lfm2", KILN_PRE_LLAMA3, true, true},
    {"dbrx", KILN_PRE_LLAMA3, false, false},
    {"smaug-bpe", KILN_PRE_LLAMA3, false, false},
    {"qwen2", KILN_PRE_QWEN2, false, false},
    {"deepseek-r1-qwen", KILN_PRE_QWEN2, false, false},
    {"stablelm2", KILN_PRE_QWEN2, false, false},
    {"megrez", KILN_PRE_QWEN2, false, false},
    {"qwen35", KILN_PRE_QWEN35, false, false},
    {"starcoder", KILN_PRE_STARCODER, false, false},
    {"smollm", KILN_PRE_STARCODER, false, false},
    {"refact", KILN_PRE_STARCODER, false, false},
    {"command-r", KILN_PRE_STARCODER, false, false},
    {"codeshell", KILN_PRE_STARCODER, false, false},
    {"exaone", KILN_PRE_STARCODER, false, false},
    {"minerva-7b", KILN_PRE_STARCODER, false, false},
    {"falcon", KILN_PRE_FALCON, false, false},
};

const PreTokenizer *findPre(const std::string &name) {
  for (const PreTokenizer &p : kPreTokenizers)
    if (name == p.name)
      return &p;
  return nullptr;
}

// tokenizer.ggml.* keys: read here, or without effect on the ids and the
// text (ids of tokens only an application uses, templates).
const char *const kReadKeys[] = {
    "tokenizer.ggml.model",          "tokenizer.ggml.pre",
    "tokenizer.ggml.tokens",         "tokenizer.ggml.token_type",
    "tokenizer.ggml.scores",         "tokenizer.ggml.merges",
    "tokenizer.ggml.bos_token_id",   "tokenizer.ggml.eos_token_id",
    "tokenizer.ggml.unknown_token_id", "tokenizer.ggml.eot_token_id",
    "tokenizer.ggml.eom_token_id",   "tokenizer.ggml.add_bos_token",
    "tokenizer.ggml.add_eos_token",  "tokenizer.ggml.add_space_prefix",
};
const char *const kNoEffectKeys[] = {
    "tokenizer.ggml.padding_token_id", "tokenizer.ggml.seperator_token_id",
    "tokenizer.ggml.separator_token_id", "tokenizer.ggml.mask_token_id",
    "tokenizer.ggml.cls_token_id",     "tokenizer.ggml.prefix_token_id",
    "tokenizer.ggml.suffix_token_id",  "tokenizer.ggml.middle_token_id",
    "tokenizer.ggml.fim_pre_token_id", "tokenizer.ggml.fim_suf_token_id",
    "tokenizer.ggml.fim_mid_token_id", "tokenizer.ggml.fim_pad_token_id",
    "tokenizer.ggml.fim_rep_token_id", "tokenizer.ggml.fim_sep_token_id",
    // SentencePiece's own normalization flag: llama.cpp's SPM tokenizer
    // does not apply it either, so the ids agree with the peer's.
    "tokenizer.ggml.remove_extra_whitespaces",
};

// Texts llama.cpp takes for the end-of-turn token when no key names one.
const char *const kEndOfTurnTexts[] = {
    "<|eot_id|>",    "<|im_end|>", "<|end|>",          "<end_of_turn>",
    "<|endoftext|>", "<EOT>",      "<|end_of_text|>", "<end_of_utterance>",
};

bool validUtf8(const std::string &s) {
  const auto *p = (const unsigned char *)s.data();
  size_t n = s.size();
  for (size_t i = 0; i < n;) {
    unsigned c = p[i];
    size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                               : (c & 0xf8) == 0xf0  ? 4
                                                     : 0;
    if (len == 0 || n - i < len)
      return false;
    for (size_t k = 1; k < len; ++k)
      if ((p[i + k] & 0xc0) != 0x80)
        return false;
    i += len;
  }
  return true;
}

// "<0xHH>" with exactly two hex digits. (sscanf's %2X also takes a sign or a
// space, so "<0x-1>" once became byte 0xffffffff and an index far out of
// bounds.)
bool parseByteToken(const std::string &p, unsigned &v) {
  int b = kiln_byte_token(p.data(), p.size());
  if (b < 0)
    return false;
  v = (unsigned)b;
  return true;
}

std::string byteCharacter(unsigned b) {
  char c[2];
  return std::string(c, kiln_bpe_byte_char((unsigned char)b, c));
}

// A piece for a message: control bytes, and every byte of a piece that is
// not UTF-8, as \xNN.
std::string quoted(const std::string &s) {
  const bool raw = !validUtf8(s);
  std::string out = "'";
  for (unsigned char c : s.substr(0, 40)) {
    if (c < 0x20 || c == 0x7f || (raw && c >= 0x80)) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += (char)c;
    }
  }
  return out + (s.size() > 40 ? "...'" : "'");
}

} // namespace

kiln_pre_tokenizer kiln::preTokenizerNamed(const std::string &name) {
  const PreTokenizer *p = findPre(name);
  return p ? p->pre : KILN_PRE_NONE;
}

std::string kiln::knownPreTokenizers() {
  std::string out;
  for (const PreTokenizer &p : kPreTokenizers)
    out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

bool Tokenizer::load(const gguf::File &file, std::string &error) {
  auto fail = [&](const std::string &msg) {
    error = file.path() + ": " + msg;
    return false;
  };
  auto d = std::make_shared<Data>();
  kiln_vocab &v = d->vocab;
  v.version = KILN_VOCAB_VERSION;
  v.bos = v.eos = v.eot = v.eom = v.unk = -1;

  // Keys: each one read below, without effect, or an error.
  for (const auto &kv : file.metadata()) {
    const std::string &key = kv.first;
    if (key.compare(0, 15, "tokenizer.ggml.") != 0)
      continue;
    auto in = [&](const auto &list) {
      return std::find_if(std::begin(list), std::end(list), [&](const char *k) {
               return key == k;
             }) != std::end(list);
    };
    if (!in(kReadKeys) && !in(kNoEffectKeys))
      return fail("tokenizer key '" + key +
                  "' is not supported (it may change how text is tokenized)");
  }

  auto model = file.getString("tokenizer.ggml.model");
  if (!model)
    return fail("no tokenizer: missing key 'tokenizer.ggml.model'");
  d->model = *model;
  const PreTokenizer *pre = nullptr;
  if (*model == "llama") {
    v.kind = KILN_VOCAB_SPM;
    v.flags = KILN_VOCAB_ADD_BOS | KILN_VOCAB_SPACE_PREFIX;
    v.bos = 1;
    v.eos = 2;
    v.unk = 0;
  } else if (*model == "gpt2") {
    v.kind = KILN_VOCAB_BPE;
    auto name = file.getString("tokenizer.ggml.pre");
    if (!name)
      return fail("byte-level BPE vocabulary without 'tokenizer.ggml.pre': "
                  "the pre-tokenizer must be named (one of " +
                  knownPreTokenizers() + ")");
    pre = findPre(*name);
    if (!pre)
      return fail("tokenizer.ggml.pre is '" + *name +
                  "', a pre-tokenizer Kiln does not implement (it implements " +
                  knownPreTokenizers() + ")");
    d->pre = *name;
    v.pre = (uint8_t)pre->pre;
    v.flags = (pre->ignoreMerges ? KILN_VOCAB_IGNORE_MERGES : 0) |
              (pre->addBos ? KILN_VOCAB_ADD_BOS : 0);
  } else {
    return fail("tokenizer.ggml.model is '" + *model +
                "'; Kiln reads 'llama' (SentencePiece) and 'gpt2' (byte-level "
                "BPE) vocabularies");
  }

  auto array = [&](const char *key, gguf::ValueType elem, bool required,
                   const gguf::Value *&out) {
    out = file.find(key);
    if (!out)
      return !required ? true : fail(std::string("missing key '") + key + "'");
    if (out->type != gguf::ValueType::ARRAY || out->elemType != elem)
      return fail(std::string("key '") + key + "' must be an array of " +
                  gguf::valueTypeName(elem));
    return true;
  };
  const bool spm = v.kind == KILN_VOCAB_SPM;
  const gguf::Value *toks, *sc, *ty, *merges;
  if (!array("tokenizer.ggml.tokens", gguf::ValueType::STRING, true, toks) ||
      !array("tokenizer.ggml.scores", gguf::ValueType::FLOAT32, spm, sc) ||
      !array("tokenizer.ggml.token_type", gguf::ValueType::INT32, spm, ty) ||
      !array("tokenizer.ggml.merges", gguf::ValueType::STRING, !spm, merges))
    return false;
  const size_t n = toks->arr.size();
  if (n == 0 || n >= (size_t(1) << 31))
    return fail("tokenizer.ggml.tokens has " + std::to_string(n) +
                " entries; a vocabulary has 1 to 2^31 - 1 tokens");
  if ((sc && sc->arr.size() != n) || (ty && ty->arr.size() != n))
    return fail("tokenizer.ggml.scores and token_type must have one entry per "
                "token (" + std::to_string(n) + "), not " +
                std::to_string(sc ? sc->arr.size() : n) + " and " +
                std::to_string(ty ? ty->arr.size() : n));

  // Pieces, types and scores. (The keys view the file's strings.)
  std::unordered_map<std::string_view, uint32_t> ids;
  ids.reserve(n);
  d->offsets.reserve(n + 1);
  d->offsets.push_back(0);
  for (size_t i = 0; i < n; ++i) {
    const std::string &p = toks->arr[i].s;
    const int64_t type = ty ? ty->arr[i].i : KILN_TOKEN_NORMAL;
    auto at = [&] { return "token " + std::to_string(i) + " " + quoted(p); };
    if (type < KILN_TOKEN_NORMAL || type > KILN_TOKEN_BYTE)
      return fail(at() + " has token_type " + std::to_string(type) +
                  "; expected 1 (normal) to 6 (byte)");
    if (!validUtf8(p))
      return fail(at() + " is not valid UTF-8");
    if (p.empty() && (type == KILN_TOKEN_NORMAL ||
                      type == KILN_TOKEN_USER_DEFINED ||
                      type == KILN_TOKEN_BYTE))
      return fail("token " + std::to_string(i) + " is empty");
    if (!ids.emplace(p, (uint32_t)i).second)
      return fail(at() + " repeats token " + std::to_string(ids[p]) +
                  "; pieces must be unique");
    if (d->pieces.size() + p.size() > UINT32_MAX)
      return fail("tokenizer.ggml.tokens: the pieces exceed 4 GiB");
    d->pieces += p;
    d->offsets.push_back((uint32_t)d->pieces.size());
    d->types.push_back((uint8_t)type);
    if (sc) {
      float s = (float)sc->arr[i].f;
      if (!std::isfinite(s))
        return fail(at() + " has a score that is not finite");
      d->scores.push_back(s);
    }
  }

  // Byte tokens.
  for (int &b : v.byte_tokens)
    b = -1;
  for (size_t i = 0; i < n; ++i) {
    if (d->types[i] != KILN_TOKEN_BYTE)
      continue;
    unsigned b;
    const std::string &p = toks->arr[i].s;
    if (!parseByteToken(p, b))
      return fail("byte token " + std::to_string(i) + " " + quoted(p) +
                  " is not of the form <0xNN>");
    v.byte_tokens[b] = (int32_t)i;
  }
  for (unsigned b = 0; b < 256; ++b) {
    if (!spm) {
      auto it = ids.find(byteCharacter(b));
      v.byte_tokens[b] = it == ids.end() ? -1 : (int32_t)it->second;
    } else if (v.byte_tokens[b] < 0) {
      // Without <0xNN>, llama.cpp falls back to the byte as a piece.
      auto it = ids.find(std::string(1, (char)b));
      if (it != ids.end())
        v.byte_tokens[b] = (int32_t)it->second;
    }
  }

  // Merges: "LEFT RIGHT", split at the first space after the first byte.
  if (merges) {
    struct Merge {
      uint64_t pair;
      uint32_t rank, result;
    };
    std::vector<Merge> list;
    list.reserve(merges->arr.size());
    std::string joined;
    for (size_t r = 0; r < merges->arr.size(); ++r) {
      const std::string &m = merges->arr[r].s;
      auto at = [&] {
        return "tokenizer.ggml.merges[" + std::to_string(r) + "] " + quoted(m);
      };
      size_t space = m.size() > 1 ? m.find(' ', 1) : std::string::npos;
      if (space == std::string::npos)
        return fail(at() + " is not two pieces separated by a space");
      std::string_view left(m.data(), space),
          right(m.data() + space + 1, m.size() - space - 1);
      joined.assign(left).append(right);
      auto l = ids.find(left), rt = ids.find(right), res = ids.find(joined);
      if (l == ids.end() || rt == ids.end())
        return fail(at() + " names a piece that is not a token");
      if (res == ids.end())
        return fail(at() + " merges into " + quoted(joined) +
                    ", which is not a token");
      list.push_back({((uint64_t)l->second << 32) | rt->second, (uint32_t)r,
                      res->second});
    }
    // A pair listed twice keeps its first (lowest) rank, as llama.cpp does.
    std::stable_sort(list.begin(), list.end(),
                     [](const Merge &a, const Merge &b) { return a.pair < b.pair; });
    for (size_t k = 0; k < list.size(); ++k) {
      if (k && list[k].pair == list[k - 1].pair)
        continue;
      d->mergePairs.push_back(list[k].pair);
      d->mergeRanks.push_back(list[k].rank);
      d->mergeResults.push_back(list[k].result);
    }
  }

  // Special token ids.
  auto id = [&](const char *key, int32_t &out) {
    const gguf::Value *val = file.find(key);
    if (!val)
      return true;
    auto u = file.getUInt(key);
    if (!u && !gguf::isSignedInteger(val->type))
      return fail(std::string("key '") + key + "' is a " +
                  gguf::valueTypeName(val->type) +
                  "; a token id is an integer below " + std::to_string(n));
    if (!u || *u >= n)
      return fail(std::string("key '") + key + "' must be a token id below " +
                  std::to_string(n));
    out = (int32_t)*u;
    return true;
  };
  if (!id("tokenizer.ggml.bos_token_id", v.bos) ||
      !id("tokenizer.ggml.eos_token_id", v.eos) ||
      !id("tokenizer.ggml.unknown_token_id", v.unk) ||
      !id("tokenizer.ggml.eot_token_id", v.eot) ||
      !id("tokenizer.ggml.eom_token_id", v.eom))
    return false;
  if (spm && (size_t)v.bos >= n)
    v.bos = -1;
  if (spm && (size_t)v.eos >= n)
    v.eos = -1;
  if (spm && (size_t)v.unk >= n)
    v.unk = -1;
  if (v.eot < 0) {
    for (const char *t : kEndOfTurnTexts) {
      auto it = ids.find(t);
      if (it != ids.end()) {
        v.eot = (int32_t)it->second;
        // llama.cpp treats it as a control token whatever its type says.
        d->types[it->second] = KILN_TOKEN_CONTROL;
        break;
      }
    }
  }
  if (v.eom < 0) {
    auto it = ids.find("<|eom_id|>");
    if (it != ids.end())
      v.eom = (int32_t)it->second;
  }
  auto flag = [&](const char *key, uint8_t bit) {
    const gguf::Value *val = file.find(key);
    if (!val)
      return true;
    if (val->type != gguf::ValueType::BOOL)
      return fail(std::string("key '") + key + "' must be a BOOL");
    v.flags = (uint8_t)(val->b ? (v.flags | bit) : (v.flags & ~bit));
    return true;
  };
  if (!flag("tokenizer.ggml.add_bos_token", KILN_VOCAB_ADD_BOS) ||
      !flag("tokenizer.ggml.add_eos_token", KILN_VOCAB_ADD_EOS) ||
      !flag("tokenizer.ggml.add_space_prefix", KILN_VOCAB_SPACE_PREFIX))
    return false;
  if ((v.flags & KILN_VOCAB_ADD_BOS) && v.bos < 0)
    return fail("tokenizer.ggml.add_bos_token is set but the vocabulary has "
                "no BOS token (tokenizer.ggml.bos_token_id)");
  if ((v.flags & KILN_VOCAB_ADD_EOS) && v.eos < 0)
    return fail("tokenizer.ggml.add_eos_token is set but the vocabulary has "
                "no EOS token (tokenizer.ggml.eos_token_id)");
  if (!spm && (v.flags & KILN_VOCAB_SPACE_PREFIX))
    return fail("tokenizer.ggml.add_space_prefix is set on a byte-level BPE "
                "vocabulary; Kiln implements it for SentencePiece only");

  // Lookup order and the special tokens cut out of text, longest first.
  d->sorted.resize(n);
  for (size_t i = 0; i < n; ++i)
    d->sorted[i] = (uint32_t)i;
  auto text = [&](uint32_t i) {
    return std::string_view(d->pieces).substr(d->offsets[i],
                                              d->offsets[i + 1] - d->offsets[i]);
  };
  std::sort(d->sorted.begin(), d->sorted.end(),
            [&](uint32_t a, uint32_t b) { return text(a) < text(b); });
  for (size_t i = 0; i < n; ++i) {
    uint8_t t = d->types[i];
    if ((t == KILN_TOKEN_CONTROL || t == KILN_TOKEN_USER_DEFINED ||
         t == KILN_TOKEN_UNKNOWN) &&
        !text((uint32_t)i).empty())
      d->special.push_back((uint32_t)i);
  }
  std::stable_sort(d->special.begin(), d->special.end(),
                   [&](uint32_t a, uint32_t b) {
                     return text(a).size() > text(b).size();
                   });

  // Whitespace special tokens take along, as llama.cpp sets it by model
  // name: Phi-3's special tokens strip what follows them (except <unk>, <s>
  // and <|endoftext|>).
  std::string name = file.getString("general.name").value_or("");
  for (char &c : name)
    c = (char)std::tolower((unsigned char)c);
  if (name.find("phi-3") != std::string::npos ||
      name.find("phi3") != std::string::npos) {
    d->attrs.assign(n, 0);
    for (uint32_t id : d->special)
      d->attrs[id] = KILN_TOKEN_RSTRIP;
    if (auto it = ids.find("</s>"); it != ids.end())
      d->attrs[it->second] = KILN_TOKEN_RSTRIP;
    for (const char *t : {"<unk>", "<s>", "<|endoftext|>"})
      if (auto it = ids.find(t); it != ids.end())
        d->attrs[it->second] = 0;
  }

  v.n_tokens = (uint32_t)n;
  v.piece_offsets = d->offsets.data();
  v.pieces = d->pieces.data();
  v.token_types = d->types.data();
  v.scores = d->scores.empty() ? nullptr : d->scores.data();
  v.sorted = d->sorted.data();
  v.n_merges = (uint32_t)d->mergePairs.size();
  v.merge_pairs = d->mergePairs.data();
  v.merge_ranks = d->mergeRanks.data();
  v.merge_results = d->mergeResults.data();
  v.n_special = (uint32_t)d->special.size();
  v.special = d->special.data();
  v.token_attrs = d->attrs.empty() ? nullptr : d->attrs.data();
  data = std::move(d);
  return true;
}

std::vector<int32_t> Tokenizer::encode(const std::string &text,
                                       bool addSpecial,
                                       bool parseSpecial) const {
  const kiln_vocab &v = vocab();
  size_t scratchBytes = 0;
  if (kiln_tokenize_scratch(&v, text.size(), &scratchBytes) != KILN_OK)
    return {};
  std::vector<char> scratch(scratchBytes);
  uint32_t flags = (addSpecial ? KILN_TOKENIZE_ADD_SPECIAL : 0) |
                   (parseSpecial ? KILN_TOKENIZE_PARSE_SPECIAL : 0);
  // Usually fewer ids than bytes; one retry when not.
  std::vector<int32_t> ids(text.size() / 2 + 4);
  size_t count = 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    kiln_status st = kiln_tokenize(&v, text.data(), text.size(), flags,
                                   scratch.data(), scratch.size(), ids.data(),
                                   ids.size(), &count);
    if (st == KILN_OK)
      break;
    if (st != KILN_ERR_OUTPUT_TOO_SMALL)
      return {};
    ids.resize(count);
  }
  ids.resize(count);
  return ids;
}

std::string Tokenizer::decode(const std::vector<int32_t> &ids, bool first,
                              bool special) const {
  const kiln_vocab &v = vocab();
  std::vector<int32_t> valid;
  valid.reserve(ids.size());
  for (int32_t id : ids)
    if (id >= 0 && (uint32_t)id < v.n_tokens)
      valid.push_back(id);
  uint32_t flags = (first ? 0 : KILN_DETOKENIZE_CONTINUATION) |
                   (special ? KILN_DETOKENIZE_SPECIAL : 0);
  size_t len = 0;
  kiln_detokenize(&v, valid.data(), valid.size(), flags, nullptr, 0, &len);
  std::string out(len, '\0');
  if (len)
    kiln_detokenize(&v, valid.data(), valid.size(), flags, out.data(),
                    out.size(), &len);
  return out;
}

bool Tokenizer::endsGeneration(int32_t id) const {
  const kiln_vocab &v = vocab();
  return id >= 0 && (id == v.eos || id == v.eot || id == v.eom);
}
