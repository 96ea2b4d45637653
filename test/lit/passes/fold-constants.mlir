// kiln-fold-constants computes each graph call whose inputs are all
// constants with the compiler's build of the same kernel and replaces its
// results by constants; calls nobody reads are erased.
// RUN: kiln-opt %s --kiln-fold-constants | FileCheck %s
// The fold is the op's folder, so canonicalization folds the same way
// (kiln-opt attaches the host kernels to the dialect).
// RUN: kiln-opt %s --canonicalize | FileCheck %s

// Transpose then Add, both on constants: one constant, x^T + c, the
// intermediate erased.
// CHECK-LABEL: func.func @chain
// CHECK-NOT: kiln.tensor_op
// CHECK: %[[Y:.*]] = kiln.constant "y" dense_resource<y> : tensor<3x2xf32>
// CHECK-NOT: kiln.tensor_op
// CHECK: return %[[Y]]
func.func @chain() -> tensor<3x2xf32> {
  %x = kiln.constant "x" dense_resource<x> : tensor<2x3xf32>
  %t = kiln.tensor_op "strided_copy"(%x) {node = "t", onnx_op = "Transpose", params = array<i64: 4, 0, 2, 3, 2, 1, 3>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %c = kiln.constant "c" dense_resource<c> : tensor<3x2xf32>
  %y = kiln.tensor_op "binary"(%t, %c) {node = "y", onnx_op = "Add", params = array<i64: 0, 1, 1, 1, 1, 6, 1, 1>} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// Both results of a Split fold.
// CHECK-LABEL: func.func @split
// CHECK-NOT: kiln.tensor_op
// CHECK-DAG: %[[A:.*]] = kiln.constant "s.0" dense_resource<s.0> : tensor<1x3xf32>
// CHECK-DAG: %[[B:.*]] = kiln.constant "s.1" dense_resource<s.1> : tensor<1x3xf32>
// CHECK: return %[[A]], %[[B]]
func.func @split() -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %x = kiln.constant "x2" dense_resource<x> : tensor<2x3xf32>
  %s:2 = kiln.tensor_op "split"(%x) {node = "s", onnx_op = "Split", params = array<i64: 2, 1, 12, 12>} : (tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>)
  return %s#0, %s#1 : tensor<1x3xf32>, tensor<1x3xf32>
}

// A Clip without its min (slots: -1) folds with the omitted input left null.
// CHECK-LABEL: func.func @omitted
// CHECK: %[[C:.*]] = kiln.constant "clip" dense_resource<clip> : tensor<4xf32>
// CHECK: return %[[C]]
func.func @omitted() -> tensor<4xf32> {
  %v = kiln.constant "v" dense_resource<v> : tensor<4xf32>
  %hi = kiln.constant "hi" dense_resource<hi> : tensor<f32>
  %y = kiln.tensor_op "clip"(%v, %hi) {node = "clip", onnx_op = "Clip", params = array<i64: 1, 4>, slots = array<i64: 0, -1, 1>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// A call on the function's argument stays, reading the folded Neg; the
// unread Neg of the argument goes.
// CHECK-LABEL: func.func @runtime
// CHECK-DAG: %[[N:.*]] = kiln.constant "n" dense_resource<n> : tensor<3x2xf32>
// CHECK-DAG: %[[Z:.*]] = kiln.tensor_op "binary"(%arg0, %[[N]]) {node = "z"
// CHECK-NOT: "dead"
// CHECK: return %[[Z]]
func.func @runtime(%arg0: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %c = kiln.constant "c2" dense_resource<c> : tensor<3x2xf32>
  %n = kiln.tensor_op "unary"(%c) {fparams = array<f32: 0.000000e+00, 0.000000e+00>, node = "n", onnx_op = "Neg", params = array<i64: 13, 1, 6>} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %z = kiln.tensor_op "binary"(%arg0, %n) {node = "z", onnx_op = "Add", params = array<i64: 0, 1, 1, 1, 1, 6, 1, 1>} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %d = kiln.tensor_op "unary"(%arg0) {fparams = array<f32: 0.000000e+00, 0.000000e+00>, node = "dead", onnx_op = "Neg", params = array<i64: 13, 1, 6>} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %z : tensor<3x2xf32>
}

// kiln.reshape folds without a kernel: a reshape of a reshape reads the
// first's operand, one to its operand's own type goes, one of a constant is
// a constant of its type (the same bytes).
// CHECK-LABEL: func.func @views
// CHECK-DAG: %[[V:.*]] = kiln.reshape %arg0 {node = "b", onnx_op = "Reshape"} : tensor<2x3xf32> -> tensor<6xf32>
// CHECK-DAG: %[[K:.*]] = kiln.constant "k" dense_resource<k> : tensor<3x2xf32>
// CHECK-NOT: kiln.reshape
// CHECK: return %[[V]], %arg0, %[[K]]
func.func @views(%arg0: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3xf32>, tensor<3x2xf32>) {
  %a = kiln.reshape %arg0 {node = "a", onnx_op = "Reshape"} : tensor<2x3xf32> -> tensor<3x2xf32>
  %b = kiln.reshape %a {node = "b", onnx_op = "Reshape"} : tensor<3x2xf32> -> tensor<6xf32>
  %same = kiln.reshape %arg0 {node = "same", onnx_op = "Identity"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %x = kiln.constant "x3" dense_resource<x> : tensor<2x3xf32>
  %k = kiln.reshape %x {node = "k", onnx_op = "Reshape"} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %b, %same, %k : tensor<6xf32>, tensor<2x3xf32>, tensor<3x2xf32>
}

// A result above 64 MiB (4097 x 4096 floats) is left to the library.
// CHECK-LABEL: func.func @big
// CHECK: kiln.tensor_op "strided_copy"
func.func @big() -> tensor<4097x4096xf32> {
  %v = kiln.constant "two" dense_resource<two> : tensor<f32>
  %b = kiln.tensor_op "strided_copy"(%v) {node = "big", onnx_op = "Expand", params = array<i64: 4, 0, 1, 16781312, 0>} : (tensor<f32>) -> tensor<4097x4096xf32>
  return %b : tensor<4097x4096xf32>
}

// The folded bytes: x^T + c = 11 24 32 45 53 66; Split: 1 2 3 | 4 5 6;
// Clip(1 2 3 4, max 2.5) = 1 2 2.5 2.5; -c = -10 ... -60.
// CHECK-DAG: y: "0x40000000000030410000C04100000042000034420000544200008442"
// CHECK-DAG: s.0: "0x400000000000803F0000004000004040"
// CHECK-DAG: s.1: "0x40000000000080400000A0400000C040"
// CHECK-DAG: clip: "0x400000000000803F000000400000204000002040"
// CHECK-DAG: n: "0x40000000000020C10000A0C10000F0C1000020C2000048C2000070C2"
// CHECK-DAG: k: "0x400000000000803F0000004000004040000080400000A0400000C040"
{-#
  dialect_resources: {
    builtin: {
      x: "0x040000000000803F0000004000004040000080400000A0400000C040",
      c: "0x04000000000020410000A0410000F041000020420000484200007042",
      v: "0x040000000000803F000000400000404000008040",
      hi: "0x0400000000002040",
      two: "0x0400000000000040"
    }
  }
#-}
