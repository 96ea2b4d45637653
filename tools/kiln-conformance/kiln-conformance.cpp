//===- kiln-conformance.cpp - ONNX backend node tests for one target ------===//
//
//   kiln-conformance --suite=/usr/share/libonnx-testdata/data/node --target=x86
//
// Compiles every test's model (dynamic dimensions fixed from the inputs of
// test_data_set_0), builds all of them into one program for the target, runs
// each data set natively or under qemu and compares every output with the
// expected one: floats within |got - want| <= atol + rtol * |want| (NaN
// matches NaN), integers and booleans exactly. Prints one line per test
// (PASS / FAIL / UNSUPPORTED with the reason), a summary over the tests whose
// operators are all in Kiln's list, and last "N passed, N failed, N
// unsupported". Exits 1 if any test failed.
//
#include "compiler/driver/Compile.h"
#include "compiler/targets/Target.h"
#include "tools/common/GraphHarness.h"
#include "tools/common/OnnxTestData.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <regex>
#include <thread>

using namespace llvm;
using namespace kiln;
namespace konnx = kiln::onnx;

static cl::OptionCategory cat("kiln-conformance options");
static cl::opt<std::string> suite(
    "suite", cl::desc("Directory of ONNX node tests (one directory per test "
                      "holding model.onnx and test_data_set_*/)"),
    cl::init("/usr/share/libonnx-testdata/data/node"), cl::cat(cat));
static cl::opt<std::string> target("target",
                                   cl::desc("Target to compile and run for"),
                                   cl::init("generic"), cl::cat(cat));
static cl::opt<std::string> cpu("cpu", cl::desc("Target CPU/feature level"),
                                cl::init(""), cl::cat(cat));
static cl::opt<std::string> halide("halide", cl::desc("As kilnc --halide"),
                                   cl::init("default"), cl::cat(cat));
static cl::opt<std::string> layout("layout", cl::desc("As kilnc --layout"),
                                   cl::init("auto"), cl::cat(cat));
static cl::opt<int64_t> vectorBits(
    "vector-bits", cl::desc("SVE/RVV vector length to run at under qemu"),
    cl::init(0), cl::cat(cat));
static cl::opt<std::string> filter(
    "filter", cl::desc("Only tests whose name matches this regular expression"),
    cl::init(""), cl::cat(cat));
static cl::opt<bool> listedOnly(
    "listed-only",
    cl::desc("Only tests whose operators are all in the supported list"),
    cl::init(false), cl::cat(cat));
static cl::opt<int> jobs("j", cl::desc("Parallel compiles and runs (default: "
                                       "the number of cores)"),
                         cl::init(0), cl::cat(cat));
static cl::opt<double> rtolOpt("rtol", cl::desc("Relative tolerance for floats"),
                               cl::init(1e-3), cl::cat(cat));
static cl::opt<double> atolOpt("atol", cl::desc("Absolute tolerance for floats"),
                               cl::init(1e-5), cl::cat(cat));
static cl::opt<std::string> keep(
    "keep", cl::desc("Build in this directory and keep it (default: a "
                     "temporary directory, removed)"),
    cl::init(""), cl::cat(cat));
static cl::opt<std::string> baseline(
    "baseline",
    cl::desc("A previous run's output: every test it lists as PASS must pass "
             "again (a regression fails the run); other failures are "
             "reported but do not change the exit status"),
    cl::init(""), cl::cat(cat));
static cl::opt<bool> quiet("q", cl::desc("Print only failures and the summary"),
                           cl::init(false), cl::cat(cat));

namespace {
struct TestCase {
  konnx::TestDir dir;
  bool listed = false;
  std::string status, reason; // PASS / FAIL / UNSUPPORTED / SKIP
  size_t model = SIZE_MAX;    // index into the harness
  /// The model's inputs in graph order (initializers excluded), and those
  /// compiled as constants: an input that determines a shape (a Reshape's
  /// shape, Slice's starts) is frozen to data set 0's value, as a user would
  /// with kilnc --freeze-input.
  std::vector<std::string> inputNames;
  std::map<std::string, konnx::Tensor> frozen;
};

/// The graph input a compile error asks to know at compile time, if any.
std::string inputWantedConstant(const std::string &error) {
  static const std::regex re("\\('([^']*)'\\) must be known at compile time");
  std::smatch m;
  return std::regex_search(error, m, re) ? m[1].str() : "";
}
} // namespace

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "kiln-conformance: run ONNX backend node tests for one target\n\n"
      "  kiln-conformance --suite=/usr/share/libonnx-testdata/data/node "
      "--target=x86\n");
  auto fail = [](const std::string &m) {
    errs() << "kiln-conformance: error: " << m << "\n";
    return 2;
  };
  std::string error;
  TargetOptions topts;
  topts.cpu = cpu;
  auto tgt = createTarget(target, topts, error);
  if (!tgt || !tgt->checkRun(vectorBits, error))
    return fail(error);
  if (!sys::fs::is_directory(suite))
    return fail("--suite=" + suite + ": not a directory");
  // The baseline is read before the suite runs: a path that cannot be read
  // (or a directory, which opens and reads as nothing) is an error at once,
  // not a vacuous comparison minutes later.
  std::vector<std::string> baselinePasses;
  if (!baseline.empty()) {
    if (!sys::fs::is_regular_file(baseline))
      return fail("--baseline=" + baseline + ": not a readable file");
    std::ifstream in(baseline);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("PASS ", 0) == 0) {
        std::string name = line.substr(5);
        baselinePasses.push_back(name.substr(0, name.find(':')));
      }
    if (in.bad() || !in.eof())
      return fail("--baseline=" + baseline + ": cannot read the file");
  }
  int njobs = jobs > 0 ? (int)jobs
                       : (int)std::max(1u, std::thread::hardware_concurrency());

  std::vector<TestCase> tests;
  for (konnx::TestDir &d : konnx::listTests(suite, filter, error)) {
    TestCase t;
    t.dir = std::move(d);
    tests.push_back(std::move(t));
  }
  if (!error.empty())
    return fail(error);
  if (tests.empty())
    return fail("no tests under " + suite +
                (filter.empty() ? "" : " match --filter=" + filter));

  // Compile every test's model: import, passes, C sources.
  std::vector<HarnessModel> models(tests.size());
  std::vector<char> compiled(tests.size());
  parallelFor(tests.size(), njobs, [&](size_t i) {
    TestCase &t = tests[i];
    std::string err;
    auto model = konnx::loadModel(t.dir.dir + "/model.onnx", err);
    if (!model) {
      t.status = "UNSUPPORTED";
      t.reason = err;
      return;
    }
    t.listed = konnx::usesListedOpsOnly(*model);
    if (listedOnly && !t.listed) {
      t.status = "SKIP";
      return;
    }
    konnx::InputShapes shapes;
    std::vector<konnx::Tensor> ins;
    std::map<std::string, konnx::Tensor> byName;
    if (!t.dir.dataSets.empty() &&
        konnx::readDataSet(t.dir.dataSets[0], "input", ins, err)) {
      shapes = konnx::shapesFromInputs(*model, ins);
      byName = konnx::inputsByName(*model, ins);
    }
    t.inputNames = konnx::runtimeInputs(*model);
    mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
    LoadedModel loaded;
    CompileOptions opts;
    opts.target = target;
    opts.targetOptions = topts;
    opts.emit.name = "k" + std::to_string(i);
    opts.pipeline.halide = halide;
    opts.pipeline.layout = layout;
    bool loadedOk;
    while (!(loadedOk = loadModel(ctx, t.dir.dir + "/model.onnx", loaded, err,
                                  shapes, t.frozen))) {
      if (err.find("known at compile time") == std::string::npos)
        break;
      // Freeze the input the message names, else the next one (integer
      // inputs first: they are the shapes, axes and pads).
      std::string want = inputWantedConstant(err);
      if (!byName.count(want) || t.frozen.count(want)) {
        want.clear();
        for (int pass = 0; pass < 2 && want.empty(); ++pass)
          for (const std::string &name : t.inputNames)
            if (want.empty() && byName.count(name) && !t.frozen.count(name) &&
                (pass == 1 || !konnx::isFloat(byName[name].dtype)))
              want = name;
      }
      if (want.empty())
        break;
      t.frozen[want] = byName[want];
      shapes.erase(want);
    }
    if (!loadedOk || !runPipeline(*loaded.module, opts, err) ||
        !generateLibrarySources(*loaded.module, *loaded.weights, opts.emit,
                                models[i].sources, err)) {
      t.status = "UNSUPPORTED";
      t.reason = err;
      return;
    }
    models[i].name = opts.emit.name;
    describeGraph(*loaded.module, models[i].inputs, models[i].outputs);
    compiled[i] = 1;
  });

  std::vector<HarnessModel> built;
  for (size_t i = 0; i < tests.size(); ++i)
    if (compiled[i]) {
      tests[i].model = built.size();
      built.push_back(std::move(models[i]));
    }

  SmallString<128> dir;
  if (!keep.empty()) {
    dir = keep;
    sys::fs::create_directories(dir);
  } else if (auto e = sys::fs::createUniqueDirectory("kiln-conformance", dir)) {
    return fail("cannot create a temporary directory: " + e.message());
  }
  if (!built.empty() &&
      !buildHarness(built, *tgt, dir.str().str(), njobs, error)) {
    if (keep.empty())
      sys::fs::remove_directories(dir);
    return fail(error);
  }

  // Run every data set of every built test.
  parallelFor(tests.size(), njobs, [&](size_t i) {
    TestCase &t = tests[i];
    if (t.model == SIZE_MAX)
      return;
    const HarnessModel &m = built[t.model];
    if (!m.built) {
      t.status = "FAIL";
      t.reason = m.buildError;
      return;
    }
    t.status = "PASS";
    for (const std::string &set : t.dir.dataSets) {
      std::vector<konnx::Tensor> ins, want, got;
      std::string err;
      const std::string setName = sys::path::filename(set).str();
      if (!konnx::readDataSet(set, "input", ins, err) ||
          !konnx::readDataSet(set, "output", want, err)) {
        t.status = "FAIL";
        t.reason = err;
        return;
      }
      // Frozen inputs must hold the value they were compiled with.
      std::vector<konnx::Tensor> runtime;
      for (size_t k = 0; k < ins.size() && k < t.inputNames.size(); ++k) {
        auto f = t.frozen.find(t.inputNames[k]);
        if (f == t.frozen.end()) {
          runtime.push_back(ins[k]);
        } else if (f->second.data != ins[k].data ||
                   f->second.shape != ins[k].shape) {
          t.status = "FAIL";
          t.reason = setName + ": input '" + f->first +
                     "' differs from the value it was compiled with";
          return;
        }
      }
      ins = std::move(runtime);
      if (ins.size() != m.inputs.size() || want.size() != m.outputs.size()) {
        t.status = "FAIL";
        t.reason = setName + " has " + std::to_string(ins.size()) +
                   " inputs and " + std::to_string(want.size()) +
                   " outputs, the compiled model " +
                   std::to_string(m.inputs.size()) + " and " +
                   std::to_string(m.outputs.size());
        return;
      }
      for (size_t k = 0; k < ins.size(); ++k)
        if (ins[k].dtype != m.inputs[k].dtype ||
            ins[k].shape != m.inputs[k].shape) {
          t.status = "FAIL";
          t.reason = "input " + std::to_string(k) + " of " + setName + " is " +
                     konnx::dtypeName(ins[k].dtype) + " " +
                     konnx::shapeString(ins[k].shape) + ", compiled for " +
                     konnx::dtypeName(m.inputs[k].dtype) + " " +
                     konnx::shapeString(m.inputs[k].shape);
          return;
        }
      if (!runHarness(built, t.model, *tgt, vectorBits, dir.str().str(), ins,
                      got, err)) {
        t.status = "FAIL";
        t.reason = "run failed: " + err;
        return;
      }
      for (size_t k = 0; k < want.size(); ++k) {
        std::string why;
        if (!konnx::compareTensor(got[k], want[k], rtolOpt, atolOpt, why)) {
          t.status = "FAIL";
          t.reason = setName + " output " + std::to_string(k) + " ('" +
                     m.outputs[k].name + "'): " + why;
          return;
        }
      }
    }
  });
  if (keep.empty())
    sys::fs::remove_directories(dir);

  int passed = 0, failed = 0, unsupported = 0, listedPassed = 0, listedTotal = 0;
  for (const TestCase &t : tests) {
    if (t.status == "SKIP")
      continue;
    std::string reason = t.reason;
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    if (reason.size() > 300)
      reason = reason.substr(0, 300) + "...";
    if (!quiet || t.status == "FAIL")
      outs() << t.status << " " << t.dir.name << (reason.empty() ? "" : ": ")
             << reason << "\n";
    passed += t.status == "PASS";
    failed += t.status == "FAIL";
    unsupported += t.status == "UNSUPPORTED";
    if (t.listed) {
      ++listedTotal;
      listedPassed += t.status == "PASS";
    }
  }
  outs() << "target " << target << ": tests using only listed operators: "
         << listedPassed << " of " << listedTotal << " passed ("
         << format("%.1f", listedTotal ? 100.0 * listedPassed / listedTotal : 0.0)
         << "%)\n";
  int regressions = 0;
  if (!baseline.empty()) {
    std::map<std::string, const TestCase *> byName;
    for (const TestCase &t : tests)
      byName[t.dir.name] = &t;
    for (const std::string &name : baselinePasses) {
      auto it = byName.find(name);
      if (it == byName.end() || it->second->status == "SKIP")
        continue; // filtered out of this run
      if (it->second->status != "PASS") {
        outs() << "REGRESSION " << name << ": passes in " << baseline
               << ", now " << it->second->status << "\n";
        ++regressions;
      }
    }
  }
  outs() << passed << " passed, " << failed << " failed, " << unsupported
         << " unsupported\n";
  if (!baseline.empty())
    return regressions ? 1 : 0;
  return failed ? 1 : 0;
}
