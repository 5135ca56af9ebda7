//===- MutateTest.cpp - Descale mutations: a correct kernel, a buggy view -===//
//
// Each mutation must make the oracle on the mutated descales compute what a
// kernel with that descale bug computes from the true ones (a naive attention
// with the bug written into its descale lookup), and spread data must make
// the emulation check see every one of them.

#include "fmha/Reference/Compare.h"
#include "fmha/Reference/Emulate.h"
#include "fmha/Reference/Mutate.h"
#include "fmha/Reference/Oracle.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

using namespace fmha::ref;

namespace {

constexpr DescaleMutation kBugs[] = {
    DescaleMutation::SwapKV, DescaleMutation::LogicalPage,
    DescaleMutation::WrongHead, DescaleMutation::PerTile,
    DescaleMutation::Global};

/// The descale a kernel with the bug reads for key j of sequence b, kv head
/// g, of K (t = 0) or V (t = 1), from the true descales.
float buggyDescale(const Inputs &in, DescaleMutation bug, int64_t blockN,
                   int t, int64_t b, int64_t j, int64_t g) {
  const int64_t P = in.req.page_size, H = in.req.num_kv_heads;
  const int32_t *pages = in.table.pages(in.req.table, b);
  auto D = [&](int tt, int64_t page, int64_t head) {
    return tt == 0 ? in.kDescale(page, head) : in.vDescale(page, head);
  };
  switch (bug) {
  case DescaleMutation::None:
    return D(t, pages[j / P], g);
  case DescaleMutation::SwapKV:
    return D(1 - t, pages[j / P], g);
  case DescaleMutation::LogicalPage:
    return D(t, j / P, g); // the logical page index read as a physical id
  case DescaleMutation::WrongHead:
    return D(t, pages[j / P], (g + 1) % H);
  case DescaleMutation::PerTile:
    return D(t, pages[(j / blockN) * blockN / P], g); // the tile's first page
  case DescaleMutation::Global: {
    int64_t p0 = 0;
    for (int64_t s = 0; s < in.table.batch(); ++s)
      if (in.table.numPages(in.req.table, s) > 0) {
        p0 = in.table.pages(in.req.table, s)[0];
        break;
      }
    return D(t, p0, 0);
  }
  }
  return 0;
}

/// SPEC section 3 in double with the descale lookup of a buggy kernel.
OracleResult buggyNaive(const Inputs &in, DescaleMutation bug, int64_t blockN) {
  const Request &r = in.req;
  const int64_t Hq = r.num_qo_heads, D = r.head_dim, Dv = r.headDimV();
  const int64_t G = r.groupSize(), P = r.page_size;
  OracleResult out;
  out.out.assign(in.qo_indptr.back() * Hq * Dv, 0.0);
  out.lse.assign(in.qo_indptr.back() * Hq,
                 -std::numeric_limits<double>::infinity());
  for (int64_t b = 0; b < r.batch(); ++b) {
    const int64_t sq = in.seqLenQ(b), sk = in.table.seqLen(r.table, b);
    const int32_t *pages = in.table.pages(r.table, b);
    for (int64_t i = 0; i < sq; ++i) {
      const int64_t row = in.qo_indptr[b] + i;
      for (int64_t h = 0; h < Hq; ++h) {
        const int64_t g = h / G;
        int64_t lo, hi;
        r.mask.visibleRange(i, sq, sk, lo, hi);
        if (lo > hi)
          continue;
        std::vector<double> S;
        for (int64_t j = lo; j <= hi; ++j) {
          const int64_t pg = pages[j / P], slot = j % P;
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += (double(in.q_descale) * in.qStored(row, h, d)) *
                   (double(buggyDescale(in, bug, blockN, 0, b, j, g)) *
                    in.kStored(pg, slot, g, d));
          S.push_back(r.smScale() * dot);
        }
        double m = *std::max_element(S.begin(), S.end()), sum = 0;
        for (double s : S)
          sum += std::exp(s - m);
        for (int64_t j = lo; j <= hi; ++j) {
          const int64_t pg = pages[j / P], slot = j % P;
          const double w = std::exp(S[j - lo] - m) / sum;
          const double vd = buggyDescale(in, bug, blockN, 1, b, j, g);
          for (int64_t d = 0; d < Dv; ++d)
            out.out[(row * Hq + h) * Dv + d] += w * (vd * in.vStored(pg, slot, g, d));
        }
        out.lse[row * Hq + h] = m + std::log(sum);
      }
    }
  }
  return out;
}

double maxRelDiff(const std::vector<double> &a, const std::vector<double> &b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::isfinite(b[i]))
      m = std::max(m, std::fabs(a[i] - b[i]) / std::max(1.0, std::fabs(b[i])));
  return m;
}

Request spreadRequest(int64_t P, TableForm form) {
  Request r = test::smallRequest();
  r.page_size = P;
  r.table = form;
  r.layout = form == TableForm::CSR ? KVLayout::NHD : KVLayout::HND;
  r.data = DataMode::Spread;
  return r;
}

} // namespace

TEST(Mutate, Names) {
  for (DescaleMutation m : kBugs)
    EXPECT_EQ(parseDescaleMutation(descaleMutationName(m)), m);
  EXPECT_EQ(parseDescaleMutation("none"), DescaleMutation::None);
  EXPECT_EQ(parseDescaleMutation("swap_kv"), DescaleMutation::SwapKV);
  EXPECT_EQ(parseDescaleMutation("Per-Tile"), DescaleMutation::PerTile);
  EXPECT_FALSE(parseDescaleMutation("per-page"));
  EXPECT_FALSE(parseDescaleMutation(""));
}

// The oracle on the mutated descales is the buggy kernel on the true ones,
// for both table forms, pages smaller than the tile (16, 32 | 64) and pages
// larger than it (64 > 32: per-tile changes nothing there).
TEST(Mutate, OracleOnMutatedDescalesIsTheBuggyKernel) {
  for (TableForm form : {TableForm::CSR, TableForm::Block})
    for (auto [P, blockN] : {std::pair<int64_t, int64_t>{16, 32}, {16, 64},
                             {8, 32}, {64, 32}}) {
      Inputs in = makeInputs(spreadRequest(P, form));
      for (DescaleMutation bug : kBugs) {
        SCOPED_TRACE(std::string(descaleMutationName(bug)) + " P=" +
                     std::to_string(P) + " block_n=" + std::to_string(blockN) +
                     " " + tableFormName(form));
        Inputs mutated = in;
        std::string note;
        ASSERT_EQ(mutateDescales(mutated, bug, blockN, &note), "");
        EXPECT_EQ(note.find("approximate"), std::string::npos) << note;
        OracleResult got = runOracle(mutated);
        OracleResult want = buggyNaive(in, bug, blockN);
        EXPECT_LT(maxRelDiff(got.out, want.out), 1e-12);
        EXPECT_LT(maxRelDiff(got.lse, want.lse), 1e-12);
        // The bug changes the answer, except per-tile with pages of whole
        // tiles.
        double moved = maxRelDiff(got.out, runOracle(in).out);
        if (bug == DescaleMutation::PerTile && P % blockN == 0)
          EXPECT_EQ(moved, 0.0);
        else
          EXPECT_GT(moved, 0.1);
      }
    }
}

TEST(Mutate, WhatEachRewriteChanges) {
  Inputs in = makeInputs(spreadRequest(16, TableForm::CSR));
  const int64_t N = in.nPages(), H = in.req.num_kv_heads;
  std::vector<float> d;
  std::string note;
  // swap-kv: every (page, head) of the pool, K and V exchanged.
  ASSERT_EQ(mutatedDescales(in, DescaleMutation::SwapKV, 32, d, &note), "");
  for (int64_t pg = 0; pg < N; ++pg)
    for (int64_t g = 0; g < H; ++g) {
      EXPECT_EQ(in.k_descale.at(d.data(), pg, g), in.vDescale(pg, g));
      EXPECT_EQ(in.v_descale.at(d.data(), pg, g), in.kDescale(pg, g));
    }
  EXPECT_EQ(note, "swap-kv: " + std::to_string(2 * N * H) + " of " +
                      std::to_string(2 * N * H) + " descales changed");
  // per-tile, 16-token pages in 32-token tiles: odd logical pages take the
  // page before them; unused pages are left alone.
  ASSERT_EQ(mutatedDescales(in, DescaleMutation::PerTile, 32, d, &note), "");
  EXPECT_NE(note.find("per-tile (block_n 32): "), std::string::npos) << note;
  const int32_t *pages = in.table.pages(TableForm::CSR, 0); // Sk = 40: 3 pages
  EXPECT_EQ(in.k_descale.at(d.data(), pages[1], 1), in.kDescale(pages[0], 1));
  EXPECT_EQ(in.v_descale.at(d.data(), pages[1], 0), in.vDescale(pages[0], 0));
  EXPECT_EQ(in.k_descale.at(d.data(), pages[2], 0), in.kDescale(pages[2], 0));
  // The straddling case is flagged.
  Inputs odd = makeInputs(spreadRequest(24, TableForm::CSR));
  ASSERT_EQ(mutatedDescales(odd, DescaleMutation::PerTile, 32, d, &note), "");
  EXPECT_NE(note.find("approximate"), std::string::npos) << note;
  // Errors: no tile width; a page used twice (not a makeInputs table).
  EXPECT_NE(mutatedDescales(in, DescaleMutation::PerTile, 0, d), "");
  Inputs shared = in;
  shared.table.kv_page_indices[1] = shared.table.kv_page_indices[0];
  std::string err = mutatedDescales(shared, DescaleMutation::LogicalPage, 32, d);
  EXPECT_NE(err.find("used twice"), std::string::npos) << err;
  // Per-tensor descales: only swap-kv changes them.
  Request pt = test::smallRequest();
  pt.quant = QuantMode::PerTensor;
  Inputs pin = makeInputs(pt);
  for (DescaleMutation bug : kBugs) {
    ASSERT_EQ(mutatedDescales(pin, bug, 32, d), "");
    if (bug == DescaleMutation::SwapKV)
      EXPECT_EQ(d, (std::vector<float>{pin.kv_descale[1], pin.kv_descale[0]}));
    else
      EXPECT_EQ(d, pin.kv_descale);
  }
}

// The emulation check (and the oracle's row bar) sees every bug on spread
// data; on uniform data at P = 1024 the descales are nearly equal and the
// bugs pass both checks.
TEST(Mutate, SpreadDataSeesEveryBugUniformDataDoesNot) {
  for (DataMode data : {DataMode::Spread, DataMode::Uniform}) {
    Request r = test::smallRequest();
    r.data = data;
    r.page_size = data == DataMode::Spread ? 16 : 1024;
    r.kv_lens = {1100, 19, 1500};
    r.qo_lens = {7, 19, 3};
    Inputs in = makeInputs(r);
    EmulateOptions eo;
    eo.block_n = 32;
    EmulateResult truth = runEmulation(in, eo);
    OracleResult oracle = runOracle(in);
    for (DescaleMutation bug : kBugs) {
      if (data == DataMode::Uniform && bug == DescaleMutation::PerTile)
        continue; // no effect when P % block_n == 0
      SCOPED_TRACE(std::string(descaleMutationName(bug)) + " " + dataModeName(data));
      Inputs mutated = in;
      ASSERT_EQ(mutateDescales(mutated, bug, eo.block_n), "");
      // What a correct kernel computes from the mutated descales.
      EmulateResult kernel = runEmulation(mutated, eo);
      CompareResult vsEmu =
          compareWithEmulation(in, kernel.out.data(), kernel.lse.data(), truth);
      CompareResult vsOracle =
          compareWithOracle(in, kernel.out.data(), kernel.lse.data(), oracle);
      if (data == DataMode::Spread) {
        EXPECT_FALSE(vsEmu.pass) << vsEmu.summary();
        EXPECT_FALSE(vsOracle.pass) << vsOracle.summary();
        EXPECT_GE(vsOracle.max_row_rel_err, kSpreadRowBar) << vsOracle.summary();
      } else {
        EXPECT_TRUE(vsEmu.pass) << vsEmu.summary();
        EXPECT_TRUE(vsOracle.pass) << vsOracle.summary();
      }
    }
  }
}
