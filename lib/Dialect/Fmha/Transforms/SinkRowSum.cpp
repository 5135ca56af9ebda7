//===- SinkRowSum.cpp - fmha-sink-row-sum ----------------------------------===//
//
// The running row sum l_new = alpha * l + rowsum(p * w) of the exp2_bias
// route (w = 1 / vd per key) feeds nothing in its tile but the next one:
// its reduction (and the ops only it uses) move to the end of the KV
// loop's body, after P x V. On AMDGPU this is where LLVM's scheduler then
// puts the reduction's work (a reciprocal and a sum a page): among P x V's
// MFMAs instead of before the first one.
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "KVLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHASINKROWSUM
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// The ops of `loop`'s body that compute the yielded l and nothing else:
/// the yield's operand and, transitively, the pure ops of the body whose
/// every user is among them. In program order; empty when the yielded l
/// is not a sum of weighted p (below).
SmallVector<Operation *> rowSumOps(scf::ForOp loop) {
  Block *body = loop.getBody();
  // l_new itself: pure, and used by the yield only (it moves to just
  // before it).
  Operation *root = kvloop::yieldedBy(loop, kKVLoopL);
  if (!root || !isPure(root) ||
      !llvm::all_of(root->getUsers(), [](Operation *u) { return isa<scf::YieldOp>(u); }))
    return {};
  llvm::SmallPtrSet<Operation *, 16> set{root};
  SmallVector<Operation *> work{root};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != body || set.contains(def) || !isPure(def) ||
          def->getNumRegions() != 0)
        continue;
      if (!llvm::all_of(def->getUsers(), [&](Operation *u) { return set.contains(u); }))
        continue;
      set.insert(def);
      work.push_back(def);
    }
  }
  // A sum of weighted p (p * w, w a per-key vector broadcast to the tile:
  // the exp2_bias route's p / vd) only. A plain row sum moved after P x V
  // keeps p's f32 tile live past its cast: measured more VGPRs and spills
  // on AMDGPU (gfx942 D 64 2 and D 256 1 VGPR spill, gfx950 default 8;
  // bench/NOTES.md, 2026-12-06, eleventh session) for no gain.
  bool weighted = llvm::any_of(set, [](Operation *op) {
    auto r = dyn_cast<vector::MultiDimReductionOp>(op);
    if (!r || r.getKind() != vector::CombiningKind::ADD)
      return false;
    auto mul = r.getSource().getDefiningOp<arith::MulFOp>();
    return mul && llvm::any_of(mul->getOperands(), [](Value w) {
             auto bc = w.getDefiningOp<vector::BroadcastOp>();
             auto src = bc ? dyn_cast<VectorType>(bc.getSourceType()) : VectorType();
             return src && src.getRank() == 1;
           });
  });
  if (!weighted)
    return {};
  SmallVector<Operation *> ordered;
  for (Operation &op : body->without_terminator())
    if (set.contains(&op))
      ordered.push_back(&op);
  return ordered;
}

struct FmhaSinkRowSumPass
    : public fmha::impl::FmhaSinkRowSumBase<FmhaSinkRowSumPass> {
  void runOnOperation() override {
    for (scf::ForOp loop : kvloop::collect(getOperation())) {
      SmallVector<Operation *> ops = rowSumOps(loop);
      Operation *yield = loop.getBody()->getTerminator();
      for (Operation *op : ops)
        op->moveBefore(yield);
      if (!ops.empty())
        ++numSunk;
    }
  }
};

} // namespace
