//===- Embedded.cpp - looking up the source files compiled into kilnc ------===//
#include "kernels/Embedded.h"

#include <cstdio>
#include <cstdlib>

std::string kiln::embeddedSource(const std::string &name) {
  for (size_t i = 0; i < kEmbeddedSources_count; ++i)
    if (name == kEmbeddedSources[i].name)
      return std::string(kEmbeddedSources[i].text, kEmbeddedSources[i].size);
  fprintf(stderr, "kiln internal error: no embedded source '%s'\n",
          name.c_str());
  abort();
}
