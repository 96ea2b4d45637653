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

// A 1x1 convolution of stride 1 without padding is a GEMM as it stands
// (per image and group W [M/group, C/group] times X [C/group, positions]):
// kiln.tensor_op "halide_conv", the conv call's parameters, no scratch. A
// padded 3x3 convolution keeps the C kernel and its scratch.
// HALIDE-LABEL: func.func @convs
// HALIDE: kiln.tensor_op "halide_conv"(%arg0, %arg1, %arg2) {node = "p", onnx_op = "Conv", params = array<i64: 2, 1, 4, 6, 1, 25, 1, 5, 5, 1, 1, 5, 5, 1, 1, 1, 1, 0, 0, 0>} :
// HALIDE: kiln.tensor_op "conv"(%arg0, %arg3) {node = "q", onnx_op = "Conv", params = array<i64: 2, 1, 4, 6, 1, 25, 0, {{.*}}scratch = 19984 : i64
// C-LABEL: func.func @convs
// C-NOT: halide
// C: kiln.tensor_op "conv"(%arg0, %arg1, %arg2) {node = "p", onnx_op = "Conv", params = array<i64: 2, 1, 4, 6, 1, 25, 1, 5, 5, 1, 1, 5, 5, 1, 1, 1, 1, 0, 0, 0>, scratch = 16384 : i64}
// C-NOT: halide
func.func @convs(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x1x1xf32>,
                 %b: tensor<6xf32>, %w3: tensor<6x4x3x3xf32>)
    -> (tensor<1x6x5x5xf32>, tensor<1x6x5x5xf32>) {
  %p = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, node = "p", onnx_op = "Conv", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<6x4x1x1xf32>, tensor<6xf32>) -> tensor<1x6x5x5xf32>
  %q = kiln.conv %x, %w3 {dilations = array<i64: 1, 1>, group = 1 : i64, node = "q", onnx_op = "Conv", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x5x5xf32>
  return %p, %q : tensor<1x6x5x5xf32>, tensor<1x6x5x5xf32>
}
