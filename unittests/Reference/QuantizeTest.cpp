//===- QuantizeTest.cpp - Per-tensor and per-page/head quantizers ---------===//

#include "fmha/Reference/FloatCodec.h"
#include "fmha/Reference/Quantize.h"
#include "fmha/Reference/Random.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace fmha::ref;

namespace {
const DType kE4M3[] = {DType::F8E4M3FN, DType::F8E4M3FNUZ};

std::vector<float> randomValues(size_t n, uint64_t seed, float lo, float hi) {
  Rng rng(seed);
  std::vector<float> x(n);
  for (float &v : x)
    v = lo + (hi - lo) * rng.uniform();
  return x;
}
} // namespace

TEST(Quantize, DescaleRuleAndFloor) {
  EXPECT_EQ(descaleFromAbsMax(1.0f, DType::F8E4M3FN), 1.0f / 448.0f);
  EXPECT_EQ(descaleFromAbsMax(1.0f, DType::F8E4M3FNUZ), 1.0f / 240.0f);
  EXPECT_EQ(descaleFromAbsMax(3.0f, DType::F8E5M2), 3.0f / 57344.0f);
  // All-zero input: the floor keeps the descale positive and finite.
  const float d0 = descaleFromAbsMax(0.0f, DType::F8E4M3FN);
  EXPECT_EQ(d0, kAbsMaxFloor / 448.0f);
  EXPECT_GT(d0, 0.0f);
  std::vector<float> zeros(64, 0.0f);
  std::vector<uint8_t> q(64, 0xAA);
  EXPECT_EQ(quantizePerTensor(zeros.data(), 64, DType::F8E4M3FN, q.data()), d0);
  for (uint8_t c : q)
    EXPECT_EQ(c, 0u);
}

TEST(Quantize, PerTensorMapsMaxToFp8MaxAndBoundsError) {
  for (DType t : kFp8DTypes) {
    SCOPED_TRACE(dtypeName(t));
    std::vector<float> x = randomValues(4096, 3, -2.0f, 2.0f);
    x[17] = -2.5f; // the largest magnitude, negative
    std::vector<uint8_t> q(x.size());
    const float d = quantizePerTensor(x.data(), x.size(), t, q.data());
    EXPECT_EQ(d, 2.5f / static_cast<float>(dtypeMaxFinite(t)));
    EXPECT_EQ(q[17], maxFiniteCode(t, /*negative=*/true));
    const int mb = (t == DType::F8E4M3FN || t == DType::F8E4M3FNUZ) ? 3 : 2;
    for (size_t i = 0; i < x.size(); ++i) {
      const float dq = decode(t, q[i]) * d;
      // Relative error <= 2^-(mb+1) for normals; absolute error below half
      // the smallest subnormal step (times the descale) near zero.
      const double tol = std::fabs(x[i]) * std::ldexp(1.0, -(mb + 1)) +
                         d * std::ldexp(1.0, -(mb + 9));
      ASSERT_LE(std::fabs(dq - x[i]), tol) << i;
      ASSERT_EQ(q[i], encode(t, x[i] / d, Overflow::Saturate));
    }
  }
}

TEST(Quantize, PerPageHeadBothLayouts) {
  const int64_t nPages = 5, P = 7, H = 3, D = 16;
  const int64_t n = nPages * P * H * D;
  // The same logical values [page][slot][head][d] in both layouts, with one
  // head of one page scaled up and one all zero.
  std::vector<float> nhd = randomValues(n, 9, 0.0f, 1.0f);
  for (int64_t s = 0; s < P; ++s)
    for (int64_t d = 0; d < D; ++d) {
      nhd[((2 * P + s) * H + 1) * D + d] *= 50.0f;
      nhd[((3 * P + s) * H + 0) * D + d] = 0.0f;
    }
  std::vector<float> hnd(n);
  for (int64_t pg = 0; pg < nPages; ++pg)
    for (int64_t s = 0; s < P; ++s)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t d = 0; d < D; ++d)
          hnd[((pg * H + h) * P + s) * D + d] = nhd[((pg * P + s) * H + h) * D + d];

  for (DType t : kE4M3) {
    SCOPED_TRACE(dtypeName(t));
    // aiter's interleaved [N_pages, H, 2] buffer, K half.
    const DescaleLayout dl{0, 2 * H, 2};
    std::vector<float> dsN(nPages * H * 2, -1.0f), dsH(nPages * H * 2, -1.0f);
    std::vector<uint8_t> qN(n), qH(n);
    quantizePerPageHead(nhd.data(), nPages, P, H, D, KVLayout::NHD, t, qN.data(),
                        dsN.data(), dl);
    quantizePerPageHead(hnd.data(), nPages, P, H, D, KVLayout::HND, t, qH.data(),
                        dsH.data(), dl);
    EXPECT_EQ(dsN, dsH);
    for (int64_t pg = 0; pg < nPages; ++pg)
      for (int64_t h = 0; h < H; ++h) {
        float amax = 0;
        bool sawMax = false;
        const float ds = dl.at(dsN.data(), pg, h);
        for (int64_t s = 0; s < P; ++s)
          for (int64_t d = 0; d < D; ++d) {
            const int64_t iN = ((pg * P + s) * H + h) * D + d;
            const int64_t iH = ((pg * H + h) * P + s) * D + d;
            amax = std::max(amax, std::fabs(nhd[iN]));
            ASSERT_EQ(qN[iN], qH[iH]);
            ASSERT_EQ(qN[iN], encode(t, nhd[iN] / ds, Overflow::Saturate));
            sawMax |= qN[iN] == maxFiniteCode(t);
          }
        EXPECT_EQ(ds, descaleFromAbsMax(amax, t)) << pg << "," << h;
        EXPECT_TRUE(sawMax || amax == 0.0f);
        // The V half of the interleaved buffer is untouched.
        EXPECT_EQ(dsN[pg * 2 * H + h * 2 + 1], -1.0f);
      }
    EXPECT_EQ(dl.at(dsN.data(), 3, 0), kAbsMaxFloor / float(dtypeMaxFinite(t)));
    EXPECT_GT(dl.at(dsN.data(), 2, 1), 40.0f / float(dtypeMaxFinite(t)));
  }
}

// fmha.quantize_tile's rule, values worked by hand: amax 3; e4m3fn
// (M = 448): inv = 149.33, 0.5 -> 74.67 -> 72 (step 8 in [64, 128)),
// 1 -> 149.33 -> 144 (step 16), -3 -> -448; descale 3 / 448. e4m3fnuz
// (M = 240): inv = 80, exact. An all-zero tile: zeros, descale 2^-100 / M.
TEST(Quantize, QTileRule) {
  const float x[] = {0.5f, -3.0f, 1.0f, 0.0f, 0.0f, 0.0f};
  float out[6];
  EXPECT_EQ(quantizeQTile(x, 6, DType::F8E4M3FN, out), 3.0f / 448.0f);
  const float fn[] = {72.0f, -448.0f, 144.0f, 0.0f, 0.0f, 0.0f};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(out[i], fn[i]) << i;
  EXPECT_EQ(quantizeQTile(x, 6, DType::F8E4M3FNUZ, out), 3.0f / 240.0f);
  const float fnuz[] = {40.0f, -240.0f, 80.0f, 0.0f, 0.0f, 0.0f};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(out[i], fnuz[i]) << i;
  const float zeros[4] = {};
  EXPECT_EQ(quantizeQTile(zeros, 4, DType::F8E4M3FN, out), std::ldexp(1.0f, -100) / 448.0f);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out[i], 0.0f);
  // Dequantized values stay within the e4m3 rounding (2^-4 relative) of x.
  std::vector<float> r = randomValues(512, 11, -5.0f, 5.0f), q(512);
  float ds = quantizeQTile(r.data(), r.size(), DType::F8E4M3FN, q.data());
  for (size_t i = 0; i < r.size(); ++i)
    EXPECT_LE(std::fabs(q[i] * ds - r[i]), std::ldexp(std::fabs(r[i]), -4) + 1e-6f) << i;
}
