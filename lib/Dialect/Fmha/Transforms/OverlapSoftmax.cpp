//===- OverlapSoftmax.cpp - fmha-overlap-softmax --------------------------===//
//
// A warp-specialized consumer's pipelined KV loop in two stages, stage 0
// (wait, S, softmax) of tile t + 1 beside stage 1 (P V, o, release) of tile
// t, so that the softmax runs while the tensor cores compute P V. The rule
// is on the pass (Passes.td).
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "KVLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAOVERLAPSOFTMAX
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// The loop's two products, or nulls when the loop is not one the pass
/// takes (Passes.td).
std::pair<TileMmaOp, TileMmaOp> products(scf::ForOp loop) {
  Block *body = loop.getBody();
  TileMmaOp s, pv;
  if (!matchPattern(loop.getStep(), m_One()))
    return {};
  for (Operation &op : body->without_terminator()) {
    if (op.getNumRegions() || isa<StageKVOp, TurnTakeOp, TurnPassOp, MmaWaitOp>(op))
      return {};
    if (auto st = dyn_cast<StagedKVOp>(op); st && (!st.getByBarrier() || st.getStages() < 2))
      return {};
    if (auto w = dyn_cast<StageWaitOp>(op); w && w.getStages() < 2)
      return {};
    auto m = dyn_cast<TileMmaOp>(op);
    if (!m)
      continue;
    TileMmaOp &slot = m.getTransposeRhs() ? s : pv;
    if (slot || m->use_empty())
      return {};
    slot = m;
  }
  if (!s || !pv)
    return {};
  return {s, pv};
}

void overlap(scf::ForOp loop) {
  auto [s, pv] = products(loop);
  if (!s)
    return;
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  MmaWaitOp sWait = kvloop::waitBeforeFirstUse(s);
  // P V's wait right after it for now; it goes before the release below.
  OpBuilder at(pv->getNextNode());
  auto pvWait = MmaWaitOp::create(at, pv.getLoc(), pv.getType(), pv.getResult());
  pv.getResult().replaceAllUsesExcept(pvWait.getResult(), pvWait);

  // Stage 1: the seeds, then everything that uses a stage-1 value or a
  // value carried from stage 1 (forward closure, to a fixpoint).
  llvm::DenseSet<Operation *> late;
  llvm::DenseSet<Value> lateArgs;
  late.insert(pv);
  late.insert(pvWait);
  if (Operation *p = pv.getLhs().getDefiningOp();
      p && p->getBlock() == body && isa<arith::TruncFOp>(p) && p->hasOneUse())
    late.insert(p);
  for (Operation &op : body->without_terminator()) {
    if (isa<StageReleaseOp>(op))
      late.insert(&op);
    if (auto st = dyn_cast<StagedKVOp>(op);
        st && llvm::all_of(st->getUsers(), [&](Operation *u) { return u == pv; }))
      late.insert(&op);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation &op : body->without_terminator()) {
      if (late.contains(&op))
        continue;
      bool uses = llvm::any_of(op.getOperands(), [&](Value v) {
        return lateArgs.contains(v) || (v.getDefiningOp() && late.contains(v.getDefiningOp()));
      });
      if (uses) {
        late.insert(&op);
        changed = true;
      }
    }
    for (auto [arg, y] : llvm::zip(loop.getRegionIterArgs(), yield.getOperands())) {
      if (lateArgs.contains(arg))
        continue;
      Operation *def = y.getDefiningOp();
      if (lateArgs.contains(y) || (def && late.contains(def))) {
        lateArgs.insert(arg);
        changed = true;
      }
    }
  }
  // Broadcasts and shape casts that only stage 1 uses go with it (a row
  // vector crosses instead of a tile).
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation &op : llvm::reverse(body->without_terminator())) {
      if (late.contains(&op) || !isa<vector::BroadcastOp, vector::ShapeCastOp>(op) ||
          op.use_empty())
        continue;
      if (llvm::all_of(op.getUsers(), [&](Operation *u) { return late.contains(u); })) {
        late.insert(&op);
        changed = true;
      }
    }
  }
  auto undo = [&]() {
    pvWait.getResult().replaceAllUsesWith(pv.getResult());
    pvWait.erase();
    sWait.getResult().replaceAllUsesWith(s.getResult());
    sWait.erase();
  };
  if (late.contains(s) || late.contains(sWait)) {
    undo();
    return;
  }
  // Vectors stage 1 reads from stage 0 that only read inputs, the
  // induction variable and scalars (the tile's per-key descales and their
  // page ids; a scalar a chain reads crosses) are computed again in stage
  // 1: a per-key descale in its column form cannot be carried.
  Value iv = loop.getInductionVar();
  llvm::DenseSet<Operation *> again;
  std::function<bool(Operation *, llvm::DenseSet<Operation *> &)> recomputable =
      [&](Operation *d, llvm::DenseSet<Operation *> &acc) {
        if (late.contains(d) || again.contains(d) || acc.contains(d))
          return true;
        if (!kvloop::readsOnly(d))
          return false;
        for (Value o : d->getOperands()) {
          if (!isa<VectorType>(o.getType()))
            continue; // computed again where it can be, else it crosses
          if (Operation *od = o.getDefiningOp(); od && od->getBlock() == body) {
            if (!recomputable(od, acc))
              return false;
          } else if (isa<BlockArgument>(o) && o.getParentBlock() == body && o != iv) {
            return false;
          }
        }
        acc.insert(d);
        return true;
      };
  auto earlyValue = [&](Value v) {
    return (v.getDefiningOp() && v.getDefiningOp()->getBlock() == body &&
            !late.contains(v.getDefiningOp()) && !again.contains(v.getDefiningOp())) ||
           (isa<BlockArgument>(v) && v.getParentBlock() == body && v != iv &&
            !lateArgs.contains(v));
  };
  for (Operation &op : body->without_terminator()) {
    if (!late.contains(&op))
      continue;
    for (Value v : op.getOperands()) {
      llvm::DenseSet<Operation *> acc;
      if (isa<VectorType>(v.getType()) && earlyValue(v) && v.getDefiningOp() &&
          recomputable(v.getDefiningOp(), acc))
        again.insert(acc.begin(), acc.end());
    }
  }
  // The rest crosses, in first-use order. P V's descale must not.
  SmallVector<Value> crossing;
  llvm::DenseSet<Value> seen;
  for (Operation &op : body->without_terminator()) {
    if (!late.contains(&op) && !again.contains(&op))
      continue;
    for (Value v : op.getOperands())
      if (earlyValue(v) && seen.insert(v).second)
        crossing.push_back(v);
  }
  // A carried vector must be f32 (a tile in the accumulator form, a row
  // vector); P V's descale must not cross at all.
  bool carriable = llvm::all_of(crossing, [](Value v) {
    auto t = dyn_cast<VectorType>(v.getType());
    return !t || t.getElementType().isF32();
  });
  if (!carriable || (pv.getKScale() && seen.contains(pv.getKScale()))) {
    undo();
    return;
  }
  // Each crossing value starts from a zero: the one-trip loop before
  // replaces it, and only when it has no trip is the zero passed on, to
  // loops that have none either.
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<TypedAttr> zeroAttrs;
  for (Value v : crossing)
    zeroAttrs.push_back(dyn_cast_or_null<TypedAttr>(b.getZeroAttr(v.getType())));
  if (llvm::is_contained(zeroAttrs, TypedAttr())) {
    undo();
    return;
  }
  SmallVector<Value> zeros;
  for (TypedAttr z : zeroAttrs)
    zeros.push_back(arith::ConstantOp::create(b, loc, z));

  SmallVector<unsigned> early, lateIdx;
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
    (lateArgs.contains(arg) ? lateIdx : early).push_back(i);
  // Stage 1 starts with what it computes again (stage 0 keeps what it
  // uses of it; canonicalization drops the rest).
  // Stage 1's release goes after P V's wait (last).
  SmallVector<Operation *> ops0, ops1, releases;
  for (Operation &op : body->without_terminator())
    if (again.contains(&op))
      ops1.push_back(&op);
  for (Operation &op : body->without_terminator()) {
    if (!late.contains(&op))
      ops0.push_back(&op);
    else
      (isa<StageReleaseOp>(op) ? releases : ops1).push_back(&op);
  }
  ops1.append(releases);
  auto copyAttrs = [&](scf::ForOp to) {
    for (NamedAttribute a : loop->getDiscardableAttrs())
      to->setAttr(a.getName(), a.getValue());
  };
  auto clone = [&](OpBuilder &bb, ArrayRef<Operation *> ops, IRMapping &map) {
    for (Operation *op : ops)
      bb.clone(*op, map);
  };
  // The original iter_args `idx` (and the crossing values) to the new
  // loop's arguments from `at`; the original yields of `idx` as mapped.
  auto mapArgs = [&](IRMapping &map, ArrayRef<unsigned> idx, ValueRange args, size_t at) {
    for (auto [k, i] : llvm::enumerate(idx))
      map.map(loop.getRegionIterArgs()[i], args[at + k]);
  };
  auto mapCrossing = [&](IRMapping &map, ValueRange args, size_t at) {
    for (auto [k, c] : llvm::enumerate(crossing))
      map.map(c, args[at + k]);
  };
  auto yielded = [&](IRMapping &map, ArrayRef<unsigned> idx, SmallVectorImpl<Value> &out) {
    for (unsigned i : idx)
      out.push_back(map.lookupOrDefault(yield.getOperand(i)));
  };
  // Stage 0's yield: its iter_args, then the crossing values it computed.
  auto yieldStage0 = [&](OpBuilder &bb, IRMapping &map, SmallVector<Value> out) {
    for (Value c : crossing)
      out.push_back(map.lookupOrDefault(c));
    scf::YieldOp::create(bb, loc, out);
  };
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);

  // Stage 0 of the first tile (zero trips when the loop has none).
  SmallVector<Value> proInit;
  for (unsigned i : early)
    proInit.push_back(loop.getInitArgs()[i]);
  proInit.append(zeros);
  Value proUb = arith::MinSIOp::create(b, loc, arith::AddIOp::create(b, loc, lb, one), ub);
  auto pro = scf::ForOp::create(
      b, loc, lb, proUb, step, proInit,
      [&](OpBuilder &bb, Location, Value iv, ValueRange args) {
        IRMapping map;
        map.map(loop.getInductionVar(), iv);
        mapArgs(map, early, args, 0);
        clone(bb, ops0, map);
        SmallVector<Value> out;
        yielded(map, early, out);
        yieldStage0(bb, map, out);
      });
  copyAttrs(pro);

  // Stage 0 of tile j + 1 beside stage 1 of tile j.
  SmallVector<Value> mainInit;
  for (size_t k = 0; k < early.size(); ++k)
    mainInit.push_back(pro.getResult(k));
  for (unsigned i : lateIdx)
    mainInit.push_back(loop.getInitArgs()[i]);
  for (size_t k = 0; k < crossing.size(); ++k)
    mainInit.push_back(pro.getResult(early.size() + k));
  Value mainUb = arith::SubIOp::create(b, loc, ub, one);
  size_t nE = early.size(), nL = lateIdx.size();
  auto issueEnd0 = llvm::find(ops0, s.getOperation()) + 1;
  auto issueEnd1 = llvm::find(ops1, pv.getOperation()) + 1;
  auto main = scf::ForOp::create(
      b, loc, lb, mainUb, step, mainInit,
      [&](OpBuilder &bb, Location, Value iv, ValueRange args) {
        IRMapping m0, m1;
        m0.map(loop.getInductionVar(), arith::AddIOp::create(bb, loc, iv, one));
        m1.map(loop.getInductionVar(), iv);
        mapArgs(m0, early, args, 0);
        mapArgs(m1, lateIdx, args, nE);
        mapCrossing(m1, args, nE + nL);
        clone(bb, ArrayRef<Operation *>(ops0.begin(), issueEnd0), m0);
        clone(bb, ArrayRef<Operation *>(ops1.begin(), issueEnd1), m1);
        clone(bb, ArrayRef<Operation *>(issueEnd0, ops0.end()), m0);
        clone(bb, ArrayRef<Operation *>(issueEnd1, ops1.end()), m1);
        SmallVector<Value> out;
        yielded(m0, early, out);
        yielded(m1, lateIdx, out);
        yieldStage0(bb, m0, out);
      });
  copyAttrs(main);

  // Stage 1 of the last tile (zero trips when the loop has none).
  SmallVector<Value> epiInit;
  for (size_t k = 0; k < nL + crossing.size(); ++k)
    epiInit.push_back(main.getResult(nE + k));
  Value epiLb = arith::MaxSIOp::create(b, loc, mainUb, lb);
  auto epi = scf::ForOp::create(
      b, loc, epiLb, ub, step, epiInit,
      [&](OpBuilder &bb, Location, Value iv, ValueRange args) {
        IRMapping map;
        map.map(loop.getInductionVar(), iv);
        mapArgs(map, lateIdx, args, 0);
        mapCrossing(map, args, nL);
        clone(bb, ops1, map);
        SmallVector<Value> out;
        yielded(map, lateIdx, out);
        for (size_t k = 0; k < crossing.size(); ++k)
          out.push_back(args[nL + k]);
        scf::YieldOp::create(bb, loc, out);
      });
  copyAttrs(epi);

  for (auto [k, i] : llvm::enumerate(early))
    loop.getResult(i).replaceAllUsesWith(main.getResult(k));
  for (auto [k, i] : llvm::enumerate(lateIdx))
    loop.getResult(i).replaceAllUsesWith(epi.getResult(k));
  loop.erase();
}

struct FmhaOverlapSoftmaxPass
    : public fmha::impl::FmhaOverlapSoftmaxBase<FmhaOverlapSoftmaxPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kPipelinedAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      overlap(loop);
  }
};

} // namespace
