//===- LowerTiles.cpp - convert-fmha-to-gpu: a kernel to one lane's code --===//
//
// The driver of the lane lowering (docs/GPU_LOWERING.md): for one kernel
// fmha-outline-kernel wrote (its flat ABI: the memrefs rebuilt from
// descriptors at the top of the entry block in the global byte view, each
// cast back to the type the tile ops use),
//
// 1. the lane layout of the chip's MMA for the kernel's K/V type
//    (LaneLayout), and the form of every tile value (LaneForms): every rule
//    the lowering cannot follow is reported here, before anything changes;
// 2. (the ABI is fmha-outline-kernel's);
// 3. the LDS plan: a workgroup buffer per K / V tile (and Q on sm_90a;
//    1024-aligned where the chip swizzles it), and a barrier before a tile is written when a
//    product read LDS since, before a product reads when a tile was written
//    since (TargetInfo::barrierAfterLdsWrites), and at the end of a loop
//    body that read;
// 4. the per-lane index values at the kernel entry;
// 5. the 1:N dialect conversion: LaneTypeConverter, the three pattern
//    families (LanePatterns.h) and upstream's structural scf conversion. The
//    memrefs take the global byte view (fp8 as i8, address space 1): the
//    casts back to the tile ops' types fold away.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/FmhaToGPU.h"
#include "fmha/Conversion/FmhaToGPU/LanePatterns.h"
#include "fmha/Conversion/OutlineKernel/OutlineKernel.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>
#include <tuple>

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// A splat that a loop takes as an init or yields, and that is also used
/// elsewhere, gets a copy of its own there, so that its lane form can be the
/// loop's (row form or accumulator parts) whatever its other users need.
void splitLoopSplats(gpu::GPUFuncOp kernel) {
  auto split = [](OpOperand &use, Operation *before) {
    Value v = use.get();
    if (!isa<VectorType>(v.getType()) || !LaneForms::isSplat(v) || v.hasOneUse())
      return;
    OpBuilder b(before);
    use.set(b.clone(*v.getDefiningOp())->getResult(0));
  };
  kernel.walk([&](scf::ForOp loop) {
    for (OpOperand &init : loop.getInitArgsMutable())
      split(init, loop);
    Operation *yield = loop.getBody()->getTerminator();
    for (OpOperand &y : yield->getOpOperands())
      split(y, yield);
  });
}

/// Whether `r` reads a register stage (LaneContext::Ring::viaRegisters): a
/// one-stage ring of V tiles the lanes transpose (V^T read as such, not by
/// transpose loads) on a chip with loads into LDS (gfx942). Its stage holds
/// V^T, written from registers at the read; a row-major stage beside the
/// V^T buffer would take 16 KiB more LDS, one workgroup a CU.
bool readsRegisterStage(StagedKVOp r, const LaneForms &forms, const TargetInfo &ti) {
  const ValueForm *f = forms.lookup(r.getTile());
  return ti.ldsLoadBytes() && !ti.transposeLoadsV() && r.getStages() == 1 &&
         !r.getByBarrier() && f && f->isV && f->transposedInLds();
}

/// Step 3's barriers, in program order.
struct LdsBarriers {
  const TargetInfo &ti;
  const LaneForms &forms;
  /// Warp roles: a consumer group's barriers are its own (barrier 1 + c of
  /// its warpgroup's threads, c its number); the producer's only LDS reads
  /// (fmha.stage_transpose) bring their own barrier.
  WarpRolesOp roles = nullptr;
  int64_t roleThreads = 0;
  // written: LDS written since the last barrier; read: LDS read by a
  // product since then; readV: a V tile among those reads; fence: a stage
  // another warpgroup filled was taken since the last product (the proxy
  // fence the product's shared reads need, without a barrier).
  bool written = false, read = false, readV = false, fence = false;
  /// A consumer's read of a stage the producer filled that writes no LDS
  /// of its own (K, or V the producer transposed): ordered by the stage's
  /// mbarrier wait, no barrier of the consumer's warpgroup.
  static bool takesFilledStage(Operation &op) {
    auto s = dyn_cast<StagedKVOp>(op);
    if (!s || !s.getByBarrier())
      return false;
    bool isK = llvm::any_of(s.getTile().getUsers(), [](Operation *u) {
      auto m = dyn_cast<TileMmaOp>(u);
      return m && m.getTransposeRhs();
    });
    return isK || isa_and_nonnull<StageTransposeOp>(s.getFiller());
  }
  /// A read of a one-stage ring (fmha-pipeline-kv-stages' single-stage
  /// schedule): StagedKVPattern waits for the wave's loads into it and
  /// meets the workgroup at a barrier, so every LDS write before it is
  /// visible after it and every read before it is done. It writes LDS only
  /// where it transposes a V tile out of the stage.
  bool ownsBarrier(Operation &op) const {
    auto s = dyn_cast<StagedKVOp>(op);
    return s && !s.getByBarrier() && s.getStages() == 1 && !readsRegisterStage(s, forms, ti);
  }
  bool transposesOut(Operation &op) const {
    const ValueForm *f = forms.lookup(op.getResult(0));
    return f && f->isV && f->transposedInLds();
  }
  /// Whether `block` (nested blocks included) writes LDS.
  bool writesLds(Block &block) {
    WalkResult r = block.walk([&](Operation *op) {
      bool w = isa<GatherKVOp>(op) || (isa<LoadRowsOp>(op) && ti.warpgroupMma()) ||
               (isa<StagedKVOp>(op) && !takesFilledStage(*op) &&
                (!ownsBarrier(*op) || transposesOut(*op)));
      return w ? WalkResult::interrupt() : WalkResult::advance();
    });
    return r.wasInterrupted();
  }
  /// The barrier before `op` (afterWrites: between the lanes' LDS stores
  /// and a product).
  void emitBarrier(Operation *op, bool afterWrites) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (roles && roles.getConsumer().isAncestor(op->getParentRegion())) {
      Value c = arith::IndexCastUIOp::create(b, loc, b.getI32Type(),
                                             roles.getConsumerIndex());
      Value id = arith::AddIOp::create(
          b, loc, c, arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1));
      if (afterWrites)
        ti.groupBarrierAfterLdsWrites(b, loc, id, roleThreads);
      else
        ti.groupBarrier(b, loc, id, roleThreads);
      return;
    }
    if (afterWrites)
      ti.barrierAfterLdsWrites(b, loc);
    else
      ti.barrier(b, loc);
  }
  void barrierBefore(Operation *op) { emitBarrier(op, /*afterWrites=*/false); }
  /// A pipelined loop's staged V writes only its own V^T buffer (LowerTiles
  /// gives it one), which no product but P V reads.
  bool writesOwnVt(Operation &op) const {
    const ValueForm *f = isa<StagedKVOp>(op) ? forms.lookup(op.getResult(0)) : nullptr;
    return f && f->isV && op.getParentOp()->hasAttr(kPipelinedAttr);
  }
  void visit(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (takesFilledStage(op)) {
        fence = true;
      } else if (ownsBarrier(op)) {
        written = transposesOut(op);
        read = readV = false;
      } else if (auto st = dyn_cast<StageKVOp>(op); st && st.getStages() == 1) {
        // Loads into a one-stage ring overwrite what a read before them
        // (another loop's tile in the same buffer) may still need. LDS
        // writes not yet fenced (a register stage's V^T, gfx942) are fenced
        // before them: the fence of a barrier after them would wait for
        // the loads too (s_waitcnt vmcnt(0) right after they are issued).
        if (written) {
          emitBarrier(&op, /*afterWrites=*/true);
          written = read = readV = false;
        } else if (read) {
          barrierBefore(&op);
          read = readV = false;
        }
      } else if (isa<GatherKVOp, StagedKVOp>(op) ||
                 (isa<LoadRowsOp>(op) && ti.warpgroupMma())) {
        // (fmha-overlap-score-mma puts a staged V after S = Q K^T, whose
        // reads of Q and K it does not overwrite: no barrier between.)
        if (read && (readV || !writesOwnVt(op))) {
          barrierBefore(&op);
          read = readV = false;
        }
        written = true;
      } else if (auto m = dyn_cast<TileMmaOp>(op)) {
        if (written) {
          emitBarrier(&op, /*afterWrites=*/true);
          readV = false;
        } else if (fence) {
          OpBuilder b(&op);
          ti.asyncProxyFence(b, op.getLoc());
        }
        written = fence = false;
        read = true;
        readV |= !m.getTransposeRhs();
      } else if (auto f = dyn_cast<scf::ForOp>(op)) {
        // A loop that writes no LDS (a consumer's, whose stages the
        // producer fills and transposes): the writes before it (Q) are
        // fenced once before the loop, not in every iteration.
        bool writes = writesLds(*f.getBody());
        if (written && !writes) {
          emitBarrier(f, /*afterWrites=*/true);
          written = false;
        }
        visit(*f.getBody());
        // A one-stage ring's last stage (the single-stage schedule's K of
        // tile min(t + 1, ub - 1), started in every iteration) may be in
        // flight when the loop ends: wait for it there, before any later
        // loop's writes to the buffers (the barrier before them follows).
        if (llvm::any_of(f.getBody()->getOps<StageKVOp>(),
                         [](StageKVOp st) { return st.getStages() == 1; })) {
          OpBuilder b = OpBuilder::atBlockEnd(f->getBlock());
          b.setInsertionPointAfter(f);
          if (ti.ldsLoadBytes())
            ti.waitLdsLoads(b, f.getLoc());
          else
            ti.asyncWait(b, f.getLoc(), 0);
        }
        // This iteration's LDS reads before the next one's writes (none in a
        // consumer's loop whose stages the producer fills and transposes).
        // (Without that barrier the reads stay pending for the writes after
        // the loop.)
        if (read && writes) {
          barrierBefore(f.getBody()->getTerminator());
          read = readV = false;
        }
      } else if (auto i = dyn_cast<scf::IfOp>(op)) {
        for (Region &r : i->getRegions())
          for (Block &b : r)
            visit(b);
      } else if (auto r = dyn_cast<WarpRolesOp>(op)) {
        // The roles run side by side: each starts from a clean state.
        for (Region *reg : {&r.getProducer(), &r.getConsumer()}) {
          written = read = readV = fence = false;
          visit(reg->front());
        }
        written = read = readV = fence = false;
      }
    }
  }
};

/// The global view of a kernel memref: fp8 as bytes, address space 1.
std::optional<Type> globalView(MemRefType mt) {
  if (mt.getMemorySpace())
    return std::nullopt;
  Type elem = mt.getElementType();
  if (isa<FloatType>(elem) && elem.getIntOrFloatBitWidth() == 8)
    elem = IntegerType::get(mt.getContext(), 8);
  return MemRefType::get(mt.getShape(), elem, mt.getLayout(),
                         IntegerAttr::get(IntegerType::get(mt.getContext(), 64), 1));
}

/// fmha-outline-kernel's cast of a rebuilt memref (global byte view) back to
/// the type the tile ops use: the converted type is the rebuilt memref's.
struct MemRefBridgePattern : public OpConversionPattern<UnrealizedConversionCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(UnrealizedConversionCastOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    if (op->getNumOperands() != 1 || op->getNumResults() != 1 ||
        !isa<MemRefType>(op->getOperand(0).getType()) ||
        a.getOperands()[0].size() != 1 ||
        getTypeConverter()->convertType(op->getResult(0).getType()) !=
            op->getOperand(0).getType())
      return failure();
    rw.replaceOp(op, a.getOperands()[0][0]);
    return success();
  }
};

/// Any op outside the fmha dialect and scf whose memref types change: the
/// same op on the converted memrefs (loads, stores, subviews, descriptors).
struct MemRefViewPattern : public ConversionPattern {
  MemRefViewPattern(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                                ConversionPatternRewriter &rw) const override {
    if (isa<FmhaDialect, scf::SCFDialect>(op->getDialect()) ||
        op->getNumRegions())
      return failure();
    bool memref = llvm::any_of(op->getOperandTypes(), llvm::IsaPred<MemRefType>) ||
                  llvm::any_of(op->getResultTypes(), llvm::IsaPred<MemRefType>);
    if (!memref)
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    OperationState st(op->getLoc(), op->getName());
    for (ValueRange r : operands)
      st.addOperands(r);
    st.addTypes(types);
    st.addAttributes(op->getAttrs());
    rw.replaceOp(op, rw.create(st)->getResults());
    return success();
  }
};

} // namespace

namespace {
/// The lane layout of the kernel's MMA for its K/V type.
FailureOr<LaneLayout> kernelLayout(gpu::GPUFuncOp kernel, const TargetInfo &ti,
                                   ConfigAttr cfg) {
  Type kvElem;
  kernel.walk([&](GatherKVOp g) { kvElem = g.getTile().getType().getElementType(); });
  if (!kvElem)
    return kernel.emitOpError("convert-fmha-to-gpu: kernel has no KV gather");
  return LaneLayout::get(ti, cfg, kvElem, kernel);
}
} // namespace

LogicalResult mlir::fmha::verifyKernelTiles(gpu::GPUFuncOp kernel,
                                            const TargetInfo &ti,
                                            ConfigAttr cfg, bool ldsBankSwizzle) {
  FailureOr<LaneLayout> layout = kernelLayout(kernel, ti, cfg);
  if (failed(layout))
    return failure();
  LaneForms forms;
  forms.bankSwizzle = ldsBankSwizzle;
  return forms.analyze(kernel, *layout, ti, cfg);
}

LogicalResult mlir::fmha::lowerKernelTiles(gpu::GPUFuncOp kernel,
                                           const TargetInfo &ti,
                                           ConfigAttr cfg, bool ldsBankSwizzle) {
  // 1. Layout and forms: every error before any rewrite.
  FailureOr<LaneLayout> layout = kernelLayout(kernel, ti, cfg);
  if (failed(layout))
    return failure();
  splitLoopSplats(kernel);
  LaneForms forms;
  forms.bankSwizzle = ldsBankSwizzle;
  if (failed(forms.analyze(kernel, *layout, ti, cfg)))
    return failure();

  // Warp roles (fmha-warp-specialize): at most one split, on a chip with
  // mbarriers; each role is one group of cfg.warps warps.
  WarpRolesOp roles;
  int64_t nRoles = 0;
  kernel.walk([&](WarpRolesOp r) {
    roles = r;
    ++nRoles;
  });
  if (nRoles > 1)
    return kernel.emitOpError("convert-fmha-to-gpu: more than one fmha.warp_roles");
  if (roles && !ti.hasWarpRoles())
    return roles.emitOpError("needs a chip with warp roles (mbarriers, named "
                             "barriers, setmaxnreg: sm_90a), not ")
           << cfg.getChip();
  if (roles && roles.getWarps() != cfg.getWarps())
    return roles.emitOpError("has groups of ")
           << roles.getWarps() << " warps but the config's lane layout has "
           << cfg.getWarps();
  int64_t roleThreads = cfg.getWarps() * layout->wave;

  // 3-4. LDS plan, per-lane values.
  LdsBarriers barriers{ti, forms};
  barriers.roles = roles;
  barriers.roleThreads = roleThreads;
  barriers.visit(kernel.getBody().front());
  LaneContext lc(kernel, ti, cfg, *layout, forms);
  // The n-th staged tile of every KV loop shares one buffer: the loops
  // fmha-peel-masked-tiles split one loop into run one after the other, and
  // each iteration ends with a barrier after its LDS reads.
  std::map<std::tuple<int64_t, int64_t, int64_t>, Value> shared;
  llvm::DenseMap<Operation *, int64_t> stagedInLoop;
  llvm::DenseMap<Operation *, int64_t> stagedPerCopy; // unrolled loops
  auto alignOf = [&](int64_t rowBytes) {
    // A swizzled tile is read by the warpgroup MMA through descriptors that
    // assume the swizzle pattern starts at a 1024-byte boundary; any other
    // starts at 16, which its 16-byte aligned chunk stores and reads claim
    // (an i8 array is otherwise declared with alignment 1).
    return IntegerAttr::get(IntegerType::get(kernel.getContext(), 64),
                            ti.ldsSwizzleBytes(rowBytes) ? 1024 : 16);
  };
  auto workgroupBytes = [&](int64_t n, Location loc, int64_t rowBytes) {
    auto t = MemRefType::get(
        {n}, IntegerType::get(kernel.getContext(), 8), AffineMap(),
        gpu::AddressSpaceAttr::get(kernel.getContext(), gpu::AddressSpace::Workgroup));
    Value v = kernel.addWorkgroupAttribution(t, loc);
    kernel.setWorkgroupAttributionAttr(kernel.getNumWorkgroupAttributions() - 1,
                                       LLVM::LLVMDialect::getAlignAttrName(),
                                       alignOf(rowBytes));
    return v;
  };
  // The rings of fmha.stage_kv: `stages` tiles each, in K's row-major form
  // (a staged V is transposed out of its stage by fmha.staged_kv).
  kernel.walk([&](StageKVOp s) {
    if (lc.rings.count(s.getRing()))
      return;
    auto t = cast<VectorType>(s.getTileType());
    LaneContext::Ring ring;
    ring.form = ValueForm{FormKind::KV};
    ring.form.ldsRows = t.getDimSize(0);
    ring.form.ldsCols = t.getDimSize(1) * layout->atom.elemBytes;
    ring.stages = s.getStages();
    // A register stage (readsRegisterStage): the stage holds V^T.
    kernel.walk([&](StagedKVOp r) {
      if (r.getRing() == s.getRing() && readsRegisterStage(r, forms, ti)) {
        ring.form = *forms.lookup(r.getTile());
        ring.viaRegisters = ring.transposed = true;
      }
    });
    ring.stageBytes = ring.form.ldsRows * ring.form.ldsCols;
    ring.buffer = workgroupBytes(ring.stages * ring.stageBytes, s.getLoc(),
                                 ring.form.ldsCols);
    lc.rings[s.getRing()] = ring;
    lc.ldsLoads |= ti.ldsLoadBytes() > 0;
  });
  // The rings of fmha.stage_transpose (warp roles: V tiles the producer
  // transposed): a tile each in the V operand's form, as the consumers'
  // staged reads of the ring take it.
  kernel.walk([&](StageTransposeOp s) {
    if (lc.rings.count(s.getRing()))
      return;
    const ValueForm *f = nullptr;
    kernel.walk([&](StagedKVOp r) {
      if (r.getRing() == s.getRing())
        f = forms.lookup(r.getTile());
    });
    if (!f)
      return;
    LaneContext::Ring ring;
    ring.form = *f;
    ring.stages = s.getStages();
    ring.stageBytes = f->ldsRows * f->ldsCols;
    ring.transposed = true;
    ring.buffer = workgroupBytes(ring.stages * ring.stageBytes, s.getLoc(), f->ldsCols);
    lc.rings[s.getRing()] = ring;
  });
  // The rings of fmha.stage_descale: a tile's per-key descales a stage
  // (BlockN f32), written by the producer, read by the consumers.
  kernel.walk([&](StageDescaleOp s) {
    if (lc.descaleRings.count(s.getRing()))
      return;
    LaneContext::DescaleRing ring;
    ring.stages = s.getStages();
    ring.keys = cast<VectorType>(s.getIds().getType()).getDimSize(0);
    // (Row bytes of no swizzle width: 16-byte alignment.)
    ring.buffer = workgroupBytes(ring.stages * ring.keys * 4, s.getLoc(), 4);
    lc.descaleRings[s.getRing()] = ring;
  });
  // A KV loop that is not pipelined (fmha-peel-masked-tiles' masked tiles)
  // runs before or after the pipelined one, never beside it: its n-th tile
  // takes the n-th ring stage (ring by ring) where it fits, instead of a
  // buffer of its own (D 128: 104 -> 88 KiB; D 256: 128 -> 96 KiB, two
  // workgroups an SM again). The barrier ending each iteration orders the
  // last reads of one loop before the first writes of the next, and no
  // copy is in flight after the pipelined loop (tile ub is never staged).
  SmallVector<std::pair<Value, int64_t>> ringStages; // (buffer, byte offset)
  SmallVector<int64_t> ringStageBytes;
  for (auto &[id, ring] : lc.rings)
    for (int64_t s = 0; s < ring.stages; ++s) {
      ringStages.push_back({ring.buffer, s * ring.stageBytes});
      ringStageBytes.push_back(ring.stageBytes);
    }
  std::map<int64_t, Value> ringViews;
  auto ringView = [&](int64_t n, int64_t bytes) -> Value {
    // With warp roles the producer may be filling the ring while a
    // consumer runs its masked tiles: those keep buffers of their own.
    if (roles || n >= static_cast<int64_t>(ringStages.size()) ||
        bytes > ringStageBytes[n])
      return Value();
    if (Value v = ringViews[n])
      return v;
    OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
    Location loc = kernel.getLoc();
    auto bufT = cast<MemRefType>(ringStages[n].first.getType());
    auto viewT = MemRefType::get({bytes}, bufT.getElementType(), AffineMap(),
                                 bufT.getMemorySpace());
    Value shift = arith::ConstantIndexOp::create(b, loc, ringStages[n].second);
    return ringViews[n] = memref::ViewOp::create(b, loc, viewT, ringStages[n].first,
                                                 shift, ValueRange{});
  };
  // A buffer of `bytes` for the tile of op g; in a consumer of warp roles
  // one for each consumer group, g's group's (a view at c * bytes, made at
  // the start of the consumer region).
  auto consumerOwn = [&](Operation *g, int64_t bytes, int64_t rowBytes) -> Value {
    if (!roles || !roles.getConsumer().isAncestor(g->getParentRegion()))
      return workgroupBytes(bytes, g->getLoc(), rowBytes);
    Value all = workgroupBytes(bytes * roles.getConsumers(), g->getLoc(), rowBytes);
    OpBuilder b = OpBuilder::atBlockBegin(&roles.getConsumer().front());
    Location loc = g->getLoc();
    Value shift = arith::MulIOp::create(b, loc, roles.getConsumerIndex(),
                                        arith::ConstantIndexOp::create(b, loc, bytes));
    auto allT = cast<MemRefType>(all.getType());
    auto viewT = MemRefType::get({bytes}, allT.getElementType(), AffineMap(),
                                 allT.getMemorySpace());
    return memref::ViewOp::create(b, loc, viewT, all, shift, ValueRange{});
  };
  // Whether op g stages a tile in a workgroup buffer of its own.
  auto stagesTile = [&](Operation *g) {
    if (!isa<GatherKVOp, LoadRowsOp, StagedKVOp>(g))
      return false;
    const ValueForm *fp = forms.lookup(g->getResult(0));
    if (!fp || fp->kind != FormKind::KV)
      return false; // Q in operand registers
    // K, V transposed by the producer, or V read by transpose loads (as
    // staged, row-major): read in its ring stage.
    auto staged = dyn_cast<StagedKVOp>(g);
    return !staged ||
           (fp->isV && fp->transposedInLds() &&
            !isa_and_nonnull<StageTransposeOp>(staged.getFiller()) &&
            !lc.rings.at(staged.getRing()).viaRegisters);
  };
  kernel.walk([&](Operation *g) {
    if (!stagesTile(g))
      return;
    const ValueForm &f = *forms.lookup(g->getResult(0));
    Operation *parent = g->getParentOp();
    std::optional<std::tuple<int64_t, int64_t, int64_t>> slot;
    if (parent->hasAttr(kKVLoopAttr)) {
      int64_t n = stagedInLoop[parent]++;
      // An unrolled loop's copies run one after the other too: the n-th
      // staged tile of each copy shares the first copy's buffer (when the
      // copies stage as many tiles each; stagedKVBytes counts the same).
      if (auto u = parent->getAttrOfType<IntegerAttr>(kUnrolledAttr); u && u.getInt() > 1) {
        auto [it, fresh] = stagedPerCopy.try_emplace(parent, 0);
        if (fresh) {
          int64_t all = 0;
          for (Operation &o : parent->getRegion(0).front())
            all += stagesTile(&o);
          it->second = all % u.getInt() ? 0 : all / u.getInt();
        }
        if (it->second)
          n %= it->second;
      }
      if (!parent->hasAttr(kPipelinedAttr))
        if (Value v = ringView(n, f.ldsRows * f.ldsCols)) {
          lc.lds[g] = v;
          return;
        }
      slot = {n, f.ldsRows, f.ldsCols};
      if (auto it = shared.find(*slot); it != shared.end()) {
        lc.lds[g] = it->second;
        return;
      }
    }
    lc.lds[g] = consumerOwn(g, f.ldsRows * f.ldsCols, f.ldsCols);
    if (slot)
      shared[*slot] = lc.lds[g];
  });
  // fmha.quantize_tile: one f32 per wave for the workgroup's amax.
  kernel.walk([&](QuantizeTileOp q) {
    auto t = MemRefType::get(
        {cfg.getWarps()}, Float32Type::get(kernel.getContext()), AffineMap(),
        gpu::AddressSpaceAttr::get(kernel.getContext(), gpu::AddressSpace::Workgroup));
    lc.lds[q] = kernel.addWorkgroupAttribution(t, q.getLoc());
    kernel.setWorkgroupAttributionAttr(
        kernel.getNumWorkgroupAttributions() - 1, LLVM::LLVMDialect::getAlignAttrName(),
        IntegerAttr::get(IntegerType::get(kernel.getContext(), 64), 16));
  });
  Block &entry = kernel.getBody().front();
  auto bodyStart = llvm::find_if(entry, [](Operation &op) {
    return !isa<LLVM::LLVMDialect>(op.getDialect()) &&
           !isa<UnrealizedConversionCastOp>(op);
  });
  ImplicitLocOpBuilder b(kernel.getLoc(), kernel.getContext());
  b.setInsertionPoint(&entry, bodyStart);
  Value tid = laneToI32(b, gpu::ThreadIdOp::create(b, gpu::Dimension::x));
  // With warp roles every lane value is the lane's in its role's
  // warpgroup: each role runs the patterns of one group of cfg.warps warps.
  lc.tidV = roles ? Value(arith::RemUIOp::create(b, tid, laneConstI32(b, roleThreads)))
                  : tid;
  lc.laneV = arith::RemUIOp::create(b, lc.tidV, laneConstI32(b, layout->wave));
  lc.waveV = ti.broadcastFirstLane(
      b, b.getLoc(), arith::DivUIOp::create(b, lc.tidV, laneConstI32(b, layout->wave)));
  // An unrolled loop's group count (fmha-unroll-kv-loop, i32) is the same
  // on every lane; stated so (lane 0's) where the target asks
  // (TargetInfo::uniformUnrolledCount: gfx950).
  kernel.walk([&](scf::ForOp loop) {
    if (!ti.uniformUnrolledCount())
      return;
    auto u = loop->getAttrOfType<IntegerAttr>(kUnrolledAttr);
    if (!u || u.getInt() < 2 || !loop.getUpperBound().getType().isInteger(32))
      return;
    OpBuilder ob(loop);
    loop.setUpperBound(ti.broadcastFirstLane(ob, loop.getLoc(), loop.getUpperBound()));
  });
  if (roles) {
    // Two mbarriers a stage of the rings (all rings of a tile fill one
    // stage together): "filled", one arrival a producer thread, and
    // "free", one a consumer thread; initialised by thread 0 before the
    // roles split, behind a workgroup barrier.
    int64_t stages = 0;
    kernel.walk([&](StageKVOp st) { stages = st.getStages(); });
    if (!stages)
      return roles.emitOpError("has no fmha.stage_kv to hand over");
    // TMA stages (fmha-outline-kernel's fmha.tma): a third, "landed",
    // barrier a stage, one arrival (with the bytes it expects) a TMA stage
    // op of a fill.
    llvm::SmallDenseSet<int64_t> tmaRings;
    int64_t withTma = 0, without = 0;
    kernel.walk([&](StageKVOp st) {
      if (st->hasAttr(kTmaAttr)) {
        tmaRings.insert(st.getRing());
        ++withTma;
      } else {
        ++without;
      }
    });
    // The landed barriers stand for a fill's copies: all of them TMA boxes,
    // or none (fmha.stage_transpose then waits for cp.async groups).
    if (withTma && without)
      return roles.emitOpError("convert-fmha-to-gpu: fmha.tma on ")
             << withTma << " fmha.stage_kv ops and not on " << without
             << ": a kernel's stages are copied by TMA all or none";
    lc.tma = !tmaRings.empty();
    auto t = MemRefType::get(
        {(lc.tma ? 3 : 2) * stages}, IntegerType::get(kernel.getContext(), 64), AffineMap(),
        gpu::AddressSpaceAttr::get(kernel.getContext(), gpu::AddressSpace::Workgroup));
    lc.mbarriers = kernel.addWorkgroupAttribution(t, roles.getLoc());
    kernel.setWorkgroupAttributionAttr(
        kernel.getNumWorkgroupAttributions() - 1, LLVM::LLVMDialect::getAlignAttrName(),
        IntegerAttr::get(IntegerType::get(kernel.getContext(), 64), 8));
    lc.mbarrierStages = stages;
    lc.roleThreads = roleThreads;
    lc.consumers = roles.getConsumers();
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(roles);
    Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, laneConstI32(b, 0));
    auto init = scf::IfOp::create(b, first, /*withElseRegion=*/false);
    b.setInsertionPointToStart(init.thenBlock());
    for (int64_t st = 0; st < stages; ++st) {
      Value slot = arith::ConstantIndexOp::create(b, st);
      ti.mbarrierInit(b, b.getLoc(), lc.stageBarrier(b, slot, /*free=*/false), roleThreads);
      ti.mbarrierInit(b, b.getLoc(), lc.stageBarrier(b, slot, /*free=*/true),
                      roleThreads * roles.getConsumers());
      if (lc.tma)
        ti.mbarrierInit(b, b.getLoc(), lc.landedBarrier(b, slot), tmaRings.size());
    }
    ti.mbarrierInitFence(b, b.getLoc());
    b.setInsertionPointAfter(init);
    ti.barrier(b, b.getLoc());
    // setmaxnreg is honoured only under a register cap at entry (ptxas
    // C7508 otherwise): one workgroup an SM.
    kernel->setAttr("nvvm.minctasm", b.getI32IntegerAttr(1));
  }
  lc.waveRow0 = arith::MulIOp::create(b, lc.waveV, laneConstI32(b, layout->rowsPerWave));
  lc.qLaneV = laneEmitBits(b, layout->qLane, lc.laneV);
  lc.nLaneV = laneEmitBits(b, layout->nLane, lc.laneV);

  // 5. The conversion.
  MLIRContext *ctx = kernel.getContext();
  LaneTypeConverter tc(ctx, forms);
  tc.addConversion([](MemRefType mt) { return globalView(mt); });
  // A kernel whose arguments are still memrefs (hand-written tests; the
  // pipelines' kernels come flat from fmha-outline-kernel) views them
  // through a cast.
  tc.addTargetMaterialization([](OpBuilder &b, Type t, ValueRange in,
                                 Location loc) -> Value {
    if (!isa<MemRefType>(t) || in.size() != 1 || !isa<MemRefType>(in[0].getType()))
      return Value();
    return UnrealizedConversionCastOp::create(b, loc, t, in).getResult(0);
  });
  ConversionTarget target(*ctx);
  target.addIllegalDialect<FmhaDialect>();
  target.markUnknownOpDynamicallyLegal(
      [&](Operation *op) { return tc.isLegal(op); });
  RewritePatternSet patterns(ctx);
  populateLaneMemoryPatterns(tc, patterns, ti, lc);
  populateLaneMmaPatterns(tc, patterns, ti, lc);
  populateLaneElementwisePatterns(tc, patterns, ti, lc);
  populateLaneQuantizePatterns(tc, patterns, ti, lc);
  populateLaneWarpRolePatterns(tc, patterns, ti, lc);
  ti.populateLanePatterns(tc, patterns, lc, /*benefit=*/10);
  patterns.add<MemRefViewPattern>(tc, ctx);
  patterns.add<MemRefBridgePattern>(tc, ctx, /*benefit=*/2);
  scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, target);
  if (failed(applyPartialConversion(kernel, target, std::move(patterns))))
    return failure();
  // Every K tile's held-back stores were emitted by its V tile's gather.
  if (lc.deferredKStores)
    return kernel.emitError("convert-fmha-to-gpu: a K tile's LDS stores were "
                            "held for a V gather that was not lowered");
  // The chip's 1-ulp reciprocal for every f32 division of the kernel (per
  // tile: the V-descale ratio vd_prev / vd, the scaled_p row scale; once:
  // o / l), instead of IEEE division.
  // Divisions a pattern marked kIeeeDivisionAttr stay IEEE (the 16-bit Q's
  // quantization scale).
  kernel->walk([&](arith::DivFOp d) {
    if (d->removeAttr(kIeeeDivisionAttr))
      return;
    if (ti.fastReciprocal() && getElementTypeOrSelf(d.getType()).isF32())
      d.setFastmath(d.getFastmath() | arith::FastMathFlags::arcp |
                    arith::FastMathFlags::afn);
  });
  return success();
}
