//===- kiln-perplexity.cpp - perplexity of a compiled model on a text -----===//
//
//   kiln-perplexity MODEL --target=T --text=FILE [--ctx=N]
//
// Encodes FILE with the GGUF's tokenizer, splits the tokens into chunks of N
// (default: the model's context length) and feeds each chunk as BOS +
// chunk[:-1] to a fresh sequence, so every token of the text is predicted
// once from at most N inputs -- the windows models/train/train.py reports its
// held-out loss on. Prints the perplexity exp(mean negative log-likelihood).
//
// The compiled library's API returns the logits of the last token of a call,
// so the runner feeds one token per call (prefill of BOS, then decode): the
// decode kernels are what is measured. The runner computes each token's
// negative log-likelihood itself (in double, with its own exp/log: the
// runtime has no libm) and prints its bits, so only numbers, not logits,
// cross the pipe. --target=reference evaluates with the reference evaluator
// (f32 weights, or the --kiln-quantize'd ones); --reference evaluates the IR
// compiled for --target with that target's numerics.
//
#include "compiler/driver/Compile.h"
#include "compiler/reference/Evaluator.h"
#include "compiler/support/Process.h"
#include "compiler/targets/Target.h"
#include "compiler/frontend/gguf/Tokenizer.h"
#include "tools/common/ToolOptions.h"
#include "tools/kiln-run/Runner.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <sstream>

using namespace llvm;
using namespace kiln;

static cl::OptionCategory cat("kiln-perplexity options");
static cl::opt<std::string> modelPath(cl::Positional, cl::desc("<model.gguf>"),
                                      cl::Required, cl::cat(cat));
static cl::opt<std::string> target(
    "target",
    cl::desc("generic, x86, neon, sve, rvv, hvx; or reference (the reference "
             "evaluator, no compile)"),
    cl::init("generic"), cl::cat(cat));
static cl::opt<std::string> textPath("text", cl::desc("The text to score"),
                                     cl::Required, cl::cat(cat));
static cl::opt<int64_t> ctxLen(
    "ctx", cl::desc("Tokens per window (default: the model's context length)"),
    cl::init(0), cl::cat(cat));
static cl::opt<int64_t> maxTokens(
    "max-tokens",
    cl::desc("Score only the first N tokens of the text (default: all)"),
    cl::init(0), cl::cat(cat));
static cl::opt<bool> reference(
    "reference",
    cl::desc("Run the reference evaluator on the IR compiled for --target "
             "(with that target's numerics) instead of the library"),
    cl::cat(cat));
static cl::opt<std::string> cpu("cpu", cl::desc("As kilnc --cpu"),
                                cl::cat(cat));
static cl::opt<int64_t> vectorBits("vector-bits",
                                   cl::desc("As kiln-run --vector-bits"),
                                   cl::init(0), cl::cat(cat));
static cl::opt<std::string> quantize("kiln-quantize",
                                     cl::desc("As kilnc --kiln-quantize"),
                                     cl::cat(cat));
static cl::opt<std::string>
    quantizeExclude("kiln-quantize-exclude",
                    cl::desc("As kilnc --kiln-quantize-exclude"),
                    cl::cat(cat));
static cl::list<std::string>
    quantizeOverride("kiln-quantize-override",
                     cl::desc("As kilnc --kiln-quantize-override"),
                     cl::cat(cat));
static cl::opt<std::string>
    keepDir("keep", cl::desc("Build in this directory and keep it"),
            cl::cat(cat));
static cl::opt<std::string> cc("cc", cl::desc("C compiler (default: clang-16)"),
                               cl::cat(cat));
static cl::opt<bool> perToken(
    "per-token", cl::desc("Also print each token's negative log-likelihood"),
    cl::cat(cat));

static int fail(const std::string &msg) {
  errs() << "kiln-perplexity: error: " << msg << "\n";
  return 1;
}

/// Windows of `ids`: inputs BOS + chunk[:-1], targets chunk.
struct Window {
  std::vector<int32_t> inputs, targets;
};

static std::vector<Window> makeWindows(const std::vector<int32_t> &ids,
                                       int64_t ctx, int32_t bos) {
  std::vector<Window> ws;
  for (size_t at = 0; at < ids.size(); at += (size_t)ctx) {
    Window w;
    size_t end = std::min(ids.size(), at + (size_t)ctx);
    w.targets.assign(ids.begin() + at, ids.begin() + end);
    w.inputs.push_back(bos);
    w.inputs.insert(w.inputs.end(), w.targets.begin(), w.targets.end() - 1);
    ws.push_back(std::move(w));
  }
  return ws;
}

static double nll(const std::vector<float> &logits, int32_t target) {
  double mx = -INFINITY;
  for (float l : logits)
    mx = std::max(mx, (double)l);
  double sum = 0;
  for (float l : logits)
    sum += std::exp((double)l - mx);
  return std::log(sum) + mx - (double)logits[target];
}

static std::string runnerSource(const std::vector<Window> &ws, bool hosted) {
  std::ostringstream os;
  os << "/* runner.c - written by kiln-perplexity */\n#include \"model.h\"\n";
  os << "static const int32_t inputs[] = {";
  size_t n = 0;
  for (const Window &w : ws)
    for (int32_t t : w.inputs)
      os << (n++ ? ", " : "") << t;
  os << "};\nstatic const int32_t targets[] = {";
  n = 0;
  for (const Window &w : ws)
    for (int32_t t : w.targets)
      os << (n++ ? ", " : "") << t;
  os << "};\nstatic const int window_len[] = {";
  for (size_t i = 0; i < ws.size(); ++i)
    os << (i ? ", " : "") << ws[i].targets.size();
  os << "};\n#define N_WINDOWS " << ws.size() << "\n";
  os << programIoSource(hosted);
  os << R"c(static char buf[4096];
static size_t used;
static void flush(void) { out(buf, used); used = 0; }
static void put(const char *s) {
  while (*s) { if (used == sizeof buf) flush(); buf[used++] = *s++; }
}
static void check(kiln_status s) {
  if (s == KILN_OK) return;
  put("E "); put(kiln_status_string(s)); put("\n"); flush(); finish(2);
}
/* exp and log in double without libm (freestanding targets have none). */
static double pow2i(int k) {
  union { double d; uint64_t u; } v;
  v.u = (uint64_t)(k + 1023) << 52;
  return v.d;
}
static double kexp(double x) { /* x <= 0 */
  if (x < -740.0) return 0.0;
  double t = x * 1.4426950408889634;
  int k = (int)(t < 0 ? t - 0.5 : t + 0.5);
  double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
  double term = 1.0, sum = 1.0;
  for (int i = 1; i < 18; ++i) { term *= r / i; sum += term; }
  if (k < -1000) { sum *= pow2i(-1000); k += 1000; }
  return sum * pow2i(k);
}
static double klog(double x) { /* x >= 1, finite */
  union { double d; uint64_t u; } v = {x};
  int e = (int)((v.u >> 52) & 0x7ff) - 1023;
  v.u = (v.u & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
  double m = v.d;
  if (m > 1.4142135623730951) { m *= 0.5; ++e; }
  double f = (m - 1.0) / (m + 1.0), f2 = f * f, p = f, s = 0.0;
  for (int i = 1; i < 40; i += 2) { s += p / i; p *= f2; }
  return e * 0.6931471805599453 + 2.0 * s;
}
static double token_nll(const float *l, int32_t target) {
  double mx = l[0], sum = 0.0;
  for (int i = 1; i < MODEL_VOCAB_SIZE; ++i) if (l[i] > mx) mx = l[i];
  for (int i = 0; i < MODEL_VOCAB_SIZE; ++i) sum += kexp((double)l[i] - mx);
  return klog(sum) + mx - (double)l[target];
}
static void put_nll(double d) {
  union { double d; uint64_t u; } v = {d};
  char t[20]; t[0] = 'N'; t[1] = ' ';
  for (int i = 0; i < 16; ++i) t[2 + i] = "0123456789abcdef"[(v.u >> (60 - 4 * i)) & 15];
  t[18] = '\n'; t[19] = 0; put(t);
}
static _Alignas(KILN_ARENA_ALIGN) uint8_t arena[MODEL_ARENA_BYTES];
static float logits[MODEL_VOCAB_SIZE];
static int run(void) {
  kiln_ctx ctx;
  check(model_init(&ctx, arena, sizeof arena));
  size_t at = 0;
  for (int w = 0; w < N_WINDOWS; ++w) {
    int32_t seq;
    check(model_seq_open(&ctx, &seq));
    for (int i = 0; i < window_len[w]; ++i) {
      /* One token per call: the API returns the last token's logits. */
      if (i == 0)
        check(model_prefill(&ctx, seq, inputs + at, 1, logits));
      else
        check(model_decode(&ctx, seq, inputs[at + i], logits));
      put_nll(token_nll(logits, targets[at + i]));
    }
    check(model_seq_close(&ctx, seq));
    at += (size_t)window_len[w];
  }
  model_shutdown(&ctx);
  flush();
  return 0;
}
)c";
  os << programEntrySource(hosted);
  return os.str();
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "kiln-perplexity: perplexity of a compiled model on a text\n\n"
      "  kiln-perplexity MODEL --target=generic --text=FILE [--ctx=N]\n");

  bool f32Reference = target == "reference";
  CompileOptions opts;
  opts.target = f32Reference ? "generic" : target.getValue();
  opts.targetOptions.cpu = cpu;
  std::string error;
  auto t = createTarget(opts.target, opts.targetOptions, error);
  if (!t || !t->checkRun(vectorBits, error))
    return fail(error);

  auto text = MemoryBuffer::getFile(textPath, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
  if (!text)
    return fail("cannot read --text=" + textPath + ": " +
                text.getError().message());

  mlir::MLIRContext mctx;
  LoadedModel model;
  if (!loadModel(mctx, modelPath, model, error))
    return fail(error);
  Tokenizer tok;
  if (!tok.load(*model.file, error))
    return fail(error);
  std::vector<int32_t> ids = tok.encode((*text)->getBuffer().str(), false);
  if (maxTokens < 0)
    return fail("--max-tokens must be non-negative");
  if (maxTokens > 0 && (size_t)maxTokens < ids.size())
    ids.resize((size_t)maxTokens);
  if (ids.empty())
    return fail("--text=" + textPath + " has no tokens");
  auto modelCtx = model.module->getOperation()
                      ->getAttrOfType<mlir::IntegerAttr>("kiln.context_length")
                      .getInt();
  int64_t ctx = ctxLen ? ctxLen.getValue() : modelCtx;
  if (ctx < 1 || ctx > modelCtx)
    return fail("--ctx=" + std::to_string(ctx) + ": expected 1 to the model's "
                "context length " + std::to_string(modelCtx));
  std::vector<Window> windows = makeWindows(ids, ctx, tok.bos());

  opts.emit.name = "model";
  opts.emit.cc = cc;
  opts.layout.maxBatch = 1;
  opts.layout.maxSeqs = 1;
  opts.layout.context = ctx;
  opts.pipeline.quantize = quantize;
  opts.pipeline.quantizeExclude = quantizeExclude;
  opts.pipeline.quantizeOverrides = quantizeOverride;
  // The f32 reference still honours --kiln-quantize: only that pass runs.
  if (f32Reference)
    opts.pipeline.stopAfter = "kiln-quantize";

  std::vector<double> nlls;
  if (!runPipeline(*model.module, opts, error))
    return fail(error);
  if (f32Reference || reference) {
    Evaluator eval(*model.module, *model.weights);
    if (!eval.prepare(error))
      return fail(error);
    for (const Window &w : windows) {
      // One call per window: every row's logits (all rows in sequence 0).
      eval.reset();
      std::vector<int32_t> seqs(w.inputs.size(), 0);
      std::vector<std::vector<float>> logits;
      if (!eval.runBatch(seqs, w.inputs, logits, error))
        return fail(error);
      for (size_t i = 0; i < w.targets.size(); ++i)
        nlls.push_back(nll(logits[i], w.targets[i]));
    }
  } else {
    std::string output;
    int rc = 0;
    if (!buildAndRun(*model.module, *model.weights, opts.emit, *t,
                     runnerSource(windows, t->hosted()), vectorBits, keepDir,
                     output, rc, error))
      return fail(error);
    std::istringstream in(output);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("N ", 0) == 0 && line.size() == 18) {
        uint64_t bits = std::stoull(line.substr(2), nullptr, 16);
        double d;
        std::memcpy(&d, &bits, 8);
        nlls.push_back(d);
      } else if (line.rfind("E ", 0) == 0) {
        return fail("the compiled model returned an error: " + line.substr(2));
      } else if (!line.empty()) {
        return fail("unexpected runner output: " + line.substr(0, 200));
      }
    }
    if (rc != 0)
      return fail(error);
    if (nlls.size() != ids.size())
      return fail("the runner printed " + std::to_string(nlls.size()) +
                  " values for " + std::to_string(ids.size()) + " tokens");
  }

  double sum = 0;
  for (size_t i = 0; i < nlls.size(); ++i) {
    sum += nlls[i];
    if (perToken)
      outs() << format("nll %zu %d %.9f\n", i, ids[i], nlls[i]);
  }
  double mean = sum / (double)nlls.size();
  outs() << format("tokens %zu windows %zu ctx %lld\n", nlls.size(),
                   windows.size(), (long long)ctx);
  outs() << format("mean nll %.9f\n", mean);
  outs() << format("perplexity %.6f\n", std::exp(mean));
  return 0;
}
