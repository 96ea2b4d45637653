// RUN: kiln-opt %s -split-input-file --kiln-fuse-horizontal | FileCheck %s
// RUN: kiln-opt %s -split-input-file --kiln-fuse-horizontal -verify-diagnostics -o /dev/null

// Q, K and V read the same norm: one matmul over the three weights stacked
// (concat names the file's tensors; the store builds the weight), one result
// per part, biases stacked the same way. The unused originals are dropped.
module attributes {kiln.max_batch = 4 : i64} {
  kiln.weight @blk.0.attn_q : tensor<64x64x!kiln.q8_0> {source = "blk.0.attn_q.weight"}
  kiln.weight @blk.0.attn_k : tensor<16x64x!kiln.q8_0> {source = "blk.0.attn_k.weight"}
  kiln.weight @blk.0.attn_v : tensor<16x64x!kiln.q8_0> {source = "blk.0.attn_v.weight"}
  kiln.weight @blk.0.attn_q.bias : tensor<64xf32> {source = "blk.0.attn_q.bias"}
  kiln.weight @blk.0.attn_k.bias : tensor<16xf32> {source = "blk.0.attn_k.bias"}
  kiln.weight @blk.0.attn_v.bias : tensor<16xf32> {source = "blk.0.attn_v.bias"}
  // CHECK-LABEL: module
  // CHECK-NOT: kiln.weight @blk.0.attn_q :
  // CHECK: kiln.weight @"blk.0.attn_q+attn_k+attn_v" : tensor<96x64x!kiln.q8_0> {concat = ["blk.0.attn_k.weight", "blk.0.attn_v.weight"], source = "blk.0.attn_q.weight"}
  // CHECK: kiln.weight @"blk.0.attn_q.bias+attn_k.bias+attn_v.bias" : tensor<96xf32> {concat = ["blk.0.attn_k.bias", "blk.0.attn_v.bias"], source = "blk.0.attn_q.bias"}
  // CHECK-LABEL: func.func @qkv
  func.func @qkv(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x16xf32>, tensor<?x16xf32>) {
    // CHECK-NEXT: %[[R:.*]]:3 = kiln.matmul %arg0, @"blk.0.attn_q+attn_k+attn_v" bias @"blk.0.attn_q.bias+attn_k.bias+attn_v.bias" split [64, 16, 16] : tensor<?x64xf32> -> tensor<?x64xf32>, tensor<?x16xf32>, tensor<?x16xf32>
    // CHECK-NEXT: return %[[R]]#0, %[[R]]#1, %[[R]]#2
    %q = kiln.matmul %x, @blk.0.attn_q bias @blk.0.attn_q.bias : tensor<?x64xf32> -> tensor<?x64xf32>
    %k = kiln.matmul %x, @blk.0.attn_k bias @blk.0.attn_k.bias : tensor<?x64xf32> -> tensor<?x16xf32>
    %v = kiln.matmul %x, @blk.0.attn_v bias @blk.0.attn_v.bias : tensor<?x64xf32> -> tensor<?x16xf32>
    return %q, %k, %v : tensor<?x64xf32>, tensor<?x16xf32>, tensor<?x16xf32>
  }
}

// -----

// Must not fire: matmuls that read different inputs.
module attributes {kiln.max_batch = 4 : i64} {
  kiln.weight @a : tensor<32x64xf32> {source = "a"}
  kiln.weight @b : tensor<32x64xf32> {source = "b"}
  // CHECK-LABEL: func.func @different_inputs
  func.func @different_inputs(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>) -> (tensor<?x32xf32>, tensor<?x32xf32>) {
    // CHECK-NEXT: kiln.matmul %arg0, @a :
    // CHECK-NEXT: kiln.matmul %arg1, @b :
    %p = kiln.matmul %x, @a : tensor<?x64xf32> -> tensor<?x32xf32>
    %q = kiln.matmul %y, @b : tensor<?x64xf32> -> tensor<?x32xf32>
    return %p, %q : tensor<?x32xf32>, tensor<?x32xf32>
  }
}

// -----

// Gate and up in different quant types (V kept at q8_0 is the common case):
// the two q4_0 matmuls fuse, the q8_0 one stays alone and each side gets a
// remark saying why.
module attributes {kiln.max_batch = 4 : i64} {
  kiln.weight @blk.0.ffn_gate : tensor<128x64x!kiln.q4_0> {source = "blk.0.ffn_gate.weight"}
  kiln.weight @blk.0.ffn_up : tensor<128x64x!kiln.q4_0> {source = "blk.0.ffn_up.weight"}
  kiln.weight @blk.0.ffn_x : tensor<32x64x!kiln.q8_0> {source = "blk.0.ffn_x.weight"}
  // CHECK-LABEL: func.func @mixed_types
  func.func @mixed_types(%x: tensor<?x64xf32>) -> (tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x32xf32>) {
    // CHECK-NEXT: %[[GU:.*]]:2 = kiln.matmul %arg0, @"blk.0.ffn_gate+ffn_up" split [128, 128]
    // CHECK-NEXT: %[[X:.*]] = kiln.matmul %arg0, @blk.0.ffn_x :
    // expected-remark @+1 {{not fused with 1 matmul(s) reading the same input (blk.0.ffn_x): weight q4_0 vs q8_0}}
    %g = kiln.matmul %x, @blk.0.ffn_gate : tensor<?x64xf32> -> tensor<?x128xf32>
    // expected-remark @+1 {{not fused with 1 matmul(s) reading the same input (blk.0.ffn_x): weight q4_0 vs q8_0}}
    %u = kiln.matmul %x, @blk.0.ffn_up : tensor<?x64xf32> -> tensor<?x128xf32>
    // expected-remark @+1 {{not fused with 2 matmul(s) reading the same input (blk.0.ffn_gate): weight q8_0 vs q4_0}}
    %o = kiln.matmul %x, @blk.0.ffn_x : tensor<?x64xf32> -> tensor<?x32xf32>
    return %g, %u, %o : tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x32xf32>
  }
}

// -----

// A Q4_K_M file: Q4_K for q and k, Q6_K for v. q and k fuse, v stays alone,
// and v's remark names q, which the fusion has already replaced (the
// remarks are all written before any group is fused; naming an erased
// matmul once crashed kilnc on such files).
module attributes {kiln.max_batch = 4 : i64} {
  kiln.weight @blk.0.attn_q : tensor<256x256x!kiln.q4_k> {source = "blk.0.attn_q.weight"}
  kiln.weight @blk.0.attn_k : tensor<128x256x!kiln.q4_k> {source = "blk.0.attn_k.weight"}
  kiln.weight @blk.0.attn_v : tensor<128x256x!kiln.q6_k> {source = "blk.0.attn_v.weight"}
  // CHECK-LABEL: func.func @q4_k_m
  func.func @q4_k_m(%x: tensor<?x256xf32>) -> (tensor<?x256xf32>, tensor<?x128xf32>, tensor<?x128xf32>) {
    // CHECK-NEXT: %[[QK:.*]]:2 = kiln.matmul %arg0, @"blk.0.attn_q+attn_k" split [256, 128]
    // CHECK-NEXT: %[[V:.*]] = kiln.matmul %arg0, @blk.0.attn_v :
    // expected-remark @+1 {{not fused with 1 matmul(s) reading the same input (blk.0.attn_v): weight q4_k vs q6_k}}
    %q = kiln.matmul %x, @blk.0.attn_q : tensor<?x256xf32> -> tensor<?x256xf32>
    // expected-remark @+1 {{not fused with 1 matmul(s) reading the same input (blk.0.attn_v): weight q4_k vs q6_k}}
    %k = kiln.matmul %x, @blk.0.attn_k : tensor<?x256xf32> -> tensor<?x128xf32>
    // expected-remark @+1 {{not fused with 2 matmul(s) reading the same input (blk.0.attn_q): weight q6_k vs q4_k}}
    %v = kiln.matmul %x, @blk.0.attn_v : tensor<?x256xf32> -> tensor<?x128xf32>
    return %q, %k, %v : tensor<?x256xf32>, tensor<?x128xf32>, tensor<?x128xf32>
  }
}

// -----

// Must not fire: a matmul that already has an epilogue, and one with a bias
// next to one without (different layouts), are left alone; the bias one gets
// a remark.
module attributes {kiln.max_batch = 4 : i64} {
  kiln.weight @a : tensor<64x64xf32> {source = "a"}
  kiln.weight @b : tensor<64x64xf32> {source = "b"}
  kiln.weight @bb : tensor<64xf32> {source = "bb"}
  kiln.weight @c : tensor<64x64xf32> {source = "c"}
  // CHECK-LABEL: func.func @not_plain
  func.func @not_plain(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
    // CHECK-NEXT: kiln.matmul %arg0, @a epilogue "add" with %arg0
    // CHECK-NEXT: kiln.matmul %arg0, @b bias @bb :
    // CHECK-NEXT: kiln.matmul %arg0, @c :
    %p = kiln.matmul %x, @a epilogue "add" with %x : tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x64xf32>
    // expected-remark @+1 {{not fused with 1 matmul(s) reading the same input (c): weight f32 with bias vs f32}}
    %q = kiln.matmul %x, @b bias @bb : tensor<?x64xf32> -> tensor<?x64xf32>
    // expected-remark @+1 {{not fused with 1 matmul(s) reading the same input (b): weight f32 vs f32 with bias}}
    %r = kiln.matmul %x, @c : tensor<?x64xf32> -> tensor<?x64xf32>
    %s = kiln.add %q, %r : tensor<?x64xf32>
    return %p, %s : tensor<?x64xf32>, tensor<?x64xf32>
  }
}
