// RUN: kiln-opt %s -split-input-file --kiln-plan-memory -verify-diagnostics

// expected-error @below {{kiln-plan-memory needs a positive max-batch option or module attribute kiln.max_batch}}
func.func @f(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  return %x : tensor<?x64xf32>
}

// -----

module attributes {kiln.max_batch = 1 : i64} {
  func.func @f(%q: tensor<?x64xf32>) -> tensor<?x64xf32> {
    // expected-error @below {{needs module attribute kiln.context_length to size its score scratch}}
    %a = kiln.attention %q, %q, %q {layer = 0 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64, head_dim = 16 : i64} : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x64xf32>
    return %a : tensor<?x64xf32>
  }
}

// -----

// An arena beyond 2^40 bytes (4096 rows of 2^28 floats) is refused.
module attributes {kiln.max_batch = 4096 : i64} {
  // expected-error @below {{the activation arena would take 4398046511104 bytes, more than 1099511627776 (kiln.max_tensor_bytes, kilnc --max-tensor-bytes)}}
  func.func @huge(%x: tensor<?x268435456xf32>) -> tensor<?x268435456xf32> {
    %y = kiln.add %x, %x : tensor<?x268435456xf32>
    return %y : tensor<?x268435456xf32>
  }
}

// -----

// The module's kiln.max_tensor_bytes (kilnc --max-tensor-bytes) lowers the
// ceiling: 4 rows of 256 floats take 4096 bytes.
module attributes {kiln.max_batch = 4 : i64, kiln.max_tensor_bytes = 4000 : i64} {
  // expected-error @below {{the activation arena would take 4096 bytes, more than 4000 (kiln.max_tensor_bytes, kilnc --max-tensor-bytes)}}
  func.func @small(%x: tensor<?x256xf32>) -> tensor<?x256xf32> {
    %y = kiln.add %x, %x : tensor<?x256xf32>
    return %y : tensor<?x256xf32>
  }
}

// -----

// A typed graph op has no kernel call (nor scratch size) before
// kiln-select-kernels lowers it.
module attributes {kiln.max_batch = 1 : i64} {
  func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    // expected-error @below {{has no kernel call yet: run kiln-select-kernels before kiln-plan-memory}}
    %u = kiln.unary %x {alpha = 0.0 : f32, beta = 0.0 : f32, kind = "relu", node = "r", onnx_op = "Relu"} : tensor<2x3xf32>
    return %u : tensor<2x3xf32>
  }
}
