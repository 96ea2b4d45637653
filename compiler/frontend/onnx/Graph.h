//===- Graph.h - an ONNX graph lowered to Kiln tensor kernels -------------===//
//
// The ONNX frontend works in two steps. Lowering (Lower.cpp, MLIR-free) walks
// the graph in order; a converter per operator (ops/*.cpp) checks the node's
// attributes, infers its outputs' static types and shapes and turns it into
// calls of the kernels of kiln_tensor.h. A call whose inputs are all constant
// runs at once, on the host, with those same kernels: this folds shape
// subgraphs (Shape -> Gather -> Concat -> Reshape) and any other constant
// computation. Import.cpp then writes what remains as kiln dialect ops.
//
#ifndef KILN_FRONTEND_ONNX_GRAPH_H
#define KILN_FRONTEND_ONNX_GRAPH_H

#include "compiler/support/TensorPlans.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace onnx {
class NodeProto;
class AttributeProto;
class TensorProto;
} // namespace onnx

namespace kiln::onnx {

/// Element types, numbered as ONNX's TensorProto.DataType.
enum DType : int32_t {
  F32 = 1, U8 = 2, I8 = 3, U16 = 4, I16 = 5, I32 = 6, I64 = 7, STRING = 8,
  BOOL = 9, F16 = 10, F64 = 11, U32 = 12, U64 = 13, BF16 = 16
};
/// Bytes per element; 0 for types Kiln cannot hold (string, complex, bf16).
size_t dtypeSize(int32_t dtype);
/// ONNX's name of a type: "float", "int64", "bool", ...
std::string dtypeName(int32_t dtype);
bool isFloat(int32_t dtype);

/// A value of the graph: a tensor of static type and shape, with its bytes
/// when it is constant (initializer, Constant node or folded).
struct Tensor {
  int id = -1;
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> shape;
  bool isConst = false;
  std::vector<uint8_t> data; // row-major, only when isConst
  /// Graph input number, or -1.
  int input = -1;

  int64_t numel() const;
  size_t bytes() const { return numel() * dtypeSize(dtype); }
  int64_t rank() const { return (int64_t)shape.size(); }
  /// The constant's elements converted to int64 / double (any numeric type).
  std::vector<int64_t> ints() const;
  std::vector<double> floats() const;
};

/// One kernel call of the lowered graph.
struct Call {
  std::string kernel;             // kiln_t_<kernel>
  std::vector<int64_t> p;         // integer parameters
  std::vector<float> f;           // float parameters
  std::vector<int> inputs;        // tensor ids; -1 for an omitted input
  std::vector<int> outputs;       // tensor ids
  int64_t scratch = 0;            // bytes of scratch the kernel needs
  std::string opType, nodeName;   // the ONNX node it comes from
  /// What the node's typed op keeps that the kernel parameters do not (the
  /// reduced axes, keepdims, ...), for the importer.
  std::map<std::string, std::vector<int64_t>> attrs;
};

/// An ONNX graph after lowering: tensors, the kernel calls that remain after
/// folding, and the graph's inputs and outputs.
/// The most bytes one tensor may take by default (1 TiB; kilnc
/// --max-tensor-bytes): larger shapes are an error before anything is
/// allocated or a byte count can wrap.
constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 40;

struct LoweredGraph {
  std::string name;
  int64_t opset = 0;
  std::vector<std::unique_ptr<Tensor>> tensors;
  std::vector<Call> calls;
  std::vector<int> inputs, outputs;
  /// Number of calls that were folded at compile time.
  int64_t folded = 0;
  /// The most bytes one tensor may take (Model::maxTensorBytes).
  uint64_t maxTensorBytes = kMaxTensorBytes;

  Tensor &newTensor(const std::string &name);
};

/// What a converter sees: the node, its inputs, and ways to produce outputs.
class NodeContext {
public:
  NodeContext(LoweredGraph &g, const ::onnx::NodeProto &node, int64_t opset,
              std::vector<Tensor *> inputs, std::string &error);

  const std::string &opType() const;
  const std::string &name() const { return nodeName; }
  int64_t opset() const { return opsetVersion; }

  // --- inputs ---
  size_t numInputs() const { return ins.size(); }
  /// Input i, or null when absent (omitted optional input or i too large).
  Tensor *input(size_t i) const { return i < ins.size() ? ins[i] : nullptr; }
  size_t numOutputs() const;
  /// The constant int64 elements of input i (any integer type). Fails with a
  /// message when the input is absent or computed at run time.
  bool constInts(size_t i, std::vector<int64_t> &out);

  // --- attributes ---
  bool has(const std::string &attr) const;
  int64_t getInt(const std::string &attr, int64_t dflt) const;
  float getFloat(const std::string &attr, float dflt) const;
  std::string getString(const std::string &attr, const std::string &dflt) const;
  std::vector<int64_t> getInts(const std::string &attr) const;
  std::vector<float> getFloats(const std::string &attr) const;
  /// Attributes the converter leaves unread on purpose: they cannot change
  /// what it computes (Dropout's ratio in inference).
  void ignoreAttrs(std::initializer_list<const char *> names) const {
    readAttrs.insert(names.begin(), names.end());
  }
  /// A tensor attribute (Constant's value); false if absent or invalid.
  bool getTensor(const std::string &attr, Tensor &out);

  // --- outputs and calls ---
  /// Declares output i with its static type and shape.
  Tensor &output(size_t i, int32_t dtype, std::vector<int64_t> shape);
  /// A temporary for lowerings that need several kernel calls.
  Tensor &temp(int32_t dtype, std::vector<int64_t> shape);
  /// Output i is the constant `value` (Constant, Shape, ...).
  Tensor &constOutput(size_t i, const Tensor &value);
  /// Calls kiln_t_<kernel>; runs it now when every input is constant. The
  /// call kept for the library (valid until the next call), or null if it
  /// was folded (or failed).
  Call *call(const std::string &kernel, std::vector<int64_t> p,
            std::vector<float> f, std::vector<Tensor *> inputs,
            std::vector<Tensor *> outputs, int64_t scratch = 0);

  // --- errors ---
  /// Sets the error "node 'NAME' (OP, opset N): MESSAGE" and returns false.
  bool fail(const std::string &message);
  /// An attribute value Kiln does not implement.
  bool unsupportedAttr(const std::string &attr, const std::string &value);
  /// Checks that input i is present and has one of `dtypes`.
  bool expectType(size_t i, const std::vector<int32_t> &dtypes);

private:
  const ::onnx::AttributeProto *attr(const std::string &name) const;
  /// The attribute when it has type `want`; null when absent, and null with
  /// wrongType() set when it has another type (a model onnxruntime rejects;
  /// taking the default instead would compile other math).
  const ::onnx::AttributeProto *typedAttr(const std::string &name,
                                          int want) const;
  LoweredGraph &graph;
  const ::onnx::NodeProto &node;
  int64_t opsetVersion;
  std::vector<Tensor *> ins;
  std::vector<Tensor *> outs;
  std::string nodeName;
  std::string &error;

public:
  /// The declared outputs, by node output index (null if not declared).
  const std::vector<Tensor *> &declaredOutputs() const { return outs; }
  /// The first output or temporary over kMaxTensorBytes, or "". Calls that
  /// would write it are neither folded nor kept; the graph walk fails the
  /// node with it.
  const std::string &sizeError() const { return tooBig; }
  /// The first attribute read with a type other than its own, or "". The
  /// graph walk fails the node with it before any other error.
  const std::string &wrongType() const { return badType; }
  /// The first of the node's attributes its converter never read, or "":
  /// one Kiln does not implement, which may change the math (an attribute
  /// of a later opset, a misspelling). The graph walk fails the node with it.
  std::string unreadAttribute() const;
  /// The most bytes one tensor of this graph may take.
  uint64_t maxTensorBytes() const { return graph.maxTensorBytes; }

private:
  std::string tooBig;
  mutable std::string badType;
  mutable std::set<std::string> readAttrs;
  void checkSize(const Tensor &t);
};

/// A converter: lowers one node or returns false with the context's error set.
using Converter = std::function<bool(NodeContext &)>;
/// The converters, by ONNX op type (default domain).
std::map<std::string, Converter> &converters();
/// Registers converters at static-initialization time.
struct RegisterConverter {
  RegisterConverter(std::initializer_list<const char *> ops, Converter c);
};

// --- helpers for converters (Shapes.cpp) ---
/// numpy-style broadcast of two shapes; false if incompatible.
bool broadcastShapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
                     std::vector<int64_t> &out);
using kiln::broadcastStrides; // compiler/support/TensorPlans.h
using kiln::denseStrides;
/// Normalizes a possibly negative axis into [0, rank); false if out of range.
bool normalizeAxis(int64_t &axis, int64_t rank);
int64_t product(const std::vector<int64_t> &v, size_t from = 0,
                size_t to = SIZE_MAX);
/// Checks that a tensor of `shape` and `dtype` takes at most `maxBytes`,
/// with every partial product of its dimensions in range (so product() and
/// strides cannot overflow); otherwise `error` names the shape and what it
/// would take.
bool checkTensorSize(const std::vector<int64_t> &shape, int32_t dtype,
                     std::string &error, uint64_t maxBytes = kMaxTensorBytes);
/// "2^40" for a power of two, else the decimal number.
std::string bytesLimitString(uint64_t bytes);
std::string shapeString(const std::vector<int64_t> &shape);
} // namespace kiln::onnx

#endif
