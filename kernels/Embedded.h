//===- Embedded.h - source files compiled into kilnc ----------------------===//
//
// The runtime and the portable kernels are part of every library kilnc writes;
// embedding their text keeps an installed kilnc independent of a source tree.
//
#ifndef KILN_KERNELS_EMBEDDED_H
#define KILN_KERNELS_EMBEDDED_H

#include <cstddef>
#include <string>
#include <vector>

namespace kiln {
struct EmbeddedFile {
  const char *name; // file name without directories, e.g. "kiln_runtime.c"
  const char *text;
  size_t size;
};
/// The runtime's sources and the kernels of language models.
extern const EmbeddedFile kEmbeddedSources[];
extern const size_t kEmbeddedSources_count;
/// The tensor kernels of graph models (kernels/tensor/).
extern const EmbeddedFile kTensorKernelSources[];
extern const size_t kTensorKernelSources_count;

/// The text of embedded file `name`; aborts if it does not exist (a build bug).
std::string embeddedSource(const std::string &name);
/// Kernel sources `files` as one C unit: kiln_kernels.h, then each file
/// without its include of that header (kernels/common/kiln_kernels.h).
std::string kernelUnit(const std::vector<std::string> &files);
} // namespace kiln

#endif
