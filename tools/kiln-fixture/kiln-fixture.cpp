//===- kiln-fixture.cpp - small random-weight GGUF models for tests -------===//
//
// Writes llama, qwen2, qwen3, phi3 or gemma3 GGUFs with deterministic random weights, in any weight
// type Kiln reads, with an SPM vocabulary (<unk>, <s>, </s>, the 256 byte
// tokens, then filler pieces) or a byte-level BPE one (--tokenizer=bpe), so
// other GGUF readers accept the files too.
//
#include "compiler/frontend/gguf/GGUFWriter.h"
#include "compiler/support/Quant.h"
#include "kiln/kiln_tokenizer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

using namespace kiln::gguf;

namespace {
struct Config {
  std::string arch = "llama", out;
  std::string tokenizer = "spm", pre = "llama-bpe", vocabFrom;
  int64_t width = 64, layers = 2, heads = 4, kvHeads = 2, ffn = 128,
          vocab = 320, context = 256, headDim = 0;
  GGMLType type = GGMLType::F32, embdType = GGMLType::F32;
  GGMLType outType = GGMLType::F32;
  bool tied = false, u64Keys = false, outTypeSet = false, ropeFreqs = false;
  bool longRope = false;
  int64_t swa = 8, swaPattern = 3; // gemma3
  // Fault injection for tests of the importer's error messages.
  std::vector<std::string> dropKeys, dropTensors;
  std::vector<std::string> addKeys, addTensors; // KEY:TYPE=VALUE, NAME:D0,D1
  std::vector<std::pair<std::regex, GGMLType>> tensorTypes; // --tensor-type
  std::optional<GGMLType> recipe; // --recipe: a llama.cpp mix's base type
  std::string setArch;
  uint32_t version = 3;
  uint64_t seed = 1;
  float ropeTheta = 10000.0f, eps = 1e-5f;
};

// splitmix64: the same stream on every platform, unlike <random>'s
// distributions.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform() { return (float)((next() >> 11) * (1.0 / 9007199254740992.0)); }
  // Sum of uniforms: close enough to normal for weights, and deterministic.
  float normal() {
    float s = 0;
    for (int i = 0; i < 4; ++i)
      s += uniform();
    return (s - 2.0f) * 1.7320508f;
  }
};

void usage() {
  fprintf(stderr,
          "usage: kiln-fixture -o OUT.gguf [options]\n"
          "  --arch=llama|qwen2|qwen3|phi3 architecture (default llama); qwen3\n"
          "                         has per-head q/k norms and no biases, phi3\n"
          "                         fused attn_qkv and ffn_up (gate and up)\n"
          "  --arch=gemma3          q/k norms, post-attention and post-FFN norms,\n"
          "                         GELU gate, sliding-window layers:\n"
          "  --swa=N --swa-pattern=P  window N (default 8), every Pth layer\n"
          "                         global (default 3; RoPE base 10000 on the\n"
          "                         others)\n"
          "  --long-rope            phi3: LongRoPE factors (rope_factors_long/\n"
          "                         short), original context = context / 2,\n"
          "                         rope.scaling.attn_factor\n"
          "  --width=N --layers=N --heads=N --kv-heads=N --ffn=N --vocab=N\n"
          "  --head-dim=N           attention.key_length/value_length N (default:\n"
          "                         width / heads, and no such keys)\n"
          "  --context=N            context_length key (default 256)\n"
          "  --type=T               matmul weight type: f32 f16 bf16 q4_0 q4_1\n"
          "                         q5_0 q5_1 q8_0 q2_k q3_k q4_k q5_k q6_k\n"
          "                         iq4_nl iq4_xs\n"
          "  --embd-type=T          token_embd type (default f32)\n"
          "  --output-type=T        output.weight type (default: --type)\n"
          "  --tied                 no output.weight (tied to token_embd)\n"
          "  --tokenizer=spm|bpe    SentencePiece vocabulary (default) or a\n"
          "                         byte-level BPE one: <|begin_of_text|>,\n"
          "                         <|end_of_text|>, <|eot_id|>, the 256 byte\n"
          "                         characters, then merged letter pairs\n"
          "  --pre=NAME             tokenizer.ggml.pre of the BPE vocabulary\n"
          "                         (default llama-bpe)\n"
          "  --vocab-from=FILE.gguf the tokenizer.* keys, general.name and the\n"
          "                         vocabulary size of another GGUF\n"
          "  --rope-theta=F --seed=N --version=2|3\n"
          "  --rope-freqs           llama3 RoPE frequency factors (rope_freqs.weight:\n"
          "                         1 for the fastest pair rising to 8 for the slowest)\n"
          "  --u64-keys             store hyperparameters as UINT64\n"
          "fault injection (for tests of error messages):\n"
          "  --drop-key=KEY --drop-tensor=NAME (repeatable) --set-arch=NAME\n"
          "  --recipe=q4_k_m|q5_k_m llama.cpp's mix: q4_k / q5_k, q6_k for the output\n"
          "                         matrix (the embedding if --tied) and for attn_v,\n"
          "                         attn_qkv and ffn_down of the layers llama.cpp's\n"
          "                         use_more_bits picks (overrides the types above)\n"
          "  --tensor-type=REGEX=TYPE   matmul weights whose name matches get TYPE\n"
          "                         (repeatable, first match wins; e.g. llama.cpp's\n"
          "                         Q4_K_M: --type=q4_k --tensor-type='attn_v|ffn_down=q6_k'\n"
          "                         --output-type=q6_k)\n"
          "  --add-key=KEY:u32|f32|str=VALUE   an extra metadata key, or one that\n"
          "                                    replaces the fixture's (repeatable)\n"
          "  --add-tensor=NAME:D0[,D1...]      an extra f32 tensor of random\n"
          "                                    values, GGUF dimension order\n");
}

bool parseType(const char *s, GGMLType &t) {
  auto v = typeFromName(s);
  if (!v) {
    fprintf(stderr, "kiln-fixture: error: unknown type '%s'\n", s);
    return false;
  }
  t = *v;
  return true;
}

std::vector<std::string> droppedTensors;

void addTensor(Writer &w, Rng &rng, const std::string &name,
               std::vector<uint64_t> dims, GGMLType type, float scale,
               float offset = 0.0f) {
  uint64_t n = 1;
  for (uint64_t d : dims)
    n *= d;
  std::vector<float> v(n);
  for (float &x : v)
    x = offset + scale * rng.normal();
  std::vector<uint8_t> bytes(rowBytes(type, (int64_t)n));
  quantize(type, v.data(), bytes.data(), (int64_t)n);
  for (const std::string &d : droppedTensors)
    if (d == name)
      return; // the random stream advances as if it were written
  w.addTensor(name, std::move(dims), type, bytes.data(), bytes.size());
}
} // namespace

int main(int argc, char **argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char *flag) -> const char * {
      size_t n = strlen(flag);
      return a.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    const char *v;
    if (a == "-o" && i + 1 < argc) c.out = argv[++i];
    else if ((v = val("--arch="))) c.arch = v;
    else if ((v = val("--width="))) c.width = atoll(v);
    else if ((v = val("--layers="))) c.layers = atoll(v);
    else if ((v = val("--heads="))) c.heads = atoll(v);
    else if ((v = val("--kv-heads="))) c.kvHeads = atoll(v);
    else if ((v = val("--ffn="))) c.ffn = atoll(v);
    else if ((v = val("--head-dim="))) c.headDim = atoll(v);
    else if ((v = val("--vocab="))) c.vocab = atoll(v);
    else if ((v = val("--context="))) c.context = atoll(v);
    else if ((v = val("--type="))) { if (!parseType(v, c.type)) return 2; }
    else if ((v = val("--embd-type="))) { if (!parseType(v, c.embdType)) return 2; }
    else if ((v = val("--output-type="))) { if (!parseType(v, c.outType)) return 2; c.outTypeSet = true; }
    else if ((v = val("--rope-theta="))) c.ropeTheta = (float)atof(v);
    else if ((v = val("--seed="))) c.seed = strtoull(v, nullptr, 10);
    else if ((v = val("--version="))) c.version = (uint32_t)atoi(v);
    else if ((v = val("--drop-key="))) c.dropKeys.push_back(v);
    else if ((v = val("--drop-tensor="))) c.dropTensors.push_back(v);
    else if ((v = val("--set-arch="))) c.setArch = v;
    else if ((v = val("--add-key="))) c.addKeys.push_back(v);
    else if ((v = val("--tokenizer="))) c.tokenizer = v;
    else if ((v = val("--pre="))) c.pre = v;
    else if ((v = val("--vocab-from="))) c.vocabFrom = v;
    else if ((v = val("--add-tensor="))) c.addTensors.push_back(v);
    else if ((v = val("--recipe="))) {
      c.recipe = mixBaseType(v);
      if (!c.recipe) {
        fprintf(stderr, "kiln-fixture: error: unknown --recipe '%s' (valid: q4_k_m, q5_k_m)\n", v);
        return 2;
      }
    }
    else if ((v = val("--tensor-type="))) {
      std::string spec = v;
      size_t eq = spec.rfind('=');
      GGMLType t;
      if (eq == std::string::npos || !parseType(spec.c_str() + eq + 1, t)) {
        fprintf(stderr, "kiln-fixture: error: --tensor-type=%s: expected REGEX=TYPE\n", v);
        return 2;
      }
      try {
        c.tensorTypes.push_back({std::regex(spec.substr(0, eq)), t});
      } catch (const std::regex_error &e) {
        fprintf(stderr, "kiln-fixture: error: --tensor-type=%s: %s\n", v, e.what());
        return 2;
      }
    }
    else if (a == "--tied") c.tied = true;
    else if (a == "--rope-freqs") c.ropeFreqs = true;
    else if (a == "--long-rope") c.longRope = true;
    else if ((v = val("--swa="))) c.swa = atoll(v);
    else if ((v = val("--swa-pattern="))) c.swaPattern = atoll(v);
    else if (a == "--u64-keys") c.u64Keys = true;
    else if (a == "--help" || a == "-h") { usage(); return 0; }
    else {
      fprintf(stderr, "kiln-fixture: error: unknown option '%s'\n", argv[i]);
      usage();
      return 2;
    }
  }
  if (!c.outTypeSet)
    c.outType = c.type;
  if (c.out.empty()) {
    usage();
    return 2;
  }
  if (c.arch != "llama" && c.arch != "qwen2" && c.arch != "qwen3" &&
      c.arch != "phi3" && c.arch != "gemma3") {
    fprintf(stderr, "kiln-fixture: error: --arch must be llama, qwen2, qwen3, "
                    "phi3 or gemma3\n");
    return 2;
  }
  std::unique_ptr<File> vocabFile;
  if (!c.vocabFrom.empty()) {
    std::string error;
    vocabFile = File::open(c.vocabFrom, error);
    const Value *toks = vocabFile ? vocabFile->find("tokenizer.ggml.tokens") : nullptr;
    if (!toks) {
      fprintf(stderr, "kiln-fixture: error: --vocab-from=%s: %s\n",
              c.vocabFrom.c_str(),
              vocabFile ? "no tokenizer.ggml.tokens" : error.c_str());
      return 2;
    }
    c.vocab = (int64_t)toks->arr.size();
  }
  if (c.vocab < 259 || c.heads % c.kvHeads ||
      (c.headDim == 0 && c.width % c.heads) || c.headDim < 0 || c.headDim % 2) {
    fprintf(stderr, "kiln-fixture: error: need vocab >= 259, heads a multiple "
                    "of kv-heads, width a multiple of heads\n");
    return 2;
  }
  const int64_t headDim = c.headDim ? c.headDim : c.width / c.heads;
  Writer w(c.version);
  const std::string p = c.arch + ".";
  auto dropped = [&](const std::string &k) {
    for (const std::string &d : c.dropKeys)
      if (d == k)
        return true;
    return false;
  };
  auto key = [&](const std::string &k, uint64_t v) {
    if (dropped(p + k))
      return;
    if (c.u64Keys)
      w.addUInt64(p + k, v);
    else
      w.addUInt32(p + k, (uint32_t)v);
  };
  w.addString("general.architecture", c.setArch.empty() ? c.arch : c.setArch);
  // With --vocab-from, the other file's name: llama.cpp sets some token
  // attributes by it (Phi-3's special tokens strip the whitespace after).
  std::string modelName = "kiln-fixture";
  if (vocabFile)
    modelName = vocabFile->getString("general.name").value_or(modelName);
  w.addString("general.name", modelName);
  key("context_length", (uint64_t)c.context);
  key("embedding_length", (uint64_t)c.width);
  key("block_count", (uint64_t)c.layers);
  key("feed_forward_length", (uint64_t)c.ffn);
  key("attention.head_count", (uint64_t)c.heads);
  key("attention.head_count_kv", (uint64_t)c.kvHeads);
  key("rope.dimension_count", (uint64_t)headDim);
  if (c.headDim) {
    key("attention.key_length", (uint64_t)headDim);
    key("attention.value_length", (uint64_t)headDim);
  }
  if (!dropped(p + "attention.layer_norm_rms_epsilon"))
    w.addFloat32(p + "attention.layer_norm_rms_epsilon", c.eps);
  if (!dropped(p + "rope.freq_base"))
    w.addFloat32(p + "rope.freq_base", c.ropeTheta);
  if (c.arch == "gemma3") {
    key("attention.sliding_window", (uint64_t)c.swa);
    key("attention.sliding_window_pattern", (uint64_t)c.swaPattern);
    w.addFloat32(p + "rope.freq_base_swa", 10000.0f);
  }
  if (c.longRope) {
    key("rope.scaling.original_context_length", (uint64_t)(c.context / 2));
    w.addFloat32(p + "rope.scaling.attn_factor", 1.19f);
  }

  if (vocabFile) {
    for (const auto &kv : vocabFile->metadata())
      if (kv.first.compare(0, 10, "tokenizer.") == 0 && !dropped(kv.first))
        w.addValue(kv.first, kv.second);
  } else {
    std::vector<std::string> pieces, merges;
    std::vector<int32_t> types;
    std::vector<float> scores;
    if (c.tokenizer == "bpe") {
      // Byte-level BPE: three control tokens, the 256 byte characters of
      // GPT-2's map, then letter pairs and longer runs, each the merge of a
      // token and a letter.
      pieces = {"<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"};
      types = {3, 3, 3};
      auto byteChar = [](unsigned b) {
        char ch[2];
        return std::string(ch, kiln_bpe_byte_char((unsigned char)b, ch));
      };
      for (unsigned b = 0; b < 256; ++b) {
        pieces.push_back(byteChar(b));
        types.push_back(1);
      }
      std::set<std::string> seen(pieces.begin(), pieces.end());
      const std::string letters = "etaoinshrdlu ";
      std::vector<std::string> grow = {};
      for (char l : letters)
        grow.push_back(byteChar((unsigned char)l));
      for (size_t g = 0; (int64_t)pieces.size() < c.vocab && g < grow.size();
           ++g) {
        for (char l : letters) {
          if ((int64_t)pieces.size() >= c.vocab)
            break;
          std::string right = byteChar((unsigned char)l);
          std::string p = grow[g] + right;
          if (!seen.insert(p).second)
            continue;
          pieces.push_back(p);
          types.push_back(1);
          merges.push_back(grow[g] + " " + right);
          grow.push_back(p);
        }
      }
    } else if (c.tokenizer == "spm") {
      // SentencePiece-style vocabulary: <unk> <s> </s>, 256 byte tokens,
      // filler.
      pieces = {"<unk>", "<s>", "</s>"};
      types = {2, 3, 3};
      for (int b = 0; b < 256; ++b) {
        char buf[8];
        snprintf(buf, sizeof buf, "<0x%02X>", b);
        pieces.push_back(buf);
        types.push_back(6);
      }
      for (int64_t i = (int64_t)pieces.size(); i < c.vocab; ++i) {
        pieces.push_back("\xe2\x96\x81t" + std::to_string(i));
        types.push_back(1);
      }
      scores.resize(pieces.size());
      for (size_t i = 0; i < scores.size(); ++i)
        scores[i] = -(float)i;
    } else {
      fprintf(stderr, "kiln-fixture: error: --tokenizer=%s: expected spm or bpe\n",
              c.tokenizer.c_str());
      return 2;
    }
    if ((int64_t)pieces.size() != c.vocab) {
      fprintf(stderr, "kiln-fixture: error: --vocab=%lld: the BPE vocabulary "
              "has at most %zu tokens\n", (long long)c.vocab, pieces.size());
      return 2;
    }
    const bool bpe = c.tokenizer == "bpe";
    // --drop-key applies to these full key names too (a model without a
    // tokenizer).
    if (!dropped("tokenizer.ggml.model"))
      w.addString("tokenizer.ggml.model", bpe ? "gpt2" : "llama");
    if (bpe && !dropped("tokenizer.ggml.pre"))
      w.addString("tokenizer.ggml.pre", c.pre);
    if (!dropped("tokenizer.ggml.tokens"))
      w.addStringArray("tokenizer.ggml.tokens", pieces);
    if (!bpe && !dropped("tokenizer.ggml.scores"))
      w.addFloat32Array("tokenizer.ggml.scores", scores);
    if (!dropped("tokenizer.ggml.token_type"))
      w.addInt32Array("tokenizer.ggml.token_type", types);
    if (bpe && !dropped("tokenizer.ggml.merges"))
      w.addStringArray("tokenizer.ggml.merges", merges);
  }
  // The special ids before the extra keys, so that --add-key replaces them.
  if (!vocabFile && c.tokenizer == "bpe") {
    w.addUInt32("tokenizer.ggml.bos_token_id", 0);
    w.addUInt32("tokenizer.ggml.eos_token_id", 1);
  } else if (!vocabFile) {
    w.addUInt32("tokenizer.ggml.unknown_token_id", 0);
    w.addUInt32("tokenizer.ggml.bos_token_id", 1);
    w.addUInt32("tokenizer.ggml.eos_token_id", 2);
  }
  for (const std::string &spec : c.addKeys) {
    size_t colon = spec.rfind(':'), eq = spec.find('=', colon == std::string::npos ? 0 : colon);
    if (colon == std::string::npos || eq == std::string::npos) {
      fprintf(stderr, "kiln-fixture: error: --add-key=%s: expected KEY:TYPE=VALUE\n",
              spec.c_str());
      return 2;
    }
    std::string k = spec.substr(0, colon), type = spec.substr(colon + 1, eq - colon - 1),
                value = spec.substr(eq + 1);
    if (type == "u32")
      w.addUInt32(k, (uint32_t)strtoul(value.c_str(), nullptr, 10));
    else if (type == "f32")
      w.addFloat32(k, strtof(value.c_str(), nullptr));
    else if (type == "str")
      w.addString(k, value);
    else {
      fprintf(stderr, "kiln-fixture: error: --add-key=%s: TYPE must be u32, f32 or str\n",
              spec.c_str());
      return 2;
    }
  }

  // Scales keep activations O(1) through the layers so that logits spread
  // widely: greedy decoding then has clear winners to compare.
  Rng rng{c.seed};
  droppedTensors = c.dropTensors;
  if (c.recipe) {
    c.type = *c.recipe;
    c.embdType = c.tied ? GGMLType::Q6_K : *c.recipe;
    c.outType = GGMLType::Q6_K;
  }
  auto matmulType = [&](const std::string &name) {
    if (c.recipe)
      return mixTensorType(*c.recipe, name, false, (int)c.layers);
    for (const auto &[re, t] : c.tensorTypes)
      if (std::regex_search(name, re))
        return t;
    return c.type;
  };
  const uint64_t D = c.width, F = c.ffn, V = c.vocab, Q = c.heads * headDim,
                 KV = c.kvHeads * headDim;
  const float sD = 1.0f / std::sqrt((float)D), sF = 1.0f / std::sqrt((float)F);
  addTensor(w, rng, "token_embd.weight", {D, V}, c.embdType, 1.0f);
  for (int64_t l = 0; l < c.layers; ++l) {
    std::string b = "blk." + std::to_string(l) + ".";
    addTensor(w, rng, b + "attn_norm.weight", {D}, GGMLType::F32, 0.1f, 1.0f);
    if (c.arch == "phi3") {
      addTensor(w, rng, b + "attn_qkv.weight", {D, Q + 2 * KV},
                matmulType(b + "attn_qkv.weight"), sD);
    } else {
      addTensor(w, rng, b + "attn_q.weight", {D, Q}, matmulType(b + "attn_q.weight"), sD);
      addTensor(w, rng, b + "attn_k.weight", {D, KV}, matmulType(b + "attn_k.weight"), sD);
      addTensor(w, rng, b + "attn_v.weight", {D, KV}, matmulType(b + "attn_v.weight"), sD);
    }
    if (c.arch == "qwen2") {
      addTensor(w, rng, b + "attn_q.bias", {Q}, GGMLType::F32, 0.1f);
      addTensor(w, rng, b + "attn_k.bias", {KV}, GGMLType::F32, 0.1f);
      addTensor(w, rng, b + "attn_v.bias", {KV}, GGMLType::F32, 0.1f);
    }
    if (c.arch == "qwen3" || c.arch == "gemma3") {
      addTensor(w, rng, b + "attn_q_norm.weight", {(uint64_t)headDim},
                GGMLType::F32, 0.1f, 1.0f);
      addTensor(w, rng, b + "attn_k_norm.weight", {(uint64_t)headDim},
                GGMLType::F32, 0.1f, 1.0f);
    }
    addTensor(w, rng, b + "attn_output.weight", {Q, D}, matmulType(b + "attn_output.weight"), sD);
    if (c.arch == "gemma3")
      addTensor(w, rng, b + "post_attention_norm.weight", {D}, GGMLType::F32,
                0.1f, 1.0f);
    addTensor(w, rng, b + "ffn_norm.weight", {D}, GGMLType::F32, 0.1f, 1.0f);
    if (c.arch == "phi3") {
      addTensor(w, rng, b + "ffn_up.weight", {D, 2 * F},
                matmulType(b + "ffn_up.weight"), sD);
    } else {
      addTensor(w, rng, b + "ffn_gate.weight", {D, F}, matmulType(b + "ffn_gate.weight"), sD);
      addTensor(w, rng, b + "ffn_up.weight", {D, F}, matmulType(b + "ffn_up.weight"), sD);
    }
    addTensor(w, rng, b + "ffn_down.weight", {F, D}, matmulType(b + "ffn_down.weight"), sF);
    if (c.arch == "gemma3")
      addTensor(w, rng, b + "post_ffw_norm.weight", {D}, GGMLType::F32, 0.1f,
                1.0f);
  }
  addTensor(w, rng, "output_norm.weight", {D}, GGMLType::F32, 0.1f, 1.0f);
  if (!c.tied)
    addTensor(w, rng, "output.weight", {D, V}, c.outType, sD * 2.0f);
  if (c.ropeFreqs) {
    // Shaped like llama3's: high frequencies kept, low ones slowed down.
    const int64_t half = headDim / 2;
    std::vector<float> f((size_t)half);
    for (int64_t i = 0; i < half; ++i) {
      float t = half > 1 ? (float)i / (float)(half - 1) : 0.0f;
      f[(size_t)i] = 1.0f + 7.0f * t * t;
    }
    w.addTensor("rope_freqs.weight", {(uint64_t)half}, GGMLType::F32, f.data(),
                f.size() * sizeof(float));
  }
  if (c.longRope) {
    // Shaped like Phi-3.5's: short factors near 1, long ones growing to ~10.
    const int64_t half = headDim / 2;
    std::vector<float> shortF((size_t)half), longF((size_t)half);
    for (int64_t i = 0; i < half; ++i) {
      float t = half > 1 ? (float)i / (float)(half - 1) : 0.0f;
      shortF[(size_t)i] = 1.0f + 0.1f * t;
      longF[(size_t)i] = 1.0f + 9.0f * t * t;
    }
    w.addTensor("rope_factors_short.weight", {(uint64_t)half}, GGMLType::F32,
                shortF.data(), shortF.size() * sizeof(float));
    w.addTensor("rope_factors_long.weight", {(uint64_t)half}, GGMLType::F32,
                longF.data(), longF.size() * sizeof(float));
  }
  for (const std::string &spec : c.addTensors) {
    size_t colon = spec.rfind(':');
    std::vector<uint64_t> dims;
    for (size_t at = colon + 1; colon != std::string::npos && at <= spec.size();) {
      size_t comma = spec.find(',', at);
      dims.push_back(strtoull(spec.c_str() + at, nullptr, 10));
      at = comma == std::string::npos ? spec.size() + 1 : comma + 1;
    }
    if (colon == std::string::npos || dims.empty()) {
      fprintf(stderr, "kiln-fixture: error: --add-tensor=%s: expected NAME:D0[,D1...]\n",
              spec.c_str());
      return 2;
    }
    addTensor(w, rng, spec.substr(0, colon), dims, GGMLType::F32, 1.0f, 1.0f);
  }
  std::string error;
  if (!w.write(c.out, error)) {
    fprintf(stderr, "kiln-fixture: error: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
