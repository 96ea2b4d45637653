//===- EpilogueLoops.cpp - a tensor kernel's epilogue as generated loops -===//
//
// A run is a stretch of epilogue operations that each have a loop-body form
// below: binary arithmetic with a scalar, per-channel, per-column,
// same-shape or saved operand; the unary operations the kernel vectorizes; clip; save. A save
// joins a run only with the operation that reads it back, and a saved read
// only with its save, since the interpreter keeps its saved copy apart from
// the loop's. Everything else (BatchNormalization, Sigmoid and the other
// libm calls, Mod) stays with the interpreter, between runs.
//
#include "compiler/codegen/EpilogueLoops.h"

#include "kernels/KernelTable.h"
#include "kernels/tensor/kiln_tensor.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace kiln {

namespace {

/// The KILN_EX_ macro of binary operation `code`, or null.
const char *binaryMacro(int64_t code) {
  switch (code) {
  case KILN_BIN_ADD: return "KILN_EX_ADD";
  case KILN_BIN_SUB: return "KILN_EX_SUB";
  case KILN_BIN_MUL: return "KILN_EX_MUL";
  case KILN_BIN_DIV: return "KILN_EX_DIV";
  case KILN_BIN_MAX: return "KILN_EX_MAX";
  case KILN_BIN_MIN: return "KILN_EX_MIN";
  case KILN_BIN_PRELU: return "KILN_EX_PRELU";
  default: return nullptr;
  }
}

bool unaryInLoop(int64_t code) {
  switch (code) {
  case KILN_UN_RELU: case KILN_UN_LEAKY_RELU: case KILN_UN_HARD_SIGMOID:
  case KILN_UN_HARD_SWISH: case KILN_UN_NEG: case KILN_UN_RECIPROCAL:
  case KILN_UN_IDENTITY:
    return true;
  default:
    return false;
  }
}

/// True if operation {kind, code, a, b} has a loop-body form. In a blocked
/// channel layout (conv_nchwc) each lane of a block is another channel,
/// which a loop over one channel's elements cannot express.
bool inLoop(const int64_t *op, bool blocked) {
  switch (op[0]) {
  case KILN_EP_SAVE: case KILN_EP_CLIP:
    return true;
  case KILN_EP_CHANNEL:
    return !blocked && binaryMacro(op[1]) != nullptr;
  case KILN_EP_SCALAR: case KILN_EP_FULL:
  case KILN_EP_SAVED: case KILN_EP_COLUMN:
    return binaryMacro(op[1]) != nullptr;
  case KILN_EP_UNARY:
    return unaryInLoop(op[1]);
  default:
    return false;
  }
}

/// The loop of operations ops[0, count): its operands read once before the
/// loop (a scalar, the channel's value, a same-shape operand's row, a
/// per-column operand from the block's column, the unary's alpha and beta), then per element the interpreter's expressions
/// in its order on the running value v (and the saved copy s).
void writeLoop(raw_ostream &os, StringRef fn, const int64_t *ops,
               int64_t count) {
  std::string pre, body;
  raw_string_ostream ps(pre), bs(body);
  for (int64_t e = 0; e < count; ++e) {
    const int64_t *op = ops + 4 * e;
    const std::string k = std::to_string(e);
    switch (op[0]) {
    case KILN_EP_SAVE:
      bs << "    s = v;\n";
      break;
    case KILN_EP_SCALAR:
    case KILN_EP_CHANNEL:
    case KILN_EP_FULL:
    case KILN_EP_SAVED:
    case KILN_EP_COLUMN: {
      std::string other = "s";
      if (op[0] == KILN_EP_SCALAR)
        ps << "  const float c" << k << " = *(const float *)in[" << op[2]
           << "];\n";
      else if (op[0] == KILN_EP_CHANNEL)
        ps << "  const float c" << k << " = ((const float *)in[" << op[2]
           << "])[channel];\n";
      else if (op[0] == KILN_EP_FULL || op[0] == KILN_EP_COLUMN)
        ps << "  const float *x" << k << " = (const float *)in[" << op[2]
           << "] + " << (op[0] == KILN_EP_FULL ? "offset" : "channel")
           << ";\n";
      if (op[0] == KILN_EP_SCALAR || op[0] == KILN_EP_CHANNEL)
        other = "c" + k;
      else if (op[0] == KILN_EP_FULL || op[0] == KILN_EP_COLUMN)
        other = "x" + k + "[i]";
      bs << "    { const float u = " << (op[3] ? other : "v")
         << ", w = " << (op[3] ? "v" : other) << "; v = "
         << binaryMacro(op[1]) << "(u, w); }\n";
      break;
    }
    case KILN_EP_UNARY:
      if (op[1] == KILN_UN_LEAKY_RELU || op[1] == KILN_UN_HARD_SIGMOID)
        ps << "  const float al" << k << " = f[" << op[2] << "], be" << k
           << " = f[" << op[2] + 1 << "];\n";
      switch (op[1]) {
      case KILN_UN_RELU: bs << "    v = KILN_EX_RELU(v);\n"; break;
      case KILN_UN_LEAKY_RELU:
        bs << "    v = KILN_EX_LEAKY_RELU(v, al" << k << ");\n";
        break;
      case KILN_UN_HARD_SIGMOID:
        bs << "    { const float h = KILN_EX_HARD_SIGMOID_IN(v, al" << k
           << ", be" << k << "); v = KILN_EX_UNIT(h); }\n";
        break;
      case KILN_UN_HARD_SWISH:
        bs << "    { const float h = KILN_EX_HARD_SWISH_IN(v); "
              "v = v * KILN_EX_UNIT(h); }\n";
        break;
      case KILN_UN_NEG: bs << "    v = KILN_EX_NEG(v);\n"; break;
      case KILN_UN_RECIPROCAL: bs << "    v = KILN_EX_RECIPROCAL(v);\n"; break;
      default: break; // identity
      }
      break;
    case KILN_EP_CLIP:
      if (op[2] >= 0) {
        ps << "  const float lo" << k << " = *(const float *)in[" << op[2]
           << "];\n";
        bs << "    v = KILN_EX_CLIP_LO(v, lo" << k << ");\n";
      }
      if (op[3] >= 0) {
        ps << "  const float hi" << k << " = *(const float *)in[" << op[3]
           << "];\n";
        bs << "    v = KILN_EX_CLIP_HI(v, hi" << k << ");\n";
      }
      break;
    }
  }
  ps.flush();
  bs.flush();
  // Each operation is a statement of its own: a product is never contracted
  // with the next operation's sum, as the interpreter's passes cannot be.
  os << "static void " << fn << "(const float *f, const void *const *in,\n"
     << "    float *y, int64_t n, int64_t channel, int64_t offset) {\n"
     << "  (void)f; (void)in; (void)channel; (void)offset;\n"
     << pre << "  _Pragma(\"clang loop vectorize(assume_safety)\")\n"
     << "  for (int64_t i = 0; i < n; ++i) {\n"
     << "    float v = y[i], s = 0.0f;\n    (void)s;\n"
     << body << "    y[i] = v;\n  }\n}\n\n";
}

} // namespace

SmallVector<int64_t> emitEpilogueLoops(StringRef kernel,
                                       SmallVectorImpl<int64_t> &params,
                                       int64_t nIn, StringRef name,
                                       int64_t &next, std::string &code) {
  SmallVector<int64_t> fns;
  const int64_t at =
      kernels::tensorEpilogueAt(kernel.str(), params.data(), params.size());
  if (at < 0)
    return fns;
  const int64_t E = params[at];
  const int64_t *ops = params.data() + at + 1;
  const bool blocked = kernel == "conv_nchwc";
  auto inLoop = [&](const int64_t *op) { return kiln::inLoop(op, blocked); };
  // Runs [first, end): maximal stretches of loop-body operations, each cut
  // back so that a save and its read are both in it or both out.
  SmallVector<std::pair<int64_t, int64_t>> runs;
  for (int64_t e = 0; e < E;) {
    if (!inLoop(ops + 4 * e) || ops[4 * e] == KILN_EP_SAVED) {
      ++e; // a saved read whose save is not in a run
      continue;
    }
    int64_t end = e, openSave = -1;
    for (; end < E && inLoop(ops + 4 * end); ++end) {
      const int64_t kind = ops[4 * end];
      if (kind == KILN_EP_SAVE)
        openSave = end;
      else if (kind == KILN_EP_SAVED && openSave < 0)
        break;
      else if (kind == KILN_EP_SAVED)
        openSave = -1;
    }
    if (openSave >= 0)
      end = openSave;
    if (end - e >= 2)
      runs.push_back({e, end});
    e = std::max(end, e + 1);
  }
  if (runs.empty())
    return fns;

  SmallVector<int64_t> out(params.begin(), params.begin() + at);
  out.push_back(E + (int64_t)runs.size());
  raw_string_ostream os(code);
  size_t r = 0;
  for (int64_t e = 0; e < E; ++e) {
    if (r < runs.size() && runs[r].first == e) {
      const int64_t count = runs[r].second - e;
      out.append({KILN_EP_CALL, count, nIn + (int64_t)r, 0});
      const std::string fn = name.str() + "_ep" + std::to_string(next);
      writeLoop(os, fn, ops + 4 * e, count);
      fns.push_back(next++);
      ++r;
    }
    out.append(ops + 4 * e, ops + 4 * e + 4);
  }
  os.flush();
  params.assign(out.begin(), out.end());
  return fns;
}

} // namespace kiln
