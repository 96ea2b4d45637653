//===- onnx-movement-check.cpp - movement converters beyond the node tests -===//
//
// The ONNX node tests cover the common forms of the movement operators
// (Movement.cpp, movement.c); this checks the rest on hand-built one-node
// models folded on the host: attribute forms of old opsets (Slice before 10,
// Split/Squeeze/Unsqueeze before 13), Split's num_outputs (18), scatter
// reductions, element types the node tests do not use, dimension merging of
// the strided copy, and the errors for bad or run-time shape inputs.
// Expected values are worked out by hand. Exit status 1 on any failure.
//
#include "compiler/frontend/onnx/Model.h"
#include "onnx.pb.h"
#include "tools/common/OnnxTestData.h"

#include <climits>
#include <cstdio>
#include <functional>

using namespace kiln::onnx;

namespace {
int failures = 0;

template <class T>
Tensor make(int32_t dtype, std::vector<int64_t> shape, std::vector<T> v) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.isConst = true;
  t.data.resize(v.size() * sizeof(T));
  memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

/// A graph input: constant (its value is bound at compile time, as
/// kiln-conformance does for shape inputs) or only typed (run time).
struct Input {
  Tensor value;
  bool constant = true;
};

using Attrs = std::function<void(::onnx::NodeProto &)>;

void addInts(::onnx::NodeProto &n, const char *name, std::vector<int64_t> v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v)
    a->add_ints(x);
}
void addInt(::onnx::NodeProto &n, const char *name, int64_t v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}
void addString(::onnx::NodeProto &n, const char *name, const char *v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(v);
}
void addTensor(::onnx::NodeProto &n, const char *name, const Tensor &t) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::TENSOR);
  auto *tp = a->mutable_t();
  tp->set_data_type(t.dtype);
  for (int64_t d : t.shape)
    tp->add_dims(d);
  tp->set_raw_data(t.data.data(), t.data.size());
}

/// Lowers a model of one `op` node; inputs named x0, x1, ... (an empty
/// dtype leaves the input out), outputs y0 .. y<nOut-1>.
bool lower(int64_t opset, const char *op, const std::vector<Input> &ins,
           int nOut, const Attrs &attrs, LoweredGraph &g, std::string &error) {
  Model m;
  m.proto = std::make_shared<::onnx::ModelProto>();
  m.opset = opset;
  auto *imp = m.proto->add_opset_import();
  imp->set_version(opset);
  auto *graph = m.proto->mutable_graph();
  graph->set_name("check");
  auto *node = graph->add_node();
  node->set_op_type(op);
  node->set_name(op);
  std::map<std::string, Tensor> values;
  for (size_t i = 0; i < ins.size(); ++i) {
    std::string name = "x" + std::to_string(i);
    if (ins[i].value.dtype == 0) {
      node->add_input("");
      continue;
    }
    node->add_input(name);
    auto *vi = graph->add_input();
    vi->set_name(name);
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(ins[i].value.dtype);
    auto *shape = tt->mutable_shape();
    for (int64_t d : ins[i].value.shape)
      shape->add_dim()->set_dim_value(d);
    if (ins[i].constant)
      values[name] = ins[i].value;
  }
  for (int i = 0; i < nOut; ++i) {
    node->add_output("y" + std::to_string(i));
    graph->add_output()->set_name("y" + std::to_string(i));
  }
  if (attrs)
    attrs(*node);
  return lowerModel(m, {}, g, error, &values);
}

/// Folds the node and compares its outputs with `want`.
void expect(const char *what, int64_t opset, const char *op,
            const std::vector<Input> &ins, const std::vector<Tensor> &want,
            const Attrs &attrs = nullptr) {
  LoweredGraph g;
  std::string error, why;
  bool ok = lower(opset, op, ins, (int)want.size(), attrs, g, error);
  for (size_t k = 0; ok && k < want.size(); ++k) {
    const Tensor &got = *g.tensors[g.outputs[k]];
    if (!got.isConst) {
      ok = false;
      error = "output " + std::to_string(k) + " did not fold";
    } else if (got.shape != want[k].shape) {
      ok = false;
      error = "output " + std::to_string(k) + " has shape " +
              shapeString(got.shape) + ", want " + shapeString(want[k].shape);
    } else if (!compareTensor(got, want[k], 1e-6, 0, why)) {
      ok = false;
      error = "output " + std::to_string(k) + ": " + why;
    }
  }
  printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what, ok ? "" : ": ",
         ok ? "" : error.c_str());
  failures += !ok;
}

/// Lowering must fail with a message containing `needle`.
void expectError(const char *what, int64_t opset, const char *op,
                 const std::vector<Input> &ins, int nOut, const char *needle,
                 const Attrs &attrs = nullptr) {
  LoweredGraph g;
  std::string error;
  bool lowered = lower(opset, op, ins, nOut, attrs, g, error);
  bool ok = !lowered && error.find(needle) != std::string::npos;
  printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what,
         ok ? "" : ": got error: ", ok ? "" : (lowered ? "(none)" : error.c_str()));
  failures += !ok;
}

std::vector<float> iotaF(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i)
    v[i] = (float)i;
  return v;
}
template <class T> std::vector<T> iota(int n) {
  std::vector<T> v(n);
  for (int i = 0; i < n; ++i)
    v[i] = (T)i;
  return v;
}
Input runtime(Tensor t) { return {std::move(t), false}; }
} // namespace

int main() {
  Tensor x34 = make(F32, {3, 4}, iotaF(12));

  // Slice before opset 10: attributes; negative start, end past the end.
  expect("slice-opset9-attributes", 9, "Slice", {{x34}},
         {make<float>(F32, {2, 3}, {5, 6, 7, 9, 10, 11})}, [](auto &n) {
           addInts(n, "starts", {1, -3});
           addInts(n, "ends", {3, 100});
           addInts(n, "axes", {0, 1});
         });
  // Negative step from the last column down to "before the start".
  expect("slice-negative-step-int32", 13, "Slice",
         {{make(I32, {3, 4}, iota<int32_t>(12))},
          {make<int64_t>(I64, {1}, {-1})},
          {make<int64_t>(I64, {1}, {INT64_MIN})},
          {make<int64_t>(I64, {1}, {1})},
          {make<int64_t>(I64, {1}, {-2})}},
         {make<int32_t>(I32, {3, 2}, {3, 1, 7, 5, 11, 9})});

  // Split: num_outputs (opset 18) gives ceil(7/3) = 3, 3, then 1.
  expect("split-num-outputs-18", 18, "Split",
         {{make(I64, {7}, iota<int64_t>(7))}},
         {make<int64_t>(I64, {3}, {0, 1, 2}), make<int64_t>(I64, {3}, {3, 4, 5}),
          make<int64_t>(I64, {1}, {6})},
         [](auto &n) { addInt(n, "num_outputs", 3); });
  expect("split-attribute-opset11-uint8", 11, "Split",
         {{make(U8, {2, 4}, iota<uint8_t>(8))}},
         {make<uint8_t>(U8, {2, 1}, {0, 4}),
          make<uint8_t>(U8, {2, 3}, {1, 2, 3, 5, 6, 7})},
         [](auto &n) {
           addInt(n, "axis", 1);
           addInts(n, "split", {1, 3});
         });

  // Squeeze and Unsqueeze with axes attributes (before opset 13).
  expect("squeeze-attribute-opset11", 11, "Squeeze",
         {{make(F32, {1, 3, 1, 2}, iotaF(6))}}, {make(F32, {3, 2}, iotaF(6))},
         [](auto &n) { addInts(n, "axes", {0, 2}); });
  expect("unsqueeze-attribute-opset11", 11, "Unsqueeze",
         {{make(F32, {3}, iotaF(3))}}, {make(F32, {1, 3, 1}, iotaF(3))},
         [](auto &n) { addInts(n, "axes", {-1, 0}); });

  // Transpose of int16 [2,3,4] by perm [2,0,1]: out[k][i][j] = x[i][j][k].
  {
    std::vector<int16_t> want;
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
          want.push_back((int16_t)(i * 12 + j * 4 + k));
    expect("transpose-int16-perm201", 13, "Transpose",
           {{make(I16, {2, 3, 4}, iota<int16_t>(24))}},
           {make(I16, {4, 2, 3}, want)},
           [](auto &n) { addInts(n, "perm", {2, 0, 1}); });
  }

  // Tile of bool [2,1,3] by [2,3,1]: out[a][b][c] = x[a % 2][0][c].
  {
    std::vector<uint8_t> x = {1, 0, 0, 0, 1, 1}, want;
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 3; ++c)
          want.push_back(x[(a % 2) * 3 + c]);
    expect("tile-bool", 13, "Tile",
           {{make(BOOL, {2, 1, 3}, x)},
            {make<int64_t>(I64, {3}, {2, 3, 1})}},
           {make(BOOL, {4, 3, 3}, want)});
  }

  // Expand uint16 [3,1] to [2,1,4]: out[a][i][j] = x[i].
  {
    std::vector<uint16_t> want;
    for (int a = 0; a < 2; ++a)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
          want.push_back((uint16_t)(10 + i));
    expect("expand-uint16", 13, "Expand",
           {{make<uint16_t>(U16, {3, 1}, {10, 11, 12})},
            {make<int64_t>(I64, {3}, {2, 1, 4})}},
           {make(U16, {2, 3, 4}, want)});
  }

  // Gather on axis 1 with negative int32 indices.
  expect("gather-int32-negative-axis1", 13, "Gather",
         {{make(F32, {2, 3}, iotaF(6))}, {make<int32_t>(I32, {2}, {-1, 0})}},
         {make<float>(F32, {2, 2}, {2, 0, 5, 3})},
         [](auto &n) { addInt(n, "axis", 1); });

  // Scatter reductions: max (ScatterND, 18), mul (ScatterElements, 16).
  expect("scatternd-max", 18, "ScatterND",
         {{make<float>(F32, {4}, {1, 5, 2, 8})},
          {make<int64_t>(I64, {3, 1}, {0, 3, 0})},
          {make<float>(F32, {3}, {3, 4, 0})}},
         {make<float>(F32, {4}, {3, 5, 2, 8})},
         [](auto &n) { addString(n, "reduction", "max"); });
  expect("scatterelements-mul-int32", 16, "ScatterElements",
         {{make<int32_t>(I32, {2, 3}, {2, 2, 2, 2, 2, 2})},
          {make<int64_t>(I64, {2, 1}, {2, 0})},
          {make<int32_t>(I32, {2, 1}, {3, 5})}},
         {make<int32_t>(I32, {2, 3}, {2, 2, 6, 10, 2, 2})},
         [](auto &n) {
           addInt(n, "axis", 1);
           addString(n, "reduction", "mul");
         });

  // ConstantOfShape with an int64 value, Range counting down.
  expect("constantofshape-int64", 13, "ConstantOfShape",
         {{make<int64_t>(I64, {2}, {2, 2})}},
         {make<int64_t>(I64, {2, 2}, {7, 7, 7, 7})}, [](auto &n) {
           addTensor(n, "value", make<int64_t>(I64, {1}, {7}));
         });
  expect("range-int64-down", 13, "Range",
         {{make<int64_t>(I64, {}, {10})},
          {make<int64_t>(I64, {}, {1})},
          {make<int64_t>(I64, {}, {-4})}},
         {make<int64_t>(I64, {3}, {10, 6, 2})});

  // EyeLike of a run-time input is still a constant.
  expect("eyelike-runtime-input", 13, "EyeLike", {runtime(x34)},
         {make<int32_t>(I32, {3, 4}, {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})},
         [](auto &n) {
           addInt(n, "dtype", I32);
           addInt(n, "k", 1);
         });

  // The strided copy merges what is contiguous: an identity Transpose of a
  // run-time [2,3,4] becomes one dimension of 24 elements.
  {
    LoweredGraph g;
    std::string error;
    bool ok = lower(13, "Transpose", {runtime(make(F32, {2, 3, 4}, iotaF(24)))},
                    1, [](auto &n) { addInts(n, "perm", {0, 1, 2}); }, g,
                    error) &&
              g.calls.size() == 1 && g.calls[0].kernel == "strided_copy" &&
              g.calls[0].p == std::vector<int64_t>{4, 0, 1, 24, 1};
    printf("%s transpose-identity-merges\n", ok ? "PASS" : "FAIL");
    failures += !ok;
  }

  // Errors name the problem.
  expectError("reshape-runtime-shape", 13, "Reshape",
              {{x34}, runtime(make<int64_t>(I64, {2}, {4, 3}))}, 1,
              "must be known at compile time");
  expectError("reshape-two-minus-one", 13, "Reshape",
              {{x34}, {make<int64_t>(I64, {2}, {-1, -1})}}, 1,
              "more than one -1");
  expectError("transpose-bad-perm", 13, "Transpose", {{x34}}, 1,
              "is not a permutation",
              [](auto &n) { addInts(n, "perm", {0, 0}); });
  expectError("gather-index-out-of-range", 13, "Gather",
              {{x34}, {make<int64_t>(I64, {1}, {3})}}, 1,
              "index 3 is out of range");
  expectError("split-sizes-mismatch", 13, "Split",
              {{x34}, {make<int64_t>(I64, {2}, {1, 1})}}, 2,
              "do not add up to 3");
  expectError("slice-zero-step", 13, "Slice",
              {{x34}, {make<int64_t>(I64, {1}, {0})},
               {make<int64_t>(I64, {1}, {2})}, {make<int64_t>(I64, {1}, {0})},
               {make<int64_t>(I64, {1}, {0})}},
              1, "steps must not be 0");
  expectError("depthtospace-bad-mode", 13, "DepthToSpace",
              {{make(F32, {1, 4, 1, 1}, iotaF(4))}}, 1,
              "attribute mode=XYZ is not supported", [](auto &n) {
                addInt(n, "blocksize", 2);
                addString(n, "mode", "XYZ");
              });

  printf("%s\n", failures ? "FAILED" : "all passed");
  return failures ? 1 : 0;
}
