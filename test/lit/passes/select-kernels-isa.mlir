// ISA targets: matmuls over Q8_0/Q4_0/Q4_K/Q6_K weights quantize activations
// (kiln.activation, scratch per row = K/32 blocks of 34 bytes) and name the
// target's microkernel and its register tile (activation rows x weight rows);
// other weight types and ops keep the portable f32 kernels.
// RUN: kiln-opt %s --kiln-set-target=target=neon --kiln-select-kernels | FileCheck %s --check-prefixes=CHECK,NEON
// RUN: kiln-opt %s --kiln-set-target="target=neon cpu=i8mm" --kiln-select-kernels | FileCheck %s --check-prefixes=CHECK,I8MM
// RUN: kiln-opt %s --kiln-set-target=target=sve --kiln-select-kernels | FileCheck %s --check-prefixes=CHECK,SVE
// RUN: kiln-opt %s --kiln-set-target=target=rvv --kiln-select-kernels | FileCheck %s --check-prefixes=CHECK,RVV
// RUN: kiln-opt %s --kiln-set-target=target=hvx --kiln-select-kernels | FileCheck %s --check-prefixes=CHECK,HVX
// RUN: kiln-opt %s --kiln-set-target="target=x86 cpu=avx2" --kiln-select-kernels | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: kiln-opt %s --kiln-set-target="target=x86 cpu=avx512vnni" --kiln-select-kernels | FileCheck %s --check-prefixes=CHECK,VNNI
// RUN: not kiln-opt %s --kiln-set-target="target=x86 cpu=pentium" --kiln-select-kernels 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not kiln-opt %s --kiln-set-target="target=sve sve-bits=100" --kiln-select-kernels 2>&1 | FileCheck %s --check-prefix=SVEBITS
// RUN: not kiln-opt %s --kiln-set-target="target=rvv cpu=rv32" --kiln-select-kernels 2>&1 | FileCheck %s --check-prefix=RVCPU
// CPU: --cpu=pentium is not valid for --target=x86 (valid: host, avx2, avx512vnni, or a CPU as clang's -march names it, such as x86-64-v3, znver4 or icelake-server)
// SVEBITS: --sve-bits=100 is not valid (valid: 128, 256, 512, 1024, 2048)
// RVCPU: --cpu=rv32 is not valid for --target=rvv (valid: rv64gcv, rv64gv)

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
  // CHECK: kiln.matmul {{.*}}{kiln.activation = "q8_0",
  // NEON-SAME: kiln.kernel = "matmul_q4_0_q8_0_4x4_neon_dotprod", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 4, 4>}
  // I8MM-SAME: kiln.kernel = "matmul_q4_0_q8_0_4x4_neon_i8mm", kiln.scratch_per_row = 320 : i64, kiln.tile = array<i64: 4, 4>}
  // SVE-SAME: kiln.kernel = "matmul_q4_0_q8_0_16x4_sve", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 4, 16>}
  // RVV-SAME: kiln.kernel = "matmul_q4_0_q8_0_128x_rvv", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 1, 128>}
  // HVX-SAME: kiln.kernel = "matmul_q4_0_q8_0_32x_hvx", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 1, 32>}
  // AVX2-SAME: kiln.kernel = "matmul_q4_0_q8_0_4x8_avx2", kiln.scratch_per_row = 336 : i64, kiln.tile = array<i64: 4, 8>}
  // VNNI-SAME: kiln.kernel = "matmul_q4_0_q8_0_4x16_avx512vnni", kiln.scratch_per_row = 336 : i64, kiln.tile = array<i64: 4, 16>}
  %a = kiln.matmul %x, @w0 : tensor<?x256xf32> -> tensor<?x64xf32>
  // CHECK: kiln.matmul {{.*}}{kiln.activation =
  // NEON-SAME: "q8_k", kiln.kernel = "matmul_q4_k_q8_k_4x4_neon_dotprod", kiln.scratch_per_row = 292 : i64, kiln.tile = array<i64: 4, 4>}
  // I8MM-SAME: "q8_k", kiln.kernel = "matmul_q4_k_q8_k_4x4_neon_i8mm", kiln.scratch_per_row = 296 : i64, kiln.tile = array<i64: 4, 4>}
  // SVE-SAME: "q8_k", kiln.kernel = "matmul_q4_k_q8_k_16x4_sve", kiln.scratch_per_row = 292 : i64, kiln.tile = array<i64: 4, 16>}
  // RVV-SAME: "q8_k", kiln.kernel = "matmul_q4_k_q8_k_128x_rvv", kiln.scratch_per_row = 292 : i64, kiln.tile = array<i64: 1, 128>}
  // HVX-SAME: "q8_k", kiln.kernel = "matmul_q4_k_q8_k_32x_hvx", kiln.scratch_per_row = 292 : i64, kiln.tile = array<i64: 1, 32>}
  // AVX2-SAME: "q8_k", kiln.kernel = "matmul_q4_k_q8_k_4x8_avx2", kiln.scratch_per_row = 308 : i64, kiln.tile = array<i64: 4, 8>}
  // VNNI-SAME: "q8_k", kiln.kernel = "matmul_q4_k_q8_k_4x16_avx512vnni", kiln.scratch_per_row = 308 : i64, kiln.tile = array<i64: 4, 16>}
  %b = kiln.matmul %x, @wk : tensor<?x256xf32> -> tensor<?x64xf32>
  // CHECK: kiln.matmul {{.*}}{kiln.activation =
  // NEON-SAME: "q8_k", kiln.kernel = "matmul_q6_k_q8_k_4x4_neon_dotprod", kiln.scratch_per_row = 292 : i64, kiln.tile = array<i64: 4, 4>}
  // I8MM-SAME: "q8_k", kiln.kernel = "matmul_q6_k_q8_k_4x4_neon_i8mm", kiln.scratch_per_row = 296 : i64, kiln.tile = array<i64: 4, 4>}
  // SVE-SAME: "q8_k", kiln.kernel = "matmul_q6_k_q8_k_16x4_sve", kiln.scratch_per_row = 292 : i64, kiln.tile = array<i64: 4, 16>}
  // RVV-SAME: "q8_k", kiln.kernel = "matmul_q6_k_q8_k_128x_rvv", kiln.scratch_per_row = 292 : i64, kiln.tile = array<i64: 1, 128>}
  // HVX-SAME: "q8_k", kiln.kernel = "matmul_q6_k_q8_k_32x_hvx", kiln.scratch_per_row = 292 : i64, kiln.tile = array<i64: 1, 32>}
  // AVX2-SAME: "q8_k", kiln.kernel = "matmul_q6_k_q8_k_4x8_avx2", kiln.scratch_per_row = 308 : i64, kiln.tile = array<i64: 4, 8>}
  // VNNI-SAME: "q8_k", kiln.kernel = "matmul_q6_k_q8_k_4x16_avx512vnni", kiln.scratch_per_row = 308 : i64, kiln.tile = array<i64: 4, 16>}
  %c = kiln.matmul %x, @w6 : tensor<?x256xf32> -> tensor<?x64xf32>
  // CHECK: kiln.matmul {{.*}}{kiln.activation = "q8_0",
  // NEON-SAME: kiln.kernel = "matmul_q8_0_q8_0_4x4_neon_dotprod", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 4, 4>}
  // I8MM-SAME: kiln.kernel = "matmul_q8_0_q8_0_4x4_neon_i8mm", kiln.scratch_per_row = 320 : i64, kiln.tile = array<i64: 4, 4>}
  // SVE-SAME: kiln.kernel = "matmul_q8_0_q8_0_16x4_sve", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 4, 16>}
  // RVV-SAME: kiln.kernel = "matmul_q8_0_q8_0_128x_rvv", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 1, 128>}
  // HVX-SAME: kiln.kernel = "matmul_q8_0_q8_0_32x_hvx", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 1, 32>}
  // AVX2-SAME: kiln.kernel = "matmul_q8_0_q8_0_4x8_avx2", kiln.scratch_per_row = 336 : i64, kiln.tile = array<i64: 4, 8>}
  // VNNI-SAME: kiln.kernel = "matmul_q8_0_q8_0_4x16_avx512vnni", kiln.scratch_per_row = 336 : i64, kiln.tile = array<i64: 4, 16>}
  %d = kiln.matmul %x, @w8 : tensor<?x256xf32> -> tensor<?x64xf32>
  // Q4_1: each ISA's Q5_1 kernel under the q4_1 name, Q8_0 activations.
  // CHECK: kiln.matmul {{.*}}@w1 {kiln.activation = "q8_0",
  // NEON-SAME: kiln.kernel = "matmul_q4_1_q8_0_4x4_neon_dotprod", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 4, 4>}
  // I8MM-SAME: kiln.kernel = "matmul_q4_1_q8_0_4x4_neon_dotprod", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 4, 4>}
  // SVE-SAME: kiln.kernel = "matmul_q4_1_q8_0_16x4_sve", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 4, 16>}
  // RVV-SAME: kiln.kernel = "matmul_q4_1_q8_0_128x_rvv", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 1, 128>}
  // HVX-SAME: kiln.kernel = "matmul_q4_1_q8_0_32x_hvx", kiln.scratch_per_row = 272 : i64, kiln.tile = array<i64: 1, 32>}
  // AVX2-SAME: kiln.kernel = "matmul_q4_1_q8_0_4x8_avx2", kiln.scratch_per_row = 336 : i64, kiln.tile = array<i64: 4, 8>}
  // VNNI-SAME: kiln.kernel = "matmul_q4_1_q8_0_4x16_avx512vnni", kiln.scratch_per_row = 336 : i64, kiln.tile = array<i64: 4, 16>}
  %e = kiln.matmul %x, @w1 : tensor<?x256xf32> -> tensor<?x64xf32>
  // F16 weights: the widening kernels everywhere but HVX (no float vectors
  // on v67), which runs the portable one.
  // CHECK: kiln.matmul %{{.*}}, @wh {kiln.kernel = "matmul_f16_f32_
  // NEON-SAME: 4x1_neon"}
  // I8MM-SAME: 4x1_neon"}
  // SVE-SAME: 2x4_sve"}
  // RVV-SAME: 2x4_rvv"}
  // HVX-SAME: generic"}
  // AVX2-SAME: 4x1_avx2"}
  // VNNI-SAME: 4x1_avx2"}
  %f = kiln.matmul %x, @wh : tensor<?x256xf32> -> tensor<?x64xf32>
  // CHECK: kiln.add {{.*}}kiln.kernel = "add_f32_generic"
  %g = kiln.add %a, %b : tensor<?x64xf32>
  return %g : tensor<?x64xf32>
}
