//===- TensorSource.h - a model file's tensors, by name -------------------===//
//
// What the weight store reads a model file through: each tensor's GGML type,
// dimensions and bytes. gguf::File is one; the store needs nothing else of
// the file format.
//
#ifndef KILN_SUPPORT_TENSORSOURCE_H
#define KILN_SUPPORT_TENSORSOURCE_H

#include "compiler/support/Quant.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {
namespace gguf {
/// One tensor of a model file.
struct TensorInfo {
  std::string name;
  std::vector<uint64_t> dims; // GGUF order: dims[0] is innermost (contiguous)
  GGMLType type = GGMLType::F32;
  uint64_t offset = 0;     // relative to the start of the data section
  uint64_t fileOffset = 0; // absolute
  uint64_t numElements = 0, numBytes = 0;
  const uint8_t *data =
      nullptr; // points into the mapped file / caller's buffer
};
} // namespace gguf

class TensorSource {
public:
  virtual ~TensorSource() = default;
  /// nullptr if there is no tensor with that name.
  virtual const gguf::TensorInfo *tensor(const std::string &name) const = 0;
  /// The file, for messages.
  virtual const std::string &path() const = 0;
};
} // namespace kiln

#endif
