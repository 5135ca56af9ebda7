//===- AccumulatePV.cpp - fmha-accumulate-pv -------------------------------===//
//
// fmha-tile writes a KV tile's output update as o_new = alpha * o + P x V,
// the product from a zero accumulator. Where P x V has no per-key scale
// (k_scale) and nothing else multiplies it (quant none, and the exp2_bias
// route after fmha-fold-vd-exp2 moved vd into P), the rescaled o can be the
// product's accumulator instead: o_new = P x V + alpha * o, one accumulating
// product, as fmha-fold-vd-rescale makes of the other routes.
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "KVLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAACCUMULATEPV
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// The parts of `o_new = rowbcast(alpha) * o + tile_mma(P, V, 0)`, the
/// update `loop` yields for o, or failure.
struct Plan {
  arith::AddFOp update;
  arith::MulFOp rescaled; // rowbcast(alpha) * o
  TileMmaOp pv;           // from zero, no k_scale, used only by the update
};

FailureOr<Plan> plan(scf::ForOp loop) {
  Plan p;
  p.update = kvloop::yieldedBy<arith::AddFOp>(loop, kKVLoopO);
  if (!p.update)
    return failure();
  Value o = loop.getRegionIterArgs()[kKVLoopO];
  for (auto [x, y] : {std::pair{p.update.getLhs(), p.update.getRhs()},
                      std::pair{p.update.getRhs(), p.update.getLhs()}}) {
    auto mul = x.getDefiningOp<arith::MulFOp>();
    TileMmaOp mma = kvloop::productFromZero(y, loop, p.update.getType());
    if (!mul || !mma || mma.getKScale())
      continue;
    bool ofO = (mul.getLhs() == o && kvloop::rowOfBroadcast(mul.getRhs())) ||
               (mul.getRhs() == o && kvloop::rowOfBroadcast(mul.getLhs()));
    if (!ofO)
      continue;
    p.rescaled = mul;
    p.pv = mma;
    return p;
  }
  return failure();
}

struct FmhaAccumulatePVPass
    : public fmha::impl::FmhaAccumulatePVBase<FmhaAccumulatePVPass> {
  void runOnOperation() override {
    for (scf::ForOp loop : kvloop::collect(getOperation())) {
      FailureOr<Plan> p = plan(loop);
      if (failed(p))
        continue;
      // The product moves to the update (where alpha * o is defined).
      OpBuilder b(p->update);
      auto pv = TileMmaOp::create(b, p->pv.getLoc(), p->pv.getType(),
                                  p->pv.getLhs(), p->pv.getRhs(),
                                  p->rescaled.getResult(), Value(),
                                  /*transpose_rhs=*/false);
      pv->setDiscardableAttrs(p->pv->getDiscardableAttrDictionary());
      p->update.getResult().replaceAllUsesWith(pv.getResult());
      p->update.erase();
      p->pv.erase();
      ++numAccumulated;
    }
  }
};

} // namespace
