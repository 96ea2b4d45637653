//===- Import.cpp - a lowered ONNX graph as kiln dialect ops --------------===//
#include "compiler/frontend/onnx/Import.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <algorithm>

using namespace mlir;

namespace kiln {

static Type elementType(MLIRContext &ctx, int32_t dtype) {
  Builder b(&ctx);
  switch (dtype) {
  case onnx::F32: return b.getF32Type();
  case onnx::F64: return b.getF64Type();
  case onnx::F16: return b.getF16Type();
  case onnx::BOOL: return b.getI1Type();
  case onnx::I8: return b.getI8Type();
  case onnx::I16: return b.getI16Type();
  case onnx::I32: return b.getI32Type();
  case onnx::I64: return b.getI64Type();
  case onnx::U8: return IntegerType::get(&ctx, 8, IntegerType::Unsigned);
  case onnx::U16: return IntegerType::get(&ctx, 16, IntegerType::Unsigned);
  case onnx::U32: return IntegerType::get(&ctx, 32, IntegerType::Unsigned);
  case onnx::U64: return IntegerType::get(&ctx, 64, IntegerType::Unsigned);
  default: return {};
  }
}

/// A Conv node's call as kiln.conv: its geometry read back from the
/// parameters the converter wrote (nn.c's kiln_t_conv: {nsp, N, C, M, group,
/// chunk, mode, in, k, out, stride, dilation, pad_begin, 0}), the end pads
/// those the output reads (a pad no window reaches computes nothing).
static Value importConv(OpBuilder &b, Location loc, const onnx::Call &c,
                        ArrayRef<Value> operands, RankedTensorType result) {
  const int64_t n = c.p[0];
  auto list = [&](int64_t i) {
    return ArrayRef<int64_t>(c.p).slice(7 + i * n, n);
  };
  ArrayRef<int64_t> in = list(0), k = list(1), out = list(2),
                    stride = list(3), dil = list(4), padBegin = list(5);
  SmallVector<int64_t> pads(padBegin.begin(), padBegin.end());
  for (int64_t d = 0; d < n; ++d)
    pads.push_back(std::max<int64_t>(0, (out[d] - 1) * stride[d] +
                                            (k[d] - 1) * dil[d] + 1 - in[d] -
                                            padBegin[d]));
  Value bias = operands.size() > 2 ? operands[2] : Value();
  return b.create<ConvOp>(loc, result, operands[0], operands[1], bias,
                          ValueRange{}, b.getDenseI64ArrayAttr(stride),
                          b.getDenseI64ArrayAttr(dil),
                          b.getDenseI64ArrayAttr(pads),
                          b.getI64IntegerAttr(c.p[4]), DenseI64ArrayAttr(),
                          DenseF32ArrayAttr(), b.getStringAttr(c.opType),
                          b.getStringAttr(c.nodeName));
}

/// A ConvTranspose node's call as kiln.conv_transpose: strides, dilations
/// and group from the parameters the converter wrote (nn.c's
/// kiln_t_conv_transpose: {nsp, N, C, M, group, chunk, in, k, out, stride,
/// dilation, pad_begin, 0}), the pads and output_padding it kept.
static Value importConvTranspose(OpBuilder &b, Location loc,
                                 const onnx::Call &c, ArrayRef<int64_t> pads,
                                 ArrayRef<int64_t> outputPadding,
                                 ArrayRef<Value> operands,
                                 RankedTensorType result) {
  const int64_t n = c.p[0];
  auto list = [&](int64_t i) {
    return ArrayRef<int64_t>(c.p).slice(6 + i * n, n);
  };
  Value bias = operands.size() > 2 ? operands[2] : Value();
  return b.create<ConvTransposeOp>(
      loc, result, operands[0], operands[1], bias, ValueRange{},
      b.getDenseI64ArrayAttr(list(3)), b.getDenseI64ArrayAttr(list(4)),
      b.getDenseI64ArrayAttr(pads), b.getDenseI64ArrayAttr(outputPadding),
      b.getI64IntegerAttr(c.p[4]), DenseI64ArrayAttr(), DenseF32ArrayAttr(),
      b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
}

/// A MaxPool or AveragePool node's call as kiln.pool, from the parameters
/// the converter wrote (nn.c's kiln_t_pool: {dtype, kind, count_include_pad,
/// storage_order, indices, nsp, NC, in, k, out, stride, dilation,
/// pad_begin, pad_end}). ceil_mode is whether the output is larger than the
/// floor of the window count (it is the same op either way otherwise).
static Value importPool(OpBuilder &b, Location loc, const onnx::Call &c,
                        Value input, ArrayRef<Type> results) {
  const int64_t n = c.p[5];
  auto list = [&](int64_t i) {
    return ArrayRef<int64_t>(c.p).slice(7 + i * n, n);
  };
  ArrayRef<int64_t> in = list(0), k = list(1), out = list(2),
                    stride = list(3), dil = list(4);
  SmallVector<int64_t> pads(list(5).begin(), list(5).end());
  pads.append(list(6).begin(), list(6).end());
  bool ceil = false;
  for (int64_t d = 0; d < n; ++d)
    ceil |= (in[d] + pads[d] + pads[n + d] - (k[d] - 1) * dil[d] - 1) /
                    stride[d] + 1 != out[d];
  auto op = b.create<PoolOp>(
      loc, results, input, b.getStringAttr(c.p[1] ? "average" : "max"),
      b.getDenseI64ArrayAttr(k), b.getDenseI64ArrayAttr(stride),
      b.getDenseI64ArrayAttr(dil), b.getDenseI64ArrayAttr(pads),
      b.getBoolAttr(ceil), b.getBoolAttr(c.p[2] != 0),
      b.getI64IntegerAttr(c.p[3]), b.getStringAttr(c.opType),
      b.getStringAttr(c.nodeName));
  return op->getResult(0);
}

OwningOpRef<ModuleOp> importLoweredGraph(MLIRContext &ctx,
                                         const onnx::LoweredGraph &g,
                                         const std::string &path,
                                         std::string &error) {
  ctx.loadDialect<KilnDialect, func::FuncDialect>();
  OpBuilder b(&ctx);
  Location loc = FileLineColLoc::get(&ctx, path, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  (*module)->setAttr("kiln.graph", b.getStringAttr(g.name));
  (*module)->setAttr("kiln.opset", b.getI64IntegerAttr(g.opset));
  (*module)->setAttr("kiln.folded_calls", b.getI64IntegerAttr(g.folded));

  auto typeOf = [&](const onnx::Tensor &t) -> RankedTensorType {
    Type e = elementType(ctx, t.dtype);
    return e ? RankedTensorType::get(t.shape, e) : RankedTensorType();
  };
  for (const auto &t : g.tensors)
    if (!typeOf(*t)) {
      bool used = t->input >= 0;
      for (const auto &c : g.calls)
        for (int id : c.inputs)
          used |= id == t->id;
      for (int id : g.outputs)
        used |= id == t->id;
      if (used) {
        error = "tensor '" + t->name + "' has element type " +
                onnx::dtypeName(t->dtype) + ", which Kiln cannot hold";
        return nullptr;
      }
    }

  SmallVector<Type> argTypes, resultTypes;
  for (int id : g.inputs)
    argTypes.push_back(typeOf(*g.tensors[id]));
  for (int id : g.outputs)
    resultTypes.push_back(typeOf(*g.tensors[id]));
  b.setInsertionPointToEnd(module->getBody());
  auto func = b.create<func::FuncOp>(loc, "run",
                                     b.getFunctionType(argTypes, resultTypes));
  for (size_t i = 0; i < g.inputs.size(); ++i)
    func.setArgAttr(i, "kiln.name",
                    b.getStringAttr(g.tensors[g.inputs[i]]->name));
  for (size_t i = 0; i < g.outputs.size(); ++i)
    func.setResultAttr(i, "kiln.name",
                       b.getStringAttr(g.tensors[g.outputs[i]]->name));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);

  std::map<int, Value> values;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    values[g.inputs[i]] = body->getArgument(i);
  std::map<std::string, int> constantNames;
  auto valueOf = [&](int id) -> Value {
    auto it = values.find(id);
    if (it != values.end())
      return it->second;
    const onnx::Tensor &t = *g.tensors[id];
    assert(t.isConst && "a value used before it is computed");
    // Constants are named after the tensor (unique in the module).
    std::string name = t.name;
    if (constantNames.count(name))
      name += "#" + std::to_string(id);
    constantNames[name] = id;
    Value v = b.create<ConstantOp>(
        loc, name, typeOf(t),
        ArrayRef<char>((const char *)t.data.data(), t.data.size()));
    values[id] = v;
    return v;
  };

  for (const onnx::Call &c : g.calls) {
    SmallVector<Value> operands;
    SmallVector<int64_t> slots;
    bool absent = false;
    for (int id : c.inputs) {
      if (id < 0) {
        slots.push_back(-1);
        absent = true;
        continue;
      }
      slots.push_back(operands.size());
      operands.push_back(valueOf(id));
    }
    SmallVector<Type> results;
    for (int id : c.outputs)
      results.push_back(typeOf(*g.tensors[id]));
    Location nodeLoc = NameLoc::get(b.getStringAttr(c.nodeName), loc);
    // A copy of the whole input (Reshape and its kin) is a view.
    if (c.kernel == "copy" && operands.size() == 1 && results.size() == 1 &&
        !absent) {
      auto in = operands[0].getType().cast<RankedTensorType>();
      auto out = results[0].cast<RankedTensorType>();
      if (in.getElementType() == out.getElementType() &&
          in.getNumElements() == out.getNumElements()) {
        values[c.outputs[0]] = b.create<ReshapeOp>(
            nodeLoc, out, operands[0], b.getStringAttr(c.opType),
            b.getStringAttr(c.nodeName));
        continue;
      }
    }
    if (c.kernel == "binary") { // p = {code, types, rank, shape, strides}
      values[c.outputs[0]] = b.create<BinaryOp>(
          nodeLoc, results[0], operands[0], operands[1],
          b.getStringAttr(kBinaryKinds[c.p[0]]), b.getStringAttr(c.opType),
          b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "unary") { // p = {code, type, count}, f = {alpha, beta}
      values[c.outputs[0]] = b.create<UnaryOp>(
          nodeLoc, results[0], operands[0],
          b.getStringAttr(kUnaryKinds[c.p[0]]), b.getF32FloatAttr(c.f[0]),
          b.getF32FloatAttr(c.f[1]), b.getStringAttr(c.opType),
          b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "clip") { // inputs {x, min, max}, either omitted
      auto bound = [&](size_t i) {
        return c.inputs[i] < 0 ? Value() : valueOf(c.inputs[i]);
      };
      values[c.outputs[0]] = b.create<ClipOp>(
          nodeLoc, results[0], operands[0], bound(1), bound(2),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "batchnorm") { // f = {epsilon}
      values[c.outputs[0]] = b.create<BatchNormOp>(
          nodeLoc, results[0], operands[0], operands[1], operands[2],
          operands[3], operands[4], b.getF32FloatAttr(c.f[0]),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "pool") {
      Value y = importPool(b, nodeLoc, c, operands[0], results);
      values[c.outputs[0]] = y;
      if (c.outputs.size() > 1) // the indices
        values[c.outputs[1]] = y.getDefiningOp()->getResult(1);
      continue;
    }
    if (c.kernel == "global_pool") { // p = {dtype, kind, NC, S}
      values[c.outputs[0]] = b.create<GlobalPoolOp>(
          nodeLoc, results[0], operands[0],
          b.getStringAttr(c.p[1] ? "average" : "max"),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "gemm") { // p = {dtype, M, N, K, transA, transB, ...}
      auto op = b.create<GemmOp>(
          nodeLoc, results[0], operands[0], operands[1],
          operands.size() > 2 ? operands[2] : Value(), ValueRange{},
          c.p[4] ? b.getUnitAttr() : UnitAttr(),
          c.p[5] ? b.getUnitAttr() : UnitAttr(), b.getF32FloatAttr(c.f[0]),
          b.getF32FloatAttr(c.f[1]), DenseI64ArrayAttr(), DenseF32ArrayAttr(),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      values[c.outputs[0]] = op;
      continue;
    }
    auto list = [&](const char *name) -> ArrayRef<int64_t> {
      auto it = c.attrs.find(name); // what the converter kept for the op
      assert(it != c.attrs.end() &&
             "the converter records the typed op's attributes");
      return it->second;
    };
    auto attr = [&](const char *name) { return list(name).front(); };
    if (c.kernel == "matmul") {
      values[c.outputs[0]] = b.create<BatchMatMulOp>(
          nodeLoc, results[0], operands[0], operands[1], ValueRange{},
          DenseI64ArrayAttr(), DenseF32ArrayAttr(), b.getStringAttr(c.opType),
          b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "softmax") { // p = {kind, dtype, outer, n, inner}
      values[c.outputs[0]] = b.create<SoftmaxOp>(
          nodeLoc, results[0], operands[0],
          b.getStringAttr(kSoftmaxKinds[c.p[0]]),
          b.getI64IntegerAttr(attr("axis")),
          attr("flatten") ? b.getUnitAttr() : UnitAttr(),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "layernorm") { // inputs {x, scale, bias?}, f = {epsilon}
      auto op = b.create<LayerNormOp>(
          nodeLoc, results[0], results[1], results[2], operands[0],
          operands[1], operands.size() > 2 ? operands[2] : Value(),
          b.getI64IntegerAttr(attr("axis")), b.getF32FloatAttr(c.f[0]),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      for (size_t i = 0; i < 3; ++i)
        values[c.outputs[i]] = op->getResult(i);
      continue;
    }
    if (c.kernel == "instancenorm") { // f = {epsilon}
      values[c.outputs[0]] = b.create<InstanceNormOp>(
          nodeLoc, results[0], operands[0], operands[1], operands[2],
          b.getF32FloatAttr(c.f[0]), b.getStringAttr(c.opType),
          b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "lrn") { // p = {N, C, S, size}, f = {alpha, beta, bias}
      values[c.outputs[0]] = b.create<LrnOp>(
          nodeLoc, results[0], operands[0], b.getI64IntegerAttr(c.p[3]),
          b.getF32FloatAttr(c.f[0]), b.getF32FloatAttr(c.f[1]),
          b.getF32FloatAttr(c.f[2]), b.getStringAttr(c.opType),
          b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "reduce") { // p = {kind, ...}
      values[c.outputs[0]] = b.create<ReduceOp>(
          nodeLoc, results[0], operands[0],
          b.getStringAttr(kReduceKinds[c.p[0]]),
          b.getDenseI64ArrayAttr(list("axes")),
          b.getBoolAttr(attr("keepdims") != 0), b.getStringAttr(c.opType),
          b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "argminmax") { // p = {dtype, outer, n, inner, min, last}
      values[c.outputs[0]] = b.create<ArgReduceOp>(
          nodeLoc, results[0], operands[0],
          b.getStringAttr(c.p[4] ? "min" : "max"),
          b.getI64IntegerAttr(attr("axis")),
          b.getBoolAttr(attr("keepdims") != 0), b.getBoolAttr(c.p[5] != 0),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "concat") {
      values[c.outputs[0]] = b.create<ConcatOp>(
          nodeLoc, results[0], operands, b.getI64IntegerAttr(attr("axis")),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "split") {
      auto op = b.create<SplitOp>(nodeLoc, results, operands[0],
                                  b.getI64IntegerAttr(attr("axis")),
                                  b.getStringAttr(c.opType),
                                  b.getStringAttr(c.nodeName));
      for (size_t i = 0; i < c.outputs.size(); ++i)
        values[c.outputs[i]] = op->getResult(i);
      continue;
    }
    if (c.kernel == "gather") {
      values[c.outputs[0]] = b.create<GatherOp>(
          nodeLoc, results[0], operands[0], operands[1],
          b.getI64IntegerAttr(attr("axis")), b.getStringAttr(c.opType),
          b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "where") {
      values[c.outputs[0]] = b.create<WhereOp>(
          nodeLoc, results[0], operands[0], operands[1], operands[2],
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "strided_copy") {
      values[c.outputs[0]] = b.create<StridedCopyOp>(
          nodeLoc, results[0], operands[0],
          b.getI64IntegerAttr(attr("offset")),
          b.getDenseI64ArrayAttr(list("shape")),
          b.getDenseI64ArrayAttr(list("strides")), b.getStringAttr(c.opType),
          b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "gather_elements") { // p = {bytes, index type, ...}
      values[c.outputs[0]] = b.create<GatherElementsOp>(
          nodeLoc, results[0], operands[0], operands[1],
          b.getI64IntegerAttr(attr("axis")), b.getStringAttr(c.opType),
          b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "scatter_elements") { // p = {type, reduction, ...}
      values[c.outputs[0]] = b.create<ScatterElementsOp>(
          nodeLoc, results[0], operands[0], operands[1], operands[2],
          b.getI64IntegerAttr(attr("axis")),
          b.getStringAttr(kScatterReductions[c.p[1]]),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "gather_nd") {
      values[c.outputs[0]] = b.create<GatherNdOp>(
          nodeLoc, results[0], operands[0], operands[1],
          b.getI64IntegerAttr(attr("batch_dims")), b.getStringAttr(c.opType),
          b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "scatter_nd") { // p = {type, reduction, ...}
      values[c.outputs[0]] = b.create<ScatterNdOp>(
          nodeLoc, results[0], operands[0], operands[1], operands[2],
          b.getStringAttr(kScatterReductions[c.p[1]]),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "cumsum") { // p = {type, outer, n, inner, excl, reverse}
      values[c.outputs[0]] = b.create<CumSumOp>(
          nodeLoc, results[0], operands[0], b.getI64IntegerAttr(attr("axis")),
          b.getBoolAttr(c.p[4] != 0), b.getBoolAttr(c.p[5] != 0),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "pad") { // p = {bytes, mode, rank, in, out, begin}
      const int64_t r = c.p[2];
      ArrayRef<int64_t> p(c.p);
      SmallVector<int64_t> pads(p.slice(3 + 2 * r, r));
      for (int64_t d = 0; d < r; ++d) // end = out - in - begin
        pads.push_back(p[3 + r + d] - p[3 + d] - p[3 + 2 * r + d]);
      values[c.outputs[0]] = b.create<PadOp>(
          nodeLoc, results[0], operands[0],
          operands.size() > 1 ? operands[1] : Value(),
          b.getStringAttr(kPadModes[c.p[1]]), b.getDenseI64ArrayAttr(pads),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "resize_axis") { // p = {dtype, .., taps, indices}
      ArrayRef<int64_t> p(c.p);
      ArrayRef<float> f(c.f);
      values[c.outputs[0]] = b.create<ResizeAxisOp>(
          nodeLoc, results[0], operands[0], b.getI64IntegerAttr(attr("axis")),
          b.getI64IntegerAttr(c.p[5]), b.getDenseI64ArrayAttr(p.drop_front(6)),
          b.getDenseF32ArrayAttr(f.drop_front(1)), b.getF32FloatAttr(c.f[0]),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "trilu") { // p = {bytes, matrices, rows, cols, k, upper}
      values[c.outputs[0]] = b.create<TriluOp>(
          nodeLoc, results[0], operands[0], b.getI64IntegerAttr(c.p[4]),
          b.getBoolAttr(c.p[5] != 0), b.getStringAttr(c.opType),
          b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "one_hot") { // p = {bytes, index type, outer, depth, inner}
      values[c.outputs[0]] = b.create<OneHotOp>(
          nodeLoc, results[0], operands[0], operands[1],
          b.getI64IntegerAttr(attr("axis")), b.getI64IntegerAttr(c.p[3]),
          b.getStringAttr(c.opType), b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "cast") {
      values[c.outputs[0]] = b.create<CastOp>(nodeLoc, results[0], operands[0],
                                              b.getStringAttr(c.opType),
                                              b.getStringAttr(c.nodeName));
      continue;
    }
    if (c.kernel == "conv_transpose") {
      values[c.outputs[0]] = importConvTranspose(
          b, nodeLoc, c, list("pads"), list("output_padding"), operands,
          results[0].cast<RankedTensorType>());
      continue;
    }
    if (c.kernel == "conv") {
      values[c.outputs[0]] = importConv(b, nodeLoc, c, operands,
                                        results[0].cast<RankedTensorType>());
      continue;
    }
    auto op = b.create<TensorOp>(
        nodeLoc, results, operands, b.getStringAttr(c.kernel),
        b.getDenseI64ArrayAttr(c.p),
        c.f.empty() ? DenseF32ArrayAttr() : b.getDenseF32ArrayAttr(c.f),
        absent ? b.getDenseI64ArrayAttr(slots) : DenseI64ArrayAttr(),
        b.getI64IntegerAttr(c.scratch), b.getStringAttr(c.opType),
        b.getStringAttr(c.nodeName));
    for (size_t i = 0; i < c.outputs.size(); ++i)
      values[c.outputs[i]] = op->getResult(i);
  }
  SmallVector<Value> outs;
  for (int id : g.outputs)
    outs.push_back(valueOf(id));
  b.create<func::ReturnOp>(loc, outs);
  return module;
}
} // namespace kiln
