//===- FloatCodec.cpp - fp8 / bf16 / f16 encoders and decoders ------------===//
//
// One generic small-float codec parameterised by exponent/mantissa widths, the
// bias and how NaN/inf are encoded; every DType but f32 is an instance.
// Encoding works on the integer bits of the float, so it is exact and fast
// enough for the emulator's per-element P casts.
//
//===----------------------------------------------------------------------===//

#include "fmha/Reference/FloatCodec.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

namespace fmha::ref {
namespace {

enum class NanKind {
  IEEE,    ///< exponent all ones: inf (mantissa 0) or NaN.
  AllOnes, ///< only exponent and mantissa all ones is NaN; no inf (e4m3fn).
  NegZero, ///< the negative-zero code is the only NaN; no inf, no -0 (FNUZ).
};

struct Fmt {
  int eb, mb, bias;
  NanKind nan;

  uint32_t signBit() const { return 1u << (eb + mb); }
  uint32_t expAllOnes() const { return (1u << eb) - 1; }
  uint32_t maxExpField() const {
    return nan == NanKind::IEEE ? expAllOnes() - 1 : expAllOnes();
  }
  uint32_t maxMantAtMaxExp() const {
    return nan == NanKind::AllOnes ? (1u << mb) - 2 : (1u << mb) - 1;
  }
  uint32_t maxMag() const { return (maxExpField() << mb) | maxMantAtMaxExp(); }
  uint32_t nanCode(uint32_t sign) const {
    switch (nan) {
    case NanKind::IEEE:
      return (sign ? signBit() : 0) | (expAllOnes() << mb) | (1u << (mb - 1));
    case NanKind::AllOnes:
      return (sign ? signBit() : 0) | (expAllOnes() << mb) | ((1u << mb) - 1);
    case NanKind::NegZero:
      return signBit();
    }
    return 0;
  }
  uint32_t zeroCode(uint32_t sign) const {
    return (nan == NanKind::NegZero || !sign) ? 0 : signBit();
  }
};

Fmt fmtOf(DType t) {
  switch (t) {
  case DType::BF16:
    return {8, 7, 127, NanKind::IEEE};
  case DType::F16:
    return {5, 10, 15, NanKind::IEEE};
  case DType::F8E4M3FN:
    return {4, 3, 7, NanKind::AllOnes};
  case DType::F8E4M3FNUZ:
    return {4, 3, 8, NanKind::NegZero};
  case DType::F8E5M2:
    return {5, 2, 15, NanKind::IEEE};
  case DType::F8E5M2FNUZ:
    return {5, 2, 16, NanKind::NegZero};
  case DType::F32:
    break;
  }
  return {8, 23, 127, NanKind::IEEE};
}

uint32_t floatBits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
float bitsFloat(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

uint32_t encodeGeneric(const Fmt &f, float x, Overflow ov) {
  const uint32_t u = floatBits(x);
  const uint32_t sign = u >> 31;
  const uint32_t E = (u >> 23) & 0xFF;
  const uint32_t M = u & 0x7FFFFF;
  const uint32_t signBit = sign ? f.signBit() : 0;

  if (E == 0xFF) {
    if (M)
      return f.nanCode(sign);
    if (ov == Overflow::Saturate)
      return signBit | f.maxMag();
    return f.nan == NanKind::IEEE ? signBit | (f.expAllOnes() << f.mb)
                                  : f.nanCode(sign);
  }
  if (E == 0 && M == 0)
    return f.zeroCode(sign);

  // |x| = sig * 2^(e - 23) with bit 23 of sig set.
  uint64_t sig;
  int e;
  if (E == 0) {
    int lz = __builtin_clz(M) - 8;
    sig = static_cast<uint64_t>(M) << lz;
    e = -126 - lz;
  } else {
    sig = M | 0x800000u;
    e = static_cast<int>(E) - 127;
  }
  const int emin = 1 - f.bias;
  int et = e < emin ? emin : e;
  // Keep mb fraction bits at exponent et: drop `shift` low bits of sig.
  const int shift = 23 - f.mb + (et - e);
  uint64_t r;
  if (shift > 25) {
    r = 0;
  } else {
    r = sig >> shift;
    const uint64_t rem = sig & ((uint64_t(1) << shift) - 1);
    const uint64_t half = uint64_t(1) << (shift - 1);
    if (rem > half || (rem == half && (r & 1)))
      ++r;
  }
  if (r == 0)
    return f.zeroCode(sign);
  if (r >= (uint64_t(1) << (f.mb + 1))) {
    r >>= 1;
    ++et;
  }
  uint32_t expField, mant;
  if (r >= (uint64_t(1) << f.mb)) {
    expField = static_cast<uint32_t>(et + f.bias);
    mant = static_cast<uint32_t>(r - (uint64_t(1) << f.mb));
  } else {
    expField = 0;
    mant = static_cast<uint32_t>(r);
  }
  if (expField > f.maxExpField() ||
      (expField == f.maxExpField() && mant > f.maxMantAtMaxExp())) {
    if (ov == Overflow::Saturate)
      return signBit | f.maxMag();
    return f.nan == NanKind::IEEE ? signBit | (f.expAllOnes() << f.mb)
                                  : f.nanCode(sign);
  }
  return signBit | (expField << f.mb) | mant;
}

bool isNaNGeneric(const Fmt &f, uint32_t bits) {
  const uint32_t expField = (bits >> f.mb) & f.expAllOnes();
  const uint32_t mant = bits & ((1u << f.mb) - 1);
  switch (f.nan) {
  case NanKind::IEEE:
    return expField == f.expAllOnes() && mant != 0;
  case NanKind::AllOnes:
    return expField == f.expAllOnes() && mant == (1u << f.mb) - 1;
  case NanKind::NegZero:
    return (bits & ((f.signBit() << 1) - 1)) == f.signBit();
  }
  return false;
}

float decodeGeneric(const Fmt &f, uint32_t bits) {
  const bool neg = (bits >> (f.eb + f.mb)) & 1;
  const uint32_t expField = (bits >> f.mb) & f.expAllOnes();
  const uint32_t mant = bits & ((1u << f.mb) - 1);
  if (isNaNGeneric(f, bits))
    return std::copysign(std::numeric_limits<float>::quiet_NaN(),
                         neg ? -1.0f : 1.0f);
  if (f.nan == NanKind::IEEE && expField == f.expAllOnes())
    return neg ? -std::numeric_limits<float>::infinity()
               : std::numeric_limits<float>::infinity();
  float v;
  if (expField == 0)
    v = std::ldexp(static_cast<float>(mant), 1 - f.bias - f.mb);
  else
    v = std::ldexp(static_cast<float>(mant + (1u << f.mb)),
                   static_cast<int>(expField) - f.bias - f.mb);
  return neg ? -v : v;
}

struct Fp8Tables {
  std::array<std::array<float, 256>, 4> v;
  Fp8Tables() {
    for (int t = 0; t < 4; ++t) {
      Fmt f = fmtOf(kFp8DTypes[t]);
      for (uint32_t c = 0; c < 256; ++c)
        v[t][c] = decodeGeneric(f, c);
    }
  }
};

const Fp8Tables &fp8Tables() {
  static const Fp8Tables tables;
  return tables;
}

int fp8Index(DType t) {
  switch (t) {
  case DType::F8E4M3FN:
    return 0;
  case DType::F8E4M3FNUZ:
    return 1;
  case DType::F8E5M2:
    return 2;
  default:
    return 3;
  }
}

// fp8 encoding by table on the top 16 bits of the float (sign, exponent, 7
// mantissa bits). encode() is monotone in |x| for a fixed sign, so when the
// smallest and largest float sharing those 16 bits give the same code, every
// float in between does too; the few keys where they differ (near ties, NaN
// payloads next to inf) are marked and take the exact path.
constexpr uint16_t kNeedsExact = 0x100;

struct Fp8EncodeTable {
  std::array<uint16_t, 65536> v;
  Fp8EncodeTable(const Fmt &f, Overflow ov) {
    for (uint32_t k = 0; k < 65536; ++k) {
      uint32_t lo = encodeGeneric(f, bitsFloat(k << 16), ov);
      uint32_t hi = encodeGeneric(f, bitsFloat((k << 16) | 0xFFFF), ov);
      v[k] = lo == hi ? static_cast<uint16_t>(lo) : kNeedsExact;
    }
  }
};

const Fp8EncodeTable &fp8EncodeTable(DType t, Overflow ov) {
  static const Fp8EncodeTable *tables[4][2] = {};
  static std::once_flag once[4][2];
  const int i = fp8Index(t), j = ov == Overflow::Saturate ? 0 : 1;
  std::call_once(once[i][j], [&] {
    tables[i][j] = new Fp8EncodeTable(fmtOf(t), ov);
  });
  return *tables[i][j];
}

uint32_t encodeFp8Fast(DType t, float x, Overflow ov) {
  const uint32_t u = floatBits(x);
  const uint16_t c = fp8EncodeTable(t, ov).v[u >> 16];
  return c != kNeedsExact ? c : encodeGeneric(fmtOf(t), x, ov);
}

} // namespace

Fp8Encoder::Fp8Encoder(DType t, Overflow ov)
    : t_(t), ov_(ov), table_(fp8EncodeTable(t, ov).v.data()) {}

uint8_t Fp8Encoder::slow(float x) const {
  return static_cast<uint8_t>(encodeGeneric(fmtOf(t_), x, ov_));
}

float decodeFp8(DType t, uint8_t code) {
  return fp8Tables().v[fp8Index(t)][code];
}

float bf16ToFloat(uint16_t bits) { return bitsFloat(uint32_t(bits) << 16); }
uint16_t floatToBf16(float x, Overflow ov) {
  return static_cast<uint16_t>(encodeGeneric(fmtOf(DType::BF16), x, ov));
}
float f16ToFloat(uint16_t bits) {
  return decodeGeneric(fmtOf(DType::F16), bits);
}
uint16_t floatToF16(float x, Overflow ov) {
  return static_cast<uint16_t>(encodeGeneric(fmtOf(DType::F16), x, ov));
}

float decode(DType t, uint32_t bits) {
  switch (t) {
  case DType::F32:
    return bitsFloat(bits);
  case DType::BF16:
    return bf16ToFloat(static_cast<uint16_t>(bits));
  case DType::F16:
    return f16ToFloat(static_cast<uint16_t>(bits));
  default:
    return decodeFp8(t, static_cast<uint8_t>(bits));
  }
}

uint32_t encode(DType t, float x, Overflow ov) {
  if (t == DType::F32) {
    if (ov == Overflow::Saturate && std::isinf(x))
      return floatBits(std::copysign(std::numeric_limits<float>::max(), x));
    return floatBits(x);
  }
  if (isFp8(t))
    return encodeFp8Fast(t, x, ov);
  return encodeGeneric(fmtOf(t), x, ov);
}

uint32_t encodeExact(DType t, float x, Overflow ov) {
  if (t == DType::F32)
    return encode(t, x, ov);
  return encodeGeneric(fmtOf(t), x, ov);
}

float roundTo(DType t, float x, Overflow ov) {
  return decode(t, encode(t, x, ov));
}

bool isNaNCode(DType t, uint32_t bits) {
  if (t == DType::F32)
    return std::isnan(bitsFloat(bits));
  return isNaNGeneric(fmtOf(t), bits);
}

uint32_t maxFiniteCode(DType t, bool negative) {
  if (t == DType::F32)
    return (negative ? 0x80000000u : 0u) | 0x7F7FFFFFu;
  Fmt f = fmtOf(t);
  return (negative ? f.signBit() : 0) | f.maxMag();
}

uint32_t loadBits(DType t, const void *buf, size_t index) {
  const auto *p = static_cast<const unsigned char *>(buf);
  switch (dtypeSize(t)) {
  case 4: {
    uint32_t v;
    std::memcpy(&v, p + 4 * index, 4);
    return v;
  }
  case 2: {
    uint16_t v;
    std::memcpy(&v, p + 2 * index, 2);
    return v;
  }
  default:
    return p[index];
  }
}

void storeBits(DType t, void *buf, size_t index, uint32_t bits) {
  auto *p = static_cast<unsigned char *>(buf);
  switch (dtypeSize(t)) {
  case 4:
    std::memcpy(p + 4 * index, &bits, 4);
    break;
  case 2: {
    uint16_t v = static_cast<uint16_t>(bits);
    std::memcpy(p + 2 * index, &v, 2);
    break;
  }
  default:
    p[index] = static_cast<unsigned char>(bits);
  }
}

float loadElement(DType t, const void *buf, size_t index) {
  return decode(t, loadBits(t, buf, index));
}

void storeElement(DType t, void *buf, size_t index, float x, Overflow ov) {
  storeBits(t, buf, index, encode(t, x, ov));
}

void encodeBuffer(DType t, const float *x, size_t n, void *out, Overflow ov) {
  if (isFp8(t)) {
    Fp8Encoder enc(t, ov);
    auto *o = static_cast<uint8_t *>(out);
    for (size_t i = 0; i < n; ++i)
      o[i] = enc(x[i]);
    return;
  }
  for (size_t i = 0; i < n; ++i)
    storeBits(t, out, i, encode(t, x[i], ov));
}

void decodeBuffer(DType t, const void *in, size_t n, float *out) {
  if (isFp8(t)) {
    const float *table = fp8Tables().v[fp8Index(t)].data();
    const auto *p = static_cast<const uint8_t *>(in);
    for (size_t i = 0; i < n; ++i)
      out[i] = table[p[i]];
    return;
  }
  for (size_t i = 0; i < n; ++i)
    out[i] = loadElement(t, in, i);
}

} // namespace fmha::ref
