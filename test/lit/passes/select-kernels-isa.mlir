// ISA targets: matmuls over Q8_0/Q4_0/Q4_K/Q6_K weights quantize activations
// (kiln.activation, scratch per row = K/32 blocks of 34 bytes); other weight
// types and ops keep the f32 kernels.
// RUN: kiln-opt %s --kiln-select-kernels=target=neon | FileCheck %s
// RUN: kiln-opt %s --kiln-select-kernels=target=rvv | FileCheck %s
// RUN: kiln-opt %s --kiln-select-kernels="target=x86 cpu=avx2" | FileCheck %s
// RUN: not kiln-opt %s --kiln-select-kernels="target=x86 cpu=pentium" 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not kiln-opt %s --kiln-select-kernels="target=sve sve-bits=100" 2>&1 | FileCheck %s --check-prefix=SVE
// CPU: --cpu=pentium is not valid for --target=x86 (valid: host, avx2, avx512vnni)
// SVE: --sve-bits=100 is not valid (valid: 128, 256, 512, 1024, 2048)

kiln.weight @e : tensor<320x256x!kiln.q8_0> {source = "e"}
kiln.weight @w0 : tensor<64x256x!kiln.q4_0> {source = "w0"}
kiln.weight @wk : tensor<64x256x!kiln.q4_k> {source = "wk"}
kiln.weight @w6 : tensor<64x256x!kiln.q6_k> {source = "w6"}
kiln.weight @w8 : tensor<64x256x!kiln.q8_0> {source = "w8"}
kiln.weight @w1 : tensor<64x256x!kiln.q4_1> {source = "w1"}
kiln.weight @wh : tensor<64x256xf16> {source = "wh"}
// CHECK-LABEL: func.func @f
func.func @f(%t: tensor<?xi32>) -> tensor<?x64xf32> {
  // CHECK: kiln.embedding {{.*}}kiln.kernel = "embedding_q8_0_generic"
  %x = kiln.embedding @e, %t : tensor<?xi32> -> tensor<?x256xf32>
  // CHECK: kiln.matmul {{.*}}{kiln.activation = "q8_0", kiln.kernel = "matmul_q4_0_q8_0_{{[a-z0-9_]+}}", kiln.scratch_per_row = 272 : i64}
  %a = kiln.matmul %x, @w0 : tensor<?x256xf32> -> tensor<?x64xf32>
  // CHECK: kiln.matmul {{.*}}{kiln.activation = "q8_0", kiln.kernel = "matmul_q4_k_q8_0_{{[a-z0-9_]+}}", kiln.scratch_per_row = 272 : i64}
  %b = kiln.matmul %x, @wk : tensor<?x256xf32> -> tensor<?x64xf32>
  // CHECK: kiln.matmul {{.*}}{kiln.activation = "q8_0", kiln.kernel = "matmul_q6_k_q8_0_{{[a-z0-9_]+}}", kiln.scratch_per_row = 272 : i64}
  %c = kiln.matmul %x, @w6 : tensor<?x256xf32> -> tensor<?x64xf32>
  // CHECK: kiln.matmul {{.*}}{kiln.activation = "q8_0", kiln.kernel = "matmul_q8_0_q8_0_{{[a-z0-9_]+}}", kiln.scratch_per_row = 272 : i64}
  %d = kiln.matmul %x, @w8 : tensor<?x256xf32> -> tensor<?x64xf32>
  // CHECK: kiln.matmul %{{.*}}, @w1 {kiln.kernel = "matmul_q4_1_f32_generic"}
  %e = kiln.matmul %x, @w1 : tensor<?x256xf32> -> tensor<?x64xf32>
  // CHECK: kiln.matmul %{{.*}}, @wh {kiln.kernel = "matmul_f16_f32_generic"}
  %f = kiln.matmul %x, @wh : tensor<?x256xf32> -> tensor<?x64xf32>
  // CHECK: kiln.add {{.*}}kiln.kernel = "add_f32_generic"
  %g = kiln.add %a, %b : tensor<?x64xf32>
  return %g : tensor<?x64xf32>
}
