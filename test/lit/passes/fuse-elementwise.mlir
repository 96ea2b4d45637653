// RUN: kiln-opt %s -split-input-file --kiln-fuse-elementwise | FileCheck %s
// RUN: kiln-opt %s -split-input-file --kiln-fuse-elementwise=fold-norms=0 | FileCheck %s --check-prefix=NOFOLD

// A llama block after kiln-fuse-horizontal: the residual adds become "add"
// epilogues of the output and down projections, silu_mul of the two halves
// of the gate/up matmul becomes its "swiglu" epilogue. Quantized weights:
// the norm scales stay where they are.
module attributes {kiln.max_batch = 4 : i64} {
  kiln.weight @n : tensor<64xf32> {source = "n"}
  kiln.weight @o : tensor<64x64x!kiln.q4_0> {source = "o"}
  kiln.weight @gu : tensor<256x64x!kiln.q4_0> {source = "g", concat = ["u"]}
  kiln.weight @d : tensor<64x128x!kiln.q4_0> {source = "d"}
  // CHECK-LABEL: func.func @block
  func.func @block(%x: tensor<?x64xf32>, %a: tensor<?x64xf32>) -> tensor<?x64xf32> {
    // CHECK-NEXT: %[[H:.*]] = kiln.matmul %arg1, @o epilogue "add" with %arg0 :
    // CHECK-NEXT: %[[N:.*]] = kiln.rms_norm %[[H]], @n
    // CHECK-NEXT: %[[S:.*]] = kiln.matmul %[[N]], @gu split [128, 128] epilogue "swiglu" : tensor<?x64xf32> -> tensor<?x128xf32>
    // CHECK-NEXT: %[[Y:.*]] = kiln.matmul %[[S]], @d epilogue "add" with %[[H]] :
    // CHECK-NEXT: return %[[Y]]
    %o = kiln.matmul %a, @o : tensor<?x64xf32> -> tensor<?x64xf32>
    %h = kiln.add %x, %o : tensor<?x64xf32>
    %n = kiln.rms_norm %h, @n {epsilon = 1.0e-5 : f32} : tensor<?x64xf32>
    %g, %u = kiln.matmul %n, @gu split [128, 128] : tensor<?x64xf32> -> tensor<?x128xf32>, tensor<?x128xf32>
    %s = kiln.silu_mul %g, %u : tensor<?x128xf32>
    %d = kiln.matmul %s, @d : tensor<?x128xf32> -> tensor<?x64xf32>
    %y = kiln.add %h, %d : tensor<?x64xf32>
    return %y : tensor<?x64xf32>
  }
}

// -----

// Unfused gate and up: the later matmul (up) takes silu(gate) * up as its
// "mul_silu" epilogue; with gate computed last it is "silu_mul".
module attributes {kiln.max_batch = 4 : i64} {
  kiln.weight @g : tensor<128x64x!kiln.q8_0> {source = "g"}
  kiln.weight @u : tensor<128x64x!kiln.q8_0> {source = "u"}
  // CHECK-LABEL: func.func @gate_then_up
  func.func @gate_then_up(%x: tensor<?x64xf32>) -> tensor<?x128xf32> {
    // CHECK-NEXT: %[[G:.*]] = kiln.matmul %arg0, @g :
    // CHECK-NEXT: %[[U:.*]] = kiln.matmul %arg0, @u epilogue "mul_silu" with %[[G]] :
    // CHECK-NEXT: return %[[U]]
    %g = kiln.matmul %x, @g : tensor<?x64xf32> -> tensor<?x128xf32>
    %u = kiln.matmul %x, @u : tensor<?x64xf32> -> tensor<?x128xf32>
    %s = kiln.silu_mul %g, %u : tensor<?x128xf32>
    return %s : tensor<?x128xf32>
  }
  // CHECK-LABEL: func.func @up_then_gate
  func.func @up_then_gate(%x: tensor<?x64xf32>) -> tensor<?x128xf32> {
    // CHECK-NEXT: %[[U:.*]] = kiln.matmul %arg0, @u :
    // CHECK-NEXT: %[[G:.*]] = kiln.matmul %arg0, @g epilogue "silu_mul" with %[[U]] :
    %u = kiln.matmul %x, @u : tensor<?x64xf32> -> tensor<?x128xf32>
    %g = kiln.matmul %x, @g : tensor<?x64xf32> -> tensor<?x128xf32>
    %s = kiln.silu_mul %g, %u : tensor<?x128xf32>
    return %s : tensor<?x128xf32>
  }
}

// -----

// Must not fire: the matmul result is used elsewhere too (returned), the
// other operand is computed after the matmul, or it is an add of two
// non-matmul values.
module attributes {kiln.max_batch = 4 : i64} {
  kiln.weight @w : tensor<64x64x!kiln.q8_0> {source = "w"}
  kiln.weight @n : tensor<64xf32> {source = "n"}
  // CHECK-LABEL: func.func @used_elsewhere
  func.func @used_elsewhere(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
    // CHECK-NEXT: kiln.matmul %arg0, @w :
    // CHECK-NEXT: kiln.add
    %m = kiln.matmul %x, @w : tensor<?x64xf32> -> tensor<?x64xf32>
    %y = kiln.add %x, %m : tensor<?x64xf32>
    return %y, %m : tensor<?x64xf32>, tensor<?x64xf32>
  }
  // CHECK-LABEL: func.func @operand_later
  func.func @operand_later(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
    // CHECK-NEXT: kiln.matmul %arg0, @w :
    // CHECK-NEXT: kiln.rms_norm
    // CHECK-NEXT: kiln.add
    %m = kiln.matmul %x, @w : tensor<?x64xf32> -> tensor<?x64xf32>
    %later = kiln.rms_norm %x, @n {epsilon = 1.0e-5 : f32} : tensor<?x64xf32>
    %y = kiln.add %later, %m : tensor<?x64xf32>
    return %y : tensor<?x64xf32>
  }
  // CHECK-LABEL: func.func @no_matmul
  func.func @no_matmul(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
    // CHECK-NEXT: kiln.add
    %y = kiln.add %x, %x : tensor<?x64xf32>
    return %y : tensor<?x64xf32>
  }
}

// -----

// f32 weights: the norm's scale moves into the columns of the weights of
// every matmul that reads it (scale_columns), and the norm only normalizes.
// The norm's own weight, now unused, is dropped.
module attributes {kiln.max_batch = 4 : i64} {
  kiln.weight @norm : tensor<64xf32> {source = "attn_norm.weight"}
  kiln.weight @q : tensor<64x64xf32> {source = "q.weight"}
  kiln.weight @k : tensor<32x64xf32> {source = "k.weight"}
  // CHECK-LABEL: module
  // CHECK-NOT: kiln.weight @norm
  // CHECK-DAG: kiln.weight @"q*norm" : tensor<64x64xf32> {scale_columns = "attn_norm.weight", source = "q.weight"}
  // CHECK-DAG: kiln.weight @"k*norm" : tensor<32x64xf32> {scale_columns = "attn_norm.weight", source = "k.weight"}
  // CHECK-LABEL: func.func @fold
  // NOFOLD-LABEL: func.func @fold
  func.func @fold(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x32xf32>) {
    // CHECK-NEXT: %[[N:.*]] = kiln.rms_norm %arg0 {epsilon
    // CHECK-NEXT: kiln.matmul %[[N]], @"q*norm"
    // CHECK-NEXT: kiln.matmul %[[N]], @"k*norm"
    // NOFOLD-NEXT: kiln.rms_norm %arg0, @norm
    %n = kiln.rms_norm %x, @norm {epsilon = 1.0e-5 : f32} : tensor<?x64xf32>
    %q = kiln.matmul %n, @q : tensor<?x64xf32> -> tensor<?x64xf32>
    %k = kiln.matmul %n, @k : tensor<?x64xf32> -> tensor<?x32xf32>
    return %q, %k : tensor<?x64xf32>, tensor<?x32xf32>
  }
}

// -----

// Must not fold: one reader has a quantized weight (its kernel quantizes the
// activations, so moving the scale would round differently), or the norm is
// read by something other than a matmul.
module attributes {kiln.max_batch = 4 : i64} {
  kiln.weight @norm : tensor<64xf32> {source = "norm"}
  kiln.weight @q : tensor<64x64xf32> {source = "q"}
  kiln.weight @k : tensor<32x64x!kiln.q8_0> {source = "k"}
  // CHECK-LABEL: func.func @mixed_readers
  func.func @mixed_readers(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x32xf32>) {
    // CHECK-NEXT: kiln.rms_norm %arg0, @norm
    // CHECK-NEXT: kiln.matmul %{{.*}}, @q :
    %n = kiln.rms_norm %x, @norm {epsilon = 1.0e-5 : f32} : tensor<?x64xf32>
    %q = kiln.matmul %n, @q : tensor<?x64xf32> -> tensor<?x64xf32>
    %k = kiln.matmul %n, @k : tensor<?x64xf32> -> tensor<?x32xf32>
    return %q, %k : tensor<?x64xf32>, tensor<?x32xf32>
  }
  // CHECK-LABEL: func.func @not_only_matmuls
  func.func @not_only_matmuls(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
    // CHECK-NEXT: kiln.rms_norm %arg0, @norm
    %n = kiln.rms_norm %x, @norm {epsilon = 1.0e-5 : f32} : tensor<?x64xf32>
    %q = kiln.matmul %n, @q : tensor<?x64xf32> -> tensor<?x64xf32>
    return %q, %n : tensor<?x64xf32>, tensor<?x64xf32>
  }
}
