//===- Import.cpp - GGUF language models to the kiln dialect --------------===//
//
// Reads the hyperparameters of a llama-family GGUF and emits the decoder as
// kiln ops over weight symbols. Each tensor's shape is checked against what the
// hyperparameters imply, so a file that parses but does not describe a
// consistent model is rejected here with the tensor's name.
//
#include "compiler/frontend/gguf/Import.h"
#include "compiler/dialect/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <set>

using namespace mlir;
using namespace kiln;

const char *kiln::supportedGGUFArchitectures() {
  return "llama, qwen2, qwen3, phi3, gemma3";
}

const std::vector<GGUFKeyRule> &kiln::ggufKeyRules() {
  static const std::vector<GGUFKeyRule> rules = {
      {"general.architecture", "read", "selects the importer"},
      {"general.alignment", "read", "alignment of the tensor data (the reader)"},
      {"ARCH.context_length", "read", "context length; --context may lower it"},
      {"ARCH.embedding_length", "read", "model width"},
      {"ARCH.block_count", "read", "layers"},
      {"ARCH.feed_forward_length", "read", "FFN width"},
      {"ARCH.attention.head_count", "read", "query heads"},
      {"ARCH.attention.head_count_kv", "read",
       "key/value heads (absent: head_count)"},
      {"ARCH.attention.layer_norm_rms_epsilon", "read", "RMSNorm epsilon"},
      {"ARCH.rope.freq_base", "read", "RoPE base (absent: 10000)"},
      {"ARCH.rope.dimension_count", "checked",
       "must equal the head dimension (partial RoPE is not supported)"},
      {"ARCH.attention.key_length", "read",
       "head dimension of queries and keys (absent: embedding_length / "
       "head_count)"},
      {"ARCH.attention.value_length", "checked",
       "must equal the head dimension (one for queries, keys and values)"},
      {"ARCH.vocab_size", "checked", "must equal the rows of token_embd"},
      {"ARCH.rope.scaling.type", "checked",
       "none or linear (absent: linear, as llama.cpp reads it); yarn and "
       "longrope are not supported"},
      {"ARCH.rope.scaling.factor", "read",
       "linear RoPE scaling: every angle divided by it (0 or 1: none); with "
       "scaling type none it must be 1"},
      {"ARCH.rope.scale_linear", "read",
       "the older name of rope.scaling.factor"},
      {"ARCH.rope.scaling.original_context_length", "read",
       "phi3: the context above which rope_factors_long replace "
       "rope_factors_short (LongRoPE); others: a parameter of YaRN, which is "
       "refused by rope.scaling.type"},
      {"ARCH.rope.scaling.attn_factor", "read",
       "phi3: LongRoPE's factor on RoPE's cosines and sines"},
      {"ARCH.attention.sliding_window", "checked",
       "gemma3: the window of its sliding-window layers; phi3: ignored, as "
       "llama.cpp ignores Phi-3's window; any other architecture: not "
       "supported"},
      {"ARCH.attention.sliding_window_pattern", "read",
       "gemma3: every Nth layer is global, the others slide (absent: 6)"},
      {"ARCH.rope.freq_base_swa", "read",
       "gemma3: RoPE base of the sliding-window layers (absent: 10000)"},
      {"ARCH.final_logit_softcapping", "checked",
       "must be 0 (logit soft-capping is not supported)"},
      {"ARCH.rope.scaling.finetuned", "ignored",
       "whether the model was trained with its RoPE scaling; no effect on "
       "the math"},
      {"ARCH.expert_count", "checked",
       "must be 0 (mixture-of-experts models are not supported)"},
      {"ARCH.expert_used_count", "checked",
       "must be 0 (mixture-of-experts models are not supported)"},
      {"split.count", "checked", "must be 1 (split files are not supported)"},
      {"split.*", "ignored", "describes the parts of a split file"},
      {"general.*", "ignored",
       "descriptions of the file (name, license, file_type, ...); each "
       "tensor's type says how it is stored"},
      {"tokenizer.*", "ignored",
       "the vocabulary, read by kiln-run --prompt and kiln-tokenize; the "
       "library takes token ids"},
      {"quantize.*", "ignored",
       "how the file was quantized (importance matrix); the tensors hold the "
       "result"},
  };
  return rules;
}

namespace {
struct Hyper {
  std::string arch;
  int64_t context, width, layers, ffn, heads, kvHeads, headDim, vocab;
  float eps, ropeTheta;
  bool neox, qkvBias;
  bool qkNorm; // per-head RMSNorm of queries and keys (Qwen 3)
  bool phi3;   // fused attn_qkv and ffn_up (gate and up), LongRoPE
  float ropeLinear; // linear RoPE scaling factor (1: none)
  // Gemma 3: embeddings times sqrt(width), post-attention and post-FFN
  // norms, GELU gate, sliding-window layers with their own RoPE base.
  bool gemma3;
  int64_t swaWindow = 0, swaPattern = 0;
  float ropeThetaSwa = 10000.0f;
  bool slides(int64_t layer) const {
    return swaWindow > 0 && (swaPattern == 0 || layer % swaPattern < swaPattern - 1);
  }
};

class Importer {
public:
  Importer(MLIRContext &ctx, const gguf::File &file, std::string &error)
      : ctx(ctx), file(file), error(error), builder(&ctx),
        fileName(llvm::sys::path::filename(file.path()).str()) {}

  OwningOpRef<ModuleOp> run();

private:
  // The first problem is the one reported (tensors are all checked before
  // the importer stops).
  bool fail(const std::string &msg) {
    if (!hasError)
      error = file.path() + ": " + msg;
    hasError = true;
    return false;
  }
  bool hasError = false;
  bool readHyper();
  bool checkFinite(const gguf::TensorInfo &t);
  /// Every key covered by ggufKeyRules(), the checked ones with the values
  /// Kiln implements.
  bool checkKeys();
  /// Every tensor of the file read by the graph.
  bool checkTensorsUsed();
  bool requireUInt(const std::string &key, int64_t &out);
  /// Declares weight `name` (GGUF tensor name) with the row-major shape
  /// `shape`; returns its symbol or null after setting the error.
  FlatSymbolRefAttr weight(const std::string &name,
                           std::vector<int64_t> shape);
  Location loc(const std::string &what) {
    return NameLoc::get(builder.getStringAttr(what),
                        FileLineColLoc::get(&ctx, fileName, 0, 0));
  }

  MLIRContext &ctx;
  const gguf::File &file;
  std::string &error;
  OpBuilder builder;
  std::string fileName;
  Hyper h{};
  ModuleOp module;
  std::set<std::string> usedTensors;
};

// The rule that covers `key` in architecture `arch`, or null.
const GGUFKeyRule *ruleFor(const std::string &key, const std::string &arch) {
  for (const GGUFKeyRule &r : ggufKeyRules()) {
    std::string k = r.key;
    if (llvm::StringRef(k).startswith("ARCH."))
      k = arch + k.substr(4);
    if (key == k)
      return &r;
    if (llvm::StringRef(k).endswith(".*") &&
        llvm::StringRef(key).startswith(k.substr(0, k.size() - 1)))
      return &r;
  }
  return nullptr;
}

bool Importer::checkKeys() {
  const std::string p = h.arch + ".";
  auto notSupported = [&](const std::string &key, const std::string &value,
                          const std::string &why) {
    return fail(key + "=" + value + " is not supported (" + why + ")");
  };
  for (const auto &entry : file.metadata()) {
    const std::string &key = entry.first;
    const GGUFKeyRule *r = ruleFor(key, h.arch);
    if (!r)
      return fail("key '" + key + "' is not one Kiln knows for architecture " +
                  h.arch + "; it may change the math, so the file is refused "
                  "(kilnc --list-gguf-keys lists the keys Kiln reads and "
                  "ignores)");
    if (std::string(r->use) != "checked")
      continue;
    auto uint = file.getUInt(key);
    auto show = [&]() {
      if (uint)
        return std::to_string(*uint);
      if (auto f = file.getFloat(key))
        return std::to_string(*f);
      return file.getString(key).value_or("?");
    };
    if (key == p + "attention.value_length" ||
        key == p + "rope.dimension_count") {
      if (!uint || (int64_t)*uint != h.headDim)
        return notSupported(key, show(),
                            "it must equal the head dimension " +
                                std::to_string(h.headDim));
    } else if (key == p + "vocab_size") {
      if (!uint || (int64_t)*uint != h.vocab)
        return fail("key '" + key + "' is " + show() +
                    " but token_embd has " + std::to_string(h.vocab) + " rows");
    } else if (key == p + "rope.scaling.type") {
      auto type = file.getString(key).value_or("");
      if (type != "none" && type != "linear")
        return notSupported(key, show(), "only none and linear are");
    } else if (key == p + "expert_count" || key == p + "expert_used_count") {
      if (!uint || *uint != 0)
        return notSupported(key, show(),
                            "mixture-of-experts models are not");
    } else if (key == p + "attention.sliding_window") {
      if (h.arch != "phi3" && h.arch != "gemma3")
        return notSupported(key, show(), "sliding-window attention is not");
    } else if (key == p + "final_logit_softcapping") {
      auto f = file.getFloat(key);
      if (!f || *f != 0.0)
        return notSupported(key, show(), "logit soft-capping is not");
    } else if (key == "split.count") {
      if (!uint || *uint != 1)
        return notSupported(key, show(), "split files are not");
    }
  }
  return true;
}

bool Importer::checkTensorsUsed() {
  for (const gguf::TensorInfo &t : file.tensors()) {
    if (usedTensors.count(t.name))
      continue;
    return fail("tensor '" + t.name + "' is not one the " + h.arch +
                " graph reads; it may change the math, so the file is "
                "refused");
  }
  return true;
}

bool Importer::requireUInt(const std::string &key, int64_t &out) {
  auto v = file.getUInt(key);
  if (!v) {
    if (const gguf::Value *val = file.find(key))
      return fail("key '" + key + "' must be an unsigned integer, not " +
                  (gguf::isSignedInteger(val->type)
                       ? std::string("a negative ") +
                             gguf::valueTypeName(val->type)
                       : std::string("a ") + gguf::valueTypeName(val->type)));
    return fail("missing required key '" + key + "'");
  }
  if (*v == 0 || *v > (1ull << 31))
    return fail("key '" + key + "' has implausible value " +
                std::to_string(*v));
  out = (int64_t)*v;
  return true;
}

bool Importer::readHyper() {
  auto arch = file.getString("general.architecture");
  if (!arch)
    return fail("missing required key 'general.architecture'");
  h.arch = *arch;
  if (h.arch != "llama" && h.arch != "qwen2" && h.arch != "qwen3" &&
      h.arch != "phi3" && h.arch != "gemma3")
    return fail("unsupported architecture '" + h.arch +
                "' (supported: " + supportedGGUFArchitectures() + ")");
  const std::string p = h.arch + ".";
  if (!requireUInt(p + "context_length", h.context) ||
      !requireUInt(p + "embedding_length", h.width) ||
      !requireUInt(p + "block_count", h.layers) ||
      !requireUInt(p + "feed_forward_length", h.ffn) ||
      !requireUInt(p + "attention.head_count", h.heads))
    return false;
  // Each layer has at least its norm and matrices as tensors, so a count
  // beyond the file's tensors is malformed, and walking it would take
  // minutes before the first missing tensor is named.
  if ((size_t)h.layers > file.tensors().size())
    return fail("key '" + p + "block_count' is " + std::to_string(h.layers) +
                " but the file has only " +
                std::to_string(file.tensors().size()) + " tensors");
  h.kvHeads = h.heads;
  if (file.find(p + "attention.head_count_kv") &&
      !requireUInt(p + "attention.head_count_kv", h.kvHeads))
    return false;
  if (h.heads % h.kvHeads != 0)
    return fail("attention.head_count " + std::to_string(h.heads) +
                " is not a multiple of attention.head_count_kv " +
                std::to_string(h.kvHeads));
  // The head dimension: attention.key_length where the file gives one
  // (Qwen3, Gemma), else embedding_length / head_count.
  if (file.find(p + "attention.key_length")) {
    if (!requireUInt(p + "attention.key_length", h.headDim))
      return false;
  } else {
    if (h.width % h.heads != 0)
      return fail("embedding_length " + std::to_string(h.width) +
                  " is not a multiple of attention.head_count " +
                  std::to_string(h.heads));
    h.headDim = h.width / h.heads;
  }
  if (h.headDim % 2 != 0)
    return fail("head dimension " + std::to_string(h.headDim) +
                " must be even for RoPE");
  auto eps = file.getFloat(p + "attention.layer_norm_rms_epsilon");
  if (!eps)
    return fail("missing required key '" + p +
                "attention.layer_norm_rms_epsilon'");
  h.eps = (float)*eps;
  h.ropeTheta = (float)file.getFloat(p + "rope.freq_base").value_or(10000.0);
  if (!(h.ropeTheta > 0))
    return fail("key '" + p + "rope.freq_base' must be positive");
  // Linear RoPE scaling, as llama.cpp reads it: rope.scaling.factor (or
  // the older rope.scale_linear) divides every angle unless the scaling
  // type is none, and a missing type means linear.
  h.ropeLinear = 1.0f;
  for (const char *k : {"rope.scaling.factor", "rope.scale_linear"}) {
    if (!file.find(p + k))
      continue;
    auto f = file.getFloat(p + k);
    if (!f || !(*f >= 0) || !std::isfinite(*f))
      return fail("key '" + p + k + "' must be a non-negative number");
    if (*f != 0.0) {
      h.ropeLinear = (float)*f;
      break;
    }
  }
  const std::string scalingType =
      file.getString(p + "rope.scaling.type").value_or("linear");
  if (scalingType == "none" && h.ropeLinear != 1.0f)
    return fail(p + "rope.scaling.factor=" + std::to_string(h.ropeLinear) +
                " is not supported with rope.scaling.type=none");
  if (auto dims = file.getUInt(p + "rope.dimension_count");
      dims && (int64_t)*dims != h.headDim)
    return fail("partial RoPE (rope.dimension_count " + std::to_string(*dims) +
                " != head dimension " + std::to_string(h.headDim) +
                ") is not supported");
  // As llama.cpp builds them: Qwen 2 and 3 rotate the halves of a head
  // (NeoX style); Qwen 2 always has q/k/v biases, Qwen 3 where the file has
  // them; Qwen 3 normalizes each head of q and k.
  h.neox = h.arch == "qwen2" || h.arch == "qwen3" || h.arch == "phi3" ||
           h.arch == "gemma3";
  h.phi3 = h.arch == "phi3";
  h.gemma3 = h.arch == "gemma3";
  if (h.gemma3) {
    // As llama.cpp reads Gemma 3 (its 62-layer 27B scales attention by
    // width / heads instead of the head dimension: not supported).
    if (h.layers == 62)
      return fail("gemma3 with 62 layers (27B) scales attention by "
                  "embedding_length / head_count, which is not supported");
    if (file.find(p + "attention.sliding_window") &&
        !requireUInt(p + "attention.sliding_window", h.swaWindow))
      return false;
    h.swaPattern = 6;
    if (file.find(p + "attention.sliding_window_pattern")) {
      auto v = file.getUInt(p + "attention.sliding_window_pattern");
      if (!v || *v > (1u << 20))
        return fail("key '" + p + "attention.sliding_window_pattern' must be "
                    "an unsigned integer (a per-layer array is not supported)");
      h.swaPattern = (int64_t)*v;
    }
    h.ropeThetaSwa =
        (float)file.getFloat(p + "rope.freq_base_swa").value_or(10000.0);
    if (!(h.ropeThetaSwa > 0))
      return fail("key '" + p + "rope.freq_base_swa' must be positive");
  }
  h.qkvBias = h.arch == "qwen2" ||
              (h.arch == "qwen3" && file.tensor("blk.0.attn_q.bias"));
  h.qkNorm = h.arch == "qwen3" || h.arch == "gemma3";
  const gguf::TensorInfo *embd = file.tensor("token_embd.weight");
  if (!embd)
    return fail("missing tensor 'token_embd.weight'");
  if (embd->dims.size() != 2)
    return fail("tensor 'token_embd.weight' must have 2 dimensions");
  h.vocab = (int64_t)embd->dims[1];
  return true;
}

FlatSymbolRefAttr Importer::weight(const std::string &name,
                                   std::vector<int64_t> shape) {
  const gguf::TensorInfo *t = file.tensor(name);
  if (!t) {
    fail("missing tensor '" + name + "'");
    return nullptr;
  }
  usedTensors.insert(name);
  std::vector<int64_t> got(t->dims.rbegin(), t->dims.rend());
  if (got != shape) {
    auto str = [](const std::vector<int64_t> &s) {
      std::string r = "[";
      for (size_t i = 0; i < s.size(); ++i)
        r += (i ? ", " : "") + std::to_string(s[i]);
      return r + "]";
    };
    fail("tensor '" + name + "' has shape " + str(got) + " (row-major), " +
         "expected " + str(shape));
    return nullptr;
  }
  Type elem = weightTypeFromName(&ctx, gguf::typeName(t->type));
  if (!elem) {
    fail(std::string("tensor '") + name + "' has type " +
         gguf::typeName(t->type) + ", which Kiln cannot compute with");
    return nullptr;
  }
  std::string sym = name;
  if (llvm::StringRef(sym).endswith(".weight"))
    sym.resize(sym.size() - 7);
  if (!module.lookupSymbol(sym)) {
    if (!checkFinite(*t))
      return nullptr;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(module.getBody());
    builder.create<WeightOp>(loc(name), sym,
                             RankedTensorType::get(shape, elem), name,
                             TypeAttr(), ArrayAttr(), StringAttr());
  }
  return FlatSymbolRefAttr::get(&ctx, sym);
}

// A damaged or hostile file's infinity or NaN in a weight or block scale
// would reach every output through the matmuls and norms: refused, naming
// where it is.
bool Importer::checkFinite(const gguf::TensorInfo &t) {
  auto bad = gguf::firstNonFinite(t.type, t.data, t.numElements);
  if (!bad)
    return true;
  const uint64_t K = t.dims.empty() ? 1 : t.dims[0];
  const uint64_t row = bad->element / K, col = bad->element % K;
  const std::string value = std::isnan(bad->value) ? "NaN"
                            : bad->value > 0      ? "inf"
                                                  : "-inf";
  std::string where;
  if (std::string(bad->field) == "value") {
    where = "element " + std::to_string(bad->element) + " (row " +
            std::to_string(row) + ", column " + std::to_string(col) + ") is " +
            value;
  } else {
    const int64_t bs = gguf::typeTraits(t.type)->blockSize;
    where = "block " + std::to_string(bad->element / (uint64_t)bs) + " (row " +
            std::to_string(row) + ", columns " + std::to_string(col) + ".." +
            std::to_string(col + (uint64_t)bs - 1) + ") has " + bad->field +
            " = " + value;
  }
  return fail("tensor '" + t.name + "' (" + gguf::typeName(t.type) + ") " +
              where + ": a non-finite weight makes the outputs it reaches "
              "NaN or infinite, so the file is refused");
}

OwningOpRef<ModuleOp> Importer::run() {
  if (!readHyper())
    return nullptr;
  OwningOpRef<ModuleOp> owned = ModuleOp::create(loc("model"));
  module = *owned;
  module->setAttr("kiln.arch", builder.getStringAttr(h.arch));
  module->setAttr("kiln.context_length", builder.getI64IntegerAttr(h.context));
  module->setAttr("kiln.source", builder.getStringAttr(fileName));

  const int64_t D = h.width, F = h.ffn, qw = h.heads * h.headDim,
                kvw = h.kvHeads * h.headDim;
  auto f32 = builder.getF32Type();
  auto rows = [&](int64_t w) {
    return RankedTensorType::get({ShapedType::kDynamic, w}, f32);
  };
  auto tokensType =
      RankedTensorType::get({ShapedType::kDynamic}, builder.getI32Type());
  auto logitsType = rows(h.vocab);

  // Weights are declared before the function that uses them.
  std::vector<FlatSymbolRefAttr> syms;
  auto need = [&](const std::string &name, std::vector<int64_t> shape) {
    auto s = weight(name, std::move(shape));
    syms.push_back(s);
    return s;
  };
  auto embd = need("token_embd.weight", {h.vocab, D});
  struct Layer {
    FlatSymbolRefAttr attnNorm, q, k, v, qb, kb, vb, qNorm, kNorm, o, ffnNorm,
        gate, up, down;
    FlatSymbolRefAttr qkv, gateUp;         // phi3's fused weights
    FlatSymbolRefAttr attnPost, ffnPost;   // gemma3's post norms
  };
  std::vector<Layer> layers(h.layers);
  for (int64_t i = 0; i < h.layers && !hasError; ++i) {
    std::string b = "blk." + std::to_string(i) + ".";
    Layer &l = layers[i];
    l.attnNorm = need(b + "attn_norm.weight", {D});
    if (h.phi3 && file.tensor(b + "attn_qkv.weight")) {
      l.qkv = need(b + "attn_qkv.weight", {qw + 2 * kvw, D});
    } else {
      l.q = need(b + "attn_q.weight", {qw, D});
      l.k = need(b + "attn_k.weight", {kvw, D});
      l.v = need(b + "attn_v.weight", {kvw, D});
    }
    if (h.qkvBias) {
      l.qb = need(b + "attn_q.bias", {qw});
      l.kb = need(b + "attn_k.bias", {kvw});
      l.vb = need(b + "attn_v.bias", {kvw});
    }
    if (h.qkNorm) {
      l.qNorm = need(b + "attn_q_norm.weight", {h.headDim});
      l.kNorm = need(b + "attn_k_norm.weight", {h.headDim});
    }
    l.o = need(b + "attn_output.weight", {D, qw});
    if (h.gemma3) {
      l.attnPost = need(b + "post_attention_norm.weight", {D});
      l.ffnPost = need(b + "post_ffw_norm.weight", {D});
    }
    l.ffnNorm = need(b + "ffn_norm.weight", {D});
    if (h.phi3) {
      // Gate and up in one matrix: rows [0, F) the gate, [F, 2F) the up.
      l.gateUp = need(b + "ffn_up.weight", {2 * F, D});
    } else {
      l.gate = need(b + "ffn_gate.weight", {F, D});
      l.up = need(b + "ffn_up.weight", {F, D});
    }
    l.down = need(b + "ffn_down.weight", {D, F});
  }
  auto outNorm = need("output_norm.weight", {D});
  // llama3's RoPE frequency factors, one per pair of a head, shared by all
  // layers (llama.cpp divides each pair's angle by its factor).
  FlatSymbolRefAttr ropeFreqs, ropeLong;
  IntegerAttr longContext;
  FloatAttr ropeScale;
  if (h.arch == "llama" && file.tensor("rope_freqs.weight"))
    ropeFreqs = need("rope_freqs.weight", {h.headDim / 2});
  // Phi-3's LongRoPE: short factors, long ones past the original context.
  if (h.phi3 && (file.tensor("rope_factors_short.weight") ||
                 file.tensor("rope_factors_long.weight"))) {
    ropeFreqs = need("rope_factors_short.weight", {h.headDim / 2});
    ropeLong = need("rope_factors_long.weight", {h.headDim / 2});
    int64_t original = 0;
    if (!requireUInt("phi3.rope.scaling.original_context_length", original))
      return nullptr;
    longContext = builder.getI64IntegerAttr(original);
  }
  FloatAttr ropeLinear;
  if (h.ropeLinear != 1.0f)
    ropeLinear = builder.getF32FloatAttr(h.ropeLinear);
  if (h.phi3)
    if (auto f = file.getFloat("phi3.rope.scaling.attn_factor")) {
      if (!(*f > 0))
        return fail("key 'phi3.rope.scaling.attn_factor' must be positive"),
               nullptr;
      if (*f != 1.0)
        ropeScale = builder.getF32FloatAttr((float)*f);
    }
  // Without output.weight the embedding table is tied to the output layer.
  auto output = file.tensor("output.weight")
                    ? need("output.weight", {h.vocab, D})
                    : embd;
  for (auto s : syms)
    if (!s)
      return nullptr;
  if (!checkKeys() || !checkTensorsUsed())
    return nullptr;

  builder.setInsertionPointToEnd(module.getBody());
  auto func = builder.create<func::FuncOp>(
      loc("forward"), "forward",
      builder.getFunctionType({tokensType}, {logitsType}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  auto epsAttr = builder.getF32FloatAttr(h.eps);
  auto L = [&](const std::string &s) { return loc(s); };
  auto matmul = [&](const std::string &name, RankedTensorType type, Value in,
                    FlatSymbolRefAttr w, FlatSymbolRefAttr bias) -> Value {
    return builder
        .create<MatMulOp>(L(name), TypeRange{type}, in, w, bias,
                          DenseI64ArrayAttr(), StringAttr(), Value())
        .getOutput();
  };

  // Gemma scales the embeddings by sqrt(width) (in f32, as llama.cpp does).
  FloatAttr embdScale;
  if (h.gemma3)
    embdScale = builder.getF32FloatAttr(std::sqrt((float)D));
  Value x = builder.create<EmbeddingOp>(L("token_embd"), rows(D), embd,
                                        body->getArgument(0), embdScale);
  for (int64_t i = 0; i < h.layers; ++i) {
    std::string b = "blk." + std::to_string(i) + ".";
    Layer &l = layers[i];
    Value n = builder.create<RMSNormOp>(L(b + "attn_norm"), rows(D), x,
                                        l.attnNorm, epsAttr, IntegerAttr());
    Value q, k, v;
    if (l.qkv) {
      auto fused = builder.create<MatMulOp>(
          L(b + "attn_qkv"), TypeRange{rows(qw), rows(kvw), rows(kvw)}, n,
          l.qkv, FlatSymbolRefAttr(),
          builder.getDenseI64ArrayAttr({qw, kvw, kvw}), StringAttr(), Value());
      q = fused.getOutputs()[0];
      k = fused.getOutputs()[1];
      v = fused.getOutputs()[2];
    } else {
      q = matmul(b + "attn_q", rows(qw), n, l.q, l.qb);
      k = matmul(b + "attn_k", rows(kvw), n, l.k, l.kb);
      v = matmul(b + "attn_v", rows(kvw), n, l.v, l.vb);
    }
    auto style = builder.getStringAttr(h.neox ? "neox" : "adjacent");
    // A sliding-window layer (Gemma 3) has its own RoPE base and no linear
    // scaling, as llama.cpp builds it.
    const bool slides = h.slides(i);
    auto theta = builder.getF32FloatAttr(slides ? h.ropeThetaSwa : h.ropeTheta);
    FloatAttr linear = slides ? FloatAttr() : ropeLinear;
    IntegerAttr window =
        slides ? builder.getI64IntegerAttr(h.swaWindow) : IntegerAttr();
    auto hd = builder.getI64IntegerAttr(h.headDim);
    if (h.qkNorm) {
      q = builder.create<RMSNormOp>(L(b + "attn_q_norm"), rows(qw), q, l.qNorm,
                                    epsAttr, hd);
      k = builder.create<RMSNormOp>(L(b + "attn_k_norm"), rows(kvw), k,
                                    l.kNorm, epsAttr, hd);
    }
    q = builder.create<RoPEOp>(L(b + "rope_q"), rows(qw), q, hd, theta, style,
                               ropeFreqs, ropeLong, longContext, ropeScale,
                               linear);
    k = builder.create<RoPEOp>(L(b + "rope_k"), rows(kvw), k, hd, theta, style,
                               ropeFreqs, ropeLong, longContext, ropeScale,
                               linear);
    Value a = builder.create<AttentionOp>(
        L(b + "attention"), rows(qw), q, k, v, builder.getI64IntegerAttr(i),
        builder.getI64IntegerAttr(h.heads), builder.getI64IntegerAttr(h.kvHeads),
        hd, window);
    Value o = matmul(b + "attn_output", rows(D), a, l.o,
                                       FlatSymbolRefAttr());
    if (l.attnPost)
      o = builder.create<RMSNormOp>(L(b + "post_attention_norm"), rows(D), o,
                                    l.attnPost, epsAttr, IntegerAttr());
    x = builder.create<AddOp>(L(b + "attn_residual"), rows(D), x, o);
    n = builder.create<RMSNormOp>(L(b + "ffn_norm"), rows(D), x, l.ffnNorm,
                                  epsAttr, IntegerAttr());
    Value g, u;
    if (l.gateUp) {
      auto fused = builder.create<MatMulOp>(
          L(b + "ffn_up"), TypeRange{rows(F), rows(F)}, n, l.gateUp,
          FlatSymbolRefAttr(), builder.getDenseI64ArrayAttr({F, F}),
          StringAttr(), Value());
      g = fused.getOutputs()[0];
      u = fused.getOutputs()[1];
    } else {
      g = matmul(b + "ffn_gate", rows(F), n, l.gate, FlatSymbolRefAttr());
      u = matmul(b + "ffn_up", rows(F), n, l.up, FlatSymbolRefAttr());
    }
    Value s = h.gemma3 ? builder.create<GeluMulOp>(L(b + "ffn_gelu_mul"),
                                                  rows(F), g, u)
                             .getResult()
                       : builder.create<SiluMulOp>(L(b + "ffn_silu_mul"),
                                                   rows(F), g, u)
                             .getResult();
    Value d = matmul(b + "ffn_down", rows(D), s, l.down,
                                       FlatSymbolRefAttr());
    if (l.ffnPost)
      d = builder.create<RMSNormOp>(L(b + "post_ffw_norm"), rows(D), d,
                                    l.ffnPost, epsAttr, IntegerAttr());
    x = builder.create<AddOp>(L(b + "ffn_residual"), rows(D), x, d);
  }
  x = builder.create<RMSNormOp>(L("output_norm"), rows(D), x, outNorm, epsAttr,
                                IntegerAttr());
  Value last = builder.create<LastTokenOp>(L("last_token"), rows(D), x);
  Value logits = matmul("output", logitsType, last, output,
                                          FlatSymbolRefAttr());
  builder.create<func::ReturnOp>(L("return"), logits);

  if (failed(verify(module))) {
    error = file.path() + ": the imported model failed verification";
    return nullptr;
  }
  return owned;
}
} // namespace

OwningOpRef<ModuleOp> kiln::importGGUF(MLIRContext &ctx,
                                       const gguf::File &file,
                                       std::string &error) {
  ctx.loadDialect<KilnDialect, func::FuncDialect>();
  return Importer(ctx, file, error).run();
}
