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
