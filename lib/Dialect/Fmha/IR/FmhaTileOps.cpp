//===- FmhaTileOps.cpp - verifiers of the tile-level ops --------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"

using namespace mlir;
using namespace mlir::fmha;

/// load_rows / store_rows: memref [rows, heads, D...] <-> vector [R, D...].
static LogicalResult verifyRows(Operation *op, MemRefType mem, VectorType vec) {
  if (mem.getRank() < 2)
    return op->emitOpError() << "memref must be [rows, heads, ...], got "
                             << mem;
  if (vec.getRank() != mem.getRank() - 1)
    return op->emitOpError() << "tile rank " << vec.getRank()
                             << " must be the memref rank minus one ("
                             << mem.getRank() - 1 << ")";
  for (int64_t i = 1; i < vec.getRank(); ++i)
    if (mem.getDimSize(i + 1) != vec.getDimSize(i))
      return op->emitOpError() << "tile dimension " << i << " ("
                               << vec.getDimSize(i)
                               << ") must equal memref dimension " << i + 1
                               << " (" << mem.getDimSize(i + 1) << ")";
  if (mem.getElementType() != vec.getElementType())
    return op->emitOpError() << "element types differ: " << mem << " and "
                             << vec;
  return success();
}

LogicalResult LoadRowsOp::verify() {
  return verifyRows(*this, cast<MemRefType>(getSource().getType()),
                    getResult().getType());
}

LogicalResult StoreRowsOp::verify() {
  return verifyRows(*this, cast<MemRefType>(getDest().getType()),
                    getValue().getType());
}

LogicalResult PageIdsOp::verify() {
  auto pages = cast<MemRefType>(getPages().getType());
  if (pages.getRank() != 1 || !pages.getElementType().isSignlessInteger(32))
    return emitOpError() << "pages must be a 1-D i32 memref, got " << pages;
  if (getPageSize() < 1)
    return emitOpError() << "page_size must be >= 1, got " << getPageSize();
  return success();
}

LogicalResult GatherKVOp::verify() {
  auto cache = cast<MemRefType>(getCache().getType());
  VectorType tile = getTile().getType();
  if (cache.getRank() != 4)
    return emitOpError() << "cache must have rank 4, got " << cache;
  if (tile.getElementType() != cache.getElementType() ||
      tile.getDimSize(1) != cache.getDimSize(3))
    return emitOpError() << "tile " << tile << " must be [BlockN, D] of the "
                         << "cache's element type and head dim (" << cache
                         << ")";
  if (auto ids = dyn_cast<VectorType>(getIds().getType()))
    if (ids.getDimSize(0) != tile.getDimSize(0))
      return emitOpError() << "ids (" << ids << ") and tile (" << tile
                           << ") must have the same token count";
  return success();
}

LogicalResult StageKVOp::verify() {
  auto cache = cast<MemRefType>(getCache().getType());
  auto tile = dyn_cast<VectorType>(getTileType());
  if (cache.getRank() != 4)
    return emitOpError() << "cache must have rank 4, got " << cache;
  if (!tile || tile.getRank() != 2 || tile.getElementType() != cache.getElementType() ||
      tile.getDimSize(1) != cache.getDimSize(3))
    return emitOpError() << "tile_type " << getTileType()
                         << " must be a [BlockN, D] vector of the cache's "
                         << "element type and head dim (" << cache << ")";
  if (auto ids = dyn_cast<VectorType>(getIds().getType()))
    if (ids.getDimSize(0) != tile.getDimSize(0))
      return emitOpError() << "ids (" << ids << ") and tile (" << tile
                           << ") must have the same token count";
  if (!getInBounds())
    return emitOpError() << "a staged tile must be in_bounds (no zero-fill)";
  if (static_cast<int64_t>(getStages()) < 2)
    return emitOpError() << "a ring needs at least 2 stages, got " << static_cast<int64_t>(getStages());
  return success();
}

LogicalResult StagedKVOp::verify() {
  if (static_cast<int64_t>(getStages()) < 2)
    return emitOpError() << "a ring needs at least 2 stages, got " << static_cast<int64_t>(getStages());
  if (static_cast<int64_t>(getPending()) < 0)
    return emitOpError() << "pending must be >= 0, got " << static_cast<int64_t>(getPending());
  // The ring's fmha.stage_kv ops (in the enclosing function or kernel) fill
  // the stage it reads: at least one, each with its stages and tile type.
  Operation *scope = (*this)->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  bool found = false;
  WalkResult r = scope->walk([&](StageKVOp s) {
    if (s.getRing() != getRing())
      return WalkResult::advance();
    found = true;
    if (s.getStages() != getStages() || s.getTileType() != getTile().getType()) {
      emitOpError() << "ring " << getRing() << " is filled by an fmha.stage_kv of "
                    << s.getStages() << " stages of " << s.getTileType()
                    << ", not " << getStages() << " of " << getTile().getType();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  if (!found)
    return emitOpError() << "ring " << getRing() << " has no fmha.stage_kv to fill it";
  return success();
}

LogicalResult GatherDescaleOp::verify() {
  auto descale = cast<MemRefType>(getDescale().getType());
  if (descale.getRank() != 2 || !descale.getElementType().isF32())
    return emitOpError() << "descale must be a [N_pages, Hkv] f32 memref, got "
                         << descale;
  auto ids = dyn_cast<VectorType>(getIds().getType());
  auto res = dyn_cast<VectorType>(getResult().getType());
  if (bool(ids) != bool(res) || (ids && ids.getShape() != res.getShape()))
    return emitOpError() << "result must match the ids' shape, got "
                         << getIds().getType() << " and "
                         << getResult().getType();
  return success();
}

LogicalResult TileMmaOp::verify() {
  VectorType lhs = getLhs().getType(), rhs = getRhs().getType(),
             acc = getAcc().getType();
  int64_t m = lhs.getDimSize(0), k = lhs.getDimSize(1);
  int64_t rk = getTransposeRhs() ? rhs.getDimSize(1) : rhs.getDimSize(0);
  int64_t n = getTransposeRhs() ? rhs.getDimSize(0) : rhs.getDimSize(1);
  if (k != rk)
    return emitOpError() << "contraction sizes differ: lhs " << lhs << ", rhs "
                         << rhs << (getTransposeRhs() ? " (transposed)" : "");
  if (acc.getDimSize(0) != m || acc.getDimSize(1) != n)
    return emitOpError() << "acc " << acc << " must be " << m << "x" << n;
  if (getKScale() && getKScale().getType().getDimSize(0) != k)
    return emitOpError() << "k_scale must have the contraction size " << k;
  if (getResult().getType() != acc)
    return emitOpError() << "result type must equal the acc type";
  return success();
}

LogicalResult MmaWaitOp::verify() {
  auto mma = getProduct().getDefiningOp<TileMmaOp>();
  if (!mma)
    return emitOpError() << "waits for the result of an fmha.tile_mma";
  if (!llvm::all_of(mma->getUsers(), llvm::IsaPred<MmaWaitOp>))
    return emitOpError() << "waits for an fmha.tile_mma whose users are not all "
                            "fmha.mma_wait";
  return success();
}

LogicalResult MaskTileOp::verify() {
  if (!getWindow().empty() && getWindow().size() != 2)
    return emitOpError() << "takes no window operands or two (left, right), got "
                         << getWindow().size();
  if (!getWindow().empty() && !getMask().isWindow())
    return emitOpError() << "window operands need a window mask, got "
                         << getMask();
  return success();
}

LogicalResult QuantizeTileOp::verify() {
  VectorType in = getTile().getType(), out = getResult().getType();
  auto isFp8 = [](Type t) { return isa<FloatType>(t) && t.getIntOrFloatBitWidth() == 8; };
  if (!isa<BFloat16Type, Float16Type>(in.getElementType()))
    return emitOpError() << "quantizes a bf16 or f16 tile, got " << in;
  if (!isFp8(out.getElementType()))
    return emitOpError() << "result must be an fp8 tile, got " << out;
  if (in.getShape() != out.getShape())
    return emitOpError() << "result " << out << " must have the shape of " << in;
  return success();
}
