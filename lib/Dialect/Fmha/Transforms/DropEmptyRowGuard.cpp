//===- DropEmptyRowGuard.cpp - fmha-drop-empty-row-guard --------------------===//
//
// In a loop of full tiles whose scores multiply e4m3 values (no infinity),
// a row's running max is never -inf: the select that guards an empty row
// (m_new == -inf ? 0 : m_new) is m_new there.
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "KVLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHADROPEMPTYROWGUARD
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

bool isE4M3(Type t) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType>(getElementTypeOrSelf(t));
}

/// Whether every score product of `loop` multiplies e4m3 values (and there
/// is at least one).
bool scoresFinite(scf::ForOp loop) {
  bool any = false, all = true;
  loop.getBody()->walk([&](TileMmaOp mma) {
    if (!mma.getTransposeRhs())
      return;
    any = true;
    all &= isE4M3(mma.getLhs().getType()) && isE4M3(mma.getRhs().getType());
  });
  return any && all;
}

/// Whether `v` is a float constant, or a splat of one, equal to `x`.
bool isConstant(Value v, double x) {
  std::optional<double> c = kvloop::splatConstant(v);
  return c && *c == x;
}

/// select(cmpf oeq (m, -inf), 0, m) with m = arith.maxnumf(..): m, else null.
Value guardedMax(arith::SelectOp sel) {
  auto cmp = sel.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpFPredicate::OEQ)
    return {};
  Value m = sel.getFalseValue();
  if (cmp.getLhs() != m || !isConstant(cmp.getRhs(), -INFINITY) ||
      !isConstant(sel.getTrueValue(), 0.0) || !m.getDefiningOp<arith::MaxNumFOp>())
    return {};
  return m;
}

struct FmhaDropEmptyRowGuardPass
    : public fmha::impl::FmhaDropEmptyRowGuardBase<FmhaDropEmptyRowGuardPass> {
  void runOnOperation() override {
    getOperation()->walk([&](scf::ForOp loop) {
      if (!loop->hasAttr(kFullTilesAttr) || !loop->hasAttr(kKVLoopAttr) ||
          !scoresFinite(loop))
        return;
      SmallVector<arith::SelectOp> sels;
      for (auto sel : loop.getBody()->getOps<arith::SelectOp>())
        if (guardedMax(sel))
          sels.push_back(sel);
      for (arith::SelectOp sel : sels) {
        auto cmp = sel.getCondition().getDefiningOp<arith::CmpFOp>();
        sel.getResult().replaceAllUsesWith(guardedMax(sel));
        sel.erase();
        if (cmp.use_empty())
          cmp.erase();
        ++numDropped;
      }
    });
  }
};

} // namespace
