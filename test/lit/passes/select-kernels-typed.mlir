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

// A matrix product's epilogue: operand indices move past A and B (matmul)
// or A, B and C (gemm, whose missing C is slot -1), float indices past
// alpha and beta (gemm's).
// CHECK-LABEL: func.func @matrix_epilogue
// CHECK: kiln.tensor_op "matmul"(%arg0, %arg1, %arg2, %arg3) {fparams = array<f32: 0.000000e+00, 0.000000e+00>, {{.*}}params = array<i64: 1, 3, 5, 4, 0, 3, 9, 0, 2, 1, 3, 2, 3, 0, 5, 0, 0, 0>, scratch = 16384 : i64}
// CHECK: kiln.tensor_op "gemm"(%arg0, %arg1, %arg2) {fparams = array<f32: 1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00>, {{.*}}params = array<i64: 1, 3, 5, 4, 0, 0, 0, 0, 0, 2, 9, 2, 3, 0, 5, 0, 2, 0>, scratch = 16384 : i64, slots = array<i64: 0, 1, -1, 2>}
func.func @matrix_epilogue(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>,
                           %s: tensor<5xf32>, %r: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  %y = kiln.batch_matmul %a, %b epilogue(%s, %r) {epilogue = array<i64: 9, 0, 0, 1, 3, 2, 1, 0, 5, 0, 0, 0>, epilogue_floats = array<f32: 0.0, 0.0>, node = "m", onnx_op = "MatMul"} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %g = kiln.gemm %a, %b epilogue(%s) {alpha = 1.0 : f32, beta = 1.0 : f32, epilogue = array<i64: 9, 2, 0, 0, 5, 0, 0, 0>, epilogue_floats = array<f32: 0.0, 0.0>, node = "g", onnx_op = "Gemm"} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %y, %g : tensor<3x5xf32>, tensor<3x5xf32>
}

// -----

// Pow runs in double in kiln_t_binary; no epilogue runs it.
func.func @matrix_pow(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %e: tensor<f32>) -> tensor<3x5xf32> {
  // expected-error @below {{epilogue operation 0: no float epilogue runs code 4}}
  %y = kiln.batch_matmul %a, %b epilogue(%e) {epilogue = array<i64: 1, 4, 0, 0>, node = "m", onnx_op = "MatMul"} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// kiln.gemm becomes kiln.tensor_op "gemm": p = {dtype, M, N, K, transA,
// transB, hasC, C's strides along M and N, epilogue count}, f = {alpha, beta}; a float one
// packs B panels in 16 KiB of scratch and transposes a B of trans_b into
// K x N floats more. C of [N] broadcasts along M (stride 0), [M, 1] along N;
// without C, slot -1. Integer products take no scratch.
// CHECK-LABEL: func.func @gemm
// CHECK: kiln.tensor_op "gemm"(%arg0, %arg1, %arg3) {fparams = array<f32: 2.000000e+00, 5.000000e-01>, node = "g", onnx_op = "Gemm", params = array<i64: 1, 3, 5, 4, 0, 0, 1, 0, 1, 0>, scratch = 16384 : i64}
// CHECK: kiln.tensor_op "gemm"(%arg0, %arg2, %arg4) {fparams = array<f32: 1.000000e+00, 1.000000e+00>, node = "t", onnx_op = "Gemm", params = array<i64: 1, 3, 5, 4, 0, 1, 1, 1, 0, 0>, scratch = 16464 : i64}
// CHECK: kiln.tensor_op "gemm"(%arg0, %arg1) {fparams = array<f32: 1.000000e+00, 1.000000e+00>, node = "n", onnx_op = "Gemm", params = array<i64: 1, 3, 5, 4, 0, 0, 0, 0, 0, 0>, scratch = 16384 : i64, slots = array<i64: 0, 1, -1>}
// CHECK: kiln.tensor_op "gemm"(%arg5, %arg6) {{{.*}}params = array<i64: 7, 4, 3, 4, 1, 0, 0, 0, 0, 0>, slots = array<i64: 0, 1, -1>}
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

// -----

// kiln.batch_matmul becomes kiln.tensor_op "matmul": p = {type, M, N, K,
// batch rank, batch shape, A's and B's strides per batch dimension (0 where
// one broadcasts), epilogue count}; float products pack B panels in 16 KiB of scratch. A 1-D
// A is one row.
// CHECK-LABEL: func.func @batch_matmul
// CHECK: kiln.tensor_op "matmul"(%arg0, %arg1) {node = "m", onnx_op = "MatMul", params = array<i64: 1, 3, 6, 4, 2, 2, 5, 12, 0, 0, 24, 0>, scratch = 16384 : i64}
// CHECK: kiln.tensor_op "matmul"(%arg2, %arg3) {node = "v", onnx_op = "MatMul", params = array<i64: 7, 1, 2, 4, 1, 3, 0, 8, 0>}
func.func @batch_matmul(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>, %v: tensor<4xi64>, %w: tensor<3x4x2xi64>) -> (tensor<2x5x3x6xf32>, tensor<3x2xi64>) {
  %y = kiln.batch_matmul %a, %b {node = "m", onnx_op = "MatMul"} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  %z = kiln.batch_matmul %v, %w {node = "v", onnx_op = "MatMul"} : (tensor<4xi64>, tensor<3x4x2xi64>) -> tensor<3x2xi64>
  return %y, %z : tensor<2x5x3x6xf32>, tensor<3x2xi64>
}

// -----

// The normalizations. kiln.softmax: p = {kind, type, outer, n, inner}, with
// `flatten` n spanning every dimension from the axis, else the axis alone
// and a row of `inner` maxima and sums in the scratch. kiln.layer_norm: p =
// {type, outer, n}, f = {epsilon}, a missing bias slot -1, its mean and
// inv_std_dev results kept. kiln.instance_norm: p = {type, N, C, spatial},
// f = {epsilon}. kiln.lrn: p = {N, C, spatial, size}, f = {alpha, beta,
// bias}.
// CHECK-LABEL: func.func @normalize
// CHECK: kiln.tensor_op "softmax"(%arg0) {node = "f", onnx_op = "LogSoftmax", params = array<i64: 1, 1, 2, 15, 1>}
// CHECK: kiln.tensor_op "softmax"(%{{[0-9]+}}) {node = "s", onnx_op = "Softmax", params = array<i64: 0, 1, 2, 5, 3>, scratch = 24 : i64}
// CHECK: %{{[0-9]+}}:3 = kiln.tensor_op "layernorm"(%{{[0-9]+}}, %arg1) {fparams = array<f32: 9.99999974E-6>, node = "ln", onnx_op = "LayerNormalization", params = array<i64: 1, 2, 15>, slots = array<i64: 0, 1, -1>}
// CHECK: kiln.tensor_op "instancenorm"(%{{[0-9]+}}#0, %arg2, %arg2) {fparams = array<f32: 1.000000e-03>, node = "in", onnx_op = "InstanceNormalization", params = array<i64: 1, 2, 5, 3>}
// CHECK: kiln.tensor_op "lrn"(%{{[0-9]+}}) {fparams = array<f32: 9.99999974E-5, 7.500000e-01, 1.000000e+00>, node = "l", onnx_op = "LRN", params = array<i64: 2, 5, 3, 3>}
// CHECK-NOT: kiln.softmax
func.func @normalize(%x: tensor<2x5x3xf32>, %s: tensor<1x5x3xf32>, %c: tensor<5xf32>) -> (tensor<2x5x3xf32>, tensor<2x1x1xf32>) {
  %f = kiln.softmax %x {axis = 1 : i64, flatten, kind = "log_softmax", node = "f", onnx_op = "LogSoftmax"} : tensor<2x5x3xf32>
  %a = kiln.softmax %f {axis = 1 : i64, kind = "softmax", node = "s", onnx_op = "Softmax"} : tensor<2x5x3xf32>
  %y, %m, %i = kiln.layer_norm %a, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32, node = "ln", onnx_op = "LayerNormalization"} : (tensor<2x5x3xf32>, tensor<1x5x3xf32>) -> (tensor<2x5x3xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  %n = kiln.instance_norm %y, %c, %c {epsilon = 0.001 : f32, node = "in", onnx_op = "InstanceNormalization"} : (tensor<2x5x3xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x5x3xf32>
  %l = kiln.lrn %n {alpha = 1.0e-04 : f32, beta = 0.75 : f32, bias = 1.0 : f32, node = "l", onnx_op = "LRN", size = 3 : i64} : tensor<2x5x3xf32>
  return %l, %m : tensor<2x5x3xf32>, tensor<2x1x1xf32>
}

// -----

// kiln.reduce becomes kiln.tensor_op "reduce": p = {kind, type, rank,
// shape, output strides (0 where reduced), output elements, input
// elements}, the dimensions of 1 dropped and neighbours of one kind merged;
// a double accumulator per output in the scratch (two for LogSumExp).
// kiln.arg_reduce becomes "argminmax": p = {type, outer, n, inner, min,
// select_last_index}.
// CHECK-LABEL: func.func @reduce
// CHECK: kiln.tensor_op "reduce"(%arg0) {node = "r", onnx_op = "ReduceLogSumExp", params = array<i64: 9, 11, 3, 2, 5, 3, 0, 1, 0, 5, 30>, scratch = 80 : i64}
// CHECK: kiln.tensor_op "reduce"(%arg1) {node = "s", onnx_op = "ReduceSum", params = array<i64: 0, 6, 2, 2, 12, 1, 0, 2, 24>, scratch = 16 : i64}
// CHECK: kiln.tensor_op "argminmax"(%arg0) {node = "a", onnx_op = "ArgMin", params = array<i64: 11, 2, 5, 3, 1, 1>}
func.func @reduce(%x: tensor<2x5x3xf64>, %i: tensor<2x1x3x4xi32>) -> (tensor<5xf64>, tensor<2x1x1x1xi32>, tensor<2x1x3xi64>) {
  %r = kiln.reduce %x {axes = array<i64: 0, 2>, keepdims = false, kind = "log_sum_exp", node = "r", onnx_op = "ReduceLogSumExp"} : (tensor<2x5x3xf64>) -> tensor<5xf64>
  %s = kiln.reduce %i {axes = array<i64: 1, 2, 3>, keepdims = true, kind = "sum", node = "s", onnx_op = "ReduceSum"} : (tensor<2x1x3x4xi32>) -> tensor<2x1x1x1xi32>
  %a = kiln.arg_reduce %x {axis = 1 : i64, keepdims = true, kind = "min", node = "a", onnx_op = "ArgMin", select_last_index = true} : (tensor<2x5x3xf64>) -> tensor<2x1x3xi64>
  return %r, %s, %a : tensor<5xf64>, tensor<2x1x1x1xi32>, tensor<2x1x3xi64>
}

// -----

// kiln.conv_transpose becomes kiln.tensor_op "conv_transpose": {nsp, N, C,
// M, group, chunk, in, k, out, stride, dilation, pad_begin, epilogue count,
// epilogue operations}, the epilogue's operand indices moved past X, W and
// the (absent: slot -1) bias; the scratch holds the GEMM's packing and
// (M / group) * prod(k) x chunk floats of columns.
// CHECK-LABEL: func.func @conv_transpose
// CHECK: kiln.tensor_op "conv_transpose"(%arg0, %arg1, %arg2) {fparams = array<f32: 0.000000e+00, 0.000000e+00>, node = "ct", onnx_op = "ConvTranspose", params = array<i64: 2, 1, 4, 2, 1, 9, 3, 3, 3, 3, 8, 8, 2, 2, 1, 1, 0, 0, 2, 2, 2, 3, 0, 5, 0, 0, 0>, scratch = 17032 : i64, slots = array<i64: 0, 1, -1, 2>}
func.func @conv_transpose(%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x3x3xf32>, %s: tensor<2x1x1xf32>) -> tensor<1x2x8x8xf32> {
  %y = kiln.conv_transpose %x, %w epilogue(%s) {dilations = array<i64: 1, 1>, epilogue = array<i64: 2, 2, 0, 0, 5, 0, 0, 0>, epilogue_floats = array<f32: 0.0, 0.0>, group = 1 : i64, node = "ct", onnx_op = "ConvTranspose", output_padding = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x8x8xf32>
  return %y : tensor<1x2x8x8xf32>
}

// -----

// Data movement. concat: p = {inputs, outer, each input's bytes per outer
// index}; split: {results, outer, each result's bytes per outer index};
// gather: {element bytes, index type, outer, axis size, inner elements,
// indices}; where: {element bytes, rank, shape, the strides of the
// condition, x and y (0 where one broadcasts)}; cast: {from, to, count}.
// CHECK-LABEL: func.func @movement
// CHECK: kiln.tensor_op "concat"(%arg0, %arg1) {node = "c", onnx_op = "Concat", params = array<i64: 2, 2, 6, 2>}
// CHECK: kiln.tensor_op "split"(%{{[0-9]+}}) {node = "s", onnx_op = "Split", params = array<i64: 2, 2, 2, 6>}
// CHECK: kiln.tensor_op "gather"(%{{[0-9]+}}#1, %arg2) {node = "g", onnx_op = "Gather", params = array<i64: 2, 6, 2, 3, 1, 5>}
// CHECK: kiln.tensor_op "where"(%arg3, %arg0, %arg4) {node = "w", onnx_op = "Where", params = array<i64: 2, 2, 2, 3, 1, 0, 3, 1, 0, 0>}
// CHECK: kiln.tensor_op "cast"(%{{[0-9]+}}) {node = "k", onnx_op = "Cast", params = array<i64: 10, 2, 6>}
func.func @movement(%a: tensor<2x3xf16>, %b: tensor<2x1xf16>, %i: tensor<5x1xi32>, %c: tensor<2x1xi1>, %h: tensor<f16>) -> (tensor<2x1xf16>, tensor<2x5x1xf16>, tensor<2x3xui8>) {
  %j = kiln.concat %a, %b {axis = 1 : i64, node = "c", onnx_op = "Concat"} : (tensor<2x3xf16>, tensor<2x1xf16>) -> tensor<2x4xf16>
  %s:2 = kiln.split %j {axis = 1 : i64, node = "s", onnx_op = "Split"} : (tensor<2x4xf16>) -> (tensor<2x1xf16>, tensor<2x3xf16>)
  %g = kiln.gather %s#1, %i {axis = 1 : i64, node = "g", onnx_op = "Gather"} : (tensor<2x3xf16>, tensor<5x1xi32>) -> tensor<2x5x1xf16>
  %w = kiln.where %c, %a, %h {node = "w", onnx_op = "Where"} : (tensor<2x1xi1>, tensor<2x3xf16>, tensor<f16>) -> tensor<2x3xf16>
  %k = kiln.cast %w {node = "k", onnx_op = "Cast"} : (tensor<2x3xf16>) -> tensor<2x3xui8>
  return %s#0, %g, %k : tensor<2x1xf16>, tensor<2x5x1xf16>, tensor<2x3xui8>
}

// -----

// kiln.strided_copy becomes kiln.tensor_op "strided_copy": p = {element
// bytes, offset, rank, shape, strides}, dimensions of 1 dropped and a
// dimension merged into its outer neighbour when the two walk the input as
// one (the transpose keeps both; the broadcast [2, 1, 3] of a row merges
// nothing but drops its 1; a plain copy is one run of 6).
// CHECK-LABEL: func.func @strided
// CHECK: kiln.tensor_op "strided_copy"(%arg0) {node = "t", onnx_op = "Transpose", params = array<i64: 4, 0, 2, 3, 2, 1, 3>}
// CHECK: kiln.tensor_op "strided_copy"(%arg1) {node = "e", onnx_op = "Expand", params = array<i64: 8, 0, 2, 2, 3, 0, 1>}
// CHECK: kiln.tensor_op "strided_copy"(%arg0) {node = "c", onnx_op = "Slice", params = array<i64: 4, 0, 1, 6, 1>}
func.func @strided(%x: tensor<2x3xf32>, %r: tensor<3xi64>) -> (tensor<3x2xf32>, tensor<2x1x3xi64>, tensor<6xf32>) {
  %t = kiln.strided_copy %x {node = "t", offset = 0 : i64, onnx_op = "Transpose", shape = array<i64: 3, 2>, strides = array<i64: 1, 3>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %e = kiln.strided_copy %r {node = "e", offset = 0 : i64, onnx_op = "Expand", shape = array<i64: 2, 1, 3>, strides = array<i64: 0, 0, 1>} : (tensor<3xi64>) -> tensor<2x1x3xi64>
  %c = kiln.strided_copy %x {node = "c", offset = 0 : i64, onnx_op = "Slice", shape = array<i64: 2, 3>, strides = array<i64: 3, 1>} : (tensor<2x3xf32>) -> tensor<6xf32>
  return %t, %e, %c : tensor<3x2xf32>, tensor<2x1x3xi64>, tensor<6xf32>
}

// -----

// The indexed copies. gather_elements: p = {element bytes, index type,
// rank, axis, axis size, the indices' shape, the input's strides};
// scatter_elements: {type, reduction (KILN_SCATTER_*: 3 max), index type,
// rank, axis, axis size, elements, the indices' shape, the input's strides};
// gather_nd: {bytes, index type, batch, tuples per batch, k, slice
// elements, elements per batch, the k dimensions, their strides};
// scatter_nd: {type, reduction, index type, elements, tuples, k, slice
// elements, the k dimensions, their strides}; cumsum: {type, outer, axis
// size, inner, exclusive, reverse}.
// CHECK-LABEL: func.func @indexed
// CHECK: kiln.tensor_op "gather_elements"(%arg0, %arg1) {node = "ge", onnx_op = "GatherElements", params = array<i64: 4, 6, 2, 1, 3, 2, 2, 3, 1>}
// CHECK: kiln.tensor_op "scatter_elements"(%arg0, %arg1, %{{[0-9]+}}) {node = "se", onnx_op = "ScatterElements", params = array<i64: 1, 3, 6, 2, 1, 3, 6, 2, 2, 3, 1>}
// CHECK: kiln.tensor_op "gather_nd"(%{{[0-9]+}}, %arg2) {node = "gn", onnx_op = "GatherND", params = array<i64: 4, 7, 1, 4, 1, 3, 6, 2, 3>}
// CHECK: kiln.tensor_op "scatter_nd"(%arg0, %arg2, %{{[0-9]+}}) {node = "sn", onnx_op = "ScatterND", params = array<i64: 1, 0, 7, 6, 4, 1, 3, 2, 3>}
// CHECK: kiln.tensor_op "cumsum"(%{{[0-9]+}}) {node = "cs", onnx_op = "CumSum", params = array<i64: 1, 1, 2, 3, 1, 0>}
func.func @indexed(%x: tensor<2x3xf32>, %i: tensor<2x2xi32>, %n: tensor<4x1xi64>) -> (tensor<2x2xf32>, tensor<4x3xf32>, tensor<2x3xf32>) {
  %g = kiln.gather_elements %x, %i {axis = 1 : i64, node = "ge", onnx_op = "GatherElements"} : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
  %s = kiln.scatter_elements %x, %i, %g {axis = 1 : i64, node = "se", onnx_op = "ScatterElements", reduction = "max"} : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<2x2xf32>) -> tensor<2x3xf32>
  %h = kiln.gather_nd %s, %n {batch_dims = 0 : i64, node = "gn", onnx_op = "GatherND"} : (tensor<2x3xf32>, tensor<4x1xi64>) -> tensor<4x3xf32>
  %t = kiln.scatter_nd %x, %n, %h {node = "sn", onnx_op = "ScatterND", reduction = "none"} : (tensor<2x3xf32>, tensor<4x1xi64>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %c = kiln.cumsum %t {axis = 0 : i64, exclusive = true, node = "cs", onnx_op = "CumSum", reverse = false} : tensor<2x3xf32>
  return %g, %h, %c : tensor<2x2xf32>, tensor<4x3xf32>, tensor<2x3xf32>
}

// -----

// kiln.pad becomes kiln.tensor_op "pad": p = {element bytes, mode (0
// constant, 2 edge), rank, input shape, output shape, begin pads}; without
// a value its slot is -1.
// CHECK-LABEL: func.func @pad
// CHECK: kiln.tensor_op "pad"(%arg0, %arg1) {node = "p", onnx_op = "Pad", params = array<i64: 1, 0, 2, 2, 3, 3, 4, 1, -1>}
// CHECK: kiln.tensor_op "pad"(%arg0) {node = "e", onnx_op = "Pad", params = array<i64: 1, 2, 2, 2, 3, 2, 4, 0, 0>, slots = array<i64: 0, -1>}
func.func @pad(%x: tensor<2x3xi8>, %v: tensor<i8>) -> (tensor<3x4xi8>, tensor<2x4xi8>) {
  %p = kiln.pad %x value %v {mode = "constant", node = "p", onnx_op = "Pad", pads = array<i64: 1, -1, 0, 2>} : (tensor<2x3xi8>, tensor<i8>) -> tensor<3x4xi8>
  %e = kiln.pad %x {mode = "edge", node = "e", onnx_op = "Pad", pads = array<i64: 0, 0, 0, 1>} : (tensor<2x3xi8>) -> tensor<2x4xi8>
  return %p, %e : tensor<3x4xi8>, tensor<2x4xi8>
}

// -----

// kiln.resize_axis becomes kiln.tensor_op "resize_axis": p = {type, outer,
// input length, output length, inner, taps, indices}, f = {extrapolation
// value, weights}. kiln.trilu becomes "trilu": p = {element bytes,
// matrices, rows, cols, k clamped to [-rows, cols], upper}. kiln.one_hot
// becomes "one_hot": p = {value bytes, index type (i32: 6), outer, depth,
// inner}.
// CHECK-LABEL: func.func @resize_trilu_one_hot
// CHECK: kiln.tensor_op "resize_axis"(%arg0) {fparams = array<f32: 5.000000e-01, 7.500000e-01, 2.500000e-01, 0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00>, node = "r", onnx_op = "Resize", params = array<i64: 1, 3, 2, 3, 1, 2, 0, 1, -1, -1, 1, 1>}
// CHECK: kiln.tensor_op "trilu"(%arg1) {node = "t", onnx_op = "Trilu", params = array<i64: 1, 2, 3, 4, -3, 1>}
// CHECK: kiln.tensor_op "one_hot"(%arg2, %arg3) {node = "o", onnx_op = "OneHot", params = array<i64: 1, 6, 1, 4, 3>}
func.func @resize_trilu_one_hot(%x: tensor<3x2xf32>, %m: tensor<2x3x4xi8>, %i: tensor<3xi32>, %v: tensor<2xi1>) -> (tensor<3x3xf32>, tensor<2x3x4xi8>, tensor<4x3xi1>) {
  %r = kiln.resize_axis %x {axis = 1 : i64, extrapolation_value = 0.5 : f32, indices = array<i64: 0, 1, -1, -1, 1, 1>, node = "r", onnx_op = "Resize", taps = 2 : i64, weights = array<f32: 0.75, 0.25, 0.0, 0.0, 1.0, 0.0>} : (tensor<3x2xf32>) -> tensor<3x3xf32>
  %t = kiln.trilu %m {k = -9 : i64, node = "t", onnx_op = "Trilu", upper = true} : tensor<2x3x4xi8>
  %o = kiln.one_hot %i, %v {axis = 0 : i64, depth = 4 : i64, node = "o", onnx_op = "OneHot"} : (tensor<3xi32>, tensor<2xi1>) -> tensor<4x3xi1>
  return %r, %t, %o : tensor<3x3xf32>, tensor<2x3x4xi8>, tensor<4x3xi1>
}
