//===- OverlapScoreMma.cpp - fmha-overlap-score-mma -----------------------===//
//
// In a pipelined KV loop, S = Q K^T is started before the V tile's wait and
// transpose (fmha.staged_kv of V) and waited for (fmha.mma_wait) where S is
// first used, so the V tile's transpose runs while the matrix unit computes
// S. The rule is on the pass (Passes.td).
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "KVLoop.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAOVERLAPSCOREMMA
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Whether `op` (in the same block, before `later`) is used by `later` or
/// by an op between them, i.e. whether `later` cannot move above it.
bool feeds(Operation *op, Operation *later) {
  for (Operation *u : op->getUsers()) {
    Operation *inBlock = op->getBlock()->findAncestorOpInBlock(*u);
    if (inBlock && !later->isBeforeInBlock(inBlock))
      return true;
  }
  return false;
}

void overlap(scf::ForOp loop) {
  Block *body = loop.getBody();
  for (auto s : llvm::make_early_inc_range(body->getOps<TileMmaOp>())) {
    if (!s.getTransposeRhs() || s->use_empty() ||
        llvm::any_of(s->getUsers(), llvm::IsaPred<MmaWaitOp>))
      continue;
    // The V tile's wait and transpose before S: S does not read it, so it
    // moves after S (nothing S needs lies between them).
    for (auto v : llvm::make_early_inc_range(body->getOps<StagedKVOp>())) {
      if (!v->isBeforeInBlock(s) || feeds(v, s))
        continue;
      bool isV = llvm::all_of(v->getUsers(), [](Operation *u) {
        auto m = dyn_cast<TileMmaOp>(u);
        return m && !m.getTransposeRhs();
      });
      if (isV)
        v->moveAfter(s);
    }
    // The wait before S's first use in the block.
    kvloop::waitBeforeFirstUse(s);
  }
}

struct FmhaOverlapScoreMmaPass
    : public fmha::impl::FmhaOverlapScoreMmaBase<FmhaOverlapScoreMmaPass> {
  void runOnOperation() override {
    getOperation()->walk([](scf::ForOp loop) {
      if (loop->hasAttr(kPipelinedAttr))
        overlap(loop);
    });
  }
};

} // namespace
