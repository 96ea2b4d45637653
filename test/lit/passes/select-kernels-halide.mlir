// kiln-select-kernels' halide option: which calls run a Halide pipeline
// compiled for their shape (kiln.tensor_op "halide_sgemm", the matmul call's
// parameters, no scratch) instead of the C kernel. The default follows the
// ISA: Halide's GEMM on hvx, the C kernels on x86 and neon.
// RUN: kiln-opt %s --kiln-set-target=target=hvx --kiln-select-kernels | FileCheck %s --check-prefix=HALIDE
// RUN: kiln-opt %s --kiln-set-target=target=x86 --kiln-select-kernels | FileCheck %s --check-prefix=C
// RUN: kiln-opt %s --kiln-set-target=target=neon --kiln-select-kernels | FileCheck %s --check-prefix=C
// RUN: kiln-opt %s --kiln-set-target=target=x86 '--kiln-select-kernels=halide=sgemm' | FileCheck %s --check-prefix=HALIDE
// RUN: kiln-opt %s --kiln-set-target=target=neon '--kiln-select-kernels=halide=sgemm' | FileCheck %s --check-prefix=HALIDE
// RUN: kiln-opt %s --kiln-set-target=target=hvx '--kiln-select-kernels=halide=none' | FileCheck %s --check-prefix=C
// kilnc's pipeline passes the option on.
// RUN: kiln-opt %s --kiln-set-target=target=x86 '--kiln-pipeline=halide=sgemm stop-after=kiln-select-kernels' | FileCheck %s --check-prefix=HALIDE
//
// An ISA Halide 14 has no code generator for, and an unknown value, fail.
// RUN: not kiln-opt %s --kiln-set-target=target=sve '--kiln-select-kernels=halide=sgemm' 2>&1 | FileCheck %s --check-prefix=SVE
// RUN: not kiln-opt %s --kiln-set-target=target=rvv '--kiln-select-kernels=halide=sgemm' 2>&1 | FileCheck %s --check-prefix=RVV
// RUN: not kiln-opt %s --kiln-set-target=target=hvx '--kiln-select-kernels=halide=conv' 2>&1 | FileCheck %s --check-prefix=BAD
// The default on an ISA without Halide is the C kernels, not an error.
// RUN: kiln-opt %s --kiln-set-target=target=sve --kiln-select-kernels | FileCheck %s --check-prefix=C
// SVE: error: kiln-select-kernels: halide=sgemm: Halide 14 generates no code for --target=sve (x86, neon and hvx only)
// RVV: error: kiln-select-kernels: halide=sgemm: Halide 14 generates no code for --target=rvv (x86, neon and hvx only)
// BAD: error: kiln-select-kernels: halide=conv: unknown value (default, none or sgemm)

// A batched f32 product with B broadcast over the batch: one pipeline of
// 3 x 6 x 4 runs for each of the 2 x 5 matrices.
// HALIDE-LABEL: func.func @products
// HALIDE: kiln.tensor_op "halide_sgemm"(%arg0, %arg1) {node = "m", onnx_op = "MatMul", params = array<i64: 1, 3, 6, 4, 2, 2, 5, 12, 0, 0, 24, 0>} :
// HALIDE-NOT: kiln.parts
// Integers, and f64, keep the C kernel.
// HALIDE: kiln.tensor_op "matmul"(%arg2, %arg3) {node = "i", onnx_op = "MatMul", params = array<i64: 7,
// HALIDE: kiln.tensor_op "matmul"(%arg4, %arg5) {node = "d", onnx_op = "MatMul", params = array<i64: 11,
// C-LABEL: func.func @products
// C-NOT: halide
// C: kiln.tensor_op "matmul"(%arg0, %arg1) {node = "m", onnx_op = "MatMul", params = array<i64: 1, 3, 6, 4, 2, 2, 5, 12, 0, 0, 24, 0>, scratch = 16384 : i64}
// C-NOT: halide
func.func @products(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>,
                    %v: tensor<4xi64>, %w: tensor<3x4x2xi64>,
                    %x: tensor<2x3xf64>, %y: tensor<3x2xf64>)
    -> (tensor<2x5x3x6xf32>, tensor<3x2xi64>, tensor<2x2xf64>) {
  %m = kiln.batch_matmul %a, %b {node = "m", onnx_op = "MatMul"} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  %i = kiln.batch_matmul %v, %w {node = "i", onnx_op = "MatMul"} : (tensor<4xi64>, tensor<3x4x2xi64>) -> tensor<3x2xi64>
  %d = kiln.batch_matmul %x, %y {node = "d", onnx_op = "MatMul"} : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
  return %m, %i, %d : tensor<2x5x3x6xf32>, tensor<3x2xi64>, tensor<2x2xf64>
}
