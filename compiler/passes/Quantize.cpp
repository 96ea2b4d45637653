//===- Quantize.cpp - weight-only quantization to GGML block types --------===//
//
// Only the IR changes here: a weight's element type becomes the block type and
// `source_type` remembers what the file stores. The weight store converts the
// bytes when the library is written, so the IR never carries weight data and
// the conversion happens once.
//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"

#include "llvm/ADT/StringSet.h"

#include <regex>

namespace kiln {
#define GEN_PASS_DEF_QUANTIZE
#include "compiler/passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
const llvm::StringSet<> kTypes = {"f16", "q8_0", "q4_0", "q4_k"};

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
    if (!type.empty() && !kTypes.contains(type))
      return bad("unknown type '" + type + "' (valid: f16, q8_0, q4_0, q4_k)");
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
        if (!kTypes.contains(t))
          return bad("override '" + o + "': unknown type '" + t +
                     "' (valid: f16, q8_0, q4_0, q4_k)");
        rules.push_back({std::regex(o.substr(0, eq)), t});
      }
    } catch (const std::regex_error &e) {
      return bad(std::string("invalid regex: ") + e.what());
    }

    // Weights that matmuls and embeddings read; norms and biases stay f32.
    llvm::StringSet<> eligible;
    module.walk([&](Operation *op) {
      if (auto m = dyn_cast<MatMulOp>(op))
        eligible.insert(m.getWeight());
      else if (auto e = dyn_cast<EmbeddingOp>(op))
        eligible.insert(e.getTable());
    });

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
        want = type;
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
      int64_t block = blockLayout(to).first;
      if (tt.getShape().back() % block != 0) {
        w.emitRemark() << "kept '" << name << "' as " << weightTypeName(from)
                       << ": rows of " << tt.getShape().back()
                       << " are not a multiple of the " << block
                       << "-element block of " << want;
        continue;
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
