//===- MmaSum.cpp - How a tensor core sums one MMA step -------------------===//
#include "fmha/Reference/MmaSum.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace fmha::ref {
namespace {

/// The least normal exponent of an fp8 format (its subnormals' exponent).
int minNormalExp(DType t) {
  switch (t) {
  case DType::F8E4M3FN:
    return -6;
  case DType::F8E4M3FNUZ:
    return -7;
  case DType::F8E5M2:
    return -14;
  case DType::F8E5M2FNUZ:
    return -15;
  default:
    return std::numeric_limits<int>::min() / 4;
  }
}

/// The biased f32 exponent field of x (0: zero or subnormal, 255: not
/// finite). Every fp8 value decodes to a normal f32 or zero.
int expField(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return static_cast<int>((u >> 23) & 0xff);
}

/// 2^k as a double, for k in the normal range.
double pow2(int k) {
  uint64_t u = static_cast<uint64_t>(k + 1023) << 52;
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

} // namespace

// The model in integers: each term is cut to a multiple of the grid 2^g
// (g = e - 13) by scaling with 2^-g (exact) and truncating to an int64 (a
// cut term is below 2^16 in grid units, C's too since its exponent is at
// most e), summed exactly, and the sum's magnitude cut to 14 significant
// bits by shifts. Bit for bit the same as cutting doubles with std::trunc
// and std::ldexp (the H200 replay of unittests/Reference/MmaSumTest.cpp),
// several times faster: the references run this for every product.
namespace {

/// wgmmaFp8Step with b's stride a template parameter (0: the run-time
/// `stride`), so the contiguous case's loops vectorize.
template <int64_t kStride>
float step(float c, const float *a, DType ta, const float *b, int64_t stride,
           DType tb, int64_t n) {
  const int64_t bs = kStride ? kStride : stride;
  // fp8 operands only: every value decodes to a normal f32 or zero, whose
  // exponent field gives its exponent.
  assert(isFp8(ta) && isFp8(tb) && "wgmmaFp8Step models fp8 operands");
  const int ma = minNormalExp(ta), mb = minNormalExp(tb);
  // The largest exponent among the nonzero terms (a zero operand: far
  // below any other), and whether every input is finite.
  constexpr int kNone = std::numeric_limits<int>::min() / 4;
  int e = kNone, notFinite = 0;
  for (int64_t k = 0; k < n; ++k) {
    const int fx = expField(a[k]), fy = expField(b[k * bs]);
    notFinite |= (fx == 255) | (fy == 255);
    const int ek = std::max(fx - 127, ma) + std::max(fy - 127, mb);
    e = std::max(e, (a[k] != 0.0f && b[k * bs] != 0.0f) ? ek : kNone);
  }
  if (notFinite || !std::isfinite(c)) {
    double s = c;
    for (int64_t k = 0; k < n; ++k)
      s += static_cast<double>(a[k]) * b[k * bs];
    return static_cast<float>(s);
  }
  if (c != 0.0f)
    e = std::max(e, expField(c) ? expField(c) - 127 : std::ilogb(c));
  if (e == kNone)
    return 0.0f;
  const int g = e - kWgmmaFp8FractionBits;
  const double down = pow2(-g);
  int64_t s = c != 0.0f ? static_cast<int64_t>(static_cast<double>(c) * down) : 0;
  for (int64_t k = 0; k < n; ++k)
    s += static_cast<int64_t>(static_cast<double>(a[k]) * b[k * bs] * down);
  if (s == 0)
    return 0.0f;
  // The sum cut toward zero to 14 significant bits.
  const bool neg = s < 0;
  uint64_t m = neg ? uint64_t(0) - static_cast<uint64_t>(s) : static_cast<uint64_t>(s);
  // m < 2^22 (33 terms below 2^16): exact as a double.
  const int es = std::ilogb(static_cast<double>(m));
  if (es > kWgmmaFp8FractionBits) {
    const int drop = es - kWgmmaFp8FractionBits;
    m = (m >> drop) << drop;
  }
  const double r = static_cast<double>(m) * pow2(g);
  return static_cast<float>(neg ? -r : r);
}

} // namespace

float wgmmaFp8Step(float c, const float *a, DType ta, const float *b,
                   int64_t bStride, DType tb, int64_t n) {
  return bStride == 1 ? step<1>(c, a, ta, b, 1, tb, n)
                      : step<0>(c, a, ta, b, bStride, tb, n);
}

float wgmmaFp8Step(float c, const float *a, DType ta, const float *b, DType tb,
                   int64_t n) {
  return wgmmaFp8Step(c, a, ta, b, 1, tb, n);
}

} // namespace fmha::ref
