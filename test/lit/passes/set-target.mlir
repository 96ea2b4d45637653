// kiln-set-target records the target in the module, resolved as kilnc
// resolves it; kiln-select-kernels reads it from there and nowhere else.
// RUN: kiln-opt %s --kiln-set-target="target=neon" | FileCheck %s --check-prefix=NEON
// RUN: kiln-opt %s --kiln-set-target="target=sve sve-bits=256" | FileCheck %s --check-prefix=SVE
// RUN: kiln-opt %s --kiln-set-target="target=rvv cpu=rv64gv" | FileCheck %s --check-prefix=RVV
// RUN: kiln-opt %s --kiln-set-target="target=x86 cpu=host" | FileCheck %s --check-prefix=HOST
// RUN: kiln-opt %s --kiln-set-target | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt %s --kiln-set-target="target=hvx" | kiln-opt | FileCheck %s --check-prefix=ROUNDTRIP
// NEON: module attributes {kiln.target = #kiln.target<isa = "neon", cpu = "dotprod">}
// SVE: module attributes {kiln.target = #kiln.target<isa = "sve", sve_bits = 256>}
// RVV: module attributes {kiln.target = #kiln.target<isa = "rvv", cpu = "rv64gv">}
// HOST: module attributes {kiln.target = #kiln.target<isa = "x86", cpu = "{{avx2|avx512vnni}}">}
// GENERIC: module attributes {kiln.target = #kiln.target<isa = "generic">}
// ROUNDTRIP: module attributes {kiln.target = #kiln.target<isa = "hvx", cpu = "v67">}

// A target written by hand is what kernel selection follows.
// RUN: not kiln-opt %s -split-input-file --kiln-select-kernels > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=SELECT < %t.out
// RUN: FileCheck %s --check-prefix=ERRORS < %t.err
// SELECT: kiln.matmul {{.*}}kiln.kernel = "matmul_q4_0_q8_0_4x16_avx512vnni"
// ERRORS: error: kiln-select-kernels: the module has no kiln.target (kilnc records it; in kiln-opt, run --kiln-set-target first)
// ERRORS: error: kiln-select-kernels: kiln.target x86: --cpu=i386 is not valid for --target=x86

kiln.weight @w : tensor<64x256x!kiln.q4_0> {source = "w"}
func.func @f(%x: tensor<?x256xf32>) -> tensor<?x64xf32> {
  %y = kiln.matmul %x, @w : tensor<?x256xf32> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

module attributes {kiln.target = #kiln.target<isa = "x86", cpu = "avx512vnni">} {
  kiln.weight @w : tensor<64x256x!kiln.q4_0> {source = "w"}
  func.func @f(%x: tensor<?x256xf32>) -> tensor<?x64xf32> {
    %y = kiln.matmul %x, @w : tensor<?x256xf32> -> tensor<?x64xf32>
    return %y : tensor<?x64xf32>
  }
}

// -----

module attributes {kiln.target = #kiln.target<isa = "x86", cpu = "i386">} {
  kiln.weight @w : tensor<64x256x!kiln.q4_0> {source = "w"}
}
