//===- FoldVdRescale.cpp - fmha-fold-vd-rescale -----------------------------===//
//
// o = alpha * o + vd * (P x V) needs a second accumulator on an MMA unit: the
// product cannot accumulate into o while vd multiplies only the new part.
// Keeping o' = o / vd_t instead makes it one accumulating product,
// o' = P x V + beta * o' with beta = alpha * vd_{t-1} / vd_t (one scalar
// division per tile), and the epilogue multiplies by the last tile's vd.
//
//===----------------------------------------------------------------------===//
#include "KVLoop.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAFOLDVDRESCALE
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// o_new = (rowbcast(alpha) * o) + (u * vd), u = P x V with a zero acc; or,
/// with a vd per V row, o_new = (rowbcast(alpha) * o) + u, u = P x V with a
/// zero acc and k_scale = the per-row vd (then vdMul is null and vd is the
/// tile's first key's vd, made by fold).
struct Plan {
  arith::AddFOp update;
  Value alphaRow; // vector<BlockM>
  TileMmaOp pv;
  arith::MulFOp vdMul;
  Value vd; // f32 scalar, one per tile
  /// Per-row vd: the gather_descale of k_scale and its per-token page ids.
  GatherDescaleOp kDescale;
  PageIdsOp kIds;
  Value kScaleOf() { return pv.getKScale(); }
};

/// The parts of the update, or failure (the loop is then left alone) when the
/// loop is not the KV loop fmha-tile writes: fewer than (m, l, o) iter args,
/// an o that is not a 2-d f32 tile, or an update of another shape.
FailureOr<Plan> plan(scf::ForOp loop) {
  Plan p;
  p.update = kvloop::yieldedBy<arith::AddFOp>(loop, kKVLoopO);
  if (!p.update)
    return failure();
  Value o = loop.getRegionIterArgs()[kKVLoopO];
  auto oT = dyn_cast<VectorType>(o.getType());
  if (!oT || oT.getRank() != 2 || !oT.getElementType().isF32())
    return failure();
  for (Value side : {p.update.getLhs(), p.update.getRhs()}) {
    auto mul = side.getDefiningOp<arith::MulFOp>();
    if (!mul || !mul->hasOneUse())
      continue; // the product itself (vd per row), or not this shape
    for (auto [a, b] : {std::pair{mul.getLhs(), mul.getRhs()},
                        std::pair{mul.getRhs(), mul.getLhs()}}) {
      if (b == o && kvloop::rowOfBroadcast(a)) {
        p.alphaRow = kvloop::rowOfBroadcast(a);
      } else if (auto mma = kvloop::productFromZero(a, loop, oT); mma && !p.pv) {
        Value vd = kvloop::splatScalar(b);
        if (vd && vd.getType().isF32() && !mma.getKScale()) {
          p.pv = mma;
          p.vdMul = mul;
          p.vd = vd;
        }
      }
    }
  }
  // Per-row vd: the update adds the product itself.
  if (p.alphaRow && !p.pv) {
    for (Value side : {p.update.getLhs(), p.update.getRhs()}) {
      TileMmaOp mma = kvloop::productFromZero(side, loop, oT);
      if (!mma || !mma.getKScale() || mma->hasAttr(kUnitFirstPageAttr))
        continue;
      auto gd = mma.getKScale().getDefiningOp<GatherDescaleOp>();
      auto ids = gd ? gd.getIds().getDefiningOp<PageIdsOp>() : PageIdsOp();
      if (!ids || ids->getBlock() != loop.getBody())
        continue;
      p.pv = mma;
      p.kDescale = gd;
      p.kIds = ids;
    }
  }
  if (!p.alphaRow || !p.pv)
    return failure();
  if (p.kDescale) {
    DominanceInfo dom(loop);
    if (!dom.properlyDominates(p.alphaRow, p.pv) ||
        !dom.properlyDominates(p.kScaleOf(), p.pv))
      return failure();
    return p;
  }
  // beta is computed where the product was: alpha and vd must be there.
  DominanceInfo dom(loop);
  auto rowT = dyn_cast<VectorType>(p.alphaRow.getType());
  if (!rowT || rowT.getRank() != 1 || rowT.getDimSize(0) != oT.getDimSize(0) ||
      !dom.properlyDominates(p.alphaRow, p.pv) ||
      !dom.properlyDominates(p.vd, p.pv))
    return failure();
  return p;
}

LogicalResult fold(scf::ForOp loop, Plan &p) {
  IRRewriter rw(loop.getContext());
  Location loc = loop.getLoc();
  if (p.kDescale) {
    // vd per V row: o is kept in units of the tile's first key's vd, c (its
    // page's descale: the uniform page id of the tile start), and the rows'
    // scales become vd / c, exactly 1 on the first page's keys.
    rw.setInsertionPoint(p.pv);
    auto id0 = PageIdsOp::create(rw, loc, rw.getI32Type(), p.kIds.getPages(),
                                 p.kIds.getTileStart(), p.kIds.getSeqLen(),
                                 p.kIds.getPageSizeAttr());
    p.vd = GatherDescaleOp::create(rw, loc, rw.getF32Type(), p.kDescale.getDescale(),
                                   id0, p.kDescale.getHead());
  }
  rw.setInsertionPoint(loop);
  Value one = arith::ConstantOp::create(rw, loc, rw.getF32FloatAttr(1.0f));
  // The first tile's beta multiplies o' = 0: any vd_prev works; 1 is safe.
  auto discardable = loop->getDiscardableAttrDictionary();
  // vd may be an iter arg of the loop (fmha-prefetch-page-ids carries the
  // tile's descale in): the new loop replaces the old block and its
  // arguments, so such a vd is found again by its position.
  auto vdArg = dyn_cast<BlockArgument>(p.vd);
  std::optional<unsigned> vdArgNo;
  if (vdArg && vdArg.getOwner() == loop.getBody())
    vdArgNo = vdArg.getArgNumber();
  Value vd = p.vd;
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rw, ValueRange{one}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument> newArgs) {
        if (vdArgNo)
          vd = newArgs.front().getOwner()->getArgument(*vdArgNo);
        return SmallVector<Value>{vd};
      });
  if (failed(replaced))
    return failure();
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  if (vdArgNo)
    vd = newLoop.getBody()->getArgument(*vdArgNo);
  newLoop->setDiscardableAttrs(discardable);
  Value vdPrev = newLoop.getRegionIterArgs().back();
  Value o = newLoop.getRegionIterArgs()[kKVLoopO];

  // beta = alpha * vd_prev / vd; o' = P x V + beta * o'.
  rw.setInsertionPoint(p.pv);
  Value ratio = arith::DivFOp::create(rw, loc, vdPrev, vd);
  Value beta = arith::MulFOp::create(
      rw, loc, p.alphaRow,
      vector::BroadcastOp::create(rw, loc, p.alphaRow.getType(), ratio));
  auto oT = cast<VectorType>(o.getType());
  Value acc = arith::MulFOp::create(rw, loc, kvloop::broadcastRow(rw, loc, beta, oT), o);
  Value kScale;
  if (p.kDescale) {
    Value ks = p.kScaleOf();
    kScale = arith::DivFOp::create(
        rw, loc, ks, vector::BroadcastOp::create(rw, loc, ks.getType(), vd));
  }
  auto pv = TileMmaOp::create(rw, loc, oT, p.pv.getLhs(), p.pv.getRhs(), acc,
                              kScale, p.pv.getTransposeRhs());
  if (p.kDescale)
    pv->setAttr(kUnitFirstPageAttr, rw.getUnitAttr());
  rw.replaceAllUsesWith(p.update.getResult(), pv.getResult());
  Operation *alphaMul =
      (p.update.getLhs().getDefiningOp() == (p.vdMul ? p.vdMul.getOperation()
                                                      : p.pv.getOperation())
           ? p.update.getRhs()
           : p.update.getLhs())
          .getDefiningOp();
  rw.eraseOp(p.update);
  if (p.vdMul)
    rw.eraseOp(p.vdMul);
  rw.eraseOp(alphaMul);
  rw.eraseOp(p.pv);

  // Epilogue: o = o' * vd of the last tile.
  rw.setInsertionPointAfter(newLoop);
  Value oFinal = newLoop.getResult(kKVLoopO);
  Value vdLast = newLoop.getResults().back();
  Value fixed = arith::MulFOp::create(
      rw, loc, oFinal, vector::BroadcastOp::create(rw, loc, oT, vdLast));
  rw.replaceAllUsesExcept(oFinal, fixed, fixed.getDefiningOp());
  return success();
}

struct FmhaFoldVdRescalePass
    : public fmha::impl::FmhaFoldVdRescaleBase<FmhaFoldVdRescalePass> {
  void runOnOperation() override {
    for (scf::ForOp loop : kvloop::collect(getOperation())) {
      FailureOr<Plan> p = plan(loop);
      if (failed(p))
        continue; // vd per V row (k_scale), no vd, or already folded
      if (failed(fold(loop, *p)))
        return signalPassFailure();
    }
  }
};

} // namespace
