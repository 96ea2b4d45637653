//===- KilnOps.td - ops of the kiln dialect -------------------------------===//
#ifndef KILN_OPS_TD
#define KILN_OPS_TD

include "KilnDialect.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

// Activations: a batch of rows (tokens), dynamic in count, static in width.
def Kiln_Activation : TensorRankOf<[F32], [2]>;
def Kiln_TokenIds : TensorRankOf<[I32], [1]>;

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits>;

// Ops that read weights implement verifySymbolUses to check the weight's shape.
class Kiln_WeightUserOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits,
        [DeclareOpInterfaceMethods<SymbolUserOpInterface>])>;

def Kiln_WeightOp : Kiln_Op<"weight", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "a model weight, stored outside the IR";
  let description = [{
    Declares a weight tensor. Its bytes live in the weight store (the mapped model
    file) under `source`; the IR carries only its type. The shape is row-major
    (outermost first), so a GGUF tensor with ne = [K, N] is `tensor<NxK x T>`.
    When a pass changes the element type (kiln-quantize), `source_type` keeps
    the element type stored in the file; the weight store converts the bytes
    once, when the library is written.

    Passes derive weights from the file's tensors without copying them in the
    IR: `concat` lists tensors whose rows follow those of `source`, in order
    (kiln-fuse-horizontal: one weight for Q, K and V), and `scale_columns`
    names a vector the weight's columns are multiplied by (kiln-fuse-elementwise
    folding an RMSNorm scale into the matmul that consumes it).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttr:$type, StrAttr:$source,
                       OptionalAttr<TypeAttr>:$source_type,
                       OptionalAttr<StrArrayAttr>:$concat,
                       OptionalAttr<StrAttr>:$scale_columns);
  let assemblyFormat = "$sym_name `:` $type attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::RankedTensorType getTensorType() {
      return getType().cast<::mlir::RankedTensorType>();
    }
    /// `source` followed by the tensors of `concat`.
    ::llvm::SmallVector<::llvm::StringRef> getSourceTensors();
  }];
}

def Kiln_EmbeddingOp : Kiln_WeightUserOp<"embedding", [Pure]> {
  let summary = "rows of an embedding table selected by token ids";
  let description = [{
    With `scale` every value is multiplied by it (Gemma: sqrt of the width).
  }];
  let arguments = (ins FlatSymbolRefAttr:$table, Kiln_TokenIds:$tokens,
                       OptionalAttr<F32Attr>:$scale);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$table `,` $tokens attr-dict `:` type($tokens) `->` type($result)";
}

def Kiln_RMSNormOp : Kiln_WeightUserOp<"rms_norm", [Pure, SameOperandsAndResultType]> {
  let summary = "x / sqrt(mean(x^2) + epsilon) * weight, per row";
  let description = [{
    Without `weight` the scale is 1: kiln-fuse-elementwise folds the scale
    into the weights of the matmuls that read the result.

    With `group = G` each run of G values of a row is normalized on its own
    and the weight has G entries: Qwen 3's per-head norm of queries and keys
    (G = the head dimension).
  }];
  let arguments = (ins Kiln_Activation:$input, OptionalAttr<FlatSymbolRefAttr>:$weight,
                       F32Attr:$epsilon, OptionalAttr<I64Attr>:$group);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$input (`,` $weight^)? attr-dict `:` type($result)";
}

def Kiln_MatMulOp : Kiln_WeightUserOp<"matmul", [Pure]> {
  let summary = "y = x * W^T (+ bias): rows of x times a weight of shape [N, K]";
  let description = [{
    Without `split` there is one result of width N. With `split = [N0, N1,
    ...]` (summing to N) the weight is a horizontal fusion of several matmuls
    that read the same input: result i holds output columns [N0 + ... +
    N(i-1), ... + Ni), each its own contiguous tensor, and the input is
    quantized once for all of them.

    An `epilogue` is elementwise work done on the output while it is still in
    cache, instead of by a separate op (kiln-fuse-elementwise):
      "add"      y = xW^T + b + other            (residual add)
      "silu_mul" y = silu(xW^T + b) * other      (this matmul is the gate)
      "mul_silu" y = (xW^T + b) * silu(other)    (this matmul is the up)
      "swiglu"   y = silu(part 0) * part 1       (fused gate/up, split in two)
  }];
  let arguments = (ins Kiln_Activation:$input, FlatSymbolRefAttr:$weight,
                       OptionalAttr<FlatSymbolRefAttr>:$bias,
                       OptionalAttr<DenseI64ArrayAttr>:$split,
                       OptionalAttr<StrAttr>:$epilogue,
                       Optional<Kiln_Activation>:$other);
  let results = (outs Variadic<Kiln_Activation>:$outputs);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^)? (`split` $split^)? (`epilogue` $epilogue^)?
    (`with` $other^)? attr-dict `:` type($input) (`,` type($other)^)? `->` type($outputs)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Weight rows computed for each part: `split`, or {N}.
    ::llvm::SmallVector<int64_t> getParts();
    /// The first (usually only) result.
    ::mlir::Value getOutput() { return getOutputs()[0]; }
  }];
}

def Kiln_RoPEOp : Kiln_WeightUserOp<"rope", [SameOperandsAndResultType]> {
  let summary = "rotary position embedding at the sequence's next positions";
  let description = [{
    Rotates each head of each row by its position (the sequence length before this
    call plus the row index). `style` is "adjacent" (pairs 2i, 2i+1: llama.cpp's
    mode for llama GGUFs) or "neox" (pairs i, i + head_dim/2: qwen2). Pair i
    turns by position x theta^(-2i/head_dim), divided by element i of
    `freq_factors` when given (a weight of head_dim/2 floats: the llama3
    frequency factors, rope_freqs.weight).

    LongRoPE (Phi-3): when the compiled context (kiln.context_length) exceeds
    `long_context`, `long_freq_factors` replace `freq_factors`; `scale`
    multiplies the cosines and sines (the attention factor). Linear RoPE
    scaling divides every angle by `linear_factor`.
  }];
  let arguments = (ins Kiln_Activation:$input, I64Attr:$head_dim,
                       F32Attr:$theta, StrAttr:$style,
                       OptionalAttr<FlatSymbolRefAttr>:$freq_factors,
                       OptionalAttr<FlatSymbolRefAttr>:$long_freq_factors,
                       OptionalAttr<I64Attr>:$long_context,
                       OptionalAttr<F32Attr>:$scale,
                       OptionalAttr<F32Attr>:$linear_factor);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Linear RoPE scaling: every angle divided by it (1 without it).
    double linearFactor() {
      return getLinearFactor() ? getLinearFactor()->convertToDouble() : 1.0;
    }
    /// The frequency factors in effect at compiled context `context`.
    ::mlir::FlatSymbolRefAttr freqFactorsAt(int64_t context) {
      if (getLongFreqFactorsAttr() && getLongContext() &&
          context > (int64_t)*getLongContext())
        return getLongFreqFactorsAttr();
      return getFreqFactorsAttr();
    }
    /// The factor on cosines and sines (1 without `scale`).
    double cosSinScale() {
      return getScale() ? getScale()->convertToDouble() : 1.0;
    }
  }];
}

def Kiln_AttentionOp : Kiln_Op<"attention"> {
  let summary = "causal multi-head attention that appends k and v to the KV cache";
  let description = [{
    Stores the rows of `key` and `value` at the sequence's next positions in the KV
    cache of `layer`, then computes for each query row softmax(q k^T / sqrt(d)) v
    over all positions up to its own. Query head h reads KV head
    h / (num_heads / num_kv_heads) (grouped-query attention). With `window`
    a query at position p sees only the positions above p - window (sliding
    window attention).
  }];
  let arguments = (ins Kiln_Activation:$query, Kiln_Activation:$key,
                       Kiln_Activation:$value, I64Attr:$layer, I64Attr:$num_heads,
                       I64Attr:$num_kv_heads, I64Attr:$head_dim,
                       OptionalAttr<I64Attr>:$window);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value attr-dict `:` type($query) `,` type($key) `,` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kiln_SiluMulOp : Kiln_Op<"silu_mul", [Pure, SameOperandsAndResultType]> {
  let summary = "silu(gate) * up, elementwise";
  let arguments = (ins Kiln_Activation:$gate, Kiln_Activation:$up);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$gate `,` $up attr-dict `:` type($result)";
}

def Kiln_GeluMulOp : Kiln_Op<"gelu_mul", [Pure, SameOperandsAndResultType]> {
  let summary = "gelu(gate) * up, elementwise, GELU in its tanh form";
  let description = [{
    gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): Gemma's gated
    FFN, as llama.cpp computes it.
  }];
  let arguments = (ins Kiln_Activation:$gate, Kiln_Activation:$up);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$gate `,` $up attr-dict `:` type($result)";
}

def Kiln_AddOp : Kiln_Op<"add", [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise sum";
  let arguments = (ins Kiln_Activation:$lhs, Kiln_Activation:$rhs);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Kiln_LastTokenOp : Kiln_Op<"last_token", [Pure]> {
  let summary = "the last row of each sequence in the batch";
  let description = [{
    A batch holds rows of one or more sequences (a prefill chunk of one
    sequence, or one token of each of several sequences in a batched decode).
    Only the last row of each sequence needs logits; this op gathers those
    rows, in the order the caller asked for them.
  }];
  let arguments = (ins Kiln_Activation:$input);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}


//===----------------------------------------------------------------------===//
// Graph models (ONNX): tensors of any rank and element type, computed by the
// kernels of kiln_tensor.h.
//===----------------------------------------------------------------------===//

def Kiln_ConstantOp : Kiln_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "a constant tensor of a graph model";
  let description = [{
    An ONNX initializer, a Constant node's value, or a tensor folded at
    compile time. `source` names it for messages; `value` holds its bytes,
    row-major, as a `dense_resource` blob (one byte per bool), so that passes
    can read constants and make new ones (kiln-fold-conv-affine).
  }];
  let arguments = (ins StrAttr:$source, ElementsAttr:$value);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$source $value attr-dict";
  let hasVerifier = 1;
  let hasFolder = 1;
  let builders = [
    // A constant of `type` holding a copy of `bytes`, its blob keyed by
    // `name` made an identifier (and unique).
    OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::RankedTensorType":$type,
                   "::llvm::ArrayRef<char>":$bytes)>
  ];
  let extraClassDeclaration = [{
    /// The constant's bytes, or std::nullopt when its value has none (a
    /// dense_resource whose blob the IR did not carry).
    std::optional<::llvm::ArrayRef<char>> bytes();
  }];
}

def Kiln_ReshapeOp : Kiln_Op<"reshape", [Pure]> {
  let summary = "a tensor's bytes under another static shape";
  let description = [{
    An ONNX Reshape, Flatten, Squeeze, Unsqueeze, Identity or inference
    Dropout (and any other node that copies its input whole): the same
    elements in the same row-major order, so it is a view, never a copy.
    kiln-plan-memory gives it its operand's buffer for as long as either is
    read (an input's or a constant's view is read where they are), and the
    library has no step for it. It folds away when its type is its
    operand's, folds into the reshape it reads, and folds a constant into a
    constant of its type.

      %y = kiln.reshape %x {node = "r", onnx_op = "Reshape"} : tensor<2x3xf32> -> tensor<6xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$onnx_op,
                       StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_BinaryOp : Kiln_Op<"binary", [Pure]> {
  let summary = "an elementwise binary operation with numpy broadcasting";
  let description = [{
    result = lhs `kind` rhs, the operands broadcast (right-aligned) to the
    result's shape. `kind` is one of add, sub, mul, div, pow, max, min, mod
    (integer, sign of the divisor), fmod (sign of the dividend), equal, less,
    greater, less_equal, greater_equal, and, or, xor, prelu (lhs where it is
    not negative, else lhs * rhs). The comparisons and and/or/xor give i1;
    the others the lhs's element type, which rhs shares (but for pow).
    Element types: f32, f64, 8- to 64-bit integers, i1.
    kiln-select-kernels lowers it to a kiln.tensor_op "binary".

      %y = kiln.binary %x, %b {kind = "add", node = "s", onnx_op = "Add"}
           : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$lhs, AnyStaticShapeTensor:$rhs,
                       StrAttr:$kind, StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// kind as kiln_tensor.h's KILN_BIN_* code.
    int64_t getKindCode();
  }];
}

def Kiln_UnaryOp : Kiln_Op<"unary", [Pure, SameOperandsAndResultType]> {
  let summary = "an elementwise unary operation";
  let description = [{
    result = kind(input; alpha, beta). `kind` is one of relu, leaky_relu
    (alpha), sigmoid, hard_sigmoid (alpha, beta), hard_swish, tanh, erf,
    gelu, gelu_tanh, sqrt, exp, log, abs, neg, reciprocal, not (i1), floor,
    ceil, sin, cos, softplus, softsign, elu (alpha), selu (alpha, gamma as
    beta), sign, round, celu (alpha), thresholded_relu (alpha), identity.
    kiln-select-kernels lowers it to a kiln.tensor_op "unary".

      %y = kiln.unary %x {alpha = 0.0 : f32, beta = 0.0 : f32, kind = "relu",
             node = "r", onnx_op = "Relu"} : tensor<2x3xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$kind,
                       F32Attr:$alpha, F32Attr:$beta, StrAttr:$onnx_op,
                       StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// kind as kiln_tensor.h's KILN_UN_* code.
    int64_t getKindCode();
  }];
}

def Kiln_ClipOp : Kiln_Op<"clip", [Pure, AttrSizedOperandSegments]> {
  let summary = "each element limited to [min, max] (ONNX Clip)";
  let description = [{
    `min` and `max` are optional one-element tensors of the input's element
    type (an omitted bound does not limit). kiln-select-kernels lowers it
    to a kiln.tensor_op "clip".

      %y = kiln.clip %x min %lo max %hi {node = "c", onnx_op = "Clip"}
           : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       Optional<AnyStaticShapeTensor>:$min,
                       Optional<AnyStaticShapeTensor>:$max, StrAttr:$onnx_op,
                       StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input (`min` $min^)? (`max` $max^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_BatchNormOp : Kiln_Op<"batchnorm", [Pure]> {
  let summary = "inference batch normalization (ONNX BatchNormalization)";
  let description = [{
    result = (input - mean) / sqrt(variance + epsilon) * scale + bias per
    channel (axis 1 of input [N, C, ...]); the four vectors are [C], of the
    input's element type (f32 or f64). kiln-select-kernels lowers it to a
    kiln.tensor_op "batchnorm".

      %y = kiln.batchnorm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32,
             node = "n", onnx_op = "BatchNormalization"}
           : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
              tensor<4xf32>) -> tensor<1x4x6x6xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, AnyStaticShapeTensor:$scale,
                       AnyStaticShapeTensor:$bias, AnyStaticShapeTensor:$mean,
                       AnyStaticShapeTensor:$variance, F32Attr:$epsilon,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_PoolOp : Kiln_Op<"pool", [Pure]> {
  let summary = "max or average pooling over sliding windows (ONNX MaxPool, AveragePool)";
  let description = [{
    `input` [N, C, in...] -> `result` [N, C, out...] with out =
    floor((in + pad_begin + pad_end - dilation * (kernel - 1) - 1) / stride)
    + 1, or with `ceil_mode` the ceiling, less one where the last window
    would start past the input and its begin padding. `kind` is "max" or
    "average"; an average divides by the taps inside the input, or with
    `count_include_pad` inside the padded input. A max pool may have a
    second result, i64 [N, C, out...]: each maximum's flat index into the
    input, row-major (`storage_order` 0) or with the spatial dimensions
    column-major (1). kiln-select-kernels lowers it to a kiln.tensor_op
    "pool".

      %y = kiln.pool %x {ceil_mode = false, count_include_pad = false,
             dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>,
             kind = "max", node = "p", onnx_op = "MaxPool",
             pads = array<i64: 1, 1, 1, 1>, storage_order = 0 : i64,
             strides = array<i64: 2, 2>}
           : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$kind,
                       DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads, BoolAttr:$ceil_mode,
                       BoolAttr:$count_include_pad, I64Attr:$storage_order,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs Variadic<AnyStaticShapeTensor>:$outputs);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type($input, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_GlobalPoolOp : Kiln_Op<"global_pool", [Pure]> {
  let summary = "max or average over all spatial positions (ONNX GlobalMaxPool, GlobalAveragePool)";
  let description = [{
    `input` [N, C, spatial...] -> `result` [N, C, 1...], `kind` "max" or
    "average". kiln-select-kernels lowers it to a kiln.tensor_op
    "global_pool".

      %y = kiln.global_pool %x {kind = "average", node = "g",
             onnx_op = "GlobalAveragePool"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$kind,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ConvOp : Kiln_Op<"conv", [Pure, AttrSizedOperandSegments]> {
  let summary = "an N-D convolution (ONNX Conv), with the elementwise work after it";
  let description = [{
    y = conv(x, w) + bias: `input` [N, C, in...], `filter` [M, C / group,
    k...], the optional `bias` [M], `result` [N, M, out...] with out =
    floor((in + pad_begin + pad_end - dilation * (k - 1) - 1) / stride) + 1,
    all f32. `pads` holds the begin pads, then the end pads, ONNX's order.

    `epilogue` is elementwise work on the result that
    kiln-fuse-tensor-epilogues moved into the convolution: operations of
    four values {kind, code, a, b} as kiln_tensor.h's KILN_EP_* define them,
    except that an operand index (a and b of SCALAR, CHANNEL, FULL and CLIP;
    a of BATCHNORM, the first of four) counts in `epilogue_inputs`, and a
    float index (a of UNARY, b of BATCHNORM) in `epilogue_floats`.

    How the kernel runs it (direct, im2col columns, shifted rows, depthwise)
    and its scratch are kiln-select-kernels' choice: it lowers the op to a
    kiln.tensor_op "conv" (compiler/support/TensorPlans.h).

      %y = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64,
             node = "c", onnx_op = "Conv", pads = array<i64: 1, 1, 1, 1>,
             strides = array<i64: 1, 1>}
           : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       AnyStaticShapeTensor:$filter,
                       Optional<AnyStaticShapeTensor>:$bias,
                       Variadic<AnyStaticShapeTensor>:$epilogue_inputs,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads, I64Attr:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$epilogue,
                       OptionalAttr<DenseF32ArrayAttr>:$epilogue_floats,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? (`epilogue` `(` $epilogue_inputs^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Spatial dimensions (the rank less N and C).
    int64_t getSpatialRank() {
      return getInput().getType().cast<::mlir::RankedTensorType>().getRank() - 2;
    }
    /// Epilogue operations ({kind, code, a, b} each).
    int64_t getEpilogueLength() {
      return getEpilogue() ? (int64_t)getEpilogue()->size() / 4 : 0;
    }
  }];
}

def Kiln_ConvTransposeOp : Kiln_Op<"conv_transpose", [Pure, AttrSizedOperandSegments]> {
  let summary = "an N-D transposed convolution (ONNX ConvTranspose), with the elementwise work after it";
  let description = [{
    Input position i and tap k of `input` [N, C, in...] add x * w into
    output position i * stride - pad_begin + k * dilation of `result` [N,
    M, out...] (dropped outside it); `filter` is [C, M / group, k...], the
    optional `bias` [M], all f32. out = stride * (in - 1) +
    output_padding + dilation * (k - 1) + 1 - pad_begin - pad_end; `pads`
    holds the begin pads, then the end pads (negative where ONNX's
    output_shape asks for more than the taps reach). `epilogue`,
    `epilogue_inputs` and `epilogue_floats` are kiln.conv's.
    kiln-select-kernels lowers it to a kiln.tensor_op "conv_transpose".

      %y = kiln.conv_transpose %x, %w {dilations = array<i64: 1, 1>,
             group = 1 : i64, node = "ct", onnx_op = "ConvTranspose",
             output_padding = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
             strides = array<i64: 2, 2>}
           : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       AnyStaticShapeTensor:$filter,
                       Optional<AnyStaticShapeTensor>:$bias,
                       Variadic<AnyStaticShapeTensor>:$epilogue_inputs,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$output_padding, I64Attr:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$epilogue,
                       OptionalAttr<DenseF32ArrayAttr>:$epilogue_floats,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? (`epilogue` `(` $epilogue_inputs^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Spatial dimensions (the rank less N and C).
    int64_t getSpatialRank() {
      return getInput().getType().cast<::mlir::RankedTensorType>().getRank() - 2;
    }
    /// Epilogue operations ({kind, code, a, b} each).
    int64_t getEpilogueLength() {
      return getEpilogue() ? (int64_t)getEpilogue()->size() / 4 : 0;
    }
  }];
}

def Kiln_BlockChannelsOp : Kiln_Op<"block_channels", [Pure]> {
  let summary = "channels regrouped in blocks of a vector's width (NCHW to NCHWc)";
  let description = [{
    `input` [N, C, spatial...] -> `result` [N, ceil(C / b), spatial..., b],
    f32: result[n, c / b, s..., c % b] = input[n, c, s...], zero for the
    lanes past C. kiln-layout-channels places it where a region of
    convolutions in the blocked layout reads a value from outside; `node`
    names the node that reads it. kiln-select-kernels lowers it to a
    kiln.tensor_op "block_channels".

      %y = kiln.block_channels %x {node = "c", onnx_op = "Conv"}
           : (tensor<1x12x6x6xf32>) -> tensor<1x2x6x6x8xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$onnx_op,
                       StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
}

def Kiln_UnblockChannelsOp : Kiln_Op<"unblock_channels", [Pure]> {
  let summary = "blocked channels back in NCHW (NCHWc to NCHW)";
  let description = [{
    The inverse of kiln.block_channels: `input` [N, Cb, spatial..., b] ->
    `result` [N, C, spatial...] with C in ((Cb - 1) * b, Cb * b]; the lanes
    past C are dropped. kiln-layout-channels places it where a value of a
    blocked region is read outside it; `node` names the node that made the
    value. kiln-select-kernels lowers it to a kiln.tensor_op
    "unblock_channels".

      %y = kiln.unblock_channels %x {node = "c", onnx_op = "Conv"}
           : (tensor<1x2x6x6x8xf32>) -> tensor<1x12x6x6xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$onnx_op,
                       StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
}

def Kiln_ConvBlockedOp : Kiln_Op<"conv_blocked", [Pure, AttrSizedOperandSegments]> {
  let summary = "a 2-D convolution in the blocked channel layout (NCHWc), with the elementwise work after it";
  let description = [{
    kiln.conv of a dense (group 1) or depthwise (one input and one output
    channel per group, `depthwise`) 2-D f32 convolution, on activations of
    kiln.block_channels' layout with b lanes: `input` [N, Cb, H, W, b],
    `result` [N, Mb, OH, OW, b] with M = `channels` real output channels
    (lanes past M are zero), `filter` packed at compile time, [Mb, Cb, KH,
    KW, b, b] (input lane, then output lane) or depthwise [Cb, KH, KW, b],
    zeros for padded channels; the optional `bias` [Mb * b]. `strides`,
    `dilations`, `pads` as kiln.conv's. The epilogue is kiln.conv's, with
    same-shape operands in the blocked layout and per-channel ones as they
    were ([M] values). kiln-layout-channels makes it; kiln-select-kernels
    lowers it to a kiln.tensor_op "conv_nchwc" (kernels/tensor/blocked.c).

      %y = kiln.conv_blocked %x, %w, %b {channels = 12 : i64,
             dilations = array<i64: 1, 1>, node = "c", onnx_op = "Conv",
             pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
           : (tensor<1x1x6x6x8xf32>, tensor<2x1x3x3x8x8xf32>, tensor<16xf32>)
             -> tensor<1x2x6x6x8xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       AnyStaticShapeTensor:$filter,
                       Optional<AnyStaticShapeTensor>:$bias,
                       Variadic<AnyStaticShapeTensor>:$epilogue_inputs,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads, I64Attr:$channels,
                       UnitAttr:$depthwise,
                       OptionalAttr<DenseI64ArrayAttr>:$epilogue,
                       OptionalAttr<DenseF32ArrayAttr>:$epilogue_floats,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? (`epilogue` `(` $epilogue_inputs^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Lanes per channel block.
    int64_t getBlock() {
      return getInput().getType().cast<::mlir::RankedTensorType>().getShape().back();
    }
    /// Epilogue operations ({kind, code, a, b} each).
    int64_t getEpilogueLength() {
      return getEpilogue() ? (int64_t)getEpilogue()->size() / 4 : 0;
    }
  }];
}

def Kiln_GemmOp : Kiln_Op<"gemm", [Pure, AttrSizedOperandSegments]> {
  let summary = "a general matrix product (ONNX Gemm), with the elementwise work after it";
  let description = [{
    result = alpha * A' * B' + beta * C, A' = A (or its transpose with
    `trans_a`) [M, K], B' = B (or its transpose with `trans_b`) [K, N], the
    optional C broadcast to [M, N] (a scalar, [N], [1, N], [M, 1], [M, N]).
    All four share one element type: f32, f64, i32, i64, ui32 or ui64.
    kiln-select-kernels lowers it to a kiln.tensor_op "gemm" (kernel
    parameters, scratch; compiler/support/TensorPlans.h).

    `epilogue`, `epilogue_inputs` and `epilogue_floats` are kiln.conv's,
    with COLUMN operations (one value per column, [N]) in place of
    CHANNEL and BATCHNORM ones; f32 only.

      %y = kiln.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32,
             node = "fc", onnx_op = "Gemm"}
           : (tensor<1x64xf32>, tensor<64x10xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$a, AnyStaticShapeTensor:$b,
                       Optional<AnyStaticShapeTensor>:$c,
                       Variadic<AnyStaticShapeTensor>:$epilogue_inputs,
                       UnitAttr:$trans_a,
                       UnitAttr:$trans_b, F32Attr:$alpha, F32Attr:$beta,
                       OptionalAttr<DenseI64ArrayAttr>:$epilogue,
                       OptionalAttr<DenseF32ArrayAttr>:$epilogue_floats,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? (`epilogue` `(` $epilogue_inputs^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The product's inner dimension K.
    int64_t getInner() {
      auto a = getA().getType().cast<::mlir::RankedTensorType>();
      return a.getDimSize(getTransA() ? 0 : 1);
    }
    /// C's element strides along the result's rows and columns (0 where C
    /// broadcasts; both 0 without C): C[i, j] is element i * s[0] + j * s[1].
    std::array<int64_t, 2> getCStrides();
    /// Epilogue operations ({kind, code, a, b} each).
    int64_t getEpilogueLength() {
      return getEpilogue() ? (int64_t)getEpilogue()->size() / 4 : 0;
    }
  }];
}

def Kiln_BatchMatMulOp : Kiln_Op<"batch_matmul", [Pure]> {
  let summary = "numpy's matrix product with batch broadcasting (ONNX MatMul)";
  let description = [{
    A [..., M, K] times B [..., K, N]: the batch dimensions (all but the
    last two) broadcast as numpy's do, the result is [batch..., M, N]. A 1-D
    A is a row [1, K] and a 1-D B a column [K, 1], that dimension dropped
    from the result. A, B and the result share one element type: f32, f64,
    i32, i64, ui32 or ui64. (kiln.matmul is the language models' product
    with a stored weight.) kiln-select-kernels lowers it to a
    kiln.tensor_op "matmul".

    `epilogue`, `epilogue_inputs` and `epilogue_floats` are kiln.gemm's: a
    COLUMN operand has one value per column of B ([N]); f32 only.

      %y = kiln.batch_matmul %a, %b {node = "mm", onnx_op = "MatMul"}
           : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$a, AnyStaticShapeTensor:$b,
                       Variadic<AnyStaticShapeTensor>:$epilogue_inputs,
                       OptionalAttr<DenseI64ArrayAttr>:$epilogue,
                       OptionalAttr<DenseF32ArrayAttr>:$epilogue_floats,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`epilogue` `(` $epilogue_inputs^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Epilogue operations ({kind, code, a, b} each).
    int64_t getEpilogueLength() {
      return getEpilogue() ? (int64_t)getEpilogue()->size() / 4 : 0;
    }
  }];
}

def Kiln_SoftmaxOp : Kiln_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "softmax, log-softmax or hardmax along an axis (ONNX Softmax, LogSoftmax, Hardmax)";
  let description = [{
    `kind` is "softmax", "log_softmax" or "hardmax" (1 at the first maximum,
    0 elsewhere), taken along dimension `axis` of an f32 or f64 tensor; with
    `flatten`, over all dimensions from `axis` on as one (ONNX before opset
    13 coerces the input to 2-D). kiln-select-kernels lowers it to a
    kiln.tensor_op "softmax".

      %y = kiln.softmax %x {axis = 1 : i64, kind = "softmax", node = "s",
             onnx_op = "Softmax"} : tensor<2x5x3xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$kind,
                       I64Attr:$axis, UnitAttr:$flatten, StrAttr:$onnx_op,
                       StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The kind's number (KILN_SM_*), -1 if unknown.
    int64_t getKindCode();
  }];
}

def Kiln_LayerNormOp : Kiln_Op<"layer_norm", [Pure]> {
  let summary = "layer normalization over the trailing dimensions (ONNX LayerNormalization)";
  let description = [{
    Each slice of `input` over the dimensions from `axis` on is normalized,
    (x - mean) * inv_std_dev with inv_std_dev = 1 / sqrt(variance +
    epsilon), then times `scale` and plus the optional `bias`, both of the
    normalized shape (leading 1s allowed) and the input's element type (f32
    or f64). Results: y (the input's type), and mean and inv_std_dev, f32
    of the input's shape with the normalized dimensions 1. Statistics are
    computed in double. kiln-select-kernels lowers it to a kiln.tensor_op
    "layernorm".

      %y, %mean, %inv = kiln.layer_norm %x, %s, %b {axis = 2 : i64,
             epsilon = 1.0e-05 : f32, node = "ln",
             onnx_op = "LayerNormalization"}
           : (tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>)
             -> (tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>)
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, AnyStaticShapeTensor:$scale,
                       Optional<AnyStaticShapeTensor>:$bias, I64Attr:$axis,
                       F32Attr:$epsilon, StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result, AnyStaticShapeTensor:$mean,
                      AnyStaticShapeTensor:$inv_std_dev);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_InstanceNormOp : Kiln_Op<"instance_norm", [Pure]> {
  let summary = "instance normalization (ONNX InstanceNormalization)";
  let description = [{
    Each channel of each item of `input` [N, C, spatial...] is normalized
    over its spatial positions, (x - mean) / sqrt(variance + epsilon), then
    times `scale` [C] plus `bias` [C]; f32 or f64 throughout.
    kiln-select-kernels lowers it to a kiln.tensor_op "instancenorm".

      %y = kiln.instance_norm %x, %s, %b {epsilon = 1.0e-05 : f32,
             node = "in", onnx_op = "InstanceNormalization"}
           : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, AnyStaticShapeTensor:$scale,
                       AnyStaticShapeTensor:$bias, F32Attr:$epsilon,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_LrnOp : Kiln_Op<"lrn", [Pure, SameOperandsAndResultType]> {
  let summary = "local response normalization across channels (ONNX LRN)";
  let description = [{
    y = x / (bias + alpha / size * sum of x^2 over the channels [c -
    floor((size - 1) / 2), c + ceil((size - 1) / 2)])^beta, for f32
    `input` [N, C, spatial...]. kiln-select-kernels lowers it to a
    kiln.tensor_op "lrn".

      %y = kiln.lrn %x {alpha = 1.0e-04 : f32, beta = 7.5e-01 : f32,
             bias = 1.0 : f32, node = "l", onnx_op = "LRN", size = 3 : i64}
           : tensor<1x5x4x4xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, I64Attr:$size,
                       F32Attr:$alpha, F32Attr:$beta, F32Attr:$bias,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ReduceOp : Kiln_Op<"reduce", [Pure]> {
  let summary = "a reduction over some axes (ONNX Reduce*)";
  let description = [{
    `kind` is one of "sum", "mean", "max", "min", "prod", "l1", "l2",
    "sum_square", "log_sum", "log_sum_exp" (floats only). `axes` lists the
    reduced dimensions, ascending; `keepdims` keeps them as 1s in the
    result, else they are dropped. The result has the input's element type
    (f32, f64 or an integer). kiln-select-kernels lowers it to a
    kiln.tensor_op "reduce".

      %y = kiln.reduce %x {axes = array<i64: 1>, keepdims = true,
             kind = "mean", node = "r", onnx_op = "ReduceMean"}
           : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$kind,
                       DenseI64ArrayAttr:$axes, BoolAttr:$keepdims,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The kind's number (KILN_RED_*), -1 if unknown.
    int64_t getKindCode();
  }];
}

def Kiln_ArgReduceOp : Kiln_Op<"arg_reduce", [Pure]> {
  let summary = "the index of the largest or smallest element along an axis (ONNX ArgMax, ArgMin)";
  let description = [{
    `kind` "max" or "min"; ties take the first index, or with
    `select_last_index` the last. The result is i64, the input's shape with
    dimension `axis` 1 (`keepdims`) or dropped. kiln-select-kernels lowers
    it to a kiln.tensor_op "argminmax".

      %i = kiln.arg_reduce %x {axis = 1 : i64, keepdims = false,
             kind = "max", node = "a", onnx_op = "ArgMax",
             select_last_index = false} : (tensor<2x5xf32>) -> tensor<2xi64>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$kind,
                       I64Attr:$axis, BoolAttr:$keepdims,
                       BoolAttr:$select_last_index, StrAttr:$onnx_op,
                       StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ConcatOp : Kiln_Op<"concat", [Pure]> {
  let summary = "tensors joined along an axis (ONNX Concat)";
  let description = [{
    The inputs share an element type, a rank and every dimension but `axis`,
    along which the result is their sum. kiln-select-kernels lowers it to a
    kiln.tensor_op "concat".

      %y = kiln.concat %a, %b {axis = 1 : i64, node = "c", onnx_op = "Concat"}
           : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  }];
  let arguments = (ins Variadic<AnyStaticShapeTensor>:$inputs, I64Attr:$axis,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_SplitOp : Kiln_Op<"split", [Pure]> {
  let summary = "a tensor cut into consecutive parts along an axis (ONNX Split)";
  let description = [{
    Each result has the input's element type and dimensions but `axis`;
    their sizes along it add up to the input's. kiln-select-kernels lowers
    it to a kiln.tensor_op "split".

      %a, %b = kiln.split %x {axis = 1 : i64, node = "s", onnx_op = "Split"}
               : (tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>)
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, I64Attr:$axis,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs Variadic<AnyStaticShapeTensor>:$outputs);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_GatherOp : Kiln_Op<"gather", [Pure]> {
  let summary = "slices of a tensor chosen by indices along an axis (ONNX Gather)";
  let description = [{
    result[i..., j..., k...] = input[i..., indices[j...], k...] with i the
    dimensions before `axis` and k those after it; `indices` are i32 or i64,
    a negative one counting from the end. kiln-select-kernels lowers it to
    a kiln.tensor_op "gather".

      %y = kiln.gather %x, %i {axis = 0 : i64, node = "g", onnx_op = "Gather"}
           : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       AnyStaticShapeTensor:$indices, I64Attr:$axis,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_WhereOp : Kiln_Op<"where", [Pure]> {
  let summary = "elements of x where a condition holds, else of y (ONNX Where)";
  let description = [{
    `condition` (i1), `x` and `y` broadcast as numpy does to the result,
    which has x's and y's element type. kiln-select-kernels lowers it to a
    kiln.tensor_op "where".

      %r = kiln.where %c, %x, %y {node = "w", onnx_op = "Where"}
           : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$condition, AnyStaticShapeTensor:$x,
                       AnyStaticShapeTensor:$y, StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$condition `,` $x `,` $y attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_CastOp : Kiln_Op<"cast", [Pure]> {
  let summary = "each element converted to another element type (ONNX Cast)";
  let description = [{
    The result has the input's shape; both element types are among f32,
    f64, f16, the integers of 8 to 64 bits of either sign and i1, converted
    as ONNX's Cast does. kiln-select-kernels lowers it to a kiln.tensor_op
    "cast".

      %y = kiln.cast %x {node = "c", onnx_op = "Cast"} : (tensor<4xf32>) -> tensor<4xi64>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$onnx_op,
                       StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_StridedCopyOp : Kiln_Op<"strided_copy", [Pure]> {
  let summary = "a strided view of a tensor, written densely (ONNX Transpose, Slice, Expand, Tile, DepthToSpace, SpaceToDepth)";
  let description = [{
    The result's elements, in row-major order, are those of a walk over
    `shape` (whose product is the result's element count), index i reading
    input element `offset` + sum over d of i[d] * strides[d] (row-major, in
    elements). A stride may be 0 (broadcast) or negative (a reversed
    Slice); every element read lies inside the input. kiln-select-kernels
    lowers it to a kiln.tensor_op "strided_copy".

      %t = kiln.strided_copy %x {node = "t", offset = 0 : i64,
             onnx_op = "Transpose", shape = array<i64: 3, 2>,
             strides = array<i64: 1, 3>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, I64Attr:$offset,
                       DenseI64ArrayAttr:$shape, DenseI64ArrayAttr:$strides,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_GatherElementsOp : Kiln_Op<"gather_elements", [Pure]> {
  let summary = "elements chosen by an index tensor along an axis (ONNX GatherElements)";
  let description = [{
    result[i] = input[i with its `axis` coordinate replaced by indices[i]];
    `indices` (i32 or i64, negative counting from the end) has the input's
    rank and no dimension larger than the input's off the axis, and gives
    the result its shape. kiln-select-kernels lowers it to a
    kiln.tensor_op "gather_elements".

      %y = kiln.gather_elements %x, %i {axis = 1 : i64, node = "g",
             onnx_op = "GatherElements"}
           : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       AnyStaticShapeTensor:$indices, I64Attr:$axis,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ScatterElementsOp : Kiln_Op<"scatter_elements", [Pure]> {
  let summary = "a copy of a tensor with elements replaced along an axis (ONNX ScatterElements)";
  let description = [{
    The input, with updates[i] written at i with its `axis` coordinate
    replaced by indices[i] (i32 or i64; `updates` has the indices' shape),
    or combined with what is there by `reduction` ("none", "add", "mul",
    "max", "min"). kiln-select-kernels lowers it to a kiln.tensor_op
    "scatter_elements".

      %y = kiln.scatter_elements %x, %i, %u {axis = 0 : i64, node = "s",
             onnx_op = "ScatterElements", reduction = "add"}
           : (tensor<3x2xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<3x2xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       AnyStaticShapeTensor:$indices,
                       AnyStaticShapeTensor:$updates, I64Attr:$axis,
                       StrAttr:$reduction, StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_GatherNdOp : Kiln_Op<"gather_nd", [Pure]> {
  let summary = "slices chosen by index tuples (ONNX GatherND)";
  let description = [{
    `indices` (i64) [b..., n..., k] holds tuples of k coordinates into the
    input's dimensions after its first `batch_dims` (which it shares); the
    result [b..., n..., rest...] holds the slice each tuple picks.
    kiln-select-kernels lowers it to a kiln.tensor_op "gather_nd".

      %y = kiln.gather_nd %x, %i {batch_dims = 0 : i64, node = "g",
             onnx_op = "GatherND"}
           : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       AnyStaticShapeTensor:$indices, I64Attr:$batch_dims,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ScatterNdOp : Kiln_Op<"scatter_nd", [Pure]> {
  let summary = "a copy of a tensor with slices replaced at index tuples (ONNX ScatterND)";
  let description = [{
    The input, with each slice of `updates` (i64 `indices` [n..., k],
    `updates` [n..., the input's dimensions after k]) written at the slice
    its tuple of k coordinates picks, or combined by `reduction` ("none",
    "add", "mul", "max", "min"). kiln-select-kernels lowers it to a
    kiln.tensor_op "scatter_nd".

      %y = kiln.scatter_nd %x, %i, %u {node = "s", onnx_op = "ScatterND",
             reduction = "none"}
           : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       AnyStaticShapeTensor:$indices,
                       AnyStaticShapeTensor:$updates, StrAttr:$reduction,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_CumSumOp : Kiln_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "running sums along an axis (ONNX CumSum)";
  let description = [{
    result[..., j, ...] = the sum of input[..., i, ...] over i <= j along
    `axis` (i < j when `exclusive`; from the end when `reverse`), for f32,
    f64 and integer tensors. kiln-select-kernels lowers it to a
    kiln.tensor_op "cumsum".

      %y = kiln.cumsum %x {axis = 1 : i64, exclusive = false, node = "c",
             onnx_op = "CumSum", reverse = true} : tensor<2x3xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, I64Attr:$axis,
                       BoolAttr:$exclusive, BoolAttr:$reverse,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_PadOp : Kiln_Op<"pad", [Pure]> {
  let summary = "a tensor padded or cropped on each side (ONNX Pad)";
  let description = [{
    `pads` holds the elements added before each dimension, then after it
    (negative ones crop): result dimension = input + begin + end. `mode`
    "constant" fills with the optional one-element `value` (0 without it),
    "reflect" mirrors the input without repeating its edge, "edge" repeats
    the edge element. kiln-select-kernels lowers it to a kiln.tensor_op
    "pad".

      %y = kiln.pad %x {mode = "reflect", node = "p", onnx_op = "Pad",
             pads = array<i64: 0, 1, 0, 2>} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       Optional<AnyStaticShapeTensor>:$value, StrAttr:$mode,
                       DenseI64ArrayAttr:$pads, StrAttr:$onnx_op,
                       StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input (`value` $value^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ResizeAxisOp : Kiln_Op<"resize_axis", [Pure]> {
  let summary = "one axis of a separable resize (ONNX Resize)";
  let description = [{
    Resize is separable: the importer writes one op per resized axis,
    innermost first, with the input positions (`indices`) and `weights` of
    each output position along `axis` resolved at compile time (coordinate
    transformation, rounding, edge clamping, cubic coefficients,
    exclude_outside). Output position j of `axis` is the sum over t <
    `taps` of weights[j * taps + t] times the input at position
    indices[j * taps + t]; a position whose taps are all -1 lies outside
    tf_crop_and_resize's crop box and holds `extrapolation_value`. `taps`
    is 1 (nearest: a copy, any element type), 2 (linear) or 4 (cubic, f32
    or f64). The other dimensions are unchanged. kiln-select-kernels lowers
    it to a kiln.tensor_op "resize_axis".

      %y = kiln.resize_axis %x {axis = 1 : i64, extrapolation_value = 0.0 : f32,
             indices = array<i64: 0, 0, 1, 1>, node = "r", onnx_op = "Resize",
             taps = 1 : i64, weights = array<f32: 1.0, 1.0, 1.0, 1.0>}
             : (tensor<3x2xf32>) -> tensor<3x4xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, I64Attr:$axis,
                       I64Attr:$taps, DenseI64ArrayAttr:$indices,
                       DenseF32ArrayAttr:$weights, F32Attr:$extrapolation_value,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_TriluOp : Kiln_Op<"trilu", [Pure, SameOperandsAndResultType]> {
  let summary = "the upper or lower triangle of the last two dimensions (ONNX Trilu)";
  let description = [{
    Keeps the elements of each matrix (the last two dimensions) on and above
    diagonal `k` (`upper`), or on and below it, and zeroes the others; k > 0
    is above the main diagonal. kiln-select-kernels lowers it to a
    kiln.tensor_op "trilu".

      %y = kiln.trilu %x {k = 1 : i64, node = "t", onnx_op = "Trilu",
             upper = true} : tensor<2x3x4xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, I64Attr:$k,
                       BoolAttr:$upper, StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_OneHotOp : Kiln_Op<"one_hot", [Pure]> {
  let summary = "one-hot encoding of indices (ONNX OneHot)";
  let description = [{
    The result has the indices' shape with a dimension of `depth` inserted
    at `axis`; the element at index i of that dimension is values[1] (on)
    where the index equals i (a negative index counts from depth), else
    values[0] (off). `values` holds two elements of the result's type.
    kiln-select-kernels lowers it to a kiln.tensor_op "one_hot".

      %y = kiln.one_hot %i, %v {axis = 1 : i64, depth = 5 : i64, node = "o",
             onnx_op = "OneHot"} : (tensor<3xi64>, tensor<2xf32>) -> tensor<3x5xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$indices,
                       AnyStaticShapeTensor:$values, I64Attr:$axis,
                       I64Attr:$depth, StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $indices `,` $values attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_TensorOp : Kiln_Op<"tensor_op", [Pure]> {
  let summary = "a call of one tensor kernel (kiln_t_<kernel>)";
  let description = [{
    What an ONNX node became: `kernel` names the C function, `params` and
    `fparams` are its integer and float parameters (shapes, strides,
    attributes; their layout is the kernel's, see kiln_tensor.h), and
    `scratch` the bytes of arena it needs besides its results. `onnx_op` and
    `node` name the node it came from. When the kernel's inputs include
    omitted optional ones, `slots` maps each kernel input to an operand index
    or -1.

    A call reads its inputs and writes only its results (and its scratch),
    so one nobody reads is erased (canonicalization, kiln-fold-constants).
    One whose inputs are all constants folds, when the context's kiln
    dialect has a TensorFoldInterface (compiler/passes/FoldConstants.cpp
    attaches the host build of the kernels): its results become
    kiln.constant ops holding what the kernel computed.
  }];
  let arguments = (ins Variadic<AnyStaticShapeTensor>:$inputs, StrAttr:$kernel,
                       DenseI64ArrayAttr:$params,
                       OptionalAttr<DenseF32ArrayAttr>:$fparams,
                       OptionalAttr<DenseI64ArrayAttr>:$slots,
                       DefaultValuedAttr<I64Attr, "0">:$scratch,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs Variadic<AnyStaticShapeTensor>:$outputs);
  let hasFolder = 1;
  let assemblyFormat = [{
    $kernel `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)
  }];
  let extraClassDeclaration = [{
    /// The operand index of each kernel input (-1: omitted): `slots`, or
    /// 0, 1, ... when the node omitted none.
    ::llvm::SmallVector<int64_t> getKernelSlots();
    /// The kernel's inputs in its order, a null Value for an omitted one.
    ::llvm::SmallVector<::mlir::Value> getKernelInputs();
  }];
}

#endif // KILN_OPS_TD
