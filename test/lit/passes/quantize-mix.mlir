// RUN: kiln-opt %s -split-input-file --kiln-quantize=q4_k_m -verify-diagnostics | FileCheck %s --check-prefix=Q4
// RUN: kiln-opt %s -split-input-file --kiln-quantize=q5_k_m 2>/dev/null | FileCheck %s --check-prefix=Q5

// llama.cpp's mixes over 8 layers: attn_v and ffn_down get q6_k in layers
// 0, 3, 6 and 7 (the first and last eighth, then every third layer:
// use_more_bits), the tied embedding (it is the output matrix) q6_k, the rest
// the base type.
// Q4-LABEL: kiln.weight @embd : tensor<320x256x!kiln.q6_k>
// Q5-LABEL: kiln.weight @embd : tensor<320x256x!kiln.q6_k>
// Q4: kiln.weight @v0 : tensor<64x256x!kiln.q6_k> {source = "blk.0.attn_v.weight", source_type = f16}
// Q4: kiln.weight @d0 : tensor<256x256x!kiln.q6_k> {source = "blk.0.ffn_down.weight", source_type = f32}
// Q5: kiln.weight @v0 : tensor<64x256x!kiln.q6_k>
// Q5: kiln.weight @d0 : tensor<256x256x!kiln.q6_k>
// Q4: kiln.weight @v1 : tensor<64x256x!kiln.q4_k> {source = "blk.1.attn_v.weight", source_type = f16}
// Q4: kiln.weight @d1 : tensor<256x256x!kiln.q4_k> {source = "blk.1.ffn_down.weight", source_type = f32}
// Q5: kiln.weight @v1 : tensor<64x256x!kiln.q5_k>
// Q5: kiln.weight @d1 : tensor<256x256x!kiln.q5_k>
// Q4: kiln.weight @v2 : tensor<64x256x!kiln.q4_k> {source = "blk.2.attn_v.weight", source_type = f16}
// Q4: kiln.weight @d2 : tensor<256x256x!kiln.q4_k> {source = "blk.2.ffn_down.weight", source_type = f32}
// Q5: kiln.weight @v2 : tensor<64x256x!kiln.q5_k>
// Q5: kiln.weight @d2 : tensor<256x256x!kiln.q5_k>
// Q4: kiln.weight @v3 : tensor<64x256x!kiln.q6_k> {source = "blk.3.attn_v.weight", source_type = f16}
// Q4: kiln.weight @d3 : tensor<256x256x!kiln.q6_k> {source = "blk.3.ffn_down.weight", source_type = f32}
// Q5: kiln.weight @v3 : tensor<64x256x!kiln.q6_k>
// Q5: kiln.weight @d3 : tensor<256x256x!kiln.q6_k>
// Q4: kiln.weight @v4 : tensor<64x256x!kiln.q4_k> {source = "blk.4.attn_v.weight", source_type = f16}
// Q4: kiln.weight @d4 : tensor<256x256x!kiln.q4_k> {source = "blk.4.ffn_down.weight", source_type = f32}
// Q5: kiln.weight @v4 : tensor<64x256x!kiln.q5_k>
// Q5: kiln.weight @d4 : tensor<256x256x!kiln.q5_k>
// Q4: kiln.weight @v5 : tensor<64x256x!kiln.q4_k> {source = "blk.5.attn_v.weight", source_type = f16}
// Q4: kiln.weight @d5 : tensor<256x256x!kiln.q4_k> {source = "blk.5.ffn_down.weight", source_type = f32}
// Q5: kiln.weight @v5 : tensor<64x256x!kiln.q5_k>
// Q5: kiln.weight @d5 : tensor<256x256x!kiln.q5_k>
// Q4: kiln.weight @v6 : tensor<64x256x!kiln.q6_k> {source = "blk.6.attn_v.weight", source_type = f16}
// Q4: kiln.weight @d6 : tensor<256x256x!kiln.q6_k> {source = "blk.6.ffn_down.weight", source_type = f32}
// Q5: kiln.weight @v6 : tensor<64x256x!kiln.q6_k>
// Q5: kiln.weight @d6 : tensor<256x256x!kiln.q6_k>
// Q4: kiln.weight @v7 : tensor<64x256x!kiln.q6_k> {source = "blk.7.attn_v.weight", source_type = f16}
// Q4: kiln.weight @d7 : tensor<256x256x!kiln.q6_k> {source = "blk.7.ffn_down.weight", source_type = f32}
// Q5: kiln.weight @v7 : tensor<64x256x!kiln.q6_k>
// Q5: kiln.weight @d7 : tensor<256x256x!kiln.q6_k>
// Q4: kiln.weight @q3 : tensor<256x256x!kiln.q4_k> {source = "blk.3.attn_q.weight", source_type = f32}
// Q5: kiln.weight @q3 : tensor<256x256x!kiln.q5_k>
kiln.weight @embd : tensor<320x256xf32> {source = "token_embd.weight"}
kiln.weight @v0 : tensor<64x256xf16> {source = "blk.0.attn_v.weight"}
kiln.weight @d0 : tensor<256x256xf32> {source = "blk.0.ffn_down.weight"}
kiln.weight @v1 : tensor<64x256xf16> {source = "blk.1.attn_v.weight"}
kiln.weight @d1 : tensor<256x256xf32> {source = "blk.1.ffn_down.weight"}
kiln.weight @v2 : tensor<64x256xf16> {source = "blk.2.attn_v.weight"}
kiln.weight @d2 : tensor<256x256xf32> {source = "blk.2.ffn_down.weight"}
kiln.weight @v3 : tensor<64x256xf16> {source = "blk.3.attn_v.weight"}
kiln.weight @d3 : tensor<256x256xf32> {source = "blk.3.ffn_down.weight"}
kiln.weight @v4 : tensor<64x256xf16> {source = "blk.4.attn_v.weight"}
kiln.weight @d4 : tensor<256x256xf32> {source = "blk.4.ffn_down.weight"}
kiln.weight @v5 : tensor<64x256xf16> {source = "blk.5.attn_v.weight"}
kiln.weight @d5 : tensor<256x256xf32> {source = "blk.5.ffn_down.weight"}
kiln.weight @v6 : tensor<64x256xf16> {source = "blk.6.attn_v.weight"}
kiln.weight @d6 : tensor<256x256xf32> {source = "blk.6.ffn_down.weight"}
kiln.weight @v7 : tensor<64x256xf16> {source = "blk.7.attn_v.weight"}
kiln.weight @d7 : tensor<256x256xf32> {source = "blk.7.ffn_down.weight"}
kiln.weight @q3 : tensor<256x256xf32> {source = "blk.3.attn_q.weight"}
func.func @f(%t: tensor<?xi32>) -> tensor<?x320xf32> {
  %x = kiln.embedding @embd, %t : tensor<?xi32> -> tensor<?x256xf32>
  %v0 = kiln.matmul %x, @v0 : tensor<?x256xf32> -> tensor<?x64xf32>
  %d0 = kiln.matmul %x, @d0 : tensor<?x256xf32> -> tensor<?x256xf32>
  %v1 = kiln.matmul %d0, @v1 : tensor<?x256xf32> -> tensor<?x64xf32>
  %d1 = kiln.matmul %d0, @d1 : tensor<?x256xf32> -> tensor<?x256xf32>
  %v2 = kiln.matmul %d1, @v2 : tensor<?x256xf32> -> tensor<?x64xf32>
  %d2 = kiln.matmul %d1, @d2 : tensor<?x256xf32> -> tensor<?x256xf32>
  %v3 = kiln.matmul %d2, @v3 : tensor<?x256xf32> -> tensor<?x64xf32>
  %d3 = kiln.matmul %d2, @d3 : tensor<?x256xf32> -> tensor<?x256xf32>
  %v4 = kiln.matmul %d3, @v4 : tensor<?x256xf32> -> tensor<?x64xf32>
  %d4 = kiln.matmul %d3, @d4 : tensor<?x256xf32> -> tensor<?x256xf32>
  %v5 = kiln.matmul %d4, @v5 : tensor<?x256xf32> -> tensor<?x64xf32>
  %d5 = kiln.matmul %d4, @d5 : tensor<?x256xf32> -> tensor<?x256xf32>
  %v6 = kiln.matmul %d5, @v6 : tensor<?x256xf32> -> tensor<?x64xf32>
  %d6 = kiln.matmul %d5, @d6 : tensor<?x256xf32> -> tensor<?x256xf32>
  %v7 = kiln.matmul %d6, @v7 : tensor<?x256xf32> -> tensor<?x64xf32>
  %d7 = kiln.matmul %d6, @d7 : tensor<?x256xf32> -> tensor<?x256xf32>
  %q = kiln.matmul %d7, @q3 : tensor<?x256xf32> -> tensor<?x256xf32>
  %o = kiln.matmul %q, @embd : tensor<?x256xf32> -> tensor<?x320xf32>
  return %o : tensor<?x320xf32>
}

// -----

// An untied output matrix gets q6_k and the embedding the base type. Rows that
// a 256-element block does not divide fall back as llama.cpp's do: q4_k to
// q5_0, q5_k to q5_1, q6_k to q8_0.
// Q4-LABEL: kiln.weight @embd : tensor<320x256x!kiln.q4_k>
// Q4: kiln.weight @up : tensor<896x256x!kiln.q4_k>
// Q4: kiln.weight @gate : tensor<256x896x!kiln.q5_0>
// Q4: kiln.weight @out : tensor<320x896x!kiln.q8_0> {source = "output.weight", source_type = f32}
// Q5-LABEL: kiln.weight @embd : tensor<320x256x!kiln.q5_k>
// Q5: kiln.weight @gate : tensor<256x896x!kiln.q5_1>
// Q5: kiln.weight @out : tensor<320x896x!kiln.q8_0>
kiln.weight @embd : tensor<320x256xf32> {source = "token_embd.weight"}
kiln.weight @up : tensor<896x256xf32> {source = "blk.0.ffn_up.weight"}
// expected-remark @below {{'blk.0.ffn_gate.weight' as q5_0: rows of 896 are not a multiple of the 256-element block of q4_k}}
kiln.weight @gate : tensor<256x896xf32> {source = "blk.0.ffn_gate.weight"}
// expected-remark @below {{'output.weight' as q8_0: rows of 896 are not a multiple of the 256-element block of q6_k}}
kiln.weight @out : tensor<320x896xf32> {source = "output.weight"}
func.func @g(%t: tensor<?xi32>) -> tensor<?x320xf32> {
  %x = kiln.embedding @embd, %t : tensor<?xi32> -> tensor<?x256xf32>
  %u = kiln.matmul %x, @up : tensor<?x256xf32> -> tensor<?x896xf32>
  %g = kiln.matmul %u, @gate : tensor<?x896xf32> -> tensor<?x256xf32>
  %u2 = kiln.matmul %g, @up : tensor<?x256xf32> -> tensor<?x896xf32>
  %o = kiln.matmul %u2, @out : tensor<?x896xf32> -> tensor<?x320xf32>
  return %o : tensor<?x320xf32>
}
