//===- Passes.td - every kiln pass, alphabetical by flag ------------------===//
#ifndef KILN_PASSES_TD
#define KILN_PASSES_TD

include "mlir/Pass/PassBase.td"

def PlanMemory : Pass<"kiln-plan-memory", "mlir::func::FuncOp"> {
  let summary = "Assign every intermediate and scratch an offset in one arena";
  let description = [{
    Computes each value's live range over the op order, then places values
    largest first at the lowest offset that does not overlap a placed value
    with an intersecting live range. Rows of dynamic batches are sized for
    `kiln.max_batch` (a module attribute). Writes `kiln.offset` and
    `kiln.bytes` on every op result, and `kiln.arena_bytes`,
    `kiln.arena_lower_bound` and `kiln.arena_no_reuse` on the function.
  }];
  let options = [
    Option<"maxBatch", "max-batch", "int64_t", /*default=*/"0",
           "rows of a dynamic batch (0: the module's kiln.max_batch)">,
  ];
}

def Quantize : Pass<"kiln-quantize", "mlir::ModuleOp"> {
  let summary = "Weight-only quantization of F32/F16/BF16 matmul and embedding weights";
  let description = [{
    Changes the element type of the weights that matmuls and embeddings read
    to a GGML block type (f16, q8_0, q4_0, q4_k), recording the stored type in
    `source_type`; the bytes are converted with GGML's reference quantizers
    when the library is written. `--kiln-quantize=q4_0` is short for
    `--kiln-quantize="type=q4_0"`. Weights are chosen by their tensor name:
    `override` entries `REGEX=TYPE` win (first match), then `exclude` keeps
    matching weights as they are, then `type` applies. A weight that is
    already quantized is never requantized: asked for explicitly it is an
    error, otherwise a remark; a weight whose row length is not a multiple of
    the type's block is kept, with a remark.
  }];
  let options = [
    Option<"type", "type", "std::string", /*default=*/"\"\"",
           "block type for every eligible weight (f16, q8_0, q4_0, q4_k)">,
    Option<"exclude", "exclude", "std::string", /*default=*/"\"\"",
           "regex over tensor names to keep as they are">,
    ListOption<"overrides", "override", "std::string",
               "REGEX=TYPE: weights whose tensor name matches get TYPE">,
  ];
}

def SelectKernels : Pass<"kiln-select-kernels", "mlir::ModuleOp"> {
  let summary = "Choose the kernel that implements each op on the target";
  let description = [{
    Annotates each compute op with `kiln.kernel`, the name of the kernel the
    emitter calls (for example `matmul_q4_0_f32_generic`). A matmul whose
    kernel quantizes its activations also gets `kiln.activation = "q8_0"`
    (the reference evaluator follows it), `kiln.scratch_per_row`, the
    scratch bytes it needs per input row, and `kiln.tile`, the microkernel's
    register tile (activation rows x weight rows). Fails on an op the target has no
    kernel for, naming the op and the weight type.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"generic\"",
           "instruction set to select kernels for">,
    Option<"cpu", "cpu", "std::string", /*default=*/"\"\"",
           "CPU or feature level within the target (as kilnc --cpu)">,
    Option<"sveBits", "sve-bits", "int64_t", /*default=*/"0",
           "SVE vector length to fix (as kilnc --sve-bits)">,
  ];
}

#endif // KILN_PASSES_TD
