//===- kiln-tokenize.cpp - a GGUF's tokenizer on the command line ---------===//
//
//   kiln-tokenize MODEL --encode="In the beginning"    -> 1 532 264 1129
//   kiln-tokenize MODEL --encode-file=FILE --no-bos    -> ids of the file
//   kiln-tokenize MODEL --encode-file=FILE --separator='\n'
//                                                  -> a line of ids per line
//   kiln-tokenize MODEL --decode="532 264 1129"        -> In the beginning
//   kiln-tokenize MODEL --info                         -> kind, size, ids
//
// For programs that link a compiled model but carry no tokenizer: encode the
// prompt before, decode the ids they print after. Reads only the GGUF's
// tokenizer.ggml.* keys (compiler/frontend/gguf/Tokenizer.h); SentencePiece ("llama")
// and byte-level BPE ("gpt2") vocabularies.
//
#include "compiler/frontend/gguf/GGUF.h"
#include "compiler/frontend/gguf/Tokenizer.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

using namespace kiln;

static void printUsage(FILE *to) {
  std::fprintf(
      to,
      "usage: kiln-tokenize MODEL.gguf (--encode=TEXT | --encode-file=FILE) "
      "[--separator=SEP]\n"
      "                          [--no-bos] [--parse-special]\n"
      "       kiln-tokenize MODEL.gguf --decode=\"ID ID ...\" "
      "[--continuation] [--special]\n"
      "       kiln-tokenize MODEL.gguf --info\n"
      "  --no-bos         add neither BOS nor EOS (by default they are added "
      "as\n"
      "                   tokenizer.ggml.add_bos_token / add_eos_token say)\n"
      "  --separator=SEP  encode each part of the text between SEPs on its own "
      "line\n"
      "                   (\\n, \\t and \\\\ are escapes)\n"
      "  --parse-special  control tokens written in the text "
      "(<|begin_of_text|>)\n"
      "                   are those tokens, not their characters\n"
      "  --continuation   keep the leading space of the first piece (ids that "
      "follow\n"
      "                   a prompt; SentencePiece)\n"
      "  --special        write control tokens' text when decoding\n"
      "  --info           the tokenizer's kind, pre-tokenizer, size and "
      "special ids\n");
}

static int usage() {
  printUsage(stderr);
  return 2;
}

static int fail(const std::string &msg) {
  std::fprintf(stderr, "kiln-tokenize: error: %s\n", msg.c_str());
  return 1;
}

// The whole file, or false with the reason: a missing file, or a directory
// (which opens, then fails to read; an empty text would be encoded otherwise).
static bool readWholeFile(const std::string &path, std::string &out,
                          std::string &why) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    why = std::strerror(errno);
    return false;
  }
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    out.append(buf, n);
  const int err = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (err)
    why = std::strerror(err);
  return err == 0;
}

int main(int argc, char **argv) {
  std::string model, encode, decode, separator;
  bool split = false;
  bool haveEncode = false, haveDecode = false, bos = true, cont = false;
  bool parseSpecial = false, special = false, info = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *name, std::string &out) {
      std::string p = std::string("--") + name + "=";
      if (a.compare(0, p.size(), p) != 0)
        return false;
      out = a.substr(p.size());
      return true;
    };
    std::string file;
    if (value("encode", encode)) {
      haveEncode = true;
    } else if (value("encode-file", file)) {
      std::string why;
      if (!readWholeFile(file, encode, why))
        return fail("cannot read --encode-file=" + file + ": " + why);
      haveEncode = true;
    } else if (value("separator", separator)) {
      split = true;
    } else if (value("decode", decode)) {
      haveDecode = true;
    } else if (a == "--no-bos") {
      bos = false;
    } else if (a == "--continuation") {
      cont = true;
    } else if (a == "--parse-special") {
      parseSpecial = true;
    } else if (a == "--special") {
      special = true;
    } else if (a == "--info") {
      info = true;
    } else if (a == "--help" || a == "-h") {
      printUsage(stdout);
      return 0;
    } else if (a.size() > 1 && a[0] == '-') {
      return fail("unknown option '" + a + "'");
    } else if (model.empty()) {
      model = a;
    } else {
      return fail("more than one model given: '" + a + "'");
    }
  }
  if (model.empty() || (int)haveEncode + (int)haveDecode + (int)info != 1)
    return usage();

  std::string error;
  auto file = gguf::File::open(model, error);
  if (!file)
    return fail(error);
  Tokenizer tok;
  if (!tok.load(*file, error))
    return fail(error);

  if (info) {
    const kiln_vocab &v = tok.vocab();
    std::printf("model %s\n", tok.model().c_str());
    if (!tok.preTokenizer().empty())
      std::printf("pre %s\n", tok.preTokenizer().c_str());
    std::printf("tokens %u\nmerges %u\nspecial %u\n", v.n_tokens, v.n_merges,
                v.n_special);
    std::printf("bos %d\neos %d\neot %d\neom %d\nunk %d\n", v.bos, v.eos,
                v.eot, v.eom, v.unk);
    std::printf("add_bos %d\nadd_eos %d\n", !!(v.flags & KILN_VOCAB_ADD_BOS),
                !!(v.flags & KILN_VOCAB_ADD_EOS));
    return 0;
  }
  if (haveEncode) {
    std::vector<std::string> parts;
    if (split) {
      std::string sep;
      for (size_t i = 0; i < separator.size(); ++i) {
        char c = separator[i];
        if (c == '\\' && i + 1 < separator.size()) {
          char e = separator[++i];
          c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
        }
        sep += c;
      }
      if (sep.empty())
        return fail("--separator is empty");
      size_t pos = 0;
      for (size_t next; (next = encode.find(sep, pos)) != std::string::npos;
           pos = next + sep.size())
        parts.push_back(encode.substr(pos, next - pos));
      if (pos < encode.size())
        parts.push_back(encode.substr(pos));
    } else {
      parts.push_back(encode);
    }
    for (const std::string &part : parts) {
      std::vector<int32_t> ids = tok.encode(part, bos, parseSpecial);
      for (size_t i = 0; i < ids.size(); ++i)
        std::printf("%s%d", i ? " " : "", ids[i]);
      std::printf("\n");
    }
    return 0;
  }
  std::vector<int32_t> ids;
  std::istringstream in(decode);
  for (std::string part; in >> part;) {
    char *end = nullptr;
    long v = std::strtol(part.c_str(), &end, 10);
    if (*end || v < 0 || (size_t)v >= tok.size())
      return fail("--decode: '" + part + "' is not a token id below " +
                  std::to_string(tok.size()));
    ids.push_back((int32_t)v);
  }
  std::string text = tok.decode(ids, !cont, special);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::printf("\n");
  return 0;
}
