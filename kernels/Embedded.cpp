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

std::string kiln::kernelUnit(const std::vector<std::string> &files) {
  static const std::string include = "#include \"kiln_kernels.h\"\n";
  std::string unit = embeddedSource("kiln_kernels.h");
  for (const std::string &f : files) {
    std::string text = embeddedSource(f);
    size_t at = text.find(include);
    if (at == std::string::npos) {
      fprintf(stderr, "kiln internal error: %s does not include kiln_kernels.h\n",
              f.c_str());
      abort();
    }
    text.replace(at, include.size(), "/* " + f + " */\n");
    unit += "\n" + text;
  }
  return unit;
}
