//===- UnrollKVLoop.cpp - fmha-unroll-kv-loop -------------------------------===//
//
// Unrolls the loop of full KV tiles (fmha.full_tiles) by a factor: a loop
// over groups of tiles (an i32 counter from 0) whose body is that many
// copies of one tile's, marked fmha.unrolled so the lane lowering can share
// the copies' workgroup buffers; the original loop then runs the rest.
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAUNROLLKVLOOP
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Unrolls `loop` (step 1, iv from lo to hi) by `f`: a loop over
/// the pair (triple, ...) index j in [0, (hi - lo) / f) whose body runs
/// tiles lo + j f .. lo + j f + f - 1, then `loop` itself from lo + (hi -
/// lo) / f * f to hi for the rest. The unrolled loop counts j by 1 from 0,
/// so a target's loop test stays an equality on one counter (upstream's
/// loopUnrollByFactor steps the iv by f up to a computed bound, which
/// AMDGPU then tests with a 64-bit VALU compare).
scf::ForOp unroll(scf::ForOp loop, int64_t f) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value lo = loop.getLowerBound(), hi = loop.getUpperBound();
  Value cf = arith::ConstantIndexOp::create(b, loc, f);
  // max(hi - lo, 0): a loop with hi < lo runs no tile, unrolled or not.
  Value n = arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, hi, lo),
                                   arith::ConstantIndexOp::create(b, loc, 0));
  Value groups = arith::DivUIOp::create(b, loc, n, cf);
  // The group counter in 32 bits (a KV loop has fewer than 2^31 tiles): a
  // target without 64-bit scalar compares (AMDGPU) tests it on one register.
  Type i32 = b.getI32Type();
  auto main = scf::ForOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, i32, 0),
      arith::IndexCastUIOp::create(b, loc, i32, groups),
      arith::ConstantIntOp::create(b, loc, i32, 1), loop.getInitArgs());
  main->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  main->setAttr(kUnrolledAttr, b.getI64IntegerAttr(f));
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  OpBuilder in = OpBuilder::atBlockBegin(main.getBody());
  Value j = arith::IndexCastUIOp::create(in, loc, in.getIndexType(), main.getInductionVar());
  Value first = arith::AddIOp::create(in, loc, lo, arith::MulIOp::create(in, loc, j, cf));
  SmallVector<Value> carried(main.getRegionIterArgs());
  for (int64_t k = 0; k < f; ++k) {
    IRMapping map;
    map.map(loop.getInductionVar(),
            k ? arith::AddIOp::create(in, loc, first,
                                      arith::ConstantIndexOp::create(in, loc, k))
                    .getResult()
              : first);
    map.map(loop.getRegionIterArgs(), carried);
    for (Operation &op : body->without_terminator())
      in.clone(op, map);
    carried.clear();
    for (Value v : yield.getOperands())
      carried.push_back(map.lookupOrDefault(v));
  }
  scf::YieldOp::create(in, loc, carried);
  // The rest: the original loop from the first tile the groups left.
  loop->moveAfter(main);
  b.setInsertionPoint(loop);
  Value restLo = arith::AddIOp::create(b, loc, lo, arith::MulIOp::create(b, loc, groups, cf));
  loop.setLowerBound(restLo);
  loop.getInitArgsMutable().assign(main.getResults());
  loop->setAttr(kUnrolledAttr, b.getI64IntegerAttr(1));
  return main;
}

struct FmhaUnrollKVLoopPass
    : public fmha::impl::FmhaUnrollKVLoopBase<FmhaUnrollKVLoopPass> {
  using Base::Base;
  void runOnOperation() override {
    if (factor < 1 && factor != -1) {
      getOperation()->emitError()
          << "fmha-unroll-kv-loop: factor must be at least 1 (or -1: the rule), got "
          << static_cast<int64_t>(factor);
      return signalPassFailure();
    }
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      // Once: the loops this pass wrote carry fmha.unrolled.
      if (loop->hasAttr(kFullTilesAttr) && loop->hasAttr(kKVLoopAttr) &&
          !loop->hasAttr(kUnrolledAttr) && matchPattern(loop.getStep(), m_One()))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      int64_t f = factor;
      if (f == -1)
        f = loop.getBody()->getOps<GatherDescaleOp>().empty() ? 1 : 2;
      if (f == 1)
        continue;
      // The rest is the original loop: its results already replace the
      // unrolled tiles' uses.
      unroll(loop, f);
      ++numUnrolled;
    }
  }
};

} // namespace
