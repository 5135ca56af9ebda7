//===- FoldDescales.cpp - fmha-fold-descales --------------------------------===//
//
// qd * sm_scale * log2(e) becomes one sigma before the KV loop, the softmax
// moves to exp2, and a per-tile kd leaves the tile: the row max is scaled per
// row and the exp2 argument takes sigma * kd, one scalar per tile. With a
// soft cap, cap * tanh(s * scale * kd / cap): the multiplies before tanh
// become one (s * (scale / cap * kd)), the cap moves into sigma
// (cap * log2(e)) and the softmax runs on t = tanh(...).
//
//===----------------------------------------------------------------------===//
#include "KVLoop.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAFOLDDESCALES
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

constexpr const char *kFoldedAttr = "fmha.descales_folded";

Value otherOperand(arith::MulFOp mul, Value v) {
  return mul.getLhs() == v ? mul.getRhs() : mul.getLhs();
}

Value splatTo(OpBuilder &b, Location loc, Type t, Value scalar) {
  return vector::BroadcastOp::create(b, loc, t, scalar);
}

/// What the fold needs of one KV loop; found before anything is changed.
struct Plan {
  TileMmaOp qk;
  arith::MulFOp scaleMul; // S * (qd * sm_scale), per element
  Value scale;            // qd * sm_scale, defined before the loop
  arith::MulFOp kdMul;    // S * kd with one kd per tile, or null
  Value kd;
  vector::MultiDimReductionOp rowMax;
  SmallVector<math::ExpOp> exps; // p and alpha
  bool softCap = false;
  // With a soft cap: x * (1 / cap) feeding tanh, tanh, and tanh * cap.
  arith::MulFOp invCapMul, capMul;
  math::TanhOp tanh;
  double cap = 0.0;
};

/// The soft cap fmha-tile writes: tanh(x * (1 / cap)) * cap, each with one
/// use, and the scale multiply with one use (its operand changes).
LogicalResult planSoftCap(scf::ForOp loop, Plan &p) {
  p.tanh = kvloop::findInBody<math::TanhOp>(loop, [](auto) { return true; });
  if (!p.tanh || !p.tanh->hasOneUse() || !p.scaleMul->hasOneUse())
    return failure();
  p.invCapMul = p.tanh.getOperand().getDefiningOp<arith::MulFOp>();
  if (!p.invCapMul || !p.invCapMul->hasOneUse() ||
      !kvloop::splatConstant(p.invCapMul.getRhs()))
    return failure();
  p.capMul = dyn_cast<arith::MulFOp>(*p.tanh->user_begin());
  if (!p.capMul)
    return failure();
  std::optional<double> cap = kvloop::splatConstant(otherOperand(p.capMul, p.tanh));
  if (!cap || !(*cap > 0.0))
    return failure();
  p.cap = *cap;
  return success();
}

FailureOr<Plan> plan(scf::ForOp loop) {
  Plan p;
  p.qk = kvloop::findInBody<TileMmaOp>(
      loop, [](TileMmaOp t) { return t.getTransposeRhs(); });
  if (!p.qk || !p.qk->hasOneUse())
    return failure();
  p.scaleMul = dyn_cast<arith::MulFOp>(*p.qk->user_begin());
  if (!p.scaleMul)
    return failure();
  p.scale = kvloop::splatScalar(otherOperand(p.scaleMul, p.qk.getResult()));
  if (!p.scale || !loop.isDefinedOutsideOfLoop(p.scale))
    return failure();
  p.softCap = bool(kvloop::findInBody<math::TanhOp>(loop, [](auto) { return true; }));
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto e = dyn_cast<math::ExpOp>(&op)) {
      if (!e.getOperand().getDefiningOp<arith::SubFOp>())
        return failure();
      p.exps.push_back(e);
    }
  if (p.exps.size() != 2)
    return failure();
  p.rowMax = kvloop::findInBody<vector::MultiDimReductionOp>(
      loop, [](vector::MultiDimReductionOp r) {
        return r.getKind() == vector::CombiningKind::MAXIMUMF;
      });
  if (!p.rowMax)
    return failure();
  // A per-tile kd (scalar) multiplying S right after the scale.
  if (p.scaleMul->hasOneUse())
    if (auto m = dyn_cast<arith::MulFOp>(*p.scaleMul->user_begin()))
      if (Value kd = kvloop::splatScalar(otherOperand(m, p.scaleMul.getResult()))) {
        p.kdMul = m;
        p.kd = kd;
      }
  if (p.softCap && failed(planSoftCap(loop, p)))
    return failure();
  return p;
}

void fold(scf::ForOp loop, Plan &p) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Value log2e = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(M_LOG2E));
  // With a soft cap the softmax runs on t = tanh(...): sigma = cap * log2(e).
  Value sigma = p.softCap
                    ? arith::ConstantOp::create(
                          b, loc, b.getF32FloatAttr(static_cast<float>(p.cap * M_LOG2E)))
                          .getResult()
                    : arith::MulFOp::create(b, loc, p.scale, log2e).getResult();
  Value ln2 = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(M_LN2));
  Value sigmaLn2 = arith::MulFOp::create(b, loc, sigma, ln2);

  Value raw = p.qk.getResult();
  if (p.softCap) {
    // tanh's argument: S * (scale / cap), times kd when kd is per tile (one
    // multiply per element where there were three); t replaces cap * t, and
    // m is in units of t (sigma holds the cap).
    Value pre = arith::MulFOp::create(
        b, loc, p.scale,
        arith::ConstantOp::create(b, loc,
                                  b.getF32FloatAttr(static_cast<float>(1.0 / p.cap))));
    Value in = p.invCapMul.getLhs();
    if (p.kdMul && in == p.kdMul.getResult()) {
      b.setInsertionPoint(p.kdMul);
      Value c = arith::MulFOp::create(b, loc, pre, p.kd);
      in = arith::MulFOp::create(b, loc, raw, splatTo(b, loc, raw.getType(), c));
    } else {
      b.setInsertionPoint(p.scaleMul);
      p.scaleMul->setOperand(p.scaleMul.getLhs() == raw ? 1 : 0,
                             splatTo(b, loc, raw.getType(), pre));
    }
    p.invCapMul.getResult().replaceAllUsesWith(in);
    p.invCapMul.erase();
    if (p.kdMul && p.kdMul->use_empty()) {
      p.kdMul.erase();
      p.scaleMul.erase();
    }
    p.kdMul = nullptr;
    p.capMul.getResult().replaceAllUsesWith(p.tanh.getResult());
    p.capMul.erase();
  }
  if (!p.softCap) {
    p.scaleMul.getResult().replaceAllUsesWith(raw);
    p.scaleMul.erase();
  }
  Value pSigma = sigma;
  if (p.kdMul) {
    b.setInsertionPoint(p.kdMul);
    pSigma = arith::MulFOp::create(b, loc, sigma, p.kd);
    p.kdMul.getResult().replaceAllUsesWith(raw);
    p.kdMul.erase();
    // rowmax(s * kd) = kd * rowmax(s) for kd > 0: one multiply per row.
    b.setInsertionPointAfter(p.rowMax);
    Value red = p.rowMax.getResult();
    Value scaled = arith::MulFOp::create(
        b, loc, red, splatTo(b, loc, red.getType(), p.kd));
    red.replaceAllUsesExcept(scaled, scaled.getDefiningOp());
  }

  for (math::ExpOp e : p.exps) {
    auto sub = e.getOperand().getDefiningOp<arith::SubFOp>();
    b.setInsertionPoint(e);
    Type t = e.getType();
    Value arg;
    if (Value row = kvloop::rowOfBroadcast(sub.getRhs())) {
      // p: the tile takes sigma (or sigma * kd), the row max sigma, per row.
      Value a = arith::MulFOp::create(b, loc, sub.getLhs(), splatTo(b, loc, t, pSigma));
      Value r = arith::MulFOp::create(b, loc, row, splatTo(b, loc, row.getType(), sigma));
      arg = arith::SubFOp::create(b, loc, a,
                                  kvloop::broadcastRow(b, loc, r, cast<VectorType>(t)));
    } else {
      // alpha = exp2(sigma * (m_old - m_new)): per row.
      arg = arith::MulFOp::create(b, loc, sub.getResult(), splatTo(b, loc, t, sigma));
    }
    Value e2 = math::Exp2Op::create(b, loc, arg);
    e.getResult().replaceAllUsesWith(e2);
    e.erase();
    if (sub->use_empty())
      sub.erase();
  }

  // lse = m + ln(l) with m now in units of s * kd: ln2 * sigma * m + ln(l).
  Value m = loop.getResult(kKVLoopM);
  for (OpOperand &use : llvm::make_early_inc_range(m.getUses())) {
    auto add = dyn_cast<arith::AddFOp>(use.getOwner());
    if (!add)
      continue;
    b.setInsertionPoint(add);
    Value ms = arith::MulFOp::create(b, loc, m, splatTo(b, loc, m.getType(), sigmaLn2));
    use.set(ms);
  }
  loop->setAttr(kFoldedAttr, b.getUnitAttr());
}

struct FmhaFoldDescalesPass
    : public fmha::impl::FmhaFoldDescalesBase<FmhaFoldDescalesPass> {
  void runOnOperation() override {
    for (scf::ForOp loop : kvloop::collect(getOperation())) {
      if (loop->hasAttr(kFoldedAttr))
        continue;
      FailureOr<Plan> p = plan(loop);
      if (failed(p))
        continue; // not the shape fmha-tile writes: leave it alone
      fold(loop, *p);
    }
  }
};

} // namespace
