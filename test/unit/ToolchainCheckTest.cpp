//===- ToolchainCheckTest.cpp - what a failed toolchain step is missing ----===//
//
// The outputs below are what the tools printed on a Debian 12 machine with
// the named package removed.
//
#include "compiler/targets/Target.h"
#include "compiler/codegen/ToolchainCheck.h"

#include <gtest/gtest.h>

using namespace kiln;

namespace {
std::unique_ptr<Target> target(const std::string &name) {
  std::string error;
  auto t = createTarget(name, {}, error);
  EXPECT_TRUE(t) << error;
  return t;
}
} // namespace

TEST(ToolchainCheck, CrossLinkWithoutTheCLibrary) {
  // libc6-dev-arm64-cross removed: the cross gcc's ld finds no start files.
  const std::string ld = "/usr/lib/gcc-cross/aarch64-linux-gnu/12/../../../../"
                         "aarch64-linux-gnu/bin/ld";
  const std::string out = ld + ": cannot find Scrt1.o: No such file or directory\n" +
                          ld + ": cannot find crti.o: No such file or directory\n" +
                          ld + ": cannot find -lm: No such file or directory\n"
                               "collect2: error: ld returned 1 exit status\n";
  EXPECT_EQ(diagnoseToolchainFailure({"aarch64-linux-gnu-gcc", "probe.o"}, 1,
                                     out, target("neon")->packages()),
            "the C library's Scrt1.o not found (Debian package "
            "libc6-dev-arm64-cross)");
  EXPECT_EQ(diagnoseToolchainFailure({"riscv64-linux-gnu-gcc", "probe.o"}, 1,
                                     ld + ": cannot find -lm: No such file\n",
                                     target("rvv")->packages()),
            "the C library's -lm not found (Debian package "
            "libc6-dev-riscv64-cross)");
}

TEST(ToolchainCheck, HeadersOfEachTarget) {
  const std::string out =
      "/usr/include/stdint.h:26:10: fatal error: 'bits/libc-header-start.h' "
      "file not found\n";
  EXPECT_EQ(diagnoseToolchainFailure({"clang-16"}, 1, out,
                                     target("sve")->packages()),
            "header <bits/libc-header-start.h> not found (Debian package "
            "libc6-dev-arm64-cross)");
  EXPECT_EQ(diagnoseToolchainFailure({"clang-16"}, 1, out,
                                     target("x86")->packages()),
            "header <bits/libc-header-start.h> not found (Debian package "
            "libc6-dev)");
  // Hexagon is freestanding: its only headers are clang's own.
  EXPECT_EQ(diagnoseToolchainFailure(
                {"clang-16"}, 1, "probe.c:2:10: fatal error: 'stdint.h' file not found\n",
                target("hvx")->packages()),
            "header <stdint.h> not found (Debian package libclang-common-16-dev)");
}

TEST(ToolchainCheck, MissingPrograms) {
  // lld-16 removed: clang cannot use -fuse-ld=lld.
  EXPECT_EQ(diagnoseToolchainFailure(
                {"/usr/bin/clang-16", "--target=hexagon"}, 1,
                "clang: error: invalid linker name in argument '-fuse-ld=lld'\n",
                target("hvx")->packages()),
            "program 'ld.lld' not found (Debian package lld-16)");
  // A program that could not be started at all (exit status 127).
  EXPECT_EQ(diagnoseToolchainFailure({"qemu-riscv64", "-cpu", "rv64"}, 127, "",
                                     target("rvv")->packages()),
            "program 'qemu-riscv64' not found (Debian package qemu-user)");
  EXPECT_EQ(diagnoseToolchainFailure({"/usr/bin/clang-16"}, 127, "",
                                     target("generic")->packages()),
            "program '/usr/bin/clang-16' not found (Debian package clang-16)");
  // Output that names nothing known gives no diagnosis (the caller shows it).
  EXPECT_EQ(diagnoseToolchainFailure({"clang-16"}, 1, "probe.c:9: error: x\n",
                                     target("neon")->packages()),
            "");
}
