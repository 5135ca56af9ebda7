//===- CompareTest.cpp - The comparison routine and its verdict -----------===//

#include "fmha/Reference/Compare.h"
#include "fmha/Reference/FloatCodec.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace fmha::ref;

namespace {
std::vector<uint16_t> toBf16(const std::vector<double> &x) {
  std::vector<uint16_t> o(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    o[i] = floatToBf16(static_cast<float>(x[i]));
  return o;
}
} // namespace

TEST(Compare, PoisonPatterns) {
  EXPECT_EQ(poisonBits(DType::BF16), 0xFFFFu);
  EXPECT_EQ(poisonBits(DType::F16), 0xFFFFu);
  EXPECT_EQ(poisonBits(DType::F32), 0xFFFFFFFFu);
  for (DType t : {DType::BF16, DType::F16, DType::F32}) {
    std::vector<uint8_t> buf(8 * dtypeSize(t), 0);
    poisonFill(t, buf.data(), 8);
    for (size_t i = 0; i < 8; ++i) {
      EXPECT_EQ(loadBits(t, buf.data(), i), poisonBits(t));
      EXPECT_TRUE(std::isnan(loadElement(t, buf.data(), i))); // a NaN
    }
  }
}

TEST(Compare, CountsAndVerdict) {
  std::vector<double> ref(1000);
  for (size_t i = 0; i < ref.size(); ++i)
    ref[i] = 0.25 + 0.5 * std::sin(double(i));
  // Exact (bf16-rounded) output passes both modes.
  std::vector<uint16_t> out = toBf16(ref);
  for (CompareMode m : {CompareMode::Oracle, CompareMode::Emulation}) {
    CompareResult c = compareOutputs(DType::BF16, out.data(), ref.data(),
                                     ref.size(), nullptr, nullptr, 0, m);
    EXPECT_TRUE(c.pass) << c.summary();
    EXPECT_LT(c.rel_fro_err, 3e-3);
    EXPECT_FALSE(c.lse_checked);
  }
  // One element unwritten, one NaN produced by the kernel, one off by 0.06.
  std::vector<uint16_t> bad = out;
  poisonFill(DType::BF16, &bad[3], 1);
  bad[10] = 0x7FC1;
  bad[20] = floatToBf16(static_cast<float>(ref[20] + 0.0625));
  CompareResult c = compareOutputs(DType::BF16, bad.data(), ref.data(),
                                   ref.size(), nullptr, nullptr, 0,
                                   CompareMode::Oracle);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.poisoned, 1);
  EXPECT_EQ(c.nonfinite, 1);
  EXPECT_EQ(c.max_abs_index, 20);
  EXPECT_GT(c.max_abs_err, 0.055);
  EXPECT_NE(c.reason.find("unwritten"), std::string::npos);
  EXPECT_NE(c.reason.find("NaN"), std::string::npos);
  EXPECT_NE(c.reason.find("max abs"), std::string::npos);
  const std::string json = c.toJson();
  for (const char *key : {"\"pass\":false", "\"poisoned\":1", "\"nonfinite\":1",
                          "\"max_abs_err\"", "\"rel_fro_err\"", "\"reason\""})
    EXPECT_NE(json.find(key), std::string::npos) << json;

  // Emulation mode: 1% noise on every element fails 2e-3 but passes the
  // oracle's 2e-2.
  std::vector<uint16_t> noisy(ref.size());
  for (size_t i = 0; i < ref.size(); ++i)
    noisy[i] = floatToBf16(static_cast<float>(ref[i] * (i % 2 ? 1.01 : 0.99)));
  EXPECT_FALSE(compareOutputs(DType::BF16, noisy.data(), ref.data(), ref.size(),
                              nullptr, nullptr, 0, CompareMode::Emulation)
                   .pass);
  EXPECT_TRUE(compareOutputs(DType::BF16, noisy.data(), ref.data(), ref.size(),
                             nullptr, nullptr, 0, CompareMode::Oracle)
                  .pass);
}

TEST(Compare, LseRules) {
  const double ninf = -std::numeric_limits<double>::infinity();
  std::vector<double> ref = {0.5, 2000.0, ninf, 3.0};
  std::vector<double> refOut = {1.0};
  std::vector<float> out = {1.0f};
  auto run = [&](std::vector<float> lse) {
    return compareOutputs(DType::F32, out.data(), refOut.data(), 1, lse.data(),
                          ref.data(), ref.size(), CompareMode::Oracle);
  };
  const float finf = -std::numeric_limits<float>::infinity();
  // Tolerance is relative for |lse| > 1: 2000 may be off by just under 2.
  CompareResult ok = run({0.5009f, 2001.9f, finf, 3.002f});
  EXPECT_TRUE(ok.pass) << ok.summary();
  EXPECT_TRUE(ok.lse_checked);
  EXPECT_EQ(run({0.5011f, 2000.0f, finf, 3.0f}).lse_bad, 1);
  // -inf expected: anything else fails, and -inf where finite is expected.
  EXPECT_EQ(run({0.5f, 2000.0f, -1e30f, 3.0f}).lse_bad, 1);
  EXPECT_EQ(run({0.5f, 2000.0f, finf, finf}).lse_nonfinite, 1);
  // An lse stored without subtracting the shift (8 ln 2 too large) fails.
  EXPECT_FALSE(run({0.5f + 8 * 0.6931472f, 2000.0f, finf, 3.0f}).pass);
  // Unwritten lse.
  std::vector<float> lse = {0.5f, 2000.0f, finf, 3.0f};
  poisonFill(DType::F32, &lse[1], 1);
  EXPECT_EQ(run(lse).lse_poisoned, 1);
}

TEST(Compare, EndToEndWithOracleAndEmulation) {
  Request r = test::smallRequest();
  Inputs in = makeInputs(r);
  OracleResult o = runOracle(in);
  EmulateResult e = runEmulation(in);
  // The emulation against itself: exact.
  CompareResult self = compareWithEmulation(in, e.out.data(), e.lse.data(), e);
  EXPECT_TRUE(self.pass);
  EXPECT_EQ(self.max_abs_err, 0.0);
  // A kernel output that forgot to write one row fails both checks.
  std::vector<uint8_t> out = e.out;
  poisonFill(r.out_dtype, out.data() + 5 * r.headDimV() * 2, r.headDimV());
  CompareResult c = compareWithOracle(in, out.data(), e.lse.data(), o);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.poisoned, r.headDimV());
  EXPECT_FALSE(compareWithEmulation(in, out.data(), e.lse.data(), e).pass);
  EXPECT_NE(c.summary().find("FAIL"), std::string::npos);
}
