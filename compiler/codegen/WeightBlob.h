//===- WeightBlob.h - the weight blob of a generated library ---------------===//
#ifndef KILN_CODEGEN_WEIGHTBLOB_H
#define KILN_CODEGEN_WEIGHTBLOB_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace kiln {
constexpr uint64_t kBlobHeader = 64, kBlobAlign = 64;
constexpr char kBlobMagic[8] = {'K', 'I', 'L', 'N', 'W', 'T', '0', '1'};

inline uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/// Header (magic, payload bytes, fingerprint) followed by every weight at a
/// 64-byte aligned offset of the payload.
struct WeightBlob {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(kBlobHeader, 0);
  std::map<std::pair<std::string, bool>, uint64_t> offsets;
  uint64_t fingerprint = 0;

  void add(const std::string &sym, bool asF32, const uint8_t *data,
           size_t size) {
    uint64_t off = alignUp(bytes.size() - kBlobHeader, kBlobAlign);
    bytes.resize(kBlobHeader + off, 0);
    bytes.insert(bytes.end(), data, data + size);
    offsets[{sym, asF32}] = off;
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

/// C source of NAME_check_blob (magic, size and fingerprint of `blob`) and
/// NAME_init (the arena laid out by NAME_layout; embedded weights attached
/// from NAME_weights_blob), shared by language and graph models.
inline std::string blobInitSource(const std::string &N, const WeightBlob &blob,
                                  bool external) {
  std::string s =
      "static int " + N + "_check_blob(const uint8_t *b, size_t bytes) {\n"
      "  static const uint8_t magic[8] = {'K','I','L','N','W','T','0','1'};\n"
      "  uint64_t payload = 0, print = 0;\n"
      "  if (bytes != " + std::to_string(blob.bytes.size()) + "u) return 0;\n"
      "  for (int i = 0; i < 8; ++i) {\n"
      "    if (b[i] != magic[i]) return 0;\n"
      "    payload |= (uint64_t)b[8 + i] << (8 * i);\n"
      "    print |= (uint64_t)b[16 + i] << (8 * i);\n  }\n"
      "  return payload == " + std::to_string(blob.bytes.size() - kBlobHeader) +
      "u && print == " + hex(blob.fingerprint) + ";\n}\n\n"
      "kiln_status " + N + "_init(kiln_ctx *ctx, void *arena, size_t arena_bytes) {\n"
      "  kiln_status s = kiln_ctx_init(ctx, &" + N + "_layout, arena, arena_bytes);\n"
      "  if (s != KILN_OK) return s;\n";
  if (!external)
    s += "  if (!" + N + "_check_blob(" + N + "_weights_blob, " +
         std::to_string(blob.bytes.size()) +
         "u)) return KILN_ERR_WEIGHTS_MISMATCH;\n"
         "  ctx->weights = " + N + "_weights_blob + " +
         std::to_string(kBlobHeader) + ";\n";
  return s + "  return KILN_OK;\n}\n\n";
}

/// C source of NAME_set_weights (--weights=external): checks and attaches
/// a blob the caller loaded.
inline std::string setWeightsSource(const std::string &N) {
  return "kiln_status " + N +
         "_set_weights(kiln_ctx *ctx, const void *weights, size_t bytes) {\n"
         "  if (!ctx || !weights) return KILN_ERR_INVALID_ARGUMENT;\n"
         "  if (ctx->magic != 0x4b494c4eu) return KILN_ERR_NOT_INITIALIZED;\n"
         "  if ((uintptr_t)weights % KILN_ARENA_ALIGN != 0 || !" + N +
         "_check_blob((const uint8_t *)weights, bytes)) return "
         "KILN_ERR_WEIGHTS_MISMATCH;\n"
         "  ctx->weights = (const uint8_t *)weights + " +
         std::to_string(kBlobHeader) + ";\n  return KILN_OK;\n}\n\n";
}

} // namespace kiln

#endif
