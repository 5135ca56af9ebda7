//===- MmaSum.h - How a tensor core sums one MMA step ------------*- C++ -*-===//
//
// Hopper's FP8 wgmma (wgmma.mma_async ... k32 .f32 .e4m3 / .e5m2, sm_90a)
// does not sum its products in f32. Measured on the H200 and reproduced
// bit for bit on 25,000 rows of one k32 step with C
// (bench/nvidia/probes/README.md; unittests/Reference/MmaSumTest.cpp
// replays them): D = C + sum_k a_k b_k is
//
//   e    = the largest exponent among the nonzero terms: exp(a) + exp(b)
//          for a product, exp(x) = floor(log2 |x|) for a normal fp8 x and
//          the format's least normal exponent for a subnormal one (e4m3:
//          -6, e5m2: -14), so a product's mantissa lies in [1, 4); C's own
//          f32 exponent;
//   every term (C too) cut toward zero to a multiple of 2^(e - 13);
//   the cut terms summed exactly;
//   the sum cut toward zero to 14 significant bits (13 after its point).
//
// So a term 2^14 below the largest is lost, 31 terms just below that grid
// are lost one by one, and an accumulator of 2^20 takes an addend of 1 as
// 0. mma.sync m16n8k32 on the same SM sums almost exactly (the probe's
// second mode), so only sm_90a's wgmma kernels carry this model.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_REFERENCE_MMASUM_H
#define FMHA_REFERENCE_MMASUM_H

#include "fmha/Reference/Types.h"

#include <cstdint>

namespace fmha::ref {

/// The significant bits a Hopper FP8 wgmma step keeps after the alignment
/// to its largest term (13 after the point, as measured).
inline constexpr int kWgmmaFp8FractionBits = 13;

/// One FP8 wgmma step of n products as Hopper computes it: c + sum_k a[k] *
/// b[k], with a[k] of type ta and b[k] of type tb (both fp8; the values as
/// decoded, exactly), c the f32 accumulator (0 for a chain's first step).
/// NaN or infinite inputs give the f32 sum of the exact terms.
float wgmmaFp8Step(float c, const float *a, DType ta, const float *b, DType tb,
                   int64_t n);

/// The same with b[k] at b[k * bStride] (a column of a row-major matrix).
float wgmmaFp8Step(float c, const float *a, DType ta, const float *b,
                   int64_t bStride, DType tb, int64_t n);

} // namespace fmha::ref

#endif // FMHA_REFERENCE_MMASUM_H
