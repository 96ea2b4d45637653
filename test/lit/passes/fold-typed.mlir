// A typed graph op whose operands are all constants folds through its op
// folder: the host build of the kernel call kiln-select-kernels would lower
// it to computes its results, which become constants; one nobody reads is
// erased (the typed ops are pure).
// RUN: kiln-opt %s --kiln-fold-constants | FileCheck %s
// RUN: kiln-opt %s --canonicalize | FileCheck %s
// Without a folding pass the ops stay, and lower to their calls.
// RUN: kiln-opt %s --kiln-set-target=target=x86 --kiln-select-kernels | FileCheck %s --check-prefix=CALLS

// MatMul then ReduceSum over rows: one constant, the product erased.
// CHECK-LABEL: func.func @chain
// CHECK-NOT: kiln.batch_matmul
// CHECK: %[[R:.*]] = kiln.constant "r" dense_resource<r> : tensor<2xf32>
// CHECK-NOT: kiln.reduce
// CHECK: return %[[R]]
// CALLS-LABEL: func.func @chain
// CALLS: kiln.tensor_op "matmul"
// CALLS: kiln.tensor_op "reduce"
func.func @chain() -> tensor<2xf32> {
  %x = kiln.constant "x" dense_resource<x> : tensor<2x3xf32>
  %w = kiln.constant "w" dense_resource<w> : tensor<3x2xf32>
  %m = kiln.batch_matmul %x, %w {node = "m", onnx_op = "MatMul"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %r = kiln.reduce %m {axes = array<i64: 1>, keepdims = false, kind = "sum", node = "r", onnx_op = "ReduceSum"} : (tensor<2x2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// Omitted operands (Gemm without C, Clip without min) are null kernel
// inputs, as in the lowered call's slots.
// CHECK-LABEL: func.func @omitted
// CHECK-DAG: %[[G:.*]] = kiln.constant "g" dense_resource<g> : tensor<2x2xf32>
// CHECK-DAG: %[[C:.*]] = kiln.constant "clip" dense_resource<clip> : tensor<4xf32>
// CHECK: return %[[G]], %[[C]]
func.func @omitted() -> (tensor<2x2xf32>, tensor<4xf32>) {
  %x = kiln.constant "x2" dense_resource<x> : tensor<2x3xf32>
  %w = kiln.constant "w2" dense_resource<w> : tensor<3x2xf32>
  %g = kiln.gemm %x, %w {alpha = 2.0 : f32, beta = 1.0 : f32, node = "g", onnx_op = "Gemm"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %v = kiln.constant "v" dense_resource<v> : tensor<4xf32>
  %hi = kiln.constant "hi" dense_resource<hi> : tensor<f32>
  %c = kiln.clip %v max %hi {node = "clip", onnx_op = "Clip"} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %g, %c : tensor<2x2xf32>, tensor<4xf32>
}

// Every result of a LayerNormalization folds (y, mean, inv_std_dev).
// CHECK-LABEL: func.func @layer_norm
// CHECK-DAG: %[[Y:.*]] = kiln.constant "y.0" dense_resource<y.0> : tensor<2x2xf32>
// CHECK-DAG: %[[M:.*]] = kiln.constant "y.1" dense_resource<y.1> : tensor<2x1xf32>
// CHECK-DAG: %[[I:.*]] = kiln.constant "y.2" dense_resource<y.2> : tensor<2x1xf32>
// CHECK: return %[[Y]], %[[M]], %[[I]]
func.func @layer_norm() -> (tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %x = kiln.constant "ln" dense_resource<ln> : tensor<2x2xf32>
  %s = kiln.constant "s" dense_resource<s> : tensor<2xf32>
  %y, %m, %i = kiln.layer_norm %x, %s {axis = 1 : i64, epsilon = 0.0 : f32, node = "y", onnx_op = "LayerNormalization"} : (tensor<2x2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %y, %m, %i : tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}

// An op on the function's argument stays and reads the folded Hardmax; the
// unread one on the argument goes.
// CHECK-LABEL: func.func @runtime
// CHECK-DAG: %[[H:.*]] = kiln.constant "hm" dense_resource<hm> : tensor<3xf32>
// CHECK-DAG: %[[Z:.*]] = kiln.binary %arg0, %[[H]] {kind = "mul", node = "z"
// CHECK-NOT: "dead"
// CHECK: return %[[Z]]
func.func @runtime(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %h = kiln.constant "h" dense_resource<h> : tensor<3xf32>
  %hm = kiln.softmax %h {axis = 0 : i64, kind = "hardmax", node = "hm", onnx_op = "Hardmax"} : tensor<3xf32>
  %z = kiln.binary %arg0, %hm {kind = "mul", node = "z", onnx_op = "Mul"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %d = kiln.softmax %arg0 {axis = 0 : i64, kind = "softmax", node = "dead", onnx_op = "Softmax"} : tensor<3xf32>
  return %z : tensor<3xf32>
}

// Resize (linear, halfway between neighbours), Trilu and OneHot fold too.
// CHECK-LABEL: func.func @resize_trilu_one_hot
// CHECK-DAG: %[[R:.*]] = kiln.constant "rz" dense_resource<rz> : tensor<2x2xf32>
// CHECK-DAG: %[[T:.*]] = kiln.constant "tu" dense_resource<tu> : tensor<2x3xf32>
// CHECK-DAG: %[[O:.*]] = kiln.constant "oh" dense_resource<oh> : tensor<2x3xf32>
// CHECK: return %[[R]], %[[T]], %[[O]]
// CALLS-LABEL: func.func @resize_trilu_one_hot
// CALLS: kiln.tensor_op "resize_axis"
// CALLS: kiln.tensor_op "trilu"
// CALLS: kiln.tensor_op "one_hot"
func.func @resize_trilu_one_hot() -> (tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %x = kiln.constant "x3" dense_resource<x> : tensor<2x3xf32>
  %r = kiln.resize_axis %x {axis = 1 : i64, extrapolation_value = 0.0 : f32, indices = array<i64: 0, 1, 1, 2>, node = "rz", onnx_op = "Resize", taps = 2 : i64, weights = array<f32: 0.5, 0.5, 0.5, 0.5>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %t = kiln.trilu %x {k = 1 : i64, node = "tu", onnx_op = "Trilu", upper = true} : tensor<2x3xf32>
  %i = kiln.constant "i" dense_resource<i> : tensor<2xi64>
  %s = kiln.constant "s2" dense_resource<s> : tensor<2xf32>
  %o = kiln.one_hot %i, %s {axis = 1 : i64, depth = 3 : i64, node = "oh", onnx_op = "OneHot"} : (tensor<2xi64>, tensor<2xf32>) -> tensor<2x3xf32>
  return %r, %t, %o : tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// x * w summed per row: 9 21; 2 * x * w: 8 10 20 22; Clip(1 2 3 4, max 2.5):
// 1 2 2.5 2.5; LayerNorm of rows 1 3 and 2 6 (scale 1 2, epsilon 0): -1 2
// in both, means 2 4, inverse deviations 1 0.5; Hardmax(1 3 2): 0 1 0.
// CHECK-DAG: r: "0x40000000000010410000A841"
// CHECK-DAG: g: "0x4000000000000041000020410000A0410000B041"
// CHECK-DAG: clip: "0x400000000000803F000000400000204000002040"
// CHECK-DAG: y.0: "0x40000000000080BF00000040000080BF00000040"
// CHECK-DAG: y.1: "0x400000000000004000008040"
// CHECK-DAG: y.2: "0x400000000000803F0000003F"
// CHECK-DAG: hm: "0x40000000000000000000803F00000000"
// Rows 1 2 3 and 4 5 6 resized to 1.5 2.5 and 4.5 5.5; above the diagonal:
// 0 2 3, 0 0 6; indices 0 and -1 (2) of depth 3, off 1 and on 2: 2 1 1,
// 1 1 2.
// CHECK-DAG: rz: "0x400000000000C03F00002040000090400000B040"
// CHECK-DAG: tu: "0x4000000000000000000000400000404000000000000000000000C040"
// CHECK-DAG: oh: "0x40000000000000400000803F0000803F0000803F0000803F00000040"
{-#
  dialect_resources: {
    builtin: {
      x: "0x040000000000803F0000004000004040000080400000A0400000C040",
      w: "0x040000000000803F00000000000000000000803F0000803F0000803F",
      v: "0x040000000000803F000000400000404000008040",
      hi: "0x0400000000002040",
      ln: "0x040000000000803F00004040000000400000C040",
      s: "0x040000000000803F00000040",
      h: "0x040000000000803F0000404000000040",
      i: "0x080000000000000000000000FFFFFFFFFFFFFFFF"
    }
  }
#-}
