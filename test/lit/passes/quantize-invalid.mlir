// RUN: kiln-opt %s --kiln-quantize="override=ffn_up=q4_0" -verify-diagnostics
// RUN: not kiln-opt %s --kiln-quantize=q4_k_l 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not kiln-opt %s --kiln-quantize="override=ffn_up=q4_k_m" 2>&1 | FileCheck %s --check-prefix=OVERRIDE
// RUN: not kiln-opt %s --kiln-quantize="type=q4_0 exclude=(" 2>&1 | FileCheck %s --check-prefix=REGEX
// RUN: not kiln-opt %s --kiln-quantize="override=ffn_up" 2>&1 | FileCheck %s --check-prefix=RULE
// TYPE: kiln-quantize: unknown type 'q4_k_l' (valid: f16, q4_0, q4_1, q5_0, q5_1, q8_0, q2_k, q3_k, q4_k, q5_k, q6_k, iq4_nl, iq4_xs, bf16, q4_k_m, q5_k_m)
// OVERRIDE: kiln-quantize: override 'ffn_up=q4_k_m': unknown type 'q4_k_m' (valid: f16, q4_0
// REGEX: kiln-quantize: invalid regex
// RULE: kiln-quantize: override 'ffn_up' is not REGEX=TYPE

// Asked explicitly to requantize a quantized weight: an error, not a silent
// loss of precision.
// expected-error @below {{'blk.0.ffn_up.weight' is already q8_0; Kiln does not requantize quantized weights (asked for q4_0)}}
kiln.weight @w8 : tensor<64x256x!kiln.q8_0> {source = "blk.0.ffn_up.weight"}
func.func @g(%x: tensor<?x256xf32>) -> tensor<?x64xf32> {
  %a = kiln.matmul %x, @w8 : tensor<?x256xf32> -> tensor<?x64xf32>
  return %a : tensor<?x64xf32>
}
