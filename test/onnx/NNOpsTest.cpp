//===- NNOpsTest.cpp - ops/NN.cpp and its kernels against naive loops -----===//
//
// The ONNX node tests cover the common cases of Conv, ConvTranspose, MatMul,
// Gemm and the pools; these cases cover what they leave out: groups and
// depthwise, dilations with strides and asymmetric pads, 1-D and 3-D, bias,
// im2col in several chunks, GEMM tails and blocking (m % 4, n % 16, k > 256,
// m > 64), batch broadcasting, MaxPool indices in both storage orders. Each
// builds a one-node model, folds it on the host (the same kernels generated
// code calls) and compares with a direct loop written from the ONNX spec.
//
#include "compiler/frontend/onnx/Model.h"
#include "kernels/tensor/kiln_gemm.h"
#include "kernels/tensor/kiln_tensor.h"
#include "onnx.pb.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace kiln::onnx;

namespace {

Tensor floatTensor(std::vector<int64_t> shape, unsigned seed) {
  Tensor t;
  t.dtype = F32;
  t.shape = std::move(shape);
  t.isConst = true;
  t.data.resize(t.bytes());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  float *p = (float *)t.data.data();
  for (int64_t i = 0; i < t.numel(); ++i)
    p[i] = dist(rng);
  return t;
}

const float *floats(const Tensor &t) { return (const float *)t.data.data(); }

/// A one-node model: inputs named in0.., output(s) out0..
struct NodeModel {
  ::onnx::ModelProto proto;
  ::onnx::NodeProto *node;
  std::map<std::string, Tensor> values;
  int64_t opset;

  NodeModel(const std::string &op, int64_t opset, int outputs = 1)
      : opset(opset) {
    proto.set_ir_version(8);
    auto *imp = proto.add_opset_import();
    imp->set_domain("");
    imp->set_version(opset);
    proto.mutable_graph()->set_name("t");
    node = proto.mutable_graph()->add_node();
    node->set_op_type(op);
    node->set_name("n");
    for (int i = 0; i < outputs; ++i) {
      std::string name = "out" + std::to_string(i);
      node->add_output(name);
      proto.mutable_graph()->add_output()->set_name(name);
    }
  }
  void input(const Tensor &t) {
    std::string name = "in" + std::to_string(node->input_size());
    node->add_input(name);
    auto *vi = proto.mutable_graph()->add_input();
    vi->set_name(name);
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(t.dtype);
    auto *sh = tt->mutable_shape();
    for (int64_t d : t.shape)
      sh->add_dim()->set_dim_value(d);
    values[name] = t;
  }
  /// A node input that is an initializer (a constant the lowering folds).
  void constant(const Tensor &t) {
    std::string name = "in" + std::to_string(node->input_size());
    node->add_input(name);
    auto *init = proto.mutable_graph()->add_initializer();
    init->set_name(name);
    init->set_data_type(t.dtype);
    for (int64_t d : t.shape)
      init->add_dims(d);
    init->set_raw_data(t.data.data(), t.data.size());
  }
  void ints(const std::string &name, std::vector<int64_t> v) {
    auto *a = node->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t x : v)
      a->add_ints(x);
  }
  void i(const std::string &name, int64_t v) {
    auto *a = node->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }
  void s(const std::string &name, const std::string &v) {
    auto *a = node->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  /// Lowers with every input constant; the outputs fold.
  std::vector<Tensor> run(std::string *errorOut = nullptr) {
    Model m;
    m.proto = std::make_shared<::onnx::ModelProto>(proto);
    m.opset = opset;
    LoweredGraph g;
    std::string error;
    bool ok = lowerModel(m, {}, g, error, &values);
    if (errorOut) {
      *errorOut = error;
      return {};
    }
    EXPECT_TRUE(ok) << error;
    std::vector<Tensor> outs;
    for (int id : g.outputs) {
      EXPECT_TRUE(g.tensors[id]->isConst);
      outs.push_back(*g.tensors[id]);
    }
    return outs;
  }
};

void expectNear(const Tensor &got, const std::vector<int64_t> &shape,
                const std::vector<float> &want, float tol = 1e-4f) {
  ASSERT_EQ(got.shape, shape);
  ASSERT_EQ((size_t)got.numel(), want.size());
  const float *g = floats(got);
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(g[i], want[i], tol * (1 + std::fabs(want[i]))) << "at " << i;
}

/// Row-major strides of `dims`.
std::vector<int64_t> strides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;)
    s[d - 1] = s[d] * dims[d];
  return s;
}

/// Calls f(idx) for every index of `dims` in row-major order.
template <class F> void forEach(const std::vector<int64_t> &dims, F f) {
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t n = product(dims); n > 0; --n) {
    f(idx);
    for (size_t d = dims.size(); d-- > 0;)
      if (++idx[d] < dims[d])
        break;
      else
        idx[d] = 0;
  }
}

/// Conv straight from the spec: y[n, m, o] = B[m] + sum over the group's
/// channels and the taps of x[n, c, o * s - pb + k * d] (zero outside).
std::vector<float> refConv(const Tensor &x, const Tensor &w, const Tensor *b,
                           int64_t G, const std::vector<int64_t> &out,
                           const std::vector<int64_t> &st,
                           const std::vector<int64_t> &dl,
                           const std::vector<int64_t> &pb) {
  size_t n = x.shape.size() - 2;
  int64_t N = x.shape[0], C = x.shape[1], M = w.shape[0], cg = C / G,
          mg = M / G;
  std::vector<int64_t> in(x.shape.begin() + 2, x.shape.end()),
      k(w.shape.begin() + 2, w.shape.end());
  auto xs = strides(x.shape), ws = strides(w.shape);
  std::vector<float> y;
  for (int64_t nn = 0; nn < N; ++nn)
    for (int64_t m = 0; m < M; ++m)
      forEach(out, [&](const std::vector<int64_t> &o) {
        double acc = b ? floats(*b)[m] : 0.0;
        int64_t g = m / mg;
        for (int64_t c = 0; c < cg; ++c)
          forEach(k, [&](const std::vector<int64_t> &t) {
            int64_t xo = nn * xs[0] + (g * cg + c) * xs[1];
            for (size_t d = 0; d < n; ++d) {
              int64_t i = o[d] * st[d] - pb[d] + t[d] * dl[d];
              if (i < 0 || i >= in[d])
                return;
              xo += i * xs[d + 2];
            }
            int64_t wo = m * ws[0] + c * ws[1];
            for (size_t d = 0; d < n; ++d)
              wo += t[d] * ws[d + 2];
            acc += (double)floats(x)[xo] * floats(w)[wo];
          });
        y.push_back((float)acc);
      });
  return y;
}

struct ConvCase {
  std::vector<int64_t> x, w;
  int64_t group;
  std::vector<int64_t> strides, dilations, pads, out;
  bool bias;
};

void checkConv(const ConvCase &cc) {
  SCOPED_TRACE("X " + shapeString(cc.x) + " W " + shapeString(cc.w));
  NodeModel m("Conv", 13);
  Tensor x = floatTensor(cc.x, 1), w = floatTensor(cc.w, 2),
         b = floatTensor({cc.w[0]}, 3);
  m.input(x);
  m.input(w);
  if (cc.bias)
    m.input(b);
  m.i("group", cc.group);
  m.ints("strides", cc.strides);
  m.ints("dilations", cc.dilations);
  m.ints("pads", cc.pads);
  auto outs = m.run();
  ASSERT_EQ(outs.size(), 1u);
  std::vector<int64_t> shape = {cc.x[0], cc.w[0]};
  shape.insert(shape.end(), cc.out.begin(), cc.out.end());
  expectNear(outs[0], shape,
             refConv(x, w, cc.bias ? &b : nullptr, cc.group, cc.out,
                     cc.strides, cc.dilations, cc.pads));
}

TEST(OnnxNN, ConvGroupsDilationsAsymmetricPads) {
  // 2-D, 2 groups, stride (2,1), dilation (2,1), pads (1,0,2,3):
  // out = floor((9 + 3 - 5) / 2) + 1 = 4, (11 + 3 - 3) / 1 + 1 = 12.
  checkConv({{2, 4, 9, 11}, {6, 2, 3, 3}, 2, {2, 1}, {2, 1}, {1, 0, 2, 3},
             {4, 12}, true});
}

TEST(OnnxNN, ConvDepthwise1D) {
  checkConv({{1, 3, 20}, {6, 1, 4}, 3, {3}, {1}, {2, 1}, {7}, true});
}

TEST(OnnxNN, ConvDepthwise2D) {
  // One input and one output channel per group: the direct depthwise kernel
  // (no im2col), padded on every side, with a bias.
  checkConv({{1, 4, 9, 11}, {4, 1, 3, 3}, 4, {1, 1}, {1, 1}, {1, 1, 1, 1},
             {9, 11}, true});
}

TEST(OnnxNN, ConvDepthwise2DStridedDilatedUnevenPads) {
  // Strides and dilations differ per axis, pads differ per side: each tap's
  // range of output positions inside the image is clipped on its own.
  checkConv({{2, 3, 10, 13}, {3, 1, 3, 2}, 3, {2, 3}, {2, 1}, {2, 0, 1, 1},
             {5, 5}, false});
}

/// Runs the 2-D Conv of X, W (and B) with the attributes given and the same
/// convolution written as 3-D of depth 1 (which builds im2col columns) and
/// expects the same bits.
void expectSameBitsAs3D(const Tensor &x, const Tensor &w, const Tensor *b,
                        int64_t group, const std::vector<int64_t> &strides,
                        const std::vector<int64_t> &dilations,
                        const std::vector<int64_t> &pads) {
  auto conv = [&](const Tensor &xt, const Tensor &wt,
                  const std::vector<int64_t> &st, const std::vector<int64_t> &dl,
                  const std::vector<int64_t> &pd) {
    NodeModel m("Conv", 13);
    m.input(xt);
    m.input(wt);
    if (b)
      m.input(*b);
    m.i("group", group);
    m.ints("strides", st);
    m.ints("dilations", dl);
    m.ints("pads", pd);
    return m.run();
  };
  Tensor x3 = x, w3 = w;
  x3.shape.insert(x3.shape.begin() + 2, 1);
  w3.shape.insert(w3.shape.begin() + 2, 1);
  auto o2 = conv(x, w, strides, dilations, pads);
  auto o3 = conv(x3, w3, {1, strides[0], strides[1]},
                 {1, dilations[0], dilations[1]},
                 {0, pads[0], pads[1], 0, pads[2], pads[3]});
  ASSERT_EQ(o2.size(), 1u);
  ASSERT_EQ(o3.size(), 1u);
  ASSERT_GT(o2[0].numel(), 0);
  ASSERT_EQ(o2[0].data.size(), o3[0].data.size());
  for (int64_t i = 0; i < o2[0].numel(); ++i)
    ASSERT_EQ(floats(o2[0])[i], floats(o3[0])[i]) << "at " << i;
}

TEST(OnnxNN, ConvDepthwise2DBitIdenticalToIm2col) {
  // The depthwise kernel adds each element's taps in im2col's order, the
  // padding's zeros included (a kernel row of 3, 5 or 7 taps at once, all
  // nine of a 3x3 kernel at once on rows inside the image, other
  // widths a tap at a time), so the same convolution written as a 3-D one of
  // depth 1, which builds columns for the GEMM, gives the same bits.
  struct Case {
    int64_t C, H, W, KH, KW, sh, sw, dh, dw;
    std::vector<int64_t> pads; // top, left, bottom, right
  };
  const Case cases[] = {
      {3, 12, 20, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}},
      {2, 17, 41, 5, 5, 2, 2, 1, 1, {2, 2, 2, 2}},
      {2, 9, 30, 3, 7, 1, 1, 2, 2, {3, 6, 1, 0}},
      {4, 9, 9, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}},
      // 3x3 rows inside the image: nine taps per output in one register.
      {2, 11, 37, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}},
      {2, 12, 40, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}},
      {3, 13, 45, 3, 3, 2, 2, 1, 1, {1, 0, 1, 0}},
      {2, 8, 19, 2, 4, 1, 1, 1, 1, {1, 2, 0, 1}}, // width 4: a tap at a time
      {2, 7, 3, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}},  // narrower than the kernel
      {2, 16, 27, 5, 5, 2, 2, 2, 2, {4, 4, 3, 3}},
      // Small maps (stride 1, rows under 32): the whole plane at once.
      {3, 10, 10, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}},
      {2, 20, 20, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}},
      {2, 6, 9, 3, 5, 1, 1, 2, 1, {3, 1, 0, 4}},
      {2, 5, 4, 7, 7, 1, 1, 1, 1, {3, 3, 3, 3}}, // pads wider than the image
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("k " + std::to_string(c.KH) + "x" + std::to_string(c.KW) +
                 " stride " + std::to_string(c.sw) + " dilation " +
                 std::to_string(c.dw) + " W " + std::to_string(c.W));
    Tensor x = floatTensor({1, c.C, c.H, c.W}, 11),
           w = floatTensor({c.C, 1, c.KH, c.KW}, 12), b = floatTensor({c.C}, 13);
    expectSameBitsAs3D(x, w, &b, c.C, {c.sh, c.sw}, {c.dh, c.dw}, c.pads);
  }
}

TEST(OnnxNN, ConvShiftedRowsAgainstSpec) {
  // Stride 1 and output rows wide enough: the GEMM reads the taps as shifted
  // rows of a padded copy (nn.c's conv_shifted) instead of im2col columns.
  checkConv({{2, 5, 9, 33}, {7, 5, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1},
             {9, 33}, true});
  checkConv({{1, 4, 12, 40}, {6, 2, 5, 3}, 2, {1, 1}, {2, 2}, {3, 0, 1, 4},
             {8, 40}, false});
}

TEST(OnnxNN, ConvShiftedRowsBitIdenticalToIm2col) {
  // The shifted-row GEMM sums the values im2col would build, padding zeros
  // included, in its order: the same conv written as 3-D (depth 1), which
  // builds columns, gives the same bits.
  struct Case {
    int64_t N, C, H, W, M, G, KH, KW, dh, dw;
    std::vector<int64_t> pads; // top, left, bottom, right
    bool bias;
  };
  const Case cases[] = {
      {1, 96, 12, 40, 24, 1, 3, 3, 1, 1, {1, 1, 1, 1}, true},
      {2, 5, 9, 33, 7, 1, 3, 3, 1, 1, {1, 1, 1, 1}, false},
      {1, 4, 11, 48, 70, 2, 5, 5, 1, 2, {2, 4, 3, 1}, true},
      {1, 3, 7, 29, 5, 1, 3, 1, 2, 1, {2, 0, 2, 0}, true}, // no dropped columns
      {1, 2, 4, 64, 3, 1, 2, 3, 1, 1, {5, 3, 5, 3}, true}, // pads past the image
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("C " + std::to_string(c.C) + " W " + std::to_string(c.W) +
                 " k " + std::to_string(c.KH) + "x" + std::to_string(c.KW));
    Tensor x = floatTensor({c.N, c.C, c.H, c.W}, 21),
           w = floatTensor({c.M, c.C / c.G, c.KH, c.KW}, 22),
           b = floatTensor({c.M}, 23);
    expectSameBitsAs3D(x, w, c.bias ? &b : nullptr, c.G, {1, 1}, {c.dh, c.dw},
                       c.pads);
  }
}

TEST(OnnxNN, Conv3D) {
  checkConv({{1, 2, 5, 6, 7}, {3, 2, 2, 3, 3}, 1, {1, 2, 1}, {1, 1, 2},
             {1, 0, 1, 0, 1, 1}, {5, 3, 5}, false});
}

TEST(OnnxNN, ConvPointwiseDirect) {
  // 1x1, stride 1, no padding: X is the column matrix (no im2col).
  checkConv({{2, 5, 7, 9}, {17, 5, 1, 1}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0},
             {7, 9}, true});
}

TEST(OnnxNN, ConvIm2colInChunks) {
  // 16 channels x 3x3 taps = 576 bytes per column, 48x48 = 2304 columns:
  // more than the 1 MiB im2col budget, so the columns are built in chunks
  // (the last one shorter).
  checkConv({{1, 16, 48, 48}, {5, 16, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1},
             {48, 48}, true});
}

TEST(OnnxNN, ConvAutoPadSameLowerAndKernelShapeMismatch) {
  NodeModel m("Conv", 13);
  Tensor x = floatTensor({1, 1, 6, 5}, 4), w = floatTensor({2, 1, 4, 2}, 5);
  m.input(x);
  m.input(w);
  m.s("auto_pad", "SAME_LOWER");
  m.ints("strides", {2, 2});
  auto outs = m.run();
  // out = ceil(6/2) = 3, ceil(5/2) = 3; total pad = (3-1)*2 + 4 - 6 = 2 and
  // (3-1)*2 + 2 - 5 = 1; SAME_LOWER puts the odd one at the beginning.
  expectNear(outs[0], {1, 2, 3, 3},
             refConv(x, w, nullptr, 1, {3, 3}, {2, 2}, {1, 1}, {1, 1}));

  NodeModel bad("Conv", 13);
  bad.input(x);
  bad.input(w);
  bad.ints("kernel_shape", {3, 3});
  std::string error;
  bad.run(&error);
  EXPECT_NE(error.find("kernel_shape [3,3] does not match"), std::string::npos)
      << error;
}

/// ConvTranspose from the spec: every x[n, c, i] adds x * w[c, m, k] into
/// y[n, g * mg + m, i * s - pb + k * d] (dropped outside the output).
std::vector<float> refConvTranspose(const Tensor &x, const Tensor &w,
                                    const Tensor *b, int64_t G,
                                    const std::vector<int64_t> &out,
                                    const std::vector<int64_t> &st,
                                    const std::vector<int64_t> &dl,
                                    const std::vector<int64_t> &pb) {
  size_t n = x.shape.size() - 2;
  int64_t N = x.shape[0], C = x.shape[1], mg = w.shape[1], M = mg * G,
          cg = C / G;
  std::vector<int64_t> in(x.shape.begin() + 2, x.shape.end()),
      k(w.shape.begin() + 2, w.shape.end());
  std::vector<int64_t> yshape = {N, M};
  yshape.insert(yshape.end(), out.begin(), out.end());
  auto xs = strides(x.shape), ws = strides(w.shape), ys = strides(yshape);
  std::vector<double> y(product(yshape), 0.0);
  for (int64_t nn = 0; nn < N; ++nn)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t p = 0; p < product(out); ++p)
        y[nn * ys[0] + m * ys[1] + p] = b ? floats(*b)[m] : 0.0;
  for (int64_t nn = 0; nn < N; ++nn)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t m = 0; m < mg; ++m)
        forEach(in, [&](const std::vector<int64_t> &i) {
          forEach(k, [&](const std::vector<int64_t> &t) {
            int64_t yo = nn * ys[0] + ((c / cg) * mg + m) * ys[1];
            int64_t xo = nn * xs[0] + c * xs[1], wo = c * ws[0] + m * ws[1];
            for (size_t d = 0; d < n; ++d) {
              int64_t o = i[d] * st[d] - pb[d] + t[d] * dl[d];
              if (o < 0 || o >= out[d])
                return;
              yo += o * ys[d + 2];
              xo += i[d] * xs[d + 2];
              wo += t[d] * ws[d + 2];
            }
            y[yo] += (double)floats(x)[xo] * floats(w)[wo];
          });
        });
  return std::vector<float>(y.begin(), y.end());
}

TEST(OnnxNN, ConvTransposeGroupsStridesDilationsOutputPadding) {
  NodeModel m("ConvTranspose", 13);
  Tensor x = floatTensor({2, 4, 5, 3}, 6), w = floatTensor({4, 3, 3, 2}, 7),
         b = floatTensor({6}, 8);
  m.input(x);
  m.input(w);
  m.input(b);
  m.i("group", 2);
  m.ints("strides", {2, 3});
  m.ints("dilations", {2, 1});
  m.ints("pads", {1, 0, 2, 1});
  m.ints("output_padding", {1, 2});
  auto outs = m.run();
  // out = s * (in - 1) + output_padding + (k - 1) * d + 1 - pads
  //     = 2*4 + 1 + 5 - 3 = 11 and 3*2 + 2 + 2 - 1 = 9.
  expectNear(outs[0], {2, 6, 11, 9},
             refConvTranspose(x, w, &b, 2, {11, 9}, {2, 3}, {2, 1}, {1, 0}));
}

TEST(OnnxNN, ConvTranspose1DOutputShape) {
  NodeModel m("ConvTranspose", 13);
  Tensor x = floatTensor({1, 2, 4}, 9), w = floatTensor({2, 3, 3}, 10);
  m.input(x);
  m.input(w);
  m.ints("strides", {2});
  m.ints("output_shape", {10});
  auto outs = m.run();
  // total padding = 2*3 + 3 - 10 = -1: begin = -1 - floor(-1/2) = 0, the
  // output grows by one position at the end.
  expectNear(outs[0], {1, 3, 10},
             refConvTranspose(x, w, nullptr, 1, {10}, {2}, {1}, {0}));
}

/// MatMul of A [.., M, K] and B [.., K, N] (already 2-D or more), batch
/// broadcast numpy-style.
std::vector<float> refMatMul(const Tensor &a, const Tensor &b,
                             const std::vector<int64_t> &batch) {
  int64_t M = a.shape[a.shape.size() - 2], K = a.shape.back(),
          N = b.shape.back();
  std::vector<float> y;
  auto offset = [&](const Tensor &t, const std::vector<int64_t> &idx) {
    size_t r = t.shape.size() - 2, lead = batch.size() - r;
    int64_t o = 0;
    for (size_t d = 0; d < r; ++d)
      o = o * t.shape[d] + (t.shape[d] == 1 ? 0 : idx[lead + d]);
    return o * t.shape[r] * t.shape[r + 1];
  };
  forEach(batch, [&](const std::vector<int64_t> &idx) {
    const float *pa = floats(a) + offset(a, idx), *pb = floats(b) + offset(b, idx);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += (double)pa[i * K + k] * pb[k * N + j];
        y.push_back((float)acc);
      }
  });
  return y;
}

TEST(OnnxNN, MatMulBatchBroadcastAndTails) {
  NodeModel m("MatMul", 13);
  Tensor a = floatTensor({2, 1, 5, 7}, 11), b = floatTensor({3, 7, 19}, 12);
  m.input(a);
  m.input(b);
  auto outs = m.run();
  expectNear(outs[0], {2, 3, 5, 19}, refMatMul(a, b, {2, 3}));
}

TEST(OnnxNN, MatMulBlocking) {
  // m > MC (64), k > KC (256), n with a tail of 5 columns.
  NodeModel m("MatMul", 13);
  Tensor a = floatTensor({70, 300}, 13), b = floatTensor({300, 37}, 14);
  m.input(a);
  m.input(b);
  auto outs = m.run();
  expectNear(outs[0], {70, 37}, refMatMul(a, b, {}), 1e-3f);
}

TEST(OnnxNN, MatMulVectors) {
  Tensor v = floatTensor({6}, 15), mat = floatTensor({2, 6, 3}, 16);
  NodeModel left("MatMul", 13); // [6] x [2,6,3] -> [2,3]
  left.input(v);
  left.input(mat);
  Tensor row = v;
  row.shape = {1, 6};
  expectNear(left.run()[0], {2, 3}, refMatMul(row, mat, {2}));
  NodeModel right("MatMul", 13); // [2,3,6] x [6] -> [2,3]
  Tensor lhs = floatTensor({2, 3, 6}, 17);
  right.input(lhs);
  right.input(v);
  Tensor col = v;
  col.shape = {6, 1};
  expectNear(right.run()[0], {2, 3}, refMatMul(lhs, col, {2}));
}

TEST(OnnxNN, MatMulInt64) {
  Tensor a, b;
  a.dtype = b.dtype = I64;
  a.shape = {2, 3};
  b.shape = {3, 2};
  a.isConst = b.isConst = true;
  std::vector<int64_t> av = {1, -2, 3, 4, 5, -6}, bv = {7, 8, 9, 10, 11, 12};
  a.data.resize(48);
  b.data.resize(48);
  memcpy(a.data.data(), av.data(), 48);
  memcpy(b.data.data(), bv.data(), 48);
  NodeModel m("MatMul", 13);
  m.input(a);
  m.input(b);
  auto outs = m.run();
  // [1,-2,3; 4,5,-6] x [7,8; 9,10; 11,12], exact in int64.
  ASSERT_EQ(outs[0].ints(), (std::vector<int64_t>{22, 24, 7, 10}));
}

TEST(OnnxNN, GemmKernelTransposedOperandsThroughScratch) {
  // kiln_t_gemm as generated code calls it with a B known only at run time:
  // transB packs B^T into the scratch. A' = A^T, C broadcast along rows.
  int64_t M = 6, N = 21, K = 9;
  Tensor a = floatTensor({K, M}, 18), b = floatTensor({N, K}, 19),
         c = floatTensor({N}, 20);
  std::vector<float> y(M * N), scratch(KILN_SGEMM_PACK_FLOATS + K * N);
  int64_t p[] = {F32, M, N, K, 1, 1, 1, 0, 1, 0}; // no epilogue
  float f[] = {0.5f, -2.0f};
  const void *in[] = {a.data.data(), b.data.data(), c.data.data()};
  void *out[] = {y.data()};
  kiln_t_gemm(p, f, in, out, scratch.data());
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += (double)floats(a)[k * M + i] * floats(b)[j * K + k];
      float want = (float)(0.5 * acc - 2.0 * floats(c)[j]);
      ASSERT_NEAR(y[i * N + j], want, 1e-4f) << i << "," << j;
    }
}

TEST(OnnxNN, MaxPoolIndicesBothStorageOrders) {
  for (int64_t order : {0, 1}) {
    NodeModel m("MaxPool", 12, 2);
    Tensor x = floatTensor({1, 2, 4, 5}, 21);
    m.input(x);
    m.ints("kernel_shape", {2, 3});
    m.ints("strides", {2, 2});
    m.ints("pads", {0, 1, 1, 1});
    m.i("ceil_mode", 1);
    m.i("storage_order", order);
    auto outs = m.run();
    // ceil((4 + 1 - 2) / 2) + 1 = 3, but the last window would start at
    // row 4, past the input: 2 rows. ceil((5 + 2 - 3) / 2) + 1 = 3 columns.
    ASSERT_EQ(outs.size(), 2u);
    ASSERT_EQ(outs[0].shape, (std::vector<int64_t>{1, 2, 2, 3}));
    const float *xv = floats(x);
    auto idx = outs[1].ints();
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t oh = 0; oh < 2; ++oh)
        for (int64_t ow = 0; ow < 3; ++ow) {
          float best = -INFINITY;
          int64_t at = -1;
          for (int64_t kh = 0; kh < 2; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw) {
              int64_t h = oh * 2 + kh, w = ow * 2 - 1 + kw;
              if (h < 0 || h >= 4 || w < 0 || w >= 5)
                continue;
              if (xv[c * 20 + h * 5 + w] > best) {
                best = xv[c * 20 + h * 5 + w];
                at = c * 20 + (order ? h + w * 4 : h * 5 + w);
              }
            }
          int64_t o = c * 6 + oh * 3 + ow;
          EXPECT_EQ(floats(outs[0])[o], best);
          EXPECT_EQ(idx[o], at) << "storage_order " << order;
        }
  }
}

TEST(OnnxNN, AveragePoolCountIncludePadWithCeil) {
  for (int64_t include : {0, 1}) {
    NodeModel m("AveragePool", 11);
    Tensor x = floatTensor({1, 1, 5}, 22);
    m.input(x);
    m.ints("kernel_shape", {3});
    m.ints("strides", {2});
    m.ints("pads", {1, 1});
    m.i("ceil_mode", 1);
    m.i("count_include_pad", include);
    auto outs = m.run();
    // ceil((5 + 2 - 3) / 2) + 1 = 3 windows starting at -1, 1, 3; the last
    // one covers 3, 4 and the pad at 5 (counted only with include).
    const float *v = floats(x);
    std::vector<float> want = {
        (v[0] + v[1]) / (include ? 3.0f : 2.0f), (v[1] + v[2] + v[3]) / 3.0f,
        (v[3] + v[4]) / (include ? 3.0f : 2.0f)};
    expectNear(outs[0], {1, 1, 3}, want);
  }
}

TEST(OnnxNN, BatchNormTrainingModeIsRejected) {
  NodeModel m("BatchNormalization", 15);
  m.input(floatTensor({1, 2, 3}, 23));
  for (int i = 0; i < 4; ++i)
    m.input(floatTensor({2}, 24 + i));
  m.i("training_mode", 1);
  std::string error;
  m.run(&error);
  EXPECT_NE(error.find("training_mode=1 is not supported"), std::string::npos)
      << error;
}

// Contiguous f32 rows take the kernel's own vector exp: against double
// precision on rows whose lengths leave every tail size (1 to 7 lanes), with
// spreads down to exp's underflow, -inf entries (exactly 0), a NaN (the row
// NaN), and LogSoftmax. 4 ulp-ish relative error: exp's 2 ulp, the sum and
// the division.
TEST(OnnxNN, GlobalAveragePoolAgainstDouble) {
  // Eight running sums then a pairwise total: every element counted once,
  // whole groups of eight and the tail alike.
  for (int64_t S : {1, 7, 8, 9, 25, 6400, 6403}) {
    const int64_t planes = 3;
    std::vector<float> x(planes * S), y(planes);
    std::mt19937 rng((unsigned)S);
    std::uniform_real_distribution<float> u(-4.0f, 8.0f);
    for (float &v : x)
      v = u(rng);
    const int64_t p[] = {KILN_F32, 1, planes, S};
    const void *in[] = {x.data()};
    void *out[] = {y.data()};
    kiln_t_global_pool(p, nullptr, in, out, nullptr);
    for (int64_t pl = 0; pl < planes; ++pl) {
      double s = 0;
      for (int64_t i = 0; i < S; ++i)
        s += x[pl * S + i];
      EXPECT_NEAR(y[pl], s / S, 1e-6 * (1 + std::fabs(s / S))) << S << " " << pl;
    }
  }
}

TEST(OnnxNN, SoftmaxRowsAgainstDouble) {
  for (int64_t op : {0, 1}) // Softmax, LogSoftmax
    for (int64_t n : {1, 7, 8, 13, 64, 6625}) {
      const int64_t outer = 3;
      std::vector<float> x(outer * n), y(outer * n);
      std::mt19937 rng(unsigned(n * 2 + op));
      std::uniform_real_distribution<float> u(-60.0f, 20.0f);
      for (float &v : x)
        v = u(rng);
      if (n > 2)
        x[n + 1] = -INFINITY; // row 1
      const int64_t p[] = {op, KILN_F32, outer, n, 1};
      const void *in[] = {x.data()};
      void *out[] = {y.data()};
      kiln_t_softmax(p, nullptr, in, out, nullptr);
      for (int64_t o = 0; o < outer; ++o) {
        double m = -INFINITY, s = 0;
        for (int64_t j = 0; j < n; ++j)
          m = std::max(m, (double)x[o * n + j]);
        for (int64_t j = 0; j < n; ++j)
          s += std::exp((double)x[o * n + j] - m);
        for (int64_t j = 0; j < n; ++j) {
          const double xv = x[o * n + j], got = y[o * n + j];
          if (op == 1) {
            if (std::isinf(xv))
              EXPECT_TRUE(std::isinf(got) && got < 0) << n << " " << j;
            else
              EXPECT_NEAR(got, xv - m - std::log(s), 2e-6 * (1 + std::fabs(xv - m)))
                  << n << " " << j;
            continue;
          }
          // x - max rounded to float, as the kernel computes it (at -70
          // that rounding alone moves e^x by 2e-6).
          const double want = std::exp((double)(float)(xv - m)) / s;
          if (std::isinf(xv))
            EXPECT_EQ(got, 0.0) << n << " " << j;
          else if (want > 1e-37)
            EXPECT_NEAR(got, want, 5e-7 * want) << n << " " << o << " " << j;
          else
            EXPECT_LE(got, 2e-37) << n << " " << j;
        }
      }
    }
  std::vector<float> x = {0.5f, NAN, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f},
                     y(9);
  const int64_t p[] = {0, KILN_F32, 1, 9, 1};
  const void *in[] = {x.data()};
  void *out[] = {y.data()};
  kiln_t_softmax(p, nullptr, in, out, nullptr);
  for (float v : y)
    EXPECT_TRUE(std::isnan(v));
}


// --- shares (kiln_tp_*, for threads) ------------------------------------------

/// Lowers the model with its inputs given at run time, so its calls remain,
/// and runs them twice: each call whole (kiln_t_*), and with every kernel that
/// has shares split into `parts` of them (kiln_tp_*), run last share first,
/// each with its own scratch full of garbage, every output prefilled with a
/// pattern. The graph's outputs must be the same bytes: shares that left an
/// element unwritten, wrote it differently or depended on each other's
/// scratch would show.
void expectSharesMatchWhole(NodeModel &m, std::vector<int> partCounts = {2, 3, 5}) {
  static const std::map<std::string, kiln_tensor_kernel> whole = {
#define KILN_TENSOR_KERNEL(name) {#name, kiln_t_##name},
#include "kernels/tensor/kiln_tensor_kernels.def"
#undef KILN_TENSOR_KERNEL
  };
  static const std::map<std::string, kiln_tensor_part_kernel> shared = {
#define KILN_TENSOR_PARTS(name) {#name, kiln_tp_##name},
#include "kernels/tensor/kiln_tensor_kernels.def"
#undef KILN_TENSOR_PARTS
  };
  Model model;
  model.proto = std::make_shared<::onnx::ModelProto>(m.proto);
  model.opset = m.opset;
  LoweredGraph g;
  std::string error;
  ASSERT_TRUE(lowerModel(model, {}, g, error)) << error;
  size_t withShares = 0;
  for (const Call &c : g.calls)
    withShares += shared.count(c.kernel);
  ASSERT_GT(withShares, 0u) << "no call of a kernel with shares";

  auto run = [&](int parts) {
    std::vector<std::vector<uint8_t>> buf(g.tensors.size());
    for (size_t i = 0; i < g.tensors.size(); ++i) {
      const Tensor &t = *g.tensors[i];
      if (t.isConst)
        buf[i] = t.data;
      else if (t.input >= 0)
        buf[i] = m.values.at(t.name).data;
      else
        buf[i].assign(t.bytes(), 0xA7);
    }
    static const float noFloats[4] = {0, 0, 0, 0};
    for (const Call &c : g.calls) {
      std::vector<const void *> in;
      std::vector<void *> out;
      for (int id : c.inputs)
        in.push_back(id < 0 ? nullptr : buf[id].data());
      for (int id : c.outputs)
        out.push_back(buf[id].data());
      const float *f = c.f.empty() ? noFloats : c.f.data();
      auto it = shared.find(c.kernel);
      const int n = it == shared.end() ? 1 : parts;
      std::vector<std::vector<uint64_t>> scratch(
          n, std::vector<uint64_t>(c.scratch / 8 + 2, 0xDEADBEEFDEADBEEFull));
      if (n == 1)
        whole.at(c.kernel)(c.p.data(), f, in.data(), out.data(),
                           scratch[0].data());
      else
        for (int s = n - 1; s >= 0; --s)
          it->second(c.p.data(), f, in.data(), out.data(), scratch[s].data(), s,
                     n);
    }
    std::vector<std::vector<uint8_t>> outs;
    for (int id : g.outputs)
      outs.push_back(buf[id]);
    return outs;
  };
  const auto want = run(1);
  for (int parts : partCounts) {
    SCOPED_TRACE(std::to_string(parts) + " shares");
    const auto got = run(parts);
    ASSERT_EQ(got.size(), want.size());
    for (size_t o = 0; o < want.size(); ++o) {
      ASSERT_EQ(got[o].size(), want[o].size());
      for (size_t i = 0; i < want[o].size(); ++i)
        ASSERT_EQ(got[o][i], want[o][i]) << "output " << o << ", byte " << i;
    }
  }
}

TEST(OnnxShares, ConvOverPositionsAndChannels) {
  struct Case {
    std::vector<int64_t> x, w;
    int64_t group;
    std::vector<int64_t> strides, pads;
  };
  const Case cases[] = {
      {{1, 3, 20, 30}, {8, 3, 3, 3}, 1, {1, 1}, {1, 1, 1, 1}}, // positions
      {{1, 4, 6, 7}, {13, 4, 3, 3}, 1, {1, 1}, {1, 1, 1, 1}},  // channels
      {{2, 16, 10, 20}, {24, 16, 1, 1}, 1, {1, 1}, {0, 0, 0, 0}}, // direct
      {{1, 8, 6, 30}, {130, 8, 1, 1}, 1, {1, 1}, {0, 0, 0, 0}},  // by channel
      {{2, 6, 9, 11}, {6, 1, 3, 3}, 6, {2, 1}, {1, 1, 1, 1}},  // depthwise
      {{1, 5, 10, 10}, {5, 1, 5, 5}, 5, {1, 1}, {2, 2, 2, 2}}, // small map
      {{1, 4, 12, 40}, {6, 2, 3, 3}, 2, {1, 2}, {0, 1, 2, 1}}, // groups
      {{2, 6, 7, 40}, {6, 3, 3, 3}, 2, {1, 1}, {1, 2, 0, 1}},  // shifted rows
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("X " + shapeString(c.x) + " W " + shapeString(c.w));
    NodeModel m("Conv", 13);
    m.input(floatTensor(c.x, 1));
    m.input(floatTensor(c.w, 2));
    m.input(floatTensor({c.w[0]}, 3));
    m.i("group", c.group);
    m.ints("strides", c.strides);
    m.ints("pads", c.pads);
    expectSharesMatchWhole(m);
  }
}

TEST(OnnxShares, Conv3DAndConvTranspose) {
  NodeModel c3("Conv", 13); // im2col_walk, two groups
  c3.input(floatTensor({1, 4, 5, 6, 7}, 1));
  c3.input(floatTensor({6, 2, 2, 3, 3}, 2));
  c3.i("group", 2);
  c3.ints("pads", {1, 0, 1, 0, 1, 1});
  expectSharesMatchWhole(c3);
  NodeModel ct("ConvTranspose", 13); // three channels per group: 5 shares
  ct.input(floatTensor({1, 4, 5, 6}, 1)); // leave some empty
  ct.input(floatTensor({4, 3, 3, 3}, 2));
  ct.input(floatTensor({6}, 3));
  ct.i("group", 2);
  ct.ints("strides", {2, 2});
  ct.ints("pads", {1, 0, 0, 1});
  expectSharesMatchWhole(ct);
}

TEST(OnnxShares, MatMulRowsAndColumns) {
  NodeModel rows("MatMul", 13); // 240 rows across a broadcast batch
  rows.input(floatTensor({3, 1, 20, 17}, 1));
  rows.input(floatTensor({4, 17, 33}, 2));
  expectSharesMatchWhole(rows);
  NodeModel cols("MatMul", 13); // five rows: columns
  cols.input(floatTensor({5, 300}, 1));
  cols.input(floatTensor({300, 70}, 2));
  expectSharesMatchWhole(cols);
  Tensor a, b; // the generic loop (int64), columns
  a.dtype = b.dtype = I64;
  a.shape = {3, 4};
  b.shape = {4, 40};
  for (Tensor *t : {&a, &b}) {
    t->data.resize(t->bytes());
    for (int64_t i = 0; i < t->numel(); ++i)
      ((int64_t *)t->data.data())[i] = i % 7 - 3;
  }
  NodeModel ints("MatMul", 13);
  ints.input(a);
  ints.input(b);
  expectSharesMatchWhole(ints);
}

TEST(OnnxShares, ElementwiseSoftmaxPoolingResize) {
  NodeModel add("Add", 13); // broadcast rows
  add.input(floatTensor({4, 1, 37}, 1));
  add.input(floatTensor({1, 5, 37}, 2));
  expectSharesMatchWhole(add);
  NodeModel pw("Pow", 13); // one row: within it
  pw.input(floatTensor({37}, 1));
  pw.input(floatTensor({37}, 2));
  expectSharesMatchWhole(pw);
  NodeModel gt("Greater", 13); // bool results
  gt.input(floatTensor({2, 3, 50}, 1));
  gt.input(floatTensor({50}, 2));
  expectSharesMatchWhole(gt);
  for (int64_t axis : {1, -1}) {
    NodeModel sm("Softmax", 13);
    sm.input(floatTensor({3, 7, 5}, 1));
    sm.i("axis", axis);
    expectSharesMatchWhole(sm);
  }
  for (const char *op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    NodeModel gp(op, 13);
    gp.input(floatTensor({2, 3, 4, 5}, 1));
    expectSharesMatchWhole(gp);
  }
  for (const char *mode : {"nearest", "linear"}) {
    NodeModel rs("Resize", 13);
    rs.input(floatTensor({1, 2, 5, 7}, 1));
    Tensor roi, scales;
    roi.dtype = scales.dtype = F32;
    roi.shape = {0};
    scales.shape = {4};
    scales.data.resize(16);
    const float sc[4] = {1, 1, 2.0f, 1.5f};
    memcpy(scales.data.data(), sc, 16);
    rs.constant(roi);
    rs.constant(scales);
    rs.s("mode", mode);
    expectSharesMatchWhole(rs);
  }
}

} // namespace
