//===- TargetInfo.cpp - chip name to TargetInfo ---------------------------===//
#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::fmha;

TargetInfo::~TargetInfo() = default;

Value TargetInfo::shuffleXor(OpBuilder &b, Location loc, Value v,
                             int64_t mask) const {
  return gpu::ShuffleOp::create(b, loc, v, static_cast<int32_t>(mask),
                                static_cast<int32_t>(waveSize()),
                                gpu::ShuffleMode::XOR)
      .getShuffleResult();
}

Value TargetInfo::combineXor(OpBuilder &b, Location loc, Value v, int64_t mask,
                             function_ref<Value(Value, Value)> combine) const {
  return combine(v, shuffleXor(b, loc, v, mask));
}

void TargetInfo::schedulingFence(OpBuilder &, Location) const {}

Value TargetInfo::broadcastInGroup(OpBuilder &, Location, Value, int64_t, Value) const {
  llvm_unreachable("broadcastInGroup on a chip without group broadcasts");
}

void TargetInfo::populateLanePatterns(const TypeConverter &, RewritePatternSet &,
                                      const LaneContext &, unsigned) const {}

Value TargetInfo::warpgroupMmaChain(OpBuilder &b, Location loc,
                                    const WarpgroupOperandA &a, Type aElem,
                                    Type bElem, Value ldsBase,
                                    ArrayRef<int64_t> offsets, int64_t n,
                                    int64_t rowBytes, Value acc) const {
  WarpgroupChain c{a, SmallVector<int64_t>(offsets), acc};
  return warpgroupMmaChains(b, loc, {c}, aElem, bElem, ldsBase, n, rowBytes)[0];
}

SmallVector<Value> TargetInfo::warpgroupMmaChains(OpBuilder &b, Location loc,
                                                  ArrayRef<WarpgroupChain> chains,
                                                  Type aElem, Type bElem,
                                                  Value ldsBase, int64_t n,
                                                  int64_t rowBytes) const {
  return warpgroupMmaWait(b, loc,
                          warpgroupMmaChainsStart(b, loc, chains, aElem, bElem,
                                                  ldsBase, n, rowBytes));
}

SmallVector<Value> TargetInfo::warpgroupMmaChainsStart(OpBuilder &, Location,
                                                       ArrayRef<WarpgroupChain>,
                                                       Type, Type, Value, int64_t,
                                                       int64_t) const {
  llvm::reportFatalInternalError(
      "TargetInfo::warpgroupMmaChainsStart on a chip without warpgroupMma");
}

SmallVector<Value> TargetInfo::warpgroupMmaWait(OpBuilder &, Location,
                                                ArrayRef<Value>, int64_t) const {
  llvm::reportFatalInternalError(
      "TargetInfo::warpgroupMmaWait on a chip without warpgroupMma");
}

void TargetInfo::asyncCopy16(OpBuilder &, Location, Value, Value, Value,
                             ValueRange) const {
  llvm::reportFatalInternalError(
      "TargetInfo::asyncCopy16 on a chip without asynchronous copies");
}
void TargetInfo::asyncCommit(OpBuilder &, Location) const {
  llvm::reportFatalInternalError(
      "TargetInfo::asyncCommit on a chip without asynchronous copies");
}
void TargetInfo::asyncWait(OpBuilder &, Location, int64_t) const {
  llvm::reportFatalInternalError(
      "TargetInfo::asyncWait on a chip without asynchronous copies");
}

void TargetInfo::loadToLds(OpBuilder &, Location, Value, ValueRange, Value,
                           Value) const {
  llvm::reportFatalInternalError("TargetInfo::loadToLds on a chip without "
                                 "LDS loads");
}

void TargetInfo::waitLdsLoads(OpBuilder &, Location) const {
  llvm::reportFatalInternalError("TargetInfo::waitLdsLoads on a chip without "
                                 "LDS loads");
}

#define FMHA_NO_WARP_ROLES(name)                                              \
  llvm::reportFatalInternalError("TargetInfo::" name                          \
                                 " on a chip without warp roles")
void TargetInfo::groupBarrier(OpBuilder &, Location, Value, int64_t) const {
  FMHA_NO_WARP_ROLES("groupBarrier");
}
void TargetInfo::groupArrive(OpBuilder &, Location, Value, int64_t) const {
  FMHA_NO_WARP_ROLES("groupArrive");
}
void TargetInfo::mbarrierInit(OpBuilder &, Location, Value, int64_t) const {
  FMHA_NO_WARP_ROLES("mbarrierInit");
}
void TargetInfo::mbarrierInitFence(OpBuilder &, Location) const {
  FMHA_NO_WARP_ROLES("mbarrierInitFence");
}
void TargetInfo::mbarrierArrive(OpBuilder &, Location, Value) const {
  FMHA_NO_WARP_ROLES("mbarrierArrive");
}
void TargetInfo::mbarrierArriveOnCopies(OpBuilder &, Location, Value) const {
  FMHA_NO_WARP_ROLES("mbarrierArriveOnCopies");
}
void TargetInfo::mbarrierWait(OpBuilder &, Location, Value, Value) const {
  FMHA_NO_WARP_ROLES("mbarrierWait");
}
void TargetInfo::asyncProxyFence(OpBuilder &, Location) const {
  FMHA_NO_WARP_ROLES("asyncProxyFence");
}
void TargetInfo::setRegisters(OpBuilder &, Location, int64_t, bool) const {
  FMHA_NO_WARP_ROLES("setRegisters");
}
void TargetInfo::mbarrierArriveExpectTx(OpBuilder &, Location, Value, int64_t) const {
  FMHA_NO_WARP_ROLES("mbarrierArriveExpectTx");
}
void TargetInfo::tmaLoad(OpBuilder &, Location, Value, Value, ValueRange, Value) const {
  FMHA_NO_WARP_ROLES("tmaLoad");
}
#undef FMHA_NO_WARP_ROLES

Value TargetInfo::maxF(OpBuilder &b, Location loc, Value x, Value y) const {
  return arith::MaxNumFOp::create(b, loc, x, y);
}

std::unique_ptr<TargetInfo> mlir::fmha::createTargetInfo(StringRef chip,
                                                         int64_t kStep,
                                                         int64_t elemBytes) {
  if (std::unique_ptr<TargetInfo> amd = createAMDGPUTargetInfo(chip, kStep, elemBytes))
    return amd;
  return createNVVMTargetInfo(chip, kStep, elemBytes);
}
