//===- kiln-run.cpp - compile a model, link a runner, generate tokens -----===//
//
//   kiln-run MODEL --target=T --tokens=1,5,9 --generate=N [--logits]
//
// Compiles MODEL exactly as kilnc does, links a small C program against the
// library, prefills the tokens, greedily decodes N tokens and prints them on
// one line. --logits prints the logits after the last step instead (one per
// line). --target=reference runs the reference evaluator in-process instead.
//
#include "compiler/reference/Evaluator.h"
#include "compiler/targets/common/Compile.h"
#include "compiler/targets/common/Process.h"
#include "compiler/targets/common/Target.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace llvm;
using namespace kiln;

static cl::OptionCategory cat("kiln-run options");
static cl::opt<std::string> modelPath(cl::Positional, cl::desc("<model.gguf>"),
                                      cl::Required, cl::cat(cat));
static cl::opt<std::string> target(
    "target",
    cl::desc("generic, or reference (the reference evaluator, no compile)"),
    cl::init("generic"), cl::cat(cat));
static cl::opt<std::string>
    tokens("tokens", cl::desc("Prompt token ids, comma-separated"),
           cl::Required, cl::cat(cat));
static cl::opt<int64_t> generate("generate",
                                 cl::desc("Tokens to decode greedily"),
                                 cl::init(0), cl::cat(cat));
static cl::opt<bool>
    printLogits("logits",
                cl::desc("Print the logits after the last step, one per line, "
                         "instead of the generated tokens"),
                cl::cat(cat));
static cl::opt<int64_t> context("context",
                                cl::desc("As kilnc --context (default: the "
                                         "prompt plus the generated tokens)"),
                                cl::init(0), cl::cat(cat));
static cl::opt<int64_t> maxBatch("max-batch", cl::desc("As kilnc --max-batch"),
                                 cl::init(32), cl::cat(cat));
static cl::opt<std::string>
    weights("weights", cl::desc("As kilnc --weights (embedded or external)"),
            cl::init("embedded"), cl::cat(cat));
static cl::opt<std::string>
    keepDir("keep", cl::desc("Build in this directory and keep it"),
            cl::cat(cat));
static cl::opt<std::string> cc("cc", cl::desc("C compiler (default: clang-16)"),
                               cl::cat(cat));

static int fail(const std::string &msg) {
  errs() << "kiln-run: error: " << msg << "\n";
  return 1;
}

static const char *kRunner = R"runner(/* runner.c - written by kiln-run */
#include "@NAME@.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(kiln_status s, const char *what) {
  if (s == KILN_OK) return 0;
  fprintf(stderr, "runner: %s failed: %s\n", what, kiln_status_string(s));
  exit(2);
}

static int argmax(const float *v, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (v[i] > v[best]) best = i;
  return best;
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  size_t n = 1;
  for (const char *p = argv[1]; *p; ++p) n += *p == ',';
  int32_t *tokens = malloc(n * sizeof *tokens);
  char *rest = argv[1];
  for (size_t i = 0; i < n; ++i) tokens[i] = (int32_t)strtol(rest, &rest, 10), rest += *rest == ',';
  int generate = atoi(argv[2]), print_logits = atoi(argv[3]);
  size_t bytes = (@UNAME@_ARENA_BYTES + KILN_ARENA_ALIGN - 1) / KILN_ARENA_ALIGN * KILN_ARENA_ALIGN;
  void *arena = aligned_alloc(KILN_ARENA_ALIGN, bytes ? bytes : KILN_ARENA_ALIGN);
  kiln_ctx ctx;
  check(@NAME@_init(&ctx, arena, bytes), "init");
#if @UNAME@_WEIGHTS_EXTERNAL
  FILE *wf = fopen(argv[4], "rb");
  if (!wf) { perror(argv[4]); return 2; }
  void *w = aligned_alloc(KILN_ARENA_ALIGN, (@UNAME@_WEIGHTS_BYTES + 63) / 64 * 64);
  if (fread(w, 1, @UNAME@_WEIGHTS_BYTES, wf) != @UNAME@_WEIGHTS_BYTES) { fprintf(stderr, "short weights file\n"); return 2; }
  fclose(wf);
  check(@NAME@_set_weights(&ctx, w, @UNAME@_WEIGHTS_BYTES), "set_weights");
#endif
  int32_t seq;
  check(@NAME@_seq_open(&ctx, &seq), "seq_open");
  float *logits = malloc(@UNAME@_VOCAB_SIZE * sizeof(float));
  check(@NAME@_prefill(&ctx, seq, tokens, n, logits), "prefill");
  for (int g = 0; g < generate; ++g) {
    int32_t t = argmax(logits, @UNAME@_VOCAB_SIZE);
    if (!print_logits) printf(g ? " %d" : "%d", t);
    check(@NAME@_decode(&ctx, seq, t, logits), "decode");
  }
  if (print_logits)
    for (int i = 0; i < @UNAME@_VOCAB_SIZE; ++i) printf("%.9g\n", logits[i]);
  else
    printf("\n");
  check(@NAME@_seq_close(&ctx, seq), "seq_close");
  return 0;
}
)runner";

static std::string replaceAll(std::string s, const std::string &from,
                              const std::string &to) {
  for (size_t p = s.find(from); p != std::string::npos;
       p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

static int argmax(const std::vector<float> &v) {
  int best = 0;
  for (int i = 1; i < (int)v.size(); ++i)
    if (v[i] > v[best])
      best = i;
  return best;
}

static int runReference(LoadedModel &model, const std::vector<int32_t> &prompt) {
  Evaluator eval(*model.module, *model.weights);
  std::string error;
  std::vector<float> logits;
  if (!eval.prepare(error) || !eval.run(prompt, logits, error))
    return fail(error);
  std::string line;
  for (int64_t g = 0; g < generate; ++g) {
    int32_t t = argmax(logits);
    line += (g ? " " : "") + std::to_string(t);
    if (!eval.run({t}, logits, error))
      return fail(error);
  }
  if (printLogits) {
    for (float v : logits)
      outs() << format("%.9g\n", (double)v);
  } else {
    outs() << line << "\n";
  }
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "kiln-run: compile a model, run it on a prompt, print tokens or logits\n\n"
      "  kiln-run MODEL --target=generic --tokens=1,5,9 --generate=N [--logits]\n");

  std::vector<int32_t> prompt;
  for (StringRef part : split(StringRef(tokens), ',')) {
    int32_t t;
    if (part.trim().getAsInteger(10, t) || t < 0)
      return fail("--tokens: '" + part.str() +
                  "' is not a non-negative integer token id");
    prompt.push_back(t);
  }
  if (prompt.empty())
    return fail("--tokens: no tokens given");
  if (generate < 0)
    return fail("--generate must be non-negative");

  mlir::MLIRContext ctx;
  LoadedModel model;
  std::string error;
  if (!loadModel(ctx, modelPath, model, error))
    return fail(error);
  auto vocab = model.module->lookupSymbol<mlir::func::FuncOp>("forward")
                   .getFunctionType()
                   .getResult(0)
                   .cast<mlir::RankedTensorType>()
                   .getDimSize(1);
  for (int32_t t : prompt)
    if (t >= vocab)
      return fail("--tokens: token id " + std::to_string(t) +
                  " is out of range for a vocabulary of " +
                  std::to_string(vocab));
  if (target == "reference")
    return runReference(model, prompt);

  CompileOptions opts;
  opts.target = target;
  opts.name = "model";
  opts.cc = cc;
  opts.maxBatch = maxBatch;
  opts.externalWeights = weights == "external";
  int64_t needed = (int64_t)prompt.size() + generate;
  opts.context = context ? context.getValue() : needed;
  auto modelCtx = model.module->getOperation()
                      ->getAttrOfType<mlir::IntegerAttr>("kiln.context_length")
                      .getInt();
  if (needed > modelCtx)
    return fail("prompt plus generated tokens (" + std::to_string(needed) +
                ") exceed the model's context length " +
                std::to_string(modelCtx));

  // A private build directory, removed at the end unless --keep names one.
  std::string dir = keepDir;
  if (dir.empty()) {
    SmallString<128> tmp;
    if (auto ec = sys::fs::createUniqueDirectory("kiln-run", tmp))
      return fail("cannot create a temporary directory: " + ec.message());
    dir = tmp.str().str();
  }
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      if (!dir.empty())
        sys::fs::remove_directories(dir);
    }
  } cleanup{keepDir.empty() ? dir : ""};
  opts.outDir = dir;
  if (!runPipeline(*model.module, opts, error) ||
      !writeLibrary(*model.module, *model.weights, opts, error))
    return fail(error);

  std::string runner = replaceAll(replaceAll(kRunner, "@UNAME@", "MODEL"),
                                  "@NAME@", "model");
  {
    std::FILE *f = std::fopen((dir + "/runner.c").c_str(), "w");
    if (!f)
      return fail("cannot write " + dir + "/runner.c");
    std::fputs(runner.c_str(), f);
    std::fclose(f);
  }
  std::string compiler = cc.empty() ? KILN_DEFAULT_CC : cc.getValue();
  std::vector<std::string> link = {compiler, "-std=c11", "-O1", "runner.c",
                                   "-I.", "libmodel.a", "-lm", "-o", "runner"};
  std::string output;
  if (runProgram(link, dir, output) != 0)
    return fail("linking the runner failed: " + joinCommand(link) + "\n" +
                output);
  std::vector<std::string> run = {dir + "/runner", tokens,
                                  std::to_string(generate),
                                  printLogits ? "1" : "0", "model.weights"};
  int rc = runProgram(run, dir, output);
  if (rc != 0)
    return fail("runner exited with status " + std::to_string(rc) + ": " +
                output);
  outs() << output;
  return 0;
}
