//===- Device.cpp - device profiles: shipped JSON files and host probes ---===//
//
// A profile is a small JSON object:
//   {"name": "...", "comment": "where the numbers come from",
//    "read_bandwidth_gbs": 51.2, "cores": 1,
//    "peak_gflops_per_core": {"f32": 38.4, "int8": 153.6},
//    "l2_kib_per_core": 512}
// l2_kib_per_core is optional; kilnc sizes the prefill chunk from it.
// Unknown keys are errors, so a misspelt field cannot silently fall back.
// `--device=host` measures this machine instead, with a probe compiled by the
// same clang kilnc builds libraries with (-O3 -march=native): one thread's
// read bandwidth, and the rate of an f32 and an int8 matmul tile held in L1.
//
#include "compiler/analysis/Report.h"
#include "compiler/codegen/Emitter.h"
#include "compiler/support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace kiln;

bool kiln::parseDeviceProfile(const std::string &text, const std::string &where,
                              DeviceProfile &p, std::string &error) {
  auto parsed = llvm::json::parse(text);
  if (!parsed) {
    error = where + ": not valid JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *o = parsed->getAsObject();
  if (!o) {
    error = where + ": expected a JSON object";
    return false;
  }
  static const char *known[] = {"name",  "comment", "read_bandwidth_gbs",
                                "cores", "peak_gflops_per_core",
                                "l2_kib_per_core"};
  for (auto &kv : *o) {
    bool ok = false;
    for (const char *k : known)
      ok |= kv.first == k;
    if (!ok) {
      error = where + ": unknown key '" + kv.first.str() +
              "' (expected name, comment, read_bandwidth_gbs, cores, "
              "peak_gflops_per_core, l2_kib_per_core)";
      return false;
    }
  }
  auto name = o->getString("name");
  if (!name || name->empty()) {
    error = where + ": 'name' must be a non-empty string";
    return false;
  }
  p.name = name->str();
  if (auto c = o->getString("comment"))
    p.comment = c->str();
  auto bw = o->getNumber("read_bandwidth_gbs");
  // JSON's 1e400 parses as infinity: a prediction from it would be too.
  if (!bw || !(*bw > 0) || !std::isfinite(*bw)) {
    error = where + ": 'read_bandwidth_gbs' must be a positive finite number";
    return false;
  }
  p.readBandwidthGBs = *bw;
  p.cores = 1;
  if (o->get("cores")) {
    auto c = o->getInteger("cores");
    if (!c || *c < 1 || *c > 4096) {
      error = where + ": 'cores' must be an integer from 1 to 4096";
      return false;
    }
    p.cores = *c;
  }
  const llvm::json::Object *peak = o->getObject("peak_gflops_per_core");
  if (!peak) {
    error = where + ": 'peak_gflops_per_core' must be an object with f32 "
                    "and int8";
    return false;
  }
  for (auto &kv : *peak) {
    auto v = kv.second.getAsNumber();
    if (kv.first != "f32" && kv.first != "int8") {
      error = where + ": peak_gflops_per_core: unknown precision '" +
              kv.first.str() + "' (expected f32, int8)";
      return false;
    }
    if (!v || !(*v > 0) || !std::isfinite(*v)) {
      error = where + ": peak_gflops_per_core." + kv.first.str() +
              " must be a positive finite number";
      return false;
    }
    p.peakGflopsPerCore[kv.first.str()] = *v;
  }
  for (const char *prec : {"f32", "int8"})
    if (!p.peakGflopsPerCore.count(prec)) {
      error = where + ": peak_gflops_per_core." + prec + " is missing";
      return false;
    }
  p.l2BytesPerCore = 0;
  if (o->get("l2_kib_per_core")) {
    auto kib = o->getInteger("l2_kib_per_core");
    if (!kib || *kib < 1 || *kib > (int64_t(1) << 20)) {
      error = where + ": 'l2_kib_per_core' must be an integer from 1 to "
                      "1048576 (KiB)";
      return false;
    }
    p.l2BytesPerCore = *kib * 1024;
  }
  return true;
}

// Linux's sysfs describes cpu0's caches where the kernel knows them; some
// virtual machines expose no cache directory, and there glibc's sysconf still
// answers for x86 from CPUID.
static int64_t sysfsCacheBytes(const char *wantLevel) {
  // index0..: one directory per cache of cpu0, each with its level, its type
  // (Data, Instruction, Unified) and its size ("1024K").
  for (int i = 0; i < 16; ++i) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    // std::ifstream, not MemoryBuffer: sysfs files stat as 4096 bytes.
    auto read = [&](const char *file) {
      std::ifstream in(dir + file);
      std::string word;
      in >> word;
      return word;
    };
    std::string level = read("level");
    if (level.empty())
      break;
    if (level != wantLevel || read("type") == "Instruction")
      continue;
    std::string sizeText = read("size");
    llvm::StringRef size(sizeText);
    int64_t scale = 1;
    if (size.consume_back("K"))
      scale = 1024;
    else if (size.consume_back("M"))
      scale = 1024 * 1024;
    int64_t n = 0;
    if (size.getAsInteger(10, n) || n <= 0)
      return 0;
    return n * scale;
  }
  return 0;
}

static int64_t hostCacheBytes(const char *level, int sysconfName) {
  if (int64_t n = sysfsCacheBytes(level))
    return n;
  long n = sysconf(sysconfName);
  return n > 0 ? n : 0;
}

int64_t kiln::hostL2CacheBytes() {
  return hostCacheBytes("2", _SC_LEVEL2_CACHE_SIZE);
}

int64_t kiln::hostL3CacheBytes() {
  return hostCacheBytes("3", _SC_LEVEL3_CACHE_SIZE);
}

int64_t kiln::chunkCacheBytes(const std::string &target, const std::string &cpu,
                              const DeviceProfile *device) {
  if (device)
    return device->l2BytesPerCore;
  if (target == "x86" && (cpu.empty() || cpu == "host"))
    return hostL2CacheBytes();
  return 0;
}

std::string kiln::defaultProfileDir(const char *argv0, void *mainAddr) {
  if (const char *env = getenv("KILN_DEVICES_DIR"))
    return env;
  std::string exe = llvm::sys::fs::getMainExecutable(argv0, mainAddr);
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(dir, "..", "share", "kiln", "devices");
  return std::string(dir.str());
}

static std::vector<std::string> shippedProfiles(const std::string &dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    llvm::StringRef file = llvm::sys::path::filename(it->path());
    if (file.consume_back(".json"))
      names.push_back(file.str());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool kiln::loadDeviceProfile(const std::string &spec,
                             const std::string &profileDir,
                             const std::string &cc, DeviceProfile &p,
                             std::string &error) {
  if (spec == "host")
    return measureHost(cc, p, error);
  std::string path = spec;
  const bool isPath = spec.find('/') != std::string::npos ||
                      llvm::StringRef(spec).endswith(".json");
  if (!isPath)
    path = profileDir + "/" + spec + ".json";
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) {
    if (isPath) {
      error = "--device=" + spec + ": cannot read " + path + ": " +
              buf.getError().message();
    } else {
      error = "--device=" + spec + ": unknown device (shipped in " +
              profileDir + ":";
      auto names = shippedProfiles(profileDir);
      for (size_t i = 0; i < names.size(); ++i)
        error += (i ? ", " : " ") + names[i];
      if (names.empty())
        error += " none";
      error += "; or host, or a path to a JSON profile)";
    }
    return false;
  }
  p.path = path;
  return parseDeviceProfile((*buf)->getBuffer().str(), path, p, error);
}

// The probe: plain C, vectorised by clang for the host. Bandwidth is a sum
// over a buffer well past the last-level cache (probeBufferMiB), in 2
// MiB-aligned memory advised to
// use huge pages as the weights get them (embedded blobs are 2 MiB aligned),
// best of 6 passes, every other one with software prefetch 8 KiB ahead into L2
// as the decode kernels use: without either, a plain sum reads less than decode
// does, which would make decode look faster than its limit; the f32 rate is a
// 4 x 64 register tile of FMAs against an L1-resident 64 x 128 panel; the
// int8 rate uses the host's int8 dot-product instruction the way the x86
// kernels do (VNNI vpdpbusd, else AVX2 maddubs + madd), counted as 2
// operations per multiply-add. About a second on an idle machine, most of it
// compiling the probe.
static const char *kProbeSource = R"c(
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif
static double now(void) {
  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
typedef float v16f __attribute__((vector_size(64)));
volatile double sink;
int main(int argc, char **argv) {
  size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 128) << 20, n = bytes / 8;
  uint64_t *p = aligned_alloc((size_t)2 << 20, bytes);
  if (!p) return 1;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(p, bytes, MADV_HUGEPAGE);
#endif
  memset(p, 1, bytes);
  double best = 0;
  for (int rep = 0; rep < 6; ++rep) {
    double t0 = now();
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    if (rep & 1) /* software prefetch 8 KiB ahead into L2, as the decode kernels do */
      for (size_t i = 0; i < n; i += 4) {
        __builtin_prefetch(p + i + 1024, 0, 2);
        s0 += p[i]; s1 += p[i + 1]; s2 += p[i + 2]; s3 += p[i + 3];
      }
    else
      for (size_t i = 0; i < n; i += 4) {
        s0 += p[i]; s1 += p[i + 1]; s2 += p[i + 2]; s3 += p[i + 3];
      }
    double t = now() - t0;
    sink = (double)(s0 + s1 + s2 + s3);
    if (bytes / t > best) best = bytes / t;
  }
  printf("bandwidth %.3f\n", best / 1e9);
  free(p);

  enum { K = 128 };
  static v16f b[K][4];
  static float a[4][K];
  for (int k = 0; k < K; ++k) {
    for (int i = 0; i < 4; ++i) a[i][k] = 1e-3f * (float)(k + i);
    for (int j = 0; j < 4; ++j) b[k][j] = (v16f){0} + 1e-3f * (float)(k - j);
  }
  double flops = 0, t0 = now(), t = 0;
  v16f acc[4][4] = {{{0}}};
  while ((t = now() - t0) < 0.15) {
    for (int rep = 0; rep < 200; ++rep)
      for (int k = 0; k < K; ++k)
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j)
            acc[i][j] += a[i][k] * b[k][j];
    flops += 200.0 * K * 4 * 4 * 16 * 2;
  }
  float s = 0;
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) s += acc[i][j][0];
  sink = s;
  printf("f32 %.3f\n", flops / t / 1e9);

  double ops = 0; t0 = now();
#if defined(__AVX512VNNI__) && defined(__AVX512F__)
  /* 16 independent accumulators and the broadcast operands in registers:
   * VPDPBUSD's latency times its issue rate is 8 or more instructions in
   * flight on current cores, and 8 accumulators fed by broadcasts from
   * general registers read 0.86 of what the unit does (Zen 5). */
  static uint8_t wu[K * 64] __attribute__((aligned(64)));
  for (int i = 0; i < K * 64; ++i) wu[i] = (uint8_t)(i * 7);
  __m512i c[4][4], xs[4];
  for (int i = 0; i < 4; ++i) {
    xs[i] = _mm512_set1_epi32(0x01020304 + i);
    for (int j = 0; j < 4; ++j) c[i][j] = _mm512_setzero_si512();
  }
  while ((t = now() - t0) < 0.15) {
    for (int rep = 0; rep < 200; ++rep)
      for (int k = 0; k < K; k += 4) {
        __m512i w[4];
        for (int j = 0; j < 4; ++j) w[j] = _mm512_load_si512(wu + (k + j) * 64);
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) c[i][j] = _mm512_dpbusd_epi32(c[i][j], w[j], xs[i]);
      }
    ops += 200.0 * (K / 4) * 4 * 4 * 64 * 2;
  }
  int32_t r = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) r += _mm512_reduce_add_epi32(c[i][j]);
  sink = r;
#elif defined(__AVX2__)
  static uint8_t wu[K * 32] __attribute__((aligned(32)));
  for (int i = 0; i < K * 32; ++i) wu[i] = (uint8_t)(i * 7);
  const __m256i one = _mm256_set1_epi16(1);
  __m256i c[4][2], xs[4];
  for (int i = 0; i < 4; ++i) {
    xs[i] = _mm256_set1_epi32(0x01020304 + i);
    c[i][0] = c[i][1] = _mm256_setzero_si256();
  }
  while ((t = now() - t0) < 0.15) {
    for (int rep = 0; rep < 200; ++rep)
      for (int k = 0; k < K; k += 2) {
        __m256i w0 = _mm256_load_si256((const __m256i *)(wu + k * 32));
        __m256i w1 = _mm256_load_si256((const __m256i *)(wu + k * 32 + 32));
        for (int i = 0; i < 4; ++i) {
          __m256i x = xs[i];
          c[i][0] = _mm256_add_epi32(c[i][0], _mm256_madd_epi16(_mm256_maddubs_epi16(w0, x), one));
          c[i][1] = _mm256_add_epi32(c[i][1], _mm256_madd_epi16(_mm256_maddubs_epi16(w1, x), one));
        }
      }
    ops += 200.0 * (K / 2) * 4 * 2 * 32 * 2;
  }
  int32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    int32_t v[8]; _mm256_storeu_si256((__m256i *)v, _mm256_add_epi32(c[i][0], c[i][1]));
    for (int j = 0; j < 8; ++j) r += v[j];
  }
  sink = r;
#else
  static int8_t w8[K * 64], x8[K];
  for (int i = 0; i < K * 64; ++i) w8[i] = (int8_t)(i * 7);
  for (int i = 0; i < K; ++i) x8[i] = (int8_t)i;
  int32_t acc8[64] = {0};
  while ((t = now() - t0) < 0.15) {
    for (int rep = 0; rep < 50; ++rep)
      for (int k = 0; k < K; ++k)
        for (int j = 0; j < 64; ++j) acc8[j] += (int32_t)w8[k * 64 + j] * x8[k];
    ops += 50.0 * K * 64 * 2;
  }
  int32_t r = 0;
  for (int j = 0; j < 64; ++j) r += acc8[j];
  sink = r;
#endif
  printf("int8 %.3f\n", ops / t / 1e9);
  return 0;
}
)c";

bool kiln::buildHostProbe(const std::string &cc, const std::string &dir,
                          std::string &exe, std::string &error) {
  std::string src = dir + "/probe.c";
  exe = dir + "/probe";
  if (!writeFile(src, kProbeSource, error)) {
    error = "--device=host: " + error;
    return false;
  }
  std::string output;
  std::vector<std::string> compile = {cc.empty() ? KILN_DEFAULT_CC : cc,
                                      "-std=c11", "-O3", "-march=native",
                                      src, "-o", exe};
  if (runProgram(compile, "", output) != 0) {
    error = "--device=host: cannot build the probe: " + joinCommand(compile) +
            "\n" + output;
    return false;
  }
  return true;
}

bool kiln::measureHost(const std::string &cc, DeviceProfile &p,
                       std::string &error) {
  llvm::SmallString<128> dir;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("kiln-probe", dir)) {
    error = "--device=host: cannot create a temporary directory: " + ec.message();
    return false;
  }
  struct Cleanup {
    std::string d;
    ~Cleanup() { llvm::sys::fs::remove_directories(d); }
  } cleanup{std::string(dir.str())};
  std::string exe;
  return buildHostProbe(cc, cleanup.d, exe, error) &&
         runHostProbe(exe, p, error);
}

// The bandwidth probe's buffer: twice the last-level cache and at least 128
// MiB, so that it reads from memory. Some hosts state a last-level cache of
// hundreds of MiB (large server L3s, or what a hypervisor reports), and a sum
// over a buffer that fits it read 1.6x the rate decode got from a model four
// times larger. At most a quarter of the memory and 4 GiB.
static int64_t probeBufferMiB() {
  int64_t mib = std::max<int64_t>(128, 2 * ((hostL3CacheBytes() + (1 << 20) - 1) >> 20));
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    mib = std::min<int64_t>(mib, (int64_t)pages / 4 * page >> 20);
  return std::max<int64_t>(16, std::min<int64_t>(mib, 4096));
}

bool kiln::runHostProbe(const std::string &exe, DeviceProfile &p,
                        std::string &error) {
  std::string output;
  const int64_t mib = probeBufferMiB();
  if (runProgram({exe, std::to_string(mib)}, "", output) != 0) {
    error = "--device=host: the probe failed: " + output;
    return false;
  }
  std::istringstream in(output);
  std::string key;
  double value;
  while (in >> key >> value) {
    if (key == "bandwidth")
      p.readBandwidthGBs = value;
    else
      p.peakGflopsPerCore[key] = value;
  }
  if (!(p.readBandwidthGBs > 0) || !p.peakGflopsPerCore.count("f32") ||
      !p.peakGflopsPerCore.count("int8")) {
    error = "--device=host: unexpected probe output: " + output;
    return false;
  }
  p.name = "host";
  p.path = "measured";
  p.comment = "measured now: one thread's read bandwidth (sum over " + std::to_string(mib) +
              " MiB, twice the last-level cache, huge pages, with and without prefetch), "
              "f32 FMA and int8 dot products on independent accumulators in L1 (-O3 -march=native)";
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  p.cores = n > 0 ? n : 1;
  p.l2BytesPerCore = hostL2CacheBytes();
  return true;
}
