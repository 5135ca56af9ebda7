//===- FloatCodecTest.cpp - Codecs against llvm::APFloat, bit for bit -----===//

#include "fmha/Reference/FloatCodec.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace fmha::ref;

namespace {

const llvm::fltSemantics &semOf(DType t) {
  switch (t) {
  case DType::F32:
    return llvm::APFloat::IEEEsingle();
  case DType::BF16:
    return llvm::APFloat::BFloat();
  case DType::F16:
    return llvm::APFloat::IEEEhalf();
  case DType::F8E4M3FN:
    return llvm::APFloat::Float8E4M3FN();
  case DType::F8E4M3FNUZ:
    return llvm::APFloat::Float8E4M3FNUZ();
  case DType::F8E5M2:
    return llvm::APFloat::Float8E5M2();
  case DType::F8E5M2FNUZ:
    return llvm::APFloat::Float8E5M2FNUZ();
  }
  return llvm::APFloat::IEEEsingle();
}

unsigned bitsOf(DType t) { return static_cast<unsigned>(dtypeSize(t) * 8); }

uint32_t f2u(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
float u2f(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

/// APFloat's conversion of x to t (round to nearest even), as raw bits.
uint32_t apEncode(DType t, float x) {
  llvm::APFloat f(x);
  bool loses = false;
  (void)f.convert(semOf(t), llvm::APFloat::rmNearestTiesToEven, &loses);
  return static_cast<uint32_t>(f.bitcastToAPInt().getZExtValue());
}

llvm::APFloat apOfCode(DType t, uint32_t code) {
  return llvm::APFloat(semOf(t), llvm::APInt(bitsOf(t), code));
}

float apDecode(DType t, uint32_t code) {
  llvm::APFloat f = apOfCode(t, code);
  bool loses = false;
  (void)f.convert(llvm::APFloat::IEEEsingle(),
                  llvm::APFloat::rmNearestTiesToEven, &loses);
  return f.convertToFloat();
}

const DType kSmallTypes[] = {DType::BF16,       DType::F16,    DType::F8E4M3FN,
                             DType::F8E4M3FNUZ, DType::F8E5M2, DType::F8E5M2FNUZ};

std::string name(DType t) { return dtypeName(t); }

/// Floats that exercise rounding of type t: for every float exponent around
/// t's range (plus float subnormals, 0, inf, NaN), mantissas whose top
/// min(mb+5, 10) bits take every value (so the last kept bits and, for fp8,
/// the first dropped bits are enumerated) and whose low bits are zero, one,
/// all ones, the midpoint or pseudo-random: exact values, ties to even,
/// just-above/below ties, overflow and subnormal boundaries. Plus a strided
/// sweep over all 2^32 bit patterns.
std::vector<float> sweepFor(DType t) {
  int mb = 0, emin = 0, emax = 0;
  switch (t) {
  case DType::BF16:
    mb = 7, emin = -126, emax = 127;
    break;
  case DType::F16:
    mb = 10, emin = -14, emax = 15;
    break;
  case DType::F8E4M3FN:
    mb = 3, emin = -6, emax = 8;
    break;
  case DType::F8E4M3FNUZ:
    mb = 3, emin = -7, emax = 7;
    break;
  case DType::F8E5M2:
    mb = 2, emin = -14, emax = 15;
    break;
  default:
    mb = 2, emin = -15, emax = 15;
  }
  std::vector<float> xs;
  const int top = std::min(mb + 5, 10);
  const int lowBits = 23 - top;
  const uint32_t lowMask = (1u << lowBits) - 1;
  const uint32_t lows[] = {0u, 1u, lowMask, 1u << (lowBits - 1),
                           0x2A5A5u & lowMask, 0x5C3F1u & lowMask};
  const int eLo = std::max(0, 127 + emin - mb - 3);
  const int eHi = std::min(255, 127 + emax + 3);
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (int e = eLo; e <= eHi; ++e)
      for (uint32_t m = 0; m < (1u << top); ++m)
        for (uint32_t lo : lows)
          xs.push_back(u2f((sign << 31) | (uint32_t(e) << 23) |
                           (m << lowBits) | lo));
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (uint32_t m : {0u, 1u, 2u, 0x400000u, 0x7FFFFFu, 0x12345u})
      for (uint32_t e : {0u, 255u})
        xs.push_back(u2f((sign << 31) | (e << 23) | m));
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 40009)
    xs.push_back(u2f(static_cast<uint32_t>(u)));
  return xs;
}

} // namespace

TEST(FloatCodec, MaxFiniteAndNames) {
  EXPECT_EQ(dtypeMaxFinite(DType::F8E4M3FN), 448.0);
  EXPECT_EQ(dtypeMaxFinite(DType::F8E4M3FNUZ), 240.0);
  EXPECT_EQ(dtypeMaxFinite(DType::F8E5M2), 57344.0);
  EXPECT_EQ(dtypeMaxFinite(DType::F8E5M2FNUZ), 57344.0);
  for (DType t : kAllDTypes) {
    SCOPED_TRACE(name(t));
    EXPECT_EQ(decode(t, maxFiniteCode(t)), static_cast<float>(dtypeMaxFinite(t)));
    EXPECT_EQ(decode(t, maxFiniteCode(t, true)),
              -static_cast<float>(dtypeMaxFinite(t)));
    llvm::APFloat apMax = llvm::APFloat::getLargest(semOf(t));
    EXPECT_EQ(apMax.convertToDouble(), dtypeMaxFinite(t));
    EXPECT_EQ(maxFiniteCode(t), apMax.bitcastToAPInt().getZExtValue());
  }
}

TEST(FloatCodec, DecodeEveryCodeMatchesAPFloat) {
  for (DType t : kSmallTypes) {
    SCOPED_TRACE(name(t));
    const uint32_t n = 1u << bitsOf(t);
    int mismatches = 0;
    for (uint32_t c = 0; c < n; ++c) {
      const float ours = decode(t, c);
      const bool apNaN = apOfCode(t, c).isNaN();
      ASSERT_EQ(isNaNCode(t, c), apNaN) << "code " << c;
      if (apNaN) {
        if (!std::isnan(ours) && ++mismatches < 5)
          ADD_FAILURE() << "code " << c << " should decode to NaN";
        continue;
      }
      const float ref = apDecode(t, c);
      if (f2u(ours) != f2u(ref) && ++mismatches < 5)
        ADD_FAILURE() << "code " << c << ": ours " << ours << " APFloat " << ref;
      if (isFp8(t)) // the fast table agrees with the generic decoder
        ASSERT_EQ(f2u(decodeFp8(t, static_cast<uint8_t>(c))), f2u(ours));
    }
    EXPECT_EQ(mismatches, 0);
  }
}

TEST(FloatCodec, EveryFiniteCodeRoundTrips) {
  for (DType t : kSmallTypes) {
    SCOPED_TRACE(name(t));
    const uint32_t n = 1u << bitsOf(t);
    for (uint32_t c = 0; c < n; ++c) {
      const float x = decode(t, c);
      if (std::isnan(x))
        continue;
      if (std::isinf(x)) {
        EXPECT_EQ(encode(t, x, Overflow::NonSaturate), c);
        continue;
      }
      ASSERT_EQ(encode(t, x, Overflow::NonSaturate), c) << "code " << c;
      ASSERT_EQ(encode(t, x, Overflow::Saturate), c) << "code " << c;
    }
  }
}

TEST(FloatCodec, EncodeSweepMatchesAPFloatBitForBit) {
  for (DType t : kSmallTypes) {
    SCOPED_TRACE(name(t));
    const std::vector<float> xs = sweepFor(t);
    int64_t nonSatMismatch = 0, satMismatch = 0;
    for (float x : xs) {
      const uint32_t ap = apEncode(t, x);
      const uint32_t ns = encode(t, x, Overflow::NonSaturate);
      const uint32_t sat = encode(t, x, Overflow::Saturate);
      // The table-driven fp8 path and the bit-level encoder agree.
      ASSERT_EQ(ns, encodeExact(t, x, Overflow::NonSaturate));
      ASSERT_EQ(sat, encodeExact(t, x, Overflow::Saturate));
      if (std::isnan(x)) {
        // NaN stays NaN (payloads are not compared: ours is canonical).
        if (!isNaNCode(t, ns) || !isNaNCode(t, sat))
          ++nonSatMismatch;
        continue;
      }
      if (ns != ap && ++nonSatMismatch < 5)
        ADD_FAILURE() << "non-saturating encode of " << x << " (0x" << std::hex
                      << f2u(x) << "): ours 0x" << ns << " APFloat 0x" << ap;
      // Saturating = APFloat, then clamp what overflowed (inf or NaN from a
      // non-NaN input) to the largest finite value of the same sign.
      const llvm::APFloat apv = apOfCode(t, ap);
      const uint32_t want =
          (apv.isNaN() || apv.isInfinity()) ? maxFiniteCode(t, std::signbit(x))
                                            : ap;
      if (sat != want && ++satMismatch < 5)
        ADD_FAILURE() << "saturating encode of " << x << ": ours 0x" << std::hex
                      << sat << " want 0x" << want;
    }
    EXPECT_EQ(nonSatMismatch, 0);
    EXPECT_EQ(satMismatch, 0);
    EXPECT_GT(xs.size(), 100000u);
  }
}

TEST(FloatCodec, Bf16AndF16FastPathsAgree) {
  const std::vector<float> xs = sweepFor(DType::F16);
  for (float x : xs) {
    for (Overflow ov : {Overflow::Saturate, Overflow::NonSaturate}) {
      ASSERT_EQ(floatToBf16(x, ov), encode(DType::BF16, x, ov));
      ASSERT_EQ(floatToF16(x, ov), encode(DType::F16, x, ov));
    }
  }
  for (uint32_t c = 0; c < 65536; ++c) {
    float a = bf16ToFloat(static_cast<uint16_t>(c));
    float b = decode(DType::BF16, c);
    ASSERT_TRUE((std::isnan(a) && std::isnan(b)) || f2u(a) == f2u(b));
  }
}

TEST(FloatCodec, OverflowPolicy) {
  const float inf = std::numeric_limits<float>::infinity();
  // e4m3fn: 448 = 0x7E is the max; 464 is the tie between 448 and (NaN) 480
  // and goes to the even 448; above it overflows.
  EXPECT_EQ(encode(DType::F8E4M3FN, 448.0f), 0x7Eu);
  EXPECT_EQ(encode(DType::F8E4M3FN, 464.0f, Overflow::NonSaturate), 0x7Eu);
  EXPECT_EQ(encode(DType::F8E4M3FN, 465.0f, Overflow::NonSaturate), 0x7Fu);
  EXPECT_EQ(encode(DType::F8E4M3FN, 465.0f, Overflow::Saturate), 0x7Eu);
  EXPECT_EQ(encode(DType::F8E4M3FN, -1e9f, Overflow::Saturate), 0xFEu);
  EXPECT_EQ(encode(DType::F8E4M3FN, inf, Overflow::Saturate), 0x7Eu);
  EXPECT_TRUE(isNaNCode(DType::F8E4M3FN, encode(DType::F8E4M3FN, inf,
                                                Overflow::NonSaturate)));
  // e4m3fnuz: 240 = 0x7F; 248 ties to (overflowing) 256.
  EXPECT_EQ(encode(DType::F8E4M3FNUZ, 240.0f), 0x7Fu);
  EXPECT_EQ(encode(DType::F8E4M3FNUZ, 247.0f, Overflow::NonSaturate), 0x7Fu);
  EXPECT_EQ(encode(DType::F8E4M3FNUZ, 248.0f, Overflow::NonSaturate), 0x80u);
  EXPECT_EQ(encode(DType::F8E4M3FNUZ, 248.0f, Overflow::Saturate), 0x7Fu);
  EXPECT_EQ(encode(DType::F8E4M3FNUZ, -300.0f, Overflow::Saturate), 0xFFu);
  // e5m2 has inf.
  EXPECT_EQ(encode(DType::F8E5M2, 1e6f, Overflow::NonSaturate), 0x7Cu);
  EXPECT_EQ(encode(DType::F8E5M2, -1e6f, Overflow::NonSaturate), 0xFCu);
  EXPECT_EQ(encode(DType::F8E5M2, 1e6f, Overflow::Saturate), 0x7Bu);
  EXPECT_EQ(encode(DType::F8E5M2FNUZ, 1e6f, Overflow::NonSaturate), 0x80u);
  EXPECT_EQ(encode(DType::F8E5M2FNUZ, 1e6f, Overflow::Saturate), 0x7Fu);
  // NaN stays NaN in both modes.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (DType t : kAllDTypes)
    for (Overflow ov : {Overflow::Saturate, Overflow::NonSaturate})
      EXPECT_TRUE(isNaNCode(t, encode(t, nan, ov))) << name(t);
  EXPECT_EQ(encode(DType::F8E4M3FNUZ, nan), 0x80u);
  EXPECT_EQ(encode(DType::F8E5M2FNUZ, nan), 0x80u);
  EXPECT_EQ(encode(DType::F8E4M3FN, nan), 0x7Fu);
  EXPECT_EQ(encode(DType::F8E4M3FN, -nan), 0xFFu);
}

TEST(FloatCodec, NegativeZero) {
  // FNUZ types have no -0: -0 and negative values rounding to 0 give 0x00,
  // as APFloat does.
  for (DType t : {DType::F8E4M3FNUZ, DType::F8E5M2FNUZ}) {
    SCOPED_TRACE(name(t));
    EXPECT_EQ(encode(t, -0.0f), 0x00u);
    EXPECT_EQ(apEncode(t, -0.0f), 0x00u);
    EXPECT_EQ(encode(t, -1e-30f), 0x00u);
    EXPECT_EQ(apEncode(t, -1e-30f), 0x00u);
    EXPECT_TRUE(std::isnan(decode(t, 0x80)));
  }
  for (DType t : {DType::F8E4M3FN, DType::F8E5M2, DType::BF16, DType::F16}) {
    SCOPED_TRACE(name(t));
    const uint32_t negZero = 1u << (bitsOf(t) - 1);
    EXPECT_EQ(encode(t, -0.0f), negZero);
    EXPECT_EQ(apEncode(t, -0.0f), negZero);
    EXPECT_TRUE(std::signbit(decode(t, negZero)));
  }
}

TEST(FloatCodec, BufferHelpers) {
  const float xs[] = {0.0f, 1.0f, -2.5f, 0.3f, 100.0f};
  for (DType t : kAllDTypes) {
    std::vector<uint8_t> buf(5 * dtypeSize(t));
    encodeBuffer(t, xs, 5, buf.data());
    std::vector<float> back(5);
    decodeBuffer(t, buf.data(), 5, back.data());
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(back[i], roundTo(t, xs[i])) << name(t);
      EXPECT_EQ(loadElement(t, buf.data(), i), back[i]);
    }
    storeElement(t, buf.data(), 2, 1.0f);
    EXPECT_EQ(loadElement(t, buf.data(), 2), 1.0f);
  }
}
