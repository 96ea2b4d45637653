//===- kiln-tokenize.cpp - a GGUF's tokenizer on the command line ---------===//
//
//   kiln-tokenize MODEL --encode="In the beginning"    -> 1 532 264 1129
//   kiln-tokenize MODEL --encode-file=FILE --no-bos    -> ids of the file
//   kiln-tokenize MODEL --decode="532 264 1129"        -> In the beginning
//
// For programs that link a compiled model but carry no tokenizer (the demo):
// encode the prompt before, decode the ids they print after. Reads only the
// GGUF's tokenizer.ggml.* keys (tools/common/Tokenizer.h).
//
#include "compiler/frontend/gguf/GGUF.h"
#include "tools/common/Tokenizer.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

using namespace kiln;

static int usage() {
  std::fprintf(stderr,
               "usage: kiln-tokenize MODEL.gguf (--encode=TEXT | "
               "--encode-file=FILE) [--no-bos]\n"
               "       kiln-tokenize MODEL.gguf --decode=\"ID ID ...\" "
               "[--continuation]\n"
               "  --continuation  keep the leading space of the first piece "
               "(ids that follow a prompt)\n");
  return 2;
}

static int fail(const std::string &msg) {
  std::fprintf(stderr, "kiln-tokenize: error: %s\n", msg.c_str());
  return 1;
}

int main(int argc, char **argv) {
  std::string model, encode, decode;
  bool haveEncode = false, haveDecode = false, bos = true, cont = false;
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
      std::ifstream in(file, std::ios::binary);
      if (!in)
        return fail("cannot read --encode-file=" + file);
      std::stringstream ss;
      ss << in.rdbuf();
      encode = ss.str();
      haveEncode = true;
    } else if (value("decode", decode)) {
      haveDecode = true;
    } else if (a == "--no-bos") {
      bos = false;
    } else if (a == "--continuation") {
      cont = true;
    } else if (a == "--help" || a == "-h") {
      return usage(), 0;
    } else if (a.size() > 1 && a[0] == '-') {
      return fail("unknown option '" + a + "'");
    } else if (model.empty()) {
      model = a;
    } else {
      return fail("more than one model given: '" + a + "'");
    }
  }
  if (model.empty() || haveEncode == haveDecode)
    return usage();

  std::string error;
  auto file = gguf::File::open(model, error);
  if (!file)
    return fail(error);
  Tokenizer tok;
  if (!tok.load(*file, error))
    return fail(error);

  if (haveEncode) {
    std::vector<int32_t> ids = tok.encode(encode, bos);
    for (size_t i = 0; i < ids.size(); ++i)
      std::printf("%s%d", i ? " " : "", ids[i]);
    std::printf("\n");
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
  std::string text = tok.decode(ids, !cont);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::printf("\n");
  return 0;
}
