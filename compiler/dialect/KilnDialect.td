//===- KilnDialect.td - the kiln dialect and its quantized block types ----===//
#ifndef KILN_DIALECT_TD
#define KILN_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::kiln";
  let summary = "Tensor-level model IR of the Kiln compiler";
  let description = [{
    Ops of a decoder-only language model at tensor level. Weights are module-level
    `kiln.weight` symbols that name a tensor of the source model; compute ops refer
    to them by symbol, so the IR never carries weight bytes. Sequence-dependent ops
    (`kiln.rope`, `kiln.attention`) act at the positions that follow the tokens the
    sequence has already consumed.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let useFoldAPI = kEmitFoldAdaptorFolder;
  // kiln.constant, for the values tensor_op folds to.
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

class Kiln_BlockType<string name, string typeMnemonic, int blockElems, int blockBytes>
    : TypeDef<Kiln_Dialect, name> {
  let mnemonic = typeMnemonic;
  let summary = "GGML block-quantized element: " # blockElems # " values in "
                # blockBytes # " bytes";
  let extraClassDeclaration = [{
    static constexpr int64_t kBlockElements = }] # blockElems # [{;
    static constexpr int64_t kBlockBytes = }] # blockBytes # [{;
  }];
}

def Kiln_Q8_0 : Kiln_BlockType<"Q8_0", "q8_0", 32, 34>;
def Kiln_Q4_0 : Kiln_BlockType<"Q4_0", "q4_0", 32, 18>;
def Kiln_Q4_1 : Kiln_BlockType<"Q4_1", "q4_1", 32, 20>;
def Kiln_Q4_K : Kiln_BlockType<"Q4_K", "q4_k", 256, 144>;
def Kiln_Q6_K : Kiln_BlockType<"Q6_K", "q6_k", 256, 210>;
def Kiln_Q5_0 : Kiln_BlockType<"Q5_0", "q5_0", 32, 22>;
def Kiln_Q5_1 : Kiln_BlockType<"Q5_1", "q5_1", 32, 24>;
def Kiln_Q2_K : Kiln_BlockType<"Q2_K", "q2_k", 256, 84>;
def Kiln_Q3_K : Kiln_BlockType<"Q3_K", "q3_k", 256, 110>;
def Kiln_Q5_K : Kiln_BlockType<"Q5_K", "q5_k", 256, 176>;
def Kiln_IQ4_NL : Kiln_BlockType<"IQ4_NL", "iq4_nl", 32, 18>;
def Kiln_IQ4_XS : Kiln_BlockType<"IQ4_XS", "iq4_xs", 256, 136>;

def Kiln_BlockQuantType : AnyTypeOf<[Kiln_Q8_0, Kiln_Q4_0, Kiln_Q4_1, Kiln_Q4_K,
    Kiln_Q6_K, Kiln_Q5_0, Kiln_Q5_1, Kiln_Q2_K, Kiln_Q3_K, Kiln_Q5_K,
    Kiln_IQ4_NL, Kiln_IQ4_XS]>;
def Kiln_WeightElementType : AnyTypeOf<[F32, F16, BF16, Kiln_BlockQuantType]>;

// A string parameter that may be left out (and is then empty).
class Kiln_OptionalStringParameter<string desc> : StringRefParameter<desc> {
  let defaultValue = "\"\"";
}

def Kiln_TargetAttr : AttrDef<Kiln_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "The instruction set and CPU level a module is compiled for";
  let description = [{
    Written once into the module (`kiln.target`) by kilnc before any pass
    runs; kernel selection and emission read it from there. `cpu` is the
    resolved level (`host` is replaced by what the machine has), `sve_bits`
    a fixed SVE vector length (0: length agnostic).

      module attributes {kiln.target = #kiln.target<isa = "x86", cpu = "avx2">}
  }];
  let parameters = (ins StringRefParameter<"instruction set">:$isa,
                        Kiln_OptionalStringParameter<"CPU level">:$cpu,
                        DefaultValuedParameter<"int64_t", "0">:$sve_bits);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // KILN_DIALECT_TD
