//===- KilnDialect.cpp - kiln dialect registration, types and verifiers ---===//
#include "compiler/dialect/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln;

#include "compiler/dialect/KilnDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialect/KilnTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialect/KilnAttrs.cpp.inc"

TargetAttr kiln::moduleTarget(ModuleOp module) {
  return module->getAttrOfType<TargetAttr>("kiln.target");
}

void kiln::recordLayout(ModuleOp module, const LayoutOptions &l) {
  Builder b(module.getContext());
  if (l.context > 0)
    module->setAttr("kiln.context_length", b.getI64IntegerAttr(l.context));
  module->setAttr("kiln.max_batch", b.getI64IntegerAttr(l.maxBatch));
  module->setAttr("kiln.max_seqs", b.getI64IntegerAttr(l.maxSeqs));
  module->setAttr("kiln.threads", b.getI64IntegerAttr(l.threads));
  module->setAttr("kiln.kv_block", b.getI64IntegerAttr(l.kvBlock));
  module->setAttr("kiln.kv_pool_tokens", b.getI64IntegerAttr(l.kvPoolTokens));
  module->setAttr("kiln.kv_cache", b.getStringAttr(l.kvF16 ? "f16" : "f32"));
  module->setAttr("kiln.weights",
                  b.getStringAttr(l.externalWeights ? "external" : "embedded"));
  if (l.maxTensorBytes != LayoutOptions().maxTensorBytes)
    module->setAttr("kiln.max_tensor_bytes",
                    b.getI64IntegerAttr(l.maxTensorBytes));
}

LayoutOptions kiln::moduleLayout(ModuleOp module) {
  LayoutOptions l;
  auto num = [&](StringRef name, int64_t &out) {
    if (auto a = module->getAttrOfType<IntegerAttr>(name))
      out = a.getInt();
  };
  num("kiln.context_length", l.context);
  num("kiln.max_batch", l.maxBatch);
  num("kiln.max_seqs", l.maxSeqs);
  num("kiln.threads", l.threads);
  num("kiln.kv_block", l.kvBlock);
  num("kiln.kv_pool_tokens", l.kvPoolTokens);
  num("kiln.max_tensor_bytes", l.maxTensorBytes);
  if (auto a = module->getAttrOfType<StringAttr>("kiln.kv_cache"))
    l.kvF16 = a.getValue() == "f16";
  if (auto a = module->getAttrOfType<StringAttr>("kiln.weights"))
    l.externalWeights = a.getValue() == "external";
  return l;
}

void KilnDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "compiler/dialect/KilnTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "compiler/dialect/KilnAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "compiler/dialect/KilnOps.cpp.inc"
      >();
}

std::pair<int64_t, int64_t> kiln::blockLayout(Type t) {
  return llvm::TypeSwitch<Type, std::pair<int64_t, int64_t>>(t)
      .Case<Float32Type>([](auto) { return std::make_pair(1, 4); })
      .Case<Float16Type, BFloat16Type>([](auto) { return std::make_pair(1, 2); })
      .Case<Q8_0Type, Q4_0Type, Q4_1Type, Q4_KType, Q6_KType, Q5_0Type,
            Q5_1Type, Q2_KType, Q3_KType, Q5_KType, IQ4_NLType, IQ4_XSType>(
          [](auto q) {
        using T = decltype(q);
        return std::make_pair(T::kBlockElements, T::kBlockBytes);
      })
      .Default([](Type) { return std::make_pair(0, 0); });
}

StringRef kiln::weightTypeName(Type t) {
  return llvm::TypeSwitch<Type, StringRef>(t)
      .Case<Float32Type>([](auto) { return "f32"; })
      .Case<Float16Type>([](auto) { return "f16"; })
      .Case<BFloat16Type>([](auto) { return "bf16"; })
      .Case<Q8_0Type>([](auto) { return "q8_0"; })
      .Case<Q4_0Type>([](auto) { return "q4_0"; })
      .Case<Q4_1Type>([](auto) { return "q4_1"; })
      .Case<Q4_KType>([](auto) { return "q4_k"; })
      .Case<Q6_KType>([](auto) { return "q6_k"; })
      .Case<Q5_0Type>([](auto) { return "q5_0"; })
      .Case<Q5_1Type>([](auto) { return "q5_1"; })
      .Case<Q2_KType>([](auto) { return "q2_k"; })
      .Case<Q3_KType>([](auto) { return "q3_k"; })
      .Case<Q5_KType>([](auto) { return "q5_k"; })
      .Case<IQ4_NLType>([](auto) { return "iq4_nl"; })
      .Case<IQ4_XSType>([](auto) { return "iq4_xs"; })
      .Default([](Type) { return ""; });
}

Type kiln::weightTypeFromName(MLIRContext *ctx, StringRef name) {
  return llvm::StringSwitch<std::function<Type()>>(name)
      .Case("f32", [&] { return Float32Type::get(ctx); })
      .Case("f16", [&] { return Float16Type::get(ctx); })
      .Case("bf16", [&] { return BFloat16Type::get(ctx); })
      .Case("q8_0", [&] { return Q8_0Type::get(ctx); })
      .Case("q4_0", [&] { return Q4_0Type::get(ctx); })
      .Case("q4_1", [&] { return Q4_1Type::get(ctx); })
      .Case("q4_k", [&] { return Q4_KType::get(ctx); })
      .Case("q6_k", [&] { return Q6_KType::get(ctx); })
      .Case("q5_0", [&] { return Q5_0Type::get(ctx); })
      .Case("q5_1", [&] { return Q5_1Type::get(ctx); })
      .Case("q2_k", [&] { return Q2_KType::get(ctx); })
      .Case("q3_k", [&] { return Q3_KType::get(ctx); })
      .Case("q5_k", [&] { return Q5_KType::get(ctx); })
      .Case("iq4_nl", [&] { return IQ4_NLType::get(ctx); })
      .Case("iq4_xs", [&] { return IQ4_XSType::get(ctx); })
      .Default([] { return Type(); })();
}

int64_t kiln::weightBytes(RankedTensorType type) {
  auto [elems, bytes] = blockLayout(type.getElementType());
  if (elems == 0)
    return 0;
  return type.getNumElements() / elems * bytes;
}

std::vector<int64_t> kiln::matmulSlices(int64_t N, int64_t threads) {
  int64_t slices = std::max<int64_t>(1, std::min<int64_t>(threads, N / 128));
  int64_t chunk = ((N + slices - 1) / slices + 127) / 128 * 128;
  std::vector<int64_t> starts;
  for (int64_t j = 0; j < N; j += chunk)
    starts.push_back(j);
  starts.push_back(N);
  return starts;
}

std::vector<MatMulPiece> kiln::matmulPieces(MatMulOp m, int64_t threads) {
  std::vector<MatMulPiece> pieces;
  int64_t row0 = 0, part = 0;
  for (int64_t n : m.getParts()) {
    auto starts = matmulSlices(n, threads);
    for (size_t s = 0; s + 1 < starts.size(); ++s)
      pieces.push_back({part, row0 + starts[s], starts[s],
                        starts[s + 1] - starts[s], starts.size() > 2});
    row0 += n;
    ++part;
  }
  return pieces;
}

MatMulScratch kiln::matmulScratch(MatMulOp m, int64_t rows, int64_t threads) {
  auto align = [](int64_t v) { return (v + 63) / 64 * 64; };
  MatMulScratch s;
  if (auto perRow = m->getAttrOfType<IntegerAttr>("kiln.scratch_per_row"))
    s.quantized = align(perRow.getInt() * rows);
  int64_t sliced = 0;
  for (const MatMulPiece &p : matmulPieces(m, threads))
    if (p.sliced)
      sliced += p.n;
  s.slices = align(sliced * rows * 4);
  if (m.getEpilogue() && *m.getEpilogue() == "swiglu")
    s.up = align(m.getParts()[1] * rows * 4);
  return s;
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult WeightOp::verify() {
  auto type = getType().dyn_cast<RankedTensorType>();
  if (!type || !type.hasStaticShape())
    return emitOpError("type must be a statically shaped tensor, got ")
           << getType();
  if (type.getRank() < 1 || type.getRank() > 4)
    return emitOpError("weight rank must be 1 to 4, got ") << type.getRank();
  auto [blockElems, blockBytes] = blockLayout(type.getElementType());
  if (blockElems == 0)
    return emitOpError("unsupported weight element type ")
           << type.getElementType();
  if (type.getShape().back() % blockElems != 0)
    return emitOpError("innermost dimension ")
           << type.getShape().back() << " is not a multiple of the "
           << blockElems << "-element block of " << type.getElementType();
  if (getScaleColumns() && type.getRank() != 2)
    return emitOpError("scale_columns applies to rank-2 weights");
  if (auto c = getConcat()) {
    if (c->empty() || type.getRank() > 2)
      return emitOpError("concat lists at least one tensor and applies to "
                         "rank-1 and rank-2 weights");
  }
  if (auto from = getSourceType()) {
    if (!from->isa<Float32Type, Float16Type, BFloat16Type>())
      return emitOpError("source_type must be f32, f16 or bf16 (quantized "
                         "weights are never requantized), got ")
             << *from;
  }
  return success();
}

// Resolves `sym` to a kiln.weight and returns its tensor type, or emits an
// error on `op` and returns null.
static RankedTensorType lookupWeight(Operation *op,
                                     SymbolTableCollection &symbols,
                                     FlatSymbolRefAttr sym, StringRef role) {
  auto weight = symbols.lookupNearestSymbolFrom<WeightOp>(op, sym);
  if (!weight) {
    op->emitOpError() << role << " " << sym << " does not name a kiln.weight";
    return nullptr;
  }
  return weight.getTensorType();
}

static int64_t width(Value v) {
  return v.getType().cast<RankedTensorType>().getDimSize(1);
}

static LogicalResult checkSameRows(Operation *op, Value in, Value out) {
  auto a = in.getType().cast<RankedTensorType>().getDimSize(0);
  auto b = out.getType().cast<RankedTensorType>().getDimSize(0);
  if (a != b)
    return op->emitOpError("result must have as many rows as the input");
  return success();
}

static bool isFloatWeight(RankedTensorType t) {
  return t.getElementType().isa<Float32Type, Float16Type, BFloat16Type>();
}

LogicalResult EmbeddingOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto table = lookupWeight(*this, symbols, getTableAttr(), "table");
  if (!table)
    return failure();
  if (table.getRank() != 2)
    return emitOpError("table must be a rank-2 weight [vocab, width], got ")
           << table;
  if (table.getDimSize(1) != width(getResult()))
    return emitOpError("result width ")
           << width(getResult()) << " does not match table width "
           << table.getDimSize(1);
  auto rows = getTokens().getType().cast<RankedTensorType>().getDimSize(0);
  if (rows != getResult().getType().cast<RankedTensorType>().getDimSize(0))
    return emitOpError("result must have one row per token");
  return success();
}

LogicalResult RMSNormOp::verifySymbolUses(SymbolTableCollection &symbols) {
  const int64_t n = getGroup() ? *getGroup() : width(getInput());
  if (getGroup() && (n <= 0 || width(getInput()) % n != 0))
    return emitOpError("group ") << n << " does not divide the input width "
                                 << width(getInput());
  if (!getWeightAttr())
    return success();
  auto w = lookupWeight(*this, symbols, getWeightAttr(), "weight");
  if (!w)
    return failure();
  if (w.getRank() != 1 || w.getDimSize(0) != n || !isFloatWeight(w))
    return emitOpError("weight must be a float vector of ")
           << (getGroup() ? "the group size " : "the input width ") << n
           << ", got " << w;
  return success();
}

SmallVector<StringRef> WeightOp::getSourceTensors() {
  SmallVector<StringRef> names{getSource()};
  if (auto c = getConcat())
    for (Attribute a : *c)
      names.push_back(a.cast<StringAttr>().getValue());
  return names;
}

SmallVector<int64_t> MatMulOp::getParts() {
  if (auto s = getSplit())
    return SmallVector<int64_t>(s->begin(), s->end());
  return {width(getOutput())};
}

LogicalResult MatMulOp::verify() {
  StringRef ep = getEpilogue() ? *getEpilogue() : "";
  bool needsOther = ep == "add" || ep == "silu_mul" || ep == "mul_silu";
  if (!ep.empty() && !needsOther && ep != "swiglu")
    return emitOpError("epilogue must be \"add\", \"silu_mul\", "
                       "\"mul_silu\" or \"swiglu\", got \"")
           << ep << "\"";
  if (needsOther != (bool)getOther())
    return emitOpError(needsOther ? "epilogue \"" + ep.str() +
                                        "\" needs an operand (`with`)"
                                  : std::string("only the add, silu_mul and "
                                                "mul_silu epilogues take an "
                                                "operand"));
  int64_t results = getOutputs().size();
  if (auto s = getSplit()) {
    if (s->size() < 2)
      return emitOpError("split needs at least two parts");
    for (int64_t p : *s)
      if (p <= 0)
        return emitOpError("split parts must be positive");
    if (ep == "swiglu") {
      if (s->size() != 2 || (*s)[0] != (*s)[1])
        return emitOpError("epilogue \"swiglu\" needs two equal parts");
      if (results != 1 || width(getOutput()) != (*s)[0])
        return emitOpError("epilogue \"swiglu\" has one result of the part width");
    } else {
      if (!ep.empty())
        return emitOpError("epilogue \"") << ep << "\" does not apply to a split matmul";
      if (results != (int64_t)s->size())
        return emitOpError("split into ") << s->size() << " parts needs "
                                          << s->size() << " results, got " << results;
      for (int64_t i = 0; i < results; ++i)
        if (width(getOutputs()[i]) != (*s)[i])
          return emitOpError("result ") << i << " width " << width(getOutputs()[i])
                                        << " does not match its part " << (*s)[i];
    }
  } else {
    if (ep == "swiglu")
      return emitOpError("epilogue \"swiglu\" needs split = [F, F]");
    if (results != 1)
      return emitOpError("a matmul without split has one result, got ") << results;
  }
  for (Value r : getOutputs())
    if (failed(checkSameRows(*this, getInput(), r)))
      return failure();
  if (Value o = getOther()) {
    if (o.getType() != getOutput().getType())
      return emitOpError("epilogue operand type ")
             << o.getType() << " must equal the result type "
             << getOutput().getType();
  }
  return success();
}

LogicalResult MatMulOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto w = lookupWeight(*this, symbols, getWeightAttr(), "weight");
  if (!w)
    return failure();
  if (w.getRank() != 2)
    return emitOpError("weight must be rank 2 [N, K], got ") << w;
  if (w.getDimSize(1) != width(getInput()))
    return emitOpError("input width ")
           << width(getInput()) << " does not match weight K "
           << w.getDimSize(1);
  int64_t N = 0;
  for (int64_t p : getParts())
    N += p;
  if (w.getDimSize(0) != N)
    return emitOpError(getSplit() ? "split total " : "result width ")
           << N << " does not match weight N " << w.getDimSize(0);
  if (auto biasSym = getBiasAttr()) {
    auto b = lookupWeight(*this, symbols, biasSym, "bias");
    if (!b)
      return failure();
    if (b.getRank() != 1 || b.getDimSize(0) != w.getDimSize(0) ||
        !isFloatWeight(b))
      return emitOpError("bias must be a float vector of length ")
             << w.getDimSize(0) << ", got " << b;
  }
  return success();
}

LogicalResult RoPEOp::verify() {
  int64_t d = getHeadDim();
  if (d <= 0 || d % 2 != 0)
    return emitOpError("head_dim must be positive and even, got ") << d;
  if (width(getInput()) % d != 0)
    return emitOpError("input width ")
           << width(getInput()) << " is not a multiple of head_dim " << d;
  if (getStyle() != "adjacent" && getStyle() != "neox")
    return emitOpError("style must be \"adjacent\" or \"neox\", got \"")
           << getStyle() << "\"";
  if (!(getTheta().convertToFloat() > 0))
    return emitOpError("theta must be positive");
  if ((bool)getLongFreqFactorsAttr() != (bool)getLongContext() ||
      (getLongFreqFactorsAttr() && !getFreqFactorsAttr()))
    return emitOpError("long_freq_factors and long_context go together, with "
                       "freq_factors");
  if (getScale() && !(getScale()->convertToFloat() > 0))
    return emitOpError("scale must be positive");
  if (getLinearFactor() && !(getLinearFactor()->convertToFloat() > 0))
    return emitOpError("linear_factor must be positive");
  return success();
}

LogicalResult RoPEOp::verifySymbolUses(SymbolTableCollection &symbols) {
  for (auto [attr, what] : {std::pair(getFreqFactorsAttr(), "freq_factors"),
                            std::pair(getLongFreqFactorsAttr(),
                                      "long_freq_factors")}) {
    if (!attr)
      continue;
    auto w = lookupWeight(*this, symbols, attr, what);
    if (!w)
      return failure();
    if (w.getRank() != 1 || w.getDimSize(0) != getHeadDim() / 2 ||
        !isFloatWeight(w))
      return emitOpError(what)
             << " must be a float vector of head_dim / 2 = "
             << getHeadDim() / 2 << " elements, got " << w;
  }
  return success();
}

LogicalResult AttentionOp::verify() {
  int64_t h = getNumHeads(), kvh = getNumKvHeads(), d = getHeadDim();
  if (h <= 0 || kvh <= 0 || d <= 0)
    return emitOpError("num_heads, num_kv_heads and head_dim must be positive");
  if (h % kvh != 0)
    return emitOpError("num_heads ")
           << h << " is not a multiple of num_kv_heads " << kvh;
  if (getLayer() < 0)
    return emitOpError("layer must be non-negative");
  if (getWindow() && *getWindow() <= 0)
    return emitOpError("window must be positive");
  if (width(getQuery()) != h * d)
    return emitOpError("query width ")
           << width(getQuery()) << " != num_heads * head_dim = " << h * d;
  if (width(getKey()) != kvh * d || width(getValue()) != kvh * d)
    return emitOpError("key and value width must be num_kv_heads * head_dim = ")
           << kvh * d;
  if (width(getResult()) != h * d)
    return emitOpError("result width must be num_heads * head_dim = ") << h * d;
  auto rows = [](Value v) {
    return v.getType().cast<RankedTensorType>().getDimSize(0);
  };
  if (rows(getKey()) != rows(getQuery()) ||
      rows(getValue()) != rows(getQuery()) ||
      rows(getResult()) != rows(getQuery()))
    return emitOpError("query, key, value and result must have the same rows");
  return success();
}

LogicalResult LastTokenOp::verify() {
  auto out = getResult().getType().cast<RankedTensorType>();
  if (out.getDimSize(0) != 1 && !out.isDynamicDim(0))
    return emitOpError("result must have one row or a dynamic number of rows");
  if (out.getDimSize(1) != width(getInput()))
    return emitOpError("result width must equal input width");
  return success();
}

/// Bytes per element of a graph constant: one for i1 (as ONNX's bool).
static int64_t constantElementBytes(Type t) {
  if (t.isInteger(1))
    return 1;
  return t.getIntOrFloatBitWidth() % 8 ? 0 : t.getIntOrFloatBitWidth() / 8;
}

DenseResourceElementsAttr kiln::constantValue(MLIRContext *ctx, StringRef name,
                                              RankedTensorType type,
                                              ArrayRef<char> bytes) {
  std::string key = name.str();
  for (char &c : key)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  if (key.empty() || llvm::isDigit(key[0]))
    key = "c_" + key;
  auto &blobs = DenseResourceElementsHandle::getManagerInterface(ctx);
  return DenseResourceElementsAttr::get(
      type, blobs.insert(key, HeapAsmResourceBlob::allocateAndCopyWithAlign(
                                  bytes, 64)));
}

void ConstantOp::build(OpBuilder &b, OperationState &state, StringRef name,
                       RankedTensorType type, ArrayRef<char> bytes) {
  build(b, state, type, b.getStringAttr(name),
        constantValue(b.getContext(), name, type, bytes));
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

Operation *KilnDialect::materializeConstant(OpBuilder &b, Attribute value,
                                            Type type, Location loc) {
  auto r = value.dyn_cast<DenseResourceElementsAttr>();
  if (!r || r.getType() != type)
    return nullptr;
  // Named after its blob, whose key the blob manager keeps unique.
  return b.create<ConstantOp>(loc, type,
                              b.getStringAttr(r.getRawHandle().getKey()), r);
}

std::optional<ArrayRef<char>> ConstantOp::bytes() {
  auto r = getValue().dyn_cast<DenseResourceElementsAttr>();
  AsmResourceBlob *blob = r ? r.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return std::nullopt;
  return blob->getData();
}

LogicalResult ConstantOp::verify() {
  auto type = getValue().getType().cast<ShapedType>();
  Type e = type.getElementType();
  if (!e.isIntOrFloat() || constantElementBytes(e) == 0)
    return emitOpError("element type ") << e << " is not supported";
  if (!getValue().isa<DenseResourceElementsAttr>())
    return emitOpError("value must be a dense_resource (row-major bytes, "
                       "one per bool)");
  std::optional<ArrayRef<char>> b = bytes();
  if (!b)
    return success(); // checked where the bytes are read
  const int64_t want = type.getNumElements() * constantElementBytes(e);
  if ((int64_t)b->size() != want)
    return emitOpError("value has ")
           << b->size() << " bytes, its type " << type << " needs " << want;
  return success();
}

SmallVector<int64_t> TensorOp::getKernelSlots() {
  SmallVector<int64_t> slots;
  if (auto sl = getSlots())
    slots.assign(sl->begin(), sl->end());
  else
    for (size_t i = 0; i < getInputs().size(); ++i)
      slots.push_back((int64_t)i);
  return slots;
}

SmallVector<Value> TensorOp::getKernelInputs() {
  SmallVector<Value> ins;
  for (int64_t s : getKernelSlots())
    ins.push_back(s < 0 ? Value() : getInputs()[s]);
  return ins;
}

LogicalResult ReshapeOp::verify() {
  auto in = getInput().getType().cast<RankedTensorType>();
  auto out = getResult().getType().cast<RankedTensorType>();
  if (in.getElementType() != out.getElementType())
    return emitOpError("changes the element type (")
           << in.getElementType() << " to " << out.getElementType()
           << "); a reshape keeps it";
  if (in.getNumElements() != out.getNumElements())
    return emitOpError("has ") << in.getNumElements() << " elements in and "
                               << out.getNumElements() << " out";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  // A reshape of a reshape reads the first one's operand.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  // A constant's bytes, as a constant of this type.
  auto r = adaptor.getInput().dyn_cast_or_null<DenseResourceElementsAttr>();
  AsmResourceBlob *blob = r ? r.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return {};
  return constantValue(getContext(), getNode(),
                       getResult().getType().cast<RankedTensorType>(),
                       blob->getData());
}

LogicalResult TensorOp::fold(FoldAdaptor adaptor,
                            SmallVectorImpl<OpFoldResult> &results) {
  auto *folder =
      (*this)->getDialect()->getRegisteredInterface<TensorFoldInterface>();
  if (!folder)
    return failure();
  // Kernels offset their pointers, by zero for an empty tensor, which is
  // undefined on null: an empty input gets a valid pointer.
  static const char empty[64] = {};
  SmallVector<const char *> inputs;
  for (int64_t s : getKernelSlots()) {
    if (s < 0) {
      inputs.push_back(nullptr);
      continue;
    }
    auto r = adaptor.getOperands()[s].dyn_cast_or_null<DenseResourceElementsAttr>();
    AsmResourceBlob *blob = r ? r.getRawHandle().getBlob() : nullptr;
    if (!blob)
      return failure();
    inputs.push_back(blob->getData().empty() ? empty : blob->getData().data());
  }
  std::vector<std::vector<char>> outputs;
  if (!folder->fold(*this, inputs, outputs) ||
      outputs.size() != getNumResults())
    return failure();
  for (auto [i, bytes] : llvm::enumerate(outputs)) {
    auto type = getResult(i).getType().cast<RankedTensorType>();
    std::string name = getNode().str();
    if (getNumResults() > 1)
      name += "." + std::to_string(i);
    results.push_back(constantValue(getContext(), name, type, bytes));
  }
  return success();
}

#define GET_OP_CLASSES
#include "compiler/dialect/KilnOps.cpp.inc"
