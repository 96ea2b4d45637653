//===- kilnc.cpp - the Kiln compiler driver -------------------------------===//
//
//   kilnc MODEL --target=T -o OUTDIR [--name=NAME]   -> OUTDIR/libNAME.a, NAME.h
//   kilnc MODEL --emit=mlir [--stop-after=PASS]      -> IR on stdout
//   kilnc MODEL --emit=c -o OUTDIR                    -> sources + kiln.mk
//   kilnc MODEL --target=T --report[=json] [--device=D] -> static cost report
//
#include "compiler/analysis/GraphReport.h"
#include "compiler/analysis/Report.h"
#include "compiler/driver/Compile.h"
#include "compiler/frontend/gguf/Import.h"
#include "compiler/frontend/gguf/Tokenizer.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/support/Progress.h"
#include "compiler/targets/Target.h"
#include "compiler/codegen/ToolchainCheck.h"
#include "tools/common/ToolOptions.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace kiln;

static cl::OptionCategory cat("kilnc options");
static cl::opt<std::string> modelPath(cl::Positional,
                                      cl::desc("<model.gguf | model.onnx>"),
                                      cl::cat(cat));
static cl::opt<std::string> target(
    "target",
    cl::desc("Instruction set to compile for: generic, x86, neon, sve, rvv, hvx"),
    cl::init("generic"), cl::cat(cat));
static cl::opt<std::string> cpu(
    "cpu",
    cl::desc("CPU level within the target, or a CPU as clang's -march and "
             "-mcpu spell it (its best level): x86: host (default), avx2, "
             "avx512vnni, or x86-64-v3, znver4, icelake-server, ...; neon: "
             "dotprod (default), i8mm, or an architecture or core with "
             "features (armv8.2-a+dotprod, armv8.6-a, cortex-a78+i8mm); "
             "rvv: rv64gcv "
             "(default), rv64gv; hvx: v67"),
    cl::cat(cat));
static cl::opt<int64_t> sveBits(
    "sve-bits",
    cl::desc("SVE: fix the vector length to N bits (default: length "
             "agnostic)"),
    cl::init(0), cl::cat(cat));
static cl::opt<std::string> outDir("o", cl::desc("Output directory"),
                                   cl::value_desc("dir"), cl::cat(cat));
static cl::opt<std::string>
    name("name",
         cl::desc("C identifier prefixing the generated API (default: made "
                  "from the model's file name)"),
         cl::cat(cat));
static cl::opt<std::string>
    emit("emit", cl::desc("What to produce: lib (libNAME.a + NAME.h, the "
                          "default), c (the library's C sources, weights and "
                          "a Makefile fragment kiln.mk) or mlir (the IR, on "
                          "stdout)"),
         cl::init("lib"), cl::cat(cat));
static cl::opt<bool> quiet(
    "q", cl::desc("Quiet: no progress on stderr (shown only on a terminal)"),
    cl::cat(cat));
// libLLVM registers its own global "stop-after" and "threads", so kilnc's are
// taken out of argv before LLVM's parser sees it and documented in the overview.
static std::string stopAfter;
static std::string threadsArg = "1";
static cl::opt<std::string> weights(
    "weights",
    cl::desc("embedded (default): weights inside the archive; external: "
             "written to OUTDIR/NAME.weights for NAME_set_weights"),
    cl::init("embedded"), cl::cat(cat));
static cl::opt<int64_t>
    context("context",
            cl::desc("Tokens per sequence (default: the model's context "
                     "length); sizes the KV cache in the arena"),
            cl::init(0), cl::cat(cat));
static cl::opt<std::string> maxBatch(
    "max-batch",
    cl::desc("Tokens per forward call, 1 to 4096; longer prompts are "
             "prefilled in chunks. auto (default): sized to the L2 cache of "
             "the --device profile, or of this machine for x86 --cpu=host; "
             "32 when neither states one"),
    cl::init("auto"), cl::value_desc("N|auto"), cl::cat(cat));
static cl::opt<int64_t> maxSeqs("max-seqs",
                                cl::desc("Sequences open at once (default 1)"),
                                cl::init(1), cl::cat(cat));
static cl::opt<std::string> kvBlock(
    "kv-block",
    cl::desc("Tokens per KV cache block (default 16), or 'context' for one "
             "block per sequence (the contiguous layout)"),
    cl::init("16"), cl::cat(cat));
static cl::opt<int64_t> kvPoolTokens(
    "kv-pool-tokens",
    cl::desc("Tokens the KV block pool holds, shared by all sequences "
             "(default: max-seqs x context)"),
    cl::init(0), cl::cat(cat));
static cl::opt<int64_t> maxTensorBytes(
    "max-tensor-bytes",
    cl::desc("ONNX: the most bytes one tensor (input, output, initializer, "
             "intermediate) or the activation arena may take; larger is an "
             "error naming it (default 1099511627776 = 2^40, at most 2^62)"),
    cl::init(int64_t(1) << 40), cl::cat(cat));
static cl::opt<std::string> kvCache(
    "kv-cache",
    cl::desc("Element type of the KV cache: f32 (default) or f16 (half the "
             "bytes attention reads and the pool takes; K and V rounded to "
             "nearest even when stored, arithmetic stays f32)"),
    cl::init("f32"), cl::cat(cat));
static cl::opt<std::string> quantize(
    "kiln-quantize",
    cl::desc("Quantize F32/F16/BF16 matmul and embedding weights to this "
             "block type (f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0, q2_k, "
             "q3_k, q4_k, q5_k, q6_k, iq4_nl, iq4_xs; byte-identical to "
             "llama.cpp's quantizers without an importance matrix) or "
             "llama.cpp mix (q4_k_m, q5_k_m)"),
    cl::cat(cat));
static cl::opt<std::string> quantizeExclude(
    "kiln-quantize-exclude",
    cl::desc("Regex over tensor names to keep as they are"), cl::cat(cat));
static cl::list<std::string> quantizeOverride(
    "kiln-quantize-override",
    cl::desc("REGEX=TYPE: tensors whose name matches get TYPE (repeatable; "
             "first match wins)"),
    cl::cat(cat));
static cl::list<std::string> inputShape(
    "input-shape",
    cl::desc("ONNX: fix the dynamic dimensions of an input, NAME=D0,D1,... "
             "(repeatable; e.g. --input-shape=images=1,3,48,320)"),
    cl::cat(cat));
static cl::opt<bool> listGGUFKeys(
    "list-gguf-keys",
    cl::desc("Print how the GGUF importer treats each metadata key (read, "
             "checked or ignored, and why) and exit"),
    cl::cat(cat));
static cl::opt<bool> listOnnxOps(
    "list-onnx-ops",
    cl::desc("Print the ONNX operators Kiln compiles (default domain) and exit"),
    cl::cat(cat));
static cl::list<std::string> freezeInput(
    "freeze-input",
    cl::desc("ONNX: compile input NAME as a constant holding FILE.pb (a "
             "serialized TensorProto), NAME=FILE.pb (repeatable); for inputs "
             "that determine shapes, such as a Reshape's target shape"),
    cl::cat(cat));
static const std::string disablePassHelp =
    "Skip an optional step of the pipeline: " + pipelineOptionalSteps() +
    " (memory planning's in-place reuse); repeatable or comma-separated";
static cl::list<std::string> disablePass("disable-pass", cl::CommaSeparated,
                                         cl::desc(disablePassHelp),
                                         cl::cat(cat));
static cl::opt<std::string> halide(
    "halide", cl::init("default"),
    cl::desc("ONNX: calls that run Halide pipelines compiled for their shape "
             "(kiln-halide-gen, beside kilnc) instead of the C kernels: "
             "default (sgemm on hvx, none elsewhere), none, or sgemm (f32 "
             "MatMul and 1x1 stride-1 unpadded Conv; x86, neon, hvx)"),
    cl::cat(cat));
static cl::opt<std::string> layout(
    "layout", cl::init("auto"),
    cl::desc("ONNX: activation layout of convolutions and the ops between "
             "them (kiln-layout-channels): auto (the default: channels in "
             "blocks of 16 for regions that pad them by at most 5%, on x86 "
             "at the AVX-512 level; NCHW elsewhere), nchwc (every region, "
             "on x86, neon, sve, rvv, generic) or nchw"),
    cl::cat(cat));
static cl::opt<std::string> cc("cc", cl::desc("C compiler (default: clang-16)"),
                               cl::cat(cat));
static cl::opt<std::string> ar("ar", cl::desc("Archiver (default: llvm-ar-16)"),
                               cl::cat(cat));
static cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Keep compiled C objects in DIR and reuse them when the compiler, "
             "its flags and the preprocessed source are the same (default: "
             "$KILN_CACHE_DIR; neither: no cache)"),
    cl::value_desc("DIR"), cl::cat(cat));

static cl::opt<std::string> report(
    "report", cl::ValueOptional,
    cl::desc("Print the static cost report (weight and KV bytes per token, "
             "FLOPs, arena; for ONNX graphs FLOPs and bytes per run by "
             "kernel) as text, or --report=json; writes no library unless -o "
             "is given too"),
    cl::value_desc("text|json"), cl::cat(cat));
static cl::opt<int64_t> reportContext(
    "report-context",
    cl::desc("With --report: attention position N (decode: the token after N "
             "cached tokens; prefill: averaged over an N-token prompt); "
             "default min(512, context - 1)"),
    cl::init(0), cl::cat(cat));
static cl::opt<std::string> device(
    "device",
    cl::desc("A device profile: a shipped profile name "
             "(BIN/../share/kiln/devices), a JSON file, or host (measured "
             "now). With --report: predict tokens/s (ONNX: the run's latency "
             "floor) on it; with --max-batch=auto: size the prefill chunk to "
             "its L2"),
    cl::cat(cat));

static cl::opt<std::string> roofline(
    "roofline",
    cl::desc("With --report and --device: also write a roofline plot of the "
             "model's op kinds on the device to this SVG file"),
    cl::value_desc("file.svg"), cl::cat(cat));

static cl::opt<std::string> tokenizerMode(
    "tokenizer",
    cl::desc("none (default) or embed: compile the GGUF's tokenizer into the "
             "library (NAME_tokenize, NAME_detokenize; tables in read-only "
             "data, no allocation)"),
    cl::init("none"), cl::value_desc("none|embed"), cl::cat(cat));

static cl::opt<std::string> checkToolchainTargets(
    "check-toolchain", cl::ValueOptional,
    cl::desc("Compile, link and run a small C program for each target (all, "
             "or a comma-separated list) with the commands Kiln uses, and name "
             "the Debian package of anything missing; needs no model"),
    cl::value_desc("targets"), cl::cat(cat));

static int fail(const std::string &msg) {
  errs() << "kilnc: error: " << msg << "\n";
  return 1;
}

static bool isCIdentifier(const std::string &s) {
  if (s.empty() || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(isalnum((unsigned char)c) || c == '_'))
      return false;
  return true;
}

// kilnc --check-toolchain[=T,...]: one line per target, exit 1 if any fails.
static int checkToolchains() {
  std::string list = checkToolchainTargets;
  if (list.empty())
    list = supportedTargets();
  int failed = 0;
  SmallVector<StringRef> names;
  StringRef(list).split(names, ',', -1, false);
  TargetOptions options;
  options.cpu = cpu;
  options.sveBits = sveBits;
  for (StringRef n : names) {
    std::string name = n.trim().str(), summary, error;
    std::unique_ptr<Target> t = createTarget(name, options, error);
    if (t && checkToolchain(*t, cc, summary, error)) {
      outs() << "kilnc: toolchain for --target=" << name << ": ok (" << summary
             << ")\n";
      continue;
    }
    outs().flush();
    errs() << "kilnc: error: toolchain for --target=" << name << ": " << error
           << "\n";
    ++failed;
  }
  return failed ? 1 : 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  std::map<std::string, std::string> early = {{"stop-after", ""},
                                              {"threads", "1"}};
  std::vector<char *> args;
  takeOptions(argc, argv, early, args);
  stopAfter = early["stop-after"];
  threadsArg = early["threads"];
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "kilnc: compile a model into a static library and C header\n\n"
      "  kilnc MODEL --target=generic -o OUTDIR [--name=NAME]\n"
      "  kilnc MODEL --emit=mlir [--stop-after=PASS]\n"
      "  kilnc MODEL --target=T --emit=c -o OUTDIR   (then make -f OUTDIR/kiln.mk)\n\n"
      "  --stop-after=PASS with --emit=mlir: print the IR after this stage\n"
      "                    (" + pipelineStopPoints() + ")\n"
      "  --threads=N       threads the generated code splits matmuls (ONNX: large\n"
      "                    calls) for (default 1); NAME_init_threads starts\n"
      "                    up to N\n"
      "  kilnc MODEL.onnx [--input-shape=NAME=D0,D1,...] [--freeze-input=NAME=FILE.pb]\n"
      "  kilnc --list-onnx-ops   the ONNX operators Kiln compiles\n"
      "  kilnc --check-toolchain[=T,...]   can this machine build and run for\n"
      "                    each target (compile, link, run under qemu)\n");
  if (listGGUFKeys) {
    outs() << "GGUF metadata keys (ARCH: " << supportedGGUFArchitectures()
           << "); any other key is an error:\n";
    for (const GGUFKeyRule &r : ggufKeyRules())
      outs() << "  " << r.key << "  " << r.use << ": " << r.why << "\n";
    outs() << "Tensors: each must be one the architecture's graph reads; any "
              "other (e.g. rope_freqs.weight) is an error.\n";
    return 0;
  }
  if (listOnnxOps) {
    for (const auto &[op, conv] : kiln::onnx::converters())
      outs() << op << "\n";
    return 0;
  }
  if (checkToolchainTargets.getNumOccurrences())
    return checkToolchains();
  if (modelPath.empty())
    return fail("no model given (kilnc MODEL.gguf|MODEL.onnx ...; see --help)");

  CompileOptions opts;
  opts.target = target;
  opts.targetOptions.cpu = cpu;
  opts.targetOptions.sveBits = sveBits;
  opts.emit.outDir = outDir;
  opts.emit.name = name.empty() ? defaultModelName(modelPath) : name.getValue();
  opts.layout.context = context;
  opts.layout.maxSeqs = maxSeqs;
  opts.emit.cc = cc;
  opts.emit.ar = ar;
  opts.emit.cacheDir = cacheDir;
  opts.pipeline.stopAfter = stopAfter;
  opts.pipeline.quantize = quantize;
  opts.pipeline.disabled.assign(disablePass.begin(), disablePass.end());
  opts.pipeline.quantizeExclude = quantizeExclude;
  opts.pipeline.quantizeOverrides.assign(quantizeOverride.begin(), quantizeOverride.end());
  opts.pipeline.halide = halide;
  opts.pipeline.layout = layout;
  if (emit != "lib" && emit != "c" && emit != "mlir")
    return fail("--emit=" + emit + ": expected lib, c or mlir");
  if (tokenizerMode != "none" && tokenizerMode != "embed")
    return fail("--tokenizer=" + tokenizerMode + ": expected none or embed");
  if (weights != "embedded" && weights != "external")
    return fail("--weights=" + weights + ": expected embedded or external");
  opts.layout.externalWeights = weights == "external";
  if (!isCIdentifier(opts.emit.name))
    return fail("--name=" + opts.emit.name + ": not a C identifier");
  if (maxSeqs < 1 || maxSeqs > 1024)
    return fail("--max-seqs=" + std::to_string(maxSeqs) +
                ": expected 1 to 1024");
  // 0 stands for "not given" inside; given on the command line it is an error.
  if (context < 0 || (context == 0 && context.getNumOccurrences()))
    return fail("--context=" + std::to_string(context) +
                ": expected at least 1 (without it: the model's context "
                "length)");
  std::string error;
  if (!parseMaxBatchOption(maxBatch, opts.layout.maxBatch, error) ||
      !parseKvBlockOption(kvBlock, opts.layout.kvBlock, error) ||
      !parseThreadsOption(threadsArg, opts.layout.threads, error))
    return fail(error);
  if (kvPoolTokens < 0 || (kvPoolTokens == 0 && kvPoolTokens.getNumOccurrences()))
    return fail("--kv-pool-tokens=" + std::to_string(kvPoolTokens) +
                ": expected at least 1 (without it: max-seqs x context)");
  opts.layout.kvPoolTokens = kvPoolTokens;
  if (maxTensorBytes < 1 || maxTensorBytes > (int64_t(1) << 62))
    return fail("--max-tensor-bytes=" + std::to_string(maxTensorBytes) +
                ": expected 1 to 2^62");
  opts.layout.maxTensorBytes = maxTensorBytes;
  if (!parseKvCacheOption(kvCache, opts.layout.kvF16, error))
    return fail(error);
  const bool wantReport = report.getNumOccurrences() > 0;
  if (wantReport && report != "" && report != "text" && report != "json")
    return fail("--report=" + report + ": expected text or json");
  if (!wantReport && reportContext.getNumOccurrences())
    return fail("--report-context only goes with --report");
  if (!wantReport && !device.empty() && opts.layout.maxBatch != 0)
    return fail("--device only goes with --report or --max-batch=auto");
  if (!roofline.empty() && (!wantReport || device.empty()))
    return fail("--roofline needs --report and --device");
  if (wantReport && emit != "lib")
    return fail("--report only goes with --emit=lib");
  if (emit != "mlir" && outDir.empty() && !wantReport)
    return fail("-o OUTDIR is required with --emit=" + emit);
  if (emit != "mlir" && !stopAfter.empty())
    return fail("--stop-after only goes with --emit=mlir");
  if (!createTarget(opts.target, opts.targetOptions, error))
    return fail("--target=" + opts.target + ": " + error);
  // The device is read (or measured) before the model, so a bad profile
  // fails fast.
  DeviceProfile profile;
  if (!device.empty() &&
      !loadDeviceProfile(device, defaultProfileDir(argv[0], (void *)&fail),
                         cc, profile, error))
    return fail(error);
  if (opts.layout.maxBatch == 0)
    opts.layout.l2CacheBytes = chunkCacheBytes(
        opts.target, opts.targetOptions.cpu, device.empty() ? nullptr : &profile);

  // Phases and bars for long compiles, only where someone watches.
  Progress progress(errs(), emit != "mlir" && !quiet &&
                                Progress::stderrIsTerminal());
  opts.emit.progress = &progress;
  mlir::MLIRContext ctx;
  LoadedModel model;
  progress.phase("loading " + sys::path::filename(modelPath).str());
  kiln::onnx::InputShapes shapes;
  for (const std::string &spec : inputShape)
    if (!kiln::onnx::parseInputShape(spec, shapes, error))
      return fail(error);
  std::map<std::string, kiln::onnx::Tensor> frozen;
  for (const std::string &spec : freezeInput)
    if (!kiln::onnx::parseTensorBinding(spec, "--freeze-input", frozen, error))
      return fail(error);
  if (!loadModel(ctx, modelPath, model, error, shapes, frozen,
                 opts.layout.maxTensorBytes))
    return progress.finish(), fail(error);
  if (layout.getNumOccurrences() && !isGraphModule(*model.module))
    return progress.finish(),
           fail("--layout applies to ONNX models; " +
                sys::path::filename(modelPath).str() +
                " is a language model (it has no convolutions)");
  if (halide.getNumOccurrences() && !isGraphModule(*model.module))
    return progress.finish(),
           fail("--halide applies to ONNX models; " +
                sys::path::filename(modelPath).str() +
                " is a language model (its kernels are the ISA's own)");
  Tokenizer tokenizer;
  if (tokenizerMode == "embed") {
    if (!model.file)
      return progress.finish(),
             fail("--tokenizer=embed applies to language models (GGUF); " +
                  sys::path::filename(modelPath).str() + " has no tokenizer");
    if (!tokenizer.load(*model.file, error))
      return progress.finish(), fail(error);
    opts.emit.tokenizer = &tokenizer.vocab();
  }
  progress.phase("running passes");
  if (!runPipeline(*model.module, opts, error))
    return progress.finish(), fail(error);
  if (emit == "mlir") {
    model.module->print(outs());
    outs() << "\n";
    return 0;
  }
  // A graph's report: one run of the graph instead of tokens.
  const bool graph = isGraphModule(*model.module);
  if (wantReport && graph && (reportContext.getNumOccurrences() || !roofline.empty()))
    return progress.finish(),
           fail(std::string(roofline.empty() ? "--report-context"
                                             : "--roofline") +
                " applies to language models (GGUF), not to graph models");
  ModelReport costs;
  GraphReport graphCosts;
  if (wantReport &&
      !(graph ? computeGraphReport(*model.module, graphCosts, error)
              : computeReport(*model.module, reportContext, costs, error)))
    return progress.finish(), fail(error);
  if (!outDir.empty() &&
      !(emit == "c" ? writeCSources(*model.module, *model.weights, opts.emit, error)
                    : writeLibrary(*model.module, *model.weights, opts.emit, error)))
    return progress.finish(), fail(error);
  progress.finish();
  if (wantReport && graph) {
    const DeviceProfile *d = device.empty() ? nullptr : &profile;
    GraphPrediction p;
    if (d)
      p = predictGraph(graphCosts, profile);
    outs() << (report == "json" ? graphReportJson(graphCosts, d, d ? &p : nullptr)
                                : graphReportText(graphCosts, d, d ? &p : nullptr));
    if (report == "json" || outDir.empty())
      return 0;
  } else if (wantReport) {
    Prediction p;
    if (!device.empty())
      p = predict(costs, profile);
    const DeviceProfile *d = device.empty() ? nullptr : &profile;
    if (!roofline.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream svg(roofline, ec);
      if (ec)
        return fail("--roofline=" + roofline + ": " + ec.message());
      svg << rooflineSvg(costs, profile);
    }
    outs() << (report == "json" ? reportJson(costs, d, d ? &p : nullptr)
                                : reportText(costs, d, d ? &p : nullptr));
    if (report == "json" || outDir.empty())
      return 0;
  }
  // The memory plan in three numbers: what the arena holds for one forward
  // call, the least any plan could (bytes live at once), and without reuse.
  if (auto fwd = model.module->lookupSymbol<mlir::func::FuncOp>("forward")) {
    const ActivationPlan plan = activationPlan(fwd);
    outs() << "kilnc: activations: planned " << plan.bytes
           << " bytes, lower bound " << plan.lowerBound << ", without reuse "
           << plan.noReuse << "\n";
  }
  return 0;
}
