//===- Pipelines.h - Halide pipelines of the graph kernels, per ISA -------===//
//
// The f32 GEMM that convolutions and matrix products share (kiln_sgemm) and
// the depthwise 2-D convolution (conv_depthwise2d), written as Halide
// algorithms with a schedule per ISA, for the shape of one call. They are
// compiled ahead of time (Halide 14, its own LLVM 14) by kiln-halide-gen into
// objects with no Halide runtime: fixed bounds, no asserts, no heap, no
// threads, so the objects need nothing from the program that links them.
//
// Only kiln-halide-gen includes this header: Halide.h is large and brings
// LLVM 14's view of the world; nothing of the compiler (LLVM 16) sees it.
//
#ifndef KILN_KERNELS_HALIDE_PIPELINES_H
#define KILN_KERNELS_HALIDE_PIPELINES_H

#include "Halide.h"

#include <string>
#include <vector>

namespace kiln::halide {

// Kiln's ISA names (kilnc --target). SVE and RVV are not here: Halide 14 has
// no SVE code generation and no vector-length-agnostic RVV.
enum class Isa { X86, Neon, Hvx };
bool parseIsa(const std::string &name, Isa &isa);
// The Halide target: the ISA's features plus no_runtime, no_asserts and
// no_bounds_query.
Halide::Target halideTarget(Isa isa);

// C[i, j] = sum_k A[i, k] * B[k, j]; A is m x k, B k x n, C m x n, all
// row-major and dense: kiln_sgemm with alpha 1, no bias, no accumulation.
// Function arguments: (A, B, C).
struct GemmShape {
  int m = 0, n = 0, k = 0;
};

// One channel per group: out[c, oh, ow] = sum over (kh, kw) of
// in[c, oh * stride + kh, ow * stride + kw] * w[c, kh, kw], the taps in
// im2col's order from 0. `in` is the zero-padded input (what pad_rows
// builds): channels x ((oh - 1) * stride + kernel) x ((ow - 1) * stride +
// kernel). Function arguments: (in, w, out).
struct DepthwiseShape {
  int channels = 0, outHeight = 0, outWidth = 0, kernel = 0, stride = 0;
};

// The register tile of C: rows of A x columns of B (a multiple of the ISA's
// f32 lanes).
struct GemmTile {
  int rows = 0, cols = 0;
};
GemmTile defaultTile(Isa isa);

struct Built {
  Halide::Func output;
  std::vector<Halide::Argument> args;
};

// An empty string on success, else what is wrong with the shape.
std::string checkShape(const GemmShape &s);
std::string checkShape(const DepthwiseShape &s);
std::string checkTile(const GemmTile &t, Isa isa);

Built sgemm(const GemmShape &shape, Isa isa, const GemmTile &tile);
Built depthwise(const DepthwiseShape &shape, Isa isa);

} // namespace kiln::halide

#endif
