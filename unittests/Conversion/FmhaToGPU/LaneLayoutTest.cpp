//===- LaneLayoutTest.cpp - the lane layout each chip's TargetInfo gives --===//
//
// LaneLayout splits the accumulator layout into lane and register parts and
// the operands into runs; the patterns emit index arithmetic from those
// parts only, so they must rebuild TargetInfo's facts exactly on every lane.
// Mutations of the facts must be rejected with the rule they break.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/LaneLayout.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "MutatedTargetInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include <gtest/gtest.h>

#include <set>

using namespace mlir;
using namespace mlir::fmha;

namespace {

struct Chip {
  const char *name;
  int64_t blockM, blockN, warps;
};
const Chip kChipsUnderTest[] = {
    {"gfx942", 128, 128, 4}, {"gfx950", 128, 128, 4}, {"sm_90", 64, 64, 4},
    {"sm_90a", 64, 128, 4}};

class LaneLayoutTest : public ::testing::TestWithParam<Chip> {
protected:
  LaneLayoutTest() {
    ctx.loadDialect<FmhaDialect, func::FuncDialect>();
    module = ModuleOp::create(UnknownLoc::get(&ctx));
  }
  Type fp8() {
    return StringRef(GetParam().name) == "gfx942"
               ? Type(Float8E4M3FNUZType::get(&ctx))
               : Type(Float8E4M3FNType::get(&ctx));
  }
  ConfigAttr config(const TargetInfo &ti) {
    const Chip &c = GetParam();
    std::optional<MmaAtom> a = ti.mmaAtom(fp8());
    return ConfigAttr::get(&ctx, c.name, c.blockM, c.blockN, a ? a->k : 1,
                           c.warps, ti.waveSize(), a ? a->m : 1, a ? a->n : 1,
                           fp8(), 7, PageRegime::OnePage, VdRoute::Scalar, 0,
                           QScale::AsStored);
  }
  /// The layout, or the diagnostic text.
  FailureOr<LaneLayout> get(const TargetInfo &ti, std::string &diag) {
    ScopedDiagnosticHandler h(&ctx, [&](Diagnostic &d) {
      diag += d.str();
      return success();
    });
    return LaneLayout::get(ti, config(ti), fp8(), module.get());
  }
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_P(LaneLayoutTest, SplitRebuildsTheAccumulatorOnEveryLane) {
  auto ti = createTargetInfo(GetParam().name);
  std::string diag;
  FailureOr<LaneLayout> l = get(*ti, diag);
  ASSERT_TRUE(succeeded(l)) << diag;
  EXPECT_EQ(l->wave, ti->waveSize());
  EXPECT_EQ(l->rowsPerWave, GetParam().blockM / GetParam().warps);
  for (int64_t lane = 0; lane < l->wave; ++lane)
    for (int64_t v = 0; v < l->accPerLane(); ++v) {
      AccElem e = ti->accElem(lane, v);
      int64_t q = l->transposed ? e.col : e.row, n = l->transposed ? e.row : e.col;
      EXPECT_EQ(l->qLane.eval(lane) + l->qReg[v], q) << "lane " << lane << " reg " << v;
      EXPECT_EQ(l->columnOf(lane, 0, v), n) << "lane " << lane << " reg " << v;
      EXPECT_EQ(l->slotQ[l->slotOfReg[v]], l->qReg[v]);
    }
  // AMD: one query per lane; sm_90: two (rows l/4 and l/4 + 8).
  EXPECT_EQ(l->slots(), l->transposed ? 1 : 2);
}

TEST_P(LaneLayoutTest, OperandRunsCoverEachLanesElementsOnce) {
  auto ti = createTargetInfo(GetParam().name);
  std::string diag;
  FailureOr<LaneLayout> l = get(*ti, diag);
  ASSERT_TRUE(succeeded(l)) << diag;
  // (row, contiguous column) of an operand element: Q as (query, k), the
  // K/V side as (row of the staged tile, column).
  auto frag = [&](bool isQ, int64_t lane, int64_t e) -> FragElem {
    if (isQ) {
      if (!l->transposed)
        return ti->aFragElem(lane, e);
      FragElem f = ti->bFragElem(lane, e);
      return {f.col, f.row};
    }
    if (l->transposed)
      return ti->aFragElem(lane, e);
    FragElem f = ti->bFragElem(lane, e);
    return {f.col, f.row};
  };
  auto check = [&](ArrayRef<FragmentRun> runs, int64_t perLane, bool isQ) {
    int64_t covered = 0;
    for (const FragmentRun &r : runs) {
      EXPECT_EQ(r.len, runs[0].len);
      EXPECT_EQ(r.e0, covered);
      for (int64_t lane = 0; lane < l->wave; ++lane)
        for (int64_t i = 0; i < r.len; ++i) {
          FragElem f = frag(isQ, lane, r.e0 + i);
          EXPECT_EQ(r.row.eval(lane), f.row) << "lane " << lane << " elem " << r.e0 + i;
          EXPECT_EQ(r.col.eval(lane) + i, f.col) << "lane " << lane << " elem " << r.e0 + i;
        }
      covered += r.len;
    }
    EXPECT_EQ(covered, perLane);
  };
  check(l->qRuns, l->qPerLane(), true);
  check(l->kvRuns, l->kvPerLane(), false);
}

TEST_P(LaneLayoutTest, PVOperandIsTheLanesOwnScores) {
  auto ti = createTargetInfo(GetParam().name);
  std::string diag;
  FailureOr<LaneLayout> l = get(*ti, diag);
  ASSERT_TRUE(succeeded(l)) << diag;
  int64_t bn = GetParam().blockN;
  auto elems = l->pvOperandElems(*ti, bn, module.get());
  ASSERT_TRUE(succeeded(elems)) << diag;
  // Every (atom, register) of the lane's scores feeds exactly one P element.
  std::set<std::pair<int64_t, int64_t>> seen;
  for (auto &step : *elems)
    for (auto je : step)
      EXPECT_TRUE(seen.insert(je).second);
  EXPECT_EQ(static_cast<int64_t>(seen.size()), (bn / l->atomN) * l->accPerLane());
}

TEST_P(LaneLayoutTest, MutatedFactsAreRejectedWithTheRule) {
  {
    // A non-linear accumulator column.
    MutatedTargetInfo m(createTargetInfo(GetParam().name));
    m.acc = [&](int64_t lane, int64_t v) {
      AccElem e = m.orig().accElem(lane, v);
      if (lane == 3)
        (m.orig().transposedScores() ? e.row : e.col) += 1;
      return e;
    };
    std::string diag;
    EXPECT_TRUE(failed(get(m, diag)));
    EXPECT_NE(diag.find("accumulator layout"), std::string::npos) << diag;
  }
  {
    // V staged at the identity: P is no longer in the lanes the PV MMA reads.
    MutatedTargetInfo m(createTargetInfo(GetParam().name));
    m.pos = [](int64_t key) { return key; };
    std::string diag;
    FailureOr<LaneLayout> l = get(m, diag);
    ASSERT_TRUE(succeeded(l)) << diag;
    ScopedDiagnosticHandler h(&ctx, [&](Diagnostic &d) {
      diag += d.str();
      return success();
    });
    EXPECT_TRUE(failed(l->pvOperandElems(m, GetParam().blockN, module.get())));
    EXPECT_NE(diag.find("P is not in the lanes the PV product needs it in"),
              std::string::npos)
        << diag;
  }
  {
    // block_m / warps other than the MMA's query extent.
    auto ti = createTargetInfo(GetParam().name);
    const Chip &c = GetParam();
    std::optional<MmaAtom> a = ti->mmaAtom(fp8());
    auto cfg = ConfigAttr::get(&ctx, c.name, c.blockM * 2, c.blockN, a->k, c.warps,
                               ti->waveSize(), a->m, a->n, fp8(), 7,
                               PageRegime::OnePage, VdRoute::Scalar, 0,
                           QScale::AsStored);
    std::string diag;
    ScopedDiagnosticHandler h(&ctx, [&](Diagnostic &d) {
      diag += d.str();
      return success();
    });
    EXPECT_TRUE(failed(LaneLayout::get(*ti, cfg, fp8(), module.get())));
    EXPECT_NE(diag.find("must equal the MMA's query extent"), std::string::npos)
        << diag;
  }
}

// The V transpose's words (planVWords): every key of the tile in exactly one
// word, a word's keys at consecutive positions of V^T from a multiple of the
// word size, on every chip; D 128 (8 chunks a row), the chip's threads.
TEST_P(LaneLayoutTest, VWordsCoverTheKeysOnceAtConsecutivePositions) {
  auto ti = createTargetInfo(GetParam().name);
  int64_t bn = GetParam().blockN, threads = GetParam().warps * ti->waveSize();
  VWordPlan w = planVWords(*ti, bn, bn, 8, threads);
  // 4-byte words everywhere: AMDGPU keeps runs of 4 keys adjacent; on
  // NVIDIA positions 4t..4t+3 hold keys 2t, 2t+1, 2t+8, 2t+9 (per 16).
  ASSERT_EQ(w.keys, 4);
  bool nvidia = StringRef(GetParam().name).starts_with("sm_");
  SmallVector<int64_t, 4> want =
      nvidia ? SmallVector<int64_t, 4>({0, 1, 8, 9}) : SmallVector<int64_t, 4>({0, 1, 2, 3});
  EXPECT_EQ(w.offsets, want);
  std::set<int64_t> seen;
  int64_t prev = -1;
  for (int64_t q = 0; q < bn / w.keys; ++q) {
    int64_t base = w.base.eval(q), p0 = ti->pvKeyPosition(base);
    EXPECT_GT(base, prev) << "bases ascend";
    prev = base;
    EXPECT_EQ(p0 % w.keys, 0) << "word " << q;
    for (int64_t j = 0; j < w.keys; ++j) {
      EXPECT_EQ(ti->pvKeyPosition(base + w.offsets[j]), p0 + j) << "word " << q;
      EXPECT_TRUE(seen.insert(base + w.offsets[j]).second) << "key twice";
    }
  }
  EXPECT_EQ(int64_t(seen.size()), bn);
  // A position map whose pairs are not a fixed offset apart (key k and
  // k + 1 adjacent only for k % 4 == 0 in the first half) gets no words of 4.
  MutatedTargetInfo m(createTargetInfo(GetParam().name));
  m.pos = [&](int64_t k) {
    return k < bn / 2 ? k : bn / 2 + ((k - bn / 2) % 2) * (bn / 4) + (k - bn / 2) / 2;
  };
  EXPECT_EQ(planVWords(m, bn, bn, 8, threads).keys, 1);
  // Words that neither divide among the threads nor divide them (1.5x the
  // threads): no words of 4 or 2 either.
  EXPECT_EQ(planVWords(*ti, bn, bn, 8, threads * 3 / 2).keys, 1);
  // Fewer words than threads, whole waves of them (D 64 on AMDGPU: 4 chunks
  // a row, bn words of 4 keys for 2 bn threads, 256 at bn 128): each group
  // of bn threads takes all the words (emitKVTile), so still words of 4;
  // NVIDIA (its transposition by key groups) keeps needing whole shares,
  // so words of 2 there (2 bn of them).
  EXPECT_EQ(planVWords(*ti, bn, bn, 4, 2 * bn).keys, nvidia ? 2 : 4);
}

// The spread form (SpreadPlan): on every lane, each element of the column
// form, taken from the slot and group lane colsFromSpread reads, is the
// value of the column the lane's accumulator element has; the group's
// lanes hold each of its distinct columns once, in as many slots as the
// share has. Mutations of the plan (another place, another slot) fail.
TEST_P(LaneLayoutTest, SpreadFormBroadcastsEachColumnsOwnValue) {
  auto ti = createTargetInfo(GetParam().name);
  std::string diag;
  FailureOr<LaneLayout> l = get(*ti, diag);
  ASSERT_TRUE(succeeded(l)) << diag;
  std::optional<SpreadPlan> sp =
      planSpread(*l, ti->groupBroadcastLanes(), ti->groupBroadcastStride());
  ASSERT_TRUE(sp.has_value());
  int64_t atoms = GetParam().blockN / l->atomN;
  ASSERT_TRUE(sp->fits(*l, atoms));
  // AMDGPU: 16 distinct columns an atom, groups of 16; NVIDIA: 2, groups
  // of 8 at stride 4. A tile's share is 4 slots on every chip but sm_90
  // (BlockN 64: 2).
  EXPECT_EQ(sp->g, l->transposed ? 16 : 8);
  EXPECT_EQ(static_cast<int64_t>(sp->regs.size()), l->transposed ? 16 : 2);
  EXPECT_EQ(sp->slots(atoms), GetParam().blockN == 64 ? 2 : 4);
  // The column slot s of `lane` holds (LaneContext::spreadColumn).
  auto held = [&](int64_t lane, int64_t s, int64_t slotShift, int64_t placeShift) {
    int64_t p = (sp->placeOf(lane) + placeShift) % sp->g;
    int64_t s2 = (s + slotShift) % sp->slots(atoms);
    return l->nLane.eval(lane) + sp->offsetOf(*l, s2 * sp->g) + sp->slotBits(*l, s2)->eval(p);
  };
  auto mismatches = [&](int64_t slotShift, int64_t placeShift) {
    int64_t bad = 0;
    for (int64_t lane = 0; lane < l->wave; ++lane)
      for (int64_t j = 0; j < atoms; ++j)
        for (int64_t v = 0; v < l->accPerLane(); ++v) {
          int64_t el = sp->elementOf(j, v);
          int64_t src = sp->sourceLane(lane, el % sp->g);
          EXPECT_EQ(sp->placeOf(src), el % sp->g);
          bad += held(src, el / sp->g, slotShift, placeShift) != l->columnOf(lane, j, v);
        }
    return bad;
  };
  EXPECT_EQ(mismatches(0, 0), 0);
  EXPECT_GT(mismatches(1, 0), 0);
  EXPECT_GT(mismatches(0, 1), 0);
  // A group's lanes hold its distinct columns once each.
  for (int64_t lane = 0; lane < l->wave; ++lane) {
    if (sp->placeOf(lane) != 0)
      continue;
    std::multiset<int64_t> cols, want;
    for (int64_t i = 0; i < sp->g; ++i)
      for (int64_t s = 0; s < sp->slots(atoms); ++s)
        cols.insert(held(sp->sourceLane(lane, i), s, 0, 0));
    for (int64_t j = 0; j < atoms; ++j)
      for (int64_t r : sp->regs)
        want.insert(l->columnOf(lane, j, r));
    EXPECT_EQ(cols, want) << "group of lane " << lane;
  }
}

INSTANTIATE_TEST_SUITE_P(Chips, LaneLayoutTest, ::testing::ValuesIn(kChipsUnderTest),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(BitLinear, FitsLinearFunctionsAndRejectsOthers) {
  auto f = fitBits(64, [](int64_t x) { return 3 + 8 * (x / 32) + (x % 32); });
  ASSERT_TRUE(f.has_value());
  for (int64_t x = 0; x < 64; ++x)
    EXPECT_EQ(f->eval(x), 3 + 8 * (x / 32) + (x % 32));
  EXPECT_FALSE(fitBits(64, [](int64_t x) { return x * x; }).has_value());
}

} // namespace
