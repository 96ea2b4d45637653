//===- CpuNames.cpp - --cpu as clang spells a CPU: AArch64 and x86 --------===//
#include "kernels/CpuNames.h"

#include <cstring>
#include <utility>

using namespace kiln::kernels;

namespace {
// Cores by what they implement, as architecture strings. The dot product
// came with Armv8.2 cores from Cortex-A55/A75 on (optional in 8.2, required
// from 8.4); SMMLA (i8mm) with the Armv9 cores and Neoverse-V1.
const std::pair<const char *, const char *> kCores[] = {
    {"cortex-a53", "armv8-a"},
    {"cortex-a57", "armv8-a"},
    {"cortex-a72", "armv8-a"},
    {"cortex-a73", "armv8-a"},
    {"cortex-a55", "armv8.2-a+dotprod"},
    {"cortex-a75", "armv8.2-a+dotprod"},
    {"cortex-a76", "armv8.2-a+dotprod"},
    {"cortex-a77", "armv8.2-a+dotprod"},
    {"cortex-a78", "armv8.2-a+dotprod"},
    {"cortex-x1", "armv8.2-a+dotprod"},
    {"neoverse-n1", "armv8.2-a+dotprod"},
    {"neoverse-v1", "armv8.4-a+i8mm"},
    {"cortex-a510", "armv9-a+i8mm"},
    {"cortex-a710", "armv9-a+i8mm"},
    {"cortex-a715", "armv9-a+i8mm"},
    {"cortex-x2", "armv9-a+i8mm"},
    {"cortex-x3", "armv9-a+i8mm"},
    {"neoverse-n2", "armv9-a+i8mm"},
    {"neoverse-v2", "armv9-a+i8mm"},
};

// LLVM 16's AArch64 extension names (clang's -march=...+NAME). Kiln's NEON
// kernels use dotprod and i8mm and need simd; the others are accepted and
// change nothing Kiln generates.
const char *const kExtensions[] = {
    "crc",      "lse",        "rdm",          "crypto", "sm4",   "sha3",
    "sha2",     "aes",        "dotprod",      "fp",     "simd",  "fp16",
    "fp16fml",  "profile",    "ras",          "sve",    "sve2",  "sve2-aes",
    "sve2-sm4", "sve2-sha3",  "sve2-bitperm", "rcpc",   "rng",   "memtag",
    "ssbs",     "sb",         "predres",      "bf16",   "i8mm",  "f32mm",
    "f64mm",    "tme",        "ls64",         "brbe",   "pauth", "flagm",
    "sme",      "sme-f64f64", "sme-i16i64",   "hbc",    "mops",  "pmuv3",
    "sme2",     "rcpc3",      "lse128",       "d128",   "the",   "cssc",
};

const char *coreArch(const std::string &name) {
  for (const auto &c : kCores)
    if (name == c.first)
      return c.second;
  return nullptr;
}

bool isExtension(const std::string &name) {
  for (const char *e : kExtensions)
    if (name == e)
      return true;
  return false;
}

// "armv8-a", "armv8.N-a" (N 1..9), "armv9-a", "armv9.N-a" (N 1..4): the
// dot product is in every 8.4 and later architecture (9.0 is 8.5's),
// SMMLA in 8.6 and later (9.1 is 8.6's).
bool archFeatures(const std::string &arch, std::set<std::string> &features) {
  int major = 0, minor = 0;
  if (arch == "armv8-a")
    major = 8;
  else if (arch == "armv9-a")
    major = 9;
  else if (arch.size() == 9 && !arch.compare(0, 4, "armv") &&
           (arch[4] == '8' || arch[4] == '9') && arch[5] == '.' &&
           arch[6] >= '1' && arch[6] <= '9' && !arch.compare(7, 2, "-a")) {
    major = arch[4] - '0';
    minor = arch[6] - '0';
    if (major == 9 && minor > 4)
      return false;
  } else {
    return false;
  }
  const int asV8 = major == 9 ? 5 + minor : minor;
  features.insert("simd");
  if (asV8 >= 4)
    features.insert("dotprod");
  if (asV8 >= 6)
    features.insert("i8mm");
  return true;
}
// x86 -march names by what Kiln's levels need: AVX2 with FMA (the
// x86-64-v3 set) and AVX-512 VNNI with BW and VL. Alder Lake's AVX-VNNI is
// the 256-bit VEX form, not AVX-512 VNNI; Skylake-SP and x86-64-v4 have
// AVX-512 without VNNI.
struct X86Cpu {
  const char *name;
  bool avx2, vnni;
};
const X86Cpu kX86Cpus[] = {
    {"x86-64", false, false},       {"x86-64-v2", false, false},
    {"nehalem", false, false},      {"westmere", false, false},
    {"sandybridge", false, false},  {"ivybridge", false, false},
    {"btver2", false, false},       {"bdver1", false, false},
    {"bdver2", false, false},       {"bdver3", false, false},
    {"x86-64-v3", true, false},     {"x86-64-v4", true, false},
    {"haswell", true, false},       {"broadwell", true, false},
    {"skylake", true, false},       {"skylake-avx512", true, false},
    {"cannonlake", true, false},    {"alderlake", true, false},
    {"raptorlake", true, false},    {"meteorlake", true, false},
    {"bdver4", true, false},        {"znver1", true, false},
    {"znver2", true, false},        {"znver3", true, false},
    {"cascadelake", true, true},    {"cooperlake", true, true},
    {"icelake-client", true, true}, {"icelake-server", true, true},
    {"tigerlake", true, true},      {"rocketlake", true, true},
    {"sapphirerapids", true, true}, {"graniterapids", true, true},
    {"emeraldrapids", true, true},  {"znver4", true, true},
    {"znver5", true, true},
};

const X86Cpu *x86Cpu(const std::string &name) {
  for (const X86Cpu &c : kX86Cpus)
    if (name == c.name)
      return &c;
  return nullptr;
}

bool x86Features(const std::string &cpu, std::set<std::string> &features,
                 std::string &error) {
  const X86Cpu *c = x86Cpu(cpu);
  if (!c->avx2) {
    error = "Kiln's x86 kernels need AVX2 and FMA (x86-64-v3), which " + cpu +
            " does not have";
    return false;
  }
  features.insert("avx2");
  if (c->vnni)
    features.insert("avx512vnni");
  return true;
}

bool armFeatures(const std::string &cpu, std::set<std::string> &features,
                 std::string &error) {
  std::string base = cpu.substr(0, cpu.find('+'));
  std::string words = cpu.substr(base.size());
  if (const char *arch = coreArch(base)) {
    const std::string a = arch;
    base = a.substr(0, a.find('+'));
    words = a.substr(base.size()) + words;
  }
  if (!archFeatures(base, features)) {
    error = "'" + base +
            "' is neither an AArch64 architecture (armv8-a, armv8.1-a ... "
            "armv8.9-a, armv9-a ... armv9.4-a) nor a core Kiln knows "
            "(cortex-a55, cortex-a78, neoverse-v1, ...)";
    return false;
  }
  // "+a+nob": each word adds or (with "no") removes one feature, in order.
  for (size_t at = 0; at < words.size();) {
    const size_t next = words.find('+', at + 1);
    std::string word = words.substr(
        at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    at = next == std::string::npos ? words.size() : next;
    const bool remove =
        !word.compare(0, 2, "no") && isExtension(word.substr(2));
    if (remove)
      word = word.substr(2);
    if (word.empty()) {
      error = "an empty feature after '+'";
      return false;
    }
    if (!isExtension(word)) {
      error = "unknown AArch64 feature '" + word + "'";
      return false;
    }
    if (remove) {
      features.erase(word);
      if (word == "fp") // no floating point: no Advanced SIMD either
        features.erase("simd");
    } else {
      features.insert(word);
    }
  }
  if (!features.count("simd")) {
    error = "Kiln's NEON kernels need Advanced SIMD, which this CPU string "
            "removes";
    return false;
  }
  if (!features.count("dotprod")) {
    error = "Kiln's NEON kernels need the dot product instructions "
            "(FEAT_DotProd), which it does not have (add +dotprod if the CPU "
            "has them; every armv8.4-a and later CPU does)";
    return false;
  }
  return true;
}
} // namespace

bool kiln::kernels::isCpuName(const std::string &isa, const std::string &cpu) {
  if (isa == "x86")
    return x86Cpu(cpu) != nullptr;
  if (isa != "neon")
    return false;
  const std::string base = cpu.substr(0, cpu.find('+'));
  return cpu.find('+') != std::string::npos || !base.compare(0, 4, "armv") ||
         coreArch(base);
}

std::string kiln::kernels::cpuNameExamples(const std::string &isa) {
  if (isa == "neon")
    return "an architecture or core with features, such as "
           "armv8.2-a+dotprod, armv8.6-a or cortex-a78";
  if (isa == "x86")
    return "a CPU as clang's -march names it, such as x86-64-v3, znver4 or "
           "icelake-server";
  return "";
}

bool kiln::kernels::cpuFeatures(const std::string &isa, const std::string &cpu,
                                std::set<std::string> &features,
                                std::string &error) {
  features.clear();
  return isa == "x86" ? x86Features(cpu, features, error)
                      : armFeatures(cpu, features, error);
}
