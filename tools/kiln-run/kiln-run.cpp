//===- kiln-run.cpp - compile a model, link a runner, generate tokens -----===//
//
//   kiln-run MODEL --target=T --tokens=1,5,9 --generate=N [--logits]
//   kiln-run MODEL --target=T --prompt="In the beginning" --generate=N
//
// Compiles MODEL exactly as kilnc does, links a small C program against the
// library, runs it (natively, or under qemu-user for a foreign ISA), prefills
// the tokens, greedily decodes N tokens and prints them on one line; with
// --prompt the text is encoded by the GGUF's tokenizer and the output is text.
// --logits prints the logits after the last step instead (one per line).
// --reference runs the reference evaluator on the IR as compiled for the
// target instead of the library; --target=reference is the f32 reference.
//
#include "compiler/analysis/Report.h"
#include "compiler/dialect/KilnDialect.h"
#include "compiler/driver/Compile.h"
#include "compiler/reference/Evaluator.h"
#include "compiler/support/Process.h"
#include "compiler/targets/Target.h"
#include "tools/common/ToolOptions.h"
#include "compiler/frontend/gguf/Tokenizer.h"
#include "tools/kiln-run/GraphRun.h"
#include "tools/kiln-run/Runner.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>

using namespace llvm;
using namespace kiln;

static cl::OptionCategory cat("kiln-run options");
static cl::opt<std::string> modelPath(cl::Positional,
                                      cl::desc("<model.gguf | model.onnx>"),
                                      cl::Required, cl::cat(cat));
static cl::opt<std::string> target(
    "target",
    cl::desc("generic, x86, neon, sve, rvv, hvx; or reference (the f32 "
             "reference evaluator, no compile)"),
    cl::init("generic"), cl::cat(cat));
static cl::opt<std::string> cpu("cpu", cl::desc("As kilnc --cpu"),
                                cl::cat(cat));
static cl::opt<int64_t> sveBits("sve-bits", cl::desc("As kilnc --sve-bits"),
                                cl::init(0), cl::cat(cat));
static cl::opt<int64_t> vectorBits(
    "vector-bits",
    cl::desc("SVE vector length or RVV VLEN that qemu emulates (default 128)"),
    cl::init(0), cl::cat(cat));
static cl::opt<std::string>
    tokens("tokens",
           cl::desc("Prompt token ids, comma-separated; with --sequences, "
                    "one prompt per sequence separated by ';'"),
           cl::cat(cat));
static cl::opt<std::string> promptText(
    "prompt",
    cl::desc("Prompt text instead of --tokens, encoded with the model's "
             "tokenizer (tokenizer.ggml.*, with BOS/EOS as its metadata says); "
             "prints the prompt and the generated text up to the end of text "
             "or turn instead of token ids"),
    cl::cat(cat));
static cl::opt<std::string> tokenizerMode(
    "tokenizer",
    cl::desc("With --prompt: host (default) encodes and decodes with Kiln's "
             "tokenizer here; embed compiles it into the library "
             "(kilnc --tokenizer=embed) and the program on the target encodes "
             "the prompt and decodes the output, checked against the host's"),
    cl::init("host"), cl::value_desc("host|embed"), cl::cat(cat));
static cl::opt<bool> parseSpecial(
    "parse-special",
    cl::desc("With --prompt: control tokens written in the text "
             "(<|begin_of_text|>, <|im_start|>) are those tokens"),
    cl::cat(cat));
static cl::opt<int64_t> sequences(
    "sequences",
    cl::desc("Sequences to run at once (default 1): each is prefilled with its "
             "prompt, then all decode together in one batched call per step"),
    cl::init(1), cl::cat(cat));
static cl::opt<int64_t> generate("generate",
                                 cl::desc("Tokens to decode greedily"),
                                 cl::init(0), cl::cat(cat));
static cl::opt<bool>
    printLogits("logits",
                cl::desc("Print the logits after the last step, one per line, "
                         "instead of the generated tokens"),
                cl::cat(cat));
static cl::opt<std::string> logitsAt(
    "logits-at",
    cl::desc("Steps (decoded tokens so far; 0 = after the prompt) whose logits "
             "to print: 'tokens ...' then one 'logits@STEP v...' line each"),
    cl::cat(cat));
static cl::opt<bool> reference(
    "reference",
    cl::desc("Run the reference evaluator on the IR compiled for --target "
             "(with that target's numerics) instead of the library"),
    cl::cat(cat));
static cl::opt<int64_t> context("context",
                                cl::desc("As kilnc --context (default: the "
                                         "prompt plus the generated tokens)"),
                                cl::init(0), cl::cat(cat));
static cl::opt<std::string> maxBatch("max-batch",
                                     cl::desc("As kilnc --max-batch (at least "
                                              "--sequences)"),
                                     cl::init("auto"), cl::value_desc("N|auto"),
                                     cl::cat(cat));
static cl::list<std::string> disablePass(
    "disable-pass", cl::CommaSeparated,
    cl::desc("As kilnc --disable-pass"),
    cl::cat(cat));
static cl::opt<std::string> halide("halide", cl::desc("As kilnc --halide"),
                                   cl::init("default"), cl::cat(cat));
static cl::opt<std::string> layout("layout", cl::desc("As kilnc --layout"),
                                   cl::init("auto"), cl::cat(cat));
static cl::opt<std::string> quantize("kiln-quantize",
                                     cl::desc("As kilnc --kiln-quantize"),
                                     cl::cat(cat));
static cl::opt<std::string> kvBlock("kv-block",
                                    cl::desc("As kilnc --kv-block"),
                                    cl::init("16"), cl::cat(cat));
static cl::opt<std::string> kvCache(
    "kv-cache",
    cl::desc("As kilnc --kv-cache (f32 or f16); with --reference the "
             "evaluator rounds K and V as an f16 cache stores them"),
    cl::init("f32"), cl::cat(cat));
static cl::opt<std::string>
    weights("weights", cl::desc("As kilnc --weights (embedded or external)"),
            cl::init("embedded"), cl::cat(cat));
static cl::opt<std::string>
    keepDir("keep", cl::desc("Build in this directory and keep it"),
            cl::cat(cat));
static cl::opt<std::string> cc("cc", cl::desc("C compiler (default: clang-16)"),
                               cl::cat(cat));

// Graph models (ONNX).
static cl::list<std::string> graphInputs(
    "input",
    cl::desc("ONNX: the value of graph input NAME, NAME=FILE.pb (a serialized "
             "TensorProto); repeat for each input"),
    cl::cat(cat));
static cl::opt<std::string> outputDir(
    "output-dir",
    cl::desc("ONNX: write each output as DIR/NAME.pb (a TensorProto)"),
    cl::cat(cat));
static cl::list<std::string> inputShape("input-shape",
                                        cl::desc("As kilnc --input-shape"),
                                        cl::cat(cat));
static cl::list<std::string> freezeInput("freeze-input",
                                         cl::desc("As kilnc --freeze-input"),
                                         cl::cat(cat));

static int fail(const std::string &msg) {
  errs() << "kiln-run: error: " << msg << "\n";
  return 1;
}

static void print(const RunOutput &r, const std::vector<int64_t> &steps,
                  size_t nseq, const Tokenizer *text) {
  auto row = [&](int s, int64_t step) -> const std::vector<float> * {
    for (auto &[key, v] : r.logits)
      if (key.first == s && key.second == step)
        return &v;
    return nullptr;
  };
  for (size_t s = 0; s < nseq; ++s) {
    std::string prefix = nseq > 1 ? "seq" + std::to_string(s) + " " : "";
    if (printLogits) {
      if (auto *v = row((int)s, generate))
        for (float f : *v)
          outs() << format("%.9g\n", (double)f);
      continue;
    }
    std::string line;
    const std::vector<int32_t> none;
    const auto &toks = s < r.tokens.size() ? r.tokens[s] : none;
    if (text && steps.empty()) {
      // The prompt as given, then the generated pieces up to an EOS; the
      // continuation keeps its leading space.
      std::vector<int32_t> gen;
      for (int32_t t : toks) {
        if (text->endsGeneration(t))
          break;
        gen.push_back(t);
      }
      outs() << promptText << text->decode(gen, /*first=*/false) << "\n";
      continue;
    }
    for (size_t i = 0; i < toks.size(); ++i)
      line += (i ? " " : "") + std::to_string(toks[i]);
    if (steps.empty()) {
      outs() << prefix << line << "\n";
      continue;
    }
    outs() << prefix << "tokens" << (line.empty() ? "" : " ") << line << "\n";
    for (int64_t st : steps) {
      outs() << prefix << "logits@" << st;
      if (auto *v = row((int)s, st))
        for (float f : *v)
          outs() << format(" %.9g", (double)f);
      outs() << "\n";
    }
  }
}

// The oracle decodes every sequence alone, one after the other.
static bool runReference(LoadedModel &model, const RunPlan &plan, bool kvF16,
                         RunOutput &r, std::string &error) {
  Evaluator eval(*model.module, *model.weights);
  if (!eval.prepare(error))
    return false;
  eval.setKvF16(kvF16);
  r.tokens.resize(plan.prompts.size());
  for (size_t s = 0; s < plan.prompts.size(); ++s) {
    std::vector<float> logits;
    if (!eval.run(plan.prompts[s], logits, error, (int32_t)s))
      return false;
    auto dump = [&](int64_t step) {
      if (std::count(plan.logitsAt.begin(), plan.logitsAt.end(), step))
        r.logits.push_back({{(int)s, step}, logits});
    };
    dump(0);
    for (int64_t g = 0; g < plan.generate; ++g) {
      int32_t t = (int32_t)(std::max_element(logits.begin(), logits.end()) -
                            logits.begin());
      r.tokens[s].push_back(t);
      if (std::count(plan.stopTokens.begin(), plan.stopTokens.end(), t))
        break;
      if (!eval.run({t}, logits, error, (int32_t)s))
        return false;
      dump(g + 1);
    }
  }
  return true;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // libLLVM registers a global "threads" option: kiln-run's is taken first.
  std::map<std::string, std::string> early = {{"threads", "1"}};
  std::vector<char *> args;
  takeOptions(argc, argv, early, args);
  std::string threadsArg = early["threads"];
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "kiln-run: compile a model, run it on a prompt, print tokens or logits\n\n"
      "  kiln-run MODEL --target=generic --tokens=1,5,9 --generate=N [--logits]\n"
      "  kiln-run MODEL --prompt=\"In the beginning\" --generate=N\n"
      "  kiln-run MODEL.onnx --input=NAME=FILE.pb ... [--output-dir=DIR]\n\n"
      "  --threads=N  as kilnc --threads; the runner starts N threads\n");

  if (StringRef(modelPath).endswith(".onnx")) {
    for (const char *opt : {"tokens", "prompt", "generate", "logits",
                            "logits-at", "sequences", "reference",
                            "parse-special", "tokenizer"})
      if (cl::getRegisteredOptions().lookup(opt)->getNumOccurrences())
        return fail(std::string("--") + opt + " applies to language models "
                    "(GGUF); an ONNX model takes --input=NAME=FILE.pb");
    GraphRunOptions g;
    g.model = modelPath;
    g.target = target;
    g.cpu = cpu;
    g.sveBits = sveBits;
    g.vectorBits = vectorBits;
    g.outputDir = outputDir;
    g.keepDir = keepDir;
    g.inputs.assign(graphInputs.begin(), graphInputs.end());
    g.inputShapes.assign(inputShape.begin(), inputShape.end());
    g.frozenInputs.assign(freezeInput.begin(), freezeInput.end());
    g.disabledPasses.assign(disablePass.begin(), disablePass.end());
    g.halide = halide;
    g.layout = layout;
    std::string optionError;
    if (!parseThreadsOption(threadsArg, g.threads, optionError))
      return fail(optionError);
    return runGraphModel(g);
  }
  for (const char *opt : {"input", "output-dir", "input-shape", "freeze-input",
                          "halide", "layout"})
    if (cl::getRegisteredOptions().lookup(opt)->getNumOccurrences())
      return fail(std::string("--") + opt + " applies to ONNX models");

  RunPlan plan;
  const bool textMode = promptText.getNumOccurrences() > 0;
  if (textMode == (tokens.getNumOccurrences() > 0))
    return fail("give the prompt as exactly one of --tokens or --prompt");
  if (textMode && sequences != 1)
    return fail("--prompt runs one sequence; use --tokens with --sequences");
  for (StringRef one : split(StringRef(tokens), ';')) {
    if (textMode)
      break;
    std::vector<int32_t> prompt;
    for (StringRef part : split(one, ',')) {
      int32_t t;
      if (part.trim().getAsInteger(10, t) || t < 0)
        return fail("--tokens: '" + part.str() +
                    "' is not a non-negative integer token id");
      prompt.push_back(t);
    }
    plan.prompts.push_back(std::move(prompt));
  }
  if (sequences < 1 || sequences > 1024)
    return fail("--sequences must be from 1 to 1024");
  if (textMode)
    plan.prompts.assign(1, {});
  if ((int64_t)plan.prompts.size() != sequences)
    return fail("--tokens has " + std::to_string(plan.prompts.size()) +
                " prompt(s) separated by ';' but --sequences=" +
                std::to_string(sequences));
  if (printLogits && sequences > 1)
    return fail("--logits prints one sequence; use --logits-at with --sequences");
  if (generate < 0)
    return fail("--generate must be non-negative");
  plan.generate = generate;
  std::vector<int64_t> steps;
  if (!logitsAt.empty()) {
    if (printLogits)
      return fail("--logits and --logits-at do not go together");
    for (StringRef part : split(StringRef(logitsAt), ',')) {
      int64_t s;
      if (part.trim().getAsInteger(10, s) || s < 0 || s > generate)
        return fail("--logits-at: '" + part.str() +
                    "' is not a step from 0 to --generate");
      steps.push_back(s);
    }
  }
  plan.logitsAt = printLogits ? std::vector<int64_t>{generate} : steps;
  if (weights != "embedded" && weights != "external")
    return fail("--weights=" + weights + ": expected embedded or external");
  plan.externalWeights = weights == "external";

  bool f32Reference = target == "reference";
  CompileOptions opts;
  opts.target = f32Reference ? "generic" : target.getValue();
  opts.targetOptions.cpu = cpu;
  opts.targetOptions.sveBits = sveBits;
  std::string error;
  auto t = createTarget(opts.target, opts.targetOptions, error);
  if (!t || !t->checkRun(vectorBits, error))
    return fail(error);
  if (plan.externalWeights && !t->hosted())
    return fail("--weights=external needs a C library to read the file; "
                "--target=" + target + " is freestanding");
  plan.hosted = t->hosted();

  mlir::MLIRContext ctx;
  LoadedModel model;
  if (!loadModel(ctx, modelPath, model, error))
    return fail(error);
  Tokenizer tokenizer;
  if (textMode) {
    if (!tokenizer.load(*model.file, error))
      return fail(error);
    plan.prompts[0] = tokenizer.encode(promptText, /*addSpecial=*/true,
                                       parseSpecial);
    if (plan.prompts[0].empty())
      return fail("--prompt: the prompt is empty and the model adds no BOS");
    for (int32_t id = 0; id < (int32_t)tokenizer.size(); ++id)
      if (tokenizer.endsGeneration(id))
        plan.stopTokens.push_back(id);
  }
  if (tokenizerMode != "host" && tokenizerMode != "embed")
    return fail("--tokenizer=" + tokenizerMode + ": expected host or embed");
  if (tokenizerMode == "embed") {
    if (!textMode)
      return fail("--tokenizer=embed goes with --prompt");
    plan.embeddedTokenizer = true;
    plan.promptText = promptText;
    plan.tokenizeFlags = KILN_TOKENIZE_ADD_SPECIAL |
                         (parseSpecial ? KILN_TOKENIZE_PARSE_SPECIAL : 0);
    if (kiln_tokenize_scratch(&tokenizer.vocab(), promptText.size(),
                              &plan.scratchBytes) != KILN_OK)
      return fail("--prompt: text too long for the tokenizer");
    opts.emit.tokenizer = &tokenizer.vocab();
  }
  auto vocab = model.module->lookupSymbol<mlir::func::FuncOp>("forward")
                   .getFunctionType()
                   .getResult(0)
                   .cast<mlir::RankedTensorType>()
                   .getDimSize(1);
  size_t longest = 0;
  for (const auto &prompt : plan.prompts) {
    longest = std::max(longest, prompt.size());
    for (int32_t tok : prompt)
      if (tok >= vocab)
        return fail("--tokens: token id " + std::to_string(tok) +
                    " is out of range for a vocabulary of " +
                    std::to_string(vocab));
  }
  int64_t needed = (int64_t)longest + generate;
  auto modelCtx = model.module->getOperation()
                      ->getAttrOfType<mlir::IntegerAttr>("kiln.context_length")
                      .getInt();
  if (needed > modelCtx)
    return fail("prompt plus generated tokens (" + std::to_string(needed) +
                ") exceed the model's context length " +
                std::to_string(modelCtx));
  if (context.getNumOccurrences() && context < needed)
    return fail("--context=" + std::to_string(context) +
                ": the longest prompt plus --generate need " +
                std::to_string(needed) + " tokens");

  opts.emit.name = "model";
  opts.emit.cc = cc;
  opts.layout.maxSeqs = sequences;
  opts.layout.externalWeights = plan.externalWeights;
  opts.layout.context = context ? context.getValue() : needed;
  opts.pipeline.quantize = quantize;
  opts.pipeline.disabled.assign(disablePass.begin(), disablePass.end());
  std::string optionError;
  if (!parseMaxBatchOption(maxBatch, opts.layout.maxBatch, optionError))
    return fail(optionError);
  // auto: as kilnc's, at most the context; and every open sequence decodes
  // its token in the same forward call.
  if (opts.layout.maxBatch == 0)
    opts.layout.maxBatch = prefillChunk(
        *model.module, chunkCacheBytes(opts.target, cpu.getValue(), nullptr),
        opts.layout.context);
  opts.layout.maxBatch = std::max<int64_t>(opts.layout.maxBatch, sequences);
  if (!parseThreadsOption(threadsArg, opts.layout.threads, optionError) ||
      !parseKvBlockOption(kvBlock, opts.layout.kvBlock, optionError) ||
      !parseKvCacheOption(kvCache, opts.layout.kvF16, optionError))
    return fail(optionError);
  plan.threads = opts.layout.threads;
  RunOutput result;
  if (plan.embeddedTokenizer && (f32Reference || reference))
    return fail("--tokenizer=embed runs the compiled library's tokenizer; the "
                "reference evaluator has none");
  if (f32Reference || reference) {
    // The evaluator sees the compiled context too: it selects LongRoPE's
    // factors, as it does in the library.
    if (f32Reference)
      recordLayout(*model.module, opts.layout);
    if (!f32Reference && !runPipeline(*model.module, opts, error))
      return fail(error);
    if (!runReference(model, plan, opts.layout.kvF16, result, error))
      return fail(error);
    print(result, steps, plan.prompts.size(), textMode ? &tokenizer : nullptr);
    return 0;
  }

  if (!runPipeline(*model.module, opts, error))
    return fail(error);
  std::string output;
  int rc = 0;
  if (!buildAndRun(*model.module, *model.weights, opts.emit, *t,
                   runnerSource(plan), vectorBits, keepDir, output, rc, error))
    return fail(error);
  std::string runError = error;
  if (!parseRunnerOutput(output, result, error))
    return fail(error);
  if (rc != 0)
    return fail(runError);
  if (plan.embeddedTokenizer) {
    // The library's tokenizer must agree with the host's on both ends.
    auto show = [](const std::vector<int32_t> &ids) {
      std::string s;
      for (int32_t id : ids)
        s += (s.empty() ? "" : " ") + std::to_string(id);
      return s;
    };
    if (result.promptIds != plan.prompts[0])
      return fail("the library's tokenizer encodes the prompt as " +
                  show(result.promptIds) + ", the host's as " +
                  show(plan.prompts[0]));
    std::vector<int32_t> gen;
    for (int32_t t : result.tokens.empty() ? gen : result.tokens[0]) {
      if (tokenizer.endsGeneration(t))
        break;
      gen.push_back(t);
    }
    if (result.text != tokenizer.decode(gen, /*first=*/false))
      return fail("the library's tokenizer decodes " + show(gen) +
                  " differently from the host's");
    outs() << promptText << result.text << "\n";
    return 0;
  }
  print(result, steps, plan.prompts.size(), textMode ? &tokenizer : nullptr);
  return 0;
}
