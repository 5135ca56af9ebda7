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

// Spread data: the oracle bar is per row, relative to the row's largest
// |O_ref| (at least 1), and its rel Frobenius is not judged; the emulation
// bar does not change.
TEST(Compare, RowRelativeBarForSpreadData) {
  const size_t Dv = 4;
  // Row 0 is large (about 100), row 1 small (about 0.5).
  std::vector<double> ref = {100, 90, 80, 95, 0.5, 0.25, 0.5, 0.125};
  std::vector<float> out(ref.begin(), ref.end());
  out[1] += 2.0f; // 2% of the row: over 0.055 absolute, under the row bar
  const Tolerances uni = Tolerances::forMode(CompareMode::Oracle);
  const Tolerances spr = Tolerances::forMode(CompareMode::Oracle, DataMode::Spread);
  EXPECT_TRUE(uni.check_max_abs);
  EXPECT_FALSE(uni.check_row_rel);
  EXPECT_FALSE(spr.check_max_abs);
  EXPECT_TRUE(spr.check_row_rel);
  EXPECT_EQ(spr.max_row_rel, 0.07);
  EXPECT_TRUE(uni.check_rel_fro);
  EXPECT_FALSE(spr.check_rel_fro); // reported, not judged
  EXPECT_EQ(Tolerances::forMode(CompareMode::Emulation, DataMode::Spread).rel_fro, 2e-3);
  EXPECT_TRUE(Tolerances::forMode(CompareMode::Emulation, DataMode::Spread).check_rel_fro);
  auto run = [&](const Tolerances &t) {
    return compareOutputs(DType::F32, out.data(), ref.data(), ref.size(), nullptr,
                          nullptr, 0, CompareMode::Oracle, &t, Dv);
  };
  CompareResult a = run(uni), b = run(spr);
  EXPECT_FALSE(a.pass);
  EXPECT_TRUE(b.pass) << b.summary();
  EXPECT_NEAR(b.max_row_rel_err, 2.0 / 100.0, 1e-12);
  EXPECT_EQ(b.max_row_rel_index, 0);
  EXPECT_EQ(a.summary().find("max_row_rel"), std::string::npos) << a.summary();
  EXPECT_NE(b.summary().find("PASS oracle max_row_rel=0.02 "), std::string::npos)
      << b.summary();
  EXPECT_NE(b.toJson().find("\"tol_max_row_rel\":0.07"), std::string::npos);
  EXPECT_NE(a.toJson().find("\"tol_max_row_rel\":null"), std::string::npos);
  EXPECT_NE(a.toJson().find("\"max_row_rel_err\":0.02"), std::string::npos);
  // 0.08 in the small row is judged against max(1, 0.5) = 1: fails both.
  out[5] += 0.08f;
  CompareResult c = run(spr);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.max_row_rel_index, 1);
  EXPECT_NE(c.reason.find("max row-relative err"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("(row 1: "), std::string::npos) << c.reason;
  EXPECT_FALSE(run(uni).pass);
}

// compareWithOracle takes the bar from the inputs' data mode: the emulation
// meets the spread bar, and the line says which bar it was.
TEST(Compare, OracleBarFollowsTheData) {
  Request r = test::smallRequest();
  r.data = DataMode::Spread;
  Inputs in = makeInputs(r);
  EmulateResult e = runEmulation(in);
  CompareResult c = compareWithOracle(in, e.out.data(), e.lse.data(), runOracle(in));
  EXPECT_TRUE(c.pass) << c.summary();
  EXPECT_TRUE(c.tol.check_row_rel);
  EXPECT_EQ(c.row_len, r.headDimV());
  EXPECT_NE(c.summary().find("max_row_rel="), std::string::npos);
  r.data = DataMode::Uniform;
  Inputs u = makeInputs(r);
  EmulateResult eu = runEmulation(u);
  CompareResult cu = compareWithOracle(u, eu.out.data(), eu.lse.data(), runOracle(u));
  EXPECT_TRUE(cu.pass);
  EXPECT_TRUE(cu.tol.check_max_abs);
  EXPECT_EQ(cu.summary().find("max_row_rel="), std::string::npos);
}

// Spread data, oracle mode: a whole-output relative Frobenius error over
// 2e-2 alone does not fail (the row bar judges); uniform data it fails.
TEST(Compare, SpreadDataDoesNotJudgeRelFrobenius) {
  const size_t Dv = 2;
  std::vector<double> ref = {100, 100, 1, 1};
  std::vector<float> out = {103, 103, 1, 1}; // rows: 3% and 0; rel fro 3%
  const Tolerances spr = Tolerances::forMode(CompareMode::Oracle, DataMode::Spread);
  CompareResult c = compareOutputs(DType::F32, out.data(), ref.data(), ref.size(), nullptr,
                                   nullptr, 0, CompareMode::Oracle, &spr, Dv);
  EXPECT_GT(c.rel_fro_err, 2e-2);
  EXPECT_TRUE(c.pass) << c.summary();
  EXPECT_NE(c.toJson().find("\"tol_rel_fro\":null"), std::string::npos);
  out[0] = 110; // 10% of row 0: over the row bar
  CompareResult d = compareOutputs(DType::F32, out.data(), ref.data(), ref.size(), nullptr,
                                   nullptr, 0, CompareMode::Oracle, &spr, Dv);
  EXPECT_FALSE(d.pass);
}
