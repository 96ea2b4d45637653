//===- Pipelines.cpp - Halide pipelines of the graph kernels, per ISA -----===//
//
// The default GEMM tiles fill the register file as the hand-written kernels
// do, so the two can be compared loop for loop (docs/kernels.md):
//   x86 (AVX2, 16 ymm):  6 x 16, 12 accumulators, as kiln_sgemm;
//   NEON (32 q regs):    6 x 16, 24 accumulators, 4 of B, A's broadcasts;
//   HVX:                 Halide 14 has no float HVX vectors (HVX float is
//                        v68+), so the f32 pipelines are scalar code for the
//                        Hexagon core: 4 x 4, 16 accumulators of the 32
//                        general registers, two multiply-adds a packet.
// The depthwise convolution keeps all taps of an output in one register
// (one store per output) and vectorizes along the output row.
//
#include "kernels/halide/Pipelines.h"

namespace kiln::halide {
using namespace Halide;

bool parseIsa(const std::string &name, Isa &isa) {
  if (name == "x86")
    isa = Isa::X86;
  else if (name == "neon")
    isa = Isa::Neon;
  else if (name == "hvx")
    isa = Isa::Hvx;
  else
    return false;
  return true;
}

Target halideTarget(Isa isa) {
  std::string t;
  switch (isa) {
  case Isa::X86: t = "x86-64-linux-sse41-avx-avx2-f16c-fma"; break;
  case Isa::Neon: t = "arm-64-linux"; break;
  case Isa::Hvx: t = "hexagon-32-noos-hvx-hvx_128"; break;
  }
  return Target(t + "-no_runtime-no_asserts-no_bounds_query");
}

namespace {
// f32 lanes of one vector register; 0 where f32 is not vectorized.
int lanes(Isa isa) {
  switch (isa) {
  case Isa::X86: return 8;
  case Isa::Neon: return 4;
  case Isa::Hvx: return 0;
  }
  return 0;
}

// Dense row-major bounds: dimension 0 is the contiguous one.
void denseBounds(OutputImageParam p, const std::vector<int> &extents) {
  int stride = 1;
  for (size_t d = 0; d < extents.size(); ++d) {
    p.dim((int)d).set_bounds(0, extents[d]).set_stride(stride);
    stride *= extents[d];
  }
}

bool fitsInt32(long long v) { return v > 0 && v <= 0x7fffffffLL; }
} // namespace

std::string checkShape(const GemmShape &s) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0)
    return "sgemm needs m, n and k >= 1";
  if (!fitsInt32((long long)s.m * s.k) || !fitsInt32((long long)s.k * s.n) ||
      !fitsInt32((long long)s.m * s.n))
    return "sgemm operands must have fewer than 2^31 elements";
  return "";
}

std::string checkShape(const DepthwiseShape &s) {
  if (s.channels <= 0 || s.outHeight <= 0 || s.outWidth <= 0 ||
      s.kernel <= 0 || s.stride <= 0)
    return "depthwise needs channels, output height and width, kernel and "
           "stride >= 1";
  long long ih = (long long)(s.outHeight - 1) * s.stride + s.kernel;
  long long iw = (long long)(s.outWidth - 1) * s.stride + s.kernel;
  if (!fitsInt32(ih * iw * s.channels) ||
      !fitsInt32((long long)s.outHeight * s.outWidth * s.channels))
    return "depthwise operands must have fewer than 2^31 elements";
  if (s.kernel > 11)
    return "depthwise kernels wider than 11 are not unrolled";
  return "";
}

GemmTile defaultTile(Isa isa) {
  switch (isa) {
  case Isa::X86: return {6, 16};
  case Isa::Neon: return {6, 16};
  case Isa::Hvx: return {4, 4};
  }
  return {4, 4};
}

std::string checkTile(const GemmTile &t, Isa isa) {
  if (t.rows < 1 || t.rows > 16 || t.cols < 1 || t.cols > 64)
    return "a GEMM tile has 1 to 16 rows and 1 to 64 columns";
  if (lanes(isa) && t.cols % lanes(isa))
    return "the tile's columns must be a multiple of the ISA's " +
           std::to_string(lanes(isa)) + " f32 lanes";
  return "";
}

Built sgemm(const GemmShape &s, Isa isa, const GemmTile &tile) {
  ImageParam A(Float(32), 2, "A"), B(Float(32), 2, "B");
  Var j("j"), i("i"), jo("jo"), io("io"), ji("ji"), ii("ii");
  Func acc("acc"), C("C");
  RDom k(0, s.k, "k");
  acc(j, i) = 0.0f;
  acc(j, i) += A(k, i) * B(j, k);
  C(j, i) = acc(j, i);
  denseBounds(A, {s.k, s.m});
  denseBounds(B, {s.n, s.k});
  denseBounds(C.output_buffer(), {s.n, s.m});

  const int vl = lanes(isa);
  int mr = tile.rows, nr = tile.cols;
  // A tile larger than the matrix would shift outside it.
  mr = std::min(mr, s.m);
  const bool vectorize = vl && nr % vl == 0 && s.n >= nr;
  if (!vectorize)
    nr = std::min(nr, s.n);
  C.tile(j, i, jo, io, ji, ii, nr, mr, TailStrategy::ShiftInwards).unroll(ii);
  acc.compute_at(C, jo).unroll(i);
  acc.update().reorder(j, i, k).unroll(i);
  if (vectorize) {
    C.vectorize(ji, vl);
    acc.vectorize(j, vl);
    acc.update().vectorize(j, vl).unroll(j);
  } else {
    C.unroll(ji);
    acc.unroll(j);
    acc.update().unroll(j);
  }
  return {C, {A, B}};
}

Built depthwise(const DepthwiseShape &s, Isa isa) {
  ImageParam in(Float(32), 3, "in"), w(Float(32), 3, "w");
  Var x("x"), y("y"), c("c"), xo("xo"), xi("xi");
  Func out("out");
  Expr sum = 0.0f;
  for (int kh = 0; kh < s.kernel; ++kh)
    for (int kw = 0; kw < s.kernel; ++kw)
      sum = sum + in(x * s.stride + kw, y * s.stride + kh, c) * w(kw, kh, c);
  out(x, y, c) = sum;
  const int iw = (s.outWidth - 1) * s.stride + s.kernel;
  const int ih = (s.outHeight - 1) * s.stride + s.kernel;
  denseBounds(in, {iw, ih, s.channels});
  denseBounds(w, {s.kernel, s.kernel, s.channels});
  denseBounds(out.output_buffer(), {s.outWidth, s.outHeight, s.channels});

  const int vl = lanes(isa);
  if (vl && s.outWidth >= 2 * vl)
    out.split(x, xo, xi, 2 * vl, TailStrategy::ShiftInwards)
        .vectorize(xi, vl)
        .unroll(xi);
  else if (vl && s.outWidth >= vl)
    out.vectorize(x, vl, TailStrategy::ShiftInwards);
  else if (s.outWidth >= 4)
    out.split(x, xo, xi, 4, TailStrategy::ShiftInwards).unroll(xi);
  return {out, {in, w}};
}

} // namespace kiln::halide
