//===- OracleTest.cpp - The double-precision oracle -----------------------===//

#include "fmha/Reference/Compare.h"
#include "fmha/Reference/Emulate.h"
#include "fmha/Reference/Oracle.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace fmha::ref;

namespace {

/// SPEC section 3 written as directly as possible, one (row, head) at a time,
/// through the public accessors: the oracle must agree with it.
OracleResult naive(const Inputs &in, TableForm form) {
  const Request &r = in.req;
  const int64_t Hq = r.num_qo_heads, D = r.head_dim, Dv = r.headDimV();
  const int64_t G = r.num_qo_heads / r.num_kv_heads, P = r.page_size;
  OracleResult out;
  out.out.assign(in.qo_indptr.back() * Hq * Dv, 0.0);
  out.lse.assign(in.qo_indptr.back() * Hq,
                 -std::numeric_limits<double>::infinity());
  for (int64_t b = 0; b < r.batch(); ++b) {
    const int64_t sq = in.qo_indptr[b + 1] - in.qo_indptr[b];
    const int64_t sk = in.table.seqLen(form, b);
    const int32_t *pages = in.table.pages(form, b);
    for (int64_t i = 0; i < sq; ++i) {
      const int64_t row = in.qo_indptr[b] + i, pos = i + sk - sq;
      for (int64_t h = 0; h < Hq; ++h) {
        const int64_t g = h / G;
        std::vector<double> S;
        std::vector<int64_t> js;
        for (int64_t j = 0; j < sk; ++j) {
          bool vis = true;
          if (r.mask.kind == MaskKind::Causal)
            vis = j <= pos;
          if (r.mask.kind == MaskKind::Window)
            vis = (r.mask.left < 0 || j >= pos - r.mask.left) &&
                  (r.mask.right < 0 || j <= pos + r.mask.right);
          if (!vis)
            continue;
          const int64_t pg = pages[j / P], slot = j % P;
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += (double(in.q_descale) * in.qStored(row, h, d)) *
                   (double(in.kDescale(pg, g)) * in.kStored(pg, slot, g, d));
          double s = r.smScale() * dot;
          if (r.soft_cap > 0)
            s = r.soft_cap * std::tanh(s / r.soft_cap);
          S.push_back(s);
          js.push_back(j);
        }
        if (S.empty())
          continue;
        double m = *std::max_element(S.begin(), S.end()), sum = 0;
        for (double s : S)
          sum += std::exp(s - m);
        for (size_t k = 0; k < S.size(); ++k) {
          const int64_t j = js[k], pg = pages[j / P], slot = j % P;
          const double w = std::exp(S[k] - m) / sum;
          for (int64_t d = 0; d < Dv; ++d)
            out.out[(row * Hq + h) * Dv + d] +=
                w * (double(in.vDescale(pg, g)) * in.vStored(pg, slot, g, d));
        }
        out.lse[row * Hq + h] = m + std::log(sum);
      }
    }
  }
  return out;
}

void expectClose(const OracleResult &a, const OracleResult &b, double tol) {
  ASSERT_EQ(a.out.size(), b.out.size());
  ASSERT_EQ(a.lse.size(), b.lse.size());
  for (size_t i = 0; i < a.out.size(); ++i)
    ASSERT_NEAR(a.out[i], b.out[i], tol) << "out " << i;
  for (size_t i = 0; i < a.lse.size(); ++i) {
    if (std::isinf(b.lse[i])) {
      ASSERT_EQ(a.lse[i], b.lse[i]) << "lse " << i;
      continue;
    }
    ASSERT_NEAR(a.lse[i], b.lse[i], tol * std::max(1.0, std::fabs(b.lse[i])));
  }
}

/// Lengths with Sk = 0, Sq = 0, Sq > Sk (causal: leading rows fully masked)
/// and partly filled last pages.
Request edgeRequest() {
  Request r = test::smallRequest();
  r.qo_lens = {7, 19, 1, 0, 5, 12};
  r.kv_lens = {40, 19, 33, 10, 0, 5};
  return r;
}

} // namespace

TEST(Oracle, MatchesNaiveOverMasksPageSizesLayoutsForms) {
  const Mask masks[] = {Mask::none(), Mask::causal(), Mask::window(5, 0),
                        Mask::window(-1, 3), Mask::window(9, 9)};
  for (const Mask &mask : masks)
    for (int64_t P : {1, 16, 48})
      for (KVLayout layout : {KVLayout::NHD, KVLayout::HND}) {
        Request r = edgeRequest();
        r.mask = mask;
        r.page_size = P;
        r.layout = layout;
        SCOPED_TRACE(r.str());
        Inputs in = makeInputs(r);
        for (TableForm f : {TableForm::CSR, TableForm::Block})
          expectClose(runOracle(in, f), naive(in, f), 1e-12);
      }
}

TEST(Oracle, MatchesNaiveOverTypesQuantGqaSoftCap) {
  struct Case {
    DType q, kv;
    QuantMode quant;
    int64_t hq, hkv, d, dv;
    double cap;
  } cases[] = {
      {DType::F8E4M3FN, DType::F8E4M3FN, QuantMode::KVBlockscale, 4, 2, 32, 32, 0},
      {DType::F8E4M3FNUZ, DType::F8E4M3FNUZ, QuantMode::KVBlockscale, 8, 1, 32, 32, 0},
      {DType::F8E4M3FN, DType::F8E4M3FN, QuantMode::PerTensor, 4, 4, 32, 32, 0},
      {DType::BF16, DType::F8E5M2, QuantMode::KVBlockscale, 6, 3, 16, 16, 0},
      {DType::F16, DType::F8E5M2FNUZ, QuantMode::PerTensor, 2, 1, 16, 16, 0},
      {DType::BF16, DType::BF16, QuantMode::None, 4, 2, 24, 24, 0},
      {DType::F8E4M3FN, DType::F8E4M3FN, QuantMode::None, 4, 2, 32, 32, 0},
      {DType::F8E4M3FN, DType::F8E4M3FN, QuantMode::KVBlockscale, 4, 2, 48, 32, 0},
      {DType::F8E4M3FN, DType::F8E4M3FN, QuantMode::KVBlockscale, 4, 2, 32, 32, 0.5},
      {DType::F8E4M3FNUZ, DType::F8E4M3FNUZ, QuantMode::KVBlockscale, 4, 2, 32, 32, 30},
  };
  for (const Case &c : cases) {
    Request r = edgeRequest();
    r.q_dtype = c.q;
    r.kv_dtype = c.kv;
    r.quant = c.quant;
    r.num_qo_heads = c.hq;
    r.num_kv_heads = c.hkv;
    r.head_dim = c.d;
    r.head_dim_v = c.dv;
    r.soft_cap = c.cap;
    r.mask = Mask::window(20, 3);
    SCOPED_TRACE(r.str());
    Inputs in = makeInputs(r);
    expectClose(runOracle(in), naive(in, r.table), 1e-12);
  }
}

TEST(Oracle, GqaRatios32x8And16x16) {
  for (auto [hq, hkv] : {std::pair<int64_t, int64_t>{32, 8}, {16, 16}}) {
    Request r = test::smallRequest();
    r.num_qo_heads = hq;
    r.num_kv_heads = hkv;
    r.head_dim = 64;
    r.qo_lens = {9, 4};
    r.kv_lens = {30, 17};
    SCOPED_TRACE(r.str());
    Inputs in = makeInputs(r);
    OracleResult o = runOracle(in);
    expectClose(o, naive(in, r.table), 1e-12);
    // The emulation maps query heads to kv heads the same way.
    EmulateResult e = runEmulation(in);
    CompareResult c = compareWithOracle(in, e.out.data(), e.lse.data(), o);
    EXPECT_TRUE(c.pass) << c.summary();
    // Query heads of one group see the same K/V: with 32/8, heads 0..3 share
    // kv head 0; a different group differs.
    if (hq == 32) {
      const double *h0 = &o.out[0 * 64], *h4 = &o.out[4 * 64];
      double diff = 0;
      for (int d = 0; d < 64; ++d)
        diff += std::fabs(h0[d] - h4[d]);
      EXPECT_GT(diff, 0.0);
    }
  }
}

TEST(Oracle, FormsAndLayoutsGiveIdenticalResults) {
  Request r = edgeRequest();
  r.page_size = 48;
  Inputs nhd = makeInputs(r);
  r.layout = KVLayout::HND;
  Inputs hnd = makeInputs(r);
  OracleResult a = runOracle(nhd, TableForm::CSR);
  OracleResult b = runOracle(nhd, TableForm::Block);
  OracleResult c = runOracle(hnd, TableForm::Block);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.lse, b.lse);
  EXPECT_EQ(a.out, c.out);
  EXPECT_EQ(a.lse, c.lse);
}

TEST(Oracle, EmptyAndFullyMaskedRows) {
  Request r = edgeRequest(); // causal
  Inputs in = makeInputs(r);
  OracleResult o = runOracle(in);
  const int64_t Hq = r.num_qo_heads, Dv = r.headDimV();
  auto rowIs = [&](int64_t row, bool masked) {
    for (int64_t h = 0; h < Hq; ++h) {
      const double lse = o.lse[row * Hq + h];
      double sum = 0;
      for (int64_t d = 0; d < Dv; ++d)
        sum += std::fabs(o.out[(row * Hq + h) * Dv + d]);
      if (masked) {
        EXPECT_TRUE(std::isinf(lse) && lse < 0) << "row " << row;
        EXPECT_EQ(sum, 0.0) << "row " << row;
      } else {
        EXPECT_TRUE(std::isfinite(lse)) << "row " << row;
        EXPECT_GT(sum, 0.0) << "row " << row;
      }
    }
  };
  // Sequence 4 (Sk = 0): rows 27..31 see nothing.
  for (int64_t row = in.qo_indptr[4]; row < in.qo_indptr[5]; ++row)
    rowIs(row, true);
  // Sequence 5 (Sq = 12 > Sk = 5, causal): the first 7 rows see nothing.
  for (int64_t i = 0; i < 12; ++i)
    rowIs(in.qo_indptr[5] + i, i < 7);
  r.qo_lens = {3};
  r.kv_lens = {40};
  r.mask = Mask::window(0, 0);
  Inputs one = makeInputs(r);
  OracleResult single = runOracle(one);
  // window(0, 0): every row sees exactly its own key: O = V, lse = S.
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t j = i + 37, g = h / r.groupSize();
      const int64_t pg = one.table.pageOf(r.table, 0, j), slot = j % r.page_size;
      for (int64_t d = 0; d < Dv; ++d)
        ASSERT_EQ(single.out[(i * Hq + h) * Dv + d],
                  double(one.vDescale(pg, g)) * one.vStored(pg, slot, g, d));
    }
  // All Sq = 0: empty outputs.
  r.qo_lens = {0, 0};
  r.kv_lens = {5, 0};
  OracleResult none = runOracle(makeInputs(r));
  EXPECT_TRUE(none.out.empty());
  EXPECT_TRUE(none.lse.empty());
}

TEST(Oracle, ReadsThroughThePageTable) {
  Request r = test::smallRequest();
  Inputs in = makeInputs(r);
  OracleResult base = runOracle(in);
  // Point one page of sequence 0 at an unused pool page: results change.
  std::vector<bool> used(in.nPages(), false);
  for (int32_t p : in.table.kv_page_indices)
    used[p] = true;
  int32_t spare = 0;
  while (used[spare])
    ++spare;
  Inputs moved = in;
  moved.table.kv_page_indices[1] = spare;
  OracleResult changed = runOracle(moved);
  EXPECT_NE(base.out, changed.out);
  // The block-table form of the same inputs is untouched.
  EXPECT_EQ(runOracle(moved, TableForm::Block).out, base.out);
  // An id outside the pool is rejected before anything is read.
  moved.table.kv_page_indices[1] = static_cast<int32_t>(in.nPages());
  EXPECT_THROW(runOracle(moved), std::invalid_argument);
}
