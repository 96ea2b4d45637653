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
