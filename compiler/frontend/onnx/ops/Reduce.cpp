//===- Reduce.cpp - Reduce*, ArgMax/ArgMin, Softmax family, LayerNorm -----===//
//
// Kernels: reduce.c (kiln_t_reduce, kiln_t_argminmax) and normalize.c
// (kiln_t_softmax, kiln_t_layernorm).
#include "compiler/frontend/onnx/ops/Common.h"
#include "kernels/tensor/kiln_tensor.h"

namespace kiln::onnx {
namespace {

const std::vector<int32_t> kNumeric = {F32, F64, U8, I8, U16, I16,
                                       I32, I64, U32, U64};
const std::vector<int32_t> kFloats = {F32, F64};

const std::map<std::string, int> kReduce = {
    {"ReduceSum", KILN_RED_SUM},       {"ReduceMean", KILN_RED_MEAN},
    {"ReduceMax", KILN_RED_MAX},       {"ReduceMin", KILN_RED_MIN},
    {"ReduceProd", KILN_RED_PROD},     {"ReduceL1", KILN_RED_L1},
    {"ReduceL2", KILN_RED_L2},         {"ReduceSumSquare", KILN_RED_SUMSQ},
    {"ReduceLogSum", KILN_RED_LOGSUM}, {"ReduceLogSumExp", KILN_RED_LOGSUMEXP},
};

bool checkRank(NodeContext &c, const Tensor *x) {
  if (x->rank() > (int64_t)KILN_MAX_RANK_CXX)
    return c.fail("rank " + std::to_string(x->rank()) +
                  " exceeds Kiln's maximum of 8");
  return true;
}

bool lowerReduce(NodeContext &c) {
  const int op = kReduce.at(c.opType());
  if (!c.expectType(0, op == KILN_RED_LOGSUMEXP ? kFloats : kNumeric))
    return false;
  Tensor *x = c.input(0);
  if (!checkRank(c, x))
    return false;
  const int64_t rank = x->rank();
  // Axes moved from an attribute to an optional input: ReduceSum at opset
  // 13, the others at 18. noop_with_empty_axes came with the input.
  bool axesInput = c.opset() >= (op == KILN_RED_SUM ? 13 : 18);
  std::vector<int64_t> axes;
  if (axesInput) {
    if (c.has("axes"))
      return c.fail("axes is an input from opset " +
                    std::to_string(op == KILN_RED_SUM ? 13 : 18) +
                    ", not an attribute");
    if (c.input(1) && !c.constInts(1, axes))
      return false;
  } else {
    axes = c.getInts("axes");
  }
  bool keepdims = c.getInt("keepdims", 1) != 0;
  if (axes.empty() && axesInput && c.getInt("noop_with_empty_axes", 0)) {
    Tensor &out = c.output(0, x->dtype, x->shape);
    c.call("copy", {(int64_t)out.bytes()}, {}, {x}, {&out});
    return true;
  }
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) {
    int64_t ax = a;
    if (!normalizeAxis(ax, rank))
      return c.fail("axis " + std::to_string(a) + " is out of range for rank " +
                    std::to_string(rank));
    if (reduced[ax])
      return c.fail("axis " + std::to_string(a) + " is repeated");
    reduced[ax] = true;
  }
  std::vector<int64_t> outShape;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d])
      outShape.push_back(x->shape[d]);
    else if (keepdims)
      outShape.push_back(1);
  Tensor &out = c.output(0, x->dtype, outShape);

  int64_t scratch = 0;
  std::vector<int64_t> p =
      planReduce(op, x->dtype, x->shape, reduced, out.numel(), scratch);
  if (Call *k = c.call("reduce", p, {}, {x}, {&out}, scratch)) {
    std::vector<int64_t> list;
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d])
        list.push_back(d);
    k->attrs = {{"axes", list}, {"keepdims", {keepdims}}};
  }
  return true;
}

RegisterConverter reduceOps({"ReduceSum", "ReduceMean", "ReduceMax",
                             "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                             "ReduceSumSquare", "ReduceLogSum",
                             "ReduceLogSumExp"},
                            lowerReduce);

RegisterConverter argOps({"ArgMax", "ArgMin"}, [](NodeContext &c) {
  if (!c.expectType(0, kNumeric))
    return false;
  Tensor *x = c.input(0);
  int64_t axis = c.getInt("axis", 0);
  if (!normalizeAxis(axis, std::max<int64_t>(x->rank(), 1)) || x->rank() == 0)
    return c.fail("axis " + std::to_string(c.getInt("axis", 0)) +
                  " is out of range for rank " + std::to_string(x->rank()));
  if (x->shape[axis] == 0)
    return c.fail("cannot take the arg" +
                  std::string(c.opType() == "ArgMin" ? "min" : "max") +
                  " of an empty axis");
  bool keepdims = c.getInt("keepdims", 1) != 0;
  int64_t last = c.opset() >= 12 ? c.getInt("select_last_index", 0) : 0;
  std::vector<int64_t> shape = x->shape;
  if (keepdims)
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  Tensor &out = c.output(0, I64, shape);
  if (Call *k = c.call("argminmax",
                       {x->dtype, product(x->shape, 0, axis), x->shape[axis],
                        product(x->shape, axis + 1), c.opType() == "ArgMin",
                        last != 0},
                       {}, {x}, {&out}))
    k->attrs = {{"axis", {axis}}, {"keepdims", {keepdims}}};
  return true;
});

// Softmax, LogSoftmax, Hardmax. Before opset 13 the input is coerced to 2-D
// [prod(shape[:axis]), prod(shape[axis:])] and normalized over the second
// dimension (default axis 1); from 13 normalization is along `axis` alone
// (default -1).
RegisterConverter softmaxOps({"Softmax", "LogSoftmax", "Hardmax"},
                             [](NodeContext &c) {
  if (!c.expectType(0, kFloats))
    return false;
  Tensor *x = c.input(0);
  bool perAxis = c.opset() >= 13;
  int64_t rank = x->rank();
  int64_t axis = c.getInt("axis", perAxis ? -1 : 1);
  int64_t a = axis;
  if (rank == 0 || !normalizeAxis(a, rank))
    return c.fail("axis " + std::to_string(axis) + " is out of range for rank " +
                  std::to_string(rank));
  int64_t outer = product(x->shape, 0, a);
  int64_t n = perAxis ? x->shape[a] : product(x->shape, a);
  int64_t inner = perAxis ? product(x->shape, a + 1) : 1;
  int op = c.opType() == "Softmax"      ? KILN_SM_SOFTMAX
           : c.opType() == "LogSoftmax" ? KILN_SM_LOGSOFTMAX
                                        : KILN_SM_HARDMAX;
  Tensor &out = c.output(0, x->dtype, x->shape);
  if (out.numel() == 0)
    return true;
  if (Call *k = c.call("softmax", {op, x->dtype, outer, n, inner}, {}, {x},
                       {&out}, softmaxScratchBytes(x->dtype, inner)))
    k->attrs = {{"axis", {a}}, {"flatten", {!perAxis}}};
  return true;
});

RegisterConverter layerNormOp({"LayerNormalization"}, [](NodeContext &c) {
  if (!c.expectType(0, kFloats) || !c.expectType(1, {c.input(0)->dtype}))
    return false;
  Tensor *x = c.input(0), *scale = c.input(1), *bias = c.input(2);
  if (bias && bias->dtype != x->dtype)
    return c.fail("B has element type " + dtypeName(bias->dtype) +
                  ", X has " + dtypeName(x->dtype));
  int64_t stash = c.getInt("stash_type", 1);
  if (stash != F32)
    return c.unsupportedAttr("stash_type", std::to_string(stash));
  int64_t rank = x->rank();
  int64_t axis = c.getInt("axis", -1);
  int64_t a = axis;
  if (rank == 0 || !normalizeAxis(a, rank))
    return c.fail("axis " + std::to_string(axis) + " is out of range for rank " +
                  std::to_string(rank));
  std::vector<int64_t> normShape(x->shape.begin() + a, x->shape.end());
  int64_t n = product(normShape);
  // Scale and B must cover the normalized shape exactly (leading 1s aside);
  // broadcasting a smaller Scale is not implemented.
  for (Tensor *t : {scale, bias}) {
    if (!t)
      continue;
    std::vector<int64_t> s = t->shape;
    while (s.size() > normShape.size() && s.front() == 1)
      s.erase(s.begin());
    if (s != normShape)
      return c.fail("Scale/B of shape " + shapeString(t->shape) +
                    " must match the normalized shape " +
                    shapeString(normShape) +
                    " (broadcasting them is not supported)");
  }
  std::vector<int64_t> statShape(x->shape.begin(), x->shape.begin() + a);
  statShape.resize(rank, 1);
  Tensor &y = c.output(0, x->dtype, x->shape);
  Tensor &mean = c.numOutputs() > 1 ? c.output(1, F32, statShape)
                                    : c.temp(F32, statShape);
  Tensor &inv = c.numOutputs() > 2 ? c.output(2, F32, statShape)
                                   : c.temp(F32, statShape);
  if (x->numel() == 0)
    return true;
  if (Call *k = c.call("layernorm", {x->dtype, product(x->shape, 0, a), n},
                       {c.getFloat("epsilon", 1e-5f)}, {x, scale, bias},
                       {&y, &mean, &inv}))
    k->attrs = {{"axis", {a}}};
  return true;
});
} // namespace

void linkReduceOps() {}
} // namespace kiln::onnx
