//===- PipelineKVStages.cpp - fmha-pipeline-kv-stages ----------------------===//
//
// Software pipelining of the steady-state KV loop: the K and V tiles of
// iteration t + 1 are started (fmha.stage_kv, asynchronous copies into a
// ring of shared-memory stages) before iteration t waits for its own
// (fmha.staged_kv), so the copies overlap the whole of tile t's work. The
// rewrite and its rules are on the pass (Passes.td).
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "KVLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAPIPELINEKVSTAGES
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Values of the loop body as another iteration (or the prologue) sees
/// them, cloned at `b`'s insertion point on demand; null when a value needs
/// an op that cannot be recomputed.
class IterationValues {
public:
  /// First: the loop's first iteration, before the loop. Next: iteration
  /// t + 1 seen from iteration t at `point`. NextClamped: the same with the
  /// induction variable min(t + 1, ub - 1) (the last iteration sees its own
  /// tile; carried values are still iteration t + 1's). This: iteration
  /// t's own values at `point` (those defined after it cloned there).
  enum class Kind { First, Next, NextClamped, This };
  IterationValues(scf::ForOp loop, OpBuilder &b, Kind kind, Operation *point)
      : loop(loop), b(b), kind(kind), point(point) {}

  Value get(Value v) {
    if (kind == Kind::This)
      return atThis(v);
    if (Value m = map.lookupOrNull(v))
      return m;
    Value r = compute(v);
    if (r)
      map.map(v, r);
    return r;
  }

private:
  Value compute(Value v) {
    Block *body = loop.getBody();
    if (v.getParentBlock() != body && !body->getParentOp()->isAncestor(
                                           v.getParentBlock()->getParentOp()))
      return v; // defined outside the loop
    if (v == loop.getInductionVar()) {
      if (kind == Kind::First)
        return loop.getLowerBound();
      Location loc = loop.getLoc();
      Value next = arith::AddIOp::create(b, loc, v, loop.getStep());
      if (kind == Kind::NextClamped) {
        // In 32 bits (a KV loop has fewer than 2^31 tiles): AMDGPU has no
        // 64-bit scalar min, and an index min went to the VALU.
        Type i32 = b.getI32Type();
        Value last = arith::SubIOp::create(b, loc, loop.getUpperBound(), loop.getStep());
        Value m = arith::MinSIOp::create(b, loc, arith::IndexCastOp::create(b, loc, i32, next),
                                         arith::IndexCastOp::create(b, loc, i32, last));
        next = arith::IndexCastOp::create(b, loc, b.getIndexType(), m);
      }
      return next;
    }
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != body)
        return {};
      unsigned i = arg.getArgNumber() - 1;
      if (kind == Kind::First)
        return loop.getInitArgs()[i];
      // Iteration t + 1's argument is what iteration t yields.
      return atThis(body->getTerminator()->getOperand(i));
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != body || !kvloop::readsOnly(def))
      return {};
    return cloneWith(def, v, [&](Value x) { return get(x); });
  }

  /// Iteration t's own value of v at `point`: itself where it is already
  /// computed there, else its op again.
  Value atThis(Value v) {
    if (Value m = here.lookupOrNull(v))
      return m;
    Operation *def = v.getDefiningOp();
    Value r = v;
    if (def && def->getBlock() == loop.getBody() && !def->isBeforeInBlock(point) &&
        def != point) {
      if (!kvloop::readsOnly(def))
        return {};
      r = cloneWith(def, v, [&](Value x) { return atThis(x); });
    }
    if (r)
      here.map(v, r);
    return r;
  }

  template <typename F> Value cloneWith(Operation *def, Value v, F operandOf) {
    IRMapping m;
    for (Value o : def->getOperands()) {
      Value x = operandOf(o);
      if (!x)
        return {};
      m.map(o, x);
    }
    Operation *c = b.clone(*def, m);
    return c->getResult(cast<OpResult>(v).getResultNumber());
  }

  scf::ForOp loop;
  OpBuilder &b;
  Kind kind;
  Operation *point;
  IRMapping map, here;
};

/// Remembers the ops its builders create, to erase them when the rewrite
/// of a loop is given up.
struct MadeOps : OpBuilder::Listener {
  llvm::SetVector<Operation *> ops;
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.insert(op);
  }
  void eraseAll() {
    for (Operation *op : llvm::reverse(ops))
      op->erase();
  }
};

SmallVector<Value> operandsOf(GatherKVOp g) {
  return {g.getCache(), g.getIds(), g.getHead(), g.getTileStart(), g.getSeqLen()};
}

/// g's operands as `vals` sees them, into `out`; false on a miss.
bool operandsIn(IterationValues &vals, GatherKVOp g, SmallVector<Value> &out) {
  for (Value v : operandsOf(g)) {
    Value x = vals.get(v);
    if (!x)
      return false;
    out.push_back(x);
  }
  return true;
}

struct PipelineKVStagesPass
    : public fmha::impl::FmhaPipelineKVStagesBase<PipelineKVStagesPass> {
  using FmhaPipelineKVStagesBase::FmhaPipelineKVStagesBase;

  void runOnOperation() override {
    if (!singleStage && stages < 2) {
      mlir::emitError(getOperation()->getLoc())
          << "fmha-pipeline-kv-stages: stages must be at least 2, got "
          << static_cast<int64_t>(stages);
      return signalPassFailure();
    }
    int64_t nextRing = 0;
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp f) {
      if (f->hasAttr(kKVLoopAttr) && f->hasAttr(kFullTilesAttr) &&
          !f->hasAttr(kPipelinedAttr))
        loops.push_back(f);
    });
    for (scf::ForOp loop : loops) {
      if (singleStage)
        pipelineSingleStage(loop, nextRing);
      else
        pipeline(loop, nextRing);
    }
  }

  /// Whether the fp8 gathers `gathers` can be staged (in_bounds: no
  /// zero-fill; 16-bit tiles keep the synchronous staging).
  static bool stageable(ArrayRef<GatherKVOp> gathers) {
    return !gathers.empty() && llvm::all_of(gathers, [](GatherKVOp g) {
      return g.getInBounds() && g.getTile().getType().getElementTypeBitWidth() == 8;
    });
  }

  static Operation *createStage(OpBuilder &b, GatherKVOp g, ArrayRef<Value> v, Value slot,
                                Value enabled, int64_t ring, int64_t stages) {
    return StageKVOp::create(b, g.getLoc(), v[0], v[1], v[2], v[3], v[4], slot, enabled,
                      g.getKvLayoutAttr(), b.getUnitAttr(), b.getI64IntegerAttr(ring),
                      b.getI64IntegerAttr(stages), TypeAttr::get(g.getTile().getType()));
  }

  /// The single-stage schedule (the pass's description): K of the first
  /// tile before the loop; in iteration t, V of tile t after K's wait and K
  /// of tile t + 1 after V's wait.
  void pipelineSingleStage(scf::ForOp loop, int64_t &nextRing) {
    SmallVector<GatherKVOp> gathers(loop.getBody()->getOps<GatherKVOp>());
    auto isK = [](GatherKVOp g) {
      return llvm::any_of(g.getTile().getUsers(), [](Operation *u) {
        auto m = dyn_cast<TileMmaOp>(u);
        return m && m.getTransposeRhs();
      });
    };
    // The loads into LDS read the cache through a bounded view of its
    // rows: a static row stride.
    auto staticRows = [](GatherKVOp g) {
      SmallVector<int64_t> strides;
      int64_t offset;
      auto t = cast<MemRefType>(g.getCache().getType());
      return succeeded(t.getStridesAndOffset(strides, offset)) &&
             !ShapedType::isDynamic(strides[g.getKvLayout() == KVLayout::NHD ? 1 : 2]);
    };
    // A tile of at most eight pages: each page of a tile is a bounded view
    // (a buffer resource) and an LDS base a load step. (gfx950, measured
    // 2026-12-06: page 8, sixteen pages a tile, spilled 45 SGPRs where the
    // loads through registers spill 9; pages 16 and 32 take 16 % and 18 %
    // fewer modelled cycles.)
    auto fewPages = [](GatherKVOp g) {
      auto t = cast<MemRefType>(g.getCache().getType());
      int64_t page = t.getDimSize(g.getKvLayout() == KVLayout::NHD ? 1 : 2);
      return 8 * page >= g.getTile().getType().getDimSize(0);
    };
    if (gathers.size() != 2 || !stageable(gathers) || !isK(gathers[0]) || isK(gathers[1]) ||
        !llvm::all_of(gathers, staticRows) || !llvm::all_of(gathers, fewPages))
      return;
    GatherKVOp gk = gathers[0], gv = gathers[1];
    // V is read where its first product is (a gather of V right after K's,
    // for one wait a tile, would leave its loads nothing to run behind).
    Operation *vUse = nullptr;
    for (Operation *u : gv.getTile().getUsers())
      if (u->getBlock() == loop.getBody() && (!vUse || u->isBeforeInBlock(vUse)))
        vUse = u;
    if (!vUse)
      return;
    // v-after-scores: V read right after the first product of K (S = Q K^T)
    // instead, where V's read writes LDS (gfx942's V^T, from registers) and
    // its barrier would otherwise keep P V from starting in the softmax.
    // K must have that one product: the next K's loads after it refill K's
    // stage.
    if (vAfterScores) {
      if (!gk.getTile().hasOneUse())
        return;
      Operation *kUse = *gk.getTile().getUsers().begin();
      if (kUse->getBlock() != loop.getBody() || !kUse->getNextNode() ||
          !kUse->isBeforeInBlock(vUse))
        return;
      vUse = kUse->getNextNode();
    }
    Location loc = loop.getLoc();
    OpBuilder pre(loop), afterK(gk), afterV(vUse);
    afterK.setInsertionPointAfter(gk);
    MadeOps made;
    for (OpBuilder *b : {&pre, &afterK, &afterV})
      b->setListener(&made);
    IterationValues first(loop, pre, IterationValues::Kind::First, gk);
    IterationValues thisTile(loop, afterK, IterationValues::Kind::This, gk);
    IterationValues next(loop, afterV, IterationValues::Kind::NextClamped, vUse);
    SmallVector<Value> kFirst, vThis, kNext;
    bool ok = operandsIn(first, gk, kFirst) && operandsIn(thisTile, gv, vThis) &&
              operandsIn(next, gk, kNext);
    for (OpBuilder *b : {&pre, &afterK, &afterV})
      b->setListener(nullptr);
    if (!ok)
      return made.eraseAll();
    auto c0 = [&](OpBuilder &b) { return arith::ConstantIndexOp::create(b, loc, 0); };
    Value runs = arith::CmpIOp::create(pre, loc, arith::CmpIPredicate::slt,
                                       loop.getLowerBound(), loop.getUpperBound());
    Value always = arith::ConstantIntOp::create(afterK, loc, afterK.getI1Type(), 1);
    int64_t kRing = nextRing, vRing = nextRing + 1;
    createStage(pre, gk, kFirst, c0(pre), runs, kRing, 1);
    createStage(afterK, gv, vThis, c0(afterK), always, vRing, 1);
    // K's stage for tile t + 1 right after V's read (made before vUse
    // below), in every iteration: the last one loads its own tile's K again
    // (tile min(t + 1, ub - 1): its page ids and rows are the sequence's),
    // so the loop has no branch around it (a branch had given the loop a
    // second back edge, and LLVM a path without those loads); the lane
    // lowering waits for those loads after the loop.
    Value alwaysNext = arith::ConstantIntOp::create(afterV, loc, afterV.getI1Type(), 1);
    Operation *kNextStage = createStage(afterV, gk, kNext, c0(afterV), alwaysNext, kRing, 1);
    for (auto [g, ring] : {std::pair{gk, kRing}, std::pair{gv, vRing}}) {
      OpBuilder b(g);
      if (g == gv)
        b.setInsertionPoint(kNextStage);
      auto staged = StagedKVOp::create(b, g.getLoc(), g.getTile().getType(), c0(b),
                                       b.getI64IntegerAttr(ring), b.getI64IntegerAttr(1),
                                       b.getI64IntegerAttr(0));
      g.getTile().replaceAllUsesWith(staged.getTile());
      g.erase();
    }
    nextRing += 2;
    loop->setAttr(kPipelinedAttr, UnitAttr::get(loop.getContext()));
  }

  void pipeline(scf::ForOp loop, int64_t &nextRing) {
    SmallVector<GatherKVOp> gathers(loop.getBody()->getOps<GatherKVOp>());
    // fp8 tiles only for now: a 16-bit tile's 16-byte copies would need the
    // stage viewed in its element type (the synchronous staging serves it).
    if (gathers.empty() || llvm::any_of(gathers, [](GatherKVOp g) {
          return !g.getInBounds() ||
                 g.getTile().getType().getElementTypeBitWidth() != 8;
        }))
      return;
    Operation *point = gathers.front();
    Location loc = loop.getLoc();
    OpBuilder pre(loop), in(point);
    IterationValues first(loop, pre, IterationValues::Kind::First, point);
    IterationValues next(loop, in, IterationValues::Kind::Next, point);
    auto idx = [&](OpBuilder &b, int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    // Operands of each gather for the first tile and for tile t + 1; any
    // miss leaves the loop as it was (the clones made so far are erased).
    struct Operands {
      SmallVector<Value> first, next;
    };
    SmallVector<Operands> ops;
    // Ops the builders create are remembered, to be erased on a miss.
    MadeOps made;
    pre.setListener(&made);
    in.setListener(&made);
    bool ok = true;
    for (GatherKVOp g : gathers) {
      Operands o;
      ok = ok && operandsIn(first, g, o.first) && operandsIn(next, g, o.next);
      ops.push_back(o);
    }
    pre.setListener(nullptr);
    in.setListener(nullptr);
    if (!ok)
      return made.eraseAll();
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
          iv = loop.getInductionVar();
    Value nStages = idx(pre, stages);
    Value runs = arith::CmpIOp::create(pre, loc, arith::CmpIPredicate::slt, lb, ub);
    Value slot0 = arith::RemUIOp::create(pre, loc, lb, nStages);
    Value nStagesIn = idx(in, stages);
    Value tNext = arith::AddIOp::create(in, loc, iv, loop.getStep());
    Value more = arith::CmpIOp::create(in, loc, arith::CmpIPredicate::slt, tNext, ub);
    Value slotNext = arith::RemUIOp::create(in, loc, tNext, nStagesIn);
    Value slotThis = arith::RemUIOp::create(in, loc, iv, nStagesIn);
    int64_t n = gathers.size();
    // Tile t + 1's page ids read in the loop (per-token ids at pages that do
    // not hold a tile; a carried id is read an iteration before): its
    // stages go after tile t's S = Q K^T, so those reads are in flight
    // during the waits and the product instead of right before the copies
    // that need them (ncu at page 16: the loop's largest long-scoreboard
    // stall). The copies still have tile t's softmax and P V to land.
    bool nextReads = llvm::any_of(made.ops, [&](Operation *op) {
      return op->getBlock() == loop.getBody() && !isMemoryEffectFree(op);
    });
    OpBuilder late = in;
    Operation *lateAfter = nullptr;
    if (nextReads)
      for (auto mma : loop.getBody()->getOps<TileMmaOp>())
        if (mma.getTransposeRhs() && point->isBeforeInBlock(mma)) {
          late.setInsertionPointAfter(mma);
          lateAfter = mma;
          break;
        }
    auto stage = [&](OpBuilder &b, GatherKVOp g, ArrayRef<Value> v, Value slot,
                     Value enabled, int64_t ring) {
      StageKVOp::create(b, g.getLoc(), v[0], v[1], v[2], v[3], v[4], slot, enabled,
                        g.getKvLayoutAttr(), b.getUnitAttr(), b.getI64IntegerAttr(ring),
                        b.getI64IntegerAttr(stages),
                        TypeAttr::get(g.getTile().getType()));
    };
    for (auto [j, g] : llvm::enumerate(gathers)) {
      int64_t ring = nextRing + j;
      stage(pre, g, ops[j].first, slot0, runs, ring);
      stage(late, g, ops[j].next, slotNext, more, ring);
    }
    for (auto [j, g] : llvm::enumerate(gathers)) {
      OpBuilder b(g);
      // Groups started after tile t's gather j: the later gathers of tile t,
      // and the n of tile t + 1 where those start before this wait.
      bool nextBefore = !lateAfter || lateAfter->isBeforeInBlock(g);
      int64_t pending = (n - 1 - int64_t(j)) + (nextBefore ? n : 0);
      auto staged = StagedKVOp::create(
          b, g.getLoc(), g.getTile().getType(), slotThis,
          b.getI64IntegerAttr(nextRing + int64_t(j)), b.getI64IntegerAttr(stages),
          b.getI64IntegerAttr(pending));
      g.getTile().replaceAllUsesWith(staged.getTile());
      g.erase();
    }
    nextRing += n;
    loop->setAttr(kPipelinedAttr, UnitAttr::get(loop.getContext()));
  }
};

} // namespace
