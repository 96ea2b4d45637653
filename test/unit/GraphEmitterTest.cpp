//===- GraphEmitterTest.cpp - a graph model's constants in its library -----===//
//
// The emitter writes each kiln.constant's dense_resource bytes into the
// weight blob once per name, and refuses two constants of one name with
// different bytes (the library's table would give both the first's).
//
#include "compiler/codegen/Emitter.h"
#include "compiler/dialect/KilnDialect.h"

#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstring>

namespace {
// kilnc's planned IR of x + b, then * c (test/lit/onnx/import-elementwise).
constexpr const char *kModule = R"mlir(
module attributes {kiln.folded_calls = 0 : i64, kiln.graph = "g", kiln.kv_block = 16 : i64, kiln.kv_cache = "f32", kiln.kv_pool_tokens = 0 : i64, kiln.max_batch = 32 : i64, kiln.max_seqs = 1 : i64, kiln.opset = 13 : i64, kiln.target = #kiln.target<isa = "generic">, kiln.threads = 1 : i64, kiln.weights = "embedded"} {
  func.func @run(%arg0: tensor<2x3xf32> {kiln.name = "x"}) -> (tensor<2x3xf32> {kiln.name = "y"}) attributes {kiln.arena_bytes = 128 : i64} {
    %0 = kiln.constant "b" dense_resource<b> : tensor<3xf32>
    %1 = kiln.tensor_op "binary"(%arg0, %0) {kiln.bytes = 64 : i64, kiln.offset = 0 : i64, node = "s", onnx_op = "Add", params = array<i64: 0, 1, 1, 1, 2, 2, 3, 3, 1, 0, 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %2 = kiln.constant "NAME" dense_resource<c> : tensor<f32>
    %3 = kiln.tensor_op "binary"(%1, %2) {kiln.bytes = 64 : i64, kiln.offset = 0 : i64, node = "m", onnx_op = "Mul", params = array<i64: 2, 1, 1, 1, 1, 6, 1, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    return %3 : tensor<2x3xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      b: "0x400000000000803F0000004000004040",
      c: "0x400000000000003F"
    }
  }
#-}
)mlir";

bool generate(const std::string &secondName, kiln::LibrarySources &out,
              std::string &error) {
  std::string text = kModule;
  text.replace(text.find("NAME"), 4, secondName);
  mlir::MLIRContext ctx;
  ctx.loadDialect<kiln::KilnDialect, mlir::func::FuncDialect>();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  if (!module) {
    error = "the test's IR does not parse";
    return false;
  }
  kiln::EmitOptions opts;
  opts.name = "m";
  kiln::WeightStore store;
  return kiln::generateLibrarySources(*module, store, opts, out, error);
}

/// True if `blob` holds `n` floats `v` somewhere.
bool holds(const std::vector<uint8_t> &blob, const float *v, size_t n) {
  const size_t bytes = n * sizeof(float);
  for (size_t at = 0; at + bytes <= blob.size(); ++at)
    if (std::memcmp(blob.data() + at, v, bytes) == 0)
      return true;
  return false;
}

TEST(GraphEmitter, ConstantsBytesGoIntoTheBlob) {
  kiln::LibrarySources out;
  std::string error;
  ASSERT_TRUE(generate("c", out, error)) << error;
  const float b[] = {1.0f, 2.0f, 3.0f}, c[] = {0.5f};
  EXPECT_TRUE(holds(out.blob, b, 3));
  EXPECT_TRUE(holds(out.blob, c, 1));
}

TEST(GraphEmitter, TwoConstantsOfOneNameWithDifferentBytesAreAnError) {
  kiln::LibrarySources out;
  std::string error;
  EXPECT_FALSE(generate("b", out, error));
  EXPECT_EQ(error, "two constants are named 'b' but hold different bytes");
}
} // namespace
