//===- KernelUnitsTest.cpp - every kernel source is a translation unit -----===//
//
// kilnc compiles a library's kernels as one unit (kernels/common/
// kiln_kernels.h), but each kernel source must also stand alone: it includes
// the shared header and nothing it does not name. For every target and CPU
// level, each file of the target's kernel list is compiled by itself with the
// target's flags and warnings as errors (KILN_KERNEL empty, so the kernels
// are exported), and the objects are checked: together they define every
// matmul and attention kernel the kernel table gives the target's CPU level,
// and the activation quantizer the ISA files call is defined by kernels_q8.c
// alone. RVV's files, and the ONNX graphs' tensor kernels compiled for
// RVV, have no truncating vector conversion (see below).
//
#include "compiler/support/Process.h"
#include "compiler/targets/Target.h"
#include "kernels/Embedded.h"
#include "kernels/KernelTable.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace kiln;

namespace {

bool writeText(const std::string &path, const std::string &text) {
  FILE *f = fopen(path.c_str(), "w");
  if (!f)
    return false;
  bool ok = fwrite(text.data(), 1, text.size(), f) == text.size();
  return fclose(f) == 0 && ok;
}

/// Symbols of an object, as "T name" / "U name" lines of llvm-nm.
std::string symbols(const std::string &dir, const std::string &object) {
  std::string out;
  runProgram({KILN_LLVM_NM, "--format=just-symbols", "-u", object}, dir, out);
  std::string undefined = out;
  runProgram({KILN_LLVM_NM, "--format=just-symbols", "--defined-only",
              "--extern-only", object},
             dir, out);
  std::string result;
  std::istringstream u(undefined), d(out);
  for (std::string line; std::getline(u, line);)
    result += "U " + line + "\n";
  for (std::string line; std::getline(d, line);)
    result += "T " + line + "\n";
  return result;
}

bool has(const std::string &syms, const std::string &line) {
  return ("\n" + syms).find("\n" + line + "\n") != std::string::npos;
}

/// A fresh directory holding kiln/kiln.h, where a test compiles kernel
/// sources; empty if it cannot be made.
std::string unitDirectory() {
  char tmpl[] = "/tmp/kiln-kernel-units-XXXXXX";
  if (!mkdtemp(tmpl))
    return "";
  const std::string dir = tmpl;
  std::string out;
  if (runProgram({"mkdir", "-p", dir + "/kiln"}, "", out) != 0 ||
      !writeText(dir + "/kiln/kiln.h", embeddedSource("kiln.h")))
    return "";
  return dir;
}

/// RVV: no truncating vector conversion (VFCVT.RTZ and its narrowing and
/// widening forms) in `file` compiled to assembly by `cc` (a compile command
/// ending in "-c FILE -o OBJECT"). qemu-user 7.2 (Debian 12), which runs the
/// RVV tests, aborts on one that starts a translation block
/// ("decode_save_opc: Assertion `ctx->insn_start != NULL'"), so where a
/// kernel's code falls on a page decides whether the suite crashes.
void expectNoTruncatingConversions(std::vector<std::string> cc,
                                   const std::string &dir,
                                   const std::string &file) {
  std::string out;
  cc.back() = file.substr(0, file.size() - 2) + ".s";
  cc[cc.size() - 4] = "-S";
  ASSERT_EQ(runProgram(cc, dir, out), 0) << joinCommand(cc) << "\n" << out;
  std::ifstream in(dir + "/" + cc.back());
  int line = 0;
  for (std::string text; std::getline(in, text);) {
    ++line;
    EXPECT_EQ(text.find("cvt.rtz."), std::string::npos)
        << file << ".s:" << line << ": " << text;
  }
}

class KernelUnits : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelUnits, EachFileCompilesAlone) {
  const std::string &spec = GetParam();
  TargetOptions options;
  std::string name = spec.substr(0, spec.find(':'));
  if (spec.find(':') != std::string::npos)
    options.cpu = spec.substr(spec.find(':') + 1);
  std::string error;
  auto target = createTarget(name, options, error);
  ASSERT_TRUE(target) << error;

  const std::string dir = unitDirectory();
  ASSERT_FALSE(dir.empty());
  std::string out;
  ASSERT_TRUE(
      writeText(dir + "/kiln_kernels.h", embeddedSource("kiln_kernels.h")));

  const kernels::CpuLevel *level =
      kernels::resolveCpu(name, options.cpu, 0, error);
  ASSERT_TRUE(level) << error;
  const std::vector<std::string> files = target->kernelFiles();
  std::string all; // symbols of every object
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(files.front(), "kernels_generic.c");
  for (const std::string &file : files) {
    const std::string text = embeddedSource(file);
    ASSERT_NE(text.find("#include \"kiln_kernels.h\"\n"), std::string::npos)
        << file << " does not include the shared header";
    ASSERT_TRUE(writeText(dir + "/" + file, text));
    const std::string object = file.substr(0, file.size() - 2) + ".o";
    std::vector<std::string> cc = {KILN_DEFAULT_CC};
    for (const std::string &f : target->cflags())
      cc.push_back(f);
    // The kernels are static functions the generated code calls: alone, a
    // file defines them without using them.
    cc.insert(cc.end(), {"-DKILN_KERNEL=", "-Wall", "-Wextra", "-Werror",
                         "-Wno-unused-function", "-Wno-unused-const-variable",
                         "-I.", "-c", file, "-o", object});
    ASSERT_EQ(runProgram(cc, dir, out), 0)
        << spec << ": " << joinCommand(cc) << "\n" << out;

    if (name == "rvv")
      expectNoTruncatingConversions(cc, dir, file);

    const std::string syms = symbols(dir, object);
    all += syms;
    if (file == "kernels_q8.c") {
      EXPECT_TRUE(has(syms, "T kiln_q8_rows")) << syms;
      EXPECT_TRUE(has(syms, "T kiln_quantize_row_q8_0")) << syms;
    } else {
      EXPECT_FALSE(has(syms, "T kiln_q8_rows"))
          << file << " defines the quantizer of kernels_q8.c";
    }
  }

  // The table's kernels for this level, and the portable attention.
  std::vector<std::string> expected = {"kiln_attention_f32_generic"};
  for (const kernels::MatMulKernel &k : kernels::matmulKernels())
    if (name == k.isa && level->has(k.feature))
      expected.push_back(std::string("kiln_") + k.name);
  for (const kernels::AttentionKernel &k : kernels::attentionKernels())
    if (name == k.isa && level->has(k.feature))
      expected.push_back(std::string("kiln_") + k.name);
  if (name != "generic")
    EXPECT_GT(expected.size(), 2u) << "no table kernels for " << spec;
  for (const std::string &k : expected)
    EXPECT_TRUE(has(all, "T " + k)) << spec << ": no object defines " << k;
  runProgram({"rm", "-rf", dir}, "", out);
}

// The ONNX graphs' tensor kernels, as a library compiles them for RVV: no
// truncating vector conversion either. Loops that convert floats to integers
// carry KILN_T_SCALAR_CONVERSIONS (kiln_tensor.h).
TEST(KernelUnits, RvvTensorKernelsHaveNoTruncatingConversions) {
  TargetOptions options;
  std::string error;
  auto target = createTarget("rvv", options, error);
  ASSERT_TRUE(target) << error;
  const std::string dir = unitDirectory();
  ASSERT_FALSE(dir.empty());
  std::string out;
  for (size_t i = 0; i < kTensorKernelSources_count; ++i) {
    const EmbeddedFile &f = kTensorKernelSources[i];
    ASSERT_TRUE(writeText(dir + "/" + f.name, std::string(f.text, f.size)));
  }
  int sources = 0;
  for (size_t i = 0; i < kTensorKernelSources_count; ++i) {
    const std::string file = kTensorKernelSources[i].name;
    if (file.size() < 2 || file.substr(file.size() - 2) != ".c")
      continue;
    ++sources;
    std::vector<std::string> cc = {KILN_DEFAULT_CC};
    for (const std::string &flag : target->cflags())
      cc.push_back(flag);
    // As GraphEmitter compiles them for a hosted target.
    cc.insert(cc.end(), {"-DKILN_THREADS", "-I.", "-c", file, "-o",
                         file.substr(0, file.size() - 2) + ".o"});
    expectNoTruncatingConversions(cc, dir, file);
  }
  EXPECT_GT(sources, 5);
  runProgram({"rm", "-rf", dir}, "", out);
}

INSTANTIATE_TEST_SUITE_P(Targets, KernelUnits,
                         ::testing::Values("generic", "x86:avx2",
                                           "x86:avx512vnni", "neon:dotprod",
                                           "neon:i8mm", "sve", "rvv", "hvx"),
                         [](const auto &info) {
                           std::string n = info.param;
                           for (char &c : n)
                             if (!isalnum((unsigned char)c))
                               c = '_';
                           return n;
                         });
} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
