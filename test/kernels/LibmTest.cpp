//===- LibmTest.cpp - kiln_libm.c against glibc, on Hexagon and hosts -----===//
//
// Builds test/kernels/libm_check.c with the embedded kiln_libm.c (the very
// text freestanding libraries get) for each target with the target's own
// compiler flags, link command and qemu prefix, runs it, and feeds its
// output (every function on edge cases and dense inputs, results as hex
// bits) to kiln-libm-ref (libm_ref.c), which compares with glibc one
// precision up: exact functions bit for bit, float functions within 1 ulp,
// double functions within 2 ulp. On Hexagon this also covers the double
// division and 64-bit integer division helpers (kiln_freestanding.c). On
// hosted targets the program links kiln_libm.c ahead of the system libm
// (-fno-builtin keeps the compiler from inlining its own versions), which
// shows the code is portable.
//
#include "kernels/Embedded.h"
#include "compiler/support/Process.h"
#include "compiler/targets/Target.h"
#include "test/kernels/CheckProgram.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

using namespace kiln;
using namespace kiln::test;

namespace {

class Libm : public ::testing::TestWithParam<const char *> {};

TEST_P(Libm, MatchesGlibc) {
  std::string error;
  TargetOptions options;
  if (std::string(GetParam()) == "rvv") // qemu 7.2 and compressed RVV code
    options.cpu = "rv64gv";
  auto target = createTarget(GetParam(), options, error);
  ASSERT_TRUE(target) << error;
  char tmpl[] = "/tmp/kiln-libm-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  ASSERT_TRUE(copyCheckSource(dir, "libm_check.c"));
  ASSERT_TRUE(writeCheckIo(dir, target->hosted()));
  std::vector<std::string> units = {"libm_check.c", "kiln_libm.c"};
  ASSERT_TRUE(writeFile(dir + "/kiln_libm.c", embeddedSource("kiln_libm.c")));
  ASSERT_TRUE(writeFile(dir + "/math.h", embeddedSource("math.h")));
  if (!target->hosted()) {
    units.push_back("kiln_freestanding.c");
    ASSERT_TRUE(writeFile(dir + "/kiln_freestanding.c",
                          embeddedSource("kiln_freestanding.c")));
    ASSERT_TRUE(writeFile(dir + "/string.h", embeddedSource("string.h")));
  }
  std::string out;
  std::vector<std::string> objects;
  for (const std::string &unit : units) {
    std::vector<std::string> cc = {KILN_DEFAULT_CC};
    for (const auto &f : target->cflags())
      cc.push_back(f);
    if (target->hosted()) // ours, not the compiler's or the system's
      cc.insert(cc.end(), {"-fno-builtin", "-DKILN_LIBM_TEST"});
    std::string obj = unit.substr(0, unit.size() - 2) + ".o";
    cc.insert(cc.end(), {"-I.", "-c", unit, "-o", obj});
    ASSERT_EQ(runProgram(cc, dir, out), 0) << joinCommand(cc) << "\n" << out;
    objects.push_back(obj);
  }
  auto link = target->linkCommand(objects, "libm_check");
  ASSERT_EQ(runProgram(link, dir, out), 0) << joinCommand(link) << "\n" << out;
  // The program's own exp, not the system's (hosted targets link -lm).
  std::vector<std::string> nm = {KILN_LLVM_NM, "--defined-only", "libm_check"};
  ASSERT_EQ(runProgram(nm, dir, out), 0) << out;
  EXPECT_NE(out.find(" T exp\n"), std::string::npos) << out;
  auto run = target->runPrefix(0);
  run.push_back(dir + "/libm_check");
  ASSERT_EQ(runProgram(run, dir, out), 0) << joinCommand(run) << "\n" << out;
  ASSERT_TRUE(writeFile(dir + "/results.txt", out));
  std::vector<std::string> ref = {
      "sh", "-c", std::string("'") + KILN_LIBM_REF + "' < results.txt"};
  int rc = runProgram(ref, dir, out);
  std::printf("%s: kiln_libm against glibc\n%s", GetParam(), out.c_str());
  EXPECT_EQ(rc, 0) << out;
  if (!HasFailure())
    runProgram({"rm", "-rf", dir}, "", out);
}

// hvx: the library's reason to exist (also its division helpers); x86, neon
// and rvv: the same code on hosts and under qemu-user.
INSTANTIATE_TEST_SUITE_P(Targets, Libm,
                         ::testing::Values("hvx", "x86", "neon", "rvv"),
                         [](const auto &info) { return std::string(info.param); });
} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
