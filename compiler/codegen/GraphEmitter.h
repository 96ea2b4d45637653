//===- GraphEmitter.h - the library of a graph model (ONNX) ---------------===//
#ifndef KILN_CODEGEN_GRAPHEMITTER_H
#define KILN_CODEGEN_GRAPHEMITTER_H

#include "compiler/codegen/Emitter.h"
#include "compiler/targets/Target.h"

namespace kiln {
/// The C source, header and weight blob of a planned graph module (module
/// attribute kiln.graph, function @run). The blob's file (embedded or
/// external) is left to the caller, as for language models.
bool generateGraphSources(mlir::ModuleOp module,
                          const ModuleOptions &opts, const Target &target,
                          LibrarySources &out, std::string &error);
} // namespace kiln

#endif
