//===- ObjectCache.h - compiled C objects kept for reuse ------------------===//
//
// A directory of objects named by what went into them: the compiler (its
// path and its --version text), the full compile command and the source
// after preprocessing (so every header it includes counts, and nothing it
// does not). The same kernel file compiled with the same flags for another
// model, or the same model compiled again, is copied instead of compiled.
// Entries are written to a temporary name and renamed, so several compilers
// may share a directory and none sees half an object. Nothing is evicted:
// the directory may be deleted at any time.
//
#ifndef KILN_CODEGEN_OBJECTCACHE_H
#define KILN_CODEGEN_OBJECTCACHE_H

#include <string>
#include <vector>

namespace kiln {

/// KILN_CACHE_DIR when set and not empty; otherwise "" (no cache).
std::string objectCacheFromEnvironment();

class ObjectCache {
public:
  explicit ObjectCache(std::string dir) : dir(std::move(dir)) {}
  bool enabled() const { return !dir.empty(); }
  const std::string &directory() const { return dir; }

  /// The key of compiling `source` in `dir` with `compile` (whose last
  /// arguments are "-c SOURCE -o OBJECT"); false with `error` when the
  /// preprocessed text cannot be read back. `key` is left empty when the
  /// source cannot be keyed: not a .c file (an assembly file may .incbin
  /// data the preprocessor does not see), a compiler without --version, or
  /// a source the preprocessor rejects (its compile reports why).
  bool key(const std::string &dir, const std::string &source,
           const std::vector<std::string> &compile, std::string &key,
           std::string &error) const;
  /// Copies the object stored under `key` to `object`; false when there is
  /// none (or it cannot be copied: then the caller compiles).
  bool fetch(const std::string &key, const std::string &object) const;
  /// Stores `object` under `key`; false with `error` when the directory
  /// cannot be created or written.
  bool store(const std::string &key, const std::string &object,
             std::string &error) const;

private:
  std::string dir;
};
} // namespace kiln

#endif
