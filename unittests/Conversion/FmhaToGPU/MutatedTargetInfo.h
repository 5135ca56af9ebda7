//===- MutatedTargetInfo.h - a TargetInfo with one fact replaced -*- C++ -*-===//
//
// For mutation tests: each std::function / optional set replaces one layout
// fact or emission choice of the wrapped chip's TargetInfo; the rest is the
// chip's.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_UNITTESTS_CONVERSION_FMHATOGPU_MUTATEDTARGETINFO_H
#define FMHA_UNITTESTS_CONVERSION_FMHATOGPU_MUTATEDTARGETINFO_H

#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

#include <functional>
#include <memory>
#include <optional>

namespace mlir {
namespace fmha {

class MutatedTargetInfo final : public TargetInfo {
public:
  explicit MutatedTargetInfo(std::unique_ptr<TargetInfo> base)
      : base(std::move(base)) {}

  std::function<bool()> transposed;
  std::function<AccElem(int64_t, int64_t)> acc;
  std::function<FragElem(int64_t, int64_t)> a, b;
  std::function<int64_t(int64_t)> pos;
  std::function<int64_t(int64_t, int64_t)> packedByte;
  std::function<Fp8PackSlot(int64_t)> packSlot;
  std::optional<SmallVector<int64_t>> masks;
  std::function<void(const TypeConverter &, RewritePatternSet &,
                     const LaneContext &, unsigned)>
      lanePatterns;

  const TargetInfo &orig() const { return *base; }

  StringRef chip() const override { return base->chip(); }
  int64_t waveSize() const override { return base->waveSize(); }
  Attribute gpuModuleTarget(MLIRContext *ctx) const override {
    return base->gpuModuleTarget(ctx);
  }
  unsigned sharedAddressSpace() const override {
    return base->sharedAddressSpace();
  }
  int64_t sharedMemoryBytesPerBlock() const override {
    return base->sharedMemoryBytesPerBlock();
  }
  void setKernelAttrs(gpu::GPUFuncOp f, int64_t t, int64_t w) const override {
    base->setKernelAttrs(f, t, w);
  }
  std::optional<MmaAtom> mmaAtom(Type t) const override {
    return base->mmaAtom(t);
  }
  bool transposedScores() const override {
    return transposed ? transposed() : base->transposedScores();
  }
  AccElem accElem(int64_t l, int64_t v) const override {
    return acc ? acc(l, v) : base->accElem(l, v);
  }
  FragElem aFragElem(int64_t l, int64_t e) const override {
    return a ? a(l, e) : base->aFragElem(l, e);
  }
  FragElem bFragElem(int64_t l, int64_t e) const override {
    return b ? b(l, e) : base->bFragElem(l, e);
  }
  int64_t kGroupOfLane(int64_t l) const override {
    return base->kGroupOfLane(l);
  }
  int64_t pvKeyPosition(int64_t key) const override {
    return pos ? pos(key) : base->pvKeyPosition(key);
  }
  Value mma(OpBuilder &bl, Location loc, Value x, Value y,
            Value z) const override {
    return base->mma(bl, loc, x, y, z);
  }
  Value log2(OpBuilder &bl, Location loc, Value x) const override {
    return base->log2(bl, loc, x);
  }
  Value exp2(OpBuilder &bl, Location loc, Value x) const override {
    return base->exp2(bl, loc, x);
  }
  int64_t fp8PackedByte(int64_t h, int64_t s) const override {
    return packedByte ? packedByte(h, s) : base->fp8PackedByte(h, s);
  }
  Fp8PackSlot packFp8x4Slot(int64_t i) const override {
    return packSlot ? packSlot(i) : base->packFp8x4Slot(i);
  }
  Value packFp8x4(OpBuilder &bl, Location loc, ArrayRef<Value> v,
                  Type t) const override {
    return base->packFp8x4(bl, loc, v, t);
  }
  Value permuteBytes(OpBuilder &bl, Location loc, Value x, Value y,
                     uint32_t sel) const override {
    return base->permuteBytes(bl, loc, x, y, sel);
  }
  Value shuffleXor(OpBuilder &bl, Location loc, Value v,
                   int64_t mask) const override {
    return base->shuffleXor(bl, loc, v, mask);
  }
  Value broadcastFirstLane(OpBuilder &bl, Location loc,
                           Value v) const override {
    return base->broadcastFirstLane(bl, loc, v);
  }
  SmallVector<int64_t> rowReduceXorMasks() const override {
    return masks ? *masks : base->rowReduceXorMasks();
  }
  void barrier(OpBuilder &bl, Location loc) const override {
    base->barrier(bl, loc);
  }
  void populateLanePatterns(const TypeConverter &tc, RewritePatternSet &p,
                            const LaneContext &lc, unsigned benefit) const override {
    if (lanePatterns)
      lanePatterns(tc, p, lc, benefit);
  }

private:
  std::unique_ptr<TargetInfo> base;
};

} // namespace fmha
} // namespace mlir

#endif // FMHA_UNITTESTS_CONVERSION_FMHATOGPU_MUTATEDTARGETINFO_H
