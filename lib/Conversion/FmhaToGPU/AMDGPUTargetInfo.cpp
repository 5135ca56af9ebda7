//===- AMDGPUTargetInfo.cpp - gfx942 / gfx950 TargetInfo ------------------===//
//
// Wave64 fp8 MFMA with a 32x32 f32 accumulator; the wave computes S^T so each
// lane's accumulator registers all belong to one query (docs/archive/GPU_LOWERING_STUDY.md
// sections 2.2-2.5). The layouts are from AMD's CDNA3/4 matrix core
// documentation and IREE's getSingleSubgroupLayout; the K=64 k order inside a
// lane is the AMD blog's (IREE lists another, equivalent by property P1).
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"
#include "fmha/Support/Chips.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::fmha;

namespace {

class AMDGPUTargetInfo final : public TargetInfo {
public:
  /// `atom`'s k in bytes (a 16-bit MMA's k times 2: MmaAtom::elemBytes).
  AMDGPUTargetInfo(const ChipInfo &info, MmaShape atom, int64_t elemBytes)
      : info(info), chipName(info.name), k(atom.k),
        fnuz(info.fp8Family == Fp8Family::FnuzOnly),
        ldsBytes(info.ldsBytesPerWorkgroup), atom(atom), eb(elemBytes) {}

  StringRef chip() const override { return chipName; }
  int64_t waveSize() const override { return info.waveSize; }
  Attribute gpuModuleTarget(MLIRContext *ctx) const override {
    return ROCDL::ROCDLTargetAttr::get(ctx, /*optLevel=*/2, info.triple,
                                       chipName, info.features);
  }
  unsigned sharedAddressSpace() const override { return 3; }
  int64_t sharedMemoryBytesPerBlock() const override { return ldsBytes; }
  void setKernelAttrs(gpu::GPUFuncOp f, int64_t threads,
                      int64_t minWavesPerSimd) const override {
    Builder b(f.getContext());
    f.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
    f->setAttr("rocdl.waves_per_eu",
               b.getI32IntegerAttr(static_cast<int32_t>(minWavesPerSimd)));
    // exp2 is rocdl.exp2 (a bare v_exp_f32) whatever the mode; preserve-sign
    // keeps any llvm.intr.exp2 that later passes may form just as bare.
    f->setAttr("denormal_fp_math_f32", b.getStringAttr("preserve-sign"));
  }

  bool uniformValuesInVectorRegs(Operation *kernel) const override {
    auto w = kernel ? kernel->getAttrOfType<IntegerAttr>("rocdl.waves_per_eu")
                    : IntegerAttr();
    return w && w.getInt() == 1;
  }

  std::optional<MmaAtom> mmaAtom(Type kvElem) const override {
    bool ok = eb == 2 ? isa<BFloat16Type, Float16Type>(kvElem)
              : fnuz  ? isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(kvElem)
                      : isa<Float8E4M3FNType, Float8E5M2Type>(kvElem);
    if (!ok)
      return std::nullopt;
    int64_t lanes = info.waveSize;
    return MmaAtom{atom.m,           atom.n,           atom.k,
                   kvElem,           kvElem,           atom.m * atom.k / lanes,
                   atom.k * atom.n / lanes, atom.m * atom.n / lanes, eb};
  }
  bool transposedScores() const override { return true; }
  AccElem accElem(int64_t lane, int64_t reg) const override {
    return {8 * (reg / 4) + 4 * (lane / 32) + reg % 4, lane % 32};
  }
  FragElem aFragElem(int64_t lane, int64_t elem) const override {
    return {lane % 32, kSlot(lane / 32, elem)};
  }
  FragElem bFragElem(int64_t lane, int64_t elem) const override {
    return {kSlot(lane / 32, elem), lane % 32};
  }
  int64_t kGroupOfLane(int64_t lane) const override { return lane / 32; }
  int64_t pvKeyPosition(int64_t key) const override {
    // 16-bit: 32x32x8 (16 bytes) reads the lane's own score keys in order;
    // 32x32x16 (32 bytes) as the fp8 K=16 one.
    if (eb == 2 && k == 16)
      return key;
    if (k == 16 || (eb == 2 && k == 32)) // (b3 b2) -> (b2 b3)
      return (key & ~int64_t(0xC)) | ((key >> 1) & 4) | ((key << 1) & 8);
    int64_t g = (key >> 3) & 3, h = (key >> 2) & 1; // (g1 g0 h) -> (h g1 g0)
    return (key & ~int64_t(0x1C)) | (h << 4) | (g << 2);
  }
  Value mma(OpBuilder &b, Location loc, Value a, Value bv,
            Value acc) const override {
    return amdgpu::MFMAOp::create(b, loc, acc.getType(), atom.m, atom.n, k / eb,
                                  /*blocks=*/1, a, bv, acc)
        .getResult();
  }

  Value exp2(OpBuilder &b, Location loc, Value x) const override {
    return ROCDL::ROCDLExp2::create(b, loc, x.getType(), x);
  }
  Value log2(OpBuilder &b, Location loc, Value x) const override {
    return ROCDL::ROCDLLog::create(b, loc, x.getType(), x);
  }
  // maxnum with nnan: in IEEE mode LLVM otherwise quiets both operands first
  // (a v_max_f32 x, x per score: 32 per KV tile on gfx942). A NaN score
  // comes only from a NaN code in q or k, and is quiet (MFMA output); v_max
  // ignores a quiet NaN as maxnum does, so the row max is what it was, and
  // the row's output is NaN through its P either way (docs/SPEC.md, 7).
  Value maxF(OpBuilder &b, Location loc, Value x, Value y) const override {
    return arith::MaxNumFOp::create(b, loc, x, y, arith::FastMathFlags::nnan);
  }
  int64_t fp8PackedByte(int64_t half, int64_t src) const override {
    return 2 * half + src;
  }
  Fp8PackSlot packFp8x4Slot(int64_t value) const override {
    return {value / 2, value % 2};
  }
  Value packFp8x4(OpBuilder &b, Location loc, ArrayRef<Value> v,
                  Type) const override {
    // v_cvt_pk_fp8_f32 converts to the chip's own fp8 flavour (FNUZ on
    // gfx942, OCP on gfx950); the config verifier pins the type to the chip.
    Type i32 = b.getI32Type();
    Value word = LLVM::PoisonOp::create(b, loc, i32);
    for (int64_t half = 0; half < 2; ++half) {
      Value src[2];
      for (int64_t i = 0; i < 4; ++i) {
        Fp8PackSlot s = packFp8x4Slot(i);
        if (s.half == half)
          src[s.src] = v[i];
      }
      word = ROCDL::CvtPkFp8F32Op::create(b, loc, i32, src[0], src[1], word,
                                          /*wordSel=*/half == 1);
    }
    return word;
  }
  bool hasBytePermute() const override { return true; }
  bool fastReciprocal() const override { return true; }
  Value permuteBytes(OpBuilder &b, Location loc, Value a, Value bv,
                     uint32_t sel) const override {
    Type i32 = b.getI32Type();
    Value s = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(static_cast<int32_t>(sel)));
    return LLVM::CallIntrinsicOp::create(b, loc, i32, b.getStringAttr("llvm.amdgcn.perm"),
                                         ValueRange{bv, a, s})
        .getResult(0);
  }

  bool fenceAfterScoreMmas() const override { return eb == 1 && k == 64; }
  /// One element a group: each compare's lane mask is consumed by its
  /// select before the next is made (VCC; measured 2026-12-07, eighteenth
  /// session: 0 SGPR spills in the 8-wave kernels, where an atom a group
  /// spilled 2 at page 16 on either chip and 4 at gfx950 D 64; at gfx942
  /// page 16, 4 waves, 2 a group left 4 spills and 1 leaves 2, for 31
  /// more instructions in the masked-tile loop, 842 -> 873).
  int64_t maskSelectsPerFence() const override { return 1; }
  bool batchKVLoads() const override { return true; }
  bool transposeLoadsV() const override {
    return eb == 1 && k == 64 && atom.m == 32; // gfx950's 32x32x64 fp8
  }
  Value transposeLoad8(OpBuilder &b, Location loc, Value lds,
                       Value at) const override {
    Value ix = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), at);
    return amdgpu::TransposeLoadOp::create(
        b, loc, VectorType::get({8}, b.getI8Type()), lds, ValueRange{ix});
  }
  bool hasBoundedViews() const override { return true; }
  int64_t ldsLoadBytes() const override { return info.ldsLoadBytes; }
  Value readOnlyInput(OpBuilder &b, Location loc, Value mem) const override {
    auto t = cast<MemRefType>(mem.getType());
    // The kernel's inputs are global memory: address space 1 (or none).
    auto space = dyn_cast_or_null<IntegerAttr>(t.getMemorySpace());
    if (t.getMemorySpace() && !(space && space.getInt() == 1))
      return mem;
    auto c = MemRefType::get(t.getShape(), t.getElementType(), t.getLayout(),
                             b.getI64IntegerAttr(4));
    return memref::MemorySpaceCastOp::create(b, loc, c, mem);
  }
  void loadToLds(OpBuilder &b, Location loc, Value view, ValueRange ix, Value lds,
                 Value ldsIx) const override {
    // 16 bytes: vector<4xi32> (gfx950); 4 bytes: i32 (gfx942).
    Type word = b.getI32Type();
    Type t = info.ldsLoadBytes == 4 ? word : VectorType::get({info.ldsLoadBytes / 4}, word);
    amdgpu::GatherToLDSOp::create(b, loc, view, ix, lds, ValueRange{ldsIx}, TypeAttr::get(t));
  }
  bool uniformWordRuns() const override { return true; }
  bool selectsOverLaneLoads() const override { return true; }
  Value boundedView(OpBuilder &b, Location loc, Value view,
                    Value validBytes) const override {
    return amdgpu::FatRawBufferCastOp::create(
        b, loc, view, validBytes, /*cacheSwizzleStride=*/Value(),
        /*boundsCheck=*/true, /*resetOffset=*/true);
  }
  bool uniformUnrolledCount() const override { return info.uniformUnrolledCount; }
  Value broadcastFirstLane(OpBuilder &b, Location loc, Value v) const override {
    return ROCDL::ReadfirstlaneOp::create(b, loc, v.getType(), v);
  }
  int64_t groupBroadcastLanes() const override { return 16; }
  Value broadcastInGroup(OpBuilder &b, Location loc, Value v, int64_t idx,
                         Value) const override {
    // DPP row_newbcast:idx (0x150 + idx): every lane of a row of 16 reads
    // the row's lane idx; all rows and banks written (masks 0xf), so `old`
    // is never read.
    Value old = LLVM::PoisonOp::create(b, loc, v.getType());
    return ROCDL::DPPUpdateOp::create(b, loc, v.getType(), old, v, 0x150 + idx,
                                      /*rowMask=*/0xf, /*bankMask=*/0xf,
                                      /*boundCtrl=*/false);
  }
  SmallVector<int64_t> rowReduceXorMasks() const override { return {32}; }
  Value combineXor(OpBuilder &b, Location loc, Value v, int64_t mask,
                   function_ref<Value(Value, Value)> combine) const override {
    if (mask != 32 || !info.permlane32Swap || !v.getType().isIntOrFloat() ||
        v.getType().getIntOrFloatBitWidth() != 32)
      return TargetInfo::combineXor(b, loc, v, mask, combine);
    // Both results hold one half's value in both halves (lanes 0-31 and
    // lanes 32-63 of v): their combination is every lane's row value.
    Type i32 = b.getI32Type();
    Value w = v.getType() == i32 ? v : arith::BitcastOp::create(b, loc, i32, v);
    auto pairT = LLVM::LLVMStructType::getLiteral(b.getContext(), {i32, i32});
    Value pair = ROCDL::Permlane32SwapOp::create(b, loc, pairT, w, w,
                                                 /*fi=*/false, /*boundControl=*/false);
    auto half = [&](int64_t i) {
      Value h = LLVM::ExtractValueOp::create(b, loc, pair, i);
      return v.getType() == i32 ? h : arith::BitcastOp::create(b, loc, v.getType(), h).getResult();
    };
    return combine(half(0), half(1));
  }
  void schedulingFence(OpBuilder &b, Location loc) const override {
    amdgpu::SchedBarrierOp::create(
        b, loc,
        amdgpu::sched_barrier_opt_enumAttr::get(
            b.getContext(), amdgpu::sched_barrier_opt_enum::mfma_wmma));
  }
  void scheduleBoundary(OpBuilder &b, Location loc) const override {
    amdgpu::SchedBarrierOp::create(
        b, loc,
        amdgpu::sched_barrier_opt_enumAttr::get(b.getContext(),
                                                amdgpu::sched_barrier_opt_enum::none));
  }
  void barrier(OpBuilder &b, Location loc) const override {
    gpu::BarrierOp::create(b, loc);
  }
  /// The loads into LDS land asynchronously: s_waitcnt vmcnt(0) (a
  /// barrier does not wait for them). Behind a scheduling barrier that
  /// nothing crosses: the MFMAs issued before the wait (S = Q K^T while V
  /// loads) touch no memory, and LLVM's scheduler would otherwise sink them
  /// past the wait and the barrier after it (measured: 6 of a tile's 8
  /// S MFMAs behind V's wait), leaving the loads nothing to run behind.
  void waitLdsLoads(OpBuilder &b, Location loc) const override {
    scheduleBoundary(b, loc);
    amdgpu::MemoryCounterWaitOp::create(b, loc, /*load=*/b.getI32IntegerAttr(0),
                                        /*store=*/nullptr, /*ds=*/nullptr,
                                        /*exp=*/nullptr, /*tensor=*/nullptr);
  }

private:
  /// k (in bytes) of byte e of a lane in half h; the same for A and B (P1).
  /// K=64 fp8's formula restricted to e < 16 is 32x32x16 bf16's (32 bytes).
  int64_t kSlot(int64_t h, int64_t e) const {
    if (k == 16)
      return 8 * h + e;
    return 16 * h + 32 * (e / 16) + e % 16;
  }
  [[noreturn]] void notYet(StringRef method, int step) const {
    llvm::reportFatalInternalError(
        Twine("TargetInfo::") + method + " (" + chipName +
        ") is planned as step " + Twine(step) +
        " of docs/archive/GPU_LOWERING_STUDY.md section 7; not implemented yet");
  }

  const ChipInfo &info;
  StringRef chipName;
  int64_t k;
  bool fnuz;
  int64_t ldsBytes;
  MmaShape atom;
  int64_t eb;
};

} // namespace

std::unique_ptr<TargetInfo> mlir::fmha::createAMDGPUTargetInfo(StringRef chip,
                                                               int64_t kStep,
                                                               int64_t elemBytes) {
  // The atom is the chip table's fp8 MMA with that K step (Chips.h): gfx942
  // v_mfma_f32_32x32x16_fp8_fp8; gfx950 v_mfma_f32_32x32x64_f8f6f4 or, K 16,
  // v_mfma_f32_32x32x16_fp8_fp8.
  const ChipInfo *info = lookupChip(chip);
  if (!info || info->vendor != ChipVendor::AMDGPU)
    return nullptr;
  // 16-bit K/V: the chip's mma16 (gfx942 v_mfma_f32_32x32x8_bf16_1k / f16,
  // gfx950 v_mfma_f32_32x32x16_bf16 / f16), its k in bytes.
  std::optional<MmaShape> atom = info->mmaInBytes(kStep, elemBytes);
  if (!atom)
    return nullptr;
  return std::make_unique<AMDGPUTargetInfo>(*info, *atom, elemBytes);
}
