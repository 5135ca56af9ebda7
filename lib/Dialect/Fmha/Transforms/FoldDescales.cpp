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

/// A loop-invariant scalar: a constant, or a value defined before the loop.
struct LoopScalar {
  Value value;
  std::optional<double> constant;
  explicit operator bool() const { return value || constant; }
  /// The scalar at `b`'s insertion point (before the loop).
  Value get(OpBuilder &b, Location loc) const {
    if (value)
      return value;
    return arith::ConstantOp::create(b, loc,
                                     b.getF32FloatAttr(static_cast<float>(*constant)));
  }
};

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
  // With a soft cap: x * (1 / cap) feeding tanh, tanh, and tanh * cap; the
  // cap and 1 / cap as scalars defined before the loop (constants, or read
  // at run time: runtime_soft_cap).
  arith::MulFOp invCapMul, capMul;
  math::TanhOp tanh;
  LoopScalar cap, invCap;
};

/// The soft cap fmha-tile writes: tanh(x * (1 / cap)) * cap, each with one
/// use, and the scale multiply with one use (its operand changes); the cap
/// and its inverse splats of scalars defined before the loop.
LogicalResult planSoftCap(scf::ForOp loop, Plan &p) {
  p.tanh = kvloop::findInBody<math::TanhOp>(loop, [](auto) { return true; });
  if (!p.tanh || !p.tanh->hasOneUse() || !p.scaleMul->hasOneUse())
    return failure();
  // A splat constant (remade before the loop) or a splat of a scalar
  // defined before it.
  auto invariant = [&](Value v) -> LoopScalar {
    if (std::optional<double> c = kvloop::splatConstant(v))
      return {Value(), c};
    Value s = kvloop::splatScalar(v);
    if (s && loop.isDefinedOutsideOfLoop(s))
      return {s, std::nullopt};
    return {};
  };
  p.invCapMul = p.tanh.getOperand().getDefiningOp<arith::MulFOp>();
  if (!p.invCapMul || !p.invCapMul->hasOneUse())
    return failure();
  p.invCap = invariant(p.invCapMul.getRhs());
  p.capMul = dyn_cast<arith::MulFOp>(*p.tanh->user_begin());
  if (!p.invCap || !p.capMul)
    return failure();
  p.cap = invariant(otherOperand(p.capMul, p.tanh));
  if (!p.cap)
    return failure();
  // A compile-time cap must be > 0 (the op's verifier; the runners check a
  // run-time one).
  if (p.cap.constant && !(*p.cap.constant > 0.0))
    return failure();
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
  // With a soft cap the softmax runs on t = tanh(...): sigma = cap * log2(e)
  // (folded to one constant for a compile-time cap).
  Value sigma;
  if (!p.softCap)
    sigma = arith::MulFOp::create(b, loc, p.scale, log2e);
  else if (p.cap.constant)
    sigma = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(static_cast<float>(*p.cap.constant * M_LOG2E)));
  else
    sigma = arith::MulFOp::create(b, loc, p.cap.value, log2e);
  Value ln2 = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(M_LN2));
  Value sigmaLn2 = arith::MulFOp::create(b, loc, sigma, ln2);

  Value raw = p.qk.getResult();
  if (p.softCap) {
    // tanh's argument: S * (scale / cap), times kd when kd is per tile (one
    // multiply per element where there were three); t replaces cap * t, and
    // m is in units of t (sigma holds the cap).
    Value pre = arith::MulFOp::create(b, loc, p.scale, p.invCap.get(b, loc));
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
