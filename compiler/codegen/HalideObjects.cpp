//===- HalideObjects.cpp - Halide pipelines compiled into a library -------===//
#include "compiler/codegen/HalideObjects.h"
#include "compiler/support/Process.h"

#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <set>
#include <utility>

using namespace kiln;

namespace {
// What a Halide 14 object built with no_runtime still references, and the
// hook of runtime/src/kiln_halide.c that serves it. Only Hexagon objects
// reference any: the runtime's HVX lock wrappers come with every HVX
// pipeline, and on failure they format an error on the heap. The f32
// pipelines use no HVX vectors and never call them; the hooks refuse the
// lock and the heap, so a library never allocates.
const std::pair<const char *, const char *> kRuntimeHooks[] = {
    {"malloc", "kiln_halide_malloc"},
    {"free", "kiln_halide_free"},
    {"halide_error", "kiln_halide_error"},
    {"halide_string_to_string", "kiln_halide_string_to_string"},
    {"halide_msan_annotate_memory_is_initialized",
     "kiln_halide_msan_annotate_memory_is_initialized"},
    {"qurt_hvx_lock", "kiln_halide_hvx_lock"},
    {"qurt_hvx_unlock", "kiln_halide_hvx_unlock"},
};
// Undefined symbols an object may keep besides the hooks: what every
// target's C library (or kiln_freestanding.c) has.
const char *const kLibcSymbols[] = {"memcpy", "memset", "memmove"};

/// The symbols `path` references but does not define; false with `error` if
/// it is not an object file.
bool undefinedSymbols(const std::string &path, std::set<std::string> &out,
                      std::string &error) {
  auto obj = llvm::object::ObjectFile::createObjectFile(path);
  if (!obj) {
    error = path + ": " + llvm::toString(obj.takeError());
    return false;
  }
  for (const llvm::object::SymbolRef &sym : obj->getBinary()->symbols()) {
    auto flags = sym.getFlags();
    auto name = sym.getName();
    if (!flags || !name) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(name.takeError());
      error = path + ": unreadable symbol table";
      return false;
    }
    if ((*flags & llvm::object::SymbolRef::SF_Undefined) && !name->empty())
      out.insert(name->str());
  }
  return true;
}
} // namespace

std::string kiln::findHalideGen() {
  if (const char *env = std::getenv("KILN_HALIDE_GEN"); env && *env)
    return env;
  static int anchor;
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  if (!self.empty()) {
    llvm::SmallString<256> beside(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(beside, "kiln-halide-gen");
    if (llvm::sys::fs::can_execute(beside))
      return beside.str().str();
  }
  if (auto onPath = llvm::sys::findProgramByName("kiln-halide-gen"))
    return *onPath;
  return "";
}

bool kiln::buildHalideObject(const HalideObject &o, const std::string &dir,
                             std::string &error) {
  const std::string gen = findHalideGen();
  if (gen.empty()) {
    error = "the library runs Halide pipelines (kilnc --halide), but "
            "kiln-halide-gen is not beside this program, in $KILN_HALIDE_GEN "
            "or on PATH; build it (ninja kiln-halide-gen) or compile with "
            "--halide=none";
    return false;
  }
  const std::string raw = o.symbol + ".halide.o";
  std::vector<std::string> argv = {gen,
                                   "--kernel=" + o.kernel,
                                   "--shape=" + o.shape,
                                   "--target=" + o.isa,
                                   "--name=" + o.symbol,
                                   "-o",
                                   raw};
  std::string output;
  if (runProgram(argv, dir, output) != 0) {
    error = "kiln-halide-gen failed: " + joinCommand(argv) + "\n" + output;
    return false;
  }
  argv = {KILN_DEFAULT_OBJCOPY};
  for (const auto &[from, to] : kRuntimeHooks)
    argv.push_back(std::string("--redefine-sym=") + from + "=" + to);
  argv.insert(argv.end(), {raw, o.file()});
  if (runProgram(argv, dir, output) != 0) {
    error = "renaming the Halide runtime's symbols failed: " +
            joinCommand(argv) + "\n" + output;
    return false;
  }
  llvm::sys::fs::remove(dir + "/" + raw);
  std::set<std::string> undefined;
  if (!undefinedSymbols(dir + "/" + o.file(), undefined, error))
    return false;
  std::set<std::string> served(std::begin(kLibcSymbols), std::end(kLibcSymbols));
  for (const auto &hook : kRuntimeHooks)
    served.insert(hook.second);
  for (const std::string &name : undefined)
    if (!served.count(name)) {
      error = "Halide pipeline " + o.symbol + " (" + o.kernel + " " + o.shape +
              ", " + o.isa + ") needs '" + name +
              "', which Kiln's runtime does not serve";
      return false;
    }
  return true;
}
