//===- FoldVdExp2.cpp - fmha-fold-vd-exp2 ---------------------------------===//
//
// The exp2_bias V-descale route (docs/FOLDS.md, "vd in the exp2
// argument"): where P x V scales its keys by a per-key vd (k_scale), the
// vd moves into the softmax instead: the exp2 argument takes y = S' c +
// log2(vd) (c the folded sigma), so p = exp2(y - off) carries each key's
// vd; the tile's row max is max(y) / c, the max of S' + log2(vd) / c in
// the scores' units; the row sum takes p / vd; P x V drops its k_scale.
// The rule is on the pass (Passes.td).
//
//===----------------------------------------------------------------------===//
#include "KVLoop.h"

#include "fmha/Dialect/Fmha/IR/FmhaOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Dominance.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAFOLDVDEXP2
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// The parts of one KV loop's softmax and P x V that the fold rewrites.
struct Plan {
  TileMmaOp pv;               // P x V with k_scale = vd (per key)
  math::Exp2Op exp;           // p = exp2(S' * c - off)
  arith::MulFOp scaled;       // S' * c
  Value scores, c;            // S', the scalar c
  vector::MultiDimReductionOp rowMax, rowSum;
};

FailureOr<Plan> plan(scf::ForOp loop) {
  Plan p;
  p.pv = kvloop::findInBody<TileMmaOp>(
      loop, [](TileMmaOp m) { return !m.getTransposeRhs() && m.getKScale(); });
  if (!p.pv || !isa<VectorType>(p.pv.getKScale().getType()))
    return failure();
  auto trunc = p.pv.getLhs().getDefiningOp<arith::TruncFOp>();
  p.exp = trunc ? trunc.getIn().getDefiningOp<math::Exp2Op>() : math::Exp2Op();
  auto sub = p.exp ? p.exp.getOperand().getDefiningOp<arith::SubFOp>() : arith::SubFOp();
  p.scaled = sub ? sub.getLhs().getDefiningOp<arith::MulFOp>() : arith::MulFOp();
  if (!p.scaled)
    return failure();
  for (auto [s, c] : {std::pair{p.scaled.getLhs(), p.scaled.getRhs()},
                      std::pair{p.scaled.getRhs(), p.scaled.getLhs()}})
    if (Value cs = kvloop::splatScalar(c); cs && cs.getType().isF32()) {
      p.scores = s;
      p.c = cs;
    }
  if (!p.scores)
    return failure();
  for (Operation *u : p.scores.getUsers())
    if (auto r = dyn_cast<vector::MultiDimReductionOp>(u);
        r && r.getKind() == vector::CombiningKind::MAXIMUMF)
      p.rowMax = r;
  for (Operation *u : p.exp->getUsers())
    if (auto r = dyn_cast<vector::MultiDimReductionOp>(u);
        r && r.getKind() == vector::CombiningKind::ADD)
      p.rowSum = r;
  if (!p.rowMax || !p.rowSum)
    return failure();
  // fold builds y (from vd and c) and 1 / c at the row max, and y replaces
  // S' c, so vd and c must be there and S' c used only after it.
  DominanceInfo dom(loop);
  if (!dom.properlyDominates(p.pv.getKScale(), p.rowMax) ||
      !dom.properlyDominates(p.c, p.rowMax) ||
      !llvm::all_of(p.scaled->getUsers(), [&](Operation *u) {
        return dom.properlyDominates(p.rowMax.getOperation(), u);
      }))
    return failure();
  return p;
}

void fold(Plan &p) {
  OpBuilder b(p.rowMax);
  Location loc = p.rowMax.getLoc();
  auto tileT = cast<VectorType>(p.scores.getType());
  Value vd = p.pv.getKScale();
  auto vecT = cast<VectorType>(vd.getType());
  // In exp2 units, per key: y = S' c + log2(vd), the exp2 argument before
  // the row max is subtracted (p.scaled was S' c).
  Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
  Value log2Vd = math::Log2Op::create(b, loc, vd);
  Value y = arith::AddFOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, p.scores,
                            vector::BroadcastOp::create(b, loc, tileT, p.c)),
      vector::BroadcastOp::create(b, loc, tileT, log2Vd));
  p.scaled.getResult().replaceAllUsesWith(y);
  p.scaled.erase();
  // The row max of S' + log2(vd) / c, taken in exp2 units and scaled back
  // once a row: max(y) * (1 / c) (the lane lowering takes max(y) a page as
  // (kd c) max(S) + log2(vd); in score units each page's bias would cost a
  // multiply by 1 / c). The running max stays in the scores' units; m c
  // then differs from max(y) by f32 rounding only, so the largest exp2
  // argument of a row is the shift up to that rounding and P stays in range.
  p.rowMax.getSourceMutable().assign(y);
  b.setInsertionPointAfter(p.rowMax);
  Value invC = arith::DivFOp::create(b, loc, one, p.c);
  auto rowT = cast<VectorType>(p.rowMax.getType());
  Value mTile = arith::MulFOp::create(b, loc, p.rowMax.getResult(),
                                      vector::BroadcastOp::create(b, loc, rowT, invC));
  p.rowMax.getResult().replaceAllUsesExcept(mTile, mTile.getDefiningOp());
  // The row sum of p / vd (in f32, before the cast).
  b.setInsertionPoint(p.rowSum);
  Value inv = arith::DivFOp::create(
      b, loc, vector::BroadcastOp::create(b, loc, vecT, one), vd);
  Value pw = arith::MulFOp::create(b, loc, p.exp.getResult(),
                                   vector::BroadcastOp::create(b, loc, tileT, inv));
  p.rowSum.getSourceMutable().assign(pw);
  p.pv.getKScaleMutable().clear();
}

struct FmhaFoldVdExp2Pass
    : public fmha::impl::FmhaFoldVdExp2Base<FmhaFoldVdExp2Pass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *grid) {
      auto cfg = grid->getAttrOfType<ConfigAttr>(kGridConfigAttr);
      if (!cfg || cfg.getVdRoute() != VdRoute::Exp2Bias)
        return;
      for (scf::ForOp loop : kvloop::collect(grid))
        if (FailureOr<Plan> p = plan(loop); succeeded(p))
          fold(*p);
    });
  }
};

} // namespace
