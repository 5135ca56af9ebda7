//===- FoldExp2Shift.cpp - fmha-fold-exp2-shift -----------------------------===//
//
// The multiply of p by 2^SHIFT before its fp8 cast, and the matching
// division of the output, become a shift of the exp2 argument's per-row term.
//
//===----------------------------------------------------------------------===//
#include "KVLoop.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAFOLDEXP2SHIFT
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

bool isFp8(Type t) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
             Float8E5M2FNUZType>(getElementTypeOrSelf(t));
}

/// What the fold needs of one KV loop; found before anything is changed.
struct Plan {
  arith::TruncFOp cast;     // P to fp8
  arith::MulFOp scaleMul;   // p * 2^SHIFT
  Operation *exp;           // math.exp2 or math.exp producing p
  int shift = 0;
  Value l;                  // the loop's l result
  arith::MulFOp denomMul;   // epilogue l * 2^SHIFT
  SmallVector<math::LogOp> logs; // ln(l) of the epilogue's lse
};

/// k when c == 2^k for an integer k > 0.
std::optional<int> positivePowerOfTwo(double c) {
  int k;
  double mant = std::frexp(c, &k);
  if (mant != 0.5 || k - 1 < 1)
    return std::nullopt;
  return k - 1;
}

FailureOr<Plan> plan(scf::ForOp loop) {
  Plan p;
  p.cast = kvloop::findInBody<arith::TruncFOp>(
      loop, [](arith::TruncFOp t) { return isFp8(t.getType()); });
  if (!p.cast)
    return failure(); // 16-bit P: no scale to fold
  p.scaleMul = p.cast.getIn().getDefiningOp<arith::MulFOp>();
  if (!p.scaleMul || !p.scaleMul->hasOneUse())
    return failure();
  Value pv;
  std::optional<double> c;
  if ((c = kvloop::splatConstant(p.scaleMul.getRhs())))
    pv = p.scaleMul.getLhs();
  else if ((c = kvloop::splatConstant(p.scaleMul.getLhs())))
    pv = p.scaleMul.getRhs();
  std::optional<int> k = c ? positivePowerOfTwo(*c) : std::nullopt;
  if (!k)
    return failure();
  p.shift = *k;
  p.exp = pv.getDefiningOp();
  if (!p.exp || !isa<math::Exp2Op, math::ExpOp>(p.exp))
    return failure();
  Value l = p.l = loop.getResult(kKVLoopL);
  for (Operation *user : l.getUsers()) {
    if (auto mul = dyn_cast<arith::MulFOp>(user)) {
      Value other = mul.getLhs() == l ? mul.getRhs() : mul.getLhs();
      std::optional<double> d = kvloop::splatConstant(other);
      if (!d || *d != *c || p.denomMul)
        return failure();
      p.denomMul = mul;
    } else if (auto log = dyn_cast<math::LogOp>(user)) {
      p.logs.push_back(log);
    }
  }
  if (!p.denomMul)
    return failure();
  return p;
}

void fold(Plan &p) {
  Location loc = p.exp->getLoc();
  OpBuilder b(p.exp);
  auto tileT = cast<VectorType>(p.exp->getResult(0).getType());
  Value shift = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(p.shift));
  Value arg = p.exp->getOperand(0);
  if (isa<math::ExpOp>(p.exp)) // natural exp: exp(x) = exp2(x * log2(e))
    arg = arith::MulFOp::create(
        b, loc, arg,
        vector::BroadcastOp::create(
            b, loc, tileT,
            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(M_LOG2E))));
  Value newArg;
  auto sub = arg.getDefiningOp<arith::SubFOp>();
  if (Value row = sub ? kvloop::rowOfBroadcast(sub.getRhs()) : Value()) {
    // The shift rides on the per-row term: sigma*s - (sigma*m - SHIFT).
    Value r = arith::SubFOp::create(
        b, loc, row, vector::BroadcastOp::create(b, loc, row.getType(), shift));
    newArg = arith::SubFOp::create(b, loc, sub.getLhs(),
                                   kvloop::broadcastRow(b, loc, r, tileT));
  } else {
    newArg = arith::AddFOp::create(
        b, loc, arg, vector::BroadcastOp::create(b, loc, tileT, shift));
  }
  Value pNew = math::Exp2Op::create(b, loc, newArg);
  // l now sums the shifted p (before the cast), like o.
  p.exp->getResult(0).replaceAllUsesWith(pNew);
  p.scaleMul.getResult().replaceAllUsesWith(pNew);
  p.scaleMul.erase();
  p.exp->erase();
  if (sub && sub->use_empty())
    sub.erase();

  // O = o / l; lse = ... + ln(l) - SHIFT * ln2.
  p.denomMul.getResult().replaceAllUsesWith(p.l);
  p.denomMul.erase();
  for (math::LogOp log : p.logs) {
    b.setInsertionPointAfter(log);
    Value c = vector::BroadcastOp::create(
        b, loc, log.getType(),
        arith::ConstantOp::create(b, loc, b.getF32FloatAttr(p.shift * M_LN2)));
    Value corrected = arith::SubFOp::create(b, loc, log.getResult(), c);
    log.getResult().replaceAllUsesExcept(corrected, corrected.getDefiningOp());
  }
}

struct FmhaFoldExp2ShiftPass
    : public fmha::impl::FmhaFoldExp2ShiftBase<FmhaFoldExp2ShiftPass> {
  void runOnOperation() override {
    for (scf::ForOp loop : kvloop::collect(getOperation())) {
      FailureOr<Plan> p = plan(loop);
      if (failed(p))
        continue; // 16-bit P, or already folded
      fold(*p);
    }
  }
};

} // namespace
