// RUN: kiln-opt %s -split-input-file --kiln-set-target --kiln-select-kernels | FileCheck %s
// RUN: kiln-opt %s -split-input-file --kiln-set-target=target=x86 --kiln-select-kernels | FileCheck %s --check-prefix=TILED
// RUN: kiln-opt %s -split-input-file --kiln-set-target=target=neon --kiln-select-kernels | FileCheck %s --check-prefix=TILED
// RUN: kiln-opt %s -split-input-file --kiln-set-target=target=sve --kiln-select-kernels | FileCheck %s --check-prefix=TILED
// RUN: kiln-opt %s -split-input-file --kiln-set-target=target=rvv --kiln-select-kernels | FileCheck %s --check-prefix=TILED
// RUN: kiln-opt %s -split-input-file --kiln-set-target=target=hvx --kiln-select-kernels | FileCheck %s --check-prefix=GENERICATT
// RUN: not kiln-opt %s --kiln-set-target=target=hexagon-v99 --kiln-select-kernels 2>&1 | FileCheck %s --check-prefix=BADTARGET

// BADTARGET: unknown target 'hexagon-v99' (supported: generic, x86, neon, sve, rvv, hvx)

kiln.weight @e : tensor<320x64x!kiln.q8_0> {source = "e"}
kiln.weight @n : tensor<64xf32> {source = "n"}
kiln.weight @w0 : tensor<64x64x!kiln.q4_0> {source = "w0"}
kiln.weight @wk : tensor<64x256x!kiln.q4_k> {source = "wk"}
kiln.weight @w6 : tensor<256x256x!kiln.q6_k> {source = "w6"}
kiln.weight @wup : tensor<256x64xf32> {source = "wup"}
kiln.weight @wh : tensor<64x64xf16> {source = "wh"}
// CHECK-LABEL: func.func @f
func.func @f(%t: tensor<?xi32>) -> tensor<1x64xf32> {
  // CHECK: kiln.embedding {{.*}}kiln.kernel = "embedding_q8_0_generic"
  %x = kiln.embedding @e, %t : tensor<?xi32> -> tensor<?x64xf32>
  // CHECK: kiln.rms_norm {{.*}}kiln.kernel = "rms_norm_f32_generic"
  %n = kiln.rms_norm %x, @n {epsilon = 1.0e-5 : f32} : tensor<?x64xf32>
  // CHECK: kiln.matmul {{.*}}kiln.kernel = "matmul_q4_0_f32_generic"
  %q = kiln.matmul %n, @w0 : tensor<?x64xf32> -> tensor<?x64xf32>
  // CHECK: kiln.matmul {{.*}}kiln.kernel = "matmul_f32_f32_generic"
  %u0 = kiln.matmul %n, @wup : tensor<?x64xf32> -> tensor<?x256xf32>
  // CHECK: kiln.matmul {{.*}}kiln.kernel = "matmul_q6_k_f32_generic"
  %u = kiln.matmul %u0, @w6 : tensor<?x256xf32> -> tensor<?x256xf32>
  // CHECK: kiln.matmul {{.*}}kiln.kernel = "matmul_q4_k_f32_generic"
  %d = kiln.matmul %u, @wk : tensor<?x256xf32> -> tensor<?x64xf32>
  // CHECK: kiln.matmul {{.*}}kiln.kernel = "matmul_f16_f32_generic"
  %h = kiln.matmul %d, @wh : tensor<?x64xf32> -> tensor<?x64xf32>
  // CHECK: kiln.rope {{.*}}kiln.kernel = "rope_adjacent_f32_generic"
  %r = kiln.rope %h {head_dim = 16 : i64, theta = 1.0e4 : f32, style = "adjacent"} : tensor<?x64xf32>
  // CHECK: kiln.rope {{.*}}kiln.kernel = "rope_neox_f32_generic"
  %r2 = kiln.rope %h {head_dim = 16 : i64, theta = 1.0e4 : f32, style = "neox"} : tensor<?x64xf32>
  // CHECK: kiln.attention {{.*}}kiln.kernel = "attention_f32_generic"
  // TILED: kiln.attention {{.*}}kiln.kernel = "attention_f32_tiled"
  // GENERICATT: kiln.attention {{.*}}kiln.kernel = "attention_f32_generic"
  %a = kiln.attention %r, %r2, %q {layer = 0 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64, head_dim = 16 : i64} : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x64xf32>
  // CHECK: kiln.silu_mul {{.*}}kiln.kernel = "silu_mul_f32_generic"
  %s = kiln.silu_mul %a, %q : tensor<?x64xf32>
  // CHECK: kiln.add {{.*}}kiln.kernel = "add_f32_generic"
  %y = kiln.add %s, %x : tensor<?x64xf32>
  // CHECK: kiln.last_token {{.*}}kiln.kernel = "last_token_f32_generic"
  %l = kiln.last_token %y : tensor<?x64xf32> -> tensor<1x64xf32>
  return %l : tensor<1x64xf32>
}
