//===- Quant.h - GGML tensor types, f16/bf16 and block (de)quantization ---===//
//
// Part of Kiln. Plain C++17, no MLIR/LLVM dependency.
//
// This header describes the GGML tensor element types Kiln understands, the
// byte layout of their quantization blocks, and scalar reference routines to
// convert between those layouts and f32:
//
//   * fp16/bf16 <-> f32 conversions (IEEE round-to-nearest-even).
//   * dequantize(): GGML block layout -> f32.
//   * quantize():   f32 -> GGML block layout, matching ggml's *reference*
//                   quantizers (quantize_row_*_ref) bit for bit.
//
// All routines read and write raw bytes in little-endian order and never
// require the source or destination to be aligned, so they can be applied
// directly to tensor data inside a memory-mapped GGUF file.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_QUANT_H
#define KILN_SUPPORT_QUANT_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace kiln::gguf {

/// GGML tensor element types supported by Kiln. The numeric values are the
/// type ids stored in GGUF tensor infos.
enum class GGMLType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  IQ4_NL = 20,
  IQ4_XS = 23,
  BF16 = 30,
};

/// Static properties of a tensor type: `blockSize` elements are stored in
/// `blockBytes` bytes.
struct TypeTraits {
  const char *name;
  int64_t blockSize;
  int64_t blockBytes;
};

/// Traits for a raw type id; nullptr for types Kiln does not support.
const TypeTraits *typeTraits(uint32_t type);
inline const TypeTraits *typeTraits(GGMLType type) {
  return typeTraits(static_cast<uint32_t>(type));
}
/// "f32", "f16", "bf16", "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k",
/// "q3_k", "q4_k", "q5_k", "q6_k", "iq4_nl", "iq4_xs" ("unknown" for a value
/// outside the enum).
const char *typeName(GGMLType t);
/// Inverse of typeName (case-insensitive).
std::optional<GGMLType> typeFromName(const std::string &name);
/// Name ggml uses for a raw type id, including types Kiln does not support
/// (e.g. 13 -> "q5_K"); nullptr if the id is not a known ggml type. Used to
/// produce helpful diagnostics.
const char *ggmlTypeName(uint32_t type);
/// llama.cpp's Q4_K_M / Q5_K_M mixes ("q4_k_m" -> Q4_K, "q5_k_m" -> Q5_K):
/// the base type of a mix name, or nullopt.
std::optional<GGMLType> mixBaseType(const std::string &mix);
/// The type a mix with base type `base` gives tensor `name` of a dense model
/// of `layers` layers, as llama.cpp's llama_tensor_get_type does without an
/// importance matrix: Q6_K for the output matrix (`isOutput`: output.weight,
/// or token_embd.weight when it is tied) and for attn_v, attn_qkv and
/// ffn_down in the first and last eighth of the layers and every third
/// layer between (use_more_bits); `base` otherwise.
GGMLType mixTensorType(GGMLType base, const std::string &name, bool isOutput,
                       int layers);
/// Every supported type, in type-id order.
const GGMLType *allTypes(size_t &count);
/// The supported type names, comma-separated ("f32, f16, ...").
std::string typeList();

//===----------------------------------------------------------------------===//
// Block layouts (documentation of the on-disk format; all fields are
// little-endian, f16 values are stored as raw IEEE half bits). The routines
// below access bytes directly and never dereference these structs, because
// tensor data inside a GGUF file is not guaranteed to be 2-byte aligned.
//===----------------------------------------------------------------------===//

constexpr int64_t kQK4_0 = 32;
constexpr int64_t kQK4_1 = 32;
constexpr int64_t kQK5_0 = 32;
constexpr int64_t kQK5_1 = 32;
constexpr int64_t kQK8_0 = 32;
constexpr int64_t kQK4_NL = 32;
constexpr int64_t kQK_K = 256;
constexpr int64_t kKScaleBytes = 12;

/// x[j] = (q_j - 8) * d; q_j is the low nibble of qs[j] for j < 16 and the
/// high nibble of qs[j - 16] otherwise.
struct BlockQ4_0 {
  uint16_t d;
  uint8_t qs[kQK4_0 / 2];
};
/// x[j] = q_j * d + m (nibble layout as Q4_0).
struct BlockQ4_1 {
  uint16_t d;
  uint16_t m;
  uint8_t qs[kQK4_1 / 2];
};
/// x[j] = (q_j - 16) * d; the low four bits of q_j are nibbles as in Q4_0,
/// the fifth is bit j of the little-endian word qh.
struct BlockQ5_0 {
  uint16_t d;
  uint8_t qh[4];
  uint8_t qs[kQK5_0 / 2];
};
/// x[j] = q_j * d + m (bits as Q5_0).
struct BlockQ5_1 {
  uint16_t d;
  uint16_t m;
  uint8_t qh[4];
  uint8_t qs[kQK5_1 / 2];
};
/// x[j] = qs[j] * d.
struct BlockQ8_0 {
  uint16_t d;
  int8_t qs[kQK8_0];
};
/// Super-block of 16 sub-blocks of 16; scales[s] holds sub-block s's 4-bit
/// scale (low nibble) and 4-bit min (high nibble). For half h (128 elements)
/// and l < 32 the 2-bit quant of element 128h + 32k + l is bits 2k..2k+1 of
/// qs[32h + l].  x = d*sc * q - dmin*m.
struct BlockQ2_K {
  uint8_t scales[kQK_K / 16];
  uint8_t qs[kQK_K / 4];
  uint16_t d;
  uint16_t dmin;
};
/// Super-block of 16 sub-blocks of 16 with 6-bit signed scales (value - 32):
/// the low four bits of sub-block s are the low (s < 8) or high (s >= 8)
/// nibble of scales[s % 8], the top two are bits 2(s/4).. of scales[8 + s%4].
/// Low 2 bits of quants as Q2_K; element e's third bit is bit e/32 of
/// hmask[e % 32], and a clear bit subtracts 4.  x = d*(sc-32) * q, q in -4..3.
struct BlockQ3_K {
  uint8_t hmask[kQK_K / 8];
  uint8_t qs[kQK_K / 4];
  uint8_t scales[kKScaleBytes];
  uint16_t d;
};
/// Super-block of 8 sub-blocks of 32. Sub-block s has a 6-bit scale sc_s and
/// a 6-bit min m_s packed in `scales`:
///   s < 4:  sc = scales[s] & 63,             m = scales[s+4] & 63
///   s >= 4: sc = (scales[s+4] & 15) | ((scales[s-4] >> 6) << 4)
///           m  = (scales[s+4] >> 4) | ((scales[s]   >> 6) << 4)
/// Element 64*p + l (l < 32) uses sub-block 2p and the low nibble of
/// qs[32p + l]; element 64*p + 32 + l uses sub-block 2p+1 and the high nibble.
///   x = d*sc * q - dmin*m
struct BlockQ4_K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[kKScaleBytes];
  uint8_t qs[kQK_K / 2];
};
/// Q4_K with a fifth bit: element 64p + l (l < 32) adds 16 if bit 2p of
/// qh[l] is set, element 64p + 32 + l if bit 2p+1 is.
struct BlockQ5_K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[kKScaleBytes];
  uint8_t qh[kQK_K / 8];
  uint8_t qs[kQK_K / 2];
};
/// Super-block of 16 sub-blocks of 16 with int8 scales. For half h (128
/// elements) and l < 32 the four 6-bit quants of elements 128h + l + 32k,
/// k = 0..3, are: low nibble of ql[64h+l], low nibble of ql[64h+32+l], high
/// nibble of ql[64h+l], high nibble of ql[64h+32+l]; their two high bits are
/// bits 2k..2k+1 of qh[32h+l].  x = d * scales[e/16] * (q - 32).
struct BlockQ6_K {
  uint8_t ql[kQK_K / 2];
  uint8_t qh[kQK_K / 4];
  int8_t scales[kQK_K / 16];
  uint16_t d;
};

/// The 16 non-linear 4-bit levels of IQ4_NL and IQ4_XS.
extern const int8_t kIQ4NLValues[16];
/// x[j] = d * kIQ4NLValues[q_j] (nibble layout as Q4_0).
struct BlockIQ4_NL {
  uint16_t d;
  uint8_t qs[kQK4_NL / 2];
};
/// Super-block of 8 sub-blocks of 32 with 6-bit scales (value - 32): the low
/// four bits of sub-block s are nibble s%2 of scales_l[s/2], the top two bits
/// 2s..2s+1 of scales_h. Sub-block s's quants are qs[16s..16s+15] as IQ4_NL.
struct BlockIQ4_XS {
  uint16_t d;
  uint16_t scales_h;
  uint8_t scales_l[kQK_K / 64];
  uint8_t qs[kQK_K / 2];
};

static_assert(sizeof(BlockQ4_0) == 18, "Q4_0 block size");
static_assert(sizeof(BlockQ5_0) == 22, "Q5_0 block size");
static_assert(sizeof(BlockQ5_1) == 24, "Q5_1 block size");
static_assert(sizeof(BlockQ2_K) == 84, "Q2_K block size");
static_assert(sizeof(BlockQ3_K) == 110, "Q3_K block size");
static_assert(sizeof(BlockQ5_K) == 176, "Q5_K block size");
static_assert(sizeof(BlockIQ4_NL) == 18, "IQ4_NL block size");
static_assert(sizeof(BlockIQ4_XS) == 136, "IQ4_XS block size");
static_assert(sizeof(BlockQ4_1) == 20, "Q4_1 block size");
static_assert(sizeof(BlockQ8_0) == 34, "Q8_0 block size");
static_assert(sizeof(BlockQ4_K) == 144, "Q4_K block size");
static_assert(sizeof(BlockQ6_K) == 210, "Q6_K block size");

//===----------------------------------------------------------------------===//
// Scalar conversions
//===----------------------------------------------------------------------===//

/// IEEE binary16 -> binary32 (exact; NaN payloads are preserved).
float fp16ToFp32(uint16_t h);
/// binary32 -> binary16 with round-to-nearest-even; overflow gives +-inf,
/// tiny values become subnormals or +-0; NaN becomes a quiet NaN (0x7e00 with
/// the sign kept), as ggml does.
uint16_t fp32ToFp16(float f);
/// bfloat16 -> binary32 (exact).
float bf16ToFp32(uint16_t h);
/// binary32 -> bfloat16 with round-to-nearest-even; NaN stays a (quiet) NaN.
uint16_t fp32ToBf16(float f);

//===----------------------------------------------------------------------===//
// Row conversions
//===----------------------------------------------------------------------===//

/// Dequantize n elements (n a non-negative multiple of the type's block size)
/// from src (GGML block layout, any alignment) to f32. If n is not a multiple
/// of the block size, only whole blocks are converted and the remaining dst
/// elements are set to 0 (this is a caller bug and asserts in debug builds).
void dequantize(GGMLType type, const void *src, float *dst, int64_t n);

/// Quantize n f32 elements into dst (GGML block layout, any alignment),
/// byte-identical to what llama.cpp writes without an importance matrix
/// (ggml_quantize_chunk): the reference quantizers quantize_row_*_ref, and
/// for IQ4_NL / IQ4_XS the scale search of quantize_iq4_nl / _xs (ntry 7).
/// Every supported type. n must be a multiple of the block size (only whole
/// blocks are written otherwise).
void quantize(GGMLType type, const float *src, void *dst, int64_t n);

/// ggml's Q8_K, the activation blocks of its K-quant dot products (not a
/// tensor type): per 256 values a float d (the value of largest magnitude
/// over -127), 256 int8 q = nearest(x / d) (ties to even, at most 127) and 16
/// int16 sums of 16 q each; kQ8KBlockBytes per block, as block_q8_K. n must
/// be a multiple of 256 (only whole blocks are written otherwise).
constexpr int64_t kQ8KBlockBytes = 292;
void quantizeQ8K(const float *src, void *dst, int64_t n);

/// Where a tensor holds a value that is not finite: an infinity or NaN among
/// the values of an F32, F16 or BF16 tensor, or in a block's float scale or
/// min of a quantized one (d, dmin of the K-quants, m of Q4_1 and Q5_1).
/// Any of them makes every output it reaches NaN or infinite.
struct NonFinite {
  uint64_t element = 0; // the value, or the first element of the block
  const char *field = "value"; // "value", "d", "dmin" or "m"
  float value = 0;             // what the field holds (inf, -inf or NaN)
};
/// The first non-finite value or block scale of n elements of `type` at src
/// (GGML block layout; only whole blocks are read), if there is one.
std::optional<NonFinite> firstNonFinite(GGMLType type, const void *src,
                                        uint64_t n);

/// Bytes needed for n elements of `type` (n must be a non-negative multiple
/// of the block size; returns 0 otherwise or for an unknown type).
size_t rowBytes(GGMLType type, int64_t n);

} // namespace kiln::gguf

#endif // KILN_SUPPORT_QUANT_H
