//===- HoistTileReads.cpp - fmha-hoist-tile-reads --------------------------===//
//
// In a pipelined KV loop, the descale reads of the current tile are moved
// above the loop's first wait for a staged tile, with the read-only ops
// they need, so their latency overlaps the wait and S = Q K^T. The rule is
// on the pass (Passes.td).
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "KVLoop.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAHOISTTILEREADS
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Collects into `slice` (operands first) the ops of `body` after `point`
/// that `op` needs; false when one of them is not read-only.
bool collect(Operation *op, Operation *point, Block *body,
             llvm::SetVector<Operation *> &slice) {
  if (slice.contains(op))
    return true;
  if (!kvloop::readsOnly(op))
    return false;
  for (Value v : op->getOperands()) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body || def->isBeforeInBlock(point))
      continue;
    if (!collect(def, point, body, slice))
      return false;
  }
  slice.insert(op);
  return true;
}

struct FmhaHoistTileReadsPass
    : public fmha::impl::FmhaHoistTileReadsBase<FmhaHoistTileReadsPass> {
  void runOnOperation() override {
    getOperation()->walk([](scf::ForOp loop) {
      if (!loop->hasAttr(kPipelinedAttr))
        return;
      Block *body = loop.getBody();
      auto waits = body->getOps<StagedKVOp>();
      if (waits.empty())
        return;
      Operation *point = *waits.begin();
      SmallVector<GatherDescaleOp> reads;
      for (auto g : body->getOps<GatherDescaleOp>())
        if (point->isBeforeInBlock(g))
          reads.push_back(g);
      for (GatherDescaleOp g : reads) {
        llvm::SetVector<Operation *> slice;
        if (!collect(g, point, body, slice))
          continue;
        for (Operation *op : slice)
          op->moveBefore(point);
      }
    });
  }
};

} // namespace
