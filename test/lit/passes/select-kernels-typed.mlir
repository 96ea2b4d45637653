// kiln-select-kernels lowers the typed graph ops to their kernel calls.
// kiln.conv becomes kiln.tensor_op "conv", with the algorithm chosen for its shape in the parameters
// ({nsp, N, C, M, group, chunk, mode, in, k, out, stride, dilation,
// pad_begin, epilogue count, epilogue operations}; mode 1 a direct 1x1
// GEMM, 0 im2col columns, 2 shifted rows of a padded copy; a depthwise 2-D
// convolution runs its own loops under mode 0) and the scratch it takes.
// The epilogue's operand indices move past X, W and bias, and a missing
// bias becomes slot -1.
// RUN: kiln-opt %s -split-input-file --kiln-set-target=target=x86 --kiln-select-kernels -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @modes
func.func @modes(%x: tensor<1x8x16x16xf32>, %w1: tensor<4x8x1x1xf32>,
                 %w3: tensor<4x8x3x3xf32>, %wd: tensor<8x1x3x3xf32>,
                 %b: tensor<4xf32>)
    -> (tensor<1x4x16x16xf32>, tensor<1x4x8x8xf32>, tensor<1x4x16x16xf32>,
        tensor<1x8x16x16xf32>) {
  // 1x1, stride 1, no pads: direct, chunk = the 256 outputs, the GEMM's
  // packing scratch only (16 KiB).
  // CHECK: kiln.tensor_op "conv"(%arg0, %arg1, %arg4) {{{.*}}node = "direct", onnx_op = "Conv", params = array<i64: 2, 1, 8, 4, 1, 256, 1, 16, 16, 1, 1, 16, 16, 1, 1, 1, 1, 0, 0, 0>, scratch = 16384 : i64}
  %a = kiln.conv %x, %w1, %b {dilations = array<i64: 1, 1>, group = 1 : i64, node = "direct", onnx_op = "Conv", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<4x8x1x1xf32>, tensor<4xf32>) -> tensor<1x4x16x16xf32>
  // 3x3, stride 2: im2col, 72 rows x 64 columns of 4 bytes + 16 KiB.
  // CHECK: kiln.tensor_op "conv"(%arg0, %arg2, %arg4) {{{.*}}node = "columns", onnx_op = "Conv", params = array<i64: 2, 1, 8, 4, 1, 64, 0, 16, 16, 3, 3, 8, 8, 2, 2, 1, 1, 1, 1, 0>, scratch = 34816 : i64}
  %c = kiln.conv %x, %w3, %b {dilations = array<i64: 1, 1>, group = 1 : i64, node = "columns", onnx_op = "Conv", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>, tensor<4x8x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  // 3x3, stride 1 over 16-wide rows (padded to 18, within 9/8): shifted rows.
  // CHECK: kiln.tensor_op "conv"(%arg0, %arg2, %arg4) {{{.*}}node = "shifted", onnx_op = "Conv", params = array<i64: 2, 1, 8, 4, 1, 16, 2,
  %s = kiln.conv %x, %w3, %b {dilations = array<i64: 1, 1>, group = 1 : i64, node = "shifted", onnx_op = "Conv", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<4x8x3x3xf32>, tensor<4xf32>) -> tensor<1x4x16x16xf32>
  // Depthwise (C = M = group = 8), no bias: slots.
  // CHECK: kiln.tensor_op "conv"(%arg0, %arg3) {{{.*}}node = "depthwise", onnx_op = "Conv", params = array<i64: 2, 1, 8, 8, 8, {{[0-9]+}}, 0, 16, 16, 3, 3, 16, 16, 1, 1, 1, 1, 1, 1, 0>, {{.*}}slots = array<i64: 0, 1, -1>}
  %d = kiln.conv %x, %wd {dilations = array<i64: 1, 1>, group = 8 : i64, node = "depthwise", onnx_op = "Conv", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x16x16xf32>
  // CHECK-NOT: kiln.conv
  return %a, %c, %s, %d : tensor<1x4x16x16xf32>, tensor<1x4x8x8xf32>, tensor<1x4x16x16xf32>, tensor<1x8x16x16xf32>
}

// -----

// The epilogue {CHANNEL Mul by input 0, CLIP by inputs 1 and none,
// BATCHNORM from input 2 with float 0, FULL Add of input 6} without a bias:
// kernel inputs 3, 4, -1, 5 and 9, slots {0, 1, -1, 2, ...}.
// CHECK-LABEL: func.func @epilogue
// CHECK: kiln.tensor_op "conv"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg4, %arg4, %arg4, %arg5) {fparams = array<f32: 1.000000e-03>, {{.*}}params = array<i64: 1, 1, 2, 4, 1, 6, 1, 6, 1, 6, 1, 1, 0, 4, 2, 2, 3, 0, 6, 0, 4, -1, 7, 0, 5, 0, 3, 0, 9, 0>, scratch = 16384 : i64, slots = array<i64: 0, 1, -1, 2, 3, 4, 5, 6, 7, 8>}
func.func @epilogue(%x: tensor<1x2x6xf32>, %w: tensor<4x2x1xf32>, %s: tensor<4x1xf32>,
                    %lo: tensor<f32>, %v: tensor<4xf32>, %r: tensor<1x4x6xf32>) -> tensor<1x4x6xf32> {
  %y = kiln.conv %x, %w epilogue(%s, %lo, %v, %v, %v, %v, %r) {dilations = array<i64: 1>, epilogue = array<i64: 2, 2, 0, 0, 6, 0, 1, -1, 7, 0, 2, 0, 3, 0, 6, 0>, epilogue_floats = array<f32: 0.001>, group = 1 : i64, node = "e", onnx_op = "Conv", pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x2x6xf32>, tensor<4x2x1xf32>, tensor<4x1xf32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  return %y : tensor<1x4x6xf32>
}

// -----

// Pow runs in double in kiln_t_binary; no epilogue runs it.
func.func @pow(%x: tensor<1x2x6xf32>, %w: tensor<4x2x1xf32>, %e: tensor<f32>) -> tensor<1x4x6xf32> {
  // expected-error @below {{epilogue operation 0: no float epilogue runs code 4}}
  %y = kiln.conv %x, %w epilogue(%e) {dilations = array<i64: 1>, epilogue = array<i64: 1, 4, 0, 0>, group = 1 : i64, node = "p", onnx_op = "Conv", pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x2x6xf32>, tensor<4x2x1xf32>, tensor<f32>) -> tensor<1x4x6xf32>
  return %y : tensor<1x4x6xf32>
}

// -----

// kiln.gemm becomes kiln.tensor_op "gemm": p = {dtype, M, N, K, transA,
// transB, hasC, C's strides along M and N}, f = {alpha, beta}; a float one
// packs B panels in 16 KiB of scratch and transposes a B of trans_b into
// K x N floats more. C of [N] broadcasts along M (stride 0), [M, 1] along N;
// without C, slot -1. Integer products take no scratch.
// CHECK-LABEL: func.func @gemm
// CHECK: kiln.tensor_op "gemm"(%arg0, %arg1, %arg3) {fparams = array<f32: 2.000000e+00, 5.000000e-01>, node = "g", onnx_op = "Gemm", params = array<i64: 1, 3, 5, 4, 0, 0, 1, 0, 1>, scratch = 16384 : i64}
// CHECK: kiln.tensor_op "gemm"(%arg0, %arg2, %arg4) {fparams = array<f32: 1.000000e+00, 1.000000e+00>, node = "t", onnx_op = "Gemm", params = array<i64: 1, 3, 5, 4, 0, 1, 1, 1, 0>, scratch = 16464 : i64}
// CHECK: kiln.tensor_op "gemm"(%arg0, %arg1) {fparams = array<f32: 1.000000e+00, 1.000000e+00>, node = "n", onnx_op = "Gemm", params = array<i64: 1, 3, 5, 4, 0, 0, 0, 0, 0>, scratch = 16384 : i64, slots = array<i64: 0, 1, -1>}
// CHECK: kiln.tensor_op "gemm"(%arg5, %arg6) {{{.*}}params = array<i64: 7, 4, 3, 4, 1, 0, 0, 0, 0>, slots = array<i64: 0, 1, -1>}
func.func @gemm(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %bt: tensor<5x4xf32>,
                %c: tensor<5xf32>, %cm: tensor<3x1xf32>, %ai: tensor<4x4xi64>,
                %bi: tensor<4x3xi64>)
    -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<4x3xi64>) {
  %y = kiln.gemm %a, %b, %c {alpha = 2.0 : f32, beta = 0.5 : f32, node = "g", onnx_op = "Gemm"} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %t = kiln.gemm %a, %bt, %cm {alpha = 1.0 : f32, beta = 1.0 : f32, node = "t", onnx_op = "Gemm", trans_b} : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
  %n = kiln.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, node = "n", onnx_op = "Gemm"} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %i = kiln.gemm %ai, %bi {alpha = 1.0 : f32, beta = 1.0 : f32, node = "i", onnx_op = "Gemm", trans_a} : (tensor<4x4xi64>, tensor<4x3xi64>) -> tensor<4x3xi64>
  return %y, %t, %n, %i : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<4x3xi64>
}

// -----

// kiln.binary becomes kiln.tensor_op "binary": p = {code, types of lhs,
// rhs and result, rank, shape, lhs's strides, rhs's strides}, with the
// dimensions both walk as one merged: [2, 3, 4] + [3, 1] is [2, 3, 4] with
// strides (12, 4, 1) and (0, 1, 0); pow of f32 by i64 keeps both types
// (1 and 7); xor writes bools (9). kiln.unary becomes kiln.tensor_op
// "unary": p = {code, type, count}, f = {alpha, beta}.
// CHECK-LABEL: func.func @elementwise
// CHECK: kiln.tensor_op "binary"(%arg0, %arg1) {node = "a", onnx_op = "Add", params = array<i64: 0, 1, 1, 1, 3, 2, 3, 4, 12, 4, 1, 0, 1, 0>}
// CHECK: kiln.tensor_op "binary"(%arg0, %arg2) {node = "p", onnx_op = "Pow", params = array<i64: 4, 1, 7, 1, 1, 24, 1, 0>}
// CHECK: kiln.tensor_op "binary"(%arg3, %arg3) {node = "x", onnx_op = "Xor", params = array<i64: 16, 9, 9, 9, 1, 5, 1, 1>}
// CHECK: kiln.tensor_op "unary"(%{{[0-9]+}}) {fparams = array<f32: 1.000000e-01, 0.000000e+00>, node = "l", onnx_op = "LeakyRelu", params = array<i64: 1, 1, 24>}
func.func @elementwise(%x: tensor<2x3x4xf32>, %b: tensor<3x1xf32>, %e: tensor<i64>,
                       %m: tensor<5xi1>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<5xi1>) {
  %a = kiln.binary %x, %b {kind = "add", node = "a", onnx_op = "Add"} : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %p = kiln.binary %x, %e {kind = "pow", node = "p", onnx_op = "Pow"} : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x3x4xf32>
  %o = kiln.binary %m, %m {kind = "xor", node = "x", onnx_op = "Xor"} : (tensor<5xi1>, tensor<5xi1>) -> tensor<5xi1>
  %l = kiln.unary %a {alpha = 0.1 : f32, beta = 0.0 : f32, kind = "leaky_relu", node = "l", onnx_op = "LeakyRelu"} : tensor<2x3x4xf32>
  return %l, %p, %o : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<5xi1>
}

// -----

// kiln.clip becomes kiln.tensor_op "clip": p = {type, count}, inputs
// {x, min, max} with slot -1 for an omitted bound. kiln.batchnorm becomes
// kiln.tensor_op "batchnorm": p = {type, N, C, spatial size}, f = {epsilon}.
// CHECK-LABEL: func.func @norm
// CHECK: kiln.tensor_op "clip"(%arg0, %arg1) {node = "c", onnx_op = "Clip", params = array<i64: 1, 48>, slots = array<i64: 0, -1, 1>}
// CHECK: kiln.tensor_op "clip"(%arg0, %arg1, %arg1) {node = "d", onnx_op = "Clip", params = array<i64: 1, 48>}
// CHECK: kiln.tensor_op "batchnorm"(%{{[0-9]+}}, %arg2, %arg2, %arg2, %arg2) {fparams = array<f32: 1.000000e-03>, node = "n", onnx_op = "BatchNormalization", params = array<i64: 1, 2, 3, 8>}
func.func @norm(%x: tensor<2x3x2x4xf32>, %hi: tensor<f32>, %v: tensor<3xf32>) -> (tensor<2x3x2x4xf32>, tensor<2x3x2x4xf32>) {
  %c = kiln.clip %x max %hi {node = "c", onnx_op = "Clip"} : (tensor<2x3x2x4xf32>, tensor<f32>) -> tensor<2x3x2x4xf32>
  %d = kiln.clip %x min %hi max %hi {node = "d", onnx_op = "Clip"} : (tensor<2x3x2x4xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3x2x4xf32>
  %n = kiln.batchnorm %c, %v, %v, %v, %v {epsilon = 0.001 : f32, node = "n", onnx_op = "BatchNormalization"} : (tensor<2x3x2x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x2x4xf32>
  return %n, %d : tensor<2x3x2x4xf32>, tensor<2x3x2x4xf32>
}

// -----

// kiln.pool becomes kiln.tensor_op "pool": p = {type, kind (0 max, 1
// average), count_include_pad, storage_order, indices, nsp, N * C, in, k,
// out, stride, dilation, pad_begin, pad_end}; an average keeps its per-axis
// divisors in the scratch (8 bytes an output position of each axis).
// kiln.global_pool becomes kiln.tensor_op "global_pool": p = {type, kind,
// N * C, spatial size}.
// CHECK-LABEL: func.func @pool
// CHECK: %{{[0-9]+}}:2 = kiln.tensor_op "pool"(%arg0) {node = "p", onnx_op = "MaxPool", params = array<i64: 1, 0, 0, 1, 1, 2, 2, 6, 6, 3, 3, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0>}
// CHECK: kiln.tensor_op "pool"(%arg0) {node = "a", onnx_op = "AveragePool", params = array<i64: 1, 1, 1, 0, 0, 2, 2, 6, 6, 3, 3, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1>, scratch = 96 : i64}
// CHECK: kiln.tensor_op "global_pool"(%{{[0-9]+}}#0) {node = "g", onnx_op = "GlobalMaxPool", params = array<i64: 1, 0, 2, 9>}
func.func @pool(%x: tensor<1x2x6x6xf32>) -> (tensor<1x2x1x1xf32>, tensor<1x2x3x3xi64>, tensor<1x2x6x6xf32>) {
  %p, %i = kiln.pool %x {ceil_mode = true, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, kind = "max", node = "p", onnx_op = "MaxPool", pads = array<i64: 0, 0, 0, 0>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  %a = kiln.pool %x {ceil_mode = false, count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, kind = "average", node = "a", onnx_op = "AveragePool", pads = array<i64: 1, 1, 1, 1>, storage_order = 0 : i64, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %g = kiln.global_pool %p {kind = "max", node = "g", onnx_op = "GlobalMaxPool"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
  return %g, %i, %a : tensor<1x2x1x1xf32>, tensor<1x2x3x3xi64>, tensor<1x2x6x6xf32>
}
