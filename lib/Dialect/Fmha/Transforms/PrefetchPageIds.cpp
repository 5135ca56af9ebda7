//===- PrefetchPageIds.cpp - fmha-prefetch-page-ids -------------------------===//
//
// Loads the page ids (and their kd/vd) of KV tile t+1 during iteration t and
// carries them in the KV loop (docs/SPEC.md section 5), so the dependent
// page-table load is off the critical path of the gathers of tile t.
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAPREFETCHPAGEIDS
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// One page_ids op of the KV loop that can be prefetched, with the
/// gather_descale ops that read its ids.
struct Candidate {
  PageIdsOp ids;
  int64_t tileSize; // tile_start = iv * tileSize
  SmallVector<GatherDescaleOp> descales;
};

/// The constant C when `v` is `iv * C` (either operand order), computed in
/// the loop body itself.
std::optional<int64_t> tileSizeOf(Value v, scf::ForOp loop) {
  auto mul = v.getDefiningOp<arith::MulIOp>();
  if (!mul || mul->getBlock() != loop.getBody())
    return std::nullopt;
  Value iv = loop.getInductionVar();
  APInt c;
  if (mul.getLhs() == iv && matchPattern(mul.getRhs(), m_ConstantInt(&c)))
    return c.getSExtValue();
  if (mul.getRhs() == iv && matchPattern(mul.getLhs(), m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// page_ids ops of the current tile (tile_start = iv * C) directly in the
/// loop body whose page list and length are loop-invariant. Ops in nested
/// regions are left alone: hoisting them would load ids a guarded path never
/// asked for. After a rewrite no page_ids is computed from iv any more, which
/// is what makes the pass idempotent.
SmallVector<Candidate> findCandidates(scf::ForOp loop, bool perToken) {
  SmallVector<Candidate> found;
  for (auto ids : loop.getBody()->getOps<PageIdsOp>()) {
    if (!perToken && isa<VectorType>(ids.getIds().getType()))
      continue;
    std::optional<int64_t> c = tileSizeOf(ids.getTileStart(), loop);
    if (!c || *c <= 0 || !loop.isDefinedOutsideOfLoop(ids.getPages()) ||
        !loop.isDefinedOutsideOfLoop(ids.getSeqLen()))
      continue;
    Candidate cand{ids, *c, {}};
    // In body order, so the carried values follow the program (kd, vd).
    // A descale gathered in a nested region, or from a per-iteration buffer
    // or head, stays; it then reads the carried ids, which are the same.
    for (auto ds : loop.getBody()->getOps<GatherDescaleOp>())
      if (ds.getIds() == ids.getIds() &&
          loop.isDefinedOutsideOfLoop(ds.getDescale()) &&
          loop.isDefinedOutsideOfLoop(ds.getHead()))
        cand.descales.push_back(ds);
    found.push_back(std::move(cand));
  }
  return found;
}

/// page_ids of the tile starting at `tileIndex * C` and the descales of those
/// ids, in the order of `cand.descales`.
/// When `descalesAt` is set, the descales are built there (after the ids,
/// in the same block).
SmallVector<Value> loadTile(OpBuilder &b, Location loc, const Candidate &cand,
                            Value tileIndex,
                            std::optional<OpBuilder::InsertPoint> descalesAt = {}) {
  Value c = arith::ConstantIndexOp::create(b, loc, cand.tileSize);
  Value start = arith::MulIOp::create(b, loc, tileIndex, c);
  PageIdsOp ids = cand.ids;
  SmallVector<Value> vals;
  vals.push_back(PageIdsOp::create(b, loc, ids.getIds().getType(), ids.getPages(),
                                   start, ids.getSeqLen(), ids.getPageSizeAttr()));
  OpBuilder::InsertionGuard g(b);
  if (descalesAt)
    b.restoreInsertionPoint(*descalesAt);
  for (GatherDescaleOp ds : cand.descales)
    vals.push_back(GatherDescaleOp::create(b, ds.getLoc(), ds.getResult().getType(),
                                           ds.getDescale(), vals.front(),
                                           ds.getHead()));
  return vals;
}

struct FmhaPrefetchPageIdsPass
    : public fmha::impl::FmhaPrefetchPageIdsBase<FmhaPrefetchPageIdsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kKVLoopAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (failed(prefetch(loop)))
        return signalPassFailure();
  }

  LogicalResult prefetch(scf::ForOp loop) {
    SmallVector<Candidate> cands = findCandidates(loop, perToken);
    if (cands.empty())
      return success();
    IRRewriter rw(loop.getContext());
    Location loc = loop.getLoc();

    // Prologue: tile lo's ids before the loop. page_ids reads nothing for a
    // tile at or past seq_len, so this is safe when the loop runs no
    // iteration too.
    SmallVector<Value> inits;
    rw.setInsertionPoint(loop);
    for (const Candidate &cand : cands)
      llvm::append_range(inits, loadTile(rw, loc, cand, loop.getLowerBound()));

    // Next tile's ids at the top of the body, ahead of tile t's gathers and
    // MMAs, so a target can issue the page-table load early and hide it;
    // the descales they select at the end of the body, so that the id's
    // load has the whole tile to land (at the top, the descale loads waited
    // for it at once: a scalar load's latency every tile, issue 15 item 3)
    // and the descales' own loads the next tile's first MMAs. The last
    // iteration prefetches tile hi: its tokens at or past seq_len read
    // nothing (-1; a uniform id in the loop may instead be the sequence's
    // last page, fmha.page_ids), the others lie in the sequence's own pages.
    SmallVector<Value> nexts;
    rw.setInsertionPointToStart(loop.getBody());
    Value nextIv = arith::AddIOp::create(rw, loc, loop.getInductionVar(),
                                         loop.getStep());
    // After the tile's last K/V gather (its loads issued), else at the end.
    Operation *after = nullptr;
    for (Operation &op : loop.getBody()->without_terminator())
      if (isa<GatherKVOp>(op))
        after = &op;
    OpBuilder::InsertPoint end(loop.getBody(),
                               after ? std::next(after->getIterator())
                                     : loop.getBody()->getTerminator()->getIterator());
    for (const Candidate &cand : cands)
      llvm::append_range(nexts, loadTile(rw, loc, cand, nextIv, end));

    // replaceWithAdditionalYields moves the body into a new loop (block
    // arguments remapped), so the next-tile ops built above come along. Our
    // markers (fmha.kv_loop, the folds' ones) must survive on the new loop
    // whether or not the upstream helper copies discardable attributes.
    auto discardable = loop->getDiscardableAttrDictionary();
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rw, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) { return nexts; });
    if (failed(replaced))
      return loop.emitOpError("could not add the prefetched page ids to the loop");
    auto newLoop = cast<scf::ForOp>(replaced->getOperation());
    newLoop->setDiscardableAttrs(discardable);

    // The current tile's ids and descales are now the carried values.
    ArrayRef<BlockArgument> carried =
        newLoop.getRegionIterArgs().take_back(inits.size());
    size_t i = 0;
    for (Candidate &cand : cands) {
      rw.replaceAllUsesWith(cand.ids.getIds(), carried[i++]);
      for (GatherDescaleOp ds : cand.descales) {
        rw.replaceAllUsesWith(ds.getResult(), carried[i++]);
        rw.eraseOp(ds);
      }
      Value start = cand.ids.getTileStart();
      rw.eraseOp(cand.ids);
      // iv * C usually still feeds the gathers and the mask; drop it if not.
      if (Operation *def = start.getDefiningOp(); def && def->use_empty())
        rw.eraseOp(def);
    }
    numPrefetched += inits.size();
    return success();
  }
};

} // namespace
