//===- Lower.cpp - ONNX graph to kernel calls, folding constants ----------===//
#include "compiler/frontend/onnx/Model.h"
#include "compiler/frontend/onnx/ops/Common.h"
#include "onnx.pb.h"

#include "compiler/support/HostKernels.h"
#include "kernels/tensor/kiln_tensor.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <set>
#include <unordered_map>

namespace kiln::onnx {

// --- types and tensors -------------------------------------------------------

size_t dtypeSize(int32_t dtype) {
  switch (dtype) {
  case U8: case I8: case BOOL: return 1;
  case U16: case I16: case F16: return 2;
  case F32: case I32: case U32: return 4;
  case F64: case I64: case U64: return 8;
  default: return 0;
  }
}

std::string dtypeName(int32_t dtype) {
  switch (dtype) {
  case F32: return "float";
  case U8: return "uint8";
  case I8: return "int8";
  case U16: return "uint16";
  case I16: return "int16";
  case I32: return "int32";
  case I64: return "int64";
  case STRING: return "string";
  case BOOL: return "bool";
  case F16: return "float16";
  case F64: return "double";
  case U32: return "uint32";
  case U64: return "uint64";
  case 14: return "complex64";
  case 15: return "complex128";
  case BF16: return "bfloat16";
  default: return "type " + std::to_string(dtype);
  }
}

bool isFloat(int32_t dtype) { return dtype == F32 || dtype == F64 || dtype == F16; }

int64_t Tensor::numel() const { return product(shape); }

/// `v` as R. A float read as an integer (a shape or index operand given as
/// floats) saturates, and NaN reads as 0: out of range, the plain conversion
/// is undefined behaviour (a fuzzed Cast folded -1.7e35 into an int64).
template <class R, class T> static R convertValue(T v) {
  if constexpr (std::is_integral_v<R> && std::is_floating_point_v<T>) {
    if (v != v)
      return 0;
    if (v >= (T)std::numeric_limits<R>::max())
      return std::numeric_limits<R>::max();
    if (v <= (T)std::numeric_limits<R>::min())
      return std::numeric_limits<R>::min();
  }
  return (R)v;
}

template <class R> static std::vector<R> convertAll(const Tensor &t) {
  std::vector<R> r(t.numel());
  const uint8_t *d = t.data.data();
  for (size_t i = 0; i < r.size(); ++i) {
    switch (t.dtype) {
#define X(code, T) case code: { T v; memcpy(&v, d + i * sizeof(T), sizeof(T)); r[i] = convertValue<R>(v); break; }
      KILN_FOR_ALL_TYPES(X)
#undef X
    default: r[i] = 0;
    }
  }
  return r;
}
std::vector<int64_t> Tensor::ints() const { return convertAll<int64_t>(*this); }
std::vector<double> Tensor::floats() const { return convertAll<double>(*this); }

Tensor &LoweredGraph::newTensor(const std::string &name) {
  tensors.push_back(std::make_unique<Tensor>());
  Tensor &t = *tensors.back();
  t.id = (int)tensors.size() - 1;
  t.name = name;
  return t;
}

// --- shapes ------------------------------------------------------------------

std::string bytesLimitString(uint64_t bytes) {
  if (bytes && (bytes & (bytes - 1)) == 0)
    return "2^" + std::to_string(__builtin_ctzll(bytes));
  return std::to_string(bytes);
}

bool checkTensorSize(const std::vector<int64_t> &shape, int32_t dtype,
                     std::string &error, uint64_t maxBytes) {
  // Zero dimensions make the tensor empty, but the others still size strides:
  // their product must be in range too.
  const uint64_t elem = std::max<uint64_t>(1, dtypeSize(dtype));
  uint64_t bytes = elem;
  for (int64_t d : shape) {
    if (d < 0) {
      error = "has a negative dimension in " + shapeString(shape);
      return false;
    }
    if (d == 0)
      continue;
    if ((uint64_t)d > maxBytes / bytes) {
      error = "of shape " + shapeString(shape) + " (" + dtypeName(dtype) +
              ") would take more than " + bytesLimitString(maxBytes) +
              " bytes, the limit for one tensor (--max-tensor-bytes)";
      return false;
    }
    bytes *= (uint64_t)d;
  }
  return true;
}

int64_t product(const std::vector<int64_t> &v, size_t from, size_t to) {
  CheckedInt p = 1;
  for (size_t i = from; i < std::min(to, v.size()); ++i)
    p = p * v[i];
  // Only a shape that output()/temp() already refused can overflow; its node
  // fails when the converter returns, and 0 keeps the converter's remaining
  // size arithmetic in range until then.
  return p.ok() ? p.value() : 0;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

bool broadcastShapes(const std::vector<int64_t> &a,
                     const std::vector<int64_t> &b, std::vector<int64_t> &out) {
  size_t r = std::max(a.size(), b.size());
  out.assign(r, 1);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}

bool normalizeAxis(int64_t &axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return false;
  if (axis < 0)
    axis += rank;
  return true;
}

// --- converters --------------------------------------------------------------

std::map<std::string, Converter> &converters() {
  static std::map<std::string, Converter> table;
  return table;
}

RegisterConverter::RegisterConverter(std::initializer_list<const char *> ops,
                                     Converter c) {
  for (const char *op : ops)
    converters()[op] = c;
}

// --- NodeContext -------------------------------------------------------------

NodeContext::NodeContext(LoweredGraph &g, const ::onnx::NodeProto &node,
                         int64_t opset, std::vector<Tensor *> inputs,
                         std::string &error)
    : graph(g), node(node), opsetVersion(opset), ins(std::move(inputs)),
      error(error) {
  nodeName = node.name();
  if (nodeName.empty())
    nodeName = node.output_size() ? node.output(0) : node.op_type();
  outs.assign(node.output_size(), nullptr);
}

const std::string &NodeContext::opType() const { return node.op_type(); }

size_t NodeContext::numOutputs() const {
  size_t n = node.output_size();
  while (n > 0 && node.output(n - 1).empty())
    --n;
  return n;
}

bool NodeContext::fail(const std::string &message) {
  error = "node '" + nodeName + "' (" + node.op_type() + ", opset " +
          std::to_string(opsetVersion) + "): " + message;
  return false;
}

bool NodeContext::unsupportedAttr(const std::string &attr,
                                  const std::string &value) {
  return fail("attribute " + attr + "=" + value + " is not supported");
}

bool NodeContext::expectType(size_t i, const std::vector<int32_t> &dtypes) {
  Tensor *t = input(i);
  if (!t)
    return fail("input " + std::to_string(i) + " is required");
  for (int32_t d : dtypes)
    if (t->dtype == d)
      return true;
  return fail("input " + std::to_string(i) + " ('" + t->name +
              "') has element type " + dtypeName(t->dtype) +
              ", which this operator does not support in Kiln");
}

bool NodeContext::constInts(size_t i, std::vector<int64_t> &out) {
  Tensor *t = input(i);
  if (!t)
    return fail("input " + std::to_string(i) + " is required");
  if (!t->isConst)
    return fail("input " + std::to_string(i) + " ('" + t->name +
                "') must be known at compile time (Kiln compiles static "
                "shapes); it is computed at run time");
  out = t->ints();
  return true;
}

const ::onnx::AttributeProto *NodeContext::attr(const std::string &name) const {
  readAttrs.insert(name);
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}
const ::onnx::AttributeProto *NodeContext::typedAttr(const std::string &name,
                                                     int want) const {
  const ::onnx::AttributeProto *a = attr(name);
  // UNDEFINED: models from before the type field; read them as before.
  if (!a || a->type() == want ||
      a->type() == ::onnx::AttributeProto::UNDEFINED)
    return a;
  if (badType.empty()) {
    using AP = ::onnx::AttributeProto;
    badType = "attribute " + name + " is " +
              AP::AttributeType_Name((AP::AttributeType)a->type()) +
              ", the operator takes " +
              AP::AttributeType_Name((AP::AttributeType)want);
  }
  return nullptr;
}
bool NodeContext::has(const std::string &name) const { return attr(name); }
std::string NodeContext::unreadAttribute() const {
  for (const auto &a : node.attribute())
    // consumed_inputs (opsets 1 to 5): an in-place hint, not math.
    if (!readAttrs.count(a.name()) &&
        !(opsetVersion < 6 && a.name() == "consumed_inputs"))
      return "attribute " + a.name() + " is not one Kiln implements for " +
             node.op_type() + " (it could change the result)";
  return "";
}
int64_t NodeContext::getInt(const std::string &name, int64_t dflt) const {
  auto *a = typedAttr(name, ::onnx::AttributeProto::INT);
  return a ? a->i() : dflt;
}
float NodeContext::getFloat(const std::string &name, float dflt) const {
  auto *a = typedAttr(name, ::onnx::AttributeProto::FLOAT);
  return a ? a->f() : dflt;
}
std::string NodeContext::getString(const std::string &name,
                                   const std::string &dflt) const {
  auto *a = typedAttr(name, ::onnx::AttributeProto::STRING);
  return a ? a->s() : dflt;
}
std::vector<int64_t> NodeContext::getInts(const std::string &name) const {
  auto *a = typedAttr(name, ::onnx::AttributeProto::INTS);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end())
           : std::vector<int64_t>();
}
std::vector<float> NodeContext::getFloats(const std::string &name) const {
  auto *a = typedAttr(name, ::onnx::AttributeProto::FLOATS);
  return a ? std::vector<float>(a->floats().begin(), a->floats().end())
           : std::vector<float>();
}
bool NodeContext::getTensor(const std::string &name, Tensor &out) {
  auto *a = attr(name);
  if (!a || !a->has_t())
    return false;
  std::string err;
  if (!readTensor(a->t(), ".", "attribute " + name, out, err,
                  graph.maxTensorBytes))
    return fail(err);
  return true;
}

void NodeContext::checkSize(const Tensor &t) {
  std::string why;
  if (tooBig.empty() &&
      !checkTensorSize(t.shape, t.dtype, why, graph.maxTensorBytes))
    tooBig = "output '" + t.name + "' " + why;
}

Tensor &NodeContext::output(size_t i, int32_t dtype, std::vector<int64_t> shape) {
  Tensor &t = graph.newTensor(i < (size_t)node.output_size() ? node.output(i)
                                                             : nodeName);
  t.dtype = dtype;
  t.shape = std::move(shape);
  if (i < outs.size())
    outs[i] = &t;
  checkSize(t);
  return t;
}

Tensor &NodeContext::temp(int32_t dtype, std::vector<int64_t> shape) {
  Tensor &t = graph.newTensor(nodeName + "#" + std::to_string(graph.tensors.size()));
  t.dtype = dtype;
  t.shape = std::move(shape);
  checkSize(t);
  return t;
}

Tensor &NodeContext::constOutput(size_t i, const Tensor &value) {
  Tensor &t = output(i, value.dtype, value.shape);
  t.isConst = true;
  t.data = value.data;
  return t;
}

// The bytes of a tensor for a host kernel: an empty one gets a valid pointer
// too (the kernels offset their pointers by zero, which is undefined on null).
static uint8_t *hostPointer(std::vector<uint8_t> &data) {
  static uint8_t empty[64];
  return data.empty() ? empty : data.data();
}

Call *NodeContext::call(const std::string &kernel, std::vector<int64_t> p,
                       std::vector<float> f, std::vector<Tensor *> inputs,
                       std::vector<Tensor *> outputs, int64_t scratch) {
  if (!tooBig.empty() || scratch < 0 ||
      (uint64_t)scratch > graph.maxTensorBytes) {
    if (tooBig.empty())
      tooBig = "needs " + std::to_string(scratch) + " bytes of scratch";
    return nullptr; // the walk fails this node: nothing is allocated for it
  }
  // Constant inputs fold at compile time unless the outputs would take more
  // than kMaxFoldBytes of the compiler's memory: then the call runs in the
  // library like any other.
  bool allConst = true;
  for (Tensor *t : inputs)
    allConst &= !t || t->isConst;
  uint64_t foldBytes = (uint64_t)scratch;
  for (Tensor *t : outputs)
    foldBytes += t->bytes();
  if (allConst && foldBytes <= kMaxFoldBytes) {
    std::vector<const void *> in;
    for (Tensor *t : inputs)
      in.push_back(t ? hostPointer(t->data) : nullptr);
    std::vector<void *> out;
    for (Tensor *t : outputs) {
      t->isConst = true;
      t->data.assign(t->bytes(), 0);
      out.push_back(hostPointer(t->data));
    }
    std::vector<uint64_t> scratchMem((scratch + 7) / 8 + 1);
    if (runHostKernel(kernel, p, f, in, out, scratchMem.data())) {
      ++graph.folded;
      return nullptr;
    }
    for (Tensor *t : outputs) { // no host kernel: keep the call
      t->isConst = false;
      t->data.clear();
    }
  }
  Call c;
  c.kernel = kernel;
  c.p = std::move(p);
  c.f = std::move(f);
  for (Tensor *t : inputs)
    c.inputs.push_back(t ? t->id : -1);
  for (Tensor *t : outputs)
    c.outputs.push_back(t->id);
  c.scratch = scratch;
  c.opType = node.op_type();
  c.nodeName = nodeName;
  graph.calls.push_back(std::move(c));
  return &graph.calls.back();
}

// --- the graph walk ------------------------------------------------------------

static bool readValueInfo(const ::onnx::ValueInfoProto &v,
                          const InputShapes &shapes, uint64_t maxBytes,
                          Tensor &t, std::string &error) {
  const std::string what = "graph input '" + v.name() + "'";
  if (!v.type().has_tensor_type()) {
    error = what + ": only tensor inputs are supported (sequences, maps and "
                   "optionals are not)";
    return false;
  }
  const auto &tt = v.type().tensor_type();
  t.dtype = tt.elem_type();
  if (dtypeSize(t.dtype) == 0) {
    error = what + ": element type " + dtypeName(t.dtype) + " is not supported";
    return false;
  }
  auto fixed = shapes.find(v.name());
  if (fixed != shapes.end()) {
    const std::vector<int64_t> &dims = fixed->second.dims;
    const std::string origin = fixed->second.origin(v.name());
    if (tt.has_shape() && tt.shape().dim_size() != (int)dims.size()) {
      error = origin + ": the input has rank " +
              std::to_string(tt.shape().dim_size()) + ", the shape given has " +
              std::to_string(dims.size()) + " dimensions";
      return false;
    }
    for (int i = 0; tt.has_shape() && i < tt.shape().dim_size(); ++i) {
      const auto &d = tt.shape().dim(i);
      if (d.has_dim_value() && d.dim_value() != dims[i]) {
        error = origin + ": dimension " + std::to_string(i) +
                " is fixed to " + std::to_string(d.dim_value()) +
                " by the model, the shape given has " + std::to_string(dims[i]);
        return false;
      }
    }
    t.shape = dims;
  } else {
    if (!tt.has_shape()) {
      error = what + " has no shape: give it with --input-shape=" + v.name() +
              "=D0,D1,...";
      return false;
    }
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto &d = tt.shape().dim(i);
      if (!d.has_dim_value() || d.dim_value() < 0) {
        error = what + ": dimension " + std::to_string(i) +
                (d.has_dim_param() ? " ('" + d.dim_param() + "')" : "") +
                " is dynamic; fix it with --input-shape=" + v.name() +
                "=D0,D1,...";
        return false;
      }
      t.shape.push_back(d.dim_value());
    }
  }
  std::string why;
  if (!checkTensorSize(t.shape, t.dtype, why, maxBytes)) {
    error = what + " " + why;
    return false;
  }
  return true;
}

bool lowerModel(const Model &model, const InputShapes &shapes,
                LoweredGraph &g, std::string &error,
                const std::map<std::string, Tensor> *inputValues) {
  linkElementwiseOps();
  linkReduceOps();
  linkResizeOps();
  linkMovementOps();
  linkNNOps();
  const ::onnx::GraphProto &graph = model.proto->graph();
  g.name = graph.name();
  g.opset = model.opset;
  g.maxTensorBytes = model.maxTensorBytes;
  std::map<std::string, Tensor *> values;

  for (const auto &init : graph.initializer()) {
    Tensor &t = g.newTensor(init.name());
    if (!readTensor(init, model.dir, "initializer '" + init.name() + "'", t,
                    error, g.maxTensorBytes))
      return false;
    values[init.name()] = &t;
  }
  std::set<std::string> known;
  for (const auto &in : graph.input())
    known.insert(in.name());
  for (const auto &entry : shapes)
    if (!known.count(entry.first)) {
      error = entry.second.origin(entry.first) +
              ": the model has no input '" + entry.first + "'";
      return false;
    }
  for (const auto &in : graph.input()) {
    if (values.count(in.name()))
      continue; // an initializer: a constant with a default value
    Tensor &t = g.newTensor(in.name());
    if (!readValueInfo(in, shapes, g.maxTensorBytes, t, error))
      return false;
    values[in.name()] = &t;
    if (inputValues && inputValues->count(in.name())) {
      const Tensor &v = inputValues->at(in.name());
      if (v.dtype != t.dtype || v.shape != t.shape) {
        error = "graph input '" + in.name() + "': the value given is " +
                dtypeName(v.dtype) + " " + shapeString(v.shape) +
                ", the graph declares " + dtypeName(t.dtype) + " " +
                shapeString(t.shape);
        return false;
      }
      t.isConst = true;
      t.data = v.data;
      continue;
    }
    t.input = (int)g.inputs.size();
    g.inputs.push_back(t.id);
  }

  for (const auto &node : graph.node()) {
    std::string nodeName = node.name().empty() && node.output_size()
                               ? node.output(0)
                               : node.name();
    auto where = [&] {
      return "node '" + nodeName + "' (" + node.op_type() + ", opset " +
             std::to_string(model.opset) + ")";
    };
    if (!node.domain().empty() && node.domain() != "ai.onnx") {
      error = where() + ": operator domain '" + node.domain() +
              "' is not supported (only the default ONNX domain is)";
      return false;
    }
    auto conv = converters().find(node.op_type());
    if (conv == converters().end()) {
      error = where() + ": operator " + node.op_type() +
              " is not supported by Kiln";
      return false;
    }
    std::vector<Tensor *> inputs;
    for (const std::string &name : node.input()) {
      if (name.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      auto it = values.find(name);
      if (it == values.end()) {
        error = where() + ": input '" + name +
                "' is not produced by any earlier node, input or initializer";
        return false;
      }
      inputs.push_back(it->second);
    }
    for (const auto &a : node.attribute())
      if (a.type() == ::onnx::AttributeProto::GRAPH ||
          a.type() == ::onnx::AttributeProto::GRAPHS) {
        error = where() + ": attribute " + a.name() +
                " holds a subgraph; control flow is not supported";
        return false;
      }
    for (const auto &a : node.attribute())
      if (model.opset < 7 && a.name() == "broadcast") {
        error = where() + ": attribute broadcast (opsets before 7) is not "
                          "supported; convert the model to opset 7 or later";
        return false;
      }
    NodeContext ctx(g, node, model.opset, inputs, error);
    const bool converted = conv->second(ctx);
    if (!ctx.wrongType().empty())
      return ctx.fail(ctx.wrongType());
    if (!converted)
      return false;
    if (!ctx.sizeError().empty())
      return ctx.fail(ctx.sizeError());
    const std::string unread = ctx.unreadAttribute();
    if (!unread.empty())
      return ctx.fail(unread);
    for (int i = 0; i < node.output_size(); ++i) {
      if (node.output(i).empty())
        continue;
      if (!ctx.declaredOutputs()[i]) {
        if (i < (int)ctx.numOutputs()) {
          error = where() + ": output " + std::to_string(i) + " ('" +
                  node.output(i) + "') is not supported";
          return false;
        }
        continue;
      }
      values[node.output(i)] = ctx.declaredOutputs()[i];
    }
  }

  for (const auto &out : graph.output()) {
    auto it = values.find(out.name());
    if (it == values.end()) {
      error = "graph output '" + out.name() + "' is not produced by the graph";
      return false;
    }
    g.outputs.push_back(it->second->id);
  }

  // Calls whose results nothing reads stay: kiln-fold-constants erases them
  // in the IR.
  return true;
}
} // namespace kiln::onnx
