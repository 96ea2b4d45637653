//===- kiln-bench.cpp - measured prefill, decode, memory of a compiled model ===//
//
//   kiln-bench MODEL.gguf [--threads=N] [--runs=5] [--prompt-lengths=64,512]
//              [--decode=128] [--json] [--vs-llama-cpp=DRIVER]
//              [--weights-memory=embedded|huge|anon|file]
//   kiln-bench MODEL.onnx [--input-shape=NAME=D0,D1,...] [--runs=5]
//              [--iterations=20] [--json] [--vs-onnxruntime=DRIVER]
//
// ONNX graphs: GraphBench.cpp. Language models:
//
// Compiles MODEL for the host (--target=x86, --cpu=host unless given) into a
// temporary directory, links a driver against the library, and runs it as a
// child process once for warm-up and then --runs times. Each run is a fresh
// process, so no KV cache or arena survives between runs:
//   1. init, prefill the first prompt length, pick the first token: the time
//      from the parent's fork to that token is the cold start (the model
//      file is in the page cache after the warm-up run; that is stated, not
//      hidden);
//   2. for each prompt length P: a new sequence, prefill P tokens, argmax:
//      time to first token;
//   3. a new sequence, prefill the first prompt length, then --decode greedy
//      steps timed together: decode tokens/s.
// Weights: by default (--weights-memory=embedded) they are compiled into the
// library and read in place, as users get them; a large blob is 2 MiB-aligned
// so that Linux maps it with 2 MiB entries (Emitter.cpp). The other choices
// compile them --weights=external and the driver reads bench.weights into
// anonymous memory advised to use transparent huge pages (huge), the same on
// 4 KiB pages (anon), or maps the file (file), to compare what the pages
// cost decode (docs/notes/benchmarks-history.md, "Weights and pages"). A
// read is part of the cold start and the copy is resident memory,
// as llama.cpp's repacked weights are; read() does not map the file, so the
// weights count once.
// Peak resident memory is the child's own VmHWM, which it prints before it
// exits: the child's ru_maxrss would not do, because Linux carries the
// high-water mark of the forked copy of kiln-bench (MLIR, LLVM, the mapped
// model) across exec into it.
// Effective bandwidth = bytes read per decoded token x decode tokens/s; its
// fraction is of this machine's one-thread read bandwidth, measured here with
// kilnc --device=host's probe before every round. The bytes are the report's
// weight bytes per decoded token plus the K and V rows attention reads: the
// decode steps attend P1 + 1 ... P1 + DECODE positions, so on average
// P1 + (DECODE + 1) / 2 rows of the report's KV bytes per position. The
// weights-only fraction is printed too (weight_bandwidth_fraction).
//
// --vs-llama-cpp=DRIVER runs the same protocol through llama.cpp (DRIVER is
// built by scripts/bench-llama-cpp.sh from node-llama-cpp's prebuilt
// libraries), alternating Kiln and llama.cpp runs, and prints per-pair ratios.
//
#include "compiler/analysis/Report.h"
#include "compiler/driver/Compile.h"
#include "compiler/codegen/Toolchain.h"
#include "compiler/support/Process.h"
#include "kernels/Embedded.h"
#include "tools/common/ToolOptions.h"
#include "tools/kiln-bench/GraphBench.h"
#include "tools/kiln-bench/Measure.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

using namespace llvm;
using namespace kiln;

// The driver linked against the compiled library: tools/kiln-bench/driver.c,
// embedded at build time.
namespace kiln {
extern const EmbeddedFile kBenchDriver[];
extern const size_t kBenchDriver_count;
} // namespace kiln

static cl::OptionCategory cat("kiln-bench options");
static cl::opt<std::string> modelPath(cl::Positional,
                                      cl::desc("<model.gguf | model.onnx>"),
                                      cl::Required, cl::cat(cat));
static cl::opt<std::string>
    cpu("cpu", cl::desc("x86 level: host (default), avx2, avx512vnni, or a CPU as "
                          "kilnc --cpu takes it (znver4, x86-64-v3, ...)"),
        cl::cat(cat));
static cl::opt<int64_t> runs("runs",
                             cl::desc("Measured runs after one warm-up "
                                      "(default 5)"),
                             cl::init(5), cl::cat(cat));
static cl::opt<std::string> promptLengths(
    "prompt-lengths",
    cl::desc("Comma-separated prompt lengths for time to first token "
             "(default 64,512); the first also starts the decode run"),
    cl::init("64,512"), cl::cat(cat));
static cl::opt<int64_t> decodeTokens("decode",
                                     cl::desc("Greedy decode steps timed "
                                              "(default 128)"),
                                     cl::init(128), cl::cat(cat));
static cl::opt<std::string> maxBatch(
    "max-batch",
    cl::desc("kilnc --max-batch: prefill chunk (default auto: sized to this "
             "machine's L2 with --cpu=host)"),
    cl::init("auto"), cl::value_desc("N|auto"), cl::cat(cat));
static cl::opt<std::string> device(
    "device",
    cl::desc("A device profile (kilnc --device: a shipped name or a JSON "
             "file) whose stated read bandwidth and int8 peak the fractions "
             "are taken against, instead of the probe run before each round; "
             "its L2 sizes --max-batch=auto"),
    cl::value_desc("PROFILE"), cl::cat(cat));
static cl::opt<std::string> kvCache(
    "kv-cache",
    cl::desc("kilnc --kv-cache: f16 (default, as llama.cpp's own default "
             "KV cache) or f32"),
    cl::init("f16"), cl::cat(cat));
static cl::opt<bool> jsonOut("json", cl::desc("Print JSON instead of text"),
                          cl::cat(cat));
static cl::opt<std::string> vsLlama(
    "vs-llama-cpp",
    cl::desc("Also run llama.cpp through DRIVER (scripts/bench-llama-cpp.sh "
             "builds it and prints its path), alternating runs"),
    cl::value_desc("DRIVER"), cl::cat(cat));
static cl::opt<std::string> weightsMemory(
    "weights-memory",
    cl::desc("Where the driver places the weights: embedded (default; in "
             "the library, read in place), huge (external weights read into "
             "anonymous memory with MADV_HUGEPAGE), anon (the same, 4 KiB "
             "pages) or file (external weights mapped)"),
    cl::init("embedded"), cl::cat(cat));
static cl::list<std::string> inputShape(
    "input-shape",
    cl::desc("ONNX: as kilnc --input-shape, NAME=D0,D1,... (repeatable)"),
    cl::cat(cat));
static cl::opt<int64_t> iterations(
    "iterations",
    cl::desc("ONNX: timed graph runs per process after its first "
             "(default 20)"),
    cl::init(20), cl::cat(cat));
static cl::opt<std::string> halide(
    "halide", cl::desc("ONNX: as kilnc --halide"), cl::init("default"),
    cl::cat(cat));
static cl::opt<std::string> layout(
    "layout", cl::desc("ONNX: as kilnc --layout"), cl::init("auto"),
    cl::cat(cat));
static cl::list<std::string> disablePass(
    "disable-pass", cl::CommaSeparated,
    cl::desc("As kilnc --disable-pass (to time a pass: run with and "
             "without it)"),
    cl::value_desc("PASS"), cl::cat(cat));
static cl::opt<std::string> vsOnnxruntime(
    "vs-onnxruntime",
    cl::desc("ONNX: also run onnxruntime through DRIVER "
             "(scripts/bench-onnxruntime.sh sets it up and prints its path), "
             "alternating runs"),
    cl::value_desc("DRIVER"), cl::cat(cat));
static cl::opt<std::string> keep(
    "keep", cl::desc("Keep the compiled library and driver in this directory"),
    cl::value_desc("dir"), cl::cat(cat));

namespace {
int fail(const std::string &msg) {
  errs() << "kiln-bench: error: " << msg << "\n";
  return 1;
}

/// One run's figures.
struct Sample {
  std::map<int64_t, double> ttft; // prompt length -> seconds
  double decodeTokS = 0, coldStart = 0, rssBytes = 0;
  double readBandwidthGBs = 0; // the probe's, run just before this round
  double int8PeakGops = 0;     // the probe's one-core int8 rate, likewise
};

/// Forks and runs argv, timing from just before the fork; parses the
/// protocol lines and the child's peak RSS.
bool runOnce(const std::vector<std::string> &argv, Sample &s,
             std::string &error) {
  std::string out;
  double start = 0;
  if (!bench::runChild(argv, out, start, error))
    return false;
  std::istringstream in(out);
  std::string key;
  bool first = false, decode = false, rss = false;
  while (in >> key) {
    if (key == "first_token") {
      double t;
      in >> t;
      s.coldStart = t - start;
      first = true;
    } else if (key == "ttft") {
      int64_t p;
      double t;
      in >> p >> t;
      s.ttft[p] = t;
    } else if (key == "VmHWM:") {
      double kib;
      in >> kib;
      s.rssBytes = kib * 1024.0;
      rss = true;
    } else if (key == "decode") {
      double n, t;
      in >> n >> t;
      s.decodeTokS = n / t;
      decode = true;
    } else {
      std::string rest;
      std::getline(in, rest);
    }
  }
  if (!first || !decode || !rss) {
    error = joinCommand(argv) + ": unexpected output:\n" + out;
    return false;
  }
  return true;
}

using bench::Stat;
using bench::summarize;

/// The metrics of one engine over all runs, in a fixed order.
struct Metric {
  std::string key, unit;
  std::function<double(const Sample &)> get;
  bool higherIsBetter;
};
} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  std::map<std::string, std::string> early = {{"threads", "1"}};
  std::vector<char *> args;
  takeOptions(argc, argv, early, args);
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "kiln-bench: measure a model compiled for this host\n\n"
      "  kiln-bench MODEL.gguf [--threads=N] [--runs=N] [--json]\n"
      "  kiln-bench MODEL.onnx [--input-shape=NAME=D0,D1,...] [--runs=N] "
      "[--json]\n\n"
      "  --threads=N   threads the library is compiled for and started with "
      "(default 1)\n");
  int64_t threads = 0;
  std::string optionError;
  if (!parseThreadsOption(early["threads"], threads, optionError))
    return fail(optionError);
  if (runs < 1 || runs > 1000)
    return fail("--runs=" + std::to_string(runs) + ": expected 1 to 1000");
  // The options of the other kind of model are errors, not ignored.
  auto given = [](const std::vector<cl::Option *> &options) {
    std::string names;
    for (cl::Option *o : options)
      if (o->getNumOccurrences())
        names += (names.empty() ? "--" : ", --") + o->ArgStr.str();
    return names;
  };
  if (StringRef(modelPath).endswith_insensitive(".onnx")) {
    std::string bad = given({&promptLengths, &decodeTokens, &maxBatch, &kvCache,
                             &vsLlama, &weightsMemory, &device});
    if (!bad.empty())
      return fail(bad + ": options of language models (GGUF), not of " +
                  modelPath);
    bench::GraphBenchOptions g;
    g.modelPath = modelPath;
    g.cpu = cpu;
    g.keep = keep;
    g.inputShapes = inputShape;
    g.runs = runs;
    g.iterations = iterations;
    g.threads = threads;
    g.json = jsonOut;
    g.vsOnnxruntime = vsOnnxruntime;
    g.halide = halide;
    g.layout = layout;
    g.disabledPasses.assign(disablePass.begin(), disablePass.end());
    return bench::graphBench(g);
  }
  if (std::string bad = given({std::addressof(inputShape), &iterations, &vsOnnxruntime,
                               &halide, &layout});
      !bad.empty())
    return fail(bad + ": options of ONNX graphs, not of " + modelPath);
  if (decodeTokens < 1)
    return fail("--decode=" + std::to_string(decodeTokens) +
                ": expected at least 1");
  std::vector<int64_t> prompts;
  {
    SmallVector<StringRef> parts;
    StringRef(promptLengths).split(parts, ',');
    for (StringRef p : parts) {
      int64_t v;
      if (p.trim().getAsInteger(10, v) || v < 1)
        return fail("--prompt-lengths=" + promptLengths +
                    ": expected positive integers separated by commas");
      // Each length is a key of the JSON output (ttft_P_s): once only.
      if (std::find(prompts.begin(), prompts.end(), v) != prompts.end())
        return fail("--prompt-lengths=" + promptLengths + ": " +
                    std::to_string(v) + " is given twice");
      prompts.push_back(v);
    }
  }
  const bool vs = !vsLlama.empty();
  if (vs && !sys::fs::can_execute(vsLlama))
    return fail("--vs-llama-cpp=" + vsLlama +
                ": not an executable (build it with "
                "scripts/bench-llama-cpp.sh)");
  const int64_t maxPrompt = *std::max_element(prompts.begin(), prompts.end());
  const int64_t context = std::max(maxPrompt, prompts[0] + decodeTokens);

  CompileOptions opts;
  opts.target = "x86";
  opts.targetOptions.cpu = cpu;
  opts.emit.name = "bench";
  opts.layout.threads = threads;
  opts.layout.context = context;
  opts.pipeline.disabled.assign(disablePass.begin(), disablePass.end());
  {
    std::string error;
    auto t = createTarget(opts.target, opts.targetOptions, error);
    if (!t || !t->checkRun(0, error))
      return fail("--cpu: " + error);
  }
  if (!parseMaxBatchOption(maxBatch, opts.layout.maxBatch, optionError) ||
      !parseKvCacheOption(kvCache, opts.layout.kvF16, optionError))
    return fail(optionError);
  // A stated profile: "host" would be the probe again, so it is refused.
  DeviceProfile stated;
  if (!device.empty()) {
    std::string error;
    if (device == "host")
      return fail("--device=host: the probe is kiln-bench's default; give a "
                  "shipped profile name or a JSON file");
    if (!loadDeviceProfile(device, defaultProfileDir(argv[0], (void *)&fail),
                           "", stated, error))
      return fail(error);
  }
  if (opts.layout.maxBatch == 0)
    opts.layout.l2CacheBytes = chunkCacheBytes(
        opts.target, cpu, device.empty() ? nullptr : &stated);
  if (weightsMemory != "huge" && weightsMemory != "anon" &&
      weightsMemory != "file" && weightsMemory != "embedded")
    return fail("--weights-memory=" + weightsMemory +
                ": expected embedded, huge, anon or file");
  opts.layout.externalWeights = weightsMemory != "embedded";
  // The driver reads it from its environment (inherited through execv).
  setenv("KILN_BENCH_WEIGHTS", weightsMemory.c_str(), 1);
  std::string error;
  mlir::MLIRContext ctx;
  LoadedModel model;
  if (!loadModel(ctx, modelPath, model, error))
    return fail(error);
  auto modelContext =
      (*model.module)->getAttrOfType<mlir::IntegerAttr>("kiln.context_length");
  if (modelContext && context > modelContext.getInt())
    return fail("the longest prompt (" + std::to_string(maxPrompt) +
                ") or the first prompt + --decode (" +
                std::to_string(prompts[0] + decodeTokens) +
                ") exceeds the model's context length " +
                std::to_string(modelContext.getInt()));
  if (!runPipeline(*model.module, opts, error))
    return fail(error);
  ModelReport report;
  if (!computeReport(*model.module, 0, report, error))
    return fail(error);

  bench::BuildDir dir;
  if (!dir.open(keep, error))
    return fail(error);
  opts.emit.outDir = dir.path();
  if (!writeLibrary(*model.module, *model.weights, opts.emit, error))
    return fail(error);
  const std::string driver = opts.emit.outDir + "/driver";
  if (!writeFile(
          opts.emit.outDir + "/driver.c",
          std::string(kBenchDriver[0].text, kBenchDriver[0].size), error))
    return fail(error);
  // The driver is built with the library's own toolchain, for this host.
  auto target = createModuleTarget(*model.module, error);
  if (!target)
    return fail(error);
  Toolchain toolchain(*target);
  if (!toolchain.compile(opts.emit.outDir, "driver.c", {}, error) ||
      !toolchain.link(opts.emit.outDir, {"driver.o", "libbench.a", "-lpthread"},
                      "driver", error))
    return fail("the driver: " + error);

  // The read bandwidth is probed before every round, so each decode figure is
  // set against the bandwidth of its own moment on a shared machine.
  // With --device the profile's stated figures stand in for the probe.
  std::string probe;
  if (device.empty() && !buildHostProbe("", opts.emit.outDir, probe, error))
    return fail(error);
  auto probeNow = [&](double &gbs, double &int8Gops) {
    if (!device.empty()) {
      gbs = stated.readBandwidthGBs;
      int8Gops = stated.peakGflopsPerCore["int8"];
      return true;
    }
    DeviceProfile host;
    if (!runHostProbe(probe, host, error))
      return false;
    gbs = host.readBandwidthGBs;
    int8Gops = host.peakGflopsPerCore["int8"];
    return true;
  };

  std::vector<std::string> common = {std::to_string(threads),
                                     std::to_string(decodeTokens)};
  for (int64_t p : prompts)
    common.push_back(std::to_string(p));
  std::vector<std::string> kilnArgv = {driver};
  kilnArgv.insert(kilnArgv.end(), common.begin(), common.end());
  std::vector<std::string> llamaArgv;
  if (vs) {
    llamaArgv = {vsLlama, modelPath};
    llamaArgv.insert(llamaArgv.end(), common.begin(), common.end());
  }

  // Warm-up: page cache, CPU clocks; then alternate the engines.
  Sample s;
  if (!runOnce(kilnArgv, s, error) || (vs && !runOnce(llamaArgv, s, error)))
    return fail(error);
  std::vector<Sample> kiln, llama;
  std::vector<double> bandwidths, int8Peaks;
  for (int64_t i = 0; i < runs; ++i) {
    Sample k, l;
    double bwNow = 0, int8Now = 0;
    if (!probeNow(bwNow, int8Now))
      return fail(error);
    bandwidths.push_back(bwNow);
    int8Peaks.push_back(int8Now);
    k.readBandwidthGBs = l.readBandwidthGBs = bwNow;
    k.int8PeakGops = l.int8PeakGops = int8Now;
    if (!runOnce(kilnArgv, k, error))
      return fail(error);
    kiln.push_back(k);
    if (vs) {
      if (!runOnce(llamaArgv, l, error))
        return fail(error);
      llama.push_back(l);
    }
  }

  const double wbytes = (double)report.decodeWeightBytes;
  const double kvRead = (double)report.kvBytesPerToken *
                        ((double)prompts[0] + (double)(decodeTokens + 1) / 2.0);
  const double bytes = wbytes + kvRead;
  const Stat bwStat = summarize(bandwidths);
  const double bw = bwStat.median;
  // Prefill arithmetic: the int8 operations (2 per multiply-add) of the
  // matmuls over the prompt, as the report counts them, per second of time
  // to first token, and that rate against the probe's int8 rate (the int8
  // instruction's issue rate on one core, times the threads).
  const double int8OpsPerToken = report.flopsByPrecision(false)["int8"];
  const Stat int8PeakStat = summarize(int8Peaks);
  std::vector<Metric> metrics;
  for (int64_t p : prompts)
    metrics.push_back({"ttft_" + std::to_string(p) + "_s", "s",
                       [p](const Sample &s) { return s.ttft.at(p); }, false});
  for (int64_t p : prompts) {
    auto gops = [p, int8OpsPerToken](const Sample &s) {
      return int8OpsPerToken * (double)p / s.ttft.at(p) / 1e9;
    };
    metrics.push_back({"prefill_" + std::to_string(p) + "_int8_gops", "GOP/s",
                       gops, true});
    metrics.push_back({"prefill_" + std::to_string(p) + "_int8_peak_fraction",
                       "",
                       [gops, t = (double)threads](const Sample &s) {
                         return gops(s) / (s.int8PeakGops * t);
                       },
                       true});
  }
  metrics.push_back({"decode_tokens_per_s", "tok/s",
                     [](const Sample &s) { return s.decodeTokS; }, true});
  metrics.push_back({"cold_start_s", "s",
                     [](const Sample &s) { return s.coldStart; }, false});
  metrics.push_back({"peak_rss_bytes", "B",
                     [](const Sample &s) { return s.rssBytes; }, false});
  metrics.push_back({"effective_bandwidth_gbs", "GB/s",
                     [bytes](const Sample &s) {
                       return bytes * s.decodeTokS / 1e9;
                     },
                     true});
  metrics.push_back({"bandwidth_fraction", "",
                     [bytes](const Sample &s) {
                       return bytes * s.decodeTokS / 1e9 / s.readBandwidthGBs;
                     },
                     true});
  metrics.push_back({"weight_bandwidth_fraction", "",
                     [wbytes](const Sample &s) {
                       return wbytes * s.decodeTokS / 1e9 / s.readBandwidthGBs;
                     },
                     true});
  // Figures of Kiln's own bytes, not compared with llama.cpp's.
  auto ownOnly = [](const std::string &key) {
    return key == "bandwidth_fraction" || key == "weight_bandwidth_fraction" ||
           key == "effective_bandwidth_gbs" ||
           StringRef(key).startswith("prefill_");
  };
  auto collect = [](const std::vector<Sample> &v, const Metric &m) {
    std::vector<double> x;
    for (const Sample &s : v)
      x.push_back(m.get(s));
    return x;
  };
  auto ratios = [&](const Metric &m) {
    std::vector<double> x;
    for (size_t i = 0; i < kiln.size() && i < llama.size(); ++i)
      x.push_back(m.get(kiln[i]) / m.get(llama[i]));
    return summarize(x);
  };

  if (jsonOut) {
    std::string text;
    raw_string_ostream os(text);
    llvm::json::OStream j(os, 2);
    auto engine = [&](const std::vector<Sample> &v) {
      j.object([&] {
        for (const Metric &m : metrics) {
          Stat st = summarize(collect(v, m));
          j.attributeObject(m.key, [&] {
            j.attribute("median", st.median);
            j.attribute("min", st.min);
            j.attribute("max", st.max);
          });
        }
      });
    };
    j.object([&] {
      j.attribute("model", modelPath);
      j.attribute("target", "x86");
      j.attribute("cpu", cpu.empty() ? "host" : cpu.getValue());
      j.attribute("threads", threads);
      j.attribute("weights_memory", weightsMemory.getValue());
      j.attribute("runs", (int64_t)runs);
      j.attribute("decode_tokens", (int64_t)decodeTokens);
      j.attributeArray("prompt_lengths", [&] {
        for (int64_t p : prompts)
          j.value(p);
      });
      j.attribute("kv_cache", kvCache.getValue());
      j.attribute("max_batch", report.maxBatch);
      j.attribute("weight_bytes_per_token", report.decodeWeightBytes);
      j.attribute("kv_bytes_per_position", report.kvBytesPerToken);
      j.attribute("kv_read_bytes_per_token", kvRead);
      j.attribute("bytes_per_token", bytes);
      j.attribute("read_bandwidth_gbs", bw);
      j.attribute("int8_ops_per_prompt_token", int8OpsPerToken);
      j.attribute("int8_peak_gops_per_core", int8PeakStat.median);
      j.attribute("peak_source", device.empty() ? std::string("probe")
                                                : stated.path);
      j.attributeObject("read_bandwidth_runs_gbs", [&] {
        j.attribute("median", bwStat.median);
        j.attribute("min", bwStat.min);
        j.attribute("max", bwStat.max);
      });
      j.attributeBegin("kiln");
      engine(kiln);
      j.attributeEnd();
      if (vs) {
        j.attributeBegin("llama_cpp");
        engine(llama);
        j.attributeEnd();
        j.attributeObject("ratio_kiln_over_llama_cpp", [&] {
          for (const Metric &m : metrics) {
            if (ownOnly(m.key))
              continue;
            Stat st = ratios(m);
            j.attributeObject(m.key, [&] {
              j.attribute("median", st.median);
              j.attribute("min", st.min);
              j.attribute("max", st.max);
            });
          }
        });
      }
    });
    outs() << text << "\n";
    return 0;
  }

  auto fmt = bench::formatNumber;
  outs() << "kiln-bench: " << modelPath << ", x86 --cpu="
         << (cpu.empty() ? "host" : cpu.getValue()) << ", " << threads
         << " thread(s), weights " << weightsMemory << ", " << runs
         << " run(s) after 1 warm-up, decode "
         << decodeTokens << " tokens after a " << prompts[0]
 << "-token prompt, KV cache " << kvCache << ", prefill chunk "
         << prefillChunkText(report) << "\n"
         << "bytes per token " << fmt(bytes) << " (weights "
         << report.decodeWeightBytes << " + KV read " << fmt(kvRead)
         << ", mean over the decode), ";
  if (device.empty())
    outs() << "one-thread read bandwidth " << fmt(bw) << " GB/s (median of "
           << runs << " probes, one before each round: " << fmt(bwStat.min)
           << "-" << fmt(bwStat.max) << ")\n"
           << "int8 operations per prompt token " << fmt(int8OpsPerToken)
           << ", one-core int8 rate " << fmt(int8PeakStat.median)
           << " GOP/s (the probe's int8 instruction on independent accumulators in L1, median)\n";
  else
    outs() << "read bandwidth " << fmt(bw) << " GB/s\n"
           << "int8 operations per prompt token " << fmt(int8OpsPerToken)
           << ", one-core int8 peak " << fmt(int8PeakStat.median)
           << " GOP/s (both stated by device profile " << stated.name << ", "
           << stated.path << ": " << stated.comment << ")\n";
  char line[256];
  snprintf(line, sizeof line, "%-34s %10s %10s %10s", "metric (median min max)",
           "kiln", "min", "max");
  outs() << line;
  if (vs) {
    snprintf(line, sizeof line, " %10s %10s %10s %16s", "llama.cpp", "min",
             "max", "kiln/llama.cpp");
    outs() << line;
  }
  outs() << "\n";
  for (const Metric &m : metrics) {
    Stat k = summarize(collect(kiln, m));
    std::string label = m.key + (m.unit.empty() ? "" : " (" + m.unit + ")");
    snprintf(line, sizeof line, "%-34s %10s %10s %10s", label.c_str(),
             fmt(k.median).c_str(), fmt(k.min).c_str(), fmt(k.max).c_str());
    outs() << line;
    if (vs && !ownOnly(m.key)) {
      Stat l = summarize(collect(llama, m)), r = ratios(m);
      snprintf(line, sizeof line, " %10s %10s %10s %16s",
               fmt(l.median).c_str(), fmt(l.min).c_str(), fmt(l.max).c_str(),
               (fmt(r.median) + (m.higherIsBetter ? " (>1 better)"
                                                  : " (<1 better)"))
                   .c_str());
      outs() << line;
    }
    outs() << "\n";
  }
  return 0;
}
