// RUN: kiln-opt %s -split-input-file --kiln-quantize=q4_0 -verify-diagnostics | FileCheck %s
// RUN: kiln-opt %s -split-input-file --kiln-quantize="type=q8_0 exclude=ffn_down override=attn_q\.=q4_k" 2>/dev/null | FileCheck %s --check-prefix=RULES

// Matmul and embedding weights of f32/f16/bf16 change type and remember the
// stored one; norm scales and biases stay f32.
// CHECK-LABEL: kiln.weight @embd : tensor<320x256x!kiln.q4_0> {source = "token_embd.weight", source_type = f32}
// CHECK: kiln.weight @norm : tensor<256xf32> {source = "blk.0.attn_norm.weight"}
// CHECK: kiln.weight @q : tensor<256x256x!kiln.q4_0> {source = "blk.0.attn_q.weight", source_type = f16}
// CHECK: kiln.weight @qb : tensor<256xf32> {source = "blk.0.attn_q.bias"}
// CHECK: kiln.weight @down : tensor<256x256x!kiln.q4_0> {source = "blk.0.ffn_down.weight", source_type = bf16}
// RULES-LABEL: kiln.weight @embd : tensor<320x256x!kiln.q8_0>
// RULES: kiln.weight @q : tensor<256x256x!kiln.q4_k> {source = "blk.0.attn_q.weight", source_type = f16}
// RULES: kiln.weight @down : tensor<256x256xbf16> {source = "blk.0.ffn_down.weight"}
kiln.weight @embd : tensor<320x256xf32> {source = "token_embd.weight"}
kiln.weight @norm : tensor<256xf32> {source = "blk.0.attn_norm.weight"}
kiln.weight @q : tensor<256x256xf16> {source = "blk.0.attn_q.weight"}
kiln.weight @qb : tensor<256xf32> {source = "blk.0.attn_q.bias"}
kiln.weight @down : tensor<256x256xbf16> {source = "blk.0.ffn_down.weight"}
func.func @f(%t: tensor<?xi32>) -> tensor<?x256xf32> {
  %x = kiln.embedding @embd, %t : tensor<?xi32> -> tensor<?x256xf32>
  %n = kiln.rms_norm %x, @norm {epsilon = 1.0e-5 : f32} : tensor<?x256xf32>
  %q = kiln.matmul %n, @q bias @qb : tensor<?x256xf32> -> tensor<?x256xf32>
  %d = kiln.matmul %q, @down : tensor<?x256xf32> -> tensor<?x256xf32>
  return %d : tensor<?x256xf32>
}

// -----

// Already quantized weights are kept, with a remark; rows that do not fill the
// type's block are kept, with a remark.
// CHECK-LABEL: kiln.weight @w8 : tensor<64x256x!kiln.q8_0> {source = "blk.0.ffn_up.weight"}
// CHECK: kiln.weight @odd : tensor<64x48xf32> {source = "blk.0.ffn_gate.weight"}
// expected-remark @below {{kept 'blk.0.ffn_up.weight' as q8_0: already quantized}}
kiln.weight @w8 : tensor<64x256x!kiln.q8_0> {source = "blk.0.ffn_up.weight"}
// expected-remark @below {{kept 'blk.0.ffn_gate.weight' as f32: rows of 48 are not a multiple of the 32-element block of q4_0}}
kiln.weight @odd : tensor<64x48xf32> {source = "blk.0.ffn_gate.weight"}
func.func @g(%x: tensor<?x256xf32>, %y: tensor<?x48xf32>) -> tensor<?x64xf32> {
  %a = kiln.matmul %x, @w8 : tensor<?x256xf32> -> tensor<?x64xf32>
  %b = kiln.matmul %y, @odd : tensor<?x48xf32> -> tensor<?x64xf32>
  %c = kiln.add %a, %b : tensor<?x64xf32>
  return %c : tensor<?x64xf32>
}
