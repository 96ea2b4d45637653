//===- GraphHarness.cpp - building and running graph-model libraries ------===//
#include "tools/common/GraphHarness.h"
#include "compiler/codegen/Toolchain.h"
#include "compiler/support/Process.h"
#include "compiler/targets/Target.h"

#include "compiler/dialect/KilnDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <atomic>
#include <fstream>
#include <mutex>
#include <thread>

using namespace mlir;

namespace kiln {

static int32_t dtypeOf(Type t) {
  if (t.isF32()) return onnx::F32;
  if (t.isF64()) return onnx::F64;
  if (t.isF16()) return onnx::F16;
  if (t.isInteger(1)) return onnx::BOOL;
  auto i = t.cast<IntegerType>();
  bool u = i.isUnsigned();
  switch (i.getWidth()) {
  case 8: return u ? onnx::U8 : onnx::I8;
  case 16: return u ? onnx::U16 : onnx::I16;
  case 32: return u ? onnx::U32 : onnx::I32;
  default: return u ? onnx::U64 : onnx::I64;
  }
}

void describeGraph(ModuleOp module, std::vector<onnx::Tensor> &inputs,
                   std::vector<onnx::Tensor> &outputs) {
  auto func = module.lookupSymbol<func::FuncOp>("run");
  auto fnType = func.getFunctionType();
  auto add = [](std::vector<onnx::Tensor> &list, Type type, StringRef name) {
    auto t = type.cast<RankedTensorType>();
    onnx::Tensor d;
    d.name = name.str();
    d.dtype = dtypeOf(t.getElementType());
    d.shape.assign(t.getShape().begin(), t.getShape().end());
    list.push_back(std::move(d));
  };
  inputs.clear();
  outputs.clear();
  for (unsigned i = 0; i < fnType.getNumInputs(); ++i)
    add(inputs, fnType.getInput(i),
        func.getArgAttrOfType<StringAttr>(i, "kiln.name").getValue());
  for (unsigned i = 0; i < fnType.getNumResults(); ++i)
    add(outputs, fnType.getResult(i),
        func.getResultAttrOfType<StringAttr>(i, "kiln.name").getValue());
}

void parallelFor(size_t n, int jobs, const std::function<void(size_t)> &fn) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (int j = 0; j < std::max(1, jobs); ++j)
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < n;)
        fn(i);
    });
  for (auto &t : threads)
    t.join();
}

/// The table of models every harness program starts with.
static std::string modelTable(const std::vector<HarnessModel> &models) {
  std::string s;
  for (const HarnessModel &m : models)
    if (m.built)
      s += "#include \"" + m.name + ".h\"\n";
  s += "typedef struct {\n  const char *name;\n"
       "  kiln_status (*init)(kiln_ctx *, void *, size_t, uint32_t);\n"
       "  void (*shutdown)(kiln_ctx *);\n  uint32_t threads;\n"
       "  kiln_status (*run)(kiln_ctx *, const void *const *, void *const *);\n"
       "  size_t arena;\n  int nin, nout;\n"
       "  const kiln_tensor_info *ins, *outs;\n} model_entry;\n"
       "static const model_entry models[] = {\n";
  for (const HarnessModel &m : models) {
    if (!m.built)
      continue;
    std::string U = llvm::StringRef(m.name).upper();
    s += "  {\"" + m.name + "\", " + m.name + "_init_threads, " + m.name +
         "_shutdown, " + U + "_MAX_THREADS, " + m.name + "_run, " + U +
         "_ARENA_BYTES, " + U + "_NUM_INPUTS, " + U + "_NUM_OUTPUTS, " +
         m.name + "_inputs, " + m.name + "_outputs},\n";
  }
  s += "  {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}\n};\n";
  return s;
}

/// The hosted test program: main(argc, argv) with argv = MODEL IN... OUT...
static std::string hostedDriver(const std::vector<HarnessModel> &models) {
  std::string s = "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n";
  s += modelTable(models);
  s += R"c(
static void *load(const char *path, size_t bytes) {
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(3); }
  void *p = malloc(bytes ? bytes : 1);
  size_t got = fread(p, 1, bytes, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  if (got != bytes || extra) {
    fprintf(stderr, "%s: expected %zu bytes\n", path, bytes);
    exit(3);
  }
  return p;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  const model_entry *m = 0;
  for (const model_entry *e = models; e->name; ++e)
    if (!strcmp(e->name, argv[1])) m = e;
  if (!m || argc != 2 + m->nin + m->nout) {
    fprintf(stderr, "usage: harness MODEL IN... OUT...\n");
    return 2;
  }
  const void *in[64];
  void *out[64];
  for (int i = 0; i < m->nin; ++i) in[i] = load(argv[2 + i], m->ins[i].bytes);
  for (int i = 0; i < m->nout; ++i) out[i] = malloc(m->outs[i].bytes + 1);
  void *arena = aligned_alloc(KILN_ARENA_ALIGN, (m->arena + 63) / 64 * 64);
  kiln_ctx ctx;
  kiln_status s = m->init(&ctx, arena, m->arena, m->threads);
  if (s == KILN_OK) s = m->run(&ctx, in, out);
  m->shutdown(&ctx);
  if (s != KILN_OK) {
    fprintf(stderr, "%s: %s\n", m->name, kiln_status_string(s));
    return 4;
  }
  for (int i = 0; i < m->nout; ++i) {
    FILE *f = fopen(argv[2 + m->nin + i], "wb");
    if (!f || fwrite(out[i], 1, m->outs[i].bytes, f) != m->outs[i].bytes ||
        fclose(f) != 0) {
      fprintf(stderr, "cannot write %s\n", argv[2 + m->nin + i]);
      return 3;
    }
  }
  return 0;
}
)c";
  return s;
}

/// The freestanding test program (Hexagon: no C library, no argv): Linux
/// system calls through trap0 read the file "args" of the working directory
/// (MODEL, then one path per input and output, one per line), the inputs and
/// write the outputs; buffers are static, sized for the largest model.
static std::string freestandingDriver(const std::vector<HarnessModel> &models) {
  uint64_t in = 64, out = 64;
  for (const HarnessModel &m : models) {
    if (!m.built)
      continue;
    for (const auto &t : m.inputs)
      in = std::max<uint64_t>(in, t.bytes());
    for (const auto &t : m.outputs)
      out = std::max<uint64_t>(out, t.bytes());
  }
  std::string s = "#include <stddef.h>\n#include <stdint.h>\n";
  s += modelTable(models);
  s += "static uint8_t arena[" + std::string("ARENA_MAX") + "] __attribute__((aligned(64)));\n";
  std::string sizes = "#define IN_MAX " + std::to_string(in) + "u\n#define OUT_MAX " +
                      std::to_string(out) + "u\n";
  s = sizes + s;
  s += R"c(
static uint8_t inbuf[8][IN_MAX], outbuf[8][OUT_MAX];
static char args[8192];

static long sys4(long nr, long a, long b, long c, long d) {
  register long r0 __asm__("r0") = a;
  register long r1 __asm__("r1") = b;
  register long r2 __asm__("r2") = c;
  register long r3 __asm__("r3") = d;
  register long r6 __asm__("r6") = nr;
  __asm__ volatile("trap0(#1)" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r3), "r"(r6) : "memory");
  return r0;
}
static void quit(int rc) { sys4(93, rc, 0, 0, 0); for (;;) {} }
static void say(const char *m) { size_t n = 0; while (m[n]) ++n; sys4(64, 2, (long)m, (long)n, 0); }
static long readall(const char *path, void *buf, long cap) {
  long fd = sys4(56, -100, (long)path, 0, 0), got = 0, r;
  if (fd < 0) { say("cannot open "); say(path); say("\n"); quit(3); }
  while ((r = sys4(63, fd, (long)((char *)buf + got), cap - got, 0)) > 0) got += r;
  sys4(57, fd, 0, 0, 0);
  return got;
}
static int same(const char *a, const char *b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

void _start(void) {
  long n = readall("args", args, sizeof args - 1);
  args[n] = 0;
  char *line[20];
  int lines = 0;
  for (char *p = args; *p && lines < 20;) {
    line[lines++] = p;
    while (*p && *p != '\n') ++p;
    if (*p) *p++ = 0;
  }
  const model_entry *m = 0;
  for (const model_entry *e = models; lines && e->name; ++e)
    if (same(e->name, line[0])) m = e;
  if (!m || lines != 1 + m->nin + m->nout || m->nin > 8 || m->nout > 8 ||
      m->arena > sizeof arena) { say("bad args\n"); quit(2); }
  const void *in[8];
  void *out[8];
  for (int i = 0; i < m->nin; ++i) {
    if (readall(line[1 + i], inbuf[i], IN_MAX) != (long)m->ins[i].bytes) {
      say(line[1 + i]); say(": wrong size\n"); quit(3);
    }
    in[i] = inbuf[i];
  }
  for (int i = 0; i < m->nout; ++i) out[i] = outbuf[i];
  kiln_ctx ctx;
  kiln_status s = m->init(&ctx, arena, m->arena, m->threads);
  if (s == KILN_OK) s = m->run(&ctx, in, out);
  m->shutdown(&ctx);
  if (s != KILN_OK) { say(kiln_status_string(s)); say("\n"); quit(4); }
  for (int i = 0; i < m->nout; ++i) {
    long fd = sys4(56, -100, (long)line[1 + m->nin + i], 0x241, 0644);
    if (fd < 0 || sys4(64, fd, (long)outbuf[i], (long)m->outs[i].bytes, 0) !=
                      (long)m->outs[i].bytes) { say("cannot write output\n"); quit(3); }
    sys4(57, fd, 0, 0, 0);
  }
  quit(0);
}
)c";
  uint64_t arenaMax = 64;
  for (const HarnessModel &m : models)
    if (m.built)
      arenaMax = std::max<uint64_t>(arenaMax, m.arenaBytes);
  s = "#define ARENA_MAX " + std::to_string(arenaMax) + "u\n" + s;
  return s;
}

bool buildHarness(std::vector<HarnessModel> &models, const Target &target,
                  const std::string &dir, int jobs, std::string &error) {
  if (auto ec = llvm::sys::fs::create_directories(dir + "/kiln")) {
    error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  // Shared units (runtime, thread support, tensor kernels) come from the
  // first model; each model adds its own source and weights.
  std::map<std::string, bool> shared; // unit -> compiled ok
  std::vector<std::string> sharedUnits;
  std::vector<std::string> cflags;
  for (HarnessModel &m : models) {
    const LibrarySources &src = m.sources;
    for (const auto &[name, text] : src.texts) {
      bool own = llvm::StringRef(name).startswith(m.name + ".") ||
                 llvm::StringRef(name).startswith(m.name + "_weights");
      if (!own && shared.count(name))
        continue;
      if (!writeFile(dir + "/" + name, text, error))
        return false;
      if (!own)
        shared[name] = true;
    }
    if (!writeFile(dir + "/" + src.blobFile, src.blob.data(), src.blob.size(),
                   error))
      return false;
    for (const std::string &u : src.units) {
      bool own = llvm::StringRef(u).startswith(m.name + ".") ||
                 llvm::StringRef(u).startswith(m.name + "_weights");
      if (!own && std::find(sharedUnits.begin(), sharedUnits.end(), u) ==
                      sharedUnits.end())
        sharedUnits.push_back(u);
    }
    if (cflags.empty())
      cflags = src.cflags;
  }
  // The shared kernel units go through the object cache; each test's own
  // small unit is compiled, since keying it would cost about what compiling
  // it does and no other run has its text.
  Toolchain toolchain(target), uncached(target);
  uncached.setCacheDir("");
  auto compile = [&](const std::string &unit, std::string &output) {
    return toolchain.compile(dir, unit, cflags, output);
  };
  // Shared units first (every model needs them), then the models.
  std::vector<std::string> sharedErrors(sharedUnits.size());
  std::vector<char> sharedOk(sharedUnits.size());
  parallelFor(sharedUnits.size(), jobs, [&](size_t i) {
    sharedOk[i] = compile(sharedUnits[i], sharedErrors[i]);
  });
  for (size_t i = 0; i < sharedUnits.size(); ++i)
    if (!sharedOk[i]) {
      error = sharedErrors[i];
      return false;
    }
  parallelFor(models.size(), jobs, [&](size_t i) {
    HarnessModel &m = models[i];
    m.built = true;
    for (const std::string &u : m.sources.units) {
      if (std::find(sharedUnits.begin(), sharedUnits.end(), u) !=
          sharedUnits.end())
        continue;
      std::string out;
      if (!uncached.compile(dir, u, cflags, out)) {
        m.built = false;
        m.buildError = out.substr(0, 2000);
        return;
      }
    }
    for (const HalideObject &h : m.sources.halide) {
      std::string out;
      if (!buildHalideObject(h, dir, out)) {
        m.built = false;
        m.buildError = out.substr(0, 2000);
        return;
      }
    }
  });
  bool any = false;
  for (const HarnessModel &m : models)
    any |= m.built;
  if (!any) {
    error = models.empty() ? "no models to build" : models[0].buildError;
    return false;
  }
  for (HarnessModel &m : models) // NAME_ARENA_BYTES, for static arenas
    for (const auto &[name, text] : m.sources.texts)
      if (name == m.sources.header) {
        size_t at = text.find("_ARENA_BYTES ((size_t)");
        if (at != std::string::npos)
          m.arenaBytes = std::stoull(text.substr(at + 22));
      }
  if (!writeFile(dir + "/harness.c",
                 target.hosted() ? hostedDriver(models)
                                 : freestandingDriver(models),
                 error))
    return false;
  std::string out;
  if (!compile("harness.c", out)) {
    error = out;
    return false;
  }
  std::vector<std::string> inputs = {"harness.o"};
  for (const std::string &u : sharedUnits)
    inputs.push_back(llvm::sys::path::stem(u).str() + ".o");
  for (const HarnessModel &m : models)
    if (m.built)
      for (const std::string &u : m.sources.units)
        if (std::find(sharedUnits.begin(), sharedUnits.end(), u) ==
            sharedUnits.end())
          inputs.push_back(llvm::sys::path::stem(u).str() + ".o");
  for (const HarnessModel &m : models)
    if (m.built)
      for (const HalideObject &h : m.sources.halide)
        inputs.push_back(h.file());
  if (target.hosted())
    inputs.push_back("-lm");
  else // kernels no model calls may need math the target does not have
    inputs.push_back("-Wl,--gc-sections");
  if (!toolchain.link(dir, inputs, "harness", error)) {
    error = "the harness: " + error;
    return false;
  }
  return true;
}

bool runHarness(const std::vector<HarnessModel> &models, size_t index,
                const Target &target, int64_t vectorBits,
                const std::string &dirArg, const std::vector<onnx::Tensor> &inputs,
                std::vector<onnx::Tensor> &outputs, std::string &error) {
  const HarnessModel &m = models[index];
  llvm::SmallString<256> absDir(dirArg);
  llvm::sys::fs::make_absolute(absDir);
  const std::string dir = absDir.str().str();
  std::vector<std::string> argv = {dir + "/harness"};
  argv.push_back(m.name);
  const std::string base = dir + "/" + m.name;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string path = base + ".in" + std::to_string(i);
    if (!writeFile(path, inputs[i].data.data(), inputs[i].data.size(), error))
      return false;
    argv.push_back(path);
  }
  for (size_t i = 0; i < m.outputs.size(); ++i)
    argv.push_back(base + ".out" + std::to_string(i));
  std::string cwd;
  if (!target.hosted()) { // no argv: the program reads ./args
    cwd = base + ".run";
    llvm::sys::fs::create_directories(cwd);
    std::string args;
    for (size_t i = argv.size() - 1 - inputs.size() - m.outputs.size();
         i < argv.size(); ++i)
      args += argv[i] + "\n";
    if (!writeFile(cwd + "/args", args, error))
      return false;
    argv.resize(argv.size() - 1 - inputs.size() - m.outputs.size());
  }
  std::string output;
  int status = Toolchain(target).run(argv, vectorBits, cwd, output);
  if (status != 0) {
    error = (status > 128 ? "killed by signal " + std::to_string(status - 128)
                          : "exit status " + std::to_string(status)) +
            (output.empty() ? "" : ": " + output.substr(0, 500));
    return false;
  }
  outputs = m.outputs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::ifstream in(base + ".out" + std::to_string(i), std::ios::binary);
    outputs[i].data.assign(std::istreambuf_iterator<char>(in), {});
    outputs[i].isConst = true;
    if (outputs[i].data.size() != outputs[i].bytes()) {
      error = "output " + std::to_string(i) + " has the wrong size";
      return false;
    }
  }
  return true;
}
} // namespace kiln
