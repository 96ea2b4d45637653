//===- Emitter.cpp - generated C, weight blob, header and archive ---------===//
//
// Turns a fully planned module into libNAME.a + NAME.h. Weights are laid out
// once, at compile time, in the layout the kernels read; the archive holds the
// generated model code, the runtime and (by default) the weight blob, and is
// byte-identical for identical inputs (no paths, times or unordered maps).
//
#include "compiler/codegen/Emitter.h"
#include "compiler/codegen/TokenizerTables.h"
#include "compiler/codegen/GraphEmitter.h"
#include "compiler/codegen/Toolchain.h"
#include "compiler/codegen/WeightBlob.h"
#include "compiler/support/Process.h"
#include "compiler/support/Progress.h"
#include "compiler/support/Quant.h"
#include "compiler/targets/Target.h"
#include "kernels/Embedded.h"
#include "kernels/KernelTable.h"
#include "kiln/kiln.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <map>

using namespace mlir;
using namespace kiln;

namespace {
std::string upper(const std::string &s) { return llvm::StringRef(s).upper(); }

class Emitter : public EmitContext {
public:
  Emitter(ModuleOp module, func::FuncOp func, const WeightStore &store,
          const ModuleOptions &opts, const Target &target)
      : module(module), func(func), store(store), opts(opts), target(target),
        kv(planKv(func, opts, moduleInt("kiln.context_length"))) {}

  bool buildBlob(std::string &error);
  static std::string pieceKey(const std::string &key, size_t i, size_t n);
  void emitMatMul(MatMulOp m, const std::string &kernel, std::string &body,
                  std::string &tasks);
  void emitNorm(RMSNormOp m, const std::string &kernel, std::string &body,
                std::string &tasks);
  bool generateSource(std::string &source, std::string &error);
  std::string generateHeader();
  const WeightBlob &weightBlob() const { return blob; }
  std::vector<uint8_t> takeBlobBytes() { return std::move(blob.bytes); }
  uint64_t blobBytes() const { return blob.bytes.size(); }
  uint64_t arenaBytes() const;
  kiln_layout layout() const;

  std::string value(Value v) const override {
    if (auto arg = v.dyn_cast<BlockArgument>())
      return "tokens";
    Operation *def = v.getDefiningOp();
    int64_t off;
    if (auto all = def->getAttrOfType<DenseI64ArrayAttr>("kiln.offsets"))
      off = all[v.cast<OpResult>().getResultNumber()];
    else
      off = def->getAttrOfType<IntegerAttr>("kiln.offset").getInt();
    return "((float *)(act + " + std::to_string(off) + "))";
  }
  std::string rows(Value v) const override {
    auto t = v.getType().cast<RankedTensorType>();
    if (!t.isDynamicDim(0))
      return std::to_string(t.getDimSize(0));
    // Rows follow the first operand back to the tokens ("n") or to the
    // gather of the rows whose logits are wanted ("n_out").
    while (Operation *def = v.getDefiningOp()) {
      if (isa<LastTokenOp>(def))
        return "n_out";
      if (def->getNumOperands() == 0)
        break;
      v = def->getOperand(0);
    }
    return "n";
  }
  std::string weight(FlatSymbolRefAttr sym, bool asF32) const override {
    // Matmul weights (packed per kernel and piece) are addressed by
    // emitMatMul; what reaches here is stored as in the model.
    auto it = blob.offsets.find({sym.getValue().str(), asF32});
    assert(it != blob.offsets.end() && "weight not in blob");
    std::string p = "(wts + " + std::to_string(it->second) + ")";
    return asF32 ? "((const float *)" + p + ")" : p;
  }
  std::string ropeTable(Operation *op) const override {
    auto it = blob.offsets.find({ropeKey(cast<RoPEOp>(op)), true});
    assert(it != blob.offsets.end() && "rope table not in blob");
    return "((const float *)(wts + " + std::to_string(it->second) + "))";
  }
  std::string ropeKey(RoPEOp r) const {
    auto factors = r.freqFactorsAt(moduleInt("kiln.context_length"));
    return "rope." + std::to_string(r.getHeadDim()) + "." +
           std::to_string(r.getTheta().bitcastToAPInt().getZExtValue()) +
           (factors ? "." + factors.getValue().str() : "") +
           (r.getScale() ? "*" + std::to_string(r.cosSinScale()) : "") +
           (r.getLinearFactor() ? "/" + std::to_string(r.linearFactor()) : "");
  }
  std::string scratch(Operation *op) const override {
    auto off = op->getAttrOfType<IntegerAttr>("kiln.scratch_offset");
    return "((float *)(act + " + std::to_string(off.getInt()) + "))";
  }
  int64_t kvSlot(int64_t layer) const override { return kv.slot[layer]; }

private:
  int64_t moduleInt(StringRef name) const {
    auto a = module->getAttrOfType<IntegerAttr>(name);
    return a ? a.getInt() : 0;
  }

  mutable ModuleOp module;
  mutable func::FuncOp func;
  const WeightStore &store;
  const ModuleOptions &opts;
  const Target &target;
  const KvPlan kv;
  WeightBlob blob;
  int taskCount = 0, normCount = 0;
  // Rows per thread from which a norm is split over the pool.
  static constexpr int kNormRowsPerThread = 4;
};

kiln_layout Emitter::layout() const {
  return libraryLayout(
      opts, moduleInt("kiln.context_length"), kv,
      func->getAttrOfType<IntegerAttr>("kiln.arena_bytes").getInt());
}

// The runtime's own layout code, linked into the compiler, sizes the arena.
uint64_t Emitter::arenaBytes() const {
  kiln_layout l = layout();
  return kiln_arena_bytes(&l);
}

bool Emitter::buildBlob(std::string &error) {
  // Norm scales and biases are read as f32 whatever their stored type; matmul
  // and embedding weights keep their block layout.
  // Matmul weights are packed into the layout their kernel reads; a weight
  // read by two kernels (a tied embedding and output) is stored for each.
  struct Use {
    std::string sym;
    bool asF32;
    std::string kernel; // for matmul weights
    MatMulOp matmul = nullptr;
  };
  std::vector<Use> uses;
  func.walk([&](Operation *op) {
    if (auto e = dyn_cast<EmbeddingOp>(op))
      uses.push_back({e.getTable().str(), false, ""});
    else if (auto m = dyn_cast<MatMulOp>(op)) {
      auto k = op->getAttrOfType<StringAttr>("kiln.kernel");
      uses.push_back({m.getWeight().str(), false, k ? k.str() : "", m});
      if (m.getBias())
        uses.push_back({m.getBias()->str(), true, ""});
    } else if (auto r = dyn_cast<RMSNormOp>(op); r && r.getWeight())
      uses.push_back({r.getWeight()->str(), true, ""});
  });
  // RoPE cos/sin tables for every position, computed once in double.
  int64_t context = moduleInt("kiln.context_length");
  bool ropeFailed = false;
  func.walk([&](RoPEOp r) {
    std::string key = ropeKey(r);
    if (blob.offsets.count({key, true}) || ropeFailed)
      return;
    const int64_t half = r.getHeadDim() / 2;
    const double theta = r.getTheta().convertToFloat();
    std::vector<float> factors((size_t)half, 1.0f);
    if (auto sym = r.freqFactorsAt(context)) {
      auto w = module.lookupSymbol<WeightOp>(sym.getAttr());
      if (!w || !store.dequantized(w, factors, error)) {
        ropeFailed = true;
        if (!w)
          error = "RoPE frequency factors " + sym.getValue().str() +
                  " are not a weight of the module";
        return;
      }
    }
    std::vector<float> table((size_t)(context * half * 2));
    for (int64_t p = 0; p < context; ++p)
      for (int64_t i = 0; i < half; ++i) {
        double angle = (double)p *
                       std::pow(theta, -2.0 * (double)i / (double)r.getHeadDim()) /
                       (double)factors[i] / r.linearFactor();
        table[(p * half + i) * 2] = (float)(std::cos(angle) * r.cosSinScale());
        table[(p * half + i) * 2 + 1] = (float)(std::sin(angle) * r.cosSinScale());
      }
    blob.add(key, true, reinterpret_cast<const uint8_t *>(table.data()),
             table.size() * sizeof(float));
    if (context <= 0) {
      ropeFailed = true;
      error = "module has no kiln.context_length to size the RoPE tables";
    }
  });
  if (ropeFailed)
    return false;
  // Converting and packing is the long part of a big model: a bar by bytes.
  uint64_t totalBytes = 0, doneBytes = 0;
  for (auto &use : uses)
    if (auto w = module.lookupSymbol<WeightOp>(use.sym))
      totalBytes += (uint64_t)weightBytes(w.getTensorType());
  if (opts.progress)
    opts.progress->phase("converting and packing weights");
  for (auto &[sym, asF32, kernel, matmul] : uses) {
    std::string key = kernel.empty() ? sym : sym + "@" + kernel;
    auto w = module.lookupSymbol<WeightOp>(sym);
    if (opts.progress && w) {
      opts.progress->advance(doneBytes, totalBytes);
      doneBytes += (uint64_t)weightBytes(w.getTensorType());
    }
    if (blob.offsets.count({key, asF32}))
      continue;
    if (!kernel.empty()) {
      const uint8_t *data = store.bytes(w, error);
      if (!data)
        return false;
      auto type = w.getTensorType();
      const int64_t N = type.getDimSize(0), K = type.getDimSize(1);
      const int64_t rowBytes = weightBytes(type) / N;
      // Each piece (a part of a split matmul, or a thread slice of one) is
      // packed on its own: a kernel call reads only its piece's rows.
      auto pieces = matmulPieces(matmul, opts.threads);
      for (size_t i = 0; i < pieces.size(); ++i) {
        const MatMulPiece &p = pieces[i];
        std::vector<uint8_t> packed;
        if (!target.packWeight(kernel, p.n, K, data + p.row0 * rowBytes,
                               (size_t)(p.n * rowBytes), packed, error))
          return false;
        blob.add(pieceKey(key, i, pieces.size()), false, packed.data(),
                 packed.size());
      }
      (void)N;
      continue;
    }
    if (asF32) {
      std::vector<float> values;
      if (!store.dequantized(w, values, error))
        return false;
      blob.add(key, true, reinterpret_cast<const uint8_t *>(values.data()),
               values.size() * sizeof(float));
    } else {
      const uint8_t *data = store.bytes(w, error);
      if (!data)
        return false;
      blob.add(key, false, data, (size_t)weightBytes(w.getTensorType()));
    }
  }
  if (opts.progress)
    opts.progress->advance(totalBytes, totalBytes);
  blob.finish();
  return true;
}

static int64_t width(Value v) {
  return v.getType().cast<RankedTensorType>().getDimSize(1);
}

std::string Emitter::pieceKey(const std::string &key, size_t i, size_t n) {
  return n > 1 ? key + "#" + std::to_string(i) : key;
}

// A matmul: its input quantized once (when the kernel reads Q8_0
// activations; with thread slices, a band of rows per thread), one kernel
// call per piece (a part of a split matmul, or a thread slice of one; slices
// run as tasks on the thread pool), then the
// epilogue over the output while it is still in cache. A sliced part with
// several rows is written into its rows by kernels with a row stride (x86),
// else computed into scratch and interleaved into its rows; the interleave
// and the epilogue run as a second parallel section, a band of rows per task.
// The head of a pool task over a band of a kiln_mm_task's rows: `per` (a C
// expression of a->n) rows a task, rows [r0, r1) of task t, `act` the
// arena; a task past the last row returns.
static std::string bandTaskHead(const std::string &fn, const std::string &per) {
  return "static void " + fn + "(void *arg, int t) {\n"
         "  const kiln_mm_task *a = (const kiln_mm_task *)arg;\n"
         "  uint8_t *const act = a->act;\n"
         "  const int per = " + per + ";\n"
         "  const int r0 = t * per, r1 = a->n < r0 + per ? a->n : r0 + per;\n"
         "  if (r0 >= r1)\n    return;\n";
}

// Rows a task when a->n rows go to `threads` tasks.
static std::string perThread(const std::string &threads) {
  return "(a->n + " + threads + " - 1) / " + threads;
}

void Emitter::emitMatMul(MatMulOp m, const std::string &kernel,
                         std::string &body, std::string &tasks) {
  Operation *op = m.getOperation();
  const int64_t K = width(m.getInput());
  const auto parts = m.getParts();
  const auto pieces = matmulPieces(m, opts.threads);
  auto in = m.getInput().getType().cast<RankedTensorType>();
  const int64_t maxRows =
      in.isDynamicDim(0) ? moduleInt("kiln.max_batch") : in.getDimSize(0);
  const MatMulScratch scr = matmulScratch(m, maxRows, opts.threads);
  auto scrAttr = op->getAttrOfType<IntegerAttr>("kiln.scratch_offset");
  const int64_t scrOff = scrAttr ? scrAttr.getInt() : 0;
  const bool q8 = op->hasAttr("kiln.activation");
  const StringRef ep = m.getEpilogue() ? *m.getEpilogue() : "";
  const std::string rows = this->rows(m.getInput()), K_ = std::to_string(K);
  auto at = [](int64_t off) { return "(act + " + std::to_string(off) + ")"; };
  auto dest = [&](int64_t part) -> std::string {
    if (ep == "swiglu" && part == 1) // the up half waits in scratch
      return "((float *)" + at(scrOff + scr.quantized + scr.slices) + ")";
    return value(m.getOutputs()[part]);
  };
  const std::string key = m.getWeight().str() + "@" + kernel;
  auto weightAt = [&](size_t i, const std::string &base) {
    auto it = blob.offsets.find({pieceKey(key, i, pieces.size()), false});
    assert(it != blob.offsets.end() && "matmul piece not in blob");
    return base + " + " + std::to_string(it->second);
  };
  auto biasAt = [&](const MatMulPiece &p, const std::string &base) {
    if (!m.getBiasAttr())
      return std::string("0");
    auto it = blob.offsets.find({m.getBias()->str(), true});
    return "(const float *)(" + base + " + " + std::to_string(it->second) +
           ") + " + std::to_string(p.row0);
  };
  std::string x = value(m.getInput());
  body += "  {\n";
  bool sliced = llvm::any_of(pieces, [](const MatMulPiece &p) { return p.sliced; });
  // The table's quantizer for the kernel; the portable Q8_0 one otherwise
  // (kernels accept a null input when it has run already). With thread
  // slices, a chunk of rows is quantized in bands on the pool (below).
  const kernels::MatMulKernel *row = kernels::matmulKernelNamed(kernel);
  const std::string quantizer = row ? row->quantizer : "kiln_q8_rows";
  const std::string input = x;
  const bool bandQuantize = q8 && sliced && opts.threads > 1;
  if (q8) {
    if (!bandQuantize)
      body += "    " + quantizer + "(" + x + ", " + rows + ", " + K_ + ", " +
              at(scrOff) + ");\n";
    x = "0";
  }
  if (!sliced) {
    for (size_t i = 0; i < pieces.size(); ++i) {
      const MatMulPiece &p = pieces[i];
      body += "    kiln_" + kernel + "(" + x + ", " + rows + ", " + K_ + ", " +
              weightAt(i, "wts") + ", " + std::to_string(p.n) + ", " +
              biasAt(p, "wts") + ", " + dest(p.part) +
              (q8 ? ", " + at(scrOff) : "") + ");\n";
    }
  } else {
    std::string fn = opts.name + "_mm" + std::to_string(taskCount++);
    std::string tmp = "((float *)" + at(scrOff + scr.quantized) + ")";
    // The interleave of each sliced part into its rows (rows r0..r1-1),
    // unless the kernel writes its slice there itself (a row stride). Then,
    // with more rows than threads, each slice also runs as kSubtasks tasks
    // of whole weight groups (NR rows each, consecutive in the packed
    // piece), so that a thread held up (a late wake, the host's other work)
    // is caught up by the others instead of waited for at the end. Sixteen,
    // not four: where one core runs slower than the other (a virtual CPU
    // whose sibling is busy), finer tasks let the faster take more of them.
    const bool strided = row && kernels::hasRowStrideEntry(*row);
    constexpr int kSubtasks = 16;
    const std::string threadsN = std::to_string(opts.threads);
    std::string t = "static void " + fn + "(void *arg, int t) {\n"
                    "  const kiln_mm_task *a = (const kiln_mm_task *)arg;\n"
                    "  uint8_t *const act = a->act;\n";
    if (strided)
      t += "  const int ns = a->n > " + threadsN + " ? " + std::to_string(kSubtasks) +
           " : 1, s = t % ns;\n  switch (t / ns) {\n";
    else
      t += "  switch (t) {\n";
    std::string gather;
    int64_t tmpCol = 0;
    for (size_t i = 0; i < pieces.size(); ++i) {
      const MatMulPiece &p = pieces[i];
      std::string out = dest(p.part);
      if (p.sliced && strided) {
        const int64_t nr = row->nr, groups = (p.n + nr - 1) / nr;
        const uint64_t bytes =
            blob.sizes.at({pieceKey(key, i, pieces.size()), false});
        const std::string G = std::to_string(groups), NR = std::to_string(nr),
                          PN = std::to_string(p.n), bias = biasAt(p, "a->wts");
        // x86 packing writes whole groups of one size (packX86).
        assert(bytes % groups == 0 && "packed piece is not whole groups");
        const std::string GB = std::to_string(bytes / groups);
        t += "  case " + std::to_string(i) + ": {\n"
             "    const int g0 = " + G + " * s / ns, g1 = " + G + " * (s + 1) / ns;\n"
             "    if (g0 < g1)\n      kiln_" + kernel + "_ld(a->x, a->n, " + K_ + ", " +
             weightAt(i, "a->wts") + " + (int64_t)g0 * " + GB + ", (g1 * " + NR +
             " < " + PN + " ? g1 * " + NR + " : " + PN + ") - g0 * " + NR + ", " +
             (bias == "0" ? bias : bias + " + g0 * " + NR) + ", " + out + " + " +
             std::to_string(p.col) + " + g0 * " + NR + ", " +
             std::to_string(parts[p.part]) + ", a->scratch);\n";
        t += "    break;\n  }\n";
        continue;
      }
      if (strided) { // a part not sliced: its whole call in the first task
        t += "  case " + std::to_string(i) + ":\n    if (s == 0)\n      kiln_" + kernel +
             "(a->x, a->n, " + K_ + ", " + weightAt(i, "a->wts") + ", " +
             std::to_string(p.n) + ", " + biasAt(p, "a->wts") + ", " + out +
             ", a->scratch);\n    break;\n";
        continue;
      }
      if (p.sliced) {
        std::string col = std::to_string(p.col), tc = std::to_string(tmpCol);
        out = "a->n == 1 ? " + out + " + " + col + " : " + tmp +
              " + (int64_t)a->n * " + tc;
        gather += "  for (int r = r0; r < r1; ++r)\n"
                  "    for (int j = 0; j < " + std::to_string(p.n) + "; ++j)\n"
                  "      " + dest(p.part) + "[(int64_t)r * " +
                  std::to_string(parts[p.part]) + " + " + col + " + j] = " +
                  tmp + "[(int64_t)a->n * " + tc + " + (int64_t)r * " +
                  std::to_string(p.n) + " + j];\n";
        tmpCol += p.n;
      }
      t += "  case " + std::to_string(i) + ":\n    kiln_" + kernel + "(a->x, a->n, " +
           K_ + ", " + weightAt(i, "a->wts") + ", " + std::to_string(p.n) +
           ", " + biasAt(p, "a->wts") + ", " + out +
           (q8 ? ", a->scratch" : "") + ");\n    break;\n";
    }
    t += "  }\n}\n\n";
    // Several rows: the interleave and the epilogue run as a second parallel
    // section, each task a band of rows, so neither waits on one thread.
    const std::string threads = std::to_string(opts.threads), W =
        std::to_string(width(m.getOutput()));
    const bool perRow = !gather.empty() || !ep.empty();
    std::string r = bandTaskHead(fn + "_rows", perThread(threads)) + gather;
    const std::string band = "(int64_t)r0 * " + W;
    if (ep == "swiglu")
      r += "  kiln_epilogue_silu_mul(" + value(m.getOutput()) + " + " + band + ", " +
           dest(1) + " + " + band + ", (int64_t)(r1 - r0) * " + W + ");\n";
    else if (!ep.empty())
      r += "  kiln_epilogue_" + ep.str() + "(" + value(m.getOutput()) + " + " + band +
           ", " + value(m.getOther()) + " + " + band + ", (int64_t)(r1 - r0) * " + W +
           ");\n";
    if (perRow)
      t += r + "}\n\n";
    if (bandQuantize) {
      // Each thread quantizes a band of rows. Bands start at multiples of
      // the kernel's register tile (MR rows), so a tiled quantizer lays out
      // each tile as one call over all rows would; a band's blocks go where
      // that call puts its rows' blocks.
      const std::string mr = std::to_string(row ? std::max<int64_t>(row->mr, 1) : 1);
      const std::string rowBytes = std::to_string(
          row ? kernels::scratchRowBytes(*row, K)
              : kernels::activationRowBytes("q8_0", K));
      t += bandTaskHead(fn + "_quantize", "(" + perThread(threads) + " + " + mr +
                                               " - 1) / " + mr + " * " + mr) +
           "  " + quantizer + "(" + input + " + (int64_t)r0 * " + K_ + ", r1 - r0, " + K_ +
           ", a->scratch + (int64_t)r0 * " + rowBytes + ");\n}\n\n";
    }
    tasks += t;
    body += "    kiln_mm_task task = {wts, " + x + ", act, " + at(scrOff) + ", " +
            rows + "};\n";
    // No more rows than threads (decode): quantized on the calling thread,
    // as a parallel section costs more than a row.
    if (bandQuantize)
      body += "    if (task.n > " + threads + ")\n      kiln_parallel_for(ctx, " + fn +
              "_quantize, &task, " + threads + ");\n    else\n      " + quantizer + "(" +
              input + ", " + rows + ", " + K_ + ", " + at(scrOff) + ");\n";
    const std::string count = std::to_string(pieces.size());
    body += "    kiln_parallel_for(ctx, " + fn + ", &task, " +
            (strided ? "task.n > " + threadsN + " ? " +
                           std::to_string(pieces.size() * kSubtasks) + " : " + count
                     : count) +
            ");\n";
    if (perRow)
      body += "    if (task.n > 1)\n      kiln_parallel_for(ctx, " + fn + "_rows, &task, " +
              threads + ");\n" + (ep.empty() ? "" : "    else\n  ");
  }
  const std::string count = "(int64_t)" + rows + " * " + std::to_string(width(m.getOutput()));
  if (ep == "swiglu")
    body += "    kiln_epilogue_silu_mul(" + value(m.getOutput()) + ", " + dest(1) +
            ", " + count + ");\n";
  else if (!ep.empty())
    body += "    kiln_epilogue_" + ep.str() + "(" + value(m.getOutput()) + ", " +
            value(m.getOther()) + ", " + count + ");\n";
  body += "  }\n";
}

// With threads, a prompt's RMS norm runs as one band of rows per thread, as
// the matmuls' epilogues do, instead of on the calling thread while the
// others wait. Each row's sum runs in the same order in a band as in one
// call over all rows, so the results are bit-identical. A few rows (decode)
// stay on the calling thread: waking the pool costs more than they do.
void Emitter::emitNorm(RMSNormOp m, const std::string &kernel, std::string &body,
                       std::string &tasks) {
  const std::string fn = opts.name + "_norm" + std::to_string(normCount++);
  const std::string threads = std::to_string(opts.threads);
  const std::string W = std::to_string(width(m.getResult()));
  const std::string in = value(m.getInput()), out = value(m.getResult());
  const std::string band = " + (int64_t)r0 * " + W;
  tasks += bandTaskHead(fn, perThread(threads)) +
           "  const uint8_t *const wts = a->wts;\n"
           "  " + rmsNormCall(m, "kiln_" + kernel, *this, "r1 - r0", in + band, out + band) +
           ";\n}\n\n";
  const std::string rows = this->rows(m.getInput());
  body += "  {\n    kiln_mm_task task = {wts, 0, act, 0, " + rows + "};\n"
          "    if (task.n >= " + std::to_string(kNormRowsPerThread * opts.threads) +
          ")\n      kiln_parallel_for(ctx, " + fn + ", &task, " + threads + ");\n"
          "    else\n      " + rmsNormCall(m, "kiln_" + kernel, *this, rows, in, out) +
          ";\n  }\n";
}

std::string Emitter::generateHeader() {
  const std::string &N = opts.name, U = upper(opts.name);
  auto logits = func.getFunctionType().getResult(0).cast<RankedTensorType>();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "/* " << N << ".h - generated by kilnc from "
     << module->getAttrOfType<StringAttr>("kiln.source").getValue()
     << " for target " << opts.target << ". Do not edit. */\n"
     << "#ifndef " << U << "_KILN_MODEL_H\n#define " << U
     << "_KILN_MODEL_H\n\n"
     << embeddedSource("kiln.h") << "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "/* Bytes of arena " << N << "_init needs, aligned to KILN_ARENA_ALIGN. */\n"
     << "#define " << U << "_ARENA_BYTES ((size_t)" << arenaBytes() << "u)\n"
     << "#define " << U << "_VOCAB_SIZE " << logits.getDimSize(1) << "\n"
     << "#define " << U << "_CONTEXT_LENGTH " << moduleInt("kiln.context_length") << "\n"
     << "#define " << U << "_MAX_SEQS " << opts.maxSeqs << "\n"
     << "#define " << U << "_MAX_BATCH " << opts.maxBatch << "\n"
     << "#define " << U << "_MAX_THREADS " << opts.threads << "\n"
     << "#define " << U << "_KV_BLOCK " << layout().kv_block << "\n"
     << "#define " << U << "_KV_BLOCKS " << layout().kv_blocks << "\n"
     << "/* Sliding-window layers kept in a ring of SWA_RING positions per\n"
     << "   sequence instead of KV blocks. */\n"
     << "#define " << U << "_SWA_LAYERS " << layout().swa_layers << "\n"
     << "#define " << U << "_SWA_RING " << layout().swa_ring << "\n"
     << "/* Element type of the KV cache (kilnc --kv-cache). */\n"
     << "#define " << U << "_KV_DTYPE "
     << (opts.kvF16 ? "KILN_KV_F16" : "KILN_KV_F32") << "\n"
     << "#define " << U << "_WEIGHTS_EXTERNAL " << (opts.externalWeights ? 1 : 0) << "\n";
  if (opts.externalWeights)
    os << "/* Size of " << N << ".weights, which the caller maps and passes to "
       << N << "_set_weights. */\n";
  else
    os << "/* Size of the embedded weights, which " << N
       << "_copy_weights can copy into\n   caller memory. */\n";
  os << "#define " << U << "_WEIGHTS_BYTES ((size_t)" << blob.bytes.size()
     << "u)\n";
  os << "\n/* Lays out the arena (sequence table, KV cache, activations). */\n"
     << "kiln_status " << N << "_init(kiln_ctx *ctx, void *arena, size_t arena_bytes);\n"
     << "/* As " << N << "_init, then starts threads - 1 worker threads (at most\n   "
     << U << "_MAX_THREADS; 1 on freestanding targets). */\n"
     << "kiln_status " << N << "_init_threads(kiln_ctx *ctx, void *arena, size_t arena_bytes,\n"
     << "    uint32_t threads);\n"
     << "/* Stops the worker threads (the context stays usable, single-threaded). */\n"
     << "void " << N << "_shutdown(kiln_ctx *ctx);\n";
  if (opts.externalWeights)
    os << "/* Checks and attaches the contents of " << N
       << ".weights (must outlive ctx). */\n"
       << "kiln_status " << N << "_set_weights(kiln_ctx *ctx, const void *weights, size_t bytes);\n";
  else
    os << "/* Optional, after " << N << "_init: copies the embedded weights into dst\n"
       << "   (aligned to KILN_ARENA_ALIGN, at least " << U << "_WEIGHTS_BYTES bytes,\n"
       << "   must outlive ctx) and reads them from there from now on. The\n"
       << "   embedded copy sits in the program's file-backed read-only pages;\n"
       << "   anonymous (e.g. huge-page) memory can be read faster. Touching the\n"
       << "   embedded pages once to copy them counts towards resident memory.\n"
       << "   Errors: KILN_ERR_ARENA_MISALIGNED, KILN_ERR_ARENA_TOO_SMALL (dst),\n"
       << "   KILN_ERR_NOT_INITIALIZED; on error ctx is unchanged. */\n"
       << "kiln_status " << N << "_copy_weights(kiln_ctx *ctx, void *dst, size_t bytes);\n";
  os << "kiln_status " << N << "_seq_open(kiln_ctx *ctx, int32_t *seq);\n"
     << "/* Opens *child as a copy of parent that shares its KV blocks. */\n"
     << "kiln_status " << N << "_seq_fork(kiln_ctx *ctx, int32_t parent, int32_t *child);\n"
     << "kiln_status " << N << "_seq_close(kiln_ctx *ctx, int32_t seq);\n"
     << "/* KV blocks (of " << U << "_KV_BLOCK tokens) no sequence holds. */\n"
     << "uint32_t " << N << "_kv_free_blocks(const kiln_ctx *ctx);\n"
     << "/* Appends n tokens to seq; writes the last token's " << U
     << "_VOCAB_SIZE logits\n   to `logits` unless it is NULL. On error nothing changes. */\n"
     << "kiln_status " << N << "_prefill(kiln_ctx *ctx, int32_t seq, const int32_t *tokens,\n"
     << "    size_t n, float *logits);\n"
     << "/* Appends one token; same contract as " << N << "_prefill. */\n"
     << "kiln_status " << N << "_decode(kiln_ctx *ctx, int32_t seq, int32_t token, float *logits);\n"
     << "/* Appends tokens[i] to seqs[i] for n <= " << U << "_MAX_BATCH distinct open\n"
     << "   sequences in one pass over the weights; logits gets n x " << U
     << "_VOCAB_SIZE\n   values (unless NULL). All or nothing: on error no sequence changes. */\n"
     << "kiln_status " << N << "_decode_batch(kiln_ctx *ctx, const int32_t *seqs,\n"
     << "    const int32_t *tokens, size_t n, float *logits);\n"
     << "\n#ifdef __cplusplus\n}\n#endif\n"
     << tokenizerHeader(N, opts.tokenizer != nullptr) << "#endif\n";
  return s;
}

bool Emitter::generateSource(std::string &source, std::string &error) {
  const std::string &N = opts.name;
  auto logits = func.getFunctionType().getResult(0).cast<RankedTensorType>();
  int64_t vocab = logits.getDimSize(1);
  std::string body, tasks;
  for (Operation &op : func.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      body += "  if (logits)\n    for (int64_t i = 0; i < (int64_t)n_out * " +
              std::to_string(vocab) + "; ++i)\n      logits[i] = " +
              value(ret.getOperand(0)) + "[i];\n";
      continue;
    }
    std::string loc;
    if (auto nl = op.getLoc().dyn_cast<NameLoc>())
      loc = nl.getName().str();
    body += "  /* " + loc + ": " + op.getName().getStringRef().str() + " */\n";
    auto kernel = op.getAttrOfType<StringAttr>("kiln.kernel");
    if (auto m = dyn_cast<MatMulOp>(op); m && kernel) {
      emitMatMul(m, kernel.str(), body, tasks);
      continue;
    }
    if (auto m = dyn_cast<RMSNormOp>(op); m && kernel && opts.threads > 1) {
      emitNorm(m, kernel.str(), body, tasks);
      continue;
    }
    if (!target.emitOp(&op, *this, body, error))
      return false;
  }

  std::string s;
  llvm::raw_string_ostream os(s);
  os << "/* " << N << ".c - generated by kilnc for target " << opts.target
     << ". Do not edit. */\n#include \"" << N << ".h\"\n\n"
     << target.kernelSource() << "\n"
     << (tasks.empty() ? "" : "typedef struct kiln_mm_task {\n"
                              "  const uint8_t *wts;\n  const float *x;\n"
                              "  uint8_t *act, *scratch;\n  int n;\n"
                              "} kiln_mm_task;\n\n")
     << tasks;
  if (!opts.externalWeights)
    os << "extern const uint8_t " << N << "_weights_blob[];\n";
  kiln_layout l = layout();
  os << "static const kiln_layout " << N << "_layout = {KILN_ABI_VERSION, "
     << "sizeof(kiln_layout), " << l.n_layers << "u, " << l.kv_width << "u, "
     << l.context << "u, " << l.max_seqs << "u, " << l.kv_block << "u, "
     << l.kv_blocks << "u, " << l.activation_bytes << "u, " << l.max_threads
     << "u, " << (l.kv_dtype == KILN_KV_F16 ? "KILN_KV_F16" : "KILN_KV_F32")
     << ", " << l.swa_layers << "u, " << l.swa_ring << "u};\n\n"
     << "/* One forward call (kiln_forward_fn) over n <= " << opts.maxBatch
     << " rows. */\n"
     << "static void " << N << "_forward(kiln_ctx *ctx, const int32_t *tokens,\n"
     << "    const int32_t *row_seq, const uint32_t *row_pos, int n,\n"
     << "    const int32_t *out_rows, int n_out, float *logits) {\n"
     << "  uint8_t *const act = ctx->activations;\n"
     << "  const uint8_t *const wts = ctx->weights;\n"
     << body << "}\n\n"
     << modelSource(N, blob, opts.externalWeights,
                    N + "_forward, " + std::to_string(vocab) + "u, " +
                        std::to_string(opts.maxBatch) + "u");
  // The API: each function hands the descriptor to the runtime.
  auto api = [&](const std::string &ret, const std::string &name,
                 const std::string &params, const std::string &call) {
    os << ret << " " << N << "_" << name << "(" << params << ") {\n  return "
       << call << ";\n}\n\n";
  };
  const std::string M = "&" + N + "_model";
  if (!opts.externalWeights)
    api("kiln_status", "copy_weights", "kiln_ctx *ctx, void *dst, size_t bytes",
        "kiln_model_copy_weights(" + M + ", ctx, dst, bytes)");
  api("kiln_status", "seq_open", "kiln_ctx *ctx, int32_t *seq",
      "kiln_seq_open(ctx, seq)");
  api("kiln_status", "seq_fork", "kiln_ctx *ctx, int32_t parent, int32_t *child",
      "kiln_seq_fork(ctx, parent, child)");
  api("kiln_status", "seq_close", "kiln_ctx *ctx, int32_t seq",
      "kiln_seq_close(ctx, seq)");
  api("uint32_t", "kv_free_blocks", "const kiln_ctx *ctx",
      "kiln_kv_free_blocks(ctx)");
  api("kiln_status", "prefill",
      "kiln_ctx *ctx, int32_t seq, const int32_t *tokens, size_t n, float *logits",
      "kiln_model_prefill(" + M + ", ctx, seq, tokens, n, logits)");
  api("kiln_status", "decode",
      "kiln_ctx *ctx, int32_t seq, int32_t token, float *logits",
      "kiln_model_prefill(" + M + ", ctx, seq, &token, 1, logits)");
  api("kiln_status", "decode_batch",
      "kiln_ctx *ctx, const int32_t *seqs, const int32_t *tokens, size_t n, "
      "float *logits",
      "kiln_model_decode_batch(" + M + ", ctx, seqs, tokens, n, logits)");
  source = std::move(s);
  return true;
}

} // namespace

bool kiln::writeFile(const std::string &path, const void *data, size_t size,
                     std::string &error) {
  FILE *f = fopen(path.c_str(), "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    error = "cannot write " + path + ": " + strerror(errno);
    if (f)
      fclose(f);
    return false;
  }
  return true;
}

bool kiln::StagingDir::create(const std::string &outDir, std::string &error) {
  if (auto ec = llvm::sys::fs::create_directories(outDir)) {
    error = "cannot create output directory " + outDir + ": " + ec.message();
    return false;
  }
  llvm::SmallString<256> tmpl(outDir);
  llvm::sys::path::append(tmpl, ".kilnc-XXXXXX");
  std::string tmplStr = tmpl.str().str();
  if (!mkdtemp(tmplStr.data())) {
    error = "cannot create a temporary directory in " + outDir + ": " +
            strerror(errno);
    return false;
  }
  path = tmplStr;
  this->outDir = outDir;
  return true;
}

bool kiln::StagingDir::publish(const std::vector<std::string> &names,
                               std::string &error) {
  for (const std::string &f : names) {
    std::string dest = outDir + "/" + f;
    if (llvm::sys::fs::is_directory(dest))
      llvm::sys::fs::remove_directories(dest);
    if (auto ec = llvm::sys::fs::rename(path + "/" + f, dest)) {
      error = "cannot move " + f + " into " + outDir + ": " + ec.message();
      return false;
    }
  }
  return true;
}

kiln::StagingDir::~StagingDir() {
  if (!path.empty())
    llvm::sys::fs::remove_directories(path);
}

static bool addBlobFile(const ModuleOptions &opts, bool hosted,
                        LibrarySources &out);

kiln::ModuleOptions::ModuleOptions(ModuleOp module, const EmitOptions &emit)
    : EmitOptions(emit), LayoutOptions(moduleLayout(module)) {
  if (TargetAttr t = moduleTarget(module))
    target = t.getIsa().str();
}

static int64_t kvBlockOf(const LayoutOptions &opts, int64_t context) {
  return opts.kvBlock <= 0 ? context : std::min(opts.kvBlock, context);
}

kiln::KvPlan kiln::planKv(func::FuncOp forward, const LayoutOptions &opts,
                          int64_t context) {
  KvPlan p;
  std::map<int64_t, int64_t> window; // layer -> window (0: full attention)
  forward.walk([&](AttentionOp a) {
    p.layers = std::max<int64_t>(p.layers, a.getLayer() + 1);
    p.kvWidth = std::max<int64_t>(p.kvWidth, a.getNumKvHeads() * a.getHeadDim());
    window[a.getLayer()] = a.getWindow() ? (int64_t)*a.getWindow() : 0;
  });
  // A query at position p reads p - window + 1 .. p; one call stores up to
  // max_batch rows of a sequence before any of them reads, so a ring must
  // hold window + max_batch - 1 positions, in whole blocks.
  int64_t widest = 0;
  for (auto [layer, w] : window)
    widest = std::max(widest, w);
  const int64_t block = kvBlockOf(opts, context);
  const int64_t ring =
      widest > 0 ? (widest + opts.maxBatch - 1 + block - 1) / block * block : 0;
  const int64_t perSeq = (context + block - 1) / block * block;
  const bool rings = ring > 0 && ring < perSeq;
  p.slot.assign(p.layers, 0);
  int64_t full = 0;
  for (int64_t l = 0; l < p.layers; ++l)
    if (!rings || !window.count(l) || window[l] == 0)
      p.slot[l] = full++;
  for (int64_t l = 0; l < p.layers; ++l)
    if (rings && window.count(l) && window[l] > 0)
      p.slot[l] = full + p.swaLayers++;
  p.swaRing = rings ? ring : 0;
  return p;
}

kiln_layout kiln::libraryLayout(const LayoutOptions &opts, int64_t context,
                                const KvPlan &kv, int64_t activationBytes) {
  const int64_t block = kvBlockOf(opts, context);
  const int64_t perSeq = (context + block - 1) / block;
  const int64_t blocks = opts.kvPoolTokens > 0
                             ? (opts.kvPoolTokens + block - 1) / block
                             : opts.maxSeqs * perSeq;
  kiln_layout l = {};
  l.abi_version = KILN_ABI_VERSION;
  l.struct_size = sizeof(kiln_layout);
  l.n_layers = (uint32_t)kv.layers;
  l.kv_width = (uint32_t)kv.kvWidth;
  l.context = (uint32_t)context;
  l.max_seqs = (uint32_t)opts.maxSeqs;
  l.kv_block = (uint32_t)block;
  l.kv_blocks = (uint32_t)blocks;
  l.activation_bytes = (uint64_t)activationBytes;
  l.max_threads = (uint32_t)opts.threads;
  l.kv_dtype = opts.kvF16 ? KILN_KV_F16 : KILN_KV_F32;
  l.swa_layers = (uint32_t)kv.swaLayers;
  l.swa_ring = (uint32_t)kv.swaRing;
  return l;
}

bool kiln::generateLibrarySources(ModuleOp module, const WeightStore &store,
                                  const EmitOptions &emit,
                                  LibrarySources &out, std::string &error) {
  const ModuleOptions opts(module, emit);
  auto target = createModuleTarget(module, error);
  if (!target)
    return false;
  if (module->hasAttr("kiln.graph")) {
    if (opts.tokenizer) {
      error = "--tokenizer=embed applies to language models (GGUF); a graph "
              "model has no tokenizer";
      return false;
    }
    if (!generateGraphSources(module, opts, *target, out, error))
      return false;
    return addBlobFile(opts, target->hosted(), out);
  }
  auto func = module.lookupSymbol<func::FuncOp>("forward");
  if (!func || !func->hasAttr("kiln.arena_bytes")) {
    error = "module has not been through memory planning";
    return false;
  }
  if (opts.threads > 1 && !target->hosted()) {
    error = "--threads=" + std::to_string(opts.threads) + ": target " +
            opts.target + " is freestanding and runs single-threaded";
    return false;
  }
  Emitter emitter(module, func, store, opts, *target);
  std::string source;
  if (!emitter.buildBlob(error) || !emitter.generateSource(source, error))
    return false;
  const uint64_t maxBytes = target->maxObjectBytes();
  if (!fitsTarget(maxBytes, opts.target, "the arena (KV cache and activations)",
                  emitter.arenaBytes(), error) ||
      !fitsTarget(maxBytes, opts.target, "the weight blob",
                  emitter.blobBytes(), error))
    return false;
  const std::string &N = opts.name;
  out = LibrarySources();
  out.header = N + ".h";
  out.texts.push_back({N + ".h", emitter.generateHeader()});
  out.texts.push_back({N + ".c", std::move(source)});
  out.texts.push_back({"kiln/kiln.h", embeddedSource("kiln.h")});
  out.texts.push_back({"kiln_runtime.c", embeddedSource("kiln_runtime.c")});
  out.units = {N + ".c", "kiln_runtime.c"};
  const char *support = target->hosted() ? "kiln_threads.c" : "kiln_freestanding.c";
  out.texts.push_back({support, embeddedSource(support)});
  out.units.push_back(support);
  if (!target->hosted()) // no C library: our libm, and the headers found by -I.
    for (const char *f : {"kiln_libm.c", "math.h", "string.h"}) {
      out.texts.push_back({f, embeddedSource(f)});
      if (StringRef(f).endswith(".c"))
        out.units.push_back(f);
    }
  if (opts.tokenizer)
    addTokenizerSources(*opts.tokenizer, N, out);
  out.blob = emitter.takeBlobBytes();
  out.cflags = target->cflags();
  if (target->hosted())
    out.cflags.push_back("-DKILN_THREADS");
  return addBlobFile(opts, target->hosted(), out);
}

/// Names the blob's file: NAME.weights (external) or NAME_weights.bin pulled
/// into the archive by an assembler unit.
static bool addBlobFile(const ModuleOptions &opts, bool hosted,
                        LibrarySources &out) {
  const std::string &N = opts.name;
  out.external = opts.externalWeights;
  if (opts.externalWeights) {
    out.blobFile = N + ".weights";
  } else {
    // The blob goes into the archive through the assembler's .incbin, which
    // every GNU-compatible toolchain (clang, gcc, Hexagon's) accepts, with a
    // path relative to the directory the compiler runs in.
    out.blobFile = N + "_weights.bin";
    std::string sym = N + "_weights_blob";
    // On hosted targets a blob of several MiB starts on a 2 MiB boundary:
    // linkers then give its segment a 2 MiB alignment in the file and in
    // memory, and Linux (large page-cache folios, ext4/xfs/tmpfs) can map it
    // with 2 MiB page-table entries, where a 64-byte aligned blob gets 4 KiB
    // pages. Decode streams every weight per token, and every 4 KiB page of
    // it costs a TLB miss (docs/notes/benchmarks-history.md, "Weights and
    // pages"); the price is at most 2 MiB of padding in the binary.
    const bool pmd = hosted && out.blob.size() >= (4u << 20);
    const std::string align = pmd ? "2097152" : "64";
    out.texts.push_back(
        {N + "_weights.S",
         "  .section .rodata." + sym + ",\"a\"\n  .balign " + align +
             "\n  .globl " + sym +
             "\n  .type " + sym + ", %object\n" + sym + ":\n  .incbin \"" +
             out.blobFile + "\"\n  .size " + sym + ", " +
             std::to_string(out.blob.size()) + "\n" +
             "  .section .note.GNU-stack,\"\",%progbits\n"});
    out.units.push_back(N + "_weights.S");
  }
  return true;
}

bool kiln::writeLibrarySources(const LibrarySources &sources,
                               const std::string &dir, std::string &error) {
  if (auto ec = llvm::sys::fs::create_directories(dir + "/kiln")) {
    error = "cannot create " + dir + "/kiln: " + ec.message();
    return false;
  }
  for (const auto &[name, text] : sources.texts)
    if (!writeFile(dir + "/" + name, text.data(), text.size(), error))
      return false;
  return writeFile(dir + "/" + sources.blobFile, sources.blob.data(),
                   sources.blob.size(), error);
}

bool kiln::writeLibrary(ModuleOp module, const WeightStore &store,
                        const EmitOptions &emit, std::string &error) {
  const ModuleOptions opts(module, emit);
  LibrarySources sources;
  if (!generateLibrarySources(module, store, emit, sources, error))
    return false;
  // Build in a private directory inside OUTDIR and move the results in at the
  // end, so a failure leaves no partial output behind.
  StagingDir tmp;
  if (!tmp.create(opts.outDir, error))
    return false;
  if (!writeLibrarySources(sources, tmp.path, error))
    return false;

  if (opts.progress)
    opts.progress->phase("compiling C");
  auto target = createModuleTarget(module, error);
  if (!target)
    return false;
  Toolchain toolchain(*target, opts.cc, opts.ar);
  if (!opts.cacheDir.empty())
    toolchain.setCacheDir(opts.cacheDir);
  std::vector<std::string> objects;
  for (size_t i = 0; i < sources.units.size(); ++i) {
    if (!toolchain.compile(tmp.path, sources.units[i], sources.cflags, error))
      return false;
    objects.push_back(llvm::sys::path::stem(sources.units[i]).str() + ".o");
    if (opts.progress)
      opts.progress->advance(i + 1, sources.units.size());
  }
  for (const HalideObject &h : sources.halide) {
    if (!buildHalideObject(h, tmp.path, error))
      return false;
    objects.push_back(h.file());
  }
  if (opts.progress)
    opts.progress->phase("archiving");
  if (!toolchain.archive(tmp.path, "lib" + opts.name + ".a", objects, error))
    return false;
  std::vector<std::string> results = {"lib" + opts.name + ".a", sources.header};
  if (opts.externalWeights)
    results.push_back(sources.blobFile);
  return tmp.publish(results, error);
}
