//===- ReferenceMatchTest.cpp - compiled libraries vs the reference -------===//
//
// For each fixture configuration: write the GGUF with kiln-fixture, compile it
// and run it with kiln-run on a target, run the reference evaluator on the same
// prompt, and compare
//   - the logits after a 16-token prompt,
//   - the logits after 16 greedily decoded tokens,
//   - 32 greedy tokens (must be identical).
// Tolerance: max |compiled - reference| <= kRelTol * (max - min of reference
// logits). The generic target computes in f32 on the same dequantized weights
// the reference uses (in f64 accumulation), so the error is rounding only.
//
// The list of targets grows as targets land; every configuration runs on each.
//
#include "compiler/targets/common/Process.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace kiln;

namespace {
constexpr double kRelTol = 1e-4;

struct Fixture {
  const char *name;
  std::vector<std::string> flags; // kiln-fixture flags
};

// Covers: llama and qwen2; head_dim 32/64/128; GQA ratios 1/2/4/8; tied and
// untied output; weights in F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q4_K, Q6_K;
// GGUF v2 and v3; UINT64 hyperparameter keys.
void PrintTo(const Fixture &f, std::ostream *os) { *os << f.name; }

const std::vector<Fixture> &fixtures() {
  static const std::vector<Fixture> list = {
      {"llama_f32_hd32_gqa2", {"--width=128", "--heads=4", "--kv-heads=2", "--ffn=256", "--type=f32"}},
      {"llama_f16_hd64_gqa1_tied", {"--width=128", "--heads=2", "--kv-heads=2", "--ffn=192", "--type=f16", "--embd-type=f16", "--tied"}},
      {"llama_q8_0_hd32_gqa4", {"--width=256", "--heads=8", "--kv-heads=2", "--ffn=384", "--type=q8_0", "--embd-type=q8_0"}},
      {"llama_q4_0_hd64_gqa2_v2", {"--width=256", "--heads=4", "--kv-heads=2", "--ffn=512", "--type=q4_0", "--version=2"}},
      {"llama_q4_k_hd128_gqa2", {"--width=256", "--heads=2", "--kv-heads=1", "--ffn=512", "--type=q4_k", "--output-type=q6_k"}},
      {"llama_q6_k_hd32_gqa8_u64", {"--width=256", "--heads=8", "--kv-heads=1", "--ffn=512", "--type=q6_k", "--u64-keys"}},
      {"llama_q4_1_hd32_tied", {"--width=128", "--heads=4", "--kv-heads=4", "--ffn=256", "--type=q4_1", "--embd-type=q4_0", "--tied"}},
      {"llama_bf16_hd64_3layers", {"--width=128", "--heads=2", "--kv-heads=1", "--ffn=256", "--type=bf16", "--layers=3"}},
      {"qwen2_f32_hd32_gqa2", {"--arch=qwen2", "--width=128", "--heads=4", "--kv-heads=2", "--ffn=256", "--type=f32", "--rope-theta=1000000"}},
      {"qwen2_q8_0_hd64_gqa4_tied", {"--arch=qwen2", "--width=256", "--heads=4", "--kv-heads=1", "--ffn=512", "--type=q8_0", "--tied"}},
      {"qwen2_q4_k_hd128_gqa1", {"--arch=qwen2", "--width=256", "--heads=2", "--kv-heads=2", "--ffn=256", "--type=q4_k", "--embd-type=q6_k"}},
  };
  return list;
}

const std::vector<std::string> &targets() {
  static const std::vector<std::string> list = {"generic"};
  return list;
}

std::string tool(const std::string &name) {
  return std::string(KILN_BIN_DIR) + "/" + name;
}

std::string prompt16() {
  // Spread over the vocabulary, including byte tokens and filler pieces.
  const int ids[16] = {1, 17, 300, 42, 259, 5, 311, 128, 77, 260, 3, 299, 64, 200, 318, 9};
  std::string s;
  for (int i = 0; i < 16; ++i)
    s += (i ? "," : "") + std::to_string(ids[i]);
  return s;
}

std::vector<double> parseNumbers(const std::string &text) {
  std::vector<double> v;
  std::istringstream in(text);
  double x;
  while (in >> x)
    v.push_back(x);
  return v;
}

class ReferenceMatch
    : public ::testing::TestWithParam<std::tuple<Fixture, std::string>> {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kiln-e2e-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
    model = dir + "/" + std::get<0>(GetParam()).name + ".gguf";
    std::vector<std::string> argv = {tool("kiln-fixture"), "-o", model};
    for (const auto &f : std::get<0>(GetParam()).flags)
      argv.push_back(f);
    std::string out;
    ASSERT_EQ(runProgram(argv, "", out), 0) << joinCommand(argv) << "\n" << out;
  }
  void TearDown() override {
    std::string out;
    runProgram({"rm", "-rf", dir}, "", out);
  }

  // Runs kiln-run and returns its stdout; fails the test on a non-zero exit.
  std::string run(const std::string &target, int generate, bool logits,
                  int maxBatch = 0) {
    std::vector<std::string> argv = {tool("kiln-run"), model,
                                     "--target=" + target,
                                     "--tokens=" + prompt16(),
                                     "--generate=" + std::to_string(generate)};
    if (maxBatch)
      argv.push_back("--max-batch=" + std::to_string(maxBatch));
    if (logits)
      argv.push_back("--logits");
    std::string out;
    int rc = runProgram(argv, "", out);
    EXPECT_EQ(rc, 0) << joinCommand(argv) << "\n" << out;
    return out;
  }

  void compareLogits(int generate, int maxBatch = 0) {
    const std::string &target = std::get<1>(GetParam());
    auto want = parseNumbers(run("reference", generate, true));
    auto got = parseNumbers(run(target, generate, true, maxBatch));
    ASSERT_EQ(got.size(), want.size());
    ASSERT_GT(want.size(), 258u);
    double lo = *std::min_element(want.begin(), want.end());
    double hi = *std::max_element(want.begin(), want.end());
    double maxErr = 0;
    for (size_t i = 0; i < want.size(); ++i)
      maxErr = std::max(maxErr, std::fabs(got[i] - want[i]));
    EXPECT_GT(hi - lo, 1e-3) << "degenerate logits prove nothing";
    EXPECT_LE(maxErr, kRelTol * (hi - lo))
        << "max abs error " << maxErr << " over logit range " << (hi - lo)
        << " after " << generate << " decoded tokens";
  }

  std::string dir, model;
};

TEST_P(ReferenceMatch, LogitsAfterPrompt) { compareLogits(0); }

TEST_P(ReferenceMatch, LogitsAfter16DecodedTokens) { compareLogits(16); }

// A prompt longer than --max-batch is prefilled in chunks (5 + 5 + 5 + 1).
TEST_P(ReferenceMatch, LogitsAfterPromptInChunks) { compareLogits(0, 5); }

TEST_P(ReferenceMatch, Greedy32TokensIdentical) {
  const std::string &target = std::get<1>(GetParam());
  std::string want = run("reference", 32, false);
  std::string got = run(target, 32, false);
  EXPECT_EQ(parseNumbers(want).size(), 32u) << want;
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, ReferenceMatch,
    ::testing::Combine(::testing::ValuesIn(fixtures()),
                       ::testing::ValuesIn(targets())),
    [](const auto &info) {
      return std::string(std::get<0>(info.param).name) + "_" +
             std::get<1>(info.param);
    });
} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
