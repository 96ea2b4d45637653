// Printed IR parses back to the same IR.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s

// CHECK: kiln.weight @embd : tensor<320x64x!kiln.q8_0> {source = "token_embd.weight"}
kiln.weight @embd : tensor<320x64x!kiln.q8_0> {source = "token_embd.weight"}
// CHECK: kiln.weight @norm : tensor<64xf32>
kiln.weight @norm : tensor<64xf32> {source = "n.weight"}
// CHECK: kiln.weight @wq : tensor<64x64x!kiln.q4_0>
kiln.weight @wq : tensor<64x64x!kiln.q4_0> {source = "q.weight"}
// CHECK: kiln.weight @bq : tensor<64xf32>
kiln.weight @bq : tensor<64xf32> {source = "q.bias"}
// CHECK: kiln.weight @wk : tensor<32x256x!kiln.q4_k>
kiln.weight @wk : tensor<32x256x!kiln.q4_k> {source = "k.weight"}
// CHECK: kiln.weight @w6 : tensor<64x256x!kiln.q6_k>
kiln.weight @w6 : tensor<64x256x!kiln.q6_k> {source = "k6.weight"}
// CHECK: kiln.weight @w41 : tensor<64x64x!kiln.q4_1>
kiln.weight @w41 : tensor<64x64x!kiln.q4_1> {source = "w41.weight"}
// CHECK: kiln.weight @wh : tensor<64x64xf16>
kiln.weight @wh : tensor<64x64xf16> {source = "wh.weight"}
// CHECK: kiln.weight @wb : tensor<64x64xbf16>
kiln.weight @wb : tensor<64x64xbf16> {source = "wb.weight"}

// CHECK-LABEL: func.func @forward
func.func @forward(%tokens: tensor<?xi32>) -> tensor<1x64xf32> {
  // CHECK: %[[X:.*]] = kiln.embedding @embd, %{{.*}} : tensor<?xi32> -> tensor<?x64xf32>
  %x = kiln.embedding @embd, %tokens : tensor<?xi32> -> tensor<?x64xf32>
  // CHECK: %[[N:.*]] = kiln.rms_norm %[[X]], @norm {epsilon = 9.99999974E-6 : f32} : tensor<?x64xf32>
  %n = kiln.rms_norm %x, @norm {epsilon = 1.0e-05 : f32} : tensor<?x64xf32>
  // CHECK: kiln.rms_norm %[[X]] {epsilon = 9.99999974E-6 : f32, group = 16 : i64} : tensor<?x64xf32>
  %heads = kiln.rms_norm %x {epsilon = 1.0e-05 : f32, group = 16 : i64} : tensor<?x64xf32>
  // CHECK: %[[Q:.*]] = kiln.matmul %[[N]], @wq bias @bq : tensor<?x64xf32> -> tensor<?x64xf32>
  %q = kiln.matmul %n, @wq bias @bq : tensor<?x64xf32> -> tensor<?x64xf32>
  // CHECK: kiln.rope %[[Q]] {head_dim = 16 : i64, style = "neox", theta = 1.000000e+06 : f32} : tensor<?x64xf32>
  %r = kiln.rope %q {head_dim = 16 : i64, theta = 1.0e6 : f32, style = "neox"} : tensor<?x64xf32>
  // CHECK: kiln.attention %{{.*}}, %{{.*}}, %{{.*}} {head_dim = 16 : i64, layer = 3 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64}
  %a = kiln.attention %r, %r, %q {layer = 3 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64, head_dim = 16 : i64} : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x64xf32>
  // CHECK: kiln.attention %{{.*}}, %{{.*}}, %{{.*}} {head_dim = 16 : i64, layer = 4 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64, window = 8 : i64}
  %w = kiln.attention %r, %r, %q {layer = 4 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64, head_dim = 16 : i64, window = 8 : i64} : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x64xf32>
  // CHECK: kiln.gelu_mul
  %gm = kiln.gelu_mul %w, %q : tensor<?x64xf32>
  // CHECK: kiln.silu_mul
  %s = kiln.silu_mul %a, %q : tensor<?x64xf32>
  // CHECK: kiln.add
  %y = kiln.add %s, %x : tensor<?x64xf32>
  // CHECK: kiln.last_token %{{.*}} : tensor<?x64xf32> -> tensor<1x64xf32>
  %l = kiln.last_token %y : tensor<?x64xf32> -> tensor<1x64xf32>
  return %l : tensor<1x64xf32>
}

// CHECK-LABEL: func.func @view
// CHECK: kiln.reshape %{{.*}} {node = "r", onnx_op = "Flatten"} : tensor<2x3x4xf32> -> tensor<2x12xf32>
func.func @view(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %r = kiln.reshape %x {node = "r", onnx_op = "Flatten"} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  return %r : tensor<2x12xf32>
}

// CHECK-LABEL: func.func @conv
// CHECK: kiln.conv %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, node = "c", onnx_op = "Conv", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
// CHECK: kiln.conv %{{.*}}, %{{.*}} epilogue(%{{.*}}, %{{.*}}) {dilations = array<i64: 2>, epilogue = array<i64: 2, 2, 0, 0, 5, 0, 0, 0, 3, 0, 1, 1>, epilogue_floats = array<f32: 0.000000e+00, 0.000000e+00>, group = 2 : i64, node = "d", onnx_op = "Conv", pads = array<i64: 1, 2>, strides = array<i64: 2>} : (tensor<1x4x9xf32>, tensor<2x2x3xf32>, tensor<2x1xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
func.func @conv(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>,
                %x1: tensor<1x4x9xf32>, %w1: tensor<2x2x3xf32>, %s: tensor<2x1xf32>,
                %r: tensor<1x2x4xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x2x4xf32>) {
  %y = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, node = "c", onnx_op = "Conv", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  // 1-D, stride 2, dilation 2, grouped, no bias: (9 + 1 + 2 - 5) / 2 + 1 = 4
  // outputs; an epilogue of a per-channel Mul, Relu and a residual Add.
  %z = kiln.conv %x1, %w1 epilogue(%s, %r) {dilations = array<i64: 2>, epilogue = array<i64: 2, 2, 0, 0, 5, 0, 0, 0, 3, 0, 1, 1>, epilogue_floats = array<f32: 0.0, 0.0>, group = 2 : i64, node = "d", onnx_op = "Conv", pads = array<i64: 1, 2>, strides = array<i64: 2>} : (tensor<1x4x9xf32>, tensor<2x2x3xf32>, tensor<2x1xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return %y, %z : tensor<1x4x6x6xf32>, tensor<1x2x4xf32>
}

// CHECK-LABEL: func.func @gemm
// CHECK: kiln.gemm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 2.000000e+00 : f32, beta = 5.000000e-01 : f32, node = "g", onnx_op = "Gemm", trans_b} : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<1x5xf32>) -> tensor<3x5xf32>
// CHECK: kiln.gemm %{{.*}}, %{{.*}} {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, node = "i", onnx_op = "Gemm", trans_a} : (tensor<4x3xui32>, tensor<4x5xui32>) -> tensor<3x5xui32>
func.func @gemm(%a: tensor<3x4xf32>, %b: tensor<5x4xf32>, %c: tensor<1x5xf32>,
                %ai: tensor<4x3xui32>, %bi: tensor<4x5xui32>) -> (tensor<3x5xf32>, tensor<3x5xui32>) {
  %y = kiln.gemm %a, %b, %c {alpha = 2.0 : f32, beta = 0.5 : f32, node = "g", onnx_op = "Gemm", trans_b} : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<1x5xf32>) -> tensor<3x5xf32>
  %i = kiln.gemm %ai, %bi {alpha = 1.0 : f32, beta = 1.0 : f32, node = "i", onnx_op = "Gemm", trans_a} : (tensor<4x3xui32>, tensor<4x5xui32>) -> tensor<3x5xui32>
  return %y, %i : tensor<3x5xf32>, tensor<3x5xui32>
}

// CHECK-LABEL: func.func @elementwise
// CHECK: kiln.binary %{{.*}}, %{{.*}} {kind = "add", node = "s", onnx_op = "Add"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: kiln.binary %{{.*}}, %{{.*}} {kind = "less", node = "l", onnx_op = "Less"} : (tensor<2x1xi64>, tensor<1x4xi64>) -> tensor<2x4xi1>
// CHECK: kiln.unary %{{.*}} {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32, kind = "hard_sigmoid", node = "h", onnx_op = "HardSigmoid"} : tensor<2x3xf32>
func.func @elementwise(%x: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2x1xi64>,
                       %j: tensor<1x4xi64>) -> (tensor<2x3xf32>, tensor<2x4xi1>) {
  %s = kiln.binary %x, %b {kind = "add", node = "s", onnx_op = "Add"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %l = kiln.binary %i, %j {kind = "less", node = "l", onnx_op = "Less"} : (tensor<2x1xi64>, tensor<1x4xi64>) -> tensor<2x4xi1>
  %h = kiln.unary %s {alpha = 0.2 : f32, beta = 0.5 : f32, kind = "hard_sigmoid", node = "h", onnx_op = "HardSigmoid"} : tensor<2x3xf32>
  return %h, %l : tensor<2x3xf32>, tensor<2x4xi1>
}

// CHECK-LABEL: func.func @clip_norm
// CHECK: kiln.clip %{{.*}} max %{{.*}} {node = "c", onnx_op = "Clip"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK: kiln.batchnorm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32, node = "n", onnx_op = "BatchNormalization"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @clip_norm(%x: tensor<2x3xf32>, %hi: tensor<f32>, %v: tensor<3xf32>) -> tensor<2x3xf32> {
  %c = kiln.clip %x max %hi {node = "c", onnx_op = "Clip"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %n = kiln.batchnorm %c, %v, %v, %v, %v {epsilon = 0.001 : f32, node = "n", onnx_op = "BatchNormalization"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %n : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @pool
// CHECK: kiln.pool %{{.*}} {ceil_mode = true, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, kind = "max", node = "p", onnx_op = "MaxPool", pads = array<i64: 0, 0, 0, 0>, storage_order = 0 : i64, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
// CHECK: kiln.global_pool %{{.*}} {kind = "average", node = "g", onnx_op = "GlobalAveragePool"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
func.func @pool(%x: tensor<1x2x6x6xf32>) -> (tensor<1x2x1x1xf32>, tensor<1x2x3x3xi64>) {
  // (6 - 3) / 2 = 1.5: 2 outputs by floor, 3 by ceil (the third starts at 4 < 6).
  %p, %i = kiln.pool %x {ceil_mode = true, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, kind = "max", node = "p", onnx_op = "MaxPool", pads = array<i64: 0, 0, 0, 0>, storage_order = 0 : i64, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  %g = kiln.global_pool %p {kind = "average", node = "g", onnx_op = "GlobalAveragePool"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
  return %g, %i : tensor<1x2x1x1xf32>, tensor<1x2x3x3xi64>
}

// CHECK-LABEL: func.func @batch_matmul
// CHECK: kiln.batch_matmul %{{.*}}, %{{.*}} {node = "m", onnx_op = "MatMul"} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
// CHECK: kiln.batch_matmul %{{.*}}, %{{.*}} {node = "v", onnx_op = "MatMul"} : (tensor<4xi64>, tensor<3x4x2xi64>) -> tensor<3x2xi64>
func.func @batch_matmul(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>, %v: tensor<4xi64>, %w: tensor<3x4x2xi64>) -> (tensor<2x5x3x6xf32>, tensor<3x2xi64>) {
  %y = kiln.batch_matmul %a, %b {node = "m", onnx_op = "MatMul"} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  %z = kiln.batch_matmul %v, %w {node = "v", onnx_op = "MatMul"} : (tensor<4xi64>, tensor<3x4x2xi64>) -> tensor<3x2xi64>
  return %y, %z : tensor<2x5x3x6xf32>, tensor<3x2xi64>
}

// CHECK-LABEL: func.func @normalize
// CHECK: kiln.softmax %{{.*}} {axis = 1 : i64, flatten, kind = "log_softmax", node = "s", onnx_op = "LogSoftmax"} : tensor<2x5x3xf32>
// CHECK: kiln.layer_norm %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 9.99999974E-6 : f32, node = "ln", onnx_op = "LayerNormalization"} : (tensor<2x5x3xf32>, tensor<1x5x3xf32>) -> (tensor<2x5x3xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
// CHECK: kiln.instance_norm %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32, node = "in", onnx_op = "InstanceNormalization"} : (tensor<2x5x3xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x5x3xf32>
// CHECK: kiln.lrn %{{.*}} {alpha = 9.99999974E-5 : f32, beta = 7.500000e-01 : f32, bias = 1.000000e+00 : f32, node = "l", onnx_op = "LRN", size = 3 : i64} : tensor<2x5x3xf32>
func.func @normalize(%x: tensor<2x5x3xf32>, %s: tensor<1x5x3xf32>, %c: tensor<5xf32>) -> (tensor<2x5x3xf32>, tensor<2x1x1xf32>) {
  %a = kiln.softmax %x {axis = 1 : i64, flatten, kind = "log_softmax", node = "s", onnx_op = "LogSoftmax"} : tensor<2x5x3xf32>
  %y, %m, %i = kiln.layer_norm %a, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32, node = "ln", onnx_op = "LayerNormalization"} : (tensor<2x5x3xf32>, tensor<1x5x3xf32>) -> (tensor<2x5x3xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  %n = kiln.instance_norm %y, %c, %c {epsilon = 0.001 : f32, node = "in", onnx_op = "InstanceNormalization"} : (tensor<2x5x3xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x5x3xf32>
  %l = kiln.lrn %n {alpha = 1.0e-04 : f32, beta = 0.75 : f32, bias = 1.0 : f32, node = "l", onnx_op = "LRN", size = 3 : i64} : tensor<2x5x3xf32>
  return %l, %m : tensor<2x5x3xf32>, tensor<2x1x1xf32>
}

// CHECK-LABEL: func.func @reduce
// CHECK: kiln.reduce %{{.*}} {axes = array<i64: 0, 2>, keepdims = false, kind = "log_sum_exp", node = "r", onnx_op = "ReduceLogSumExp"} : (tensor<2x5x3xf64>) -> tensor<5xf64>
// CHECK: kiln.arg_reduce %{{.*}} {axis = 1 : i64, keepdims = true, kind = "min", node = "a", onnx_op = "ArgMin", select_last_index = true} : (tensor<2x5x3xf64>) -> tensor<2x1x3xi64>
func.func @reduce(%x: tensor<2x5x3xf64>) -> (tensor<5xf64>, tensor<2x1x3xi64>) {
  %r = kiln.reduce %x {axes = array<i64: 0, 2>, keepdims = false, kind = "log_sum_exp", node = "r", onnx_op = "ReduceLogSumExp"} : (tensor<2x5x3xf64>) -> tensor<5xf64>
  %a = kiln.arg_reduce %x {axis = 1 : i64, keepdims = true, kind = "min", node = "a", onnx_op = "ArgMin", select_last_index = true} : (tensor<2x5x3xf64>) -> tensor<2x1x3xi64>
  return %r, %a : tensor<5xf64>, tensor<2x1x3xi64>
}

// CHECK-LABEL: func.func @conv_transpose
// CHECK: kiln.conv_transpose %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, node = "ct", onnx_op = "ConvTranspose", output_padding = array<i64: 1, 0>, pads = array<i64: 0, 1, 0, -1>, strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x7xf32>
func.func @conv_transpose(%x: tensor<1x4x3x3xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x8x7xf32> {
  // Rows: 2 * 2 + 1 + 2 + 1 - 0 - 0 = 8; columns: 2 * 2 + 0 + 2 + 1 - 1 + 1 = 7.
  %y = kiln.conv_transpose %x, %w, %b {dilations = array<i64: 1, 1>, group = 2 : i64, node = "ct", onnx_op = "ConvTranspose", output_padding = array<i64: 1, 0>, pads = array<i64: 0, 1, 0, -1>, strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x7xf32>
  return %y : tensor<1x2x8x7xf32>
}

// CHECK-LABEL: func.func @movement
// CHECK: kiln.concat %{{.*}}, %{{.*}} {axis = 1 : i64, node = "c", onnx_op = "Concat"} : (tensor<2x3xf16>, tensor<2x1xf16>) -> tensor<2x4xf16>
// CHECK: kiln.split %{{.*}} {axis = 1 : i64, node = "s", onnx_op = "Split"} : (tensor<2x4xf16>) -> (tensor<2x1xf16>, tensor<2x3xf16>)
// CHECK: kiln.gather %{{.*}}, %{{.*}} {axis = 1 : i64, node = "g", onnx_op = "Gather"} : (tensor<2x3xf16>, tensor<5x1xi32>) -> tensor<2x5x1xf16>
// CHECK: kiln.where %{{.*}}, %{{.*}}, %{{.*}} {node = "w", onnx_op = "Where"} : (tensor<2x1xi1>, tensor<2x3xf16>, tensor<f16>) -> tensor<2x3xf16>
// CHECK: kiln.cast %{{.*}} {node = "k", onnx_op = "Cast"} : (tensor<2x3xf16>) -> tensor<2x3xui8>
func.func @movement(%a: tensor<2x3xf16>, %b: tensor<2x1xf16>, %i: tensor<5x1xi32>, %c: tensor<2x1xi1>, %h: tensor<f16>) -> (tensor<2x1xf16>, tensor<2x5x1xf16>, tensor<2x3xui8>) {
  %j = kiln.concat %a, %b {axis = 1 : i64, node = "c", onnx_op = "Concat"} : (tensor<2x3xf16>, tensor<2x1xf16>) -> tensor<2x4xf16>
  %s:2 = kiln.split %j {axis = 1 : i64, node = "s", onnx_op = "Split"} : (tensor<2x4xf16>) -> (tensor<2x1xf16>, tensor<2x3xf16>)
  %g = kiln.gather %s#1, %i {axis = 1 : i64, node = "g", onnx_op = "Gather"} : (tensor<2x3xf16>, tensor<5x1xi32>) -> tensor<2x5x1xf16>
  %w = kiln.where %c, %a, %h {node = "w", onnx_op = "Where"} : (tensor<2x1xi1>, tensor<2x3xf16>, tensor<f16>) -> tensor<2x3xf16>
  %k = kiln.cast %w {node = "k", onnx_op = "Cast"} : (tensor<2x3xf16>) -> tensor<2x3xui8>
  return %s#0, %g, %k : tensor<2x1xf16>, tensor<2x5x1xf16>, tensor<2x3xui8>
}

// CHECK-LABEL: func.func @strided_copy
// CHECK: kiln.strided_copy %{{.*}} {node = "r", offset = 5 : i64, onnx_op = "Slice", shape = array<i64: 2, 3>, strides = array<i64: -3, -1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @strided_copy(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = kiln.strided_copy %x {node = "r", offset = 5 : i64, onnx_op = "Slice", shape = array<i64: 2, 3>, strides = array<i64: -3, -1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @indexed
// CHECK: kiln.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64, node = "ge", onnx_op = "GatherElements"} : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
// CHECK: kiln.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, node = "se", onnx_op = "ScatterElements", reduction = "max"} : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<2x2xf32>) -> tensor<2x3xf32>
// CHECK: kiln.gather_nd %{{.*}}, %{{.*}} {batch_dims = 0 : i64, node = "gn", onnx_op = "GatherND"} : (tensor<2x3xf32>, tensor<4x1xi64>) -> tensor<4x3xf32>
// CHECK: kiln.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} {node = "sn", onnx_op = "ScatterND", reduction = "none"} : (tensor<2x3xf32>, tensor<4x1xi64>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK: kiln.cumsum %{{.*}} {axis = 0 : i64, exclusive = true, node = "cs", onnx_op = "CumSum", reverse = false} : tensor<2x3xf32>
func.func @indexed(%x: tensor<2x3xf32>, %i: tensor<2x2xi32>, %n: tensor<4x1xi64>) -> (tensor<2x2xf32>, tensor<4x3xf32>, tensor<2x3xf32>) {
  %g = kiln.gather_elements %x, %i {axis = 1 : i64, node = "ge", onnx_op = "GatherElements"} : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
  %s = kiln.scatter_elements %x, %i, %g {axis = 1 : i64, node = "se", onnx_op = "ScatterElements", reduction = "max"} : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<2x2xf32>) -> tensor<2x3xf32>
  %h = kiln.gather_nd %s, %n {batch_dims = 0 : i64, node = "gn", onnx_op = "GatherND"} : (tensor<2x3xf32>, tensor<4x1xi64>) -> tensor<4x3xf32>
  %t = kiln.scatter_nd %x, %n, %h {node = "sn", onnx_op = "ScatterND", reduction = "none"} : (tensor<2x3xf32>, tensor<4x1xi64>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %c = kiln.cumsum %t {axis = 0 : i64, exclusive = true, node = "cs", onnx_op = "CumSum", reverse = false} : tensor<2x3xf32>
  return %g, %h, %c : tensor<2x2xf32>, tensor<4x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @pad
// CHECK: kiln.pad %{{.*}} value %{{.*}} {mode = "constant", node = "p", onnx_op = "Pad", pads = array<i64: 1, -1, 0, 2>} : (tensor<2x3xi8>, tensor<i8>) -> tensor<3x4xi8>
// CHECK: kiln.pad %{{.*}} {mode = "edge", node = "e", onnx_op = "Pad", pads = array<i64: 0, 0, 0, 1>} : (tensor<2x3xi8>) -> tensor<2x4xi8>
func.func @pad(%x: tensor<2x3xi8>, %v: tensor<i8>) -> (tensor<3x4xi8>, tensor<2x4xi8>) {
  %p = kiln.pad %x value %v {mode = "constant", node = "p", onnx_op = "Pad", pads = array<i64: 1, -1, 0, 2>} : (tensor<2x3xi8>, tensor<i8>) -> tensor<3x4xi8>
  %e = kiln.pad %x {mode = "edge", node = "e", onnx_op = "Pad", pads = array<i64: 0, 0, 0, 1>} : (tensor<2x3xi8>) -> tensor<2x4xi8>
  return %p, %e : tensor<3x4xi8>, tensor<2x4xi8>
}

// CHECK-LABEL: func.func @resize_trilu_one_hot
// CHECK: kiln.resize_axis %{{.*}} {axis = 1 : i64, extrapolation_value = 5.000000e-01 : f32, indices = array<i64: 0, 1, -1, -1, 1, 1>, node = "r", onnx_op = "Resize", taps = 2 : i64, weights = array<f32: 7.500000e-01, 2.500000e-01, 0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00>} : (tensor<3x2xf32>) -> tensor<3x3xf32>
// CHECK: kiln.trilu %{{.*}} {k = -1 : i64, node = "t", onnx_op = "Trilu", upper = true} : tensor<2x3x4xi8>
// CHECK: kiln.one_hot %{{.*}}, %{{.*}} {axis = 0 : i64, depth = 4 : i64, node = "o", onnx_op = "OneHot"} : (tensor<3xi32>, tensor<2xi1>) -> tensor<4x3xi1>
func.func @resize_trilu_one_hot(%x: tensor<3x2xf32>, %m: tensor<2x3x4xi8>, %i: tensor<3xi32>, %v: tensor<2xi1>) -> (tensor<3x3xf32>, tensor<2x3x4xi8>, tensor<4x3xi1>) {
  %r = kiln.resize_axis %x {axis = 1 : i64, extrapolation_value = 0.5 : f32, indices = array<i64: 0, 1, -1, -1, 1, 1>, node = "r", onnx_op = "Resize", taps = 2 : i64, weights = array<f32: 0.75, 0.25, 0.0, 0.0, 1.0, 0.0>} : (tensor<3x2xf32>) -> tensor<3x3xf32>
  %t = kiln.trilu %m {k = -1 : i64, node = "t", onnx_op = "Trilu", upper = true} : tensor<2x3x4xi8>
  %o = kiln.one_hot %i, %v {axis = 0 : i64, depth = 4 : i64, node = "o", onnx_op = "OneHot"} : (tensor<3xi32>, tensor<2xi1>) -> tensor<4x3xi1>
  return %r, %t, %o : tensor<3x3xf32>, tensor<2x3x4xi8>, tensor<4x3xi1>
}
