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

ConstantNames::ConstantNames(ModuleOp module) {
  module.walk([&](ConstantOp c) { names.insert(c.getSource().str()); });
}

std::string ConstantNames::unique(std::string name) {
  const std::string base = name;
  for (int k = 2; names.count(name); ++k)
    name = base + "#" + std::to_string(k);
  names.insert(name);
  return name;
}

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

std::optional<ArrayRef<float>> kiln::constantFloats(Value v) {
  auto c = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!c || !c.getResult().getType().cast<ShapedType>().getElementType().isF32())
    return std::nullopt;
  std::optional<ArrayRef<char>> bytes = c.bytes();
  if (!bytes)
    return std::nullopt;
  return ArrayRef<float>((const float *)bytes->data(),
                         bytes->size() / sizeof(float));
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

/// "[a, b, c]".
static std::string listString(ArrayRef<int64_t> v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// Windows of `k` taps `dil` apart at stride `s` over `in` padded by `pb`
/// and `pe`: floor((in + pb + pe - dil * (k - 1) - 1) / s) + 1, or with
/// `ceil` the ceiling, less one where the last window would start past the
/// input and its begin padding. -1 when no window fits or a size wraps.
static int64_t windowCount(int64_t in, int64_t k, int64_t s, int64_t dil,
                           int64_t pb, int64_t pe, bool ceil) {
  int64_t span = 0, avail = 0;
  if (__builtin_mul_overflow(k - 1, dil, &span) ||
      __builtin_add_overflow(in, pb, &avail) ||
      __builtin_add_overflow(avail, pe, &avail) ||
      __builtin_sub_overflow(avail, span, &avail) || --avail < 0)
    return -1;
  int64_t out = avail / s + (ceil && avail % s != 0) + 1;
  if (ceil && (out - 1) * s >= in + pb)
    --out;
  return out;
}

/// A pooling op's kind ("max" or "average") and element type (f32, f64;
/// a max also 8-bit integers).
static LogicalResult verifyPoolKind(Operation *op, StringRef kind, Type e) {
  const bool isMax = kind == "max";
  if (!isMax && kind != "average")
    return op->emitOpError("kind must be \"max\" or \"average\", not \"")
           << kind << "\"";
  if (!(e.isF32() || e.isF64() || (isMax && e.isInteger(8))))
    return op->emitOpError(kind) << " pooling of " << e
                                 << " (f32, f64; max also 8-bit integers)";
  return success();
}

/// The epilogue of result `y` of a convolution with M output channels
/// (columns -1) or of a matrix product with N columns (M -1): each
/// operation's kind, operand shapes and float index.
static LogicalResult
verifyEpilogue(Operation *op, std::optional<ArrayRef<int64_t>> epilogue,
               OperandRange inputs, std::optional<ArrayRef<float>> floats,
               RankedTensorType y, int64_t M, int64_t columns,
               RankedTensorType channelsOf = {}) {
  if (!epilogue) {
    if (!inputs.empty() || floats)
      return op->emitOpError("has epilogue inputs or floats but no epilogue");
    return success();
  }
  if (!y.getElementType().isF32())
    return op->emitOpError("has an epilogue but a ")
           << y.getElementType() << " result (epilogues run on f32)";
  ArrayRef<int64_t> ep = *epilogue;
  const int64_t nIn = inputs.size();
  const int64_t nF = floats ? floats->size() : 0;
  if (ep.size() % 4 != 0)
    return op->emitOpError("epilogue has ")
           << ep.size() << " values, not operations of four";
  auto operand = [&](int64_t i, bool optional) -> RankedTensorType {
    if (optional && i == -1)
      return RankedTensorType::get({1}, y.getElementType());
    if (i < 0 || i >= nIn)
      return {};
    auto t = inputs[i].getType().cast<RankedTensorType>();
    return t.getElementType().isF32() ? t : RankedTensorType();
  };
  bool saved = false;
  for (size_t s = 0; s < ep.size(); s += 4) {
    const int64_t kind = ep[s], a = ep[s + 2], b = ep[s + 3];
    auto bad = [&](const Twine &what) {
      return op->emitOpError("epilogue operation ")
             << s / 4 << " " << listString(ep.slice(s, 4)) << ": " << what;
    };
    const bool convKind = kind == (int64_t)EpilogueKind::Channel ||
                          kind == (int64_t)EpilogueKind::BatchNorm;
    if (convKind && columns >= 0)
      return bad("is a convolution's kind");
    if (kind == (int64_t)EpilogueKind::Column && columns < 0)
      return bad("is a matrix product's kind");
    switch ((EpilogueKind)kind) {
    case EpilogueKind::Save:
      saved = true;
      break;
    case EpilogueKind::Scalar:
    case EpilogueKind::Channel:
    case EpilogueKind::Full:
    case EpilogueKind::Column: {
      RankedTensorType t = operand(a, false);
      const auto k = (EpilogueKind)kind;
      const bool fits = t && (k == EpilogueKind::Scalar ? t.getNumElements() == 1
                              : k == EpilogueKind::Channel
                                  ? broadcastsPerChannel(t, channelsOf ? channelsOf : y)
                              : k == EpilogueKind::Column
                                  ? broadcastsPerColumn(t, y, columns)
                                  : t == y);
      if (!fits)
        return bad("needs an f32 epilogue input of the kind's shape");
      if (b != 0 && b != 1)
        return bad("its order flag must be 0 or 1");
      break;
    }
    case EpilogueKind::Saved:
      if (!saved)
        return bad("reads a value no earlier operation saved");
      if (b != 0 && b != 1)
        return bad("its order flag must be 0 or 1");
      break;
    case EpilogueKind::Unary:
      if (a < 0 || a + 1 >= nF)
        return bad("needs two epilogue floats from its index");
      break;
    case EpilogueKind::Clip:
      for (int64_t i : {a, b}) {
        RankedTensorType t = operand(i, true);
        if (!t || t.getNumElements() != 1)
          return bad("its bounds must be scalar f32 epilogue inputs or -1");
      }
      break;
    case EpilogueKind::BatchNorm:
      for (int64_t i = a; i < a + 4; ++i)
        if (operand(i, false) != RankedTensorType::get({M}, y.getElementType()))
          return bad("needs four f32 epilogue inputs of " + std::to_string(M) +
                     " channels from its index");
      if (b < 0 || b >= nF)
        return bad("its epsilon index is out of the epilogue floats");
      break;
    default:
      return bad("unknown kind");
    }
  }
  return success();
}

/// A convolution's input, filter and result: f32, of one rank, 3 to 8 (N,
/// C, spatial...).
static LogicalResult verifyConvTypes(Operation *op, RankedTensorType x,
                                     RankedTensorType w, RankedTensorType y) {
  for (RankedTensorType t : {x, w, y})
    if (!t.getElementType().isF32())
      return op->emitOpError("input, filter and result must be f32, not ")
             << t;
  const int64_t r = x.getRank();
  if (r < 3 || r > 8 || w.getRank() != r || y.getRank() != r)
    return op->emitOpError("input ")
           << x << ", filter " << w << " and result " << y
           << " must have one rank, 3 to 8 (N, C, spatial...)";
  return success();
}

/// A convolution's optional bias is [M] and its result [N, M, ...].
static LogicalResult verifyConvChannels(Operation *op, Value bias,
                                        RankedTensorType y, int64_t N,
                                        int64_t M) {
  if (bias && bias.getType() != RankedTensorType::get({M}, y.getElementType()))
    return op->emitOpError("bias must be tensor<")
           << M << "xf32>, not " << bias.getType();
  if (y.getDimSize(0) != N || y.getDimSize(1) != M)
    return op->emitOpError("result ")
           << y << " must be [" << N << ", " << M << ", ...]";
  return success();
}

LogicalResult ConvOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto w = getFilter().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  if (failed(verifyConvTypes(*this, x, w, y)))
    return failure();
  const int64_t n = x.getRank() - 2;
  ArrayRef<int64_t> strides = getStrides(), dil = getDilations(),
                    pads = getPads();
  if ((int64_t)strides.size() != n || (int64_t)dil.size() != n ||
      (int64_t)pads.size() != 2 * n)
    return emitOpError("strides ")
           << listString(strides) << ", dilations " << listString(dil)
           << " and pads " << listString(pads) << " must have " << n << ", "
           << n << " and " << 2 * n << " values";
  const int64_t N = x.getDimSize(0), C = x.getDimSize(1), M = w.getDimSize(0),
                G = getGroup();
  if (G < 1 || C % G != 0 || M % G != 0 || w.getDimSize(1) * G != C)
    return emitOpError("group ") << G << " does not fit input " << x
                                 << " and filter " << w;
  if (failed(verifyConvChannels(*this, getBias(), y, N, M)))
    return failure();
  for (int64_t d = 0; d < n; ++d) {
    const int64_t k = w.getDimSize(2 + d), in = x.getDimSize(2 + d);
    if (strides[d] < 1 || dil[d] < 1 || pads[d] < 0 || pads[n + d] < 0)
      return emitOpError("strides and dilations must be positive and pads "
                         "not negative");
    const int64_t out =
        windowCount(in, k, strides[d], dil[d], pads[d], pads[n + d], false);
    if (out != y.getDimSize(2 + d))
      return emitOpError("spatial dimension ")
             << d << ": the result has " << y.getDimSize(2 + d)
             << ", but input " << in << ", kernel " << k << ", stride "
             << strides[d] << ", dilation " << dil[d] << " and pads "
             << pads[d] << " + " << pads[n + d] << " give "
             << (out < 0 ? std::string("none") : std::to_string(out));
  }
  return verifyEpilogue(*this, getEpilogue(), getEpilogueInputs(),
                        getEpilogueFloats(), y, M, -1);
}

RankedTensorType kiln::channelBlockedType(RankedTensorType t, int64_t b) {
  SmallVector<int64_t> shape(t.getShape().begin(), t.getShape().end());
  shape[1] = (shape[1] + b - 1) / b;
  shape.push_back(b);
  return RankedTensorType::get(shape, t.getElementType());
}

/// `blocked` is `plain` ([N, C, spatial...], f32) in blocks of some width.
static LogicalResult verifyBlockedPair(Operation *op, RankedTensorType plain,
                                       RankedTensorType blocked) {
  if (!plain.getElementType().isF32() || plain.getRank() < 3 ||
      blocked.getRank() != plain.getRank() + 1 ||
      blocked.getShape().back() < 1 ||
      channelBlockedType(plain, blocked.getShape().back()) != blocked)
    return op->emitOpError("needs f32 [N, C, spatial...] and [N, ceil(C / b), "
                           "spatial..., b], not ")
           << plain << " and " << blocked;
  return success();
}

LogicalResult BlockChannelsOp::verify() {
  return verifyBlockedPair(*this, getInput().getType().cast<RankedTensorType>(),
                           getResult().getType().cast<RankedTensorType>());
}

LogicalResult UnblockChannelsOp::verify() {
  return verifyBlockedPair(*this,
                           getResult().getType().cast<RankedTensorType>(),
                           getInput().getType().cast<RankedTensorType>());
}

LogicalResult ConvBlockedOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto w = getFilter().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  if (x.getRank() != 5 || y.getRank() != 5 || !x.getElementType().isF32() ||
      !w.getElementType().isF32() || y.getElementType() != x.getElementType() ||
      x.getShape().back() != y.getShape().back() || x.getShape().back() < 1)
    return emitOpError("input ") << x << " and result " << y
                                 << " must be f32 [N, blocks, H, W, b] of one b";
  const int64_t b = x.getShape().back(), N = x.getDimSize(0),
                Cb = x.getDimSize(1), M = getChannels(),
                Mb = (M + b - 1) / b;
  if (M < 1 || y.getDimSize(0) != N || y.getDimSize(1) != Mb)
    return emitOpError("result ") << y << " must be [" << N << ", " << Mb
                                  << ", OH, OW, " << b << "] for " << M
                                  << " channels";
  ArrayRef<int64_t> strides = getStrides(), dil = getDilations(),
                    pads = getPads();
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4)
    return emitOpError("needs 2 strides, 2 dilations and 4 pads");
  const int64_t KH = w.getRank() >= 3 ? w.getDimSize(w.getRank() == 4 ? 1 : 2) : 0,
                KW = w.getRank() >= 3 ? w.getDimSize(w.getRank() == 4 ? 2 : 3) : 0;
  const SmallVector<int64_t> want =
      getDepthwise() ? SmallVector<int64_t>{Cb, KH, KW, b}
                     : SmallVector<int64_t>{Mb, Cb, KH, KW, b, b};
  if (w.getShape() != ArrayRef<int64_t>(want) || (getDepthwise() && Mb != Cb))
    return emitOpError("filter ")
           << w << (getDepthwise() ? " must be [Cb, KH, KW, b] with as many "
                                     "output as input blocks"
                                   : " must be [Mb, Cb, KH, KW, b, b]");
  if (getBias() &&
      getBias().getType() != RankedTensorType::get({Mb * b}, y.getElementType()))
    return emitOpError("bias must be tensor<") << Mb * b << "xf32>";
  const int64_t k[2] = {KH, KW};
  for (int64_t d = 0; d < 2; ++d) {
    if (strides[d] < 1 || dil[d] < 1 || pads[d] < 0 || pads[2 + d] < 0)
      return emitOpError("strides and dilations must be positive and pads "
                         "not negative");
    const int64_t out = windowCount(x.getDimSize(2 + d), k[d], strides[d],
                                    dil[d], pads[d], pads[2 + d], false);
    if (out != y.getDimSize(2 + d))
      return emitOpError("spatial dimension ") << d << ": the result has "
                                               << y.getDimSize(2 + d)
                                               << ", the window gives " << out;
  }
  const RankedTensorType plain = RankedTensorType::get(
      {N, M, y.getDimSize(2), y.getDimSize(3)}, y.getElementType());
  return verifyEpilogue(*this, getEpilogue(), getEpilogueInputs(),
                        getEpilogueFloats(), y, M, -1, plain);
}

LogicalResult ConvTransposeOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto w = getFilter().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  if (failed(verifyConvTypes(*this, x, w, y)))
    return failure();
  const int64_t n = x.getRank() - 2;
  ArrayRef<int64_t> strides = getStrides(), dil = getDilations(),
                    pads = getPads(), outPad = getOutputPadding();
  if ((int64_t)strides.size() != n || (int64_t)dil.size() != n ||
      (int64_t)pads.size() != 2 * n || (int64_t)outPad.size() != n)
    return emitOpError("strides ")
           << listString(strides) << ", dilations " << listString(dil)
           << ", pads " << listString(pads) << " and output_padding "
           << listString(outPad) << " must have " << n << ", " << n << ", "
           << 2 * n << " and " << n << " values";
  const int64_t N = x.getDimSize(0), C = x.getDimSize(1), G = getGroup();
  if (G < 1 || C % G != 0 || w.getDimSize(0) != C)
    return emitOpError("group ") << G << " does not fit input " << x
                                 << " and filter " << w;
  const int64_t M = w.getDimSize(1) * G; // G divides C: no wrap
  if (failed(verifyConvChannels(*this, getBias(), y, N, M)))
    return failure();
  for (int64_t d = 0; d < n; ++d) {
    const int64_t k = w.getDimSize(2 + d), in = x.getDimSize(2 + d);
    if (strides[d] < 1 || dil[d] < 1 || outPad[d] < 0)
      return emitOpError("strides and dilations must be positive and "
                         "output_padding not negative");
    // stride * (in - 1) + output_padding + dilation * (k - 1) + 1 - pads
    int64_t out = 0, span = 0;
    const bool wraps =
        in < 1 || k < 1 || __builtin_mul_overflow(strides[d], in - 1, &out) ||
        __builtin_mul_overflow(dil[d], k - 1, &span) ||
        __builtin_add_overflow(out, span, &out) ||
        __builtin_add_overflow(out, outPad[d] + 1, &out) ||
        __builtin_sub_overflow(out, pads[d], &out) ||
        __builtin_sub_overflow(out, pads[n + d], &out);
    if (wraps || out != y.getDimSize(2 + d))
      return emitOpError("spatial dimension ")
             << d << ": the result has " << y.getDimSize(2 + d) << ", but input "
             << in << ", kernel " << k << ", stride " << strides[d]
             << ", dilation " << dil[d] << ", output_padding " << outPad[d]
             << " and pads " << pads[d] << " + " << pads[n + d] << " give "
             << (wraps ? std::string("none") : std::to_string(out));
  }
  return verifyEpilogue(*this, getEpilogue(), getEpilogueInputs(),
                        getEpilogueFloats(), y, M, -1);
}


static bool isFloatType(Type e) { return e.isF32() || e.isF64(); }

/// The element types of the matrix-product kernels: f32, f64 and 32- and
/// 64-bit integers.
static bool isProductElementType(Type e) {
  return isFloatType(e) || e.isInteger(32) || e.isInteger(64);
}

LogicalResult GemmOp::verify() {
  auto a = getA().getType().cast<RankedTensorType>();
  auto b = getB().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  Type e = y.getElementType();
  if (!isProductElementType(e) || a.getElementType() != e || b.getElementType() != e ||
      (getC() && getC().getType().cast<RankedTensorType>().getElementType() != e))
    return emitOpError("A ")
           << a << ", B " << b << " and the result " << y
           << " must share one element type: f32, f64, i32, i64, ui32 or ui64";
  if (a.getRank() != 2 || b.getRank() != 2 || y.getRank() != 2)
    return emitOpError("A, B and the result must be matrices");
  const int64_t M = a.getDimSize(getTransA() ? 1 : 0), K = getInner(),
                Kb = b.getDimSize(getTransB() ? 1 : 0),
                N = b.getDimSize(getTransB() ? 0 : 1);
  if (K != Kb)
    return emitOpError("inner dimensions differ: A' is [")
           << M << ", " << K << "], B' is [" << Kb << ", " << N << "]";
  if (y.getDimSize(0) != M || y.getDimSize(1) != N)
    return emitOpError("result ") << y << " must be [" << M << ", " << N << "]";
  if (getC()) {
    auto c = getC().getType().cast<RankedTensorType>();
    bool fits = c.getRank() <= 2;
    for (int64_t d = 0; fits && d < c.getRank(); ++d) {
      const int64_t want = y.getDimSize(2 - c.getRank() + d);
      fits = c.getDimSize(d) == 1 || c.getDimSize(d) == want;
    }
    if (!fits)
      return emitOpError("C ") << c << " does not broadcast to [" << M << ", "
                               << N << "]";
  }
  return verifyEpilogue(*this, getEpilogue(), getEpilogueInputs(),
                        getEpilogueFloats(), y, -1, N);
}

std::array<int64_t, 2> GemmOp::getCStrides() {
  std::array<int64_t, 2> s = {0, 0};
  if (!getC())
    return s;
  auto t = getC().getType().cast<RankedTensorType>();
  for (int64_t d = t.getRank() - 1, stride = 1; d >= 0; --d) {
    s[2 - t.getRank() + d] = t.getDimSize(d) == 1 ? 0 : stride;
    stride *= t.getDimSize(d);
  }
  return s;
}

/// True for the element types the tensor kernels compute on: f32, f64,
/// 8- to 64-bit integers of either sign, and i1.
static bool isKernelElementType(Type t) {
  if (t.isF32() || t.isF64())
    return true;
  auto i = t.dyn_cast<IntegerType>();
  return i && !i.isSigned() &&
         llvm::is_contained({1u, 8u, 16u, 32u, 64u}, i.getWidth());
}

int64_t BinaryOp::getKindCode() { return kindCode(kBinaryKinds, getKind()); }

LogicalResult BinaryOp::verify() {
  const int64_t code = getKindCode();
  if (code < 0)
    return emitOpError("unknown kind '") << getKind() << "'";
  auto a = getLhs().getType().cast<RankedTensorType>();
  auto b = getRhs().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  for (RankedTensorType t : {a, b, y})
    if (!isKernelElementType(t.getElementType()))
      return emitOpError("element type ")
             << t.getElementType()
             << " is not one the kernels compute on (f32, f64, integers, i1)";
  // numpy broadcasting: right-aligned, each pair of dimensions equal or one
  // of them 1, the result's rank the larger one's.
  bool fits = y.getRank() == std::max(a.getRank(), b.getRank());
  for (int64_t d = 0; fits && d < y.getRank(); ++d) {
    auto dim = [&](RankedTensorType t) {
      const int64_t i = d - (y.getRank() - t.getRank());
      return i < 0 ? int64_t(1) : t.getDimSize(i);
    };
    const int64_t da = dim(a), db = dim(b);
    fits = (da == db || da == 1 || db == 1) &&
           y.getDimSize(d) == (da == 1 ? db : da);
  }
  if (!fits)
    return emitOpError("operands ") << a << " and " << b
                                    << " do not broadcast to the result " << y;
  const bool boolResult = getKind() == "equal" || getKind() == "less" ||
                          getKind() == "greater" || getKind() == "less_equal" ||
                          getKind() == "greater_equal" || getKind() == "and" ||
                          getKind() == "or" || getKind() == "xor";
  const bool logic =
      getKind() == "and" || getKind() == "or" || getKind() == "xor";
  Type i1 = IntegerType::get(getContext(), 1);
  if (boolResult ? y.getElementType() != i1
                 : y.getElementType() != a.getElementType())
    return emitOpError("result element type must be ")
           << (boolResult ? i1 : a.getElementType()) << " for " << getKind();
  if (logic && a.getElementType() != i1)
    return emitOpError(getKind()) << " takes i1 operands";
  if (getKind() != "pow" && b.getElementType() != a.getElementType())
    return emitOpError("operands have different element types (")
           << a.getElementType() << " and " << b.getElementType() << ")";
  return success();
}

LogicalResult ClipOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  if (!isKernelElementType(x.getElementType()))
    return emitOpError("element type ")
           << x.getElementType()
           << " is not one the kernels compute on (f32, f64, integers, i1)";
  if (getResult().getType() != x)
    return emitOpError("result must have the input's type ") << x;
  for (Value bound : {getMin(), getMax()}) {
    auto t = bound ? bound.getType().cast<RankedTensorType>()
                   : RankedTensorType();
    if (t && (t.getElementType() != x.getElementType() ||
              t.getNumElements() != 1))
      return emitOpError("min and max must be one-element tensors of ")
             << x.getElementType() << ", not " << t;
  }
  return success();
}

LogicalResult BatchNormOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  Type e = x.getElementType();
  if (!e.isF32() && !e.isF64())
    return emitOpError("input must be f32 or f64, not ") << e;
  if (x.getRank() < 2)
    return emitOpError("input ") << x << " needs rank 2 or more (N, C, ...)";
  if (getResult().getType() != x)
    return emitOpError("result must have the input's type ") << x;
  auto channel = RankedTensorType::get({x.getDimSize(1)}, e);
  for (Value v : {getScale(), getBias(), getMean(), getVariance()})
    if (v.getType() != channel)
      return emitOpError("scale, bias, mean and variance must be ")
             << channel << ", not " << v.getType();
  return success();
}

LogicalResult PoolOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  Type e = x.getElementType();
  const bool isMax = getKind() == "max";
  if (failed(verifyPoolKind(*this, getKind(), e)))
    return failure();
  const int64_t r = x.getRank(), n = r - 2;
  if (r < 3 || r > 8)
    return emitOpError("input ") << x << " must have rank 3 to 8";
  ArrayRef<int64_t> k = getKernelShape(), strides = getStrides(),
                    dil = getDilations(), pads = getPads();
  if ((int64_t)k.size() != n || (int64_t)strides.size() != n ||
      (int64_t)dil.size() != n || (int64_t)pads.size() != 2 * n)
    return emitOpError("kernel_shape ")
           << listString(k) << ", strides " << listString(strides)
           << ", dilations " << listString(dil) << " and pads "
           << listString(pads) << " must have " << n << ", " << n << ", " << n
           << " and " << 2 * n << " values";
  if (getStorageOrder() != 0 && getStorageOrder() != 1)
    return emitOpError("storage_order must be 0 or 1");
  if (getNumResults() < 1 || getNumResults() > (isMax ? 2u : 1u))
    return emitOpError("has ") << getNumResults() << " results; "
                               << getKind() << " pooling has "
                               << (isMax ? "1 or 2" : "1");
  auto y = getResult(0).getType().cast<RankedTensorType>();
  if (y.getElementType() != e || y.getRank() != r ||
      y.getDimSize(0) != x.getDimSize(0) || y.getDimSize(1) != x.getDimSize(1))
    return emitOpError("result ") << y << " must be " << e << " [N, C, ...] of "
                                  << x;
  if (getNumResults() == 2 &&
      getResult(1).getType() !=
          RankedTensorType::get(y.getShape(), IntegerType::get(getContext(), 64)))
    return emitOpError("the indices must be i64 of the result's shape");
  for (int64_t d = 0; d < n; ++d) {
    const int64_t in = x.getDimSize(2 + d), s = strides[d];
    if (k[d] < 1 || s < 1 || dil[d] < 1 || pads[d] < 0 || pads[n + d] < 0)
      return emitOpError("kernel_shape, strides and dilations must be "
                         "positive and pads not negative");
    const int64_t out =
        windowCount(in, k[d], s, dil[d], pads[d], pads[n + d], getCeilMode());
    if (out != y.getDimSize(2 + d))
      return emitOpError("spatial dimension ")
             << d << ": the result has " << y.getDimSize(2 + d)
             << ", but the window gives "
             << (out < 0 ? std::string("none") : std::to_string(out));
  }
  return success();
}

LogicalResult GlobalPoolOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  Type e = x.getElementType();
  if (failed(verifyPoolKind(*this, getKind(), e)))
    return failure();
  if (x.getRank() < 3 || x.getNumElements() == 0)
    return emitOpError("input ") << x
                                 << " needs rank 3 or more and spatial elements";
  SmallVector<int64_t> shape(x.getRank(), 1);
  shape[0] = x.getDimSize(0);
  shape[1] = x.getDimSize(1);
  if (y != RankedTensorType::get(shape, e))
    return emitOpError("result must be ")
           << RankedTensorType::get(shape, e) << ", not " << y;
  return success();
}

int64_t UnaryOp::getKindCode() { return kindCode(kUnaryKinds, getKind()); }

LogicalResult UnaryOp::verify() {
  if (getKindCode() < 0)
    return emitOpError("unknown kind '") << getKind() << "'";
  Type e = getResult().getType().cast<RankedTensorType>().getElementType();
  if (!isKernelElementType(e))
    return emitOpError("element type ")
           << e << " is not one the kernels compute on (f32, f64, integers, i1)";
  return success();
}

LogicalResult BatchMatMulOp::verify() {
  auto a = getA().getType().cast<RankedTensorType>();
  auto b = getB().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  Type e = y.getElementType();
  if (!isProductElementType(e) || a.getElementType() != e ||
      b.getElementType() != e)
    return emitOpError("A ")
           << a << ", B " << b << " and the result " << y
           << " must share one element type: f32, f64, i32, i64, ui32 or ui64";
  if (a.getRank() < 1 || b.getRank() < 1)
    return emitOpError("A and B must have rank 1 or more");
  SmallVector<int64_t> as(a.getShape()), bs(b.getShape());
  if (as.size() == 1) // a row
    as.insert(as.begin(), 1);
  if (bs.size() == 1) // a column
    bs.push_back(1);
  if (as.back() != bs[bs.size() - 2])
    return emitOpError("inner dimensions differ: A is ")
           << a << ", B is " << b;
  const size_t ra = as.size() - 2, rb = bs.size() - 2,
               r = std::max(ra, rb);
  if (r > 8)
    return emitOpError("batch rank ") << r << " exceeds 8";
  SmallVector<int64_t> want;
  for (size_t i = 0; i < r; ++i) { // right-aligned
    const int64_t da = i >= r - ra ? as[i - (r - ra)] : 1,
                  db = i >= r - rb ? bs[i - (r - rb)] : 1;
    if (da != db && da != 1 && db != 1)
      return emitOpError("batch dimensions of A ")
             << a << " and B " << b << " do not broadcast";
    want.push_back(da == 1 ? db : da);
  }
  if (a.getRank() > 1)
    want.push_back(as[as.size() - 2]);
  if (b.getRank() > 1)
    want.push_back(bs.back());
  if (y.getShape() != ArrayRef<int64_t>(want))
    return emitOpError("result ") << y << " must have the shape "
                                  << listString(want);
  // The kernel's columns: a 1-D B is one column, dropped from the result.
  return verifyEpilogue(*this, getEpilogue(), getEpilogueInputs(),
                        getEpilogueFloats(), y, -1,
                        b.getRank() > 1 ? bs.back() : 1);
}

/// True if `axis` names a dimension of a tensor of `rank`; else reports it.
static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError("axis ")
           << axis << " is not a dimension of a rank-" << rank << " input";
  return success();
}

int64_t SoftmaxOp::getKindCode() {
  return kindCode(kSoftmaxKinds, getKind());
}

LogicalResult SoftmaxOp::verify() {
  if (getKindCode() < 0)
    return emitOpError("unknown kind '") << getKind() << "'";
  auto x = getInput().getType().cast<RankedTensorType>();
  if (!isFloatType(x.getElementType()))
    return emitOpError("input must be f32 or f64, not ") << x.getElementType();
  return verifyAxis(*this, getAxis(), x.getRank());
}

LogicalResult LayerNormOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  Type e = x.getElementType();
  if (!isFloatType(e))
    return emitOpError("input must be f32 or f64, not ") << e;
  const int64_t axis = getAxis();
  if (failed(verifyAxis(*this, axis, x.getRank())))
    return failure();
  ArrayRef<int64_t> norm = x.getShape().drop_front(axis);
  for (Value v : {getScale(), getBias()}) {
    if (!v)
      continue;
    auto t = v.getType().cast<RankedTensorType>();
    ArrayRef<int64_t> s = t.getShape();
    while (s.size() > norm.size() && s.front() == 1) // leading 1s
      s = s.drop_front();
    if (t.getElementType() != e || s != norm)
      return emitOpError("scale and bias must be ")
             << e << " of the normalized shape " << listString(norm)
             << ", not " << t;
  }
  if (getResult().getType() != x)
    return emitOpError("result must have the input's type ") << x;
  SmallVector<int64_t> stat(x.getShape().take_front(axis));
  stat.resize(x.getRank(), 1);
  auto statType = RankedTensorType::get(stat, Float32Type::get(getContext()));
  if (getMean().getType() != statType || getInvStdDev().getType() != statType)
    return emitOpError("mean and inv_std_dev must be ") << statType;
  return success();
}

LogicalResult InstanceNormOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  Type e = x.getElementType();
  if (!isFloatType(e))
    return emitOpError("input must be f32 or f64, not ") << e;
  if (x.getRank() < 3)
    return emitOpError("input ") << x
                                 << " needs rank 3 or more (N, C, spatial...)";
  auto channel = RankedTensorType::get({x.getDimSize(1)}, e);
  if (getScale().getType() != channel || getBias().getType() != channel)
    return emitOpError("scale and bias must be ") << channel;
  if (getResult().getType() != x)
    return emitOpError("result must have the input's type ") << x;
  return success();
}

LogicalResult LrnOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  if (!x.getElementType().isF32())
    return emitOpError("input must be f32, not ") << x.getElementType();
  if (x.getRank() < 3)
    return emitOpError("input ") << x
                                 << " needs rank 3 or more (N, C, spatial...)";
  if (getSize() < 1)
    return emitOpError("size must be positive, not ") << getSize();
  return success();
}

/// The element types of the reductions: floats and integers (not i1).
static bool isNumericType(Type e) {
  return isKernelElementType(e) && !e.isInteger(1);
}

int64_t ReduceOp::getKindCode() { return kindCode(kReduceKinds, getKind()); }

LogicalResult ReduceOp::verify() {
  if (getKindCode() < 0)
    return emitOpError("unknown kind '") << getKind() << "'";
  auto x = getInput().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  Type e = x.getElementType();
  if (getKind() == "log_sum_exp" ? !isFloatType(e) : !isNumericType(e))
    return emitOpError("element type ")
           << e << " is not one " << getKind() << " reduces";
  if (x.getRank() > 8)
    return emitOpError("input rank ") << x.getRank() << " exceeds 8";
  ArrayRef<int64_t> axes = getAxes();
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] < 0 || axes[i] >= x.getRank() || (i && axes[i] <= axes[i - 1]))
      return emitOpError("axes ")
             << listString(axes) << " must be ascending dimensions of a rank-"
             << x.getRank() << " input";
  SmallVector<int64_t> want;
  for (int64_t d = 0; d < x.getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      want.push_back(x.getDimSize(d));
    else if (getKeepdims())
      want.push_back(1);
  if (y != RankedTensorType::get(want, e))
    return emitOpError("result must be ")
           << RankedTensorType::get(want, e) << ", not " << y;
  return success();
}

LogicalResult ArgReduceOp::verify() {
  if (getKind() != "max" && getKind() != "min")
    return emitOpError("kind must be \"max\" or \"min\", not '")
           << getKind() << "'";
  auto x = getInput().getType().cast<RankedTensorType>();
  if (!isNumericType(x.getElementType()))
    return emitOpError("element type ")
           << x.getElementType() << " is not a number type";
  const int64_t axis = getAxis();
  if (failed(verifyAxis(*this, axis, x.getRank())))
    return failure();
  if (x.getDimSize(axis) == 0)
    return emitOpError("axis ") << axis << " is empty";
  SmallVector<int64_t> want(x.getShape());
  if (getKeepdims())
    want[axis] = 1;
  else
    want.erase(want.begin() + axis);
  auto type = RankedTensorType::get(want, IntegerType::get(getContext(), 64));
  if (getResult().getType() != type)
    return emitOpError("result must be ") << type << ", not "
                                          << getResult().getType();
  return success();
}

/// The element types the data-movement kernels copy: those the kernels
/// compute on, and f16.
static bool isDataElementType(Type t) {
  return isKernelElementType(t) || t.isF16();
}

/// `t`'s dimensions but `axis` equal `y`'s, with the same element type and
/// rank.
static bool sameOffAxis(RankedTensorType t, RankedTensorType y, int64_t axis) {
  if (t.getElementType() != y.getElementType() || t.getRank() != y.getRank())
    return false;
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (d != axis && t.getDimSize(d) != y.getDimSize(d))
      return false;
  return true;
}

/// The sizes along `axis` of `parts` (each the same as `whole` off it) add up
/// to `whole`'s; `what` names the parts in the message.
static LogicalResult verifyParts(Operation *op, TypeRange parts,
                                 RankedTensorType whole, int64_t axis,
                                 StringRef what) {
  if (parts.empty())
    return op->emitOpError("needs at least one ") << what;
  if (!isDataElementType(whole.getElementType()))
    return op->emitOpError("element type ")
           << whole.getElementType() << " is not one the kernels copy";
  if (failed(verifyAxis(op, axis, whole.getRank())))
    return failure();
  int64_t total = 0;
  for (auto [i, type] : llvm::enumerate(parts)) {
    auto t = type.cast<RankedTensorType>();
    if (!sameOffAxis(t, whole, axis))
      return op->emitOpError() << what << " " << i << " " << t
                               << " does not match " << whole
                               << " off axis " << axis;
    if (__builtin_add_overflow(total, t.getDimSize(axis), &total))
      return op->emitOpError("sizes along axis ") << axis << " overflow";
  }
  if (total != whole.getDimSize(axis))
    return op->emitOpError("the ")
           << what << "s' sizes along axis " << axis << " add up to " << total
           << ", not " << whole.getDimSize(axis);
  return success();
}

LogicalResult ConcatOp::verify() {
  return verifyParts(*this, getInputs().getTypes(),
                     getResult().getType().cast<RankedTensorType>(), getAxis(),
                     "input");
}

LogicalResult SplitOp::verify() {
  return verifyParts(*this, getResultTypes(),
                     getInput().getType().cast<RankedTensorType>(), getAxis(),
                     "result");
}

LogicalResult GatherOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto i = getIndices().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  if (!isDataElementType(x.getElementType()))
    return emitOpError("element type ")
           << x.getElementType() << " is not one the kernels copy";
  if (!i.getElementType().isSignlessInteger(32) &&
      !i.getElementType().isSignlessInteger(64))
    return emitOpError("indices must be i32 or i64, not ") << i.getElementType();
  const int64_t axis = getAxis();
  if (failed(verifyAxis(*this, axis, x.getRank())))
    return failure();
  SmallVector<int64_t> want(x.getShape().take_front(axis));
  want.append(i.getShape().begin(), i.getShape().end());
  want.append(x.getShape().begin() + axis + 1, x.getShape().end());
  if (want.size() > 8)
    return emitOpError("result rank ") << want.size() << " exceeds 8";
  if (y != RankedTensorType::get(want, x.getElementType()))
    return emitOpError("result must be ")
           << RankedTensorType::get(want, x.getElementType()) << ", not " << y;
  return success();
}

LogicalResult WhereOp::verify() {
  auto c = getCondition().getType().cast<RankedTensorType>();
  auto x = getX().getType().cast<RankedTensorType>();
  auto y = getY().getType().cast<RankedTensorType>();
  auto r = getResult().getType().cast<RankedTensorType>();
  if (!c.getElementType().isInteger(1))
    return emitOpError("condition must be i1, not ") << c.getElementType();
  if (!isDataElementType(r.getElementType()) ||
      x.getElementType() != r.getElementType() ||
      y.getElementType() != r.getElementType())
    return emitOpError("x, y and the result must share an element type the "
                       "kernels copy");
  // numpy broadcasting of the three to the result.
  bool fits = r.getRank() <= 8 &&
              r.getRank() == std::max({c.getRank(), x.getRank(), y.getRank()});
  for (int64_t d = 0; fits && d < r.getRank(); ++d) {
    int64_t want = 1;
    for (RankedTensorType t : {c, x, y}) {
      const int64_t i = d - (r.getRank() - t.getRank());
      const int64_t n = i < 0 ? 1 : t.getDimSize(i);
      if (n != 1) {
        fits &= want == 1 || want == n;
        want = n;
      }
    }
    fits &= r.getDimSize(d) == want;
  }
  if (!fits)
    return emitOpError("condition ")
           << c << ", x " << x << " and y " << y
           << " do not broadcast to the result " << r;
  return success();
}

LogicalResult CastOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  if (!isDataElementType(x.getElementType()) ||
      !isDataElementType(y.getElementType()))
    return emitOpError("casts between f32, f64, f16, integers and i1, not ")
           << x.getElementType() << " to " << y.getElementType();
  if (x.getShape() != y.getShape())
    return emitOpError("result ") << y << " must have the input's shape";
  return success();
}

LogicalResult StridedCopyOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  if (!isDataElementType(x.getElementType()) ||
      y.getElementType() != x.getElementType())
    return emitOpError("input and result must share an element type the "
                       "kernels copy");
  ArrayRef<int64_t> shape = getShape(), strides = getStrides();
  if (shape.size() != strides.size())
    return emitOpError("shape ") << listString(shape) << " and strides "
                                 << listString(strides)
                                 << " must have as many values";
  int64_t count = 1, lo = getOffset(), hi = getOffset();
  bool wraps = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      return emitOpError("shape ") << listString(shape)
                                   << " has a negative dimension";
    wraps |= __builtin_mul_overflow(count, shape[d], &count);
  }
  if (wraps || count != y.getNumElements())
    return emitOpError("shape ") << listString(shape) << " walks "
                                 << (wraps ? std::string("too many")
                                           : std::to_string(count))
                                 << " elements; the result has "
                                 << y.getNumElements();
  if (count == 0)
    return success();
  for (size_t d = 0; d < shape.size(); ++d) { // the walk's first and last reads
    int64_t reach = 0;
    wraps |= __builtin_mul_overflow(shape[d] - 1, strides[d], &reach) ||
             __builtin_add_overflow(reach < 0 ? lo : hi, reach,
                                    reach < 0 ? &lo : &hi);
  }
  if (wraps || lo < 0 || hi >= x.getNumElements())
    return emitOpError("reads elements ")
           << (wraps ? std::string("past 64 bits")
                     : std::to_string(lo) + " to " + std::to_string(hi))
           << " of an input of " << x.getNumElements();
  return success();
}

/// Index tensors: i32 or i64 (`i64Only`: i64).
static bool isIndexType(Type t, bool i64Only = false) {
  return t.isSignlessInteger(64) || (!i64Only && t.isSignlessInteger(32));
}

/// `indices` fits `input` along every dimension but `axis` (same rank, no
/// dimension larger), the input's rank at most 8.
static LogicalResult verifyAlongAxis(Operation *op, RankedTensorType x,
                                     RankedTensorType i, int64_t axis) {
  if (!isDataElementType(x.getElementType()))
    return op->emitOpError("element type ")
           << x.getElementType() << " is not one the kernels copy";
  if (!isIndexType(i.getElementType()))
    return op->emitOpError("indices must be i32 or i64, not ")
           << i.getElementType();
  if (failed(verifyAxis(op, axis, x.getRank())))
    return failure();
  bool fits = x.getRank() <= 8 && i.getRank() == x.getRank();
  for (int64_t d = 0; fits && d < x.getRank(); ++d)
    fits = d == axis || i.getDimSize(d) <= x.getDimSize(d);
  if (!fits)
    return op->emitOpError("indices ")
           << i << " do not fit input " << x << " off axis " << axis;
  return success();
}

LogicalResult GatherElementsOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto i = getIndices().getType().cast<RankedTensorType>();
  if (failed(verifyAlongAxis(*this, x, i, getAxis())))
    return failure();
  auto want = RankedTensorType::get(i.getShape(), x.getElementType());
  if (getResult().getType() != want)
    return emitOpError("result must be ") << want;
  return success();
}

/// A scatter's reduction is one of kScatterReductions, and only "none"
/// writes f16 or i1.
static LogicalResult verifyReduction(Operation *op, StringRef reduction,
                                     Type e) {
  if (kindCode(kScatterReductions, reduction) < 0)
    return op->emitOpError("unknown reduction '") << reduction << "'";
  if (reduction != "none" && (e.isF16() || e.isInteger(1)))
    return op->emitOpError("reduction ")
           << reduction << " does not compute on " << e;
  return success();
}

LogicalResult ScatterElementsOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto i = getIndices().getType().cast<RankedTensorType>();
  if (failed(verifyAlongAxis(*this, x, i, getAxis())) ||
      failed(verifyReduction(*this, getReduction(), x.getElementType())))
    return failure();
  if (getUpdates().getType() !=
      RankedTensorType::get(i.getShape(), x.getElementType()))
    return emitOpError("updates must be ")
           << RankedTensorType::get(i.getShape(), x.getElementType());
  if (getResult().getType() != x)
    return emitOpError("result must have the input's type ") << x;
  return success();
}

/// GatherND's and ScatterND's index tuples: i64 [..., k] with 1 <= k <=
/// the input's dimensions after `batch`; k, or -1 after reporting.
static int64_t tupleLength(Operation *op, RankedTensorType x,
                           RankedTensorType i, int64_t batch) {
  if (!isDataElementType(x.getElementType())) {
    op->emitOpError("element type ")
        << x.getElementType() << " is not one the kernels copy";
    return -1;
  }
  if (!isIndexType(i.getElementType(), true)) {
    op->emitOpError("indices must be i64, not ") << i.getElementType();
    return -1;
  }
  const int64_t k = i.getRank() ? i.getShape().back() : 0;
  if (i.getRank() < 1 || k < 1 || k > x.getRank() - batch) {
    op->emitOpError("indices ") << i << " do not hold tuples of 1 to "
                                << x.getRank() - batch << " coordinates";
    return -1;
  }
  return k;
}

LogicalResult GatherNdOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto i = getIndices().getType().cast<RankedTensorType>();
  const int64_t b = getBatchDims();
  if (b < 0 || b >= std::min(x.getRank(), i.getRank()))
    return emitOpError("batch_dims ") << b << " must be below both ranks";
  const int64_t k = tupleLength(*this, x, i, b);
  if (k < 0)
    return failure();
  if (x.getShape().take_front(b) != i.getShape().take_front(b))
    return emitOpError("input ") << x << " and indices " << i
                                 << " differ in their batch dimensions";
  SmallVector<int64_t> want(i.getShape().drop_back());
  want.append(x.getShape().begin() + b + k, x.getShape().end());
  auto type = RankedTensorType::get(want, x.getElementType());
  if (getResult().getType() != type)
    return emitOpError("result must be ") << type;
  return success();
}

LogicalResult ScatterNdOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto i = getIndices().getType().cast<RankedTensorType>();
  const int64_t k = tupleLength(*this, x, i, 0);
  if (k < 0 ||
      failed(verifyReduction(*this, getReduction(), x.getElementType())))
    return failure();
  SmallVector<int64_t> want(i.getShape().drop_back());
  want.append(x.getShape().begin() + k, x.getShape().end());
  auto type = RankedTensorType::get(want, x.getElementType());
  if (getUpdates().getType() != type)
    return emitOpError("updates must be ") << type;
  if (getResult().getType() != x)
    return emitOpError("result must have the input's type ") << x;
  return success();
}

LogicalResult CumSumOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  if (!isNumericType(x.getElementType()))
    return emitOpError("element type ") << x.getElementType()
                                        << " is not a number type";
  return verifyAxis(*this, getAxis(), x.getRank());
}

LogicalResult PadOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  Type e = x.getElementType();
  if (!isDataElementType(e) || y.getElementType() != e)
    return emitOpError("input and result must share an element type the "
                       "kernels copy");
  if (kindCode(kPadModes, getMode()) < 0)
    return emitOpError("unknown mode '") << getMode() << "'";
  if (getValue() &&
      (getValue().getType().cast<RankedTensorType>().getElementType() != e ||
       getValue().getType().cast<RankedTensorType>().getNumElements() != 1))
    return emitOpError("value must be one element of ") << e;
  const int64_t r = x.getRank();
  ArrayRef<int64_t> pads = getPads();
  if (r < 1 || r > 8 || (int64_t)pads.size() != 2 * r || y.getRank() != r)
    return emitOpError("input ") << x << ", result " << y << " and pads "
                                 << listString(pads)
                                 << " must have one rank, 1 to 8";
  for (int64_t d = 0; d < r; ++d) {
    int64_t out = 0;
    if (__builtin_add_overflow(x.getDimSize(d), pads[d], &out) ||
        __builtin_add_overflow(out, pads[r + d], &out) ||
        out != y.getDimSize(d))
      return emitOpError("dimension ")
             << d << ": the result has " << y.getDimSize(d) << ", not "
             << x.getDimSize(d) << " + " << pads[d] << " + " << pads[r + d];
    if (getMode() != "constant" && x.getDimSize(d) == 0 && out > 0)
      return emitOpError("cannot pad an empty dimension in ")
             << getMode() << " mode";
  }
  return success();
}

LogicalResult ResizeAxisOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  const int64_t axis = getAxis(), taps = getTaps();
  if (failed(verifyAxis(*this, axis, x.getRank())))
    return failure();
  if (!sameOffAxis(x, y, axis))
    return emitOpError("input ")
           << x << " and result " << y
           << " must differ only along axis " << axis;
  if (taps != 1 && taps != 2 && taps != 4)
    return emitOpError("taps must be 1, 2 or 4, not ") << taps;
  Type e = x.getElementType();
  if (taps == 1 ? !isDataElementType(e) : !isFloatType(e))
    return emitOpError("element type ")
           << e << " cannot be " << (taps == 1 ? "copied" : "interpolated")
           << (taps == 1 ? "" : " (f32 or f64 only)");
  const int64_t in = x.getDimSize(axis), out = y.getDimSize(axis);
  ArrayRef<int64_t> idx = getIndices();
  if ((int64_t)idx.size() != out * taps || getWeights().size() != idx.size())
    return emitOpError("indices and weights must hold ")
           << out << " x " << taps << " entries (result positions x taps), not "
           << idx.size() << " and " << getWeights().size();
  for (int64_t j = 0; j < out; ++j) {
    ArrayRef<int64_t> row = idx.slice(j * taps, taps);
    const bool outside = row[0] == -1;
    for (int64_t i : row)
      if (outside ? i != -1 : (i < 0 || i >= in))
        return emitOpError("position ")
               << j << " reads " << listString(row)
               << ": each index must lie in [0, " << in
               << "), or all be -1 (extrapolated)";
  }
  return success();
}

LogicalResult TriluOp::verify() {
  auto x = getInput().getType().cast<RankedTensorType>();
  if (x.getRank() < 2)
    return emitOpError("input ") << x << " must have rank 2 or more";
  if (!isDataElementType(x.getElementType()))
    return emitOpError("element type ")
           << x.getElementType() << " is not one the kernels copy";
  return success();
}

LogicalResult OneHotOp::verify() {
  auto idx = getIndices().getType().cast<RankedTensorType>();
  auto v = getValues().getType().cast<RankedTensorType>();
  auto y = getResult().getType().cast<RankedTensorType>();
  if (!isNumericType(idx.getElementType()))
    return emitOpError("indices of type ")
           << idx.getElementType() << " are not numbers";
  if (v.getNumElements() != 2 || !isDataElementType(v.getElementType()))
    return emitOpError("values must hold two elements (off, on), not ") << v;
  const int64_t depth = getDepth(), axis = getAxis();
  if (depth < 1)
    return emitOpError("depth must be positive, not ") << depth;
  if (failed(verifyAxis(*this, axis, idx.getRank() + 1)))
    return failure();
  SmallVector<int64_t> want(idx.getShape());
  want.insert(want.begin() + axis, depth);
  auto type = RankedTensorType::get(want, v.getElementType());
  if (y != type)
    return emitOpError("result must be ") << type;
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

/// Each operand's constant bytes (a valid pointer for an empty tensor, which
/// kernels offset by zero), or false if one is not a constant.
static bool constantOperands(ArrayRef<Attribute> operands,
                             SmallVectorImpl<const char *> &bytes) {
  static const char empty[64] = {};
  for (Attribute a : operands) {
    auto r = a.dyn_cast_or_null<DenseResourceElementsAttr>();
    AsmResourceBlob *blob = r ? r.getRawHandle().getBlob() : nullptr;
    if (!blob)
      return false;
    bytes.push_back(blob->getData().empty() ? empty : blob->getData().data());
  }
  return true;
}

/// `outputs` as constants of `op`'s result types, named after its node.
static void constantResults(Operation *op, StringRef node,
                            ArrayRef<std::vector<char>> outputs,
                            SmallVectorImpl<OpFoldResult> &results) {
  for (auto [i, bytes] : llvm::enumerate(outputs)) {
    auto type = op->getResult(i).getType().cast<RankedTensorType>();
    std::string name = node.str();
    if (op->getNumResults() > 1)
      name += "." + std::to_string(i);
    results.push_back(constantValue(op->getContext(), name, type, bytes));
  }
}

static const TensorFoldInterface *hostFolder(Operation *op) {
  return op->getDialect()->getRegisteredInterface<TensorFoldInterface>();
}

LogicalResult TensorOp::fold(FoldAdaptor adaptor,
                            SmallVectorImpl<OpFoldResult> &results) {
  const TensorFoldInterface *folder = hostFolder(*this);
  SmallVector<const char *> operands;
  if (!folder || !constantOperands(adaptor.getOperands(), operands))
    return failure();
  SmallVector<const char *> inputs;
  for (int64_t s : getKernelSlots())
    inputs.push_back(s < 0 ? nullptr : operands[s]);
  std::vector<std::vector<char>> outputs;
  if (!folder->fold(*this, inputs, outputs) ||
      outputs.size() != getNumResults())
    return failure();
  constantResults(*this, getNode(), outputs, results);
  return success();
}

/// A typed graph op on constants, computed by the kernel it runs as.
static LogicalResult foldTypedOp(Operation *op, ArrayRef<Attribute> operands,
                                 SmallVectorImpl<OpFoldResult> &results) {
  const TensorFoldInterface *folder = hostFolder(op);
  SmallVector<const char *> bytes;
  if (!folder || !constantOperands(operands, bytes))
    return failure();
  std::vector<std::vector<char>> outputs;
  if (!folder->foldTyped(op, bytes, outputs) ||
      outputs.size() != op->getNumResults())
    return failure();
  constantResults(op, op->getAttrOfType<StringAttr>("node").getValue(),
                  outputs, results);
  return success();
}

#define KILN_FOLD_ONE_RESULT(Op)                                              \
  OpFoldResult Op::fold(FoldAdaptor adaptor) {                                \
    SmallVector<OpFoldResult, 1> results;                                     \
    if (failed(foldTypedOp(*this, adaptor.getOperands(), results)))           \
      return {};                                                              \
    return results.front();                                                   \
  }
KILN_FOLD_ONE_RESULT(ConvOp)
KILN_FOLD_ONE_RESULT(ConvTransposeOp)
KILN_FOLD_ONE_RESULT(GemmOp)
KILN_FOLD_ONE_RESULT(BatchMatMulOp)
KILN_FOLD_ONE_RESULT(BinaryOp)
KILN_FOLD_ONE_RESULT(UnaryOp)
KILN_FOLD_ONE_RESULT(ClipOp)
KILN_FOLD_ONE_RESULT(BatchNormOp)
KILN_FOLD_ONE_RESULT(InstanceNormOp)
KILN_FOLD_ONE_RESULT(LrnOp)
KILN_FOLD_ONE_RESULT(SoftmaxOp)
KILN_FOLD_ONE_RESULT(GlobalPoolOp)
KILN_FOLD_ONE_RESULT(ReduceOp)
KILN_FOLD_ONE_RESULT(ArgReduceOp)
KILN_FOLD_ONE_RESULT(ConcatOp)
KILN_FOLD_ONE_RESULT(GatherOp)
KILN_FOLD_ONE_RESULT(WhereOp)
KILN_FOLD_ONE_RESULT(CastOp)
KILN_FOLD_ONE_RESULT(StridedCopyOp)
KILN_FOLD_ONE_RESULT(GatherElementsOp)
KILN_FOLD_ONE_RESULT(ScatterElementsOp)
KILN_FOLD_ONE_RESULT(GatherNdOp)
KILN_FOLD_ONE_RESULT(ScatterNdOp)
KILN_FOLD_ONE_RESULT(CumSumOp)
KILN_FOLD_ONE_RESULT(PadOp)
KILN_FOLD_ONE_RESULT(ResizeAxisOp)
KILN_FOLD_ONE_RESULT(TriluOp)
KILN_FOLD_ONE_RESULT(OneHotOp)
#undef KILN_FOLD_ONE_RESULT

LogicalResult PoolOp::fold(FoldAdaptor adaptor,
                           SmallVectorImpl<OpFoldResult> &results) {
  return foldTypedOp(*this, adaptor.getOperands(), results);
}

LogicalResult SplitOp::fold(FoldAdaptor adaptor,
                            SmallVectorImpl<OpFoldResult> &results) {
  return foldTypedOp(*this, adaptor.getOperands(), results);
}

LogicalResult LayerNormOp::fold(FoldAdaptor adaptor,
                                SmallVectorImpl<OpFoldResult> &results) {
  return foldTypedOp(*this, adaptor.getOperands(), results);
}

#define GET_OP_CLASSES
#include "compiler/dialect/KilnOps.cpp.inc"
