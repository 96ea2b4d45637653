//===- GraphEmitter.cpp - the library of a graph model (ONNX) -------------===//
//
// A graph model's library has one entry point, NAME_run(ctx, inputs,
// outputs): each kiln.tensor_op becomes a call of its kernel with its
// parameters as static arrays and its operands at their planned arena
// offsets; constants are read from the weight blob; results are copied to
// the caller's output buffers at the end. The header describes every input
// and output (name, type, shape, bytes) as constants and as tables.
//
#include "kernels/Embedded.h"
#include "kernels/KernelTable.h"
#include "compiler/codegen/GraphEmitter.h"
#include "compiler/codegen/EpilogueLoops.h"
#include "compiler/codegen/WeightBlob.h"
#include "kiln/kiln.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <set>

#include <cmath>

using namespace mlir;

namespace kiln {

namespace {

int32_t dtypeCode(Type t) {
  if (t.isF32()) return 1;
  if (t.isF64()) return 11;
  if (t.isF16()) return 10;
  if (t.isInteger(1)) return 9;
  auto i = t.dyn_cast<IntegerType>();
  if (!i) return 0;
  bool u = i.isUnsigned();
  switch (i.getWidth()) {
  case 8: return u ? 2 : 3;
  case 16: return u ? 4 : 5;
  case 32: return u ? 12 : 6;
  case 64: return u ? 13 : 7;
  }
  return 0;
}

int64_t byteSize(RankedTensorType t) {
  return t.getNumElements() * ((t.getElementTypeBitWidth() + 7) / 8);
}

std::string typeComment(RankedTensorType t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::string floatLiteral(float v) {
  if (std::isnan(v))
    return "(0.0f/0.0f)";
  if (std::isinf(v))
    return v > 0 ? "(1.0f/0.0f)" : "(-1.0f/0.0f)";
  char buf[48];
  snprintf(buf, sizeof buf, "%af", (double)v); // exact
  return buf;
}

std::string cString(StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if ((unsigned char)c < 32) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\%03o", (unsigned char)c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string commentSafe(StringRef s) {
  std::string out;
  for (char c : s)
    out += (c == '*' || (unsigned char)c < 32) ? '_' : c;
  return out;
}

} // namespace

bool generateGraphSources(ModuleOp module,
                          const ModuleOptions &opts, const Target &target,
                          LibrarySources &out, std::string &error) {
  auto func = module.lookupSymbol<func::FuncOp>("run");
  if (!func || !func->hasAttr("kiln.arena_bytes")) {
    error = "graph module has not been through memory planning";
    return false;
  }
  if (opts.threads > 1 && !target.hosted()) {
    error = "--threads=" + std::to_string(opts.threads) + ": target " +
            opts.target + " is freestanding and runs single-threaded";
    return false;
  }
  const std::string &N = opts.name;
  const std::string U = StringRef(N).upper();

  // Constants, each once, in the blob. The table names them by source, so
  // two constants of one name must hold the same bytes.
  WeightBlob blob;
  std::map<std::string, uint64_t> constOffset;
  std::map<std::string, ArrayRef<char>> constBytes;
  bool failed = false;
  func.walk([&](ConstantOp c) {
    if (failed)
      return;
    std::string name = c.getSource().str();
    std::optional<ArrayRef<char>> bytes = c.bytes();
    if (!bytes) {
      error = "constant '" + name + "' has no bytes (its dense_resource "
              "blob is missing from the IR)";
      failed = true;
      return;
    }
    if (auto seen = constBytes.find(name); seen != constBytes.end()) {
      if (seen->second != *bytes) {
        error = "two constants are named '" + name +
                "' but hold different bytes";
        failed = true;
      }
      return;
    }
    constBytes[name] = *bytes;
    blob.add(name, false, (const uint8_t *)bytes->data(), bytes->size());
    constOffset[name] = blob.offsets[{name, false}];
  });
  if (failed)
    return false;
  blob.finish();

  // Where a value lives, as a table entry: kind << 60 | index or byte
  // offset, kind 0 a graph input, 1 the weight blob, 2 the arena, 3 none.
  auto ref = [&](Value v) -> uint64_t {
    if (!v)
      return 3ull << 60;
    // A reshape is its operand's bytes where they are (kiln-plan-memory
    // gives it no buffer of its own).
    while (auto view = v.getDefiningOp<ReshapeOp>())
      v = view.getInput();
    if (auto arg = v.dyn_cast<BlockArgument>())
      return arg.getArgNumber();
    Operation *def = v.getDefiningOp();
    if (auto c = dyn_cast<ConstantOp>(def))
      return 1ull << 60 | constOffset[c.getSource().str()];
    if (auto all = def->getAttrOfType<DenseI64ArrayAttr>("kiln.offsets"))
      return 2ull << 60 | (uint64_t)all[v.cast<OpResult>().getResultNumber()];
    return 2ull << 60 | (uint64_t)def->getAttrOfType<IntegerAttr>("kiln.offset").getInt();
  };
  // The same place as a C expression in run().
  auto value = [&](Value v) -> std::string {
    const uint64_t r = ref(v), at = r & ((1ull << 60) - 1);
    const char *base[] = {"inputs[", "(wts + ", "(act + "};
    return base[r >> 60] + std::to_string(at) + ((r >> 60) ? ")" : "]");
  };

  // The graph is a table of steps that run() walks: one row per kernel call
  // (its kernel, where its parameters and operands are in the tables), so
  // the C the compiler sees grows by data, not code, with the graph, and a
  // graph of 200,000 nodes compiles about as fast as one of 2,000.
  std::string steps, pTable = "0", fTable = "0.0f", rTable, epilogues;
  // Calls given to Halide (kiln-select-kernels' halide option): one
  // pipeline object per shape, and a step function that calls it.
  std::vector<HalideObject> halide;
  // Pipeline symbols and step functions already declared.
  std::set<std::string> halideDeclared;
  std::string halideDecls;
  llvm::raw_string_ostream ss(steps), ps(pTable), fs_(fTable), rs(rTable);
  int64_t nP = 1, nF = 1, nR = 0, nSteps = 0, nEpilogues = 0;
  size_t maxIn = 1, maxOut = 1;
  for (Operation &op : func.getBody().front()) {
    auto t = dyn_cast<TensorOp>(op);
    if (!t)
      continue;
    SmallVector<int64_t> slots = t.getKernelSlots();
    // Runs of the epilogue compiled to loops: each an extra input (ref kind
    // 4, the function's index).
    SmallVector<int64_t> params(t.getParams());
    SmallVector<int64_t> loops = emitEpilogueLoops(
        t.getKernel(), params, (int64_t)slots.size(), N, nEpilogues, epilogues);
    const int64_t pAt = params.empty() ? 0 : nP;
    for (int64_t v : params)
      ps << ", " << v;
    nP += params.size();
    int64_t fAt = 0;
    if (auto fparams = t.getFparams(); fparams && !fparams->empty()) {
      ArrayRef<float> fvals = *fparams;
      fAt = nF;
      for (float v : fvals)
        fs_ << ", " << floatLiteral(v);
      nF += fvals.size();
    }
    const int64_t rAt = nR;
    for (int64_t slot : slots)
      rs << (nR++ ? ", " : "") << ref(slot < 0 ? Value() : t.getInputs()[slot])
         << "u";
    for (int64_t k : loops)
      rs << (nR++ ? ", " : "") << (4ull << 60 | (uint64_t)k) << "u";
    for (size_t i = 0; i < t.getNumResults(); ++i)
      rs << (nR++ ? ", " : "") << ref(t->getResult(i)) << "u";
    const size_t nInputs = slots.size() + loops.size();
    maxIn = std::max(maxIn, nInputs);
    maxOut = std::max<size_t>(maxOut, t.getNumResults());
    int64_t scratch = -1, parts = 1, stride = 0;
    if (auto off = t->getAttrOfType<IntegerAttr>("kiln.scratch_offset"))
      scratch = off.getInt();
    if (auto a = t->getAttrOfType<IntegerAttr>("kiln.parts"))
      parts = std::max<int64_t>(1, a.getInt());
    if (auto bytes = t->getAttrOfType<IntegerAttr>("kiln.scratch_bytes"))
      stride = bytes.getInt() / parts; // kiln-plan-memory: one per share
    std::string fn = "kiln_t_" + t.getKernel().str();
    const bool halideConv = t.getKernel() == "halide_conv";
    int64_t m, n, k; // the pipeline's shape
    if ((t.getKernel() == "halide_sgemm" || halideConv) &&
        kernels::tensorGemmShape(t.getKernel().str(), params.data(),
                                 params.size(), m, n, k)) {
      const std::string dims = std::to_string(m) + "x" + std::to_string(n) +
                               "x" + std::to_string(k);
      const std::string symbol = N + "_halide_sgemm_" + dims;
      fn = symbol + (halideConv ? "_conv_step" : "_step");
      if (halideDeclared.insert(symbol).second) {
        halide.push_back({symbol, "sgemm",
                          std::to_string(m) + "," + std::to_string(n) + "," +
                              std::to_string(k),
                          opts.target});
        halideDecls += "int " + symbol +
                       "(struct halide_buffer_t *, struct halide_buffer_t *,\n"
                       "    struct halide_buffer_t *);\n";
      }
      if (halideDeclared.insert(fn).second)
        halideDecls +=
            "static void " + fn +
            "(const int64_t *p, const float *f,\n"
            "    const void *const *in, void *const *out, void *scratch) {\n"
            "  (void)scratch;\n" +
            (halideConv ? "  kiln_halide_conv(" + symbol + ", p, in, out);\n"
                          "  kiln_conv_epilogue_f32(p, f, in, out);\n}\n"
                        : "  kiln_halide_sgemm(" + symbol + ", p, in, out);\n"
                          "  kiln_matmul_epilogue_f32(p, f, in, out);\n}\n");
    }
    ss << "  /* " << commentSafe(t.getNode()) << " (" << t.getOnnxOp()
       << ") */ {" << fn << ", "
       << (parts > 1 ? "kiln_tp_" + t.getKernel().str() : std::string("0"))
       << ", " << pAt << "u, " << fAt << "u, " << rAt << "u, " << nInputs
       << "u, " << t.getNumResults() << "u, " << scratch << ", " << stride
       << ", " << parts << "},\n";
    ++nSteps;
  }
  ss.flush(); ps.flush(); fs_.flush(); rs.flush();
  std::string runSteps;
  llvm::raw_string_ostream rss(runSteps);
  rss << "/* Step i calls fn with the parameters p[pi..], the float parameters\n"
      << "   f[fi..] (fi 0: none), its operands and then its results from\n"
      << "   refs[ri..] (each kind << 60 | index or offset: 0 a graph input,\n"
      << "   1 the weights, 2 the arena, 3 none, 4 an epilogue loop) and its\n"
      << "   scratch at act + scratch (-1: none). A step with shares (part)\n"
      << "   runs as many as the context's threads, up to parts, on them,\n"
      << "   share i with the scratch at act + scratch + i * stride. */\n"
      << "typedef struct {\n  kiln_tensor_kernel fn;\n"
      << "  kiln_tensor_part_kernel part;\n"
      << "  uint32_t pi, fi, ri, n_in, n_out;\n  int64_t scratch, stride;\n"
      << "  int parts;\n} "
      << N << "_step;\n"
      << (halideDecls.empty()
              ? std::string()
              : "/* Halide pipelines (runtime/src/kiln_halide.c). */\n"
                "struct halide_buffer_t;\n"
                "void kiln_halide_sgemm(int (*fn)(struct halide_buffer_t *,\n"
                "    struct halide_buffer_t *, struct halide_buffer_t *),\n"
                "    const int64_t *p, const void *const *in, void *const *out);\n"
                "void kiln_halide_conv(int (*fn)(struct halide_buffer_t *,\n"
                "    struct halide_buffer_t *, struct halide_buffer_t *),\n"
                "    const int64_t *p, const void *const *in, void *const *out);\n" +
                    halideDecls + "\n")
      << "static const int64_t " << N << "_p[] = {" << pTable << "};\n"
      << "static const float " << N << "_f[] = {" << fTable << "};\n"
      << "static const uint64_t " << N << "_refs[] = {"
      << (rTable.empty() ? "0" : rTable) << "};\n"
      << "static const " << N << "_step " << N << "_steps[] = {\n"
      << (steps.empty() ? "  {0, 0, 0, 0, 0, 0, 0, -1, 0, 1},\n" : steps)
      << "};\n\n"
      << epilogues;
  if (nEpilogues) {
    rss << "static const kiln_epilogue_fn " << N << "_epilogues[] = {";
    for (int64_t k = 0; k < nEpilogues; ++k)
      rss << (k ? ", " : "") << N << "_ep" << k;
    rss << "};\n\n";
  }
  rss << "static void *" << N << "_ref(uint64_t r, uint8_t *act, const uint8_t *wts,\n"
      << "    const void *const *inputs) {\n"
      << "  const uint64_t at = r & ((1ull << 60) - 1);\n"
      << "  switch (r >> 60) {\n"
      << "  case 0: return (void *)inputs[at];\n"
      << "  case 1: return (void *)(wts + at);\n"
      << "  case 2: return act + at;\n"
      << (nEpilogues ? "  case 4: { /* a function, as kiln_epilogue_f32 reads it */\n"
                       "    void *fn;\n    memcpy(&fn, &" + N + "_epilogues[at], sizeof fn);\n"
                       "    return fn;\n  }\n"
                     : std::string())
      << "  default: return 0;\n  }\n}\n\n"
      << "typedef struct {\n  const " << N << "_step *st;\n"
      << "  const void *const *in;\n  void *const *out;\n  uint8_t *scratch;\n"
      << "  int parts;\n} " << N << "_share;\n"
      << "static void " << N << "_run_share(void *arg, int i) {\n"
      << "  const " << N << "_share *s = (const " << N << "_share *)arg;\n"
      << "  const " << N << "_step *st = s->st;\n"
      << "  st->part(" << N << "_p + st->pi, st->fi ? " << N
      << "_f + st->fi : 0, s->in, s->out,\n"
      << "           s->scratch ? s->scratch + i * st->stride : 0, i, s->parts);\n"
      << "}\n\n";
  std::string runCalls;
  runCalls += "  for (int s = 0; s < " + std::to_string(nSteps) + "; ++s) {\n"
              "    const " + N + "_step *st = &" + N + "_steps[s];\n"
              "    const void *in[" + std::to_string(maxIn) + "] = {0};\n"
              "    void *out[" + std::to_string(maxOut) + "] = {0};\n"
              "    for (uint32_t i = 0; i < st->n_in; ++i)\n"
              "      in[i] = " + N + "_ref(" + N + "_refs[st->ri + i], act, wts, inputs);\n"
              "    for (uint32_t i = 0; i < st->n_out; ++i)\n"
              "      out[i] = " + N + "_ref(" + N + "_refs[st->ri + st->n_in + i], act, wts, inputs);\n"
              "    uint8_t *scratch = st->scratch < 0 ? 0 : act + st->scratch;\n"
              "    const int shares = (int)ctx->threads < st->parts ? (int)ctx->threads\n"
              "                                                     : st->parts;\n"
              "    if (st->part && shares > 1) {\n"
              "      " + N + "_share share = {st, in, out, scratch, shares};\n"
              "      kiln_parallel_for(ctx, " + N + "_run_share, &share, share.parts);\n"
              "    } else {\n"
              "      st->fn(" + N + "_p + st->pi, st->fi ? " + N + "_f + st->fi : 0, in, out,\n"
              "             scratch);\n"
              "    }\n"
              "  }\n";
  std::string parts = runSteps;
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (size_t i = 0; i < ret.getNumOperands(); ++i) {
    auto type = ret.getOperand(i).getType().cast<RankedTensorType>();
    runCalls += "  memcpy(outputs[" + std::to_string(i) + "], " +
                value(ret.getOperand(i)) + ", " +
                std::to_string(byteSize(type)) + "u);\n";
  }

  // Tables describing inputs and outputs.
  std::string tables;
  llvm::raw_string_ostream ts(tables);
  auto describe = [&](const char *kind, ArrayRef<Type> types,
                      std::function<StringRef(unsigned)> nameOf) {
    for (size_t i = 0; i < types.size(); ++i) {
      auto t = types[i].cast<RankedTensorType>();
      ts << "static const int64_t " << N << "_" << kind << i << "_shape[] = {";
      for (size_t d = 0; d < (size_t)t.getRank(); ++d)
        ts << (d ? ", " : "") << t.getDimSize(d);
      ts << (t.getRank() ? "" : "0") << "};\n";
    }
    ts << "const kiln_tensor_info " << N << "_" << kind << "s[] = {\n";
    for (size_t i = 0; i < types.size(); ++i) {
      auto t = types[i].cast<RankedTensorType>();
      ts << "  {" << cString(nameOf(i)) << ", " << dtypeCode(t.getElementType())
         << ", " << t.getRank() << ", " << N << "_" << kind << i << "_shape, "
         << byteSize(t) << "u},\n";
    }
    if (types.empty())
      ts << "  {0, 0, 0, 0, 0}\n";
    ts << "};\n";
  };
  auto argName = [&](unsigned i) {
    return func.getArgAttrOfType<StringAttr>(i, "kiln.name").getValue();
  };
  auto resName = [&](unsigned i) {
    return func.getResultAttrOfType<StringAttr>(i, "kiln.name").getValue();
  };
  auto fnType = func.getFunctionType();
  describe("input", fnType.getInputs(), argName);
  describe("output", fnType.getResults(), resName);

  kiln_layout l = {};
  l.abi_version = KILN_ABI_VERSION;
  l.struct_size = sizeof(kiln_layout);
  l.context = 1;
  l.max_seqs = 1;
  l.kv_block = 1;
  l.kv_blocks = 1;
  l.activation_bytes =
      (uint64_t)func->getAttrOfType<IntegerAttr>("kiln.arena_bytes").getInt();
  l.max_threads = (uint32_t)std::max<int64_t>(1, opts.threads);
  const uint64_t arena = kiln_arena_bytes(&l);
  const uint64_t maxBytes = target.maxObjectBytes();
  const uint64_t ceiling = (uint64_t)moduleLayout(module).maxTensorBytes;
  if (blob.bytes.size() > ceiling) {
    error = "the weight blob (the graph's constants) needs " +
            std::to_string(blob.bytes.size()) + " bytes, more than " +
            std::to_string(ceiling) + " (--max-tensor-bytes)";
    return false;
  }
  if (!fitsTarget(maxBytes, opts.target, "the arena", arena, error) ||
      !fitsTarget(maxBytes, opts.target, "the weight blob", blob.bytes.size(),
                  error))
    return false;
  auto fitAll = [&](const char *kind, ArrayRef<Type> types,
                    llvm::function_ref<StringRef(unsigned)> nameOf) {
    for (unsigned i = 0; i < types.size(); ++i)
      if (!fitsTarget(maxBytes, opts.target,
                      std::string("graph ") + kind + " '" + nameOf(i).str() + "'",
                      byteSize(types[i].cast<RankedTensorType>()), error))
        return false;
    return true;
  };
  if (!fitAll("input", fnType.getInputs(), argName) ||
      !fitAll("output", fnType.getResults(), resName))
    return false;

  // --- header ---
  std::string header;
  llvm::raw_string_ostream hs(header);
  std::string source = "graph";
  if (auto s = module->getAttrOfType<StringAttr>("kiln.source"))
    source = s.getValue().str();
  hs << "/* " << N << ".h - generated by kilnc from " << commentSafe(source)
     << " for target " << opts.target << ". Do not edit. */\n"
     << "#ifndef " << U << "_KILN_MODEL_H\n#define " << U << "_KILN_MODEL_H\n\n"
     << embeddedSource("kiln.h")
     << "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "/* Bytes of arena " << N << "_init needs, aligned to KILN_ARENA_ALIGN. */\n"
     << "#define " << U << "_ARENA_BYTES ((size_t)" << arena << "u)\n"
     << "#define " << U << "_WEIGHTS_EXTERNAL " << (opts.externalWeights ? 1 : 0) << "\n";
  if (opts.externalWeights)
    hs << "#define " << U << "_WEIGHTS_BYTES ((size_t)" << blob.bytes.size() << "u)\n";
  hs << "#define " << U << "_MAX_THREADS " << l.max_threads << "\n"
     << "#define " << U << "_NUM_INPUTS " << fnType.getNumInputs() << "\n"
     << "#define " << U << "_NUM_OUTPUTS " << fnType.getNumResults() << "\n\n";
  auto declare = [&](const char *kind, const char *KIND, ArrayRef<Type> types,
                     std::function<StringRef(unsigned)> nameOf) {
    for (size_t i = 0; i < types.size(); ++i) {
      auto t = types[i].cast<RankedTensorType>();
      hs << "/* " << kind << " " << i << ": '" << commentSafe(nameOf(i))
         << "', " << typeComment(t) << " */\n"
         << "#define " << U << "_" << KIND << "_" << i << "_BYTES ((size_t)"
         << byteSize(t) << "u)\n";
    }
    hs << "extern const kiln_tensor_info " << N << "_" << kind << "s[];\n\n";
  };
  declare("input", "INPUT", fnType.getInputs(), argName);
  declare("output", "OUTPUT", fnType.getResults(), resName);
  hs << "/* Lays out the arena. */\n"
     << "kiln_status " << N << "_init(kiln_ctx *ctx, void *arena, size_t arena_bytes);\n"
     << "/* As " << N << "_init, then starts threads - 1 worker threads (at most\n   "
     << U << "_MAX_THREADS; 1 on freestanding targets), which " << N
     << "_run's large\n   steps are split over; the results do not depend on "
     << "the number. */\n"
     << "kiln_status " << N << "_init_threads(kiln_ctx *ctx, void *arena, size_t arena_bytes,\n"
     << "    uint32_t threads);\n"
     << "/* Stops the worker threads (the context stays usable, single-threaded). */\n"
     << "void " << N << "_shutdown(kiln_ctx *ctx);\n";
  if (opts.externalWeights)
    hs << "/* Checks and attaches the contents of " << N
       << ".weights (must outlive ctx). */\n"
       << "kiln_status " << N << "_set_weights(kiln_ctx *ctx, const void *weights, size_t bytes);\n";
  hs << "/* Runs the graph: inputs[i] holds " << N << "_inputs[i].bytes bytes of its\n"
     << "   type and shape; outputs[i] receives " << N << "_outputs[i].bytes bytes.\n"
     << "   Buffers need no alignment and may not overlap the arena. */\n"
     << "kiln_status " << N << "_run(kiln_ctx *ctx, const void *const *inputs,\n"
     << "    void *const *outputs);\n"
     << "\n#ifdef __cplusplus\n}\n#endif\n#endif\n";

  // --- source ---
  std::string src;
  llvm::raw_string_ostream os(src);
  os << "/* " << N << ".c - generated by kilnc for target " << opts.target
     << ". Do not edit. */\n#include \"" << N << ".h\"\n#include \"kiln_tensor.h\"\n"
     << "\n" << tables << "\n";
  if (!opts.externalWeights)
    os << "extern const uint8_t " << N << "_weights_blob[];\n";
  os << "static const kiln_layout " << N << "_layout = {KILN_ABI_VERSION, "
     << "sizeof(kiln_layout), 0u, 0u, 1u, 1u, 1u, 1u, " << l.activation_bytes
     << "u, " << l.max_threads << "u, 0u};\n\n"
     << modelSource(N, blob, opts.externalWeights);
  os << parts;
  os << "kiln_status " << N << "_run(kiln_ctx *ctx, const void *const *inputs,\n"
     << "    void *const *outputs) {\n"
     << "  if (!ctx || " << (fnType.getNumInputs() ? "!inputs || " : "")
     << "!outputs)\n"
     << "    return KILN_ERR_INVALID_ARGUMENT;\n"
     << "  if (ctx->magic != 0x4b494c4eu) return KILN_ERR_NOT_INITIALIZED;\n"
     << "  if (!ctx->weights) return KILN_ERR_WEIGHTS_MISSING;\n"
     << "  for (int i = 0; i < " << fnType.getNumInputs() << "; ++i)\n"
     << "    if (!inputs[i]) return KILN_ERR_INVALID_ARGUMENT;\n"
     << "  for (int i = 0; i < " << fnType.getNumResults() << "; ++i)\n"
     << "    if (!outputs[i]) return KILN_ERR_INVALID_ARGUMENT;\n"
     << "  uint8_t *const act = ctx->activations;\n"
     << "  const uint8_t *const wts = ctx->weights;\n"
     << "  (void)act; (void)wts;\n"
     << runCalls << "  return KILN_OK;\n}\n";

  out = LibrarySources();
  out.header = N + ".h";
  out.texts.push_back({N + ".h", header});
  out.texts.push_back({N + ".c", src});
  out.texts.push_back({"kiln/kiln.h", embeddedSource("kiln.h")});
  out.texts.push_back({"kiln_runtime.c", embeddedSource("kiln_runtime.c")});
  out.units = {N + ".c", "kiln_runtime.c"};
  const char *support = target.hosted() ? "kiln_threads.c" : "kiln_freestanding.c";
  out.texts.push_back({support, embeddedSource(support)});
  out.units.push_back(support);
  if (!target.hosted()) // no C library: our libm, and the headers found by -I.
    for (const char *f : {"kiln_libm.c", "math.h", "string.h"}) {
      out.texts.push_back({f, embeddedSource(f)});
      if (StringRef(f).endswith(".c"))
        out.units.push_back(f);
    }
  // The tensor kernels: headers beside the sources, every .c compiled.
  for (size_t i = 0; i < kTensorKernelSources_count; ++i) {
    const EmbeddedFile &f = kTensorKernelSources[i];
    out.texts.push_back({f.name, std::string(f.text, f.size)});
    if (StringRef(f.name).endswith(".c"))
      out.units.push_back(f.name);
  }
  if (!halide.empty()) {
    for (const char *f : {"kiln_halide.c", "HalideRuntime.h"})
      out.texts.push_back({f, embeddedSource(f)});
    out.units.push_back("kiln_halide.c");
    out.halide = std::move(halide);
  }
  out.blob = std::move(blob.bytes);
  out.external = opts.externalWeights;
  out.cflags = target.cflags();
  if (target.hosted())
    out.cflags.push_back("-DKILN_THREADS");
  return true;
}
} // namespace kiln
