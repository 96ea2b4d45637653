//===- Elementwise.cpp - unary, binary (broadcasting), Where, Cast, Clip --===//
#include "compiler/frontend/onnx/ops/Common.h"

#include <cmath>

namespace kiln::onnx {
namespace {
// Codes of kiln_t_binary and kiln_t_unary (elementwise.c).
enum BinaryOp {
  ADD, SUB, MUL, DIV, POW, MAX, MIN, MOD, FMOD, EQUAL, LESS, GREATER, LESS_EQ,
  GREATER_EQ, AND, OR, XOR, PRELU
};
enum UnaryOp {
  RELU, LEAKY_RELU, SIGMOID, HARD_SIGMOID, HARD_SWISH, TANH, ERF, GELU,
  GELU_TANH, SQRT, EXP, LOG, ABS, NEG, RECIPROCAL, NOT, FLOOR, CEIL, SIN, COS,
  SOFTPLUS, SOFTSIGN, ELU, SELU, SIGN, ROUND, CELU, THRESHOLDED_RELU, IDENTITY
};

const std::vector<int32_t> kNumeric = {F32, F64, U8, I8, U16, I16,
                                                 I32, I64, U32, U64};
const std::vector<int32_t> kFloats = {F32, F64};

struct BinaryInfo {
  BinaryOp op;
  std::vector<int32_t> types;
  bool boolResult;
};
const std::map<std::string, BinaryInfo> kBinary = {
    {"Add", {ADD, kNumeric, false}},
    {"Sub", {SUB, kNumeric, false}},
    {"Mul", {MUL, kNumeric, false}},
    {"Div", {DIV, kNumeric, false}},
    {"Pow", {POW, kNumeric, false}},
    {"Max", {MAX, kNumeric, false}},
    {"Min", {MIN, kNumeric, false}},
    {"Sum", {ADD, kNumeric, false}},
    {"Mod", {MOD, kNumeric, false}},
    {"PRelu", {PRELU, kNumeric, false}},
    {"Equal", {EQUAL, {F32, F64, U8, I8, U16, I16, I32, I64, U32, U64, BOOL}, true}},
    {"Less", {LESS, kNumeric, true}},
    {"Greater", {GREATER, kNumeric, true}},
    {"LessOrEqual", {LESS_EQ, kNumeric, true}},
    {"GreaterOrEqual", {GREATER_EQ, kNumeric, true}},
    {"And", {AND, {BOOL}, true}},
    {"Or", {OR, {BOOL}, true}},
    {"Xor", {XOR, {BOOL}, true}},
};

} // namespace

bool emitBinary(NodeContext &c, int op, Tensor *a, Tensor *b, Tensor &out) {
  c.call("binary",
         planBinary(op, a->dtype, b->dtype, out.dtype, a->shape, b->shape,
                    out.shape),
         {}, {a, b}, {&out});
  return true;
}

namespace {
bool lowerBinary(NodeContext &c) {
  const BinaryInfo &info = kBinary.at(c.opType());
  size_t n = c.numInputs();
  bool variadic = c.opType() == "Sum" || c.opType() == "Max" ||
                  c.opType() == "Min";
  if (n < (variadic ? 1u : 2u) || (!variadic && n != 2))
    return c.fail("expects " + std::string(variadic ? "at least one input"
                                                    : "two inputs"));
  for (size_t i = 0; i < n; ++i)
    if (!c.expectType(i, info.types))
      return false;
  for (size_t i = 1; i < n; ++i)
    if (c.input(i)->dtype != c.input(0)->dtype && info.op != POW)
      return c.fail("inputs have different element types (" +
                    dtypeName(c.input(0)->dtype) + " and " +
                    dtypeName(c.input(i)->dtype) + ")");
  if (info.op == MOD && isFloat(c.input(0)->dtype) && !c.getInt("fmod", 0))
    return c.fail("Mod of floating-point inputs requires fmod=1");
  int op = info.op;
  if (info.op == MOD && c.getInt("fmod", 0))
    op = FMOD;
  if (n == 1) { // Sum/Max/Min of one input: a copy
    Tensor &out = c.output(0, c.input(0)->dtype, c.input(0)->shape);
    c.call("copy", {(int64_t)out.bytes()}, {}, {c.input(0)}, {&out});
    return true;
  }
  Tensor *acc = c.input(0);
  for (size_t i = 1; i < n; ++i) {
    std::vector<int64_t> shape;
    if (!broadcastShapes(acc->shape, c.input(i)->shape, shape))
      return c.fail("input shapes " + shapeString(acc->shape) + " and " +
                    shapeString(c.input(i)->shape) + " do not broadcast");
    if (shape.size() > KILN_MAX_RANK_CXX)
      return c.fail("rank " + std::to_string(shape.size()) +
                    " exceeds Kiln's maximum of 8");
    int32_t outType = info.boolResult ? BOOL : acc->dtype;
    Tensor &out = i + 1 == n ? c.output(0, outType, shape)
                             : c.temp(outType, shape);
    emitBinary(c, op, acc, c.input(i), out);
    acc = &out;
  }
  return true;
}

RegisterConverter binaryOps({"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min",
                             "Sum", "Mod", "PRelu", "Equal", "Less", "Greater",
                             "LessOrEqual", "GreaterOrEqual", "And", "Or",
                             "Xor"},
                            lowerBinary);

// Mean = Sum / n.
RegisterConverter meanOp({"Mean"}, [](NodeContext &c) {
  size_t n = c.numInputs();
  if (n == 0)
    return c.fail("expects at least one input");
  for (size_t i = 0; i < n; ++i)
    if (!c.expectType(i, kFloats))
      return false;
  Tensor *acc = c.input(0);
  for (size_t i = 1; i < n; ++i) {
    std::vector<int64_t> shape;
    if (!broadcastShapes(acc->shape, c.input(i)->shape, shape))
      return c.fail("input shapes do not broadcast");
    Tensor &out = c.temp(acc->dtype, shape);
    emitBinary(c, ADD, acc, c.input(i), out);
    acc = &out;
  }
  Tensor &count = c.temp(acc->dtype, {});
  count.isConst = true;
  count.data.resize(count.bytes());
  if (acc->dtype == F32) {
    float v = (float)n;
    memcpy(count.data.data(), &v, 4);
  } else {
    double v = (double)n;
    memcpy(count.data.data(), &v, 8);
  }
  Tensor &out = c.output(0, acc->dtype, acc->shape);
  return emitBinary(c, DIV, acc, &count, out);
});

struct UnaryInfo {
  UnaryOp op;
  std::vector<int32_t> types;
};
const std::map<std::string, UnaryInfo> kUnary = {
    {"Relu", {RELU, {F32, F64, I8, I16, I32, I64}}},
    {"LeakyRelu", {LEAKY_RELU, kFloats}},
    {"Sigmoid", {SIGMOID, kFloats}},
    {"HardSigmoid", {HARD_SIGMOID, kFloats}},
    {"HardSwish", {HARD_SWISH, kFloats}},
    {"Tanh", {TANH, kFloats}},
    {"Erf", {ERF, kFloats}},
    {"Gelu", {GELU, kFloats}},
    {"Sqrt", {SQRT, kFloats}},
    {"Exp", {EXP, kFloats}},
    {"Log", {LOG, kFloats}},
    {"Abs", {ABS, kNumeric}},
    {"Neg", {NEG, {F32, F64, I8, I16, I32, I64}}},
    {"Reciprocal", {RECIPROCAL, kFloats}},
    {"Not", {NOT, {BOOL}}},
    {"Floor", {FLOOR, kFloats}},
    {"Ceil", {CEIL, kFloats}},
    {"Sin", {SIN, kFloats}},
    {"Cos", {COS, kFloats}},
    {"Softplus", {SOFTPLUS, kFloats}},
    {"Softsign", {SOFTSIGN, kFloats}},
    {"Elu", {ELU, kFloats}},
    {"Selu", {SELU, kFloats}},
    {"Celu", {CELU, kFloats}},
    {"ThresholdedRelu", {THRESHOLDED_RELU, kFloats}},
    {"Sign", {SIGN, kNumeric}},
    {"Round", {ROUND, kFloats}},
};

bool lowerUnary(NodeContext &c) {
  const UnaryInfo &info = kUnary.at(c.opType());
  if (!c.expectType(0, info.types))
    return false;
  Tensor *x = c.input(0);
  int op = info.op;
  float alpha = 0, beta = 0;
  const std::string &t = c.opType();
  if (t == "LeakyRelu")
    alpha = c.getFloat("alpha", 0.01f);
  else if (t == "HardSigmoid") {
    alpha = c.getFloat("alpha", 0.2f);
    beta = c.getFloat("beta", 0.5f);
  } else if (t == "Elu" || t == "Celu")
    alpha = c.getFloat("alpha", 1.0f);
  else if (t == "ThresholdedRelu")
    alpha = c.getFloat("alpha", 1.0f);
  else if (t == "Selu") {
    alpha = c.getFloat("alpha", 1.67326319217681884765625f);
    beta = c.getFloat("gamma", 1.05070102214813232421875f);
  } else if (t == "Gelu") {
    std::string approx = c.getString("approximate", "none");
    if (approx == "tanh")
      op = GELU_TANH;
    else if (approx != "none")
      return c.unsupportedAttr("approximate", approx);
  }
  Tensor &out = c.output(0, x->dtype, x->shape);
  c.call("unary", {op, x->dtype, x->numel()}, {alpha, beta}, {x}, {&out});
  return true;
}

RegisterConverter unaryOps({"Relu", "LeakyRelu", "Sigmoid", "HardSigmoid",
                            "HardSwish", "Tanh", "Erf", "Gelu", "Sqrt", "Exp",
                            "Log", "Abs", "Neg", "Reciprocal", "Not", "Floor",
                            "Ceil", "Sin", "Cos", "Softplus", "Softsign", "Elu",
                            "Selu", "Celu", "ThresholdedRelu", "Sign", "Round"},
                           lowerUnary);

RegisterConverter whereOp({"Where"}, [](NodeContext &c) {
  if (!c.expectType(0, {BOOL}) || !c.input(1) || !c.input(2))
    return c.fail("expects inputs condition (bool), X and Y");
  Tensor *cond = c.input(0), *x = c.input(1), *y = c.input(2);
  if (x->dtype != y->dtype)
    return c.fail("X and Y have different element types");
  if (dtypeSize(x->dtype) == 0)
    return c.fail("element type " + dtypeName(x->dtype) + " is not supported");
  std::vector<int64_t> s1, shape;
  if (!broadcastShapes(cond->shape, x->shape, s1) ||
      !broadcastShapes(s1, y->shape, shape))
    return c.fail("input shapes do not broadcast");
  Tensor &out = c.output(0, x->dtype, shape);
  std::vector<int64_t> p = {(int64_t)dtypeSize(x->dtype), (int64_t)shape.size()};
  p.insert(p.end(), shape.begin(), shape.end());
  for (Tensor *t : {cond, x, y}) {
    auto s = broadcastStrides(t->shape, shape);
    p.insert(p.end(), s.begin(), s.end());
  }
  c.call("where", p, {}, {cond, x, y}, {&out});
  return true;
});

const std::vector<int32_t> kCastable = {
    F32, F64, F16, U8, I8, U16, I16, I32, I64, U32, U64, BOOL};

RegisterConverter castOp({"Cast"}, [](NodeContext &c) {
  int64_t to = c.getInt("to", 0);
  if (!c.expectType(0, kCastable))
    return false;
  bool ok = false;
  for (int32_t t : kCastable)
    ok |= t == to;
  if (!ok)
    return c.unsupportedAttr("to", dtypeName((int32_t)to));
  Tensor *x = c.input(0);
  Tensor &out = c.output(0, (int32_t)to, x->shape);
  c.call("cast", {x->dtype, to, x->numel()}, {}, {x}, {&out});
  return true;
});

RegisterConverter clipOp({"Clip"}, [](NodeContext &c) {
  if (!c.expectType(0, kNumeric))
    return false;
  Tensor *x = c.input(0);
  Tensor *lo = nullptr, *hi = nullptr;
  if (c.opset() < 11) { // min and max are attributes
    if (x->dtype != F32)
      return c.fail("Clip before opset 11 takes float inputs");
    auto scalar = [&](float v) {
      Tensor &t = c.temp(F32, {});
      t.isConst = true;
      t.data.resize(4);
      memcpy(t.data.data(), &v, 4);
      return &t;
    };
    lo = scalar(c.getFloat("min", -INFINITY));
    hi = scalar(c.getFloat("max", INFINITY));
  } else {
    lo = c.input(1);
    hi = c.input(2);
    for (Tensor *t : {lo, hi})
      if (t && (t->dtype != x->dtype || t->numel() != 1))
        return c.fail("min and max must be scalars of the input's type");
  }
  Tensor &out = c.output(0, x->dtype, x->shape);
  c.call("clip", {x->dtype, x->numel()}, {}, {x, lo, hi}, {&out});
  return true;
});

// Identity, and Dropout in inference (a copy; the optional mask is all true).
RegisterConverter identityOps({"Identity", "Dropout"}, [](NodeContext &c) {
  Tensor *x = c.input(0);
  if (!x)
    return c.fail("input 0 is required");
  if (c.opType() == "Dropout" && c.opset() >= 12 && c.input(2)) {
    std::vector<int64_t> training;
    if (!c.constInts(2, training))
      return false;
    if (!training.empty() && training[0])
      return c.unsupportedAttr("training_mode", "true");
  }
  if (c.opType() == "Dropout" && c.opset() < 7 && c.getInt("is_test", 0) == 0)
    return c.unsupportedAttr("is_test", "0");
  c.ignoreAttrs({"ratio", "seed"}); // inference: nothing is dropped
  Tensor &out = c.output(0, x->dtype, x->shape);
  c.call("copy", {(int64_t)out.bytes()}, {}, {x}, {&out});
  if (c.numOutputs() > 1) {
    Tensor mask;
    mask.dtype = BOOL;
    mask.shape = x->shape;
    mask.data.assign(mask.bytes(), 1);
    c.constOutput(1, mask);
  }
  return true;
});

// Constant and Shape produce compile-time values.
RegisterConverter constantOp({"Constant"}, [](NodeContext &c) {
  Tensor v;
  if (c.has("value")) {
    if (!c.getTensor("value", v))
      return false;
  } else if (c.has("value_float")) {
    v.dtype = F32;
    float f = c.getFloat("value_float", 0);
    v.data.resize(4);
    memcpy(v.data.data(), &f, 4);
  } else if (c.has("value_floats")) {
    auto fs = c.getFloats("value_floats");
    v.dtype = F32;
    v.shape = {(int64_t)fs.size()};
    v.data.resize(fs.size() * 4);
    if (!fs.empty())
      memcpy(v.data.data(), fs.data(), v.data.size());
  } else if (c.has("value_int")) {
    v.dtype = I64;
    int64_t i = c.getInt("value_int", 0);
    v.data.resize(8);
    memcpy(v.data.data(), &i, 8);
  } else if (c.has("value_ints")) {
    auto is = c.getInts("value_ints");
    v.dtype = I64;
    v.shape = {(int64_t)is.size()};
    v.data.resize(is.size() * 8);
    if (!is.empty())
      memcpy(v.data.data(), is.data(), v.data.size());
  } else {
    return c.fail("only value, value_float(s) and value_int(s) are supported "
                  "(sparse and string constants are not)");
  }
  v.isConst = true;
  c.constOutput(0, v);
  return true;
});

RegisterConverter shapeOp({"Shape", "Size"}, [](NodeContext &c) {
  Tensor *x = c.input(0);
  if (!x)
    return c.fail("input 0 is required");
  std::vector<int64_t> dims = x->shape;
  if (c.opType() == "Size") {
    dims = {x->numel()};
  } else {
    int64_t r = x->rank();
    int64_t start = c.getInt("start", 0), end = c.getInt("end", r);
    start = std::clamp<int64_t>(start < 0 ? start + r : start, 0, r);
    end = std::clamp<int64_t>(end < 0 ? end + r : end, 0, r);
    dims = std::vector<int64_t>(x->shape.begin() + start,
                                x->shape.begin() + std::max(start, end));
  }
  Tensor v;
  v.dtype = I64;
  if (c.opType() == "Shape")
    v.shape = {(int64_t)dims.size()};
  v.data.resize(dims.size() * 8);
  if (!dims.empty())
    memcpy(v.data.data(), dims.data(), v.data.size());
  v.isConst = true;
  c.constOutput(0, v);
  return true;
});
} // namespace

void linkElementwiseOps() {}
} // namespace kiln::onnx
