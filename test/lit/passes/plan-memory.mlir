// RUN: kiln-opt %s -split-input-file --kiln-plan-memory=in-place=0 | FileCheck %s
// RUN: kiln-opt %s -split-input-file --kiln-plan-memory="max-batch=2 in-place=0" | FileCheck %s --check-prefix=B2
// RUN: kiln-opt %s -split-input-file --kiln-plan-memory | FileCheck %s --check-prefix=IP

// A chain x -> g, u -> s -> y: x (1 KiB at 4 rows) lives until y; at s, x, g,
// u and s (1 + 2 + 2 + 2 KiB) are live at once, so 7 KiB is both the lower
// bound and what the planner reaches; without reuse it would be 9.25 KiB.
// In place, s takes g's buffer (g dies at s) and y takes x's or d's: only
// x, g, u are live at s, 5 KiB, and 2 buffers are shared.
module attributes {kiln.max_batch = 4 : i64, kiln.context_length = 100 : i64} {
  kiln.weight @e : tensor<320x64xf32> {source = "e"}
  kiln.weight @w : tensor<128x64xf32> {source = "w"}
  kiln.weight @d : tensor<64x128xf32> {source = "d"}
  // CHECK-LABEL: func.func @chain
  // CHECK-SAME: kiln.arena_bytes = 7168 : i64, kiln.arena_lower_bound = 7168 : i64, kiln.arena_method = "size", kiln.arena_no_reuse = 9472 : i64
  // B2-LABEL: func.func @chain
  // B2-SAME: kiln.arena_bytes = 3584 : i64
  // IP-LABEL: func.func @chain
  // IP-SAME: kiln.arena_bytes = 5120 : i64, kiln.arena_in_place = 2 : i64, kiln.arena_lower_bound = 5120 : i64
  func.func @chain(%t: tensor<?xi32>) -> tensor<1x64xf32> {
    // CHECK: kiln.embedding {{.*}}{kiln.bytes = 1024 : i64, kiln.offset = [[X:[0-9]+]] : i64}
    // IP: kiln.embedding {{.*}}kiln.offset = [[IX:[0-9]+]] : i64
    %x = kiln.embedding @e, %t : tensor<?xi32> -> tensor<?x64xf32>
    // CHECK: kiln.matmul {{.*}}{kiln.bytes = 2048 : i64, kiln.offset = [[G:[0-9]+]] : i64}
    // IP: kiln.matmul {{.*}}kiln.offset = [[IG:[0-9]+]] : i64
    %g = kiln.matmul %x, @w : tensor<?x64xf32> -> tensor<?x128xf32>
    // CHECK: kiln.matmul {{.*}}{kiln.bytes = 2048 : i64, kiln.offset = [[U:[0-9]+]] : i64}
    %u = kiln.matmul %x, @w : tensor<?x64xf32> -> tensor<?x128xf32>
    // s may not overlap g or u (its inputs) nor x (still live).
    // CHECK: kiln.silu_mul {{.*}}{kiln.bytes = 2048 : i64
    // IP: kiln.silu_mul {{.*}}kiln.offset = [[IG]] : i64
    %s = kiln.silu_mul %g, %u : tensor<?x128xf32>
    // y reuses g's or u's space: both are dead by now.
    // CHECK: kiln.matmul {{.*}}{kiln.bytes = 1024 : i64, kiln.offset = {{0|1024|2048|3072}} : i64}
    %d = kiln.matmul %s, @d : tensor<?x128xf32> -> tensor<?x64xf32>
    // IP: kiln.matmul {{.*}}kiln.offset = [[ID:[0-9]+]] : i64
    // IP: kiln.add {{.*}}kiln.offset = [[IX]] : i64
    %y = kiln.add %x, %d : tensor<?x64xf32>
    %l = kiln.last_token %y : tensor<?x64xf32> -> tensor<1x64xf32>
    return %l : tensor<1x64xf32>
  }
}

// -----

// In place must not fire when the operand is used after the op (x feeds the
// add after the norm) nor for ops that are not elementwise (last_token); the
// add, where both operands die, is the one op that reuses a buffer.
module attributes {kiln.max_batch = 4 : i64, kiln.context_length = 100 : i64} {
  kiln.weight @e : tensor<320x64xf32> {source = "e"}
  // IP-LABEL: func.func @no_in_place
  // IP-SAME: kiln.arena_in_place = 1 : i64
  func.func @no_in_place(%t: tensor<?xi32>) -> tensor<1x64xf32> {
    // IP: kiln.embedding {{.*}}kiln.offset = [[NX:[0-9]+]] : i64
    %x = kiln.embedding @e, %t : tensor<?xi32> -> tensor<?x64xf32>
    // IP-NOT: kiln.offset = [[NX]] :
    // IP: kiln.rms_norm
    %n = kiln.rms_norm %x {epsilon = 1.0e-5 : f32} : tensor<?x64xf32>
    // IP: kiln.add {{.*}}kiln.offset = [[NX]] : i64
    %y = kiln.add %x, %n : tensor<?x64xf32>
    // IP-NOT: kiln.offset = [[NX]] :
    // IP: kiln.last_token
    %l = kiln.last_token %y : tensor<?x64xf32> -> tensor<1x64xf32>
    return %l : tensor<1x64xf32>
  }
}

// -----

// Attention gets a scratch row of context floats, live only during the op.
module attributes {kiln.max_batch = 1 : i64, kiln.context_length = 100 : i64} {
  // CHECK-LABEL: func.func @attn
  func.func @attn(%q: tensor<?x64xf32>) -> tensor<?x64xf32> {
    // CHECK: kiln.attention {{.*}}kiln.scratch_bytes = 448 : i64
    %a = kiln.attention %q, %q, %q {layer = 0 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64, head_dim = 16 : i64} : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x64xf32>
    return %a : tensor<?x64xf32>
  }
}

// -----

// A kernel that quantizes its input gets scratch for max_batch rows, live only
// during the op (here 4 rows x 272 bytes = 1088, aligned to 1088).
module attributes {kiln.max_batch = 4 : i64, kiln.context_length = 100 : i64} {
  kiln.weight @w : tensor<64x256x!kiln.q4_0> {source = "w"}
  // CHECK-LABEL: func.func @quantized
  func.func @quantized(%x: tensor<?x256xf32>) -> tensor<?x64xf32> {
    // CHECK: kiln.matmul {{.*}}kiln.scratch_bytes = 1088 : i64
    %y = kiln.matmul %x, @w {kiln.scratch_per_row = 272 : i64} : tensor<?x256xf32> -> tensor<?x64xf32>
    return %y : tensor<?x64xf32>
  }
}
