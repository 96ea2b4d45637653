//===- Resize.cpp - Resize and Pad ----------------------------------------===//
//
// Kernels: resize.c (kiln_t_resize_axis) and pad.c (kiln_t_pad).
//
// Resize is lowered axis by axis: for every output index of a resized axis
// the converter works out, at compile time, which input indices contribute
// and with which weights, following the ONNX reference implementation
// (onnx/backend/test/case/node/resize.py, which produced the node tests):
// the coordinate transformation uses the "output width" scale * input
// width (not the rounded output size), neighbours outside the input repeat
// the edge element, and a crop coordinate outside [0, in-1] takes
// extrapolation_value.
#include "compiler/frontend/onnx/ops/Common.h"

#include "kernels/tensor/kiln_tensor.h"

#include <cmath>

namespace kiln::onnx {
namespace {
const std::vector<int32_t> kAll = {F32, F64, U8, I8, U16, I16,
                                   I32, I64, U32, U64, BOOL};

/// A scalar constant of `dtype` holding `v` (converted like a C cast).
Tensor &scalarConst(NodeContext &c, int32_t dtype, double v) {
  Tensor &t = c.temp(dtype, {});
  t.isConst = true;
  t.data.assign(dtypeSize(dtype), 0);
  switch (dtype) {
#define X(code, T)                                                             \
  case code: {                                                                 \
    T x = (T)v;                                                                \
    memcpy(t.data.data(), &x, sizeof(T));                                      \
    break;                                                                     \
  }
    KILN_FOR_NUMERIC_TYPES(X)
#undef X
  case BOOL:
    t.data[0] = v != 0;
    break;
  }
  return t;
}

/// The interpolation taps of one axis: for each output index, `taps` input
/// indices (edge-clamped, or -1 in the first slot for extrapolation) and
/// their weights.
struct AxisTaps {
  int64_t taps = 1;
  std::vector<int64_t> idx;
  std::vector<float> w;
};

struct ResizeParams {
  std::string mode, coord, nearest;
  double cubicA = -0.75;
  bool excludeOutside = false;
};

/// Input coordinate of output index x; false when it lies outside the crop
/// box (tf_crop_and_resize).
bool sourceCoord(const ResizeParams &rp, double x, int64_t in, double scale,
                 double outW, double roiStart, double roiEnd, double &xo) {
  const std::string &m = rp.coord;
  if (m == "half_pixel")
    xo = (x + 0.5) / scale - 0.5;
  else if (m == "pytorch_half_pixel")
    xo = outW == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  else if (m == "align_corners")
    xo = outW == 1 ? 0 : x * (double)(in - 1) / (outW - 1);
  else if (m == "asymmetric")
    xo = x / scale;
  else if (m == "tf_half_pixel_for_nn")
    xo = (x + 0.5) / scale;
  else { // tf_crop_and_resize
    xo = outW == 1 ? (roiEnd - roiStart) * (double)(in - 1) / 2
                   : x * (roiEnd - roiStart) * (double)(in - 1) / (outW - 1);
    xo += roiStart * (double)(in - 1);
    if (xo < 0 || xo > (double)(in - 1))
      return false;
  }
  return true;
}

/// The most taps (source index and weight) one axis's table may hold: the
/// tables are parameters of the library's call, built at compile time.
constexpr int64_t kMaxResizeTaps = int64_t(1) << 22;

AxisTaps axisTaps(const ResizeParams &rp, int64_t in, int64_t out,
                  double scale, double outW, double roiStart, double roiEnd) {
  AxisTaps t;
  t.taps = rp.mode == "nearest" ? 1 : rp.mode == "linear" ? 2 : 4;
  auto clampIdx = [&](int64_t i) { return std::clamp<int64_t>(i, 0, in - 1); };
  for (int64_t j = 0; j < out; ++j) {
    double x;
    if (!sourceCoord(rp, (double)j, in, scale, outW, roiStart, roiEnd, x)) {
      for (int64_t k = 0; k < t.taps; ++k) {
        t.idx.push_back(-1);
        t.w.push_back(0);
      }
      continue;
    }
    const double fl = std::floor(x);
    const int64_t f = (int64_t)fl;
    const double r = x - fl;
    if (rp.mode == "nearest") {
      int64_t pick = f;
      if (r != 0) {
        const std::string &nm = rp.nearest;
        bool up = nm == "round_prefer_floor" ? r > 0.5
                  : nm == "round_prefer_ceil" ? r >= 0.5
                  : nm == "ceil";
        pick = up ? f + 1 : f;
      }
      t.idx.push_back(clampIdx(pick));
      t.w.push_back(1);
    } else if (rp.mode == "linear") {
      t.idx.push_back(clampIdx(f));
      t.idx.push_back(clampIdx(f + 1));
      t.w.push_back((float)(1 - r));
      t.w.push_back((float)r);
    } else { // cubic, Keys' kernel with coefficient A
      const double A = rp.cubicA, s = 1 - r;
      double c[4] = {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
                     ((A + 2) * r - (A + 3)) * r * r + 1,
                     ((A + 2) * s - (A + 3)) * s * s + 1,
                     ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A};
      if (rp.excludeOutside) {
        double sum = 0;
        for (int k = 0; k < 4; ++k) {
          int64_t i = f - 1 + k;
          if (i < 0 || i >= in)
            c[k] = 0;
          sum += c[k];
        }
        for (double &v : c)
          v /= sum;
      }
      for (int k = 0; k < 4; ++k) {
        t.idx.push_back(clampIdx(f - 1 + k));
        t.w.push_back((float)c[k]);
      }
    }
  }
  return t;
}

/// True when the taps reproduce the input unchanged (axis not resized).
bool isIdentity(const AxisTaps &t, int64_t in, int64_t out) {
  if (in != out)
    return false;
  for (int64_t j = 0; j < out; ++j) {
    double own = 0;
    for (int64_t k = 0; k < t.taps; ++k) {
      int64_t i = t.idx[j * t.taps + k];
      float w = t.w[j * t.taps + k];
      if (i < 0 || (i != j && w != 0))
        return false;
      if (i == j)
        own += w;
    }
    if (own != 1)
      return false;
  }
  return true;
}

bool lowerResize(NodeContext &c) {
  if (!c.expectType(0, kAll))
    return false;
  Tensor *x = c.input(0);
  const int64_t rank = x->rank();
  if (rank > (int64_t)KILN_MAX_RANK_CXX)
    return c.fail("rank " + std::to_string(rank) +
                  " exceeds Kiln's maximum of 8");
  ResizeParams rp;
  rp.mode = c.getString("mode", "nearest");
  if (rp.mode != "nearest" && rp.mode != "linear" &&
      !(rp.mode == "cubic" && c.opset() >= 11))
    return c.unsupportedAttr("mode", rp.mode);
  float ext = 0;
  Tensor *scalesT = nullptr, *sizesT = nullptr, *roiT = nullptr;
  if (c.opset() < 11) {
    // Resize-10 (like Upsample): asymmetric coordinates, nearest rounds down.
    rp.coord = "asymmetric";
    rp.nearest = "floor";
    scalesT = c.input(1);
    if (!scalesT)
      return c.fail("input 1 (scales) is required");
  } else {
    rp.coord = c.getString("coordinate_transformation_mode", "half_pixel");
    static const std::vector<std::string> coords = {
        "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
        "tf_half_pixel_for_nn", "tf_crop_and_resize"};
    if (std::find(coords.begin(), coords.end(), rp.coord) == coords.end())
      return c.unsupportedAttr("coordinate_transformation_mode", rp.coord);
    rp.nearest = c.getString("nearest_mode", "round_prefer_floor");
    if (rp.nearest != "round_prefer_floor" &&
        rp.nearest != "round_prefer_ceil" && rp.nearest != "floor" &&
        rp.nearest != "ceil")
      return c.unsupportedAttr("nearest_mode", rp.nearest);
    rp.cubicA = c.getFloat("cubic_coeff_a", -0.75f);
    rp.excludeOutside = c.getInt("exclude_outside", 0) != 0;
    ext = c.getFloat("extrapolation_value", 0.0f);
    roiT = c.input(1);
    scalesT = c.input(2);
    sizesT = c.input(3);
    if (c.getInt("antialias", 0) != 0)
      return c.unsupportedAttr("antialias", std::to_string(c.getInt("antialias", 0)));
    std::string policy = c.getString("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch")
      return c.unsupportedAttr("keep_aspect_ratio_policy", policy);
  }
  if (scalesT && scalesT->numel() == 0)
    scalesT = nullptr;
  if (sizesT && sizesT->numel() == 0)
    sizesT = nullptr;
  if (!scalesT == !sizesT)
    return c.fail("exactly one of scales and sizes must be given");
  bool needsFloat = rp.mode != "nearest" || rp.coord == "tf_crop_and_resize";
  if (needsFloat && !isFloat(x->dtype))
    return c.fail("mode " + rp.mode + " with coordinate_transformation_mode " +
                  rp.coord + " needs a float or double input, not " +
                  dtypeName(x->dtype));
  if (x->dtype == F16)
    return c.fail("float16 inputs are not supported");

  // Axes (opset 18) select which dimensions scales/sizes/roi describe.
  std::vector<int64_t> axes = c.getInts("axes");
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  std::vector<bool> seen(rank, false);
  for (int64_t &a : axes) {
    int64_t orig = a;
    if (!normalizeAxis(a, rank) || seen[a])
      return c.fail("axes: " + std::to_string(orig) +
                    " is out of range or repeated for rank " +
                    std::to_string(rank));
    seen[a] = true;
  }
  const size_t na = axes.size();

  std::vector<double> scale(rank, 1.0), outW(rank), roiS(rank, 0),
      roiE(rank, 1);
  std::vector<int64_t> outShape = x->shape;
  for (int64_t d = 0; d < rank; ++d)
    outW[d] = (double)x->shape[d];
  if (scalesT) {
    if (!scalesT->isConst)
      return c.fail("scales ('" + scalesT->name + "') must be known at "
                    "compile time (Kiln compiles static shapes)");
    if (scalesT->dtype != F32)
      return c.fail("scales must be float");
    std::vector<double> s = scalesT->floats();
    if (s.size() != na)
      return c.fail("scales has " + std::to_string(s.size()) +
                    " elements for " + std::to_string(na) + " axes");
    for (size_t i = 0; i < na; ++i) {
      int64_t d = axes[i];
      float sf = (float)s[i];
      if (!(sf > 0))
        return c.fail("scales[" + std::to_string(i) + "] = " +
                      std::to_string(sf) + " must be positive");
      scale[d] = sf;
      double o = std::floor((double)sf * (double)x->shape[d]);
      if (!(o <= (double)c.maxTensorBytes()))
        return c.fail("scales[" + std::to_string(i) + "] = " +
                      std::to_string(sf) + " makes axis " + std::to_string(d) +
                      " longer than " + bytesLimitString(c.maxTensorBytes()) +
                      " elements");
      outShape[d] = (int64_t)o;
      // The reference multiplies in float32.
      outW[d] = (double)(sf * (float)x->shape[d]);
    }
  } else {
    std::vector<int64_t> s;
    if (!c.constInts(3, s))
      return false;
    if (s.size() != na)
      return c.fail("sizes has " + std::to_string(s.size()) +
                    " elements for " + std::to_string(na) + " axes");
    for (size_t i = 0; i < na; ++i) {
      int64_t d = axes[i];
      if (s[i] <= 0 || x->shape[d] == 0)
        return c.fail("sizes[" + std::to_string(i) + "] = " +
                      std::to_string(s[i]) + " is not a valid size for an "
                      "axis of " + std::to_string(x->shape[d]));
      outShape[d] = s[i];
      scale[d] = (double)s[i] / (double)x->shape[d];
      outW[d] = scale[d] * (double)x->shape[d];
    }
  }
  if (rp.coord == "tf_crop_and_resize") {
    if (!roiT || roiT->numel() == 0)
      return c.fail("coordinate_transformation_mode tf_crop_and_resize "
                    "needs the roi input");
    if (!roiT->isConst)
      return c.fail("roi ('" + roiT->name + "') must be known at compile "
                    "time");
    std::vector<double> r = roiT->floats();
    if (r.size() != 2 * na)
      return c.fail("roi has " + std::to_string(r.size()) +
                    " elements; expected 2 x " + std::to_string(na));
    for (size_t i = 0; i < na; ++i) {
      roiS[axes[i]] = r[i];
      roiE[axes[i]] = r[na + i];
    }
  }

  Tensor &out = c.output(0, x->dtype, outShape);
  // The tap tables below take time and memory per output position: an
  // output refused for its size must not build them first.
  if (!c.sizeError().empty())
    return c.fail(c.sizeError());
  if (out.numel() == 0)
    return true;
  for (int64_t d = 0; d < rank; ++d)
    if (x->shape[d] == 0)
      return c.fail("cannot resize an empty input");
  const int64_t taps = rp.mode == "nearest" ? 1 : rp.mode == "linear" ? 2 : 4;
  for (int64_t d = 0; d < rank; ++d)
    if (outShape[d] > kMaxResizeTaps / taps)
      return c.fail("resizing axis " + std::to_string(d) + " to " +
                    std::to_string(outShape[d]) + " positions needs " +
                    std::to_string(taps) + " taps each, more than Kiln's " +
                    "limit of " + std::to_string(kMaxResizeTaps) +
                    " taps per axis");

  // One call per resized axis, innermost first (the reference's order).
  std::vector<std::pair<int64_t, AxisTaps>> steps;
  for (int64_t d = rank - 1; d >= 0; --d) {
    AxisTaps t = axisTaps(rp, x->shape[d], outShape[d], scale[d], outW[d],
                          roiS[d], roiE[d]);
    if (!isIdentity(t, x->shape[d], outShape[d]))
      steps.emplace_back(d, std::move(t));
  }
  if (steps.empty()) {
    c.call("copy", {(int64_t)out.bytes()}, {}, {x}, {&out});
    return true;
  }
  Tensor *cur = x;
  std::vector<int64_t> curShape = x->shape;
  for (size_t s = 0; s < steps.size(); ++s) {
    int64_t d = steps[s].first;
    const AxisTaps &t = steps[s].second;
    curShape[d] = outShape[d];
    Tensor &next = s + 1 == steps.size() ? out : c.temp(x->dtype, curShape);
    std::vector<int64_t> p = {x->dtype, product(curShape, 0, d),
                              x->shape[d], outShape[d],
                              product(curShape, d + 1), t.taps};
    p.insert(p.end(), t.idx.begin(), t.idx.end());
    std::vector<float> f = {ext};
    f.insert(f.end(), t.w.begin(), t.w.end());
    if (Call *k = c.call("resize_axis", p, f, {cur}, {&next}))
      k->attrs = {{"axis", {d}}};
    cur = &next;
  }
  return true;
}

RegisterConverter resizeOp({"Resize"}, lowerResize);

// --- Pad -------------------------------------------------------------------

RegisterConverter padOp({"Pad"}, [](NodeContext &c) {
  if (!c.expectType(0, kAll))
    return false;
  Tensor *x = c.input(0);
  const int64_t rank = x->rank();
  if (rank > (int64_t)KILN_MAX_RANK_CXX)
    return c.fail("rank " + std::to_string(rank) +
                  " exceeds Kiln's maximum of 8");
  std::string modeName = c.getString("mode", "constant");
  int64_t mode;
  if (modeName == "constant")
    mode = KILN_PAD_CONSTANT;
  else if (modeName == "reflect")
    mode = KILN_PAD_REFLECT;
  else if (modeName == "edge")
    mode = KILN_PAD_EDGE;
  else
    return c.unsupportedAttr("mode", modeName);

  std::vector<int64_t> pads, axes;
  Tensor *value = nullptr;
  if (c.opset() < 11) {
    pads = c.getInts(c.opset() < 2 ? "paddings" : "pads");
    value = &scalarConst(c, x->dtype, c.getFloat("value", 0.0f));
  } else {
    if (!c.constInts(1, pads))
      return false;
    value = c.input(2);
    if (value && value->numel() == 0)
      value = nullptr;
    if (value && (value->dtype != x->dtype || value->numel() != 1))
      return c.fail("constant_value must be one element of the input's type");
    if (c.input(3) && !c.constInts(3, axes))
      return false;
  }
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  if (pads.size() != 2 * axes.size())
    return c.fail("pads has " + std::to_string(pads.size()) +
                  " elements; expected 2 x " + std::to_string(axes.size()));
  std::vector<int64_t> begin(rank, 0), end(rank, 0);
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i];
    if (!normalizeAxis(a, rank) || seen[a])
      return c.fail("axes: " + std::to_string(axes[i]) +
                    " is out of range or repeated for rank " +
                    std::to_string(rank));
    seen[a] = true;
    begin[a] = pads[i];
    end[a] = pads[axes.size() + i];
  }
  std::vector<int64_t> outShape(rank);
  for (int64_t d = 0; d < rank; ++d) {
    CheckedInt o = CheckedInt(x->shape[d]) + begin[d] + end[d];
    if (!o.ok())
      return c.fail("pads " + shapeString(pads) + " overflow 64-bit sizes");
    outShape[d] = o.value();
    if (outShape[d] < 0)
      return c.fail("pads crop more than the " + std::to_string(x->shape[d]) +
                    " elements of axis " + std::to_string(d));
    if (mode != KILN_PAD_CONSTANT && x->shape[d] == 0 && outShape[d] > 0)
      return c.fail("cannot pad an empty axis in " + modeName + " mode");
  }
  Tensor &out = c.output(0, x->dtype, outShape);
  if (out.numel() == 0)
    return true;
  if (rank == 0) {
    c.call("copy", {(int64_t)out.bytes()}, {}, {x}, {&out});
    return true;
  }
  std::vector<int64_t> p = {(int64_t)dtypeSize(x->dtype), mode, rank};
  p.insert(p.end(), x->shape.begin(), x->shape.end());
  p.insert(p.end(), outShape.begin(), outShape.end());
  p.insert(p.end(), begin.begin(), begin.end());
  c.call("pad", p, {}, {x, value}, {&out});
  return true;
});
} // namespace

void linkResizeOps() {}
} // namespace kiln::onnx
