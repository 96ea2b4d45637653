//===- WeightBlob.h - the weight blob of a generated library ---------------===//
#ifndef KILN_TARGETS_COMMON_WEIGHTBLOB_H
#define KILN_TARGETS_COMMON_WEIGHTBLOB_H

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

} // namespace kiln

#endif
