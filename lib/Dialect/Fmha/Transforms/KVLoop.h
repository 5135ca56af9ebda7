//===- KVLoop.h - finding the pieces of fmha-tile's KV loop -----*- C++ -*-===//
//
// The fold passes rewrite the KV loop that fmha-tile writes. These helpers
// find its parts by structure (and the loop by its kKVLoopAttr marker); a
// part that is not where it should be makes a fold leave the loop alone.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_LIB_DIALECT_FMHA_TRANSFORMS_KVLOOP_H
#define FMHA_LIB_DIALECT_FMHA_TRANSFORMS_KVLOOP_H

#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace fmha {
namespace kvloop {

/// Every loop fmha-tile marked, in program order.
inline SmallVector<scf::ForOp> collect(Operation *root) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp f) {
    if (f->hasAttr(kKVLoopAttr))
      loops.push_back(f);
  });
  return loops;
}

/// An op with no regions and no effect but reads (the page-table and
/// descale loads read kernel inputs, which the kernel never writes): it may
/// be computed again for another iteration, or earlier in its own.
inline bool readsOnly(Operation *op) {
  if (op->getNumRegions())
    return false;
  if (isMemoryEffectFree(op))
    return true;
  auto mem = dyn_cast<MemoryEffectOpInterface>(op);
  if (!mem)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  mem.getEffects(effects);
  return llvm::all_of(effects, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read>(e.getEffect());
  });
}

/// An fmha.mma_wait of the product `m` placed before m's first use in its
/// block (a use nested in an op counts at that op), every other use of m
/// now reading the wait.
inline MmaWaitOp waitBeforeFirstUse(TileMmaOp m) {
  Block *body = m->getBlock();
  Operation *first = body->getTerminator();
  for (Operation *u : m->getUsers()) {
    Operation *inBlock = body->findAncestorOpInBlock(*u);
    if (inBlock->isBeforeInBlock(first))
      first = inBlock;
  }
  OpBuilder b(first);
  auto w = MmaWaitOp::create(b, m.getLoc(), m.getType(), m.getResult());
  m.getResult().replaceAllUsesExcept(w.getResult(), w);
  return w;
}

/// The scalar a vector.broadcast splats, or null.
inline Value splatScalar(Value v) {
  if (auto bc = v.getDefiningOp<vector::BroadcastOp>())
    if (!isa<VectorType>(bc.getSource().getType()))
      return bc.getSource();
  return {};
}

/// The f32 constant a vector splats (broadcast of a constant, or a dense
/// splat constant), or nullopt.
inline std::optional<double> splatConstant(Value v) {
  if (Value s = splatScalar(v))
    v = s;
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  if (!cst)
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(cst.getValue()))
    return f.getValueAsDouble();
  if (auto d = dyn_cast<SplatElementsAttr>(cst.getValue()))
    if (auto f = dyn_cast<FloatAttr>(d.getSplatValue<Attribute>()))
      return f.getValueAsDouble();
  return std::nullopt;
}

/// The per-row vector a tile-shaped value broadcasts (shape_cast to [R, 1],
/// then broadcast to [R, N]), or null.
inline Value rowOfBroadcast(Value v) {
  auto bc = v.getDefiningOp<vector::BroadcastOp>();
  if (!bc)
    return {};
  auto sc = bc.getSource().getDefiningOp<vector::ShapeCastOp>();
  if (!sc || cast<VectorType>(sc.getSource().getType()).getRank() != 1)
    return {};
  return sc.getSource();
}

/// Broadcasts a per-row vector<R> to `tileType` [R, N] (the form fmha-tile
/// writes, so later folds recognise it).
inline Value broadcastRow(OpBuilder &b, Location loc, Value row,
                          VectorType tileType) {
  auto rowT = cast<VectorType>(row.getType());
  auto colT = VectorType::get({rowT.getDimSize(0), 1}, rowT.getElementType());
  Value c = vector::ShapeCastOp::create(b, loc, colT, row);
  return vector::BroadcastOp::create(b, loc, tileType, c);
}

/// First op of type OpT directly in the loop body matching `pred`.
template <typename OpT, typename Pred>
OpT findInBody(scf::ForOp loop, Pred pred) {
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto t = dyn_cast<OpT>(&op); t && pred(t))
      return t;
  return {};
}

/// The op in `loop`'s body (not above it) that computes the value the loop
/// yields as iter arg `index` (kKVLoopM / L / O), or null (also when the
/// loop carries fewer values).
inline Operation *yieldedBy(scf::ForOp loop, unsigned index) {
  if (loop.getNumRegionIterArgs() <= index)
    return nullptr;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Operation *op = yield.getOperand(index).getDefiningOp();
  return op && op->getBlock() == loop.getBody() ? op : nullptr;
}
/// `v` as a P x V product of `loop`'s body (a tile_mma without transpose_rhs)
/// from a zero accumulator, of type `t`, used once: the form fmha-tile
/// writes for o's update; else null. Its k_scale is the caller's to check.
inline TileMmaOp productFromZero(Value v, scf::ForOp loop, Type t) {
  auto mma = v.getDefiningOp<TileMmaOp>();
  if (!mma || mma.getTransposeRhs() || !mma->hasOneUse() ||
      mma->getBlock() != loop.getBody() || mma.getType() != t)
    return {};
  std::optional<double> zero = splatConstant(mma.getAcc());
  return zero && *zero == 0.0 ? mma : TileMmaOp();
}

/// yieldedBy as OpT, or null when it is another op.
template <typename OpT>
OpT yieldedBy(scf::ForOp loop, unsigned index) {
  return dyn_cast_or_null<OpT>(yieldedBy(loop, index));
}

} // namespace kvloop
} // namespace fmha
} // namespace mlir

#endif // FMHA_LIB_DIALECT_FMHA_TRANSFORMS_KVLOOP_H
