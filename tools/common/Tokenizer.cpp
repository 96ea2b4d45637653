//===- Tokenizer.cpp - SentencePiece tokenizer from a GGUF's vocabulary ---===//
#include "tools/common/Tokenizer.h"
#include "compiler/frontend/gguf/GGUF.h"

#include <cstdio>
#include <queue>

using namespace kiln;

static const char kSpace[] = "\xe2\x96\x81"; // U+2581, SentencePiece's space

// "<0xHH>" with exactly two hex digits. (sscanf's %2X also takes a sign or a
// space, so "<0x-1>" once became byte 0xffffffff and an index far out of
// bounds.)
static bool parseByteToken(const std::string &p, unsigned &v) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  if (p.size() != 6 || p.compare(0, 3, "<0x") != 0 || p[5] != '>' ||
      hex(p[3]) < 0 || hex(p[4]) < 0)
    return false;
  v = (unsigned)(hex(p[3]) * 16 + hex(p[4]));
  return true;
}

bool Tokenizer::load(const gguf::File &file, std::string &error) {
  auto fail = [&](const std::string &msg) {
    error = file.path() + ": " + msg;
    return false;
  };
  auto model = file.getString("tokenizer.ggml.model");
  if (!model)
    return fail("no tokenizer: missing key 'tokenizer.ggml.model'");
  if (*model != "llama")
    return fail("tokenizer.ggml.model is '" + *model +
                "'; only the SentencePiece tokenizer 'llama' is supported");
  auto array = [&](const char *key, gguf::ValueType elem,
                   const gguf::Value *&out) {
    out = file.find(key);
    if (!out)
      return fail(std::string("missing key '") + key + "'");
    if (out->type != gguf::ValueType::ARRAY || out->elemType != elem)
      return fail(std::string("key '") + key + "' must be an array of " +
                  gguf::valueTypeName(elem));
    return true;
  };
  const gguf::Value *toks, *sc, *ty;
  if (!array("tokenizer.ggml.tokens", gguf::ValueType::STRING, toks) ||
      !array("tokenizer.ggml.scores", gguf::ValueType::FLOAT32, sc) ||
      !array("tokenizer.ggml.token_type", gguf::ValueType::INT32, ty))
    return false;
  const size_t n = toks->arr.size();
  if (n == 0 || sc->arr.size() != n || ty->arr.size() != n)
    return fail("tokenizer.ggml.tokens, scores and token_type must have the "
                "same, non-zero length (" + std::to_string(n) + ", " +
                std::to_string(sc->arr.size()) + ", " +
                std::to_string(ty->arr.size()) + ")");
  pieces.clear();
  scores.clear();
  types.clear();
  mergeable.clear();
  haveBytes = true;
  for (int &b : byteIds)
    b = -1;
  for (size_t i = 0; i < n; ++i) {
    pieces.push_back(toks->arr[i].s);
    scores.push_back((float)sc->arr[i].f);
    types.push_back((int32_t)ty->arr[i].i);
    const std::string &p = pieces.back();
    switch (types.back()) {
    case Normal:
    case UserDefined:
      mergeable.emplace(p, (int32_t)i);
      break;
    case Byte: {
      unsigned v;
      if (!parseByteToken(p, v))
        return fail("byte token " + std::to_string(i) + " '" + p +
                    "' is not of the form <0xNN>");
      byteIds[v] = (int32_t)i;
      break;
    }
    case Unknown:
    case Control:
    case Unused:
      break;
    default:
      return fail("token " + std::to_string(i) + " has unknown token_type " +
                  std::to_string(types.back()));
    }
  }
  for (int b : byteIds)
    haveBytes = haveBytes && b >= 0;
  auto id = [&](const char *key, int32_t &out) {
    if (auto v = file.getUInt(key)) {
      if (*v >= n)
        return fail(std::string("key '") + key + "' = " + std::to_string(*v) +
                    " is not a token id (vocabulary of " + std::to_string(n) +
                    ")");
      out = (int32_t)*v;
    }
    return true;
  };
  if (!id("tokenizer.ggml.unknown_token_id", unkId) ||
      !id("tokenizer.ggml.bos_token_id", bosId) ||
      !id("tokenizer.ggml.eos_token_id", eosId))
    return false;
  if (auto *v = file.find("tokenizer.ggml.add_bos_token"))
    addBos = v->type == gguf::ValueType::BOOL ? v->b : addBos;
  return true;
}

// Length of the UTF-8 character starting with byte `c` (1 for a stray byte).
static size_t utf8Length(unsigned char c) {
  if (c < 0x80)
    return 1;
  if ((c >> 5) == 0x6)
    return 2;
  if ((c >> 4) == 0xe)
    return 3;
  if ((c >> 3) == 0x1e)
    return 4;
  return 1;
}

std::vector<int32_t> Tokenizer::encode(const std::string &text,
                                       bool withBos) const {
  std::vector<int32_t> out;
  if (withBos)
    out.push_back(bosId);
  if (text.empty())
    return out;
  std::string s = kSpace; // the dummy prefix
  for (char c : text) {
    if (c == ' ')
      s += kSpace;
    else
      s += c;
  }

  // Symbols: a doubly linked list over byte ranges of `s`.
  struct Sym {
    int prev, next;
    size_t at, len;
  };
  std::vector<Sym> syms;
  for (size_t at = 0; at < s.size();) {
    size_t len = std::min(utf8Length((unsigned char)s[at]), s.size() - at);
    syms.push_back({(int)syms.size() - 1, (int)syms.size() + 1, at, len});
    at += len;
  }
  syms.back().next = -1;

  struct Pair {
    int left, right;
    float score;
    size_t len; // of the merged piece, to notice stale entries
  };
  auto worse = [](const Pair &a, const Pair &b) {
    // Highest score first; on a tie the leftmost pair.
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  };
  std::priority_queue<Pair, std::vector<Pair>, decltype(worse)> agenda(worse);
  auto consider = [&](int l, int r) {
    if (l < 0 || r < 0)
      return;
    auto it = mergeable.find(s.substr(syms[l].at, syms[l].len + syms[r].len));
    if (it != mergeable.end())
      agenda.push({l, r, scores[it->second], syms[l].len + syms[r].len});
  };
  for (size_t i = 0; i + 1 < syms.size(); ++i)
    consider((int)i, (int)i + 1);
  while (!agenda.empty()) {
    Pair p = agenda.top();
    agenda.pop();
    Sym &l = syms[p.left], &r = syms[p.right];
    // Stale: one side was merged away or grew since the pair was queued.
    if (l.len == 0 || r.len == 0 || l.next != p.right ||
        l.len + r.len != p.len)
      continue;
    l.len += r.len;
    l.next = r.next;
    if (r.next >= 0)
      syms[r.next].prev = p.left;
    r.len = 0;
    consider(l.prev, p.left);
    consider(p.left, l.next);
  }

  for (int i = 0; i >= 0; i = syms[i].next) {
    std::string piece = s.substr(syms[i].at, syms[i].len);
    auto it = mergeable.find(piece);
    if (it != mergeable.end()) {
      out.push_back(it->second);
    } else if (haveBytes) {
      for (unsigned char c : piece)
        out.push_back(byteIds[c]);
    } else {
      out.push_back(unkId);
    }
  }
  return out;
}

std::string Tokenizer::decode(const std::vector<int32_t> &ids,
                              bool first) const {
  std::string out;
  for (int32_t id : ids) {
    if (id < 0 || (size_t)id >= pieces.size())
      continue;
    switch (types[id]) {
    case Control:
    case Unused:
      break;
    case Unknown:
      out += " \xe2\x81\x87 ";
      break;
    case Byte: {
      unsigned v = 0;
      parseByteToken(pieces[id], v); // checked by load()
      out += (char)v;
      break;
    }
    default: {
      const std::string &p = pieces[id];
      for (size_t i = 0; i < p.size();) {
        if (p.compare(i, 3, kSpace) == 0) {
          out += ' ';
          i += 3;
        } else {
          out += p[i++];
        }
      }
    }
    }
  }
  // SentencePiece drops the dummy prefix of the text's first piece.
  if (first && !out.empty() && out[0] == ' ')
    out.erase(0, 1);
  return out;
}
