//===- gguf_import_fuzzer.cpp - libFuzzer target for the GGUF importer ----===//
//
// Parses arbitrary bytes as a GGUF file and, when the reader accepts them,
// imports the model: every semantic check after the reader (architecture,
// hyperparameters, key rules, tensor names, shapes and types against the
// architecture) and the IR it builds. Seeds are tiny models of each
// architecture (test/fuzz/gguf-import-corpus, from kiln-fixture), so
// mutations land on metadata values and tensor shapes as often as on the
// framing. Run with ASan and UBSan; a finding is a crash, a sanitizer
// report, a hang, an allocation over -malloc_limit_mb, or a rejection
// without a message naming the file.
//
// ctest runs it briefly (fuzz-gguf-import); scripts/fuzz.sh runs it long.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/KilnDialect.h"
#include "compiler/frontend/gguf/GGUF.h"
#include "compiler/frontend/gguf/Import.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext *ctx = [] {
    auto *c = new mlir::MLIRContext();
    c->loadDialect<kiln::KilnDialect, mlir::func::FuncDialect>();
    return c;
  }();
  std::string error;
  auto file = kiln::gguf::File::fromBuffer(data, size, "fuzz.gguf", error);
  if (!file)
    return 0;
  auto module = kiln::importGGUF(*ctx, *file, error);
  if (!module && error.rfind("fuzz.gguf: ", 0) != 0)
    std::abort(); // every rejection names the file
  return 0;
}
