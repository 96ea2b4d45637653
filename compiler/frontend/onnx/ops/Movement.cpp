//===- Movement.cpp - reshapes, Transpose, Concat/Split, Slice, Gather... -===//
//
// Operators that move elements (kernels in movement.c). Shape-only operators
// (Reshape, Flatten, Squeeze, Unsqueeze) copy their input unchanged; the
// strided views (Transpose, Slice, Expand, Tile, DepthToSpace, SpaceToDepth)
// all become one kiln_t_strided_copy whose strides are worked out here.
// Everything that decides an output shape (Reshape's shape, Slice's starts,
// Split's sizes, Tile's repeats, ...) must be a compile-time constant.
//
#include "compiler/frontend/onnx/ops/Common.h"
#include "kernels/tensor/kiln_tensor.h"

#include <cmath>
#include <set>

namespace kiln::onnx {
namespace {

const std::vector<int32_t> kNumeric = {F32, F64, U8, I8, U16, I16,
                                       I32, I64, U32, U64};

/// Input 0 must be present and of a type Kiln can hold.
bool needData(NodeContext &c, size_t i = 0) {
  Tensor *x = c.input(i);
  if (!x)
    return c.fail("input " + std::to_string(i) + " is required");
  if (dtypeSize(x->dtype) == 0)
    return c.fail("input " + std::to_string(i) + " has element type " +
                  dtypeName(x->dtype) + ", which Kiln does not support");
  return true;
}

/// Output 0 holds x's elements unchanged under a new shape.
bool emitReshaped(NodeContext &c, Tensor *x, std::vector<int64_t> shape) {
  if (product(shape) != x->numel())
    return c.fail("cannot reshape " + shapeString(x->shape) + " to " +
                  shapeString(shape));
  Tensor &out = c.output(0, x->dtype, std::move(shape));
  c.call("copy", {(int64_t)out.bytes()}, {}, {x}, {&out});
  return true;
}

/// Axes from attribute `name` before opset `inputFrom`, else from input 1
/// (optional when `optional`). `present` tells whether any were given.
bool readAxes(NodeContext &c, const char *name, int64_t inputFrom,
              std::vector<int64_t> &axes, bool &present) {
  if (c.opset() < inputFrom) {
    present = c.has(name);
    axes = c.getInts(name);
    return true;
  }
  present = c.input(1) != nullptr;
  return !present || c.constInts(1, axes);
}

/// Constant indices must lie in [-dim, dim).
bool checkIndices(NodeContext &c, Tensor *idx, int64_t dim) {
  if (!idx->isConst)
    return true;
  for (int64_t k : idx->ints())
    if (k < -dim || k >= dim)
      return c.fail("index " + std::to_string(k) +
                    " is out of range for a dimension of size " +
                    std::to_string(dim));
  return true;
}

bool indexType(NodeContext &c, size_t i) { return c.expectType(i, {I32, I64}); }

/// gather_elements and scatter_elements walk an index of KILN_MAX_RANK.
bool maxRank(NodeContext &c, Tensor *x) {
  if (x->shape.size() <= KILN_MAX_RANK_CXX)
    return true;
  return c.fail("rank " + std::to_string(x->rank()) +
                " exceeds Kiln's maximum of 8");
}

bool readReduction(NodeContext &c, Tensor *x, int64_t &red) {
  std::string r = c.getString("reduction", "none");
  if (r == "none")
    red = KILN_SCATTER_NONE;
  else if (r == "add")
    red = KILN_SCATTER_ADD;
  else if (r == "mul")
    red = KILN_SCATTER_MUL;
  else if (r == "max")
    red = KILN_SCATTER_MAX;
  else if (r == "min")
    red = KILN_SCATTER_MIN;
  else
    return c.unsupportedAttr("reduction", r);
  if (red != KILN_SCATTER_NONE && (x->dtype == F16 || x->dtype == BOOL))
    return c.fail("reduction=" + r + " is not supported for element type " +
                  dtypeName(x->dtype));
  return true;
}
} // namespace

bool emitStridedCopy(NodeContext &c, Tensor *x, Tensor &out,
                     const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &strides, int64_t offset) {
  if (!c.sizeError().empty())
    return true; // the graph walk reports the output's size
  std::vector<int64_t> p;
  int64_t rank = 0;
  if (!planStridedCopy((int64_t)dtypeSize(x->dtype), offset, shape, strides,
                       p, rank))
    return c.fail("the copy needs " + std::to_string(rank) +
                  " dimensions after merging; Kiln's maximum is 16");
  if (Call *k = c.call("strided_copy", p, {}, {x}, {&out}))
    k->attrs = {{"offset", {offset}}, {"shape", shape}, {"strides", strides}};
  return true;
}

namespace {
/// Output 0 = x viewed as `view` (same elements, row-major) then transposed
/// by `perm`, reshaped to `outShape`.
bool emitPermuted(NodeContext &c, Tensor *x, const std::vector<int64_t> &view,
                  const std::vector<int64_t> &perm,
                  std::vector<int64_t> outShape) {
  std::vector<int64_t> dense = denseStrides(view), shape, strides;
  for (int64_t a : perm) {
    shape.push_back(view[a]);
    strides.push_back(dense[a]);
  }
  Tensor &out = c.output(0, x->dtype, std::move(outShape));
  return emitStridedCopy(c, x, out, shape, strides, 0);
}

// --- shape-only operators ------------------------------------------------------

RegisterConverter reshapeOp({"Reshape"}, [](NodeContext &c) {
  if (!needData(c))
    return false;
  Tensor *x = c.input(0);
  std::vector<int64_t> shape; // an attribute before opset 5 (< kMinOpset)
  if (!c.constInts(1, shape))
    return false;
  bool allowzero = c.getInt("allowzero", 0) != 0;
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= x->shape.size())
        return c.fail("shape entry " + std::to_string(i) +
                      " is 0 (copy) but the input has rank " +
                      std::to_string(x->rank()));
      shape[i] = x->shape[i];
    }
    if (shape[i] == -1) {
      if (infer >= 0)
        return c.fail("shape " + shapeString(shape) + " has more than one -1");
      infer = (int64_t)i;
      continue;
    }
    if (shape[i] < 0)
      return c.fail("shape entry " + std::to_string(shape[i]) +
                    " is invalid");
    // The product of the known entries must equal the input's element count
    // (or divide it), which fits: one that leaves 64 bits cannot.
    if (__builtin_mul_overflow(known, shape[i], &known))
      return c.fail("shape " + shapeString(shape) + " has " +
                    "more elements than the input's " +
                    std::to_string(x->numel()));
  }
  if (infer >= 0) {
    if (known == 0 || x->numel() % known)
      return c.fail("cannot infer the -1 of shape " + shapeString(shape) +
                    " for an input of shape " + shapeString(x->shape));
    shape[infer] = x->numel() / known;
  }
  return emitReshaped(c, x, shape);
});

RegisterConverter flattenOp({"Flatten"}, [](NodeContext &c) {
  if (!needData(c))
    return false;
  Tensor *x = c.input(0);
  int64_t axis = c.getInt("axis", 1), r = x->rank();
  if (axis < -r || axis > r)
    return c.fail("axis " + std::to_string(axis) + " is out of range for rank " +
                  std::to_string(r));
  if (axis < 0)
    axis += r;
  return emitReshaped(c, x, {product(x->shape, 0, axis),
                             product(x->shape, axis)});
});

RegisterConverter squeezeOp({"Squeeze"}, [](NodeContext &c) {
  if (!needData(c))
    return false;
  Tensor *x = c.input(0);
  std::vector<int64_t> axes;
  bool present;
  if (!readAxes(c, "axes", 13, axes, present))
    return false;
  std::set<int64_t> drop;
  for (int64_t a : axes) {
    if (!normalizeAxis(a, x->rank()))
      return c.fail("axis " + std::to_string(a) + " is out of range for rank " +
                    std::to_string(x->rank()));
    if (x->shape[a] != 1)
      return c.fail("cannot squeeze axis " + std::to_string(a) + " of size " +
                    std::to_string(x->shape[a]));
    drop.insert(a);
  }
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < x->rank(); ++d)
    if (present ? !drop.count(d) : x->shape[d] != 1)
      shape.push_back(x->shape[d]);
  return emitReshaped(c, x, shape);
});

RegisterConverter unsqueezeOp({"Unsqueeze"}, [](NodeContext &c) {
  if (!needData(c))
    return false;
  Tensor *x = c.input(0);
  std::vector<int64_t> axes;
  bool present;
  if (!readAxes(c, "axes", 13, axes, present))
    return false;
  if (!present)
    return c.fail("axes are required");
  int64_t r = x->rank() + (int64_t)axes.size();
  std::set<int64_t> add;
  for (int64_t a : axes) {
    if (!normalizeAxis(a, r) || !add.insert(a).second)
      return c.fail("axes " + shapeString(axes) + " are invalid for rank " +
                    std::to_string(x->rank()));
  }
  std::vector<int64_t> shape;
  size_t next = 0;
  for (int64_t d = 0; d < r; ++d)
    shape.push_back(add.count(d) ? 1 : x->shape[next++]);
  return emitReshaped(c, x, shape);
});

// --- strided views -------------------------------------------------------------

RegisterConverter transposeOp({"Transpose"}, [](NodeContext &c) {
  if (!needData(c))
    return false;
  Tensor *x = c.input(0);
  int64_t r = x->rank();
  std::vector<int64_t> perm = c.getInts("perm");
  if (!c.has("perm"))
    for (int64_t d = r - 1; d >= 0; --d)
      perm.push_back(d);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t d = 0; d < r; ++d)
    if ((int64_t)sorted.size() != r || sorted[d] != d)
      return c.fail("perm " + shapeString(perm) +
                    " is not a permutation of the input's " +
                    std::to_string(r) + " axes");
  std::vector<int64_t> shape;
  for (int64_t a : perm)
    shape.push_back(x->shape[a]);
  return emitPermuted(c, x, x->shape, perm, shape);
});

RegisterConverter sliceOp({"Slice"}, [](NodeContext &c) {
  if (!needData(c))
    return false;
  Tensor *x = c.input(0);
  int64_t r = x->rank();
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset() < 10) {
    starts = c.getInts("starts");
    ends = c.getInts("ends");
    axes = c.getInts("axes");
  } else {
    if (!c.constInts(1, starts) || !c.constInts(2, ends))
      return false;
    if (c.input(3) && !c.constInts(3, axes))
      return false;
    if (c.input(4) && !c.constInts(4, steps))
      return false;
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back((int64_t)i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return c.fail("starts, ends, axes and steps have different lengths");
  std::vector<int64_t> shape = x->shape, dense = denseStrides(x->shape);
  std::vector<int64_t> strides = dense;
  std::vector<bool> seen(r, false);
  int64_t offset = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes[i], step = steps[i];
    if (!normalizeAxis(a, r) || seen[a])
      return c.fail("axes " + shapeString(axes) + " are invalid for rank " +
                    std::to_string(r));
    seen[a] = true;
    if (step == 0)
      return c.fail("steps must not be 0");
    int64_t dim = x->shape[a], s = starts[i], e = ends[i];
    // A step past the axis selects at most one element, whichever its size:
    // bounding it keeps the length and stride arithmetic in range.
    step = std::clamp<int64_t>(step, -(dim + 1), dim + 1);
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    int64_t len;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      len = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      len = s > e ? (s - e - step - 1) / -step : 0;
    }
    shape[a] = len;
    strides[a] = step * dense[a];
    if (len > 0)
      offset += s * dense[a];
  }
  Tensor &out = c.output(0, x->dtype, shape);
  return emitStridedCopy(c, x, out, shape, strides, offset);
});

RegisterConverter expandOp({"Expand"}, [](NodeContext &c) {
  if (!needData(c))
    return false;
  Tensor *x = c.input(0);
  std::vector<int64_t> target, shape;
  if (!c.constInts(1, target))
    return false;
  if (!broadcastShapes(x->shape, target, shape))
    return c.fail("input shape " + shapeString(x->shape) +
                  " does not broadcast to " + shapeString(target));
  Tensor &out = c.output(0, x->dtype, shape);
  return emitStridedCopy(c, x, out, shape, broadcastStrides(x->shape, shape),
                         0);
});

// Tile reads x as the view [r0, d0, r1, d1, ...] with stride 0 on each
// repeat dimension.
RegisterConverter tileOp({"Tile"}, [](NodeContext &c) {
  if (!needData(c))
    return false;
  Tensor *x = c.input(0);
  std::vector<int64_t> repeats;
  if (!c.constInts(1, repeats))
    return false;
  if ((int64_t)repeats.size() != x->rank())
    return c.fail("repeats has " + std::to_string(repeats.size()) +
                  " entries for an input of rank " + std::to_string(x->rank()));
  std::vector<int64_t> dense = denseStrides(x->shape), view, strides, shape;
  for (size_t d = 0; d < repeats.size(); ++d) {
    if (repeats[d] < 0)
      return c.fail("repeats must not be negative");
    int64_t dim;
    if (__builtin_mul_overflow(repeats[d], x->shape[d], &dim))
      return c.fail("repeats " + shapeString(repeats) + " of shape " +
                    shapeString(x->shape) +
                    " give a dimension that does not fit in 64 bits");
    view.insert(view.end(), {repeats[d], x->shape[d]});
    strides.insert(strides.end(), {0, dense[d]});
    shape.push_back(dim);
  }
  Tensor &out = c.output(0, x->dtype, shape);
  return emitStridedCopy(c, x, out, view, strides, 0);
});

RegisterConverter depthSpaceOps({"DepthToSpace", "SpaceToDepth"},
                                [](NodeContext &c) {
  if (!needData(c))
    return false;
  Tensor *x = c.input(0);
  if (x->rank() != 4)
    return c.fail("expects a 4-d input, got " + shapeString(x->shape));
  int64_t b = c.getInt("blocksize", 0);
  if (b <= 0)
    return c.fail("blocksize must be positive");
  int64_t n = x->shape[0], ch = x->shape[1], h = x->shape[2], w = x->shape[3];
  const CheckedInt bb = CheckedInt(b) * b;
  if (!(CheckedInt(ch) * bb).ok() || !(CheckedInt(h) * b).ok() ||
      !(CheckedInt(w) * b).ok())
    return c.fail("blocksize " + std::to_string(b) +
                  " overflows 64-bit sizes for input " + shapeString(x->shape));
  if (c.opType() == "SpaceToDepth") {
    if (h % b || w % b)
      return c.fail("height and width must be multiples of blocksize");
    return emitPermuted(c, x, {n, ch, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4},
                        {n, ch * b * b, h / b, w / b});
  }
  if (ch % (b * b))
    return c.fail("channels must be a multiple of blocksize^2");
  std::string mode = c.getString("mode", "DCR");
  std::vector<int64_t> out = {n, ch / (b * b), h * b, w * b};
  if (mode == "DCR")
    return emitPermuted(c, x, {n, b, b, ch / (b * b), h, w},
                        {0, 3, 4, 1, 5, 2}, out);
  if (mode == "CRD")
    return emitPermuted(c, x, {n, ch / (b * b), b, b, h, w},
                        {0, 1, 4, 2, 5, 3}, out);
  return c.unsupportedAttr("mode", mode);
});

// --- joining and splitting -------------------------------------------------------

RegisterConverter concatOp({"Concat"}, [](NodeContext &c) {
  size_t n = c.numInputs();
  if (n == 0)
    return c.fail("expects at least one input");
  for (size_t i = 0; i < n; ++i)
    if (!needData(c, i))
      return false;
  Tensor *x0 = c.input(0);
  if (!c.has("axis")) // required since opset 4 (< kMinOpset)
    return c.fail("attribute axis is required");
  int64_t axis = c.getInt("axis", 0);
  if (!normalizeAxis(axis, x0->rank()))
    return c.fail("axis " + std::to_string(axis) + " is out of range for rank " +
                  std::to_string(x0->rank()));
  std::vector<int64_t> shape = x0->shape;
  shape[axis] = 0;
  std::vector<int64_t> p = {(int64_t)n, product(x0->shape, 0, axis)};
  std::vector<Tensor *> ins;
  for (size_t i = 0; i < n; ++i) {
    Tensor *t = c.input(i);
    bool same = t->dtype == x0->dtype && t->rank() == x0->rank();
    for (int64_t d = 0; same && d < x0->rank(); ++d)
      same = d == axis || t->shape[d] == x0->shape[d];
    if (!same)
      return c.fail("input " + std::to_string(i) + " (" +
                    dtypeName(t->dtype) + " " + shapeString(t->shape) +
                    ") does not match input 0 (" + dtypeName(x0->dtype) + " " +
                    shapeString(x0->shape) + ") off the axis");
    shape[axis] += t->shape[axis];
    p.push_back(product(t->shape, axis) * (int64_t)dtypeSize(t->dtype));
    ins.push_back(t);
  }
  Tensor &out = c.output(0, x0->dtype, shape);
  if (Call *k = c.call("concat", p, {}, ins, {&out}))
    k->attrs = {{"axis", {axis}}};
  return true;
});

RegisterConverter splitOp({"Split"}, [](NodeContext &c) {
  if (!needData(c))
    return false;
  Tensor *x = c.input(0);
  int64_t axis = c.getInt("axis", 0);
  if (!normalizeAxis(axis, x->rank()))
    return c.fail("axis " + std::to_string(axis) + " is out of range for rank " +
                  std::to_string(x->rank()));
  int64_t dim = x->shape[axis];
  size_t n = c.declaredOutputs().size();
  std::vector<int64_t> sizes;
  if (c.opset() < 13 && c.has("split"))
    sizes = c.getInts("split");
  else if (c.opset() >= 13 && c.input(1)) {
    if (!c.constInts(1, sizes))
      return false;
  } else if (c.opset() >= 18 && c.has("num_outputs")) {
    // ceil(dim / n) each, the last one smaller
    int64_t k = c.getInt("num_outputs", 0);
    if (k <= 0 || (size_t)k != n)
      return c.fail("num_outputs=" + std::to_string(k) + " but the node has " +
                    std::to_string(n) + " outputs");
    int64_t each = (dim + k - 1) / k;
    for (int64_t i = 0; i < k; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(each, dim - i * each)));
  } else {
    if (n == 0 || dim % (int64_t)n)
      return c.fail("dimension " + std::to_string(dim) +
                    " does not split into " + std::to_string(n) +
                    " equal parts");
    sizes.assign(n, dim / (int64_t)n);
  }
  if (sizes.size() != n)
    return c.fail("split has " + std::to_string(sizes.size()) +
                  " entries for " + std::to_string(n) + " outputs");
  CheckedInt total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return c.fail("split sizes must not be negative");
    total = total + s;
  }
  if (!total.ok() || total.value() != dim)
    return c.fail("split sizes " + shapeString(sizes) + " do not add up to " +
                  std::to_string(dim));
  std::vector<int64_t> p = {(int64_t)n, product(x->shape, 0, axis)};
  int64_t inner = product(x->shape, axis + 1) * (int64_t)dtypeSize(x->dtype);
  std::vector<Tensor *> outs;
  for (size_t i = 0; i < n; ++i) {
    std::vector<int64_t> shape = x->shape;
    shape[axis] = sizes[i];
    outs.push_back(&c.output(i, x->dtype, shape));
    p.push_back(sizes[i] * inner);
  }
  if (Call *k = c.call("split", p, {}, {x}, outs))
    k->attrs = {{"axis", {axis}}};
  return true;
});

// --- gathers and scatters ----------------------------------------------------------

RegisterConverter gatherOp({"Gather"}, [](NodeContext &c) {
  if (!needData(c) || !indexType(c, 1))
    return false;
  Tensor *x = c.input(0), *idx = c.input(1);
  int64_t axis = c.getInt("axis", 0);
  if (!normalizeAxis(axis, x->rank()))
    return c.fail("axis " + std::to_string(axis) + " is out of range for rank " +
                  std::to_string(x->rank()));
  int64_t dim = x->shape[axis];
  if (!checkIndices(c, idx, dim))
    return false;
  if (dim == 0 && idx->numel() > 0)
    return c.fail("cannot gather from an empty axis");
  std::vector<int64_t> shape(x->shape.begin(), x->shape.begin() + axis);
  shape.insert(shape.end(), idx->shape.begin(), idx->shape.end());
  shape.insert(shape.end(), x->shape.begin() + axis + 1, x->shape.end());
  if (shape.size() > KILN_MAX_RANK_CXX)
    return c.fail("output rank exceeds Kiln's maximum of 8");
  Tensor &out = c.output(0, x->dtype, shape);
  if (Call *k = c.call("gather",
                       {(int64_t)dtypeSize(x->dtype), idx->dtype,
                        product(x->shape, 0, axis), dim,
                        product(x->shape, axis + 1), idx->numel()},
                       {}, {x, idx}, {&out}))
    k->attrs = {{"axis", {axis}}};
  return true;
});

RegisterConverter gatherElementsOp({"GatherElements"}, [](NodeContext &c) {
  if (!needData(c) || !indexType(c, 1))
    return false;
  Tensor *x = c.input(0), *idx = c.input(1);
  if (!maxRank(c, x))
    return false;
  int64_t axis = c.getInt("axis", 0);
  if (!normalizeAxis(axis, x->rank()) || idx->rank() != x->rank())
    return c.fail("axis or indices rank do not match the data's rank");
  for (int64_t d = 0; d < x->rank(); ++d)
    if (d != axis && idx->shape[d] > x->shape[d])
      return c.fail("indices shape " + shapeString(idx->shape) +
                    " exceeds data shape " + shapeString(x->shape));
  if (!checkIndices(c, idx, x->shape[axis]))
    return false;
  Tensor &out = c.output(0, x->dtype, idx->shape);
  std::vector<int64_t> p = {(int64_t)dtypeSize(x->dtype), idx->dtype,
                            x->rank(), axis, x->shape[axis]};
  p.insert(p.end(), idx->shape.begin(), idx->shape.end());
  auto st = denseStrides(x->shape);
  p.insert(p.end(), st.begin(), st.end());
  if (Call *k = c.call("gather_elements", p, {}, {x, idx}, {&out}))
    k->attrs = {{"axis", {axis}}};
  return true;
});

RegisterConverter scatterElementsOp({"ScatterElements", "Scatter"},
                                    [](NodeContext &c) {
  if (!needData(c) || !indexType(c, 1) || !needData(c, 2))
    return false;
  Tensor *x = c.input(0), *idx = c.input(1), *upd = c.input(2);
  int64_t red = KILN_SCATTER_NONE;
  if (!readReduction(c, x, red) || !maxRank(c, x))
    return false;
  int64_t axis = c.getInt("axis", 0);
  if (!normalizeAxis(axis, x->rank()) || idx->rank() != x->rank() ||
      upd->shape != idx->shape || upd->dtype != x->dtype)
    return c.fail("axis, indices or updates do not match the data");
  for (int64_t d = 0; d < x->rank(); ++d)
    if (d != axis && idx->shape[d] > x->shape[d])
      return c.fail("indices shape " + shapeString(idx->shape) +
                    " exceeds data shape " + shapeString(x->shape));
  if (!checkIndices(c, idx, x->shape[axis]))
    return false;
  Tensor &out = c.output(0, x->dtype, x->shape);
  std::vector<int64_t> p = {x->dtype, red, idx->dtype, x->rank(), axis,
                            x->shape[axis], x->numel()};
  p.insert(p.end(), idx->shape.begin(), idx->shape.end());
  auto st = denseStrides(x->shape);
  p.insert(p.end(), st.begin(), st.end());
  if (Call *k = c.call("scatter_elements", p, {}, {x, idx, upd}, {&out}))
    k->attrs = {{"axis", {axis}}};
  return true;
});

RegisterConverter gatherNDOp({"GatherND"}, [](NodeContext &c) {
  if (!needData(c) || !c.expectType(1, {I64}))
    return false;
  Tensor *x = c.input(0), *idx = c.input(1);
  int64_t b = c.getInt("batch_dims", 0), r = x->rank(), q = idx->rank();
  if (q < 1 || b < 0 || b >= std::min(r, q))
    return c.fail("batch_dims=" + std::to_string(b) + " is invalid");
  int64_t k = idx->shape.back();
  if (k < 1 || k > r - b)
    return c.fail("the indices' last dimension is out of range");
  for (int64_t d = 0; d < b; ++d)
    if (idx->shape[d] != x->shape[d])
      return c.fail("batch dimensions of data and indices differ");
  std::vector<int64_t> shape(idx->shape.begin(), idx->shape.end() - 1);
  shape.insert(shape.end(), x->shape.begin() + b + k, x->shape.end());
  std::vector<int64_t> dims(x->shape.begin() + b, x->shape.begin() + b + k);
  std::vector<int64_t> inner(x->shape.begin() + b, x->shape.end());
  std::vector<int64_t> st = denseStrides(inner);
  st.resize(k);
  if (idx->isConst) {
    auto v = idx->ints();
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] < -dims[i % k] || v[i] >= dims[i % k])
        return c.fail("index " + std::to_string(v[i]) + " is out of range");
  }
  Tensor &out = c.output(0, x->dtype, shape);
  std::vector<int64_t> p = {(int64_t)dtypeSize(x->dtype),
                            idx->dtype,
                            product(x->shape, 0, b),
                            product(idx->shape, b, q - 1),
                            k,
                            product(x->shape, b + k),
                            product(x->shape, b)};
  p.insert(p.end(), dims.begin(), dims.end());
  p.insert(p.end(), st.begin(), st.end());
  if (Call *k = c.call("gather_nd", p, {}, {x, idx}, {&out}))
    k->attrs = {{"batch_dims", {b}}};
  return true;
});

RegisterConverter scatterNDOp({"ScatterND"}, [](NodeContext &c) {
  if (!needData(c) || !c.expectType(1, {I64}) || !needData(c, 2))
    return false;
  Tensor *x = c.input(0), *idx = c.input(1), *upd = c.input(2);
  int64_t red = KILN_SCATTER_NONE;
  if (!readReduction(c, x, red))
    return false;
  int64_t r = x->rank(), q = idx->rank();
  int64_t k = q ? idx->shape.back() : 0;
  if (q < 1 || k < 1 || k > r)
    return c.fail("the indices' last dimension is out of range");
  std::vector<int64_t> ushape(idx->shape.begin(), idx->shape.end() - 1);
  ushape.insert(ushape.end(), x->shape.begin() + k, x->shape.end());
  if (upd->shape != ushape || upd->dtype != x->dtype)
    return c.fail("updates are " + shapeString(upd->shape) + ", expected " +
                  shapeString(ushape) + " of the data's type");
  std::vector<int64_t> dims(x->shape.begin(), x->shape.begin() + k);
  std::vector<int64_t> st = denseStrides(x->shape);
  st.resize(k);
  if (idx->isConst) {
    auto v = idx->ints();
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] < -dims[i % k] || v[i] >= dims[i % k])
        return c.fail("index " + std::to_string(v[i]) + " is out of range");
  }
  Tensor &out = c.output(0, x->dtype, x->shape);
  std::vector<int64_t> p = {x->dtype, red, idx->dtype, x->numel(),
                            product(idx->shape, 0, q - 1), k,
                            product(x->shape, k)};
  p.insert(p.end(), dims.begin(), dims.end());
  p.insert(p.end(), st.begin(), st.end());
  c.call("scatter_nd", p, {}, {x, idx, upd}, {&out});
  return true;
});

// --- generators and masks ------------------------------------------------------------

RegisterConverter constantOfShapeOp({"ConstantOfShape"}, [](NodeContext &c) {
  std::vector<int64_t> shape;
  if (!c.constInts(0, shape))
    return false;
  for (int64_t d : shape)
    if (d < 0)
      return c.fail("shape " + shapeString(shape) + " has a negative entry");
  Tensor v;
  if (c.has("value")) {
    if (!c.getTensor("value", v))
      return c.fail("attribute value is not a valid tensor");
    if (v.numel() != 1 || dtypeSize(v.dtype) == 0)
      return c.fail("value must be one element of a supported type");
  } else {
    v.dtype = F32;
    v.data.assign(4, 0);
  }
  Tensor &out = c.output(0, v.dtype, shape);
  int64_t bits = 0;
  memcpy(&bits, v.data.data(), dtypeSize(v.dtype));
  c.call("fill", {(int64_t)dtypeSize(v.dtype), out.numel(), bits}, {}, {},
         {&out});
  return true;
});

RegisterConverter rangeOp({"Range"}, [](NodeContext &c) {
  for (size_t i = 0; i < 3; ++i) {
    if (!c.expectType(i, {F32, F64, I16, I32, I64}))
      return false;
    if (c.input(i)->numel() != 1 || c.input(i)->dtype != c.input(0)->dtype)
      return c.fail("start, limit and delta must be scalars of one type");
    if (!c.input(i)->isConst)
      return c.fail("input " + std::to_string(i) +
                    " must be known at compile time (it decides the output's "
                    "length)");
  }
  Tensor *start = c.input(0), *limit = c.input(1), *delta = c.input(2);
  int64_t n;
  if (isFloat(start->dtype)) {
    double s = start->floats()[0], l = limit->floats()[0],
           d = delta->floats()[0];
    if (d == 0)
      return c.fail("delta must not be 0");
    const double count = std::ceil((l - s) / d);
    if (!(count < 0x1p62)) // also NaN; converting it would be undefined
      return c.fail("start, limit and delta give " + std::to_string(count) +
                    " elements");
    n = (int64_t)std::max(0.0, count);
  } else {
    int64_t s = start->ints()[0], l = limit->ints()[0], d = delta->ints()[0];
    if (d == 0 || d == INT64_MIN)
      return c.fail("delta must not be 0 or the smallest int64");
    int64_t span;
    if (__builtin_sub_overflow(l, s, &span) || span == INT64_MIN)
      return c.fail("limit - start does not fit in 64 bits");
    n = (span > 0) == (d > 0) && span != 0
            ? (std::abs(span) - 1) / std::abs(d) + 1
            : 0;
  }
  Tensor &out = c.output(0, start->dtype, {n});
  c.call("range", {start->dtype, n}, {}, {start, delta}, {&out});
  return true;
});

RegisterConverter triluOp({"Trilu"}, [](NodeContext &c) {
  if (!needData(c))
    return false;
  Tensor *x = c.input(0);
  if (x->rank() < 2)
    return c.fail("expects an input of rank >= 2");
  int64_t k = 0;
  if (c.input(1)) {
    std::vector<int64_t> kv;
    if (!c.constInts(1, kv))
      return false;
    if (kv.size() != 1)
      return c.fail("k must be a scalar");
    k = kv[0];
  }
  int64_t rows = x->shape[x->rank() - 2], cols = x->shape.back();
  // Diagonals past the matrix keep all or nothing, as the bounds do; the
  // clamp keeps the kernel's row + k in range.
  k = std::clamp<int64_t>(k, -rows, cols);
  Tensor &out = c.output(0, x->dtype, x->shape);
  c.call("trilu",
         {(int64_t)dtypeSize(x->dtype), product(x->shape, 0, x->rank() - 2),
          rows, cols, k, c.getInt("upper", 1) ? 1 : 0},
         {}, {x}, {&out});
  return true;
});

RegisterConverter cumsumOp({"CumSum"}, [](NodeContext &c) {
  if (!c.expectType(0, kNumeric))
    return false;
  Tensor *x = c.input(0);
  std::vector<int64_t> av;
  if (!c.constInts(1, av))
    return false;
  if (av.size() != 1)
    return c.fail("axis must be a scalar");
  int64_t axis = av[0];
  if (!normalizeAxis(axis, x->rank()))
    return c.fail("axis " + std::to_string(axis) + " is out of range for rank " +
                  std::to_string(x->rank()));
  Tensor &out = c.output(0, x->dtype, x->shape);
  if (Call *k = c.call("cumsum",
                       {x->dtype, product(x->shape, 0, axis), x->shape[axis],
                        product(x->shape, axis + 1),
                        c.getInt("exclusive", 0) ? 1 : 0,
                        c.getInt("reverse", 0) ? 1 : 0},
                       {}, {x}, {&out}))
    k->attrs = {{"axis", {axis}}};
  return true;
});

RegisterConverter oneHotOp({"OneHot"}, [](NodeContext &c) {
  if (!c.expectType(0, kNumeric) || !c.expectType(1, kNumeric) ||
      !needData(c, 2))
    return false;
  Tensor *idx = c.input(0), *depthT = c.input(1), *vals = c.input(2);
  if (!depthT->isConst || depthT->numel() != 1)
    return c.fail("depth must be a scalar known at compile time");
  int64_t depth = (int64_t)depthT->floats()[0];
  if (depth <= 0)
    return c.fail("depth must be positive");
  if (vals->numel() != 2)
    return c.fail("values must hold two elements (off, on)");
  int64_t r = idx->rank() + 1, axis = c.getInt("axis", -1);
  if (!normalizeAxis(axis, r))
    return c.fail("axis " + std::to_string(axis) + " is out of range for rank " +
                  std::to_string(r));
  std::vector<int64_t> shape(idx->shape.begin(), idx->shape.begin() + axis);
  shape.push_back(depth);
  shape.insert(shape.end(), idx->shape.begin() + axis, idx->shape.end());
  Tensor &out = c.output(0, vals->dtype, shape);
  if (Call *k = c.call("one_hot",
                       {(int64_t)dtypeSize(vals->dtype), idx->dtype,
                        product(idx->shape, 0, axis), depth,
                        product(idx->shape, axis)},
                       {}, {idx, vals}, {&out}))
    k->attrs = {{"axis", {axis}}};
  return true;
});
// EyeLike depends only on its input's shape: the output is a constant.
RegisterConverter eyeLikeOp({"EyeLike"}, [](NodeContext &c) {
  if (!needData(c))
    return false;
  Tensor *x = c.input(0);
  if (x->rank() != 2)
    return c.fail("expects a 2-d input, got " + shapeString(x->shape));
  Tensor v;
  v.dtype = (int32_t)c.getInt("dtype", x->dtype);
  if (dtypeSize(v.dtype) == 0)
    return c.unsupportedAttr("dtype", dtypeName(v.dtype));
  v.shape = x->shape;
  v.isConst = true;
  v.data.assign(v.bytes(), 0);
  // the bytes of 1 in v.dtype
  uint8_t one[8] = {0};
  switch (v.dtype) {
  case F32: { float t = 1; memcpy(one, &t, 4); break; }
  case F64: { double t = 1; memcpy(one, &t, 8); break; }
  case F16: { uint16_t t = 0x3C00; memcpy(one, &t, 2); break; }
  default: one[0] = 1; // integers and bool, little-endian
  }
  int64_t rows = x->shape[0], cols = x->shape[1];
  // A diagonal past the matrix has no element (the clamp keeps i + k in range).
  int64_t k = std::clamp<int64_t>(c.getInt("k", 0), -rows, cols);
  size_t es = dtypeSize(v.dtype);
  for (int64_t i = 0; i < rows; ++i)
    if (i + k >= 0 && i + k < cols)
      memcpy(v.data.data() + (i * cols + i + k) * es, one, es);
  c.constOutput(0, v);
  return true;
});
} // namespace

void linkMovementOps() {}
} // namespace kiln::onnx
