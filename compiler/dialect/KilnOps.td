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

def Kiln_GemmOp : Kiln_Op<"gemm", [Pure]> {
  let summary = "a general matrix product (ONNX Gemm)";
  let description = [{
    result = alpha * A' * B' + beta * C, A' = A (or its transpose with
    `trans_a`) [M, K], B' = B (or its transpose with `trans_b`) [K, N], the
    optional C broadcast to [M, N] (a scalar, [N], [1, N], [M, 1], [M, N]).
    All four share one element type: f32, f64, i32, i64, ui32 or ui64.
    kiln-select-kernels lowers it to a kiln.tensor_op "gemm" (kernel
    parameters, scratch; compiler/support/TensorPlans.h).

      %y = kiln.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32,
             node = "fc", onnx_op = "Gemm"}
           : (tensor<1x64xf32>, tensor<64x10xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  }];
  let arguments = (ins AnyStaticShapeTensor:$a, AnyStaticShapeTensor:$b,
                       Optional<AnyStaticShapeTensor>:$c, UnitAttr:$trans_a,
                       UnitAttr:$trans_b, F32Attr:$alpha, F32Attr:$beta,
                       StrAttr:$onnx_op, StrAttr:$node);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The product's inner dimension K.
    int64_t getInner() {
      auto a = getA().getType().cast<::mlir::RankedTensorType>();
      return a.getDimSize(getTransA() ? 0 : 1);
    }
    /// C's element strides along the result's rows and columns (0 where C
    /// broadcasts; both 0 without C): C[i, j] is element i * s[0] + j * s[1].
    std::array<int64_t, 2> getCStrides();
  }];
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
