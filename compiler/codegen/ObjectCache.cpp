//===- ObjectCache.cpp - compiled C objects kept for reuse ----------------===//
#include "compiler/codegen/ObjectCache.h"
#include "compiler/support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <unistd.h>

using namespace kiln;

std::string kiln::objectCacheFromEnvironment() {
  const char *env = std::getenv("KILN_CACHE_DIR");
  return env ? env : "";
}

namespace {
/// `cc`'s real path and --version text, asked once per process (toolchains
/// compile from several threads); false when it has none.
bool identify(const std::string &cc, std::string &identity) {
  static std::mutex lock;
  static std::map<std::string, std::string> known;
  {
    std::lock_guard<std::mutex> guard(lock);
    auto it = known.find(cc);
    if (it != known.end()) {
      identity = it->second;
      return !identity.empty();
    }
  }
  identity.clear();
  std::string path = cc, version;
  llvm::SmallString<256> real;
  if (!llvm::sys::path::is_absolute(path))
    if (auto found = llvm::sys::findProgramByName(cc))
      path = *found;
  if (!llvm::sys::fs::real_path(path, real) &&
      runProgram({cc, "--version"}, "", version) == 0)
    identity = real.str().str() + "\n" + version;
  std::lock_guard<std::mutex> guard(lock);
  known[cc] = identity;
  return !identity.empty();
}
} // namespace

bool ObjectCache::key(const std::string &dir, const std::string &source,
                      const std::vector<std::string> &compile,
                      std::string &key, std::string &error) const {
  key.clear();
  size_t n = compile.size();
  if (!enabled() || !llvm::StringRef(source).endswith(".c") || n < 5 ||
      compile[n - 4] != "-c" || compile[n - 3] != source)
    return true;
  std::string identity;
  if (!identify(compile[0], identity))
    return true;

  // The preprocessed text, through a file: the compiler's warnings go to the
  // same captured output as its stdout.
  std::string text = ".kiln-cache-" + llvm::sys::path::stem(source).str() + ".i";
  std::vector<std::string> argv(compile.begin(), compile.end() - 4);
  argv.insert(argv.end(), {"-E", source, "-o", text});
  // A source the preprocessor rejects is compiled uncached, so that its
  // error comes from the compile command, as without a cache.
  std::string output, textPath = dir + "/" + text;
  if (runProgram(argv, dir, output) != 0) {
    llvm::sys::fs::remove(textPath);
    return true;
  }
  auto buffer = llvm::MemoryBuffer::getFile(textPath);
  llvm::sys::fs::remove(textPath);
  if (!buffer) {
    error = "cannot read " + textPath + ": " + buffer.getError().message();
    return false;
  }

  llvm::SHA256 hash;
  hash.update("kiln object cache 1\n");
  hash.update(identity);
  for (const std::string &arg : compile) {
    hash.update(arg);
    hash.update(llvm::StringRef("\0", 1));
  }
  hash.update((*buffer)->getBuffer());
  key = llvm::toHex(hash.final(), /*LowerCase=*/true);
  return true;
}

bool ObjectCache::fetch(const std::string &key, const std::string &object) const {
  std::string entry = dir + "/" + key + ".o";
  return llvm::sys::fs::exists(entry) && !llvm::sys::fs::copy_file(entry, object);
}

bool ObjectCache::store(const std::string &key, const std::string &object,
                        std::string &error) const {
  auto fail = [&](const std::string &what, std::error_code ec) {
    error = "object cache " + dir + ": cannot " + what + ": " + ec.message() +
            " (KILN_CACHE_DIR or --cache-dir)";
    return false;
  };
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return fail("create the directory", ec);
  if (!llvm::sys::fs::is_directory(dir))
    return fail("use it", std::make_error_code(std::errc::not_a_directory));
  llvm::SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          dir + "/" + key + "-%%%%%%.tmp", fd, temp))
    return fail("create a file", ec);
  ::close(fd);
  std::string entry = dir + "/" + key + ".o";
  if (std::error_code ec = llvm::sys::fs::copy_file(object, temp)) {
    llvm::sys::fs::remove(temp);
    return fail("write " + temp.str().str(), ec);
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, entry)) {
    llvm::sys::fs::remove(temp);
    return fail("rename " + temp.str().str() + " to " + entry, ec);
  }
  return true;
}
