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
