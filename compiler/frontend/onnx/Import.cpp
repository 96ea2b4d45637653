//===- Import.cpp - a lowered ONNX graph as kiln dialect ops --------------===//
#include "compiler/frontend/onnx/Import.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

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
