//===- FloatCodec.h - fp8 / bf16 / f16 encoders and decoders ----*- C++ -*-===//
//
// Bit-exact conversions between float and every DType.
//
// Decoding is exact (every code of every type is a float value).
// Encoding rounds to nearest, ties to even, with an explicit overflow policy:
//  - Overflow::Saturate: a value whose rounded magnitude exceeds the type's
//    largest finite value becomes +-max; +-inf also becomes +-max (this is
//    "satfinite", what the kernels' fp8 converts and the quantizers do).
//  - Overflow::NonSaturate: IEEE / llvm::APFloat behaviour: overflow gives
//    +-inf where the type has inf (f16, bf16, e5m2) and NaN where it has none
//    (e4m3fn, e4m3fnuz, e5m2fnuz).
// In both modes NaN stays NaN. NaN outputs are canonical: quiet NaN with the
// input's sign for IEEE-like types (bf16 0x7FC0, f16 0x7E00, e5m2 0x7E),
// 0x7F|sign for e4m3fn, and 0x80 for the FNUZ types. The FNUZ types have no
// negative zero: -0.0 and negative values that round to zero encode as 0x00.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_REFERENCE_FLOATCODEC_H
#define FMHA_REFERENCE_FLOATCODEC_H

#include "fmha/Reference/Types.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fmha::ref {

enum class Overflow { Saturate, NonSaturate };

/// Value of the code `bits` (low dtypeSize(t)*8 bits are used).
float decode(DType t, uint32_t bits);

/// Code of `x` in type t (in the low bits of the result).
uint32_t encode(DType t, float x, Overflow ov = Overflow::Saturate);

/// The bit-level encoder encode() is checked against; encode() gives the same
/// codes but takes fp8 values through a lookup table on the top 16 float bits.
uint32_t encodeExact(DType t, float x, Overflow ov = Overflow::Saturate);

/// decode(t, encode(t, x, ov)): x rounded to the nearest value of t.
float roundTo(DType t, float x, Overflow ov = Overflow::Saturate);

/// Fast paths used in hot loops (same results as decode/encode).
float decodeFp8(DType t, uint8_t code); ///< table lookup; t must be fp8.
float bf16ToFloat(uint16_t bits);
uint16_t floatToBf16(float x, Overflow ov = Overflow::NonSaturate);
float f16ToFloat(uint16_t bits);
uint16_t floatToF16(float x, Overflow ov = Overflow::NonSaturate);

/// True when `bits` is a NaN code of t.
bool isNaNCode(DType t, uint32_t bits);

/// Code of the largest finite value of t with the given sign.
uint32_t maxFiniteCode(DType t, bool negative = false);

/// encode() for one fp8 type and policy, for hot loops: the lookup table is
/// fetched once.
class Fp8Encoder {
public:
  Fp8Encoder(DType t, Overflow ov = Overflow::Saturate);
  uint8_t operator()(float x) const {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    const uint16_t c = table_[u >> 16];
    return c < 0x100 ? static_cast<uint8_t>(c) : slow(x);
  }

private:
  uint8_t slow(float x) const;
  DType t_;
  Overflow ov_;
  const uint16_t *table_;
};

/// Element access into a raw buffer of t (little-endian, packed).
float loadElement(DType t, const void *buf, size_t index);
void storeElement(DType t, void *buf, size_t index, float x,
                  Overflow ov = Overflow::Saturate);
uint32_t loadBits(DType t, const void *buf, size_t index);
void storeBits(DType t, void *buf, size_t index, uint32_t bits);

/// Encodes n floats into the raw buffer `out` of type t.
void encodeBuffer(DType t, const float *x, size_t n, void *out,
                  Overflow ov = Overflow::Saturate);
/// Decodes n elements of the raw buffer `in` of type t.
void decodeBuffer(DType t, const void *in, size_t n, float *out);

} // namespace fmha::ref

#endif // FMHA_REFERENCE_FLOATCODEC_H
