//===- WarpRolePatterns.cpp - fmha.warp_roles and the stage handoff -------===//
//
// Warp specialization on the lane level (docs/GPU_LOWERING.md, "sm_90a"):
// fmha.warp_roles becomes a branch on the thread's warpgroup (warpgroup 0
// the producer, g > 0 consumer g - 1), each side first asking for its
// role's registers; the stage handoff ops become waits on and arrivals at
// two mbarriers a stage (LaneContext::stageBarrier): "filled", which every
// producer thread arrives at once its copies of the stage landed, and
// "free", which every consumer thread arrives at when it is done with the
// stage. Fill n of a stage completes phase n of its filled barrier (parity
// n % 2) and is released by phase n of its free barrier.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/LanePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// The parity (i32) of phase `n` (index).
Value parityOf(ImplicitLocOpBuilder &b, Value n) {
  Value i = arith::IndexCastUIOp::create(b, b.getI32Type(), n);
  return arith::AndIOp::create(b, i, arith::ConstantIntOp::create(b, b.getI32Type(), 1));
}

/// `then` under `cond` (in line where `cond` is a true constant, so a wait
/// that counts the wgmma groups committed before it sees straight-line
/// code across an unconditional turn).
template <typename F> void emitIf(ImplicitLocOpBuilder &b, Value cond, F then) {
  if (matchPattern(cond, m_One())) {
    then();
    return;
  }
  auto i = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(i.thenBlock());
  then();
}

struct WarpRolesPattern : LanePattern<WarpRolesOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(WarpRolesOp op, OneToNOpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    if (!lc.ti.hasWarpRoles() || !lc.mbarriers)
      return rw.notifyMatchFailure(op, "no warp roles on this chip");
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    Value tid = laneToI32(b, gpu::ThreadIdOp::create(b, gpu::Dimension::x));
    Value group = lc.ti.broadcastFirstLane(
        b, b.getLoc(), arith::DivUIOp::create(b, tid, laneConstI32(b, lc.roleThreads)));
    Value producer = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, group,
                                           laneConstI32(b, 0));
    auto branch = scf::IfOp::create(b, producer, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(branch.thenBlock());
      if (op.getProducerRegs())
        lc.ti.setRegisters(b, b.getLoc(), op.getProducerRegs(), /*increase=*/false);
      b.setInsertionPointToStart(branch.elseBlock());
      if (op.getConsumerRegs())
        lc.ti.setRegisters(b, b.getLoc(), op.getConsumerRegs(), /*increase=*/true);
      Value c = arith::IndexCastUIOp::create(
          b, b.getIndexType(), arith::SubIOp::create(b, group, laneConstI32(b, 1)));
      rw.inlineBlockBefore(&op.getProducer().front(), branch.thenBlock()->getTerminator());
      rw.inlineBlockBefore(&op.getConsumer().front(), branch.elseBlock()->getTerminator(),
                           ValueRange{c});
    }
    rw.eraseOp(op);
    return success();
  }
};

/// Producer: before fill n > 0 of a stage, the consumers' release of fill
/// n - 1 (phase n - 1 of the free barrier).
struct StageFreePattern : LanePattern<StageFreeOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(StageFreeOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    Value fill = a.getFill()[0], slot = a.getSlot()[0];
    Value zero = arith::ConstantIndexOp::create(b, 0);
    Value wait = arith::AndIOp::create(
        b, a.getEnabled()[0],
        arith::CmpIOp::create(b, arith::CmpIPredicate::ne, fill, zero));
    emitIf(b, wait, [&] {
      Value prev = arith::SubIOp::create(b, fill, arith::ConstantIndexOp::create(b, 1));
      lc.ti.mbarrierWait(b, b.getLoc(), lc.stageBarrier(b, slot, /*free=*/true),
                         parityOf(b, prev));
    });
    rw.eraseOp(op);
    return success();
  }
};

/// Producer: the lane's copies so far complete its part of the fill.
struct StageFilledPattern : LanePattern<StageFilledOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(StageFilledOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    Value slot = a.getSlot()[0];
    emitIf(b, a.getEnabled()[0], [&] {
      Value at = lc.stageBarrier(b, slot, /*free=*/false);
      if (!op.getWritten()) {
        lc.ti.mbarrierArriveOnCopies(b, b.getLoc(), at);
        return;
      }
      // The lane's stores (fmha.stage_transpose) seen by the consumers'
      // warpgroup MMA, which reads shared memory through the async proxy.
      lc.ti.asyncProxyFence(b, b.getLoc());
      lc.ti.mbarrierArrive(b, b.getLoc(), at);
    });
    rw.eraseOp(op);
    return success();
  }
};

/// Consumer: fill n of the stage landed (phase n of its filled barrier).
struct StageWaitPattern : LanePattern<StageWaitOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(StageWaitOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    lc.ti.mbarrierWait(b, b.getLoc(), lc.stageBarrier(b, a.getSlot()[0], /*free=*/false),
                       parityOf(b, a.getFill()[0]));
    rw.eraseOp(op);
    return success();
  }
};

/// Consumer: done with the stage's fill.
struct StageReleasePattern : LanePattern<StageReleaseOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(StageReleaseOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    lc.ti.mbarrierArrive(b, b.getLoc(), lc.stageBarrier(b, a.getSlot()[0], /*free=*/true));
    rw.eraseOp(op);
    return success();
  }
};

/// Consumer c's turn barrier (i32): turnBarrierBase + c.
Value turnBarrier(ImplicitLocOpBuilder &b, const LaneContext &lc, Value c) {
  Value i = arith::IndexCastUIOp::create(b, b.getI32Type(), c);
  return arith::AddIOp::create(b, i, laneConstI32(b, lc.turnBarrierBase()));
}

/// fmha.turn_take (`Take`): consumer c waits at its turn barrier for the
/// previous consumer's arrival (the barrier counts c's threads and the
/// passer's). fmha.turn_pass: c arrives at consumer (c + 1) % n's.
template <typename OpT, bool Take> struct TurnPattern : LanePattern<OpT> {
  using LanePattern<OpT>::LanePattern;
  using Adaptor = typename OpConversionPattern<OpT>::OneToNOpAdaptor;
  LogicalResult matchAndRewrite(OpT op, Adaptor a,
                                ConversionPatternRewriter &rw) const override {
    const LaneContext &lc = this->lc;
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    Value c = a.getConsumer()[0];
    emitIf(b, a.getEnabled()[0], [&] {
      if (Take) {
        lc.ti.groupBarrier(b, b.getLoc(), turnBarrier(b, lc, c), 2 * lc.roleThreads);
        return;
      }
      Value next = arith::RemUIOp::create(
          b, arith::AddIOp::create(b, c, arith::ConstantIndexOp::create(b, 1)),
          arith::ConstantIndexOp::create(b, lc.consumers));
      lc.ti.groupArrive(b, b.getLoc(), turnBarrier(b, lc, next), 2 * lc.roleThreads);
    });
    rw.eraseOp(op);
    return success();
  }
};
using TurnTakePattern = TurnPattern<TurnTakeOp, true>;
using TurnPassPattern = TurnPattern<TurnPassOp, false>;

} // namespace

void mlir::fmha::populateLaneWarpRolePatterns(const TypeConverter &tc,
                                              RewritePatternSet &patterns,
                                              const TargetInfo &,
                                              const LaneContext &lc,
                                              PatternBenefit benefit) {
  patterns.add<WarpRolesPattern, StageFreePattern, StageFilledPattern,
               StageWaitPattern, StageReleasePattern, TurnTakePattern,
               TurnPassPattern>(tc, patterns.getContext(), lc,
                                                      benefit);
}
