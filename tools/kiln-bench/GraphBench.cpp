//===- GraphBench.cpp - kiln-bench on ONNX graphs -------------------------===//
//
// Each run is a fresh process (graph_driver.c): init, one run, then
// --iterations timed runs. A run's figures are the median and the best of its
// iterations; the table gives the median (min-max) of those over --runs runs.
// With --vs-onnxruntime the peer's driver runs the same protocol on the same
// model file and the same input values, alternately with Kiln's, and the
// ratios are taken per pair of runs.
//
#include "tools/kiln-bench/GraphBench.h"

#include "compiler/codegen/Toolchain.h"
#include "compiler/driver/Compile.h"
#include "compiler/support/Process.h"
#include "kernels/Embedded.h"
#include "tools/common/GraphHarness.h"
#include "tools/kiln-bench/Measure.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <sstream>

using namespace llvm;
using namespace kiln;
using namespace kiln::bench;

namespace kiln {
extern const EmbeddedFile kBenchGraphDriver[];
extern const size_t kBenchGraphDriver_count;
} // namespace kiln

namespace {
int fail(const std::string &msg) {
  errs() << "kiln-bench: error: " << msg << "\n";
  return 1;
}

/// One process's figures.
struct GraphSample {
  std::vector<double> runs; // seconds per timed run
  double coldStart = 0, rssBytes = 0;
  double median() const { return summarize(runs).median; }
  double best() const { return summarize(runs).min; }
};

bool runGraphOnce(const std::vector<std::string> &argv, int64_t iterations,
                  GraphSample &s, std::string &error) {
  std::string out;
  double start = 0;
  if (!runChild(argv, out, start, error))
    return false;
  std::istringstream in(out);
  std::string key;
  bool first = false, rss = false;
  s = GraphSample();
  while (in >> key) {
    if (key == "first_run") {
      double t;
      in >> t;
      s.coldStart = t - start;
      first = true;
    } else if (key == "run") {
      double t;
      in >> t;
      s.runs.push_back(t);
    } else if (key == "VmHWM:") {
      double kib;
      in >> kib;
      s.rssBytes = kib * 1024.0;
      rss = true;
    } else {
      std::string rest;
      std::getline(in, rest);
    }
  }
  if (!first || !rss || (int64_t)s.runs.size() != iterations) {
    error = joinCommand(argv) + ": unexpected output:\n" + out;
    return false;
  }
  return true;
}

struct GraphMetric {
  std::string key, unit;
  std::function<double(const GraphSample &)> get;
};

/// "NAME:DTYPE:D0,D1,..." for the peer's driver.
std::string inputSpec(const kiln::onnx::Tensor &t) {
  std::string s = t.name + ":" + std::to_string(t.dtype) + ":";
  for (size_t i = 0; i < t.shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(t.shape[i]);
  return s;
}
} // namespace

int bench::graphBench(const GraphBenchOptions &o) {
  if (o.iterations < 1 || o.iterations > 100000)
    return fail("--iterations=" + std::to_string(o.iterations) +
                ": expected 1 to 100000");
  const bool vs = !o.vsOnnxruntime.empty();
  if (vs && !sys::fs::can_execute(o.vsOnnxruntime))
    return fail("--vs-onnxruntime=" + o.vsOnnxruntime +
                ": not an executable (set it up with "
                "scripts/bench-onnxruntime.sh)");
  std::string error;
  kiln::onnx::InputShapes shapes;
  for (const std::string &spec : o.inputShapes)
    if (!kiln::onnx::parseInputShape(spec, shapes, error))
      return fail(error);

  CompileOptions opts;
  opts.target = "x86";
  opts.targetOptions.cpu = o.cpu;
  opts.emit.name = "bench";
  opts.layout.threads = o.threads;
  opts.pipeline.halide = o.halide;
  opts.pipeline.layout = o.layout;
  opts.pipeline.disabled = o.disabledPasses;
  {
    auto t = createTarget(opts.target, opts.targetOptions, error);
    if (!t || !t->checkRun(0, error))
      return fail("--cpu: " + error);
  }
  mlir::MLIRContext ctx;
  LoadedModel model;
  if (!loadModel(ctx, o.modelPath, model, error, shapes))
    return fail(error);
  if (!runPipeline(*model.module, opts, error))
    return fail(error);
  std::vector<kiln::onnx::Tensor> inputs, outputs;
  describeGraph(*model.module, inputs, outputs);

  BuildDir dir;
  if (!dir.open(o.keep, error))
    return fail(error);
  opts.emit.outDir = dir.path();
  if (!writeLibrary(*model.module, *model.weights, opts.emit, error))
    return fail(error);
  if (!writeFile(opts.emit.outDir + "/graph_driver.c",
                     std::string(kBenchGraphDriver[0].text,
                                 kBenchGraphDriver[0].size),
                     error))
    return fail(error);
  auto target = createModuleTarget(*model.module, error);
  if (!target)
    return fail(error);
  Toolchain toolchain(*target);
  if (!toolchain.compile(opts.emit.outDir, "graph_driver.c", {}, error) ||
      !toolchain.link(opts.emit.outDir,
                      {"graph_driver.o", "libbench.a", "-lpthread", "-lm"},
                      "graph_driver", error))
    return fail("the driver: " + error);

  const std::string iters = std::to_string(o.iterations);
  const std::vector<std::string> kilnArgv = {
      opts.emit.outDir + "/graph_driver", std::to_string(o.threads), iters};
  std::vector<std::string> peerArgv = {o.vsOnnxruntime, o.modelPath,
                                       std::to_string(o.threads), iters};
  for (const kiln::onnx::Tensor &t : inputs)
    peerArgv.push_back(inputSpec(t));

  GraphSample s;
  if (!runGraphOnce(kilnArgv, o.iterations, s, error) ||
      (vs && !runGraphOnce(peerArgv, o.iterations, s, error)))
    return fail(error);
  std::vector<GraphSample> kiln, peer;
  for (int64_t i = 0; i < o.runs; ++i) {
    GraphSample k, p;
    if (!runGraphOnce(kilnArgv, o.iterations, k, error))
      return fail(error);
    kiln.push_back(k);
    if (vs) {
      if (!runGraphOnce(peerArgv, o.iterations, p, error))
        return fail(error);
      peer.push_back(p);
    }
  }

  const std::vector<GraphMetric> metrics = {
      {"run_ms", "ms", [](const GraphSample &s) { return 1e3 * s.median(); }},
      {"best_run_ms", "ms",
       [](const GraphSample &s) { return 1e3 * s.best(); }},
      {"cold_start_s", "s", [](const GraphSample &s) { return s.coldStart; }},
      {"peak_rss_bytes", "B", [](const GraphSample &s) { return s.rssBytes; }},
  };
  auto collect = [](const std::vector<GraphSample> &v, const GraphMetric &m) {
    std::vector<double> x;
    for (const GraphSample &s : v)
      x.push_back(m.get(s));
    return summarize(x);
  };
  auto ratios = [&](const GraphMetric &m) {
    std::vector<double> x;
    for (size_t i = 0; i < kiln.size() && i < peer.size(); ++i)
      x.push_back(m.get(kiln[i]) / m.get(peer[i]));
    return summarize(x);
  };
  const std::string cpuName = o.cpu.empty() ? "host" : o.cpu;

  if (o.json) {
    std::string text;
    raw_string_ostream os(text);
    json::OStream j(os, 2);
    auto stat = [&](const std::string &key, const Stat &st) {
      j.attributeObject(key, [&] {
        j.attribute("median", st.median);
        j.attribute("min", st.min);
        j.attribute("max", st.max);
      });
    };
    j.object([&] {
      j.attribute("model", o.modelPath);
      j.attribute("target", "x86");
      j.attribute("cpu", cpuName);
      j.attribute("threads", o.threads);
      j.attribute("runs", o.runs);
      j.attribute("iterations", o.iterations);
      j.attributeArray("inputs", [&] {
        for (const kiln::onnx::Tensor &t : inputs)
          j.value(inputSpec(t));
      });
      j.attributeObject("kiln", [&] {
        for (const GraphMetric &m : metrics)
          stat(m.key, collect(kiln, m));
      });
      if (vs) {
        j.attributeObject("onnxruntime", [&] {
          for (const GraphMetric &m : metrics)
            stat(m.key, collect(peer, m));
        });
        j.attributeObject("ratio_kiln_over_onnxruntime", [&] {
          for (const GraphMetric &m : metrics)
            stat(m.key, ratios(m));
        });
      }
    });
    outs() << text << "\n";
    return 0;
  }

  outs() << "kiln-bench: " << o.modelPath << ", x86 --cpu=" << cpuName
         << ", " << o.threads << " thread(s), " << o.runs
         << " run(s) after 1 warm-up, " << o.iterations
         << " timed graph runs per process\ninputs:";
  for (const kiln::onnx::Tensor &t : inputs)
    outs() << " " << inputSpec(t);
  outs() << "\n";
  char line[256];
  snprintf(line, sizeof line, "%-26s %10s %10s %10s", "metric (median min max)",
           "kiln", "min", "max");
  outs() << line;
  if (vs) {
    snprintf(line, sizeof line, " %11s %10s %10s %17s", "onnxruntime", "min",
             "max", "kiln/onnxruntime");
    outs() << line;
  }
  outs() << "\n";
  for (const GraphMetric &m : metrics) {
    Stat k = collect(kiln, m);
    std::string label = m.key + " (" + m.unit + ")";
    snprintf(line, sizeof line, "%-26s %10s %10s %10s", label.c_str(),
             formatNumber(k.median).c_str(), formatNumber(k.min).c_str(),
             formatNumber(k.max).c_str());
    outs() << line;
    if (vs) {
      Stat p = collect(peer, m), r = ratios(m);
      snprintf(line, sizeof line, " %11s %10s %10s %17s",
               formatNumber(p.median).c_str(), formatNumber(p.min).c_str(),
               formatNumber(p.max).c_str(),
               (formatNumber(r.median) + " (<1 better)").c_str());
      outs() << line;
    }
    outs() << "\n";
  }
  return 0;
}
