//===- PingPong.cpp - fmha-ping-pong --------------------------------------===//
//
// The consumers of an fmha.warp_roles take turns at issuing S = Q K^T
// (fmha.turn_take / fmha.turn_pass around it, the wait after the pass), so
// their products alternate on the tensor cores. The rule is on the pass
// (Passes.td).
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "Dependence.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAPINGPONG
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Whether every consumer reaches `op` the same number of times: the
/// bounds of each loop around it and the condition of each scf.if around
/// it do not depend on the consumer index (any other region op around it
/// is refused).
bool sameCountForEveryConsumer(Operation *op, WarpRolesOp roles) {
  auto dep = [&](Value x) {
    return dependsOn(x, roles.getConsumerIndex(), roles.getConsumer());
  };
  for (Operation *p = op->getParentOp(); p != roles; p = p->getParentOp()) {
    if (auto loop = dyn_cast<scf::ForOp>(p)) {
      if (dep(loop.getLowerBound()) || dep(loop.getUpperBound()) || dep(loop.getStep()))
        return false;
    } else if (auto i = dyn_cast<scf::IfOp>(p)) {
      if (dep(i.getCondition()))
        return false;
    } else {
      return false;
    }
  }
  return true;
}

/// The consumer region's S products, or none when one of them is not
/// directly in the body of a KV loop, or the consumers could reach it a
/// different number of times (or there are none).
SmallVector<TileMmaOp> scoreProducts(WarpRolesOp roles) {
  SmallVector<TileMmaOp> scores;
  bool ok = true;
  roles.getConsumer().walk([&](TileMmaOp m) {
    if (!m.getTransposeRhs())
      return;
    auto loop = dyn_cast<scf::ForOp>(m->getParentOp());
    ok = ok && loop && loop->hasAttr(kKVLoopAttr) && sameCountForEveryConsumer(m, roles);
    scores.push_back(m);
  });
  if (!ok)
    scores.clear();
  return scores;
}

/// The last product issued after `s` in its block before S's first use
/// (fmha-overlap-softmax's P V of tile t after S of tile t + 1), or `s`.
/// The scan stops at an op with regions too (a use of S may be inside).
Operation *lastIssuedWith(TileMmaOp s) {
  Operation *last = s;
  for (Operation *op = s->getNextNode(); op; op = op->getNextNode()) {
    if (op->getNumRegions() ||
        llvm::any_of(op->getOperands(), [&](Value v) { return v == s.getResult(); }))
      break;
    if (isa<TileMmaOp>(op))
      last = op;
  }
  return last;
}

void pingPong(WarpRolesOp roles) {
  int64_t n = roles.getConsumers();
  if (n < 2)
    return;
  bool done = false;
  roles.getConsumer().walk([&](Operation *op) {
    done = done || isa<TurnTakeOp, TurnPassOp>(op);
  });
  SmallVector<TileMmaOp> scores = scoreProducts(roles);
  if (done || scores.empty())
    return;
  Value c = roles.getConsumerIndex();
  Location loc = roles.getLoc();
  Block &body = roles.getConsumer().front();
  OpBuilder b(roles.getContext());
  // The last consumer's pass gives consumer 0 the first turn; consumer 0
  // takes the last consumer's last pass at the end.
  b.setInsertionPointToStart(&body);
  auto isConsumer = [&](int64_t k) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, c,
                                 arith::ConstantIndexOp::create(b, loc, k));
  };
  TurnPassOp::create(b, loc, c, isConsumer(n - 1));
  b.setInsertionPointToEnd(&body);
  TurnTakeOp::create(b, loc, c, isConsumer(0));
  for (TileMmaOp s : scores) {
    b.setInsertionPoint(s);
    Value yes = arith::ConstantIntOp::create(b, s.getLoc(), b.getI1Type(), 1);
    TurnTakeOp::create(b, s.getLoc(), c, yes);
    // The turn also holds the products issued with S before S's first use
    // (fmha-overlap-softmax's P V of the tile before).
    b.setInsertionPointAfter(lastIssuedWith(s));
    TurnPassOp::create(b, s.getLoc(), c, yes);
    if (llvm::any_of(s->getUsers(), llvm::IsaPred<MmaWaitOp>))
      continue;
    auto w = MmaWaitOp::create(b, s.getLoc(), s.getType(), s.getResult());
    s.getResult().replaceAllUsesExcept(w.getResult(), w);
  }
}

struct FmhaPingPongPass : public fmha::impl::FmhaPingPongBase<FmhaPingPongPass> {
  void runOnOperation() override {
    getOperation()->walk([](WarpRolesOp roles) { pingPong(roles); });
  }
};

} // namespace
