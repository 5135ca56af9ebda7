//===- PeelMaskedTiles.cpp - fmha-peel-masked-tiles --------------------------===//
//
// Splits a KV loop around the run of tiles its fmha.mask_tile leaves
// unchanged, so that the steady-state loop carries no mask (issue: full
// tiles without a mask; docs/GPU_LOWERING.md, fmha-peel-masked-tiles).
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAPEELMASKEDTILES
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// What the split needs of one KV loop; found before anything is changed.
struct Plan {
  MaskTileOp mask;
  int64_t stride = 0; // key_start = iv * stride
};

std::optional<int64_t> constantIndex(Value v) {
  APInt c;
  if (!matchPattern(v, m_ConstantInt(&c)))
    return std::nullopt;
  return c.getSExtValue();
}

FailureOr<Plan> plan(scf::ForOp loop) {
  if (constantIndex(loop.getStep()) != 1 || !loop.getInductionVar().getType().isIndex())
    return failure();
  Plan p;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto m = dyn_cast<MaskTileOp>(op);
    if (!m)
      continue;
    if (p.mask)
      return failure(); // two masks: not the loop fmha-tile writes
    p.mask = m;
  }
  if (!p.mask)
    return failure();
  // Nested masks (in an scf.if, say) are not handled either.
  bool nested = false;
  loop.getBody()->walk([&](MaskTileOp m) { nested |= m != p.mask; });
  if (nested)
    return failure();
  auto mul = p.mask.getKeyStart().getDefiningOp<arith::MulIOp>();
  if (!mul)
    return failure();
  Value iv = loop.getInductionVar();
  std::optional<int64_t> c;
  if (mul.getLhs() == iv)
    c = constantIndex(mul.getRhs());
  else if (mul.getRhs() == iv)
    c = constantIndex(mul.getLhs());
  if (!c || *c <= 0)
    return failure();
  p.stride = *c;
  SmallVector<Value> invariant = {p.mask.getQPos(), p.mask.getSeqLen()};
  llvm::append_range(invariant, p.mask.getWindow());
  for (Value v : invariant)
    if (!loop.isDefinedOutsideOfLoop(v))
      return failure();
  return p;
}

/// [lo, hi) of the iterations whose tile the mask leaves unchanged, clamped to
/// the loop's range (lo <= hi). Every condition is linear in iv: with
/// keys [iv*C, iv*C + BN) and query positions [q, q + BM),
///   iv*C + BN <= seq_len,
///   causal:         iv*C + BN - 1 <= q,
///   window right R: iv*C + BN - 1 <= q + R  (R >= 0),
///   window left L:  iv*C >= q + BM - 1 - L  (L >= 0).
/// `prefix` is set when a left bound can leave masked tiles before lo.
std::pair<Value, Value> fullRange(ImplicitLocOpBuilder &b, scf::ForOp loop,
                                  const Plan &p, bool &prefix) {
  MaskTileOp m = p.mask;
  VectorType t = m.getResult().getType();
  int64_t bm = t.getDimSize(0), bn = t.getDimSize(1), c = p.stride;
  auto cIdx = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, v); };
  auto add = [&](Value x, int64_t k) -> Value {
    return k == 0 ? x : arith::AddIOp::create(b, x, cIdx(k)).getResult();
  };
  // The first iv past the last one with iv*C + BN - 1 <= x: floor((x - BN + 1) / C) + 1.
  auto hiFor = [&](Value x) -> Value {
    return add(arith::FloorDivSIOp::create(b, add(x, 1 - bn), cIdx(c)), 1);
  };
  Value q = m.getQPos();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  Value hi = hiFor(add(m.getSeqLen(), -1));
  MaskAttr mask = m.getMask();
  if (mask.isCausal())
    hi = arith::MinSIOp::create(b, hi, hiFor(q));
  Value lo = lb;
  prefix = false;
  auto isNonNeg = [&](Value w) -> Value {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::sge, w, cIdx(0));
  };
  // The first iv with iv*C >= x: ceil(x / C).
  auto loFor = [&](Value x) -> Value {
    return arith::CeilDivSIOp::create(b, x, cIdx(c));
  };
  if (!m.getWindow().empty()) {
    Value left = m.getWindow()[0], right = m.getWindow()[1];
    Value capped = arith::MinSIOp::create(
        b, hi, hiFor(arith::AddIOp::create(b, q, right)));
    hi = arith::SelectOp::create(b, isNonNeg(right), capped, hi);
    Value from = arith::MaxSIOp::create(
        b, lo, loFor(arith::SubIOp::create(b, add(q, bm - 1), left)));
    lo = arith::SelectOp::create(b, isNonNeg(left), from, lo);
    prefix = true;
  } else if (mask.isWindow()) {
    if (mask.getRight() >= 0)
      hi = arith::MinSIOp::create(b, hi, hiFor(add(q, mask.getRight())));
    if (mask.getLeft() >= 0) {
      lo = arith::MaxSIOp::create(b, lo, loFor(add(q, bm - 1 - mask.getLeft())));
      prefix = true;
    }
  }
  if (prefix)
    lo = arith::MinSIOp::create(b, arith::MaxSIOp::create(b, lo, lb), ub);
  hi = arith::MinSIOp::create(b, arith::MaxSIOp::create(b, hi, lo), ub);
  return {lo, hi};
}

/// A copy of `loop` before it running [lo, hi) from `inits`.
scf::ForOp cloneRange(OpBuilder &b, scf::ForOp loop, Value lo, Value hi,
                      ValueRange inits) {
  auto copy = cast<scf::ForOp>(b.clone(*loop));
  copy.setLowerBound(lo);
  copy.setUpperBound(hi);
  copy.getInitArgsMutable().assign(inits);
  return copy;
}

void split(scf::ForOp loop, Plan p) {
  ImplicitLocOpBuilder b(loop.getLoc(), loop);
  bool prefix;
  auto [lo, hi] = fullRange(b, loop, p, prefix);
  // The mask's position in the body, to find its copy in the clone.
  unsigned maskIndex = 0;
  for (Operation &op : *loop.getBody()) {
    if (&op == p.mask.getOperation())
      break;
    ++maskIndex;
  }
  ValueRange inits = loop.getInitArgs();
  SmallVector<Value> carried(inits.begin(), inits.end());
  if (prefix) {
    scf::ForOp before = cloneRange(b, loop, loop.getLowerBound(), lo, carried);
    carried.assign(before.getResults().begin(), before.getResults().end());
  }
  scf::ForOp full = cloneRange(b, loop, lo, hi, carried);
  auto fullMask = cast<MaskTileOp>(*std::next(full.getBody()->begin(), maskIndex));
  // Every key of a full tile is before seq_len: its gathers need no zero-fill.
  int64_t bn = fullMask.getResult().getType().getDimSize(1);
  full.getBody()->walk([&](GatherKVOp g) {
    if (g.getTileStart() == fullMask.getKeyStart() &&
        g.getSeqLen() == fullMask.getSeqLen() &&
        g.getTile().getType().getDimSize(0) <= bn)
      g.setInBounds(true);
  });
  fullMask.getResult().replaceAllUsesWith(fullMask.getScores());
  fullMask.erase();
  full->setAttr(kFullTilesAttr, b.getUnitAttr());
  // The masked copies are not split again (the pass is idempotent).
  if (prefix)
    full->getPrevNode()->setAttr(kMaskedTilesAttr, b.getUnitAttr());
  loop->setAttr(kMaskedTilesAttr, b.getUnitAttr());
  loop.setLowerBound(hi);
  loop.getInitArgsMutable().assign(full.getResults());
}

struct FmhaPeelMaskedTilesPass
    : public fmha::impl::FmhaPeelMaskedTilesBase<FmhaPeelMaskedTilesPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kKVLoopAttr) && !loop->hasAttr(kFullTilesAttr) &&
          !loop->hasAttr(kMaskedTilesAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      FailureOr<Plan> p = plan(loop);
      if (failed(p))
        continue;
      split(loop, *p);
      ++numPeeled;
    }
  }
};

} // namespace
