// Every verifier of the kiln dialect rejects what it must, with its message.
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{innermost dimension 48 is not a multiple of the 32-element block}}
kiln.weight @w : tensor<4x48x!kiln.q4_0> {source = "w"}

// -----

// expected-error @below {{type must be a statically shaped tensor}}
kiln.weight @w : tensor<?x64xf32> {source = "w"}

// -----

// expected-error @below {{unsupported weight element type 'i8'}}
kiln.weight @w : tensor<4x64xi8> {source = "w"}

// -----

func.func @f(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{weight @missing does not name a kiln.weight}}
  %y = kiln.matmul %x, @missing : tensor<?x64xf32> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

kiln.weight @w : tensor<128x32xf32> {source = "w"}
func.func @f(%x: tensor<?x64xf32>) -> tensor<?x128xf32> {
  // expected-error @below {{input width 64 does not match weight K 32}}
  %y = kiln.matmul %x, @w : tensor<?x64xf32> -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

kiln.weight @w : tensor<128x64xf32> {source = "w"}
func.func @f(%x: tensor<?x64xf32>) -> tensor<?x96xf32> {
  // expected-error @below {{result width 96 does not match weight N 128}}
  %y = kiln.matmul %x, @w : tensor<?x64xf32> -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

kiln.weight @w : tensor<128x64xf32> {source = "w"}
kiln.weight @b : tensor<64xf32> {source = "b"}
func.func @f(%x: tensor<?x64xf32>) -> tensor<?x128xf32> {
  // expected-error @below {{bias must be a float vector of length 128}}
  %y = kiln.matmul %x, @w bias @b : tensor<?x64xf32> -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

kiln.weight @n : tensor<32xf32> {source = "n"}
func.func @f(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{weight must be a float vector of the input width 64}}
  %y = kiln.rms_norm %x, @n {epsilon = 1.0e-5 : f32} : tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

kiln.weight @n : tensor<64xf32> {source = "n"}
func.func @f(%x: tensor<?x128xf32>) -> tensor<?x128xf32> {
  // expected-error @below {{weight must be a float vector of the group size 32}}
  %y = kiln.rms_norm %x, @n {epsilon = 1.0e-5 : f32, group = 32 : i64} : tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

kiln.weight @n : tensor<48xf32> {source = "n"}
func.func @f(%x: tensor<?x128xf32>) -> tensor<?x128xf32> {
  // expected-error @below {{group 48 does not divide the input width 128}}
  %y = kiln.rms_norm %x, @n {epsilon = 1.0e-5 : f32, group = 48 : i64} : tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

kiln.weight @e : tensor<300x32xf32> {source = "e"}
func.func @f(%t: tensor<?xi32>) -> tensor<?x64xf32> {
  // expected-error @below {{result width 64 does not match table width 32}}
  %y = kiln.embedding @e, %t : tensor<?xi32> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

func.func @f(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{head_dim must be positive and even, got 15}}
  %y = kiln.rope %x {head_dim = 15 : i64, theta = 1.0e4 : f32, style = "neox"} : tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

func.func @f(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{style must be "adjacent" or "neox", got "gptj"}}
  %y = kiln.rope %x {head_dim = 16 : i64, theta = 1.0e4 : f32, style = "gptj"} : tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

func.func @f(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{input width 64 is not a multiple of head_dim 24}}
  %y = kiln.rope %x {head_dim = 24 : i64, theta = 1.0e4 : f32, style = "neox"} : tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

func.func @f(%q: tensor<?x64xf32>, %k: tensor<?x32xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{num_heads 4 is not a multiple of num_kv_heads 3}}
  %y = kiln.attention %q, %k, %k {layer = 0 : i64, num_heads = 4 : i64, num_kv_heads = 3 : i64, head_dim = 16 : i64} : tensor<?x64xf32>, tensor<?x32xf32>, tensor<?x32xf32> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

func.func @f(%q: tensor<?x64xf32>, %k: tensor<?x32xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{key and value width must be num_kv_heads * head_dim = 64}}
  %y = kiln.attention %q, %k, %k {layer = 0 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64, head_dim = 16 : i64} : tensor<?x64xf32>, tensor<?x32xf32>, tensor<?x32xf32> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

func.func @f(%q: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{query width 64 != num_heads * head_dim = 128}}
  %y = kiln.attention %q, %q, %q {layer = 0 : i64, num_heads = 8 : i64, num_kv_heads = 4 : i64, head_dim = 16 : i64} : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

func.func @f(%x: tensor<?x64xf32>) -> tensor<2x64xf32> {
  // expected-error @below {{result must have one row or a dynamic number of rows}}
  %y = kiln.last_token %x : tensor<?x64xf32> -> tensor<2x64xf32>
  return %y : tensor<2x64xf32>
}

// -----

func.func @f(%x: tensor<?x64xf32>, %y: tensor<?x32xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{requires the same type for all operands and results}}
  %z = "kiln.add"(%x, %y) : (tensor<?x64xf32>, tensor<?x32xf32>) -> tensor<?x64xf32>
  return %z : tensor<?x64xf32>
}

// -----

module {
  kiln.weight @w : tensor<96x64xf32> {source = "w"}
  func.func @split_results(%x: tensor<?x64xf32>) {
    // expected-error @+1 {{split into 3 parts needs 3 results, got 2}}
    %a, %b = kiln.matmul %x, @w split [64, 16, 16] : tensor<?x64xf32> -> tensor<?x64xf32>, tensor<?x16xf32>
    return
  }
}

// -----

module {
  kiln.weight @w : tensor<96x64xf32> {source = "w"}
  func.func @split_total(%x: tensor<?x64xf32>) {
    // expected-error @+1 {{split total 80 does not match weight N 96}}
    %a, %b = kiln.matmul %x, @w split [64, 16] : tensor<?x64xf32> -> tensor<?x64xf32>, tensor<?x16xf32>
    return
  }
}

// -----

module {
  kiln.weight @w : tensor<64x64xf32> {source = "w"}
  func.func @epilogue_operand(%x: tensor<?x64xf32>) {
    // expected-error @+1 {{epilogue "add" needs an operand (`with`)}}
    %a = kiln.matmul %x, @w epilogue "add" : tensor<?x64xf32> -> tensor<?x64xf32>
    return
  }
}

// -----

module {
  kiln.weight @w : tensor<64x64xf32> {source = "w"}
  func.func @epilogue_name(%x: tensor<?x64xf32>) {
    // expected-error @+1 {{epilogue must be "add", "silu_mul", "mul_silu" or "swiglu", got "gelu"}}
    %a = kiln.matmul %x, @w epilogue "gelu" with %x : tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x64xf32>
    return
  }
}

// -----

module {
  kiln.weight @w : tensor<96x64xf32> {source = "w"}
  func.func @swiglu_parts(%x: tensor<?x64xf32>) {
    // expected-error @+1 {{epilogue "swiglu" needs two equal parts}}
    %a = kiln.matmul %x, @w split [64, 32] epilogue "swiglu" : tensor<?x64xf32> -> tensor<?x64xf32>
    return
  }
}

// -----

kiln.weight @f : tensor<4xf32> {source = "rope_freqs.weight"}
func.func @rope_freq_factors(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{freq_factors must be a float vector of head_dim / 2 = 8 elements, got 'tensor<4xf32>'}}
  %r = kiln.rope %x {head_dim = 16 : i64, theta = 1.0e4 : f32, style = "adjacent", freq_factors = @f} : tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

// A graph constant's bytes must fill its type: 3 x f32 is 12 bytes.
func.func @f() -> tensor<3xf32> {
  // expected-error @below {{value has 8 bytes, its type 'tensor<3xf32>' needs 12}}
  %0 = kiln.constant "b" dense_resource<b> : tensor<3xf32>
  return %0 : tensor<3xf32>
}
{-#
  dialect_resources: {
    builtin: {
      b: "0x400000000000803F00000040"
    }
  }
#-}

// -----

func.func @f() -> tensor<2xf32> {
  // expected-error @below {{value must be a dense_resource}}
  %0 = kiln.constant "b" dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<5xf32> {
  // expected-error @below {{has 6 elements in and 5 out}}
  %0 = kiln.reshape %x {node = "r", onnx_op = "Reshape"} : tensor<2x3xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<6xi32> {
  // expected-error @below {{changes the element type ('f32' to 'i32'); a reshape keeps it}}
  %0 = kiln.reshape %x {node = "r", onnx_op = "Reshape"} : tensor<2x3xf32> -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

func.func @f(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x5x6xf32> {
  // expected-error @below {{spatial dimension 0: the result has 5, but input 6, kernel 3, stride 1, dilation 1 and pads 1 + 1 give 6}}
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, node = "c", onnx_op = "Conv", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x5x6xf32>
  return %0 : tensor<1x4x5x6xf32>
}

// -----

func.func @f(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @below {{group 2 does not fit input 'tensor<1x2x6x6xf32>' and filter 'tensor<4x2x3x3xf32>'}}
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, node = "c", onnx_op = "Conv", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @f(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @below {{strides [1], dilations [1, 1] and pads [0, 0, 0, 0] must have 2, 2 and 4 values}}
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, node = "c", onnx_op = "Conv", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @f(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @below {{bias must be tensor<4xf32>, not 'tensor<3xf32>'}}
  %0 = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, node = "c", onnx_op = "Conv", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>, tensor<3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// A per-channel epilogue operand of the wrong length.
func.func @f(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>, %s: tensor<3x1x1xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @below {{epilogue operation 0 [2, 2, 0, 0]: needs an f32 epilogue input of the kind's shape}}
  %0 = kiln.conv %x, %w epilogue(%s) {dilations = array<i64: 1, 1>, epilogue = array<i64: 2, 2, 0, 0>, group = 1 : i64, node = "c", onnx_op = "Conv", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>, tensor<3x1x1xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// An operand index past the epilogue's inputs.
func.func @f(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>, %s: tensor<f32>) -> tensor<1x4x4x4xf32> {
  // expected-error @below {{epilogue operation 1 [1, 0, 1, 0]: needs an f32 epilogue input of the kind's shape}}
  %0 = kiln.conv %x, %w epilogue(%s) {dilations = array<i64: 1, 1>, epilogue = array<i64: 1, 2, 0, 0, 1, 0, 1, 0>, group = 1 : i64, node = "c", onnx_op = "Conv", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// SAVED with nothing saved; a Relu without its two floats.
func.func @f(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @below {{epilogue operation 0 [4, 2, 0, 0]: reads a value no earlier operation saved}}
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, epilogue = array<i64: 4, 2, 0, 0>, group = 1 : i64, node = "c", onnx_op = "Conv", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @f(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @below {{epilogue operation 0 [5, 0, 0, 0]: needs two epilogue floats from its index}}
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, epilogue = array<i64: 5, 0, 0, 0>, epilogue_floats = array<f32: 0.0>, group = 1 : i64, node = "c", onnx_op = "Conv", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @f(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @below {{epilogue operation 0 [8, 0, 0, 0]: unknown kind}}
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, epilogue = array<i64: 8, 0, 0, 0>, group = 1 : i64, node = "c", onnx_op = "Conv", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// A matrix product's epilogue has COLUMN operations, not CHANNEL or
// BATCHNORM ones (a convolution's), and runs on f32 only.
func.func @f(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %s: tensor<5xf32>) -> tensor<3x5xf32> {
  // expected-error @below {{epilogue operation 0 [2, 2, 0, 0]: is a convolution's kind}}
  %0 = kiln.gemm %a, %b epilogue(%s) {alpha = 1.0 : f32, beta = 1.0 : f32, epilogue = array<i64: 2, 2, 0, 0>, node = "g", onnx_op = "Gemm"} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @f(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>, %s: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @below {{epilogue operation 0 [9, 0, 0, 0]: is a matrix product's kind}}
  %0 = kiln.conv %x, %w epilogue(%s) {dilations = array<i64: 1, 1>, epilogue = array<i64: 9, 0, 0, 0>, group = 1 : i64, node = "c", onnx_op = "Conv", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// A per-column operand of the result's rows ([3]), not its columns.
func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>, %s: tensor<3xf32>) -> tensor<2x3x5xf32> {
  // expected-error @below {{epilogue operation 0 [9, 0, 0, 0]: needs an f32 epilogue input of the kind's shape}}
  %0 = kiln.batch_matmul %a, %b epilogue(%s) {epilogue = array<i64: 9, 0, 0, 0>, node = "m", onnx_op = "MatMul"} : (tensor<2x3x4xf32>, tensor<4x5xf32>, tensor<3xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// A 1-D B is one column, dropped from the result: its last axis is A's rows.
func.func @f(%a: tensor<3x4xf32>, %b: tensor<4xf32>, %s: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{epilogue operation 0 [9, 0, 0, 0]: needs an f32 epilogue input of the kind's shape}}
  %0 = kiln.batch_matmul %a, %b epilogue(%s) {epilogue = array<i64: 9, 0, 0, 0>, node = "m", onnx_op = "MatMul"} : (tensor<3x4xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @f(%a: tensor<3x4xi64>, %b: tensor<4x5xi64>) -> tensor<3x5xi64> {
  // expected-error @below {{has an epilogue but a 'i64' result (epilogues run on f32)}}
  %0 = kiln.batch_matmul %a, %b {epilogue = array<i64: 5, 0, 0, 0>, epilogue_floats = array<f32: 0.0, 0.0>, node = "m", onnx_op = "MatMul"} : (tensor<3x4xi64>, tensor<4x5xi64>) -> tensor<3x5xi64>
  return %0 : tensor<3x5xi64>
}

// -----

func.func @f(%a: tensor<3x4xf32>, %b: tensor<5x4xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{inner dimensions differ: A' is [3, 4], B' is [5, 4]}}
  %0 = kiln.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, node = "g", onnx_op = "Gemm"} : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3xf32>) -> tensor<3x5xf32> {
  // expected-error @below {{C 'tensor<3xf32>' does not broadcast to [3, 5]}}
  %0 = kiln.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, node = "g", onnx_op = "Gemm"} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<3xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @f(%a: tensor<3x4xf16>, %b: tensor<4x5xf16>) -> tensor<3x5xf16> {
  // expected-error @below {{must share one element type: f32, f64, i32, i64, ui32 or ui64}}
  %0 = kiln.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, node = "g", onnx_op = "Gemm"} : (tensor<3x4xf16>, tensor<4x5xf16>) -> tensor<3x5xf16>
  return %0 : tensor<3x5xf16>
}

// -----

func.func @f(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<5x3xf32> {
  // expected-error @below {{result 'tensor<5x3xf32>' must be [3, 5]}}
  %0 = kiln.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, node = "g", onnx_op = "Gemm", trans_a} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{operands 'tensor<2x3xf32>' and 'tensor<2xf32>' do not broadcast to the result 'tensor<2x3xf32>'}}
  %0 = kiln.binary %x, %b {kind = "add", node = "s", onnx_op = "Add"} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{unknown kind 'plus'}}
  %0 = kiln.binary %x, %b {kind = "plus", node = "s", onnx_op = "Add"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{result element type must be 'i1' for less}}
  %0 = kiln.binary %x, %b {kind = "less", node = "l", onnx_op = "Less"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %b: tensor<3xf64>) -> tensor<2x3xf32> {
  // expected-error @below {{operands have different element types ('f32' and 'f64')}}
  %0 = kiln.binary %x, %b {kind = "mul", node = "m", onnx_op = "Mul"} : (tensor<2x3xf32>, tensor<3xf64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  // expected-error @below {{element type 'f16' is not one the kernels compute on}}
  %0 = kiln.unary %x {alpha = 0.0 : f32, beta = 0.0 : f32, kind = "relu", node = "r", onnx_op = "Relu"} : tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{unknown kind 'swish'}}
  %0 = kiln.unary %x {alpha = 0.0 : f32, beta = 0.0 : f32, kind = "swish", node = "r", onnx_op = "Swish"} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %lo: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{min and max must be one-element tensors of 'f32', not 'tensor<2xf32>'}}
  %0 = kiln.clip %x min %lo {node = "c", onnx_op = "Clip"} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %v: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{scale, bias, mean and variance must be 'tensor<3xf32>', not 'tensor<2xf32>'}}
  %0 = kiln.batchnorm %x, %v, %v, %w, %v {epsilon = 0.001 : f32, node = "n", onnx_op = "BatchNormalization"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @below {{spatial dimension 0: the result has 3, but the window gives 2}}
  %0 = kiln.pool %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, kind = "max", node = "p", onnx_op = "MaxPool", pads = array<i64: 0, 0, 0, 0>, storage_order = 0 : i64, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @f(%x: tensor<1x2x6x6xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) {
  // expected-error @below {{has 2 results; average pooling has 1}}
  %0, %1 = kiln.pool %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, kind = "average", node = "p", onnx_op = "AveragePool", pads = array<i64: 0, 0, 0, 0>, storage_order = 0 : i64, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  return %0, %1 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>
}

// -----

func.func @f(%x: tensor<1x2x6x6xi32>) -> tensor<1x2x1x1xi32> {
  // expected-error @below {{max pooling of 'i32' (f32, f64; max also 8-bit integers)}}
  %0 = kiln.global_pool %x {kind = "max", node = "g", onnx_op = "GlobalMaxPool"} : (tensor<1x2x6x6xi32>) -> tensor<1x2x1x1xi32>
  return %0 : tensor<1x2x1x1xi32>
}

// -----

func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<5x4xf32>) -> tensor<2x3x5xf32> {
  // expected-error @below {{inner dimensions differ: A is}}
  %0 = kiln.batch_matmul %a, %b {node = "m", onnx_op = "MatMul"} : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) -> tensor<3x3x5xf32> {
  // expected-error @below {{batch dimensions of A}}
  %0 = kiln.batch_matmul %a, %b {node = "m", onnx_op = "MatMul"} : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<3x3x5xf32>
  return %0 : tensor<3x3x5xf32>
}

// -----

func.func @f(%a: tensor<4xf32>, %b: tensor<4x5xf32>) -> tensor<1x5xf32> {
  // expected-error @below {{result 'tensor<1x5xf32>' must have the shape [5]}}
  %0 = kiln.batch_matmul %a, %b {node = "m", onnx_op = "MatMul"} : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<1x5xf32>
  return %0 : tensor<1x5xf32>
}

// -----

func.func @f(%a: tensor<3x4xi8>, %b: tensor<4x5xi8>) -> tensor<3x5xi8> {
  // expected-error @below {{must share one element type: f32, f64, i32, i64, ui32 or ui64}}
  %0 = kiln.batch_matmul %a, %b {node = "m", onnx_op = "MatMul"} : (tensor<3x4xi8>, tensor<4x5xi8>) -> tensor<3x5xi8>
  return %0 : tensor<3x5xi8>
}

// -----

func.func @f(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // expected-error @below {{unknown kind 'softplus'}}
  %0 = kiln.softmax %x {axis = 1 : i64, kind = "softplus", node = "s", onnx_op = "Softmax"} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @f(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // expected-error @below {{axis 2 is not a dimension of a rank-2 input}}
  %0 = kiln.softmax %x {axis = 2 : i64, kind = "softmax", node = "s", onnx_op = "Softmax"} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @f(%x: tensor<2x5xi32>) -> tensor<2x5xi32> {
  // expected-error @below {{input must be f32 or f64, not 'i32'}}
  %0 = kiln.softmax %x {axis = 1 : i64, kind = "softmax", node = "s", onnx_op = "Softmax"} : tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}

// -----

func.func @f(%x: tensor<2x5x3xf32>, %s: tensor<3xf32>) -> tensor<2x5x3xf32> {
  // expected-error @below {{scale and bias must be 'f32' of the normalized shape [5, 3]}}
  %0, %1, %2 = kiln.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32, node = "ln", onnx_op = "LayerNormalization"} : (tensor<2x5x3xf32>, tensor<3xf32>) -> (tensor<2x5x3xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return %0 : tensor<2x5x3xf32>
}

// -----

func.func @f(%x: tensor<2x5x3xf32>, %s: tensor<3xf32>) -> tensor<2x5x3xf32> {
  // expected-error @below {{mean and inv_std_dev must be 'tensor<2x5x1xf32>'}}
  %0, %1, %2 = kiln.layer_norm %x, %s {axis = 2 : i64, epsilon = 1.0e-05 : f32, node = "ln", onnx_op = "LayerNormalization"} : (tensor<2x5x3xf32>, tensor<3xf32>) -> (tensor<2x5x3xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return %0 : tensor<2x5x3xf32>
}

// -----

func.func @f(%x: tensor<2x5x3xf32>, %s: tensor<3xf32>) -> tensor<2x5x3xf32> {
  // expected-error @below {{scale and bias must be 'tensor<5xf32>'}}
  %0 = kiln.instance_norm %x, %s, %s {epsilon = 1.0e-05 : f32, node = "in", onnx_op = "InstanceNormalization"} : (tensor<2x5x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

func.func @f(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // expected-error @below {{needs rank 3 or more (N, C, spatial...)}}
  %0 = kiln.lrn %x {alpha = 1.0e-04 : f32, beta = 0.75 : f32, bias = 1.0 : f32, node = "l", onnx_op = "LRN", size = 3 : i64} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @f(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  // expected-error @below {{size must be positive, not 0}}
  %0 = kiln.lrn %x {alpha = 1.0e-04 : f32, beta = 0.75 : f32, bias = 1.0 : f32, node = "l", onnx_op = "LRN", size = 0 : i64} : tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

func.func @f(%x: tensor<2x5x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{axes [1, 1] must be ascending dimensions of a rank-3 input}}
  %0 = kiln.reduce %x {axes = array<i64: 1, 1>, keepdims = false, kind = "sum", node = "r", onnx_op = "ReduceSum"} : (tensor<2x5x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x5x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{result must be 'tensor<2x1x3xf32>', not 'tensor<2x3xf32>'}}
  %0 = kiln.reduce %x {axes = array<i64: 1>, keepdims = true, kind = "sum", node = "r", onnx_op = "ReduceSum"} : (tensor<2x5x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x5x3xi32>) -> tensor<2x3xi32> {
  // expected-error @below {{element type 'i32' is not one log_sum_exp reduces}}
  %0 = kiln.reduce %x {axes = array<i64: 1>, keepdims = false, kind = "log_sum_exp", node = "r", onnx_op = "ReduceLogSumExp"} : (tensor<2x5x3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @f(%x: tensor<2x5x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{unknown kind 'median'}}
  %0 = kiln.reduce %x {axes = array<i64: 1>, keepdims = false, kind = "median", node = "r", onnx_op = "ReduceSum"} : (tensor<2x5x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x5x3xf32>) -> tensor<2x3xi64> {
  // expected-error @below {{kind must be "max" or "min", not 'mean'}}
  %0 = kiln.arg_reduce %x {axis = 1 : i64, keepdims = false, kind = "mean", node = "a", onnx_op = "ArgMax", select_last_index = false} : (tensor<2x5x3xf32>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

func.func @f(%x: tensor<2x5x3xf32>) -> tensor<2x3xi32> {
  // expected-error @below {{result must be 'tensor<2x3xi64>', not 'tensor<2x3xi32>'}}
  %0 = kiln.arg_reduce %x {axis = 1 : i64, keepdims = false, kind = "max", node = "a", onnx_op = "ArgMax", select_last_index = false} : (tensor<2x5x3xf32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @f(%x: tensor<2x0x3xf32>) -> tensor<2x3xi64> {
  // expected-error @below {{axis 1 is empty}}
  %0 = kiln.arg_reduce %x {axis = 1 : i64, keepdims = false, kind = "max", node = "a", onnx_op = "ArgMax", select_last_index = false} : (tensor<2x0x3xf32>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

func.func @f(%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @below {{spatial dimension 0: the result has 7, but input 3, kernel 3, stride 2, dilation 1, output_padding 1 and pads 0 + 0 give 8}}
  %0 = kiln.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, node = "ct", onnx_op = "ConvTranspose", output_padding = array<i64: 1, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %0 : tensor<1x2x7x7xf32>
}

// -----

func.func @f(%x: tensor<1x4x3x3xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @below {{group 1 does not fit input 'tensor<1x4x3x3xf32>' and filter 'tensor<2x2x3x3xf32>'}}
  %0 = kiln.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, node = "ct", onnx_op = "ConvTranspose", output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %0 : tensor<1x2x7x7xf32>
}

// -----

func.func @f(%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @below {{strides and dilations must be positive and output_padding not negative}}
  %0 = kiln.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, node = "ct", onnx_op = "ConvTranspose", output_padding = array<i64: -1, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %0 : tensor<1x2x7x7xf32>
}

// -----

func.func @f(%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x3x3xf32>, %s: tensor<3xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @below {{epilogue operation 0 [2, 2, 0, 0]: needs an f32 epilogue input of the kind's shape}}
  %0 = kiln.conv_transpose %x, %w epilogue(%s) {dilations = array<i64: 1, 1>, epilogue = array<i64: 2, 2, 0, 0>, group = 1 : i64, node = "ct", onnx_op = "ConvTranspose", output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>, tensor<3xf32>) -> tensor<1x2x7x7xf32>
  return %0 : tensor<1x2x7x7xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x1xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{input 1 'tensor<3x1xf32>' does not match 'tensor<2x4xf32>' off axis 1}}
  %0 = kiln.concat %a, %b {axis = 1 : i64, node = "c", onnx_op = "Concat"} : (tensor<2x3xf32>, tensor<3x1xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<2x5xf32> {
  // expected-error @below {{the inputs' sizes along axis 1 add up to 4, not 5}}
  %0 = kiln.concat %a, %b {axis = 1 : i64, node = "c", onnx_op = "Concat"} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{axis 2 is not a dimension of a rank-2 input}}
  %0 = kiln.concat %a {axis = 2 : i64, node = "c", onnx_op = "Concat"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x1xf32> {
  // expected-error @below {{the results' sizes along axis 1 add up to 3, not 4}}
  %0, %1 = kiln.split %x {axis = 1 : i64, node = "s", onnx_op = "Split"} : (tensor<2x4xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>)
  return %0 : tensor<2x1xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x1xf32> {
  // expected-error @below {{result 1 'tensor<2x3xi32>' does not match 'tensor<2x4xf32>' off axis 1}}
  %0, %1 = kiln.split %x {axis = 1 : i64, node = "s", onnx_op = "Split"} : (tensor<2x4xf32>) -> (tensor<2x1xf32>, tensor<2x3xi32>)
  return %0 : tensor<2x1xf32>
}

// -----

func.func @f(%x: tensor<5x3xf32>, %i: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{indices must be i32 or i64, not 'f32'}}
  %0 = kiln.gather %x, %i {axis = 0 : i64, node = "g", onnx_op = "Gather"} : (tensor<5x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<5x3xf32> {
  // expected-error @below {{result must be 'tensor<5x2xf32>', not 'tensor<5x3xf32>'}}
  %0 = kiln.gather %x, %i {axis = 1 : i64, node = "g", onnx_op = "Gather"} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @f(%c: tensor<2x1xi1>, %x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{do not broadcast to the result}}
  %0 = kiln.where %c, %x, %y {node = "w", onnx_op = "Where"} : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%c: tensor<2x1xi8>, %x: tensor<2x3xf32>, %y: tensor<f32>) -> tensor<2x3xf32> {
  // expected-error @below {{condition must be i1, not 'i8'}}
  %0 = kiln.where %c, %x, %y {node = "w", onnx_op = "Where"} : (tensor<2x1xi8>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<2x2xi64> {
  // expected-error @below {{result 'tensor<2x2xi64>' must have the input's shape}}
  %0 = kiln.cast %x {node = "k", onnx_op = "Cast"} : (tensor<4xf32>) -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xbf16> {
  // expected-error @below {{casts between f32, f64, f16, integers and i1, not 'f32' to 'bf16'}}
  %0 = kiln.cast %x {node = "k", onnx_op = "Cast"} : (tensor<4xf32>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @below {{reads elements 1 to 6 of an input of 6}}
  %0 = kiln.strided_copy %x {node = "t", offset = 1 : i64, onnx_op = "Transpose", shape = array<i64: 3, 2>, strides = array<i64: 1, 3>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @below {{reads elements -1 to 3 of an input of 6}}
  %0 = kiln.strided_copy %x {node = "t", offset = 1 : i64, onnx_op = "Slice", shape = array<i64: 3, 2>, strides = array<i64: -1, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @below {{shape [3, 3] walks 9 elements; the result has 6}}
  %0 = kiln.strided_copy %x {node = "t", offset = 0 : i64, onnx_op = "Expand", shape = array<i64: 3, 3>, strides = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @below {{reads elements past 64 bits of an input of 6}}
  %0 = kiln.strided_copy %x {node = "t", offset = 0 : i64, onnx_op = "Expand", shape = array<i64: 3, 2>, strides = array<i64: 4611686018427387904, 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  // expected-error @below {{indices 'tensor<3x2xi64>' do not fit input 'tensor<2x3xf32>' off axis 1}}
  %0 = kiln.gather_elements %x, %i {axis = 1 : i64, node = "g", onnx_op = "GatherElements"} : (tensor<2x3xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x3xf32> {
  // expected-error @below {{result must be 'tensor<2x2xf32>'}}
  %0 = kiln.gather_elements %x, %i {axis = 1 : i64, node = "g", onnx_op = "GatherElements"} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xi1>, %i: tensor<2x2xi64>, %u: tensor<2x2xi1>) -> tensor<2x3xi1> {
  // expected-error @below {{reduction add does not compute on 'i1'}}
  %0 = kiln.scatter_elements %x, %i, %u {axis = 1 : i64, node = "s", onnx_op = "ScatterElements", reduction = "add"} : (tensor<2x3xi1>, tensor<2x2xi64>, tensor<2x2xi1>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{unknown reduction 'sum'}}
  %0 = kiln.scatter_elements %x, %i, %u {axis = 1 : i64, node = "s", onnx_op = "ScatterElements", reduction = "sum"} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2x1xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{updates must be 'tensor<2x2xf32>'}}
  %0 = kiln.scatter_elements %x, %i, %u {axis = 1 : i64, node = "s", onnx_op = "ScatterElements", reduction = "none"} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<4x3xi64>) -> tensor<4xf32> {
  // expected-error @below {{indices 'tensor<4x3xi64>' do not hold tuples of 1 to 2 coordinates}}
  %0 = kiln.gather_nd %x, %i {batch_dims = 0 : i64, node = "g", onnx_op = "GatherND"} : (tensor<2x3xf32>, tensor<4x3xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<4x1xi32>) -> tensor<4x3xf32> {
  // expected-error @below {{indices must be i64, not 'i32'}}
  %0 = kiln.gather_nd %x, %i {batch_dims = 0 : i64, node = "g", onnx_op = "GatherND"} : (tensor<2x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<3x1xi64>) -> tensor<3xf32> {
  // expected-error @below {{input 'tensor<2x3xf32>' and indices 'tensor<3x1xi64>' differ in their batch dimensions}}
  %0 = kiln.gather_nd %x, %i {batch_dims = 1 : i64, node = "g", onnx_op = "GatherND"} : (tensor<2x3xf32>, tensor<3x1xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<4x1xi64>, %u: tensor<4x2xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{updates must be 'tensor<4x3xf32>'}}
  %0 = kiln.scatter_nd %x, %i, %u {node = "s", onnx_op = "ScatterND", reduction = "none"} : (tensor<2x3xf32>, tensor<4x1xi64>, tensor<4x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xi1>) -> tensor<2x3xi1> {
  // expected-error @below {{element type 'i1' is not a number type}}
  %0 = kiln.cumsum %x {axis = 0 : i64, exclusive = false, node = "c", onnx_op = "CumSum", reverse = false} : tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{dimension 1: the result has 4, not 3 + 0 + 2}}
  %0 = kiln.pad %x {mode = "constant", node = "p", onnx_op = "Pad", pads = array<i64: 1, 0, 0, 2>} : (tensor<2x3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{unknown mode 'wrap'}}
  %0 = kiln.pad %x {mode = "wrap", node = "p", onnx_op = "Pad", pads = array<i64: 0, 0, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x0xf32>) -> tensor<2x2xf32> {
  // expected-error @below {{cannot pad an empty dimension in reflect mode}}
  %0 = kiln.pad %x {mode = "reflect", node = "p", onnx_op = "Pad", pads = array<i64: 0, 1, 0, 1>} : (tensor<2x0xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %v: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{value must be one element of 'f32'}}
  %0 = kiln.pad %x value %v {mode = "constant", node = "p", onnx_op = "Pad", pads = array<i64: 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<3x2xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{must differ only along axis 1}}
  %0 = kiln.resize_axis %x {axis = 1 : i64, extrapolation_value = 0.0 : f32, indices = array<i64: 0, 0, 1>, node = "r", onnx_op = "Resize", taps = 1 : i64, weights = array<f32: 1.0, 1.0, 1.0>} : (tensor<3x2xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @f(%x: tensor<3x2xf32>) -> tensor<3x3xf32> {
  // expected-error @below {{taps must be 1, 2 or 4, not 3}}
  %0 = kiln.resize_axis %x {axis = 1 : i64, extrapolation_value = 0.0 : f32, indices = array<i64: 0, 0, 0, 1, 1, 1, 1, 1, 1>, node = "r", onnx_op = "Resize", taps = 3 : i64, weights = array<f32: 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0>} : (tensor<3x2xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @f(%x: tensor<3x2xi32>) -> tensor<3x3xi32> {
  // expected-error @below {{element type 'i32' cannot be interpolated (f32 or f64 only)}}
  %0 = kiln.resize_axis %x {axis = 1 : i64, extrapolation_value = 0.0 : f32, indices = array<i64: 0, 1, 0, 1, 0, 1>, node = "r", onnx_op = "Resize", taps = 2 : i64, weights = array<f32: 1.0, 0.0, 1.0, 0.0, 1.0, 0.0>} : (tensor<3x2xi32>) -> tensor<3x3xi32>
  return %0 : tensor<3x3xi32>
}

// -----

func.func @f(%x: tensor<3x2xf32>) -> tensor<3x3xf32> {
  // expected-error @below {{indices and weights must hold 3 x 1 entries (result positions x taps), not 3 and 2}}
  %0 = kiln.resize_axis %x {axis = 1 : i64, extrapolation_value = 0.0 : f32, indices = array<i64: 0, 0, 1>, node = "r", onnx_op = "Resize", taps = 1 : i64, weights = array<f32: 1.0, 1.0>} : (tensor<3x2xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @f(%x: tensor<3x2xf32>) -> tensor<3x3xf32> {
  // expected-error @below {{position 1 reads [2]: each index must lie in [0, 2), or all be -1 (extrapolated)}}
  %0 = kiln.resize_axis %x {axis = 1 : i64, extrapolation_value = 0.0 : f32, indices = array<i64: 0, 2, 1>, node = "r", onnx_op = "Resize", taps = 1 : i64, weights = array<f32: 1.0, 1.0, 1.0>} : (tensor<3x2xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @f(%x: tensor<3x2xf32>) -> tensor<3x3xf32> {
  // expected-error @below {{position 0 reads [-1, 1]: each index must lie in [0, 2), or all be -1 (extrapolated)}}
  %0 = kiln.resize_axis %x {axis = 1 : i64, extrapolation_value = 0.0 : f32, indices = array<i64: -1, 1, 0, 1, 0, 1>, node = "r", onnx_op = "Resize", taps = 2 : i64, weights = array<f32: 1.0, 0.0, 1.0, 0.0, 1.0, 0.0>} : (tensor<3x2xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{input 'tensor<4xf32>' must have rank 2 or more}}
  %0 = kiln.trilu %x {k = 0 : i64, node = "t", onnx_op = "Trilu", upper = true} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%i: tensor<3xi64>, %v: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{values must hold two elements (off, on), not 'tensor<3xf32>'}}
  %0 = kiln.one_hot %i, %v {axis = 1 : i64, depth = 4 : i64, node = "o", onnx_op = "OneHot"} : (tensor<3xi64>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%i: tensor<3xi64>, %v: tensor<2xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{depth must be positive, not -4}}
  %0 = kiln.one_hot %i, %v {axis = 1 : i64, depth = -4 : i64, node = "o", onnx_op = "OneHot"} : (tensor<3xi64>, tensor<2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%i: tensor<3xi64>, %v: tensor<2xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{result must be 'tensor<3x4xf32>'}}
  %0 = kiln.one_hot %i, %v {axis = 1 : i64, depth = 4 : i64, node = "o", onnx_op = "OneHot"} : (tensor<3xi64>, tensor<2xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @f(%i: tensor<3xi64>, %v: tensor<2xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{axis 2 is not a dimension of a rank-2 input}}
  %0 = kiln.one_hot %i, %v {axis = 2 : i64, depth = 4 : i64, node = "o", onnx_op = "OneHot"} : (tensor<3xi64>, tensor<2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
