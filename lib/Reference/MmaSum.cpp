//===- MmaSum.cpp - How a tensor core sums one MMA step -------------------===//
#include "fmha/Reference/MmaSum.h"

#include <cmath>
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

int expOf(float x, int minExp) {
  int e = std::ilogb(x);
  return e < minExp ? minExp : e;
}

} // namespace

float wgmmaFp8Step(float c, const float *a, DType ta, const float *b,
                   int64_t bStride, DType tb, int64_t n) {
  const int ma = minNormalExp(ta), mb = minNormalExp(tb);
  // The largest exponent among the nonzero terms.
  bool any = c != 0.0f, finite = std::isfinite(c);
  int e = any ? std::ilogb(c) : 0;
  for (int64_t k = 0; k < n; ++k) {
    const float x = a[k], y = b[k * bStride];
    finite = finite && std::isfinite(x) && std::isfinite(y);
    if (x == 0.0f || y == 0.0f)
      continue;
    const int ek = expOf(x, ma) + expOf(y, mb);
    e = any ? std::max(e, ek) : ek;
    any = true;
  }
  if (!finite) {
    double s = c;
    for (int64_t k = 0; k < n; ++k)
      s += static_cast<double>(a[k]) * b[k * bStride];
    return static_cast<float>(s);
  }
  if (!any)
    return 0.0f;
  // Terms cut toward zero to multiples of 2^(e - 13), summed exactly: fp8
  // products have at most 8 significant bits and lie below 2^(e + 2), so
  // each cut term is an integer below 2^16 in units of the grid and the sum
  // of 33 such fits a double.
  const int g = e - kWgmmaFp8FractionBits;
  auto cut = [&](double t) { return std::trunc(std::ldexp(t, -g)); };
  double s = c != 0.0f ? cut(c) : 0.0;
  for (int64_t k = 0; k < n; ++k)
    s += cut(static_cast<double>(a[k]) * b[k * bStride]);
  if (s == 0.0)
    return 0.0f;
  // The sum cut to 14 significant bits.
  const int es = std::ilogb(s);
  const double keep = std::ldexp(1.0, std::max(0, es - kWgmmaFp8FractionBits));
  s = std::trunc(s / keep) * keep;
  return static_cast<float>(std::ldexp(s, g));
}

float wgmmaFp8Step(float c, const float *a, DType ta, const float *b, DType tb,
                   int64_t n) {
  return wgmmaFp8Step(c, a, ta, b, 1, tb, n);
}

} // namespace fmha::ref
