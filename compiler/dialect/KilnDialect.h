//===- KilnDialect.h - the kiln dialect, its types and ops ----------------===//
#ifndef KILN_DIALECT_KILNDIALECT_H
#define KILN_DIALECT_KILNDIALECT_H

#include <array>
#include <set>
#include <string>
#include <string_view>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/dialect/KilnDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialect/KilnTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialect/KilnAttrs.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialect/KilnOps.h.inc"

namespace kiln {
/// Computes the results of a kiln.tensor_op or a typed graph op whose
/// inputs are all constants, for their folders. The dialect links no kernels, so a layer that does
/// attaches this interface to it (registerTensorFolding,
/// compiler/passes/FoldConstants.cpp); without it tensor_ops do not fold.
class TensorFoldInterface
    : public mlir::DialectInterface::Base<TensorFoldInterface> {
public:
  explicit TensorFoldInterface(mlir::Dialect *dialect) : Base(dialect) {}
  /// `inputs`: each kernel input's bytes in the kernel's order (null for an
  /// omitted one). Fills `outputs` with each result's bytes and returns
  /// true, or returns false when the call does not fold (no host kernel,
  /// results too large to compute at compile time).
  virtual bool fold(TensorOp op, llvm::ArrayRef<const char *> inputs,
                    std::vector<std::vector<char>> &outputs) const = 0;
  /// The same for a typed graph op (isTypedGraphOp), run as the kernel call
  /// kiln-select-kernels would lower it to; `operands` are the bytes of
  /// each of its operands, in order.
  virtual bool foldTyped(mlir::Operation *op,
                         llvm::ArrayRef<const char *> operands,
                         std::vector<std::vector<char>> &outputs) const = 0;
};

/// The kinds of an epilogue operation ({kind, code, a, b}) of kiln.conv,
/// kiln.conv_transpose, kiln.gemm and kiln.batch_matmul, the numbers of
/// kiln_tensor.h's KILN_EP_* (the dialect links no kernels; the passes that
/// read both check that they agree). Channel and BatchNorm are the
/// convolutions', Column the matrix products'; Call only a generated
/// library's.
enum class EpilogueKind : int64_t {
  Save, Scalar, Channel, Full, Saved, Unary, Clip, BatchNorm, Call, Column
};

/// kiln.binary's kinds, in the order of kiln_tensor.h's KILN_BIN_* codes
/// (the passes that lower them check that they agree).
inline constexpr std::string_view kBinaryKinds[] = {
    "add", "sub", "mul", "div", "pow", "max", "min", "mod", "fmod", "equal",
    "less", "greater", "less_equal", "greater_equal", "and", "or", "xor",
    "prelu"};
/// kiln.unary's kinds, in the order of KILN_UN_*.
inline constexpr std::string_view kUnaryKinds[] = {
    "relu", "leaky_relu", "sigmoid", "hard_sigmoid", "hard_swish", "tanh",
    "erf", "gelu", "gelu_tanh", "sqrt", "exp", "log", "abs", "neg",
    "reciprocal", "not", "floor", "ceil", "sin", "cos", "softplus",
    "softsign", "elu", "selu", "sign", "round", "celu", "thresholded_relu",
    "identity"};
/// kiln.reduce's kinds, in the order of KILN_RED_*.
inline constexpr std::string_view kReduceKinds[] = {
    "sum", "mean", "max", "min", "prod", "l1", "l2", "sum_square", "log_sum",
    "log_sum_exp"};
/// kiln.softmax's kinds, in the order of KILN_SM_*.
inline constexpr std::string_view kSoftmaxKinds[] = {"softmax", "log_softmax",
                                                     "hardmax"};
/// The reductions of kiln.scatter_elements and kiln.scatter_nd, in the
/// order of KILN_SCATTER_*.
inline constexpr std::string_view kScatterReductions[] = {"none", "add", "mul",
                                                          "max", "min"};
/// kiln.pad's modes, in the order of KILN_PAD_*.
inline constexpr std::string_view kPadModes[] = {"constant", "reflect",
                                                 "edge"};
/// The index of `kind` in `kinds`, or -1.
template <size_t N>
constexpr int64_t kindCode(const std::string_view (&kinds)[N],
                           std::string_view kind) {
  for (size_t i = 0; i < N; ++i)
    if (kinds[i] == kind)
      return (int64_t)i;
  return -1;
}

/// True if a tensor of type `t` broadcasts against `out` ([N, M, ...]) with
/// one value per channel: right-aligned, M on axis 1 and 1 everywhere else
/// ([M, 1, 1], [1, M, 1, 1], ...).
inline bool broadcastsPerChannel(mlir::RankedTensorType t,
                                 mlir::RankedTensorType out) {
  const int64_t r = t.getRank(), R = out.getRank();
  if (r > R || R < 2)
    return false;
  for (int64_t d = 0; d < r; ++d)
    if (t.getDimSize(d) != (R - r + d == 1 ? out.getDimSize(1) : 1))
      return false;
  return true;
}

/// True if `t` broadcasts against `out` as one value per column (its last
/// dimension, of `columns`): [columns], [1, columns], ...
inline bool broadcastsPerColumn(mlir::RankedTensorType t,
                                mlir::RankedTensorType out, int64_t columns) {
  const int64_t r = t.getRank(), R = out.getRank();
  if (r < 1 || r > R || out.getDimSize(R - 1) != columns)
    return false;
  for (int64_t d = 0; d < r; ++d)
    if (t.getDimSize(d) != (d == r - 1 ? columns : 1))
      return false;
  return true;
}

/// True for the typed graph ops that kiln-select-kernels lowers to
/// kiln.tensor_op calls (convolutions, matrix products, elementwise ops,
/// normalizations, poolings, reductions, resizing and data movement); the passes
/// after it see only calls.
inline bool isTypedGraphOp(mlir::Operation *op) {
  return mlir::isa<ConvOp, ConvTransposeOp, ConvBlockedOp, BlockChannelsOp,
                   UnblockChannelsOp, GemmOp, BatchMatMulOp, BinaryOp,
                   UnaryOp, ClipOp, BatchNormOp, InstanceNormOp, LayerNormOp,
                   LrnOp, SoftmaxOp, PoolOp, GlobalPoolOp, ReduceOp,
                   ArgReduceOp, ConcatOp, SplitOp, GatherOp, WhereOp, CastOp,
                   StridedCopyOp, GatherElementsOp, ScatterElementsOp,
                   GatherNdOp, ScatterNdOp, CumSumOp, PadOp, ResizeAxisOp,
                   TriluOp, OneHotOp>(op);
}

/// `t` ([N, C, spatial...]) with its channels in blocks of `b`: [N,
/// ceil(C / b), spatial..., b] (kiln.block_channels' result).
mlir::RankedTensorType channelBlockedType(mlir::RankedTensorType t, int64_t b);

/// The f32 elements of `v` when a kiln.constant with its bytes defines it
/// (passes that rewrite constant weights read them so), else std::nullopt.
std::optional<llvm::ArrayRef<float>> constantFloats(mlir::Value v);

/// A kiln.constant value: a dense_resource of `type` holding a copy of
/// `bytes`, its blob keyed by `name` made an identifier (and unique).
mlir::DenseResourceElementsAttr constantValue(mlir::MLIRContext *ctx,
                                              llvm::StringRef name,
                                              mlir::RankedTensorType type,
                                              llvm::ArrayRef<char> bytes);

/// Source names for new kiln.constant ops that no constant of a module has
/// (the library's weight table and messages name constants by them).
class ConstantNames {
public:
  explicit ConstantNames(mlir::ModuleOp module);
  /// `name`, or `name#2`, `name#3`, ... if it is taken; then taken.
  std::string unique(std::string name);

private:
  std::set<std::string> names;
};

/// The module's `kiln.target` attribute, or null.
TargetAttr moduleTarget(mlir::ModuleOp module);

/// How a library lays out its arena and runs, recorded in the module by the
/// driver (kiln.context_length, kiln.max_batch, kiln.max_seqs, kiln.threads,
/// kiln.kv_block, kiln.kv_pool_tokens, kiln.kv_cache, kiln.weights); passes
/// and codegen read it from there.
struct LayoutOptions {
  int64_t context = 0;       // tokens per sequence; 0: the model's own
  int64_t maxBatch = 32;     // rows of one forward call (prefill chunk);
                             // 0: the driver picks it (prefillChunk)
  int64_t l2CacheBytes = 0;  // the target core's L2, when known
  int64_t maxSeqs = 1;       // sequences open at once
  int64_t threads = 1;       // threads the code is split for (hosted)
  int64_t kvBlock = 16;      // tokens per KV block; 0: the whole context
  int64_t kvPoolTokens = 0;  // KV pool size; 0: every sequence full
  bool kvF16 = false;        // KV cache in binary16 (--kv-cache=f16)
  bool externalWeights = false; // NAME.weights instead of embedded weights
  /// The most bytes one tensor or the activation arena may take
  /// (--max-tensor-bytes); recorded as kiln.max_tensor_bytes when not 2^40.
  int64_t maxTensorBytes = int64_t(1) << 40;
};
/// Writes `layout` into the module's attributes; `context` only when it is
/// positive (the importer records the model's own).
void recordLayout(mlir::ModuleOp module, const LayoutOptions &layout);
/// The layout the module records; defaults for what it does not.
LayoutOptions moduleLayout(mlir::ModuleOp module);

/// Elements per block and bytes per block of a weight element type (1 and the
/// byte width for f32/f16/bf16); {0, 0} for anything else.
std::pair<int64_t, int64_t> blockLayout(mlir::Type elementType);
/// The GGML name of a weight element type ("f32", "q4_0", ...), or "".
llvm::StringRef weightTypeName(mlir::Type elementType);
/// Inverse of weightTypeName; null for an unknown name.
mlir::Type weightTypeFromName(mlir::MLIRContext *ctx, llvm::StringRef name);
/// Bytes a weight of this tensor type occupies in GGML layout.
int64_t weightBytes(mlir::RankedTensorType type);
/// Where a matmul over N output rows is cut for `threads` threads: the slice
/// starts, then N. Slices are multiples of 128 rows (every microkernel's row
/// tile divides 128), so one slice when N < 256 or threads == 1.
std::vector<int64_t> matmulSlices(int64_t N, int64_t threads);

/// One kernel call of a matmul: rows [row0, row0 + n) of the weight, which are
/// columns [col, col + n) of result part `part` (each part of a split matmul
/// is cut into thread slices on its own, so a piece never spans two parts).
struct MatMulPiece {
  int64_t part, row0, col, n;
  bool sliced; // its part has more than one piece
};
std::vector<MatMulPiece> matmulPieces(MatMulOp m, int64_t threads);

/// Scratch bytes of a matmul for `rows` input rows, in this order: the input
/// quantized once for every piece (`quantized`), the outputs of sliced parts
/// before they are interleaved into rows (`slices`), and the up half of a
/// swiglu epilogue (`up`). Each region is 64-byte aligned.
struct MatMulScratch {
  int64_t quantized = 0, slices = 0, up = 0;
  int64_t total() const { return quantized + slices + up; }
};
MatMulScratch matmulScratch(MatMulOp m, int64_t rows, int64_t threads);
} // namespace kiln

#endif
