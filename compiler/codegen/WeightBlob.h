//===- WeightBlob.h - the weight blob of a generated library ---------------===//
#ifndef KILN_CODEGEN_WEIGHTBLOB_H
#define KILN_CODEGEN_WEIGHTBLOB_H

#include "kiln/kiln.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace kiln {
constexpr uint64_t kBlobHeader = KILN_BLOB_HEADER, kBlobAlign = 64;
constexpr char kBlobMagic[8] = {'K', 'I', 'L', 'N', 'W', 'T', '0', '1'};

inline uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/// Header (magic, payload bytes, fingerprint) followed by every weight at a
/// 64-byte aligned offset of the payload.
struct WeightBlob {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(kBlobHeader, 0);
  std::map<std::pair<std::string, bool>, uint64_t> offsets, sizes;
  uint64_t fingerprint = 0;

  void add(const std::string &sym, bool asF32, const uint8_t *data,
           size_t size) {
    uint64_t off = alignUp(bytes.size() - kBlobHeader, kBlobAlign);
    bytes.resize(kBlobHeader + off, 0);
    bytes.insert(bytes.end(), data, data + size);
    offsets[{sym, asF32}] = off;
    sizes[{sym, asF32}] = size;
  }
  void finish() {
    bytes.resize(kBlobHeader + alignUp(bytes.size() - kBlobHeader, kBlobAlign));
    uint64_t h = 1469598103934665603ull; // FNV-1a over the payload
    for (size_t i = kBlobHeader; i < bytes.size(); ++i)
      h = (h ^ bytes[i]) * 1099511628211ull;
    fingerprint = h;
    uint64_t payload = bytes.size() - kBlobHeader;
    std::memcpy(bytes.data(), kBlobMagic, 8);
    for (int i = 0; i < 8; ++i) {
      bytes[8 + i] = (uint8_t)(payload >> (8 * i));
      bytes[16 + i] = (uint8_t)(h >> (8 * i));
    }
  }
};

inline std::string hex(uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "0x%016llxull", (unsigned long long)v);
  return buf;
}

/// Checks that an object of `bytes` bytes fits target `target` (its
/// maxObjectBytes); otherwise `error` names the object and the limit.
inline bool fitsTarget(uint64_t maxBytes, const std::string &target,
                       const std::string &what, uint64_t bytes,
                       std::string &error) {
  if (bytes <= maxBytes)
    return true;
  error = what + " needs " + std::to_string(bytes) + " bytes, more than the " +
          std::to_string(maxBytes) + " one object can take on target " +
          target + (maxBytes <= UINT32_MAX ? " (32-bit size_t)" : "");
  return false;
}

/// C source of NAME_model, the runtime's descriptor of the library (layout
/// NAME_layout, the blob's size and fingerprint, the embedded
/// NAME_weights_blob unless `external`, then `lmFields`: a language model's
/// forward function, vocabulary and batch), followed by NAME_init,
/// NAME_init_threads, NAME_shutdown and, when `external`, NAME_set_weights;
/// the runtime (kiln_model_*, kiln_threads_*) does the work.
inline std::string modelSource(const std::string &N, const WeightBlob &blob,
                               bool external,
                               const std::string &lmFields = "0, 0u, 0u") {
  std::string s =
      "static const kiln_model " + N + "_model = {&" + N + "_layout, " +
      (external ? std::string("0") : N + "_weights_blob") + ", " +
      std::to_string(blob.bytes.size()) + "u, " + hex(blob.fingerprint) +
      ", " + lmFields + "};\n\n"
      "kiln_status " + N + "_init(kiln_ctx *ctx, void *arena, size_t arena_bytes) {\n"
      "  return kiln_model_init(&" + N + "_model, ctx, arena, arena_bytes);\n}\n\n"
      "kiln_status " + N + "_init_threads(kiln_ctx *ctx, void *arena, "
      "size_t arena_bytes,\n    uint32_t threads) {\n"
      "  return kiln_model_init_threads(&" + N +
      "_model, ctx, arena, arena_bytes, threads);\n}\n\n"
      "void " + N + "_shutdown(kiln_ctx *ctx) { kiln_threads_stop(ctx); }\n\n";
  if (external)
    s += "kiln_status " + N +
         "_set_weights(kiln_ctx *ctx, const void *weights, size_t bytes) {\n"
         "  return kiln_model_set_weights(&" + N +
         "_model, ctx, weights, bytes);\n}\n\n";
  return s;
}

} // namespace kiln

#endif
