//===- HalideTest.cpp - Kiln's Halide pipelines, run on each ISA ----------===//
//
// kiln-halide-gen compiles the GEMM and the depthwise convolution of
// kernels/halide for x86, NEON and Hexagon (shapes with whole tiles and with
// tails); test/kernels/halide_check.c, built with the target's own compiler
// flags and link command and the runtime's kiln_halide.c (the buffer
// descriptors libraries use), runs them against a double-precision reference
// (under qemu for NEON and Hexagon). The cycle and packet comparison with the
// hand-written kernels in docs/kernels.md is only worth what these results
// are.
//
#include "kernels/Embedded.h"
#include "compiler/support/Process.h"
#include "compiler/targets/Target.h"
#include "test/kernels/CheckProgram.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace kiln;
using namespace kiln::test;

namespace {

class HalidePipelines : public ::testing::TestWithParam<const char *> {};

TEST_P(HalidePipelines, MatchReferenceOnTarget) {
  std::string error;
  auto target = createTarget(GetParam(), TargetOptions(), error);
  ASSERT_TRUE(target) << error;
  char tmpl[] = "/tmp/kiln-halide-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::string out;

  // The shapes halide_check.c expects, by function name.
  const struct {
    const char *name, *kernel, *shape;
  } pipelines[] = {{"sgemm_a", "sgemm", "24,80,96"},
                   {"sgemm_b", "sgemm", "7,37,19"},
                   {"dw_a", "depthwise", "3,9,21,3,1"},
                   {"dw_b", "depthwise", "2,7,10,5,2"}};
  std::vector<std::string> objects;
  for (const auto &p : pipelines) {
    std::string obj = std::string(p.name) + ".o";
    std::vector<std::string> gen = {KILN_HALIDE_GEN,
                                    std::string("--kernel=") + p.kernel,
                                    std::string("--shape=") + p.shape,
                                    std::string("--target=") + GetParam(),
                                    std::string("--name=") + p.name,
                                    "-o", obj};
    ASSERT_EQ(runProgram(gen, dir, out), 0) << joinCommand(gen) << "\n" << out;
    objects.push_back(obj);
  }

  ASSERT_TRUE(copyCheckSource(dir, "halide_check.c"));
  ASSERT_TRUE(writeCheckIo(dir, target->hosted()));
  // The runtime's Halide glue (buffer descriptors, hooks), as libraries
  // compile it.
  ASSERT_TRUE(writeFile(dir + "/kiln_halide.c", embeddedSource("kiln_halide.c")));
  std::vector<std::string> units = {"halide_check.c", "kiln_halide.c"};
  if (!target->hosted()) {
    units.push_back("kiln_freestanding.c");
    ASSERT_TRUE(writeFile(dir + "/kiln_freestanding.c",
                          embeddedSource("kiln_freestanding.c")));
    ASSERT_TRUE(writeFile(dir + "/string.h", embeddedSource("string.h")));
  }
  for (const std::string &unit : units) {
    std::vector<std::string> cc = {KILN_DEFAULT_CC};
    for (const auto &f : target->cflags())
      cc.push_back(f);
    std::string obj = unit.substr(0, unit.size() - 2) + ".o";
    cc.insert(cc.end(), {"-I.", "-isystem", KILN_HALIDE_INCLUDE_DIR, "-c",
                         unit, "-o", obj});
    ASSERT_EQ(runProgram(cc, dir, out), 0) << joinCommand(cc) << "\n" << out;
    objects.push_back(obj);
  }
  auto link = target->linkCommand(objects, "halide_check");
  ASSERT_EQ(runProgram(link, dir, out), 0) << joinCommand(link) << "\n" << out;
  auto run = target->runPrefix(0);
  run.push_back(dir + "/halide_check");
  int rc = runProgram(run, dir, out);
  std::printf("%s:\n%s", GetParam(), out.c_str());
  EXPECT_EQ(rc, 0) << joinCommand(run) << "\n" << out;
  EXPECT_NE(out.find("all ok\n"), std::string::npos) << out;
  if (!HasFailure())
    runProgram({"rm", "-rf", dir}, "", out);
}

// The ISAs Halide 14 generates for (no SVE, no vector-length-agnostic RVV).
INSTANTIATE_TEST_SUITE_P(Targets, HalidePipelines,
                         ::testing::Values("x86", "neon", "hvx"),
                         [](const auto &info) { return std::string(info.param); });

TEST(HalideGen, RejectsBadArguments) {
  std::string out;
  auto gen = [&](std::vector<std::string> args) {
    args.insert(args.begin(), KILN_HALIDE_GEN);
    return runProgram(args, "/tmp", out);
  };
  EXPECT_NE(gen({"--kernel=sgemm", "--shape=4,4,4", "--target=sve", "-o",
                 "/tmp/x.o"}),
            0);
  EXPECT_NE(out.find("unknown --target 'sve'"), std::string::npos) << out;
  EXPECT_NE(gen({"--kernel=sgemm", "--shape=4,0,4", "--target=x86", "-o",
                 "/tmp/x.o"}),
            0);
  EXPECT_NE(out.find("sgemm needs m, n and k >= 1"), std::string::npos) << out;
  EXPECT_NE(gen({"--kernel=sgemm", "--shape=4,4,4", "--target=neon",
                 "--tile=4x6", "-o", "/tmp/x.o"}),
            0);
  EXPECT_NE(out.find("multiple of the ISA's 4 f32 lanes"), std::string::npos)
      << out;
  EXPECT_NE(gen({"--kernel=depthwise", "--shape=1,2,3", "--target=x86", "-o",
                 "/tmp/x.o"}),
            0);
  EXPECT_NE(out.find("--shape=C,OH,OW,KERNEL,STRIDE"), std::string::npos)
      << out;
  EXPECT_NE(gen({"--kernel=conv", "--shape=1", "--target=x86", "-o", "/tmp/x.o"}),
            0);
  EXPECT_NE(out.find("unknown --kernel 'conv'"), std::string::npos) << out;
  EXPECT_NE(gen({"--kernel=sgemm", "--shape=70000,70000,2", "--target=x86",
                 "-o", "/tmp/x.o"}),
            0);
  EXPECT_NE(out.find("fewer than 2^31"), std::string::npos) << out;
}
} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
