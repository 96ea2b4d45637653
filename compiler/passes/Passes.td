//===- Passes.td - every kiln pass, alphabetical by flag ------------------===//
#ifndef KILN_PASSES_TD
#define KILN_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseElementwise : Pass<"kiln-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuse elementwise ops into the matmul that produces their input";
  let description = [{
    Rewrites, where legal:
      add(x, matmul(a))                 -> matmul(a) epilogue "add" with x
      silu_mul(g, matmul(h) as up)      -> matmul(h) epilogue "mul_silu" with g
      silu_mul(matmul(h) as gate, u)    -> matmul(h) epilogue "silu_mul" with u
      silu_mul(p0, p1) of one split matmul -> that matmul, epilogue "swiglu"
      rms_norm(x, @g) read only by matmuls with f32 weights
                                        -> rms_norm(x) and each weight's
                                           columns scaled by g (scale_columns)
    A matmul is fused only if the elementwise op is its result's only user and
    the other operand is computed before the matmul. The epilogues compute
    the same expressions as the ops they replace, so results are unchanged
    bit for bit; the norm fold is limited to f32 weights (whose kernels read
    f32 activations on every target), where it only reorders one product.
  }];
  let options = [
    Option<"foldNorms", "fold-norms", "bool", /*default=*/"true",
           "fold RMSNorm scales into f32 matmul weights">,
  ];
}

def FuseHorizontal : Pass<"kiln-fuse-horizontal", "mlir::ModuleOp"> {
  let summary = "Merge matmuls that read the same input into one split matmul";
  let description = [{
    Matmuls with the same input, no epilogue and weights of the same element
    type, stored type and bias presence (Q, K and V; gate and up) become one
    kiln.matmul over a weight whose rows are theirs concatenated (`concat` on
    the new kiln.weight), with `split` giving one result per original. The
    input is then read and quantized once. Matmuls left out because their
    weights differ in type get a remark naming both types.
  }];
}

def FoldConstants : Pass<"kiln-fold-constants", "mlir::ModuleOp"> {
  let summary = "Fold graph calls on constants and erase calls nobody reads";
  let description = [{
    Runs MLIR's folding driver over each function with the kiln dialect's
    TensorFoldInterface attached (the host build of kernels/tensor, the code
    the library would call): a kiln.tensor_op whose inputs are all
    kiln.constant ops, whose results and scratch take at most 64 MiB and
    whose kernel the compiler has, becomes kiln.constant ops holding what
    the kernel computed. Ops nobody reads (unused ONNX outputs and branches,
    Dropout masks, constants left behind) are erased, and kiln.reshape
    folds (away when its type is its operand's, into the reshape it reads,
    and of a constant into a constant). The ONNX frontend
    folds the calls whose values it needs while it imports (shapes); this
    pass folds and prunes what is left and what other passes leave.
  }];
}

def PackWeights : Pass<"kiln-pack-weights", "mlir::ModuleOp"> {
  let summary = "Store constant weights in the layout their kernel reads";
  let description = [{
    A weight the kernel would rearrange on every run is rearranged once, at
    compile time: a kiln.gemm with `trans_b` whose B is an f32
    kiln.constant ([N, K]) gets a new constant holding B transposed ([K,
    N]) and loses `trans_b`, so the library does not transpose B into
    scratch at each call (kiln_t_gemm does that for a transposed B). The
    old constant is erased when nothing else reads it. The product is the
    same, bit for bit.
  }];
}

def FoldConvAffine : Pass<"kiln-fold-conv-affine", "mlir::ModuleOp"> {
  let summary = "Fold per-channel scales and shifts into the preceding convolution's or Gemm's weights";
  let description = [{
    A chain of f32 ops after a kiln.conv (or kiln.tensor_op
    "conv_transpose") with constant weights and bias (or none) and no
    epilogue, each the only reader of the one before, that are affine maps
    per output channel: kiln.batchnorm with constant vectors (y = x * a
    + B - mean * a, a = scale / sqrt(var + epsilon)), and kiln.binary add,
    sub, mul or div (x first) by a scalar or per-channel ([M, 1, ...])
    constant. The composed map y = x * a + c becomes the convolution's
    weights, scaled per output channel by a, and its bias, bias * a + c: two
    new kiln.constant ops. A kiln.gemm with a constant B (and C or none)
    and no trans_b folds the same way, its N output columns being the
    channels: B' = B * a per column, C' = beta * C * a + c and beta' = 1.
    Constants left without a use are erased. The result differs from the
    unfolded graph only by the rounding of the scaled weights.
  }];
}

def FuseTensorEpilogues : Pass<"kiln-fuse-tensor-epilogues", "mlir::ModuleOp"> {
  let summary = "Fuse the elementwise successors of a graph convolution or matrix product into its epilogue";
  let description = [{
    A kiln.conv, kiln.conv_transpose, kiln.gemm or kiln.batch_matmul whose
    f32 result is read only by an elementwise op takes that op as an
    epilogue operation (the op's `epilogue`; the call's parameters,
    kiln_tensor.h), and so on down the chain:
      kiln.binary (not pow) with a scalar, a same-shape other operand (a
        residual Add), a per-channel one after a convolution ([M, 1, ...]:
        BatchNormalization as Mul and Add) or a per-column one after a
        matrix product ([N]: a bias)
      kiln.unary (relu, hard_sigmoid, sigmoid, ...), kiln.clip, and after a
        convolution kiln.batchnorm
      a value read by two calls, one starting a chain whose end the other
        combines with it again (x * Clip(x + 3, 0, 6): HardSwish spelled out)
    The fused call takes the place of the chain's last call and its result;
    the epilogue runs the standalone kernels' loops, so results are unchanged
    bit for bit.
  }];
}

def LayoutChannels : Pass<"kiln-layout-channels", "mlir::ModuleOp"> {
  let summary = "Run regions of convolutions in a blocked channel layout (NCHWc)";
  let description = [{
    Finds regions of ops that can all run on activations whose channels are
    in blocks of a vector's width ([N, C/b, H, W, b]; b from the module's
    kiln.target: 16 on x86 at the AVX-512 level, 8 at AVX2 and on the
    generic target, 4 on neon, sve and rvv): dense 2-D f32 convolutions of
    at least b input channels and depthwise ones, with constant weights
    (kiln.conv_blocked, their epilogues kept), kiln.unary and kiln.clip,
    kiln.binary whose operands share the result's channel axis, and
    kiln.global_pool (as a kiln.reduce over the spatial axes), joined by
    the values they pass each other. A chosen region is rewritten:
    constants are packed at compile time, other values entering it go
    through kiln.block_channels, and values read outside it (or as a
    per-channel epilogue input or clip bound) through
    kiln.unblock_channels.

    `layout=auto` (the default) chooses, on x86 at the AVX-512 level only,
    the regions whose convolutions' channel padding adds at most 5% to
    their multiply-adds; `layout=nchwc` every region with a convolution
    (on any target with the kernels); `layout=nchw` none.
  }];
  let options = [
    Option<"mode", "layout", "std::string", /*default=*/"\"auto\"",
           "auto, nchw or nchwc">,
  ];
}

def PlanMemory : Pass<"kiln-plan-memory", "mlir::func::FuncOp"> {
  let summary = "Assign every intermediate and scratch an offset in one arena";
  let description = [{
    Computes each value's live range over the op order. The result of an
    elementwise op (add, silu_mul, rms_norm, rope) takes the buffer of an
    operand of the same size that dies at the op (in place). A kiln.reshape
    is a view: its result shares its operand's buffer whether or not the
    operand dies there, the buffer living until both are read; one of a graph
    input or a constant gets no buffer (it is read where its operand is).
    Views are counted in `kiln.arena_views`. Offsets come
    from several placement orders (size, lifetime, area, start), each buffer
    at the lowest offset free over its lifetime, the best kept; graphs of at
    most `exact-limit` buffers are searched exhaustively for an optimal plan.
    Rows of dynamic batches are sized for `kiln.max_batch` (a module
    attribute). Writes `kiln.offset` and `kiln.bytes` on every single-result
    op (`kiln.offsets` on a split matmul), `kiln.scratch_offset` and
    `kiln.scratch_bytes` on ops with scratch, and `kiln.arena_bytes`,
    `kiln.arena_lower_bound`, `kiln.arena_no_reuse` and `kiln.arena_method`
    on the function.
  }];
  let options = [
    Option<"maxBatch", "max-batch", "int64_t", /*default=*/"0",
           "rows of a dynamic batch (0: the module's kiln.max_batch)">,
    Option<"inPlaceReuse", "in-place", "bool", /*default=*/"true",
           "let elementwise results reuse a dying operand's buffer">,
    Option<"exactLimit", "exact-limit", "unsigned", /*default=*/"10",
           "search every placement order for graphs of at most this many buffers">,
  ];
}

def Quantize : Pass<"kiln-quantize", "mlir::ModuleOp"> {
  let summary = "Weight-only quantization of F32/F16/BF16 matmul and embedding weights";
  let description = [{
    Changes the element type of the weights that matmuls and embeddings read
    to a GGML block type, recording the stored type in `source_type`; the
    bytes are converted as llama.cpp's quantizer converts them (without an
    importance matrix) when the library is written. `--kiln-quantize=q4_0` is
    short for `--kiln-quantize="type=q4_0"`.

    `type` is a block type (f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0, q2_k,
    q3_k, q4_k, q5_k, q6_k, iq4_nl, iq4_xs) or one of llama.cpp's mixes:
    `q4_k_m` and `q5_k_m` are q4_k / q5_k with q6_k for the output matrix
    (the token embedding when it is tied), and for attn_v / attn_qkv and
    ffn_down in the first and last eighth of the layers and every third layer
    between (llama.cpp's use_more_bits).

    Weights are chosen by their tensor name: `override` entries `REGEX=TYPE`
    win (first match), then `exclude` keeps matching weights as they are,
    then `type` applies. A weight that is already quantized is never
    requantized: asked for explicitly it is an error, otherwise a remark. A
    weight whose rows are not a multiple of the type's block falls back as
    llama.cpp's does (q2_k, q3_k -> q4_0; q4_k -> q5_0; q5_k -> q5_1;
    q6_k -> q8_0; iq4_xs -> iq4_nl), with a remark; if that does not fit
    either it is kept.
  }];
  let options = [
    Option<"type", "type", "std::string", /*default=*/"\"\"",
           "block type or mix (q4_k_m, q5_k_m) for every eligible weight">,
    Option<"exclude", "exclude", "std::string", /*default=*/"\"\"",
           "regex over tensor names to keep as they are">,
    ListOption<"overrides", "override", "std::string",
               "REGEX=TYPE: weights whose tensor name matches get TYPE">,
  ];
}

def SelectKernels : Pass<"kiln-select-kernels", "mlir::ModuleOp"> {
  let summary = "Choose the kernel that implements each op on the target";
  let description = [{
    Lowers each typed graph op to the call of the kernel that runs it: a
    kiln.conv becomes a kiln.tensor_op "conv" whose parameters hold the
    algorithm chosen for its shape (a direct 1x1 GEMM, im2col columns,
    shifted rows of a padded copy, or the depthwise loops) and the scratch
    it needs; the other typed ops (kiln.gemm, kiln.binary, kiln.unary,
    kiln.clip, kiln.batchnorm, kiln.pool, kiln.global_pool) become the
    calls of their kernels. Annotates each compute
    op with `kiln.kernel`, the name of the kernel the emitter calls (for
    example `matmul_q4_0_f32_generic`). A matmul whose
    kernel quantizes its activations also gets `kiln.activation`, the
    blocks it quantizes them to (`"q8_0"`, or `"q8_k"` for the kernels that
    read ggml's Q8_K; the reference evaluator follows it), `kiln.scratch_per_row`, the
    scratch bytes it needs per input row, and `kiln.tile`, the microkernel's
    register tile (activation rows x weight rows). A graph call
    (`kiln.tensor_op`) whose kernel splits its work into shares gets
    `kiln.parts`, the number of shares it runs in (the module's
    `kiln.threads`, or fewer when the dimension the kernel splits has fewer
    units), when it is large enough to pay for the hand-off: the memory
    planner gives each share its own scratch and the emitter runs the shares
    on the thread pool, no more of them than the threads started. The target is the module's
    `kiln.target` (kiln-set-target, or kilnc, writes it). Fails on an op the
    target has no kernel for, naming the op and the weight type.

    Option `halide` says which calls run Halide pipelines (kernels/halide)
    compiled for their shape instead of the C kernels: `default` (the
    ISA's choice: `sgemm` on hvx, where Halide's GEMM loop takes fewer
    packets, none elsewhere), `none`, or `sgemm` (x86, neon, hvx: the
    ISAs Halide 14 generates for). An f32 `matmul` call becomes
    `kiln.tensor_op "halide_sgemm"` with the same parameters and no
    scratch; an f32 `conv` call that is a GEMM as it stands (1x1, stride
    1, unpadded: the direct case) becomes `kiln.tensor_op "halide_conv"`,
    the same GEMM pipeline per image and group. Both run on one thread.
  }];
  let options = [
    Option<"halide", "halide", "std::string", /*default=*/"\"default\"",
           "calls that run Halide pipelines: default, none or sgemm "
           "(as kilnc --halide)">,
  ];
}

def SetTarget : Pass<"kiln-set-target", "mlir::ModuleOp"> {
  let summary = "Record the target in the module, for the passes after it";
  let description = [{
    Writes the module attribute `kiln.target = #kiln.target<isa = ..., cpu =
    ..., sve_bits = ...>` with the options resolved as kilnc resolves them
    (`cpu=host` becomes the level this machine has; defaults are named).
    kilnc records the target the same way right after import, so the passes
    read it only from the IR. Fails on an unknown target or an option that
    is not valid for it.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"generic\"",
           "instruction set (as kilnc --target)">,
    Option<"cpu", "cpu", "std::string", /*default=*/"\"\"",
           "CPU or feature level within the target (as kilnc --cpu)">,
    Option<"sveBits", "sve-bits", "int64_t", /*default=*/"0",
           "SVE vector length to fix (as kilnc --sve-bits)">,
  ];
}

#endif // KILN_PASSES_TD
