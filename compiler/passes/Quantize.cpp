//===- Quantize.cpp - weight-only quantization to GGML block types --------===//
//
// Only the IR changes here: a weight's element type becomes the block type and
// `source_type` remembers what the file stores. The weight store converts the
// bytes when the library is written, so the IR never carries weight data and
// the conversion happens once.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"

#include "compiler/support/Quant.h"

#include "llvm/ADT/StringSet.h"

#include <cstdlib>
#include <regex>

namespace kiln {
#define GEN_PASS_DEF_QUANTIZE
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
// Every block type the weight store can write (f32 is not a quantization).
bool isTargetType(const std::string &t) {
  auto g = gguf::typeFromName(t);
  return g && *g != gguf::GGMLType::F32 && gguf::typeName(*g) == t;
}
std::string targetTypeList() {
  std::string all = gguf::typeList(), out;
  size_t start = 0;
  while (start <= all.size()) {
    size_t end = all.find(", ", start);
    std::string t = all.substr(start, end == std::string::npos ? end : end - start);
    if (t != "f32")
      out += (out.empty() ? "" : ", ") + t;
    if (end == std::string::npos)
      break;
    start = end + 2;
  }
  return out;
}

// "blk.N.NAME.weight" -> N, or -1.
int layerOf(const std::string &name) {
  if (name.rfind("blk.", 0) != 0)
    return -1;
  char *end = nullptr;
  long n = std::strtol(name.c_str() + 4, &end, 10);
  return end && *end == '.' && n >= 0 && n < (1 << 20) ? static_cast<int>(n) : -1;
}

// llama.cpp's fallback for rows that a 256-element block does not divide.
std::string fallbackType(const std::string &t) {
  if (t == "q2_k" || t == "q3_k")
    return "q4_0";
  if (t == "q4_k")
    return "q5_0";
  if (t == "q5_k")
    return "q5_1";
  if (t == "q6_k")
    return "q8_0";
  if (t == "iq4_xs")
    return "iq4_nl";
  return "";
}

struct QuantizePass : kiln::impl::QuantizeBase<QuantizePass> {
  using QuantizeBase::QuantizeBase;

  // `--kiln-quantize=q4_0` names the type without "type=".
  LogicalResult initializeOptions(StringRef options) override {
    if (!options.empty() && !options.contains('='))
      return Pass::initializeOptions(("type=" + options).str());
    return Pass::initializeOptions(options);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto bad = [&](const std::string &msg) {
      module.emitError() << "kiln-quantize: " << msg;
      signalPassFailure();
    };
    const std::string valid = " (valid: " + targetTypeList() + ", q4_k_m, q5_k_m)";
    const std::optional<gguf::GGMLType> mix = gguf::mixBaseType(type);
    if (!type.empty() && !mix && !isTargetType(type))
      return bad("unknown type '" + type + "'" + valid);
    std::regex excludeRe;
    std::vector<std::pair<std::regex, std::string>> rules;
    try {
      if (!exclude.empty())
        excludeRe = std::regex(exclude);
      for (const std::string &o : overrides) {
        size_t eq = o.rfind('=');
        if (eq == std::string::npos || eq == 0)
          return bad("override '" + o + "' is not REGEX=TYPE");
        std::string t = o.substr(eq + 1);
        if (!isTargetType(t))
          return bad("override '" + o + "': unknown type '" + t + "' (valid: " +
                     targetTypeList() + ")");
        rules.push_back({std::regex(o.substr(0, eq)), t});
      }
    } catch (const std::regex_error &e) {
      return bad(std::string("invalid regex: ") + e.what());
    }

    // Weights that matmuls and embeddings read; norms and biases stay f32.
    llvm::StringSet<> eligible, multiplied;
    module.walk([&](Operation *op) {
      if (auto m = dyn_cast<MatMulOp>(op)) {
        eligible.insert(m.getWeight());
        multiplied.insert(m.getWeight());
      } else if (auto e = dyn_cast<EmbeddingOp>(op)) {
        eligible.insert(e.getTable());
      }
    });
    // Layers, for the mixes' per-layer rules.
    int layers = 0;
    for (WeightOp w : module.getOps<WeightOp>())
      layers = std::max(layers, layerOf(w.getSource().str()) + 1);
    // The type a mix gives a tensor (the embedding counts as the output
    // matrix when a matmul reads it: tied).
    auto mixType = [&](WeightOp w) -> std::string {
      const std::string name = w.getSource().str();
      const bool output = name == "output.weight" ||
                          (name == "token_embd.weight" &&
                           multiplied.contains(w.getSymName()));
      return gguf::typeName(gguf::mixTensorType(*mix, name, output, layers));
    };

    bool failed = false;
    for (WeightOp w : module.getOps<WeightOp>()) {
      if (!eligible.contains(w.getSymName()))
        continue;
      std::string name = w.getSource().str(), want;
      bool explicitRule = false;
      for (auto &[re, t] : rules)
        if (std::regex_search(name, re)) {
          want = t;
          explicitRule = true;
          break;
        }
      if (!explicitRule) {
        if (!exclude.empty() && std::regex_search(name, excludeRe))
          continue;
        want = mix ? mixType(w) : type;
      }
      if (want.empty())
        continue;
      RankedTensorType tt = w.getTensorType();
      Type from = tt.getElementType();
      Type to = weightTypeFromName(&getContext(), want);
      if (from == to)
        continue;
      if (!from.isa<Float32Type, Float16Type, BFloat16Type>()) {
        if (explicitRule) {
          w.emitOpError() << "'" << name << "' is already "
                          << weightTypeName(from) << "; Kiln does not requantize "
                          << "quantized weights (asked for " << want << ")";
          failed = true;
        } else {
          w.emitRemark() << "kept '" << name << "' as "
                         << weightTypeName(from) << ": already quantized";
        }
        continue;
      }
      const int64_t cols = tt.getShape().back();
      int64_t block = blockLayout(to).first;
      if (cols % block != 0) {
        const std::string fb = fallbackType(want);
        if (!fb.empty() &&
            cols % blockLayout(weightTypeFromName(&getContext(), fb)).first == 0) {
          w.emitRemark() << "'" << name << "' as " << fb << ": rows of " << cols
                         << " are not a multiple of the " << block
                         << "-element block of " << want;
          want = fb;
          to = weightTypeFromName(&getContext(), want);
          if (from == to)
            continue;
        } else {
          w.emitRemark() << "kept '" << name << "' as " << weightTypeName(from)
                         << ": rows of " << cols << " are not a multiple of the "
                         << block << "-element block of " << want;
          continue;
        }
      }
      if (!w.getSourceType())
        w.setSourceTypeAttr(TypeAttr::get(from));
      w.setTypeAttr(TypeAttr::get(RankedTensorType::get(tt.getShape(), to)));
    }
    if (failed)
      signalPassFailure();
  }
};
} // namespace
