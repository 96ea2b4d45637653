//===- EpilogueLoops.h - a tensor kernel's epilogue as generated loops ---===//
//
// The epilogue interpreter (kiln_epilogue_f32) makes one pass over a block
// per operation: a nine-operation chain (an affine, HardSwish spelled out,
// another affine) loads and stores each element nine times. The graph
// emitter compiles each run of at least two operations it can write as C
// into one loop of the model's source, reached through a KILN_EP_CALL
// operation (kiln_tensor.h). The loop repeats the kernels' own element
// expressions (KILN_EX_* in kiln_tensor.h), so the results keep their bits.
//
#ifndef KILN_CODEGEN_EPILOGUELOOPS_H
#define KILN_CODEGEN_EPILOGUELOOPS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace kiln {

/// For a call of `kernel` with `nIn` inputs whose parameters are `params`:
/// if its epilogue has runs to compile, inserts a KILN_EP_CALL before each in
/// `params` (its input index nIn, nIn + 1, ...), appends the C function of
/// each to `code`, named `name`_ep<k> with k counted by `next`, and returns
/// the k of each in input order (the caller passes them as extra inputs).
llvm::SmallVector<int64_t> emitEpilogueLoops(llvm::StringRef kernel,
                                             llvm::SmallVectorImpl<int64_t> &params,
                                             int64_t nIn, llvm::StringRef name,
                                             int64_t &next, std::string &code);

} // namespace kiln

#endif
