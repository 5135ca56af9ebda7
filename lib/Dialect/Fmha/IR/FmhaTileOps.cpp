//===- FmhaTileOps.cpp - verifiers of the tile-level ops --------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

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
  if (static_cast<int64_t>(getStages()) < 1)
    return emitOpError() << "a ring needs at least 1 stage, got " << static_cast<int64_t>(getStages());
  return success();
}

LogicalResult StagedKVOp::verify() {
  if (static_cast<int64_t>(getStages()) < 1)
    return emitOpError() << "a ring needs at least 1 stage, got " << static_cast<int64_t>(getStages());
  if (static_cast<int64_t>(getPending()) < 0)
    return emitOpError() << "pending must be >= 0, got " << static_cast<int64_t>(getPending());
  if (getByBarrier() && getPending() != 0)
    return emitOpError() << "a stage waited by fmha.stage_wait (by_barrier) takes "
                            "pending = 0, got "
                         << static_cast<int64_t>(getPending());
  if (getByBarrier() && !(*this)->getParentOfType<WarpRolesOp>())
    return emitOpError() << "a stage waited by fmha.stage_wait (by_barrier) must be "
                            "inside an fmha.warp_roles";
  // The ring's fmha.stage_kv ops (in the enclosing function or kernel) fill
  // the stage it reads: at least one, each with its stages and tile type
  // (or the fmha.stage_transpose ops of a ring of transposed V tiles).
  Operation *scope = (*this)->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  bool found = false;
  WalkResult r = scope->walk([&](Operation *op) {
    auto s = dyn_cast<StageKVOp>(op);
    auto t = dyn_cast<StageTransposeOp>(op);
    if ((!s || s.getRing() != getRing()) && (!t || t.getRing() != getRing()))
      return WalkResult::advance();
    found = true;
    int64_t stages = s ? s.getStages() : t.getStages();
    Type tile = s ? s.getTileType() : t.getTileType();
    if (stages != static_cast<int64_t>(getStages()) || tile != getTile().getType()) {
      emitOpError() << "ring " << getRing() << " is filled by an "
                    << op->getName() << " of " << stages << " stages of " << tile
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

Operation *StagedKVOp::getFiller() {
  Operation *scope = (*this)->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  Operation *found = nullptr;
  scope->walk([&](Operation *op) {
    if (auto s = dyn_cast<StageKVOp>(op); s && s.getRing() == getRing())
      found = op;
    if (auto t = dyn_cast<StageTransposeOp>(op); t && t.getRing() == getRing())
      found = op;
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

static LogicalResult verifyInRoles(Operation *op);

LogicalResult StageTransposeOp::verify() {
  if (failed(verifyInRoles(*this)))
    return failure();
  // `from` is a ring of fmha.stage_kv of the same stages and tile; `ring`
  // is filled by fmha.stage_transpose alone.
  Operation *scope = (*this)->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  bool from = false, mixed = false;
  scope->walk([&](StageKVOp s) {
    if (s.getRing() == getFrom())
      from |= s.getStages() == getStages() && s.getTileType() == getTileType();
    mixed |= s.getRing() == getRing();
  });
  if (!from)
    return emitOpError() << "reads ring " << getFrom() << ", which no fmha.stage_kv of "
                         << getStages() << " stages of " << getTileType() << " fills";
  if (mixed)
    return emitOpError() << "writes ring " << getRing() << ", which an fmha.stage_kv fills";
  if (getFrom() == getRing())
    return emitOpError() << "writes the ring it reads (" << getFrom() << ")";
  if (static_cast<int64_t>(getStages()) < 2)
    return emitOpError() << "a ring needs at least 2 stages, got "
                         << static_cast<int64_t>(getStages());
  if (static_cast<int64_t>(getPending()) < 0)
    return emitOpError() << "pending must be >= 0, got "
                         << static_cast<int64_t>(getPending());
  auto tile = dyn_cast<VectorType>(getTileType());
  if (!tile || tile.getRank() != 2)
    return emitOpError() << "tile_type must be a 2-d vector, got " << getTileType();
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

//===----------------------------------------------------------------------===//
// fmha.warp_roles
//===----------------------------------------------------------------------===//

LogicalResult WarpRolesOp::verify() {
  if (getConsumers() < 1)
    return emitOpError() << "needs at least one consumer group, got "
                         << static_cast<int64_t>(getConsumers());
  if (getWarps() < 1)
    return emitOpError() << "warps must be >= 1, got " << static_cast<int64_t>(getWarps());
  for (int64_t r : {static_cast<int64_t>(getProducerRegs()),
                    static_cast<int64_t>(getConsumerRegs())})
    if (r != 0 && (r < 24 || r > 256 || r % 8))
      return emitOpError() << "registers per thread must be 0 (the target's "
                              "choice) or a multiple of 8 in [24, 256], got "
                           << r;
  // A workgroup of (1 + consumers) groups of `warps` warps of 32 threads:
  // at most 1024 threads, named barriers 1 .. consumers + 1 of 16, and the
  // registers the roles ask for within the SM's 65536 (else the consumers'
  // setmaxnreg.inc waits forever).
  int64_t groups = 1 + getConsumers(), groupThreads = getWarps() * 32;
  if (groups * groupThreads > 1024 || getConsumers() > 14)
    return emitOpError() << "a workgroup of " << groups << " groups of "
                         << getWarps() << " warps is over 1024 threads or 15 "
                            "named barriers";
  if (getProducerRegs() && getConsumerRegs() &&
      groupThreads * (getProducerRegs() + getConsumers() * getConsumerRegs()) > 65536)
    return emitOpError() << "the roles ask for " << groupThreads << " x ("
                         << getProducerRegs() << " + " << getConsumers() << " x "
                         << getConsumerRegs() << ") registers, over the 65536 of an SM";
  Block &c = getConsumer().front();
  if (c.getNumArguments() != 1 || !c.getArgument(0).getType().isIndex())
    return emitOpError() << "the consumer region takes one index argument (its "
                            "group number)";
  if (getProducer().front().getNumArguments() != 0)
    return emitOpError() << "the producer region takes no arguments";
  // Each handoff op in the role that may use it.
  // The producer stages tiles and reads their ids; it has no workgroup
  // barrier after the split, so nothing that would need one (LDS tiles of
  // its own, Q, a quantization over the workgroup).
  WalkResult r = getProducer().walk([&](Operation *op) {
    if (isa<StageWaitOp, StageReleaseOp, TileMmaOp, StoreRowsOp, GatherKVOp,
            LoadRowsOp, StagedKVOp, QuantizeTileOp>(op)) {
      emitOpError() << "the producer region may not hold '" << op->getName() << "'";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  r = getConsumer().walk([&](Operation *op) {
    if (isa<StageFreeOp, StageFilledOp, StageKVOp, StageTransposeOp, QuantizeTileOp>(op)) {
      emitOpError() << "the consumer region may not hold '" << op->getName() << "'";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

void WarpRolesOp::print(OpAsmPrinter &p) {
  p << " consumers(" << getConsumers() << ") warps(" << getWarps() << ") regs("
    << getProducerRegs() << ", " << getConsumerRegs() << ") producer ";
  p.printRegion(getProducer(), /*printEntryBlockArgs=*/false);
  p << " consumer(";
  p.printOperand(getConsumerIndex());
  p << ") ";
  p.printRegion(getConsumer(), /*printEntryBlockArgs=*/false);
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getConsumersAttrName(), getWarpsAttrName(),
                           getProducerRegsAttrName(), getConsumerRegsAttrName()});
}

ParseResult WarpRolesOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &b = parser.getBuilder();
  int64_t consumers, warps, pregs, cregs;
  OpAsmParser::Argument index;
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  if (parser.parseKeyword("consumers") || parser.parseLParen() ||
      parser.parseInteger(consumers) || parser.parseRParen() ||
      parser.parseKeyword("warps") || parser.parseLParen() ||
      parser.parseInteger(warps) || parser.parseRParen() ||
      parser.parseKeyword("regs") || parser.parseLParen() ||
      parser.parseInteger(pregs) || parser.parseComma() ||
      parser.parseInteger(cregs) || parser.parseRParen())
    return failure();
  result.addAttribute("consumers", i64(consumers));
  result.addAttribute("warps", i64(warps));
  result.addAttribute("producer_regs", i64(pregs));
  result.addAttribute("consumer_regs", i64(cregs));
  Region *producer = result.addRegion();
  Region *consumer = result.addRegion();
  if (parser.parseKeyword("producer") || parser.parseRegion(*producer) ||
      parser.parseKeyword("consumer") || parser.parseLParen() ||
      parser.parseArgument(index, /*allowType=*/false) || parser.parseRParen())
    return failure();
  index.type = b.getIndexType();
  if (parser.parseRegion(*consumer, {index}) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  if (producer->empty())
    producer->emplaceBlock();
  if (consumer->empty())
    consumer->emplaceBlock().addArgument(b.getIndexType(), result.location);
  return success();
}

//===----------------------------------------------------------------------===//
// The stage handoff: only inside fmha.warp_roles
//===----------------------------------------------------------------------===//

static LogicalResult verifyInRoles(Operation *op) {
  if (!op->getParentOfType<WarpRolesOp>())
    return op->emitOpError() << "hands a stage between warp roles: it must be "
                                "inside an fmha.warp_roles";
  return success();
}

LogicalResult StageFreeOp::verify() { return verifyInRoles(*this); }

LogicalResult StageDescaleOp::verify() {
  if (failed(verifyInRoles(*this)))
    return failure();
  auto d = cast<MemRefType>(getDescale().getType());
  if (d.getRank() != 2 || !d.getElementType().isF32())
    return emitOpError() << "descale must be a rank-2 f32 memref (page, KV head), got " << d;
  if (static_cast<int64_t>(getStages()) < 1)
    return emitOpError() << "a ring needs at least 1 stage, got "
                         << static_cast<int64_t>(getStages());
  return success();
}

LogicalResult StagedDescaleOp::verify() {
  if (failed(verifyInRoles(*this)))
    return failure();
  // The ring's writers: fmha.stage_descale ops of the same stages and keys.
  Operation *scope = (*this)->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  int64_t n = getResult().getType().getDimSize(0);
  bool found = false, mismatch = false;
  scope->walk([&](StageDescaleOp s) {
    if (s.getRing() != getRing())
      return;
    found = true;
    mismatch |= s.getStages() != getStages() ||
                cast<VectorType>(s.getIds().getType()).getDimSize(0) != n;
  });
  if (!found)
    return emitOpError() << "ring " << getRing() << " has no fmha.stage_descale to fill it";
  if (mismatch)
    return emitOpError() << "ring " << getRing() << " is written by an fmha.stage_descale of "
                            "other stages or another key count than "
                         << getStages() << " stages of " << n << " keys";
  return success();
}
LogicalResult StageFilledOp::verify() { return verifyInRoles(*this); }
LogicalResult StageWaitOp::verify() { return verifyInRoles(*this); }
LogicalResult StageReleaseOp::verify() { return verifyInRoles(*this); }

/// fmha.turn_take / fmha.turn_pass: in the consumer region of an
/// fmha.warp_roles of 2 to 7 consumers (their turn barriers take named
/// barriers consumers + 2 .. 2 consumers + 1 of 16), naming its consumer
/// by the region's index argument.
static LogicalResult verifyTurn(Operation *op, Value consumer) {
  auto roles = op->getParentOfType<WarpRolesOp>();
  if (!roles || !roles.getConsumer().isAncestor(op->getParentRegion()))
    return op->emitOpError() << "passes a turn between consumers: it must be inside "
                                "the consumer region of an fmha.warp_roles";
  int64_t n = roles.getConsumers();
  if (n < 2 || n > 7)
    return op->emitOpError() << "needs 2 to 7 consumers to take turns (a named barrier "
                                "each beside theirs and the producer's), got "
                             << n;
  if (consumer != roles.getConsumerIndex())
    return op->emitOpError() << "names its consumer by the consumer region's index "
                                "argument";
  return success();
}

LogicalResult TurnTakeOp::verify() { return verifyTurn(*this, getConsumer()); }
LogicalResult TurnPassOp::verify() { return verifyTurn(*this, getConsumer()); }
