//===- kiln-halide-gen.cpp - Kiln's Halide pipelines, ahead of time -------===//
//
// Compiles one pipeline of kernels/halide for one shape and one ISA to an
// object or assembly: the measurements of docs/kernels.md ("Graph kernels:
// hand-written and Halide") and test/kernels/HalideTest.cpp use it. A
// separate program because Halide 14 carries LLVM 14 and kilnc LLVM 16.
//
#include "kernels/halide/Pipelines.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace kiln::halide;

namespace {
void usage(FILE *f) {
  std::fprintf(
      f,
      "usage: kiln-halide-gen --kernel=K --shape=... --target=T -o FILE "
      "[options]\n"
      "  --kernel=sgemm      C = A x B, f32, row-major; --shape=M,N,K\n"
      "  --kernel=depthwise  one channel per group, zero-padded input;\n"
      "                      --shape=C,OH,OW,KERNEL,STRIDE (output size)\n"
      "  --target=x86|neon|hvx  (x86: AVX2 and FMA; hvx: 128-byte HVX, f32\n"
      "                      as scalar Hexagon code: Halide 14 has no float HVX)\n"
      "  --emit=object|assembly  what FILE holds (default object)\n"
      "  --name=SYMBOL       the function's name (default the kernel's)\n"
      "  --tile=RxC          sgemm register tile (default per ISA: x86 6x16,\n"
      "                      neon 6x16, hvx 4x4)\n"
      "  -o FILE             output\n"
      "The function is int NAME(halide_buffer_t *, ...) of HalideRuntime.h,\n"
      "arguments (A, B, C) or (in, w, out), bounds fixed to the shape; the\n"
      "object needs no Halide runtime.\n");
}

[[noreturn]] void fail(const std::string &msg) {
  std::fprintf(stderr, "kiln-halide-gen: error: %s\n", msg.c_str());
  std::exit(1);
}

bool parseInts(const std::string &text, std::vector<int> &out) {
  out.clear();
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string part = text.substr(pos, comma == std::string::npos
                                            ? std::string::npos
                                            : comma - pos);
    char *end = nullptr;
    errno = 0;
    long v = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end || errno || v < 0 || v > 0x7fffffff)
      return false;
    out.push_back((int)v);
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return true;
}
} // namespace

int main(int argc, char **argv) {
  std::string kernel, shapeText, targetName, emit = "object", name, out,
                                                  tileText;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag, std::string &dst) {
      size_t n = std::strlen(flag);
      if (a.compare(0, n, flag) == 0 && a.size() > n && a[n] == '=') {
        dst = a.substr(n + 1);
        return true;
      }
      return false;
    };
    if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else if (a == "-o") {
      if (i + 1 >= argc)
        fail("-o needs a file name");
      out = argv[++i];
    } else if (value("--kernel", kernel) || value("--shape", shapeText) ||
               value("--target", targetName) || value("--emit", emit) ||
               value("--name", name) || value("--tile", tileText)) {
    } else {
      usage(stderr);
      fail("unknown argument '" + a + "'");
    }
  }
  if (kernel.empty() || shapeText.empty() || targetName.empty() || out.empty()) {
    usage(stderr);
    fail("--kernel, --shape, --target and -o are required");
  }
  Isa isa;
  if (!parseIsa(targetName, isa))
    fail("unknown --target '" + targetName +
         "' (Halide pipelines exist for x86, neon and hvx)");
  if (emit != "object" && emit != "assembly")
    fail("unknown --emit '" + emit + "' (object or assembly)");
  std::vector<int> dims;
  if (!parseInts(shapeText, dims))
    fail("--shape '" + shapeText + "' is not a list of non-negative integers");
  if (name.empty())
    name = kernel;

  Built built;
  if (kernel == "sgemm") {
    if (dims.size() != 3)
      fail("--kernel=sgemm takes --shape=M,N,K");
    GemmShape s{dims[0], dims[1], dims[2]};
    if (std::string e = checkShape(s); !e.empty())
      fail(e);
    GemmTile tile = defaultTile(isa);
    if (!tileText.empty()) {
      size_t x = tileText.find('x');
      std::vector<int> rc;
      if (x == std::string::npos ||
          !parseInts(tileText.substr(0, x) + "," + tileText.substr(x + 1), rc) ||
          rc.size() != 2)
        fail("--tile '" + tileText + "' is not ROWSxCOLUMNS");
      tile = {rc[0], rc[1]};
    }
    if (std::string e = checkTile(tile, isa); !e.empty())
      fail("--tile: " + e);
    built = sgemm(s, isa, tile);
  } else if (kernel == "depthwise") {
    if (dims.size() != 5)
      fail("--kernel=depthwise takes --shape=C,OH,OW,KERNEL,STRIDE");
    if (!tileText.empty())
      fail("--tile is for --kernel=sgemm");
    DepthwiseShape s{dims[0], dims[1], dims[2], dims[3], dims[4]};
    if (std::string e = checkShape(s); !e.empty())
      fail(e);
    built = depthwise(s, isa);
  } else {
    fail("unknown --kernel '" + kernel + "' (sgemm or depthwise)");
  }

  try {
    Halide::Target target = halideTarget(isa);
    if (emit == "object")
      built.output.compile_to_object(out, built.args, name, target);
    else
      built.output.compile_to_assembly(out, built.args, name, target);
  } catch (const Halide::Error &e) {
    fail(std::string("Halide: ") + e.what());
  }
  return 0;
}
