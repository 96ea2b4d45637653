//===- gguf_reader_fuzzer.cpp - libFuzzer target for the GGUF reader ------===//
//
// Parses arbitrary bytes with kiln::gguf::File::fromBuffer. If the input is
// accepted, every metadata value is walked and every tensor's data is
// dequantized into a bounded scratch buffer (tensors above kMaxElements
// elements are skipped), so that out-of-bounds tensor data or inconsistent
// sizes are caught by ASan.
//
// Build:
//   clang++-16 -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined \
//     -I<repo> test/fuzz/gguf_reader_fuzzer.cpp \
//     compiler/frontend/gguf/{GGUF,GGUFWriter}.cpp compiler/support/Quant.cpp \
//     -o gguf_reader_fuzzer
// Run:
//   ./gguf_reader_fuzzer -max_total_time=60 test/fuzz/corpus
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/gguf/GGUF.h"
#include "compiler/support/Quant.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr uint64_t kMaxElements = uint64_t(1) << 20;

// Walk a value so that every parsed field is read (and sanity-checked).
uint64_t touch(const kiln::gguf::Value &v) {
  uint64_t h = static_cast<uint64_t>(v.type) + v.u +
               static_cast<uint64_t>(v.i) + v.s.size() + (v.b ? 1 : 0);
  if (!v.s.empty())
    h += static_cast<unsigned char>(v.s.front()) +
         static_cast<unsigned char>(v.s.back());
  for (const kiln::gguf::Value &e : v.arr) {
    if (e.type != v.elemType)
      std::abort(); // the parser must produce homogeneous arrays
    h += touch(e);
  }
  return h;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string error;
  auto file = kiln::gguf::File::fromBuffer(data, size, "fuzz.gguf", error);
  if (!file) {
    // Every rejection must carry a positioned message.
    if (error.rfind("fuzz.gguf: at byte offset ", 0) != 0)
      std::abort();
    return 0;
  }

  volatile uint64_t sink = 0;
  for (const auto &kv : file->metadata()) {
    sink = sink + kv.first.size() + touch(kv.second);
    if (file->find(kv.first) != &kv.second)
      std::abort();
    (void)file->getUInt(kv.first);
    (void)file->getFloat(kv.first);
    (void)file->getString(kv.first);
  }

  static std::vector<float> scratch(kMaxElements);
  for (const kiln::gguf::TensorInfo &t : file->tensors()) {
    if (file->tensor(t.name) != &t)
      std::abort();
    const kiln::gguf::TypeTraits *tt =
        kiln::gguf::typeTraits(static_cast<uint32_t>(t.type));
    if (!tt || t.dims.empty() || t.dims.size() > 4 || t.data == nullptr ||
        t.fileOffset + t.numBytes > size ||
        t.numElements % tt->blockSize != 0 ||
        t.numBytes !=
            kiln::gguf::rowBytes(t.type, static_cast<int64_t>(t.numElements)))
      std::abort();
    if (t.numElements > kMaxElements)
      continue;
    kiln::gguf::dequantize(t.type, t.data, scratch.data(),
                           static_cast<int64_t>(t.numElements));
    float acc = 0;
    for (uint64_t i = 0; i < t.numElements; ++i)
      acc += scratch[i];
    sink = sink + (std::isnan(acc) ? 1 : 0);
  }
  return 0;
}
