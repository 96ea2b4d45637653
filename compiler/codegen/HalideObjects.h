//===- HalideObjects.h - Halide pipelines compiled into a library ---------===//
//
// A graph call that kiln-select-kernels gave to Halide (kiln.tensor_op
// "halide_sgemm") runs a pipeline of kernels/halide compiled for its shape
// and target. kiln-halide-gen compiles it in its own process (Halide 14
// brings LLVM 14; kilnc is on 16); here its object is renamed into the
// model's namespace, its references to Halide's runtime are pointed at the
// hooks Kiln's runtime serves (runtime/src/kiln_halide.c), and it is
// checked to need nothing else.
//
#ifndef KILN_CODEGEN_HALIDEOBJECTS_H
#define KILN_CODEGEN_HALIDEOBJECTS_H

#include <string>
#include <vector>

namespace kiln {
/// One pipeline a library links: the function `symbol` (int symbol(
/// halide_buffer_t *...), model-prefixed), built from `kernel` ("sgemm") for
/// `shape` ("M,N,K") and `isa` (kilnc's target name).
struct HalideObject {
  std::string symbol, kernel, shape, isa;
  std::string file() const { return symbol + ".o"; }
};

/// kiln-halide-gen: $KILN_HALIDE_GEN if set, else the one beside the running
/// program (kilnc, kiln-run, kiln-conformance are built and installed
/// together), else the first on PATH. Empty if none exists.
std::string findHalideGen();

/// Writes `dir`/`o.file()`: runs kiln-halide-gen, renames the runtime
/// symbols its object references to Kiln's hooks (kiln_halide_*), and checks
/// that every symbol it still leaves undefined is one of them. False with
/// `error` naming the step that failed.
bool buildHalideObject(const HalideObject &o, const std::string &dir,
                       std::string &error);
} // namespace kiln

#endif
