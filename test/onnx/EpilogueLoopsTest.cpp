//===- EpilogueLoopsTest.cpp - which epilogue runs become generated loops -===//
//
// emitEpilogueLoops (compiler/codegen) rewrites a conv's or matrix product's
// epilogue so that runs of operations with a loop form go through
// KILN_EP_CALL; kiln_epilogue_f32 calls the loop and skips the run. The lit
// tests fuse-tensor-epilogues and fuse-matmul-epilogues prove the generated
// loops keep the bits on real calls; these pin the run boundaries (a save
// and its read together or not at all, interpreter-only operations between
// runs), the interpreter's side of the call, and the columns a matrix
// product's rows pass it.
//
#include "compiler/codegen/EpilogueLoops.h"
#include "kernels/tensor/kiln_tensor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

using Ops = std::vector<std::vector<int64_t>>;

/// A 2-D conv's parameters (geometry of a 3x3 kernel on 6x6) with `ops` as
/// its epilogue.
std::vector<int64_t> convParams(const Ops &ops) {
  std::vector<int64_t> p = {2, 1, 2, 4, 1, 36, 0, 6, 6, 3, 3, 6, 6,
                            1, 1, 1, 1, 1, 1};
  p.push_back((int64_t)ops.size());
  for (const auto &op : ops)
    p.insert(p.end(), op.begin(), op.end());
  return p;
}

struct Emitted {
  std::vector<int64_t> params;
  std::vector<int64_t> fns;
  std::string code;
};

Emitted emit(const Ops &ops, int64_t nIn = 5, const char *kernel = "conv") {
  llvm::SmallVector<int64_t> p;
  for (int64_t v : convParams(ops))
    p.push_back(v);
  int64_t next = 0;
  Emitted e;
  llvm::SmallVector<int64_t> fns =
      kiln::emitEpilogueLoops(kernel, p, nIn, "m", next, e.code);
  e.params.assign(p.begin(), p.end());
  e.fns.assign(fns.begin(), fns.end());
  return e;
}

const std::vector<int64_t> kSave = {KILN_EP_SAVE, 0, 0, 0};
const std::vector<int64_t> kAdd3 = {KILN_EP_SCALAR, KILN_BIN_ADD, 3, 0};
const std::vector<int64_t> kMul4 = {KILN_EP_SCALAR, KILN_BIN_MUL, 4, 1};
const std::vector<int64_t> kClip = {KILN_EP_CLIP, 0, 3, 4};
const std::vector<int64_t> kSavedMul = {KILN_EP_SAVED, KILN_BIN_MUL, 0, 1};
const std::vector<int64_t> kSigmoid = {KILN_EP_UNARY, KILN_UN_SIGMOID, 0, 0};
const std::vector<int64_t> kBatchNorm = {KILN_EP_BATCHNORM, 0, 3, 0};
const std::vector<int64_t> kMod = {KILN_EP_SCALAR, KILN_BIN_MOD, 3, 0};

TEST(EpilogueLoops, HardSwishIsOneRun) {
  Emitted e = emit({kSave, kAdd3, kClip, kSavedMul, kMul4});
  ASSERT_EQ(e.fns, (std::vector<int64_t>{0}));
  Ops want = {{KILN_EP_CALL, 5, 5, 0}, kSave, kAdd3, kClip, kSavedMul, kMul4};
  EXPECT_EQ(e.params, convParams(want));
  EXPECT_NE(e.code.find("static void m_ep0("), std::string::npos);
}

TEST(EpilogueLoops, InterpreterOperationsSplitRuns) {
  // Sigmoid (libm) and Mod stay with the interpreter; each side of them is a
  // run of its own, the second function the next extra input.
  Emitted e = emit({kMul4, kAdd3, kSigmoid, kAdd3, kMul4, kMod, kAdd3});
  ASSERT_EQ(e.fns, (std::vector<int64_t>{0, 1}));
  Ops want = {{KILN_EP_CALL, 2, 5, 0}, kMul4, kAdd3, kSigmoid,
              {KILN_EP_CALL, 2, 6, 0}, kAdd3, kMul4, kMod, kAdd3};
  EXPECT_EQ(e.params, convParams(want));
}

TEST(EpilogueLoops, SaveStaysWithItsRead) {
  // Swish as the detector spells it: the saved read follows a Sigmoid, so
  // the save stays with the interpreter (whose saved copy the read uses),
  // and the one loop-form operation between is no run.
  Ops swish = {kBatchNorm, kSave, kMul4, kSigmoid, kSavedMul};
  Emitted e = emit(swish);
  EXPECT_TRUE(e.fns.empty());
  EXPECT_EQ(e.params, convParams(swish));
  EXPECT_TRUE(e.code.empty());
  // A run cut at a save whose read is out of reach keeps what precedes it.
  Emitted cut = emit({kMul4, kAdd3, kSave, kSigmoid, kSavedMul});
  Ops want = {{KILN_EP_CALL, 2, 5, 0}, kMul4, kAdd3, kSave, kSigmoid,
              kSavedMul};
  EXPECT_EQ(cut.params, convParams(want));
}

TEST(EpilogueLoops, OtherKernelsAndSingletonsUntouched) {
  EXPECT_TRUE(emit({kAdd3, kMul4}, 5, "softmax").fns.empty());
  Emitted one = emit({kBatchNorm, kAdd3});
  EXPECT_TRUE(one.fns.empty());
  EXPECT_EQ(one.params, convParams({kBatchNorm, kAdd3}));
}

/// A stand-in for a generated loop: adds 1 and records its calls.
std::vector<std::pair<int64_t, int64_t>> gCalls;
void addOne(const float *, const void *const *, float *y, int64_t n,
            int64_t channel, int64_t offset) {
  gCalls.push_back({n, offset});
  for (int64_t i = 0; i < n; ++i)
    y[i] += 1.0f + (float)channel;
}

TEST(EpilogueLoops, InterpreterCallsTheLoopAndSkipsItsRun) {
  // {CALL the loop for 1 operation, Mul by zero (skipped: the loop did it),
  // Add 2}: y = x + 1 + channel + 2 over 600 elements, three blocks.
  const float zero = 0.0f, two = 2.0f;
  kiln_epilogue_fn fn = addOne;
  void *fnData;
  std::memcpy(&fnData, &fn, sizeof fnData);
  const void *in[3] = {&zero, &two, fnData};
  const int64_t ep[] = {3, KILN_EP_CALL, 1, 2, 0,
                        KILN_EP_SCALAR, KILN_BIN_MUL, 0, 0,
                        KILN_EP_SCALAR, KILN_BIN_ADD, 1, 0};
  std::vector<float> y(600);
  for (size_t i = 0; i < y.size(); ++i)
    y[i] = (float)i;
  gCalls.clear();
  kiln_epilogue_f32(ep, nullptr, in, y.data(), 600, 5, 1000);
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_EQ(y[i], (float)i + 1.0f + 5.0f + 2.0f) << i;
  // Blocks of 256: each call sees its block's length and offset.
  std::vector<std::pair<int64_t, int64_t>> want = {
      {256, 1000}, {256, 1256}, {88, 1512}};
  EXPECT_EQ(gCalls, want);
}

TEST(EpilogueLoops, MatrixProductColumnRun) {
  // A matmul call {f32, M 3, N 5, K 4, no batch} with a bias per column
  // (COLUMN Add of input 2) and Relu: one loop, reading the bias from the
  // block's column; its CALL takes input 3 (after A, B and the bias).
  const std::vector<int64_t> bias = {KILN_EP_COLUMN, KILN_BIN_ADD, 2, 0};
  const std::vector<int64_t> relu = {KILN_EP_UNARY, KILN_UN_RELU, 0, 0};
  llvm::SmallVector<int64_t> p = {KILN_F32, 3, 5, 4, 0, 2};
  for (const auto &op : {bias, relu})
    p.append(op.begin(), op.end());
  int64_t next = 0;
  std::string code;
  llvm::SmallVector<int64_t> fns =
      kiln::emitEpilogueLoops("matmul", p, 3, "m", next, code);
  ASSERT_EQ(fns.size(), 1u);
  std::vector<int64_t> want = {KILN_F32, 3, 5, 4, 0, 3, KILN_EP_CALL, 2, 3, 0};
  want.insert(want.end(), bias.begin(), bias.end());
  want.insert(want.end(), relu.begin(), relu.end());
  EXPECT_EQ(std::vector<int64_t>(p.begin(), p.end()), want);
  EXPECT_NE(code.find("const float *x0 = (const float *)in[2] + channel;"),
            std::string::npos)
      << code;
}

TEST(EpilogueLoops, RowsPassTheirColumns) {
  // kiln_epilogue_rows_f32 over 2 rows of 600 columns from column 100 of an
  // output 1000 wide: y = x + bias[column] + residual[offset], with the row
  // split into blocks whose column and offset both advance.
  const int64_t N = 1000, rows = 2, n = 600, col = 100;
  std::vector<float> bias(N), res(rows * N), y(rows * N, 0.0f);
  for (int64_t j = 0; j < N; ++j)
    bias[j] = (float)j;
  for (int64_t i = 0; i < rows * N; ++i)
    res[i] = 0.5f * (float)i;
  const void *in[2] = {bias.data(), res.data()};
  const int64_t ep[] = {2, KILN_EP_COLUMN, KILN_BIN_ADD, 0, 0,
                        KILN_EP_FULL, KILN_BIN_ADD, 1, 0};
  kiln_epilogue_rows_f32(ep, nullptr, in, y.data() + col, rows, n, N, col,
                         col, N);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < N; ++j) {
      const bool in_block = j >= col && j < col + n;
      const float want =
          in_block ? (float)j + 0.5f * (float)(r * N + j) : 0.0f;
      ASSERT_EQ(y[r * N + j], want) << r << " " << j;
    }
}

} // namespace
