//===- NVVMTargetInfo.cpp - sm_90 / sm_90a TargetInfo ---------------------===//
//
// sm_90: warp32 mma.sync m16n8k32 with OCP fp8 operands (PTX ISA, "Matrix
// Fragments for mma.m16n8k32"). The accumulator's row is the query and a row
// lives in the 4 lanes of a quad, so the scores are not transposed and a row
// reduction is shfl xor 1, 2 (docs/GPU_LOWERING.md, "TargetInfo: the vendor
// interface").
//
// sm_90a: the same per-warp layouts, but the product is one warpgroup MMA
// (wgmma.mma_async m64nNk32, PTX ISA "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate"): warp w computes rows 16w..16w+15, its accumulators
// are the m16n8 ones repeated N/8 times and its register A operand is the
// m16n8k32 A fragment (../shared/docs/HOPPER_NOTES.md section 2.4, verified
// on the H200). B is read from a staged tile in 128B/64B/32B-swizzled
// shared memory through a matrix descriptor.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"
#include "fmha/Support/Chips.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <string>

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Inline PTX; `sideEffects` for instructions that read memory or order
/// themselves against others (wgmma reads shared memory, its wait orders the
/// accumulators): without it LLVM takes the asm for a pure function of its
/// operands and may hoist a loop-invariant wgmma out of the KV loop.
LLVM::InlineAsmOp inlineAsm(OpBuilder &b, Location loc, Type res,
                            ValueRange operands, const Twine &text,
                            StringRef constraints, bool sideEffects = false) {
  return LLVM::InlineAsmOp::create(
      b, loc, res, operands, b.getStringAttr(text), b.getStringAttr(constraints),
      /*has_side_effects=*/sideEffects ? b.getUnitAttr() : UnitAttr(),
      /*is_align_stack=*/UnitAttr(),
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      LLVM::AsmDialectAttr(), ArrayAttr());
}

class NVVMTargetInfo final : public TargetInfo {
public:
  /// `atom`'s k in bytes (a 16-bit MMA's k times 2: MmaAtom::elemBytes).
  NVVMTargetInfo(const ChipInfo &info, MmaShape atom, int64_t elemBytes)
      : info(info), atom(atom), eb(elemBytes) {}

  StringRef chip() const override { return info.name; }
  int64_t waveSize() const override { return info.waveSize; }
  Attribute gpuModuleTarget(MLIRContext *ctx) const override {
    return NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/2, info.triple,
                                     info.name, info.features);
  }
  unsigned sharedAddressSpace() const override { return 3; }
  /// Static `workgroup` attributions are capped at 48 KiB (ptxas); more needs
  /// dynamic shared memory and the launcher's opt-in (up to 227 KiB).
  int64_t sharedMemoryBytesPerBlock() const override {
    return info.ldsBytesPerWorkgroup;
  }
  /// All of it is dynamic (fmha-shared-to-dynamic): sm_90's 227 KiB.
  int64_t maxSharedMemoryBytesPerBlock() const override { return 227 * 1024; }
  bool warpgroupMma() const override { return info.warpgroupMma; }
  int64_t warpgroupMmaPromoteSteps() const override {
    return info.wgmmaFp8PromoteSteps;
  }
  int64_t warpgroupMmaPvPromoteSteps() const override {
    return info.wgmmaFp8PvPromoteSteps;
  }
  /// The widest of the 128B, 64B and 32B swizzles whose width divides the
  /// rows (D 192: 64, three column groups); 0 when none does.
  int64_t ldsSwizzleBytes(int64_t rowBytes) const override {
    if (!info.warpgroupMma)
      return 0;
    for (int64_t w : {128, 64, 32})
      if (rowBytes % w == 0)
        return w;
    return 0;
  }
  void barrierAfterLdsWrites(OpBuilder &b, Location loc) const override {
    if (info.warpgroupMma)
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
    barrier(b, loc);
  }
  SmallVector<Value> warpgroupMmaChainsStart(OpBuilder &b, Location loc,
                                             ArrayRef<WarpgroupChain> chains,
                                             Type aElem, Type bElem, Value ldsBase,
                                             int64_t n, int64_t rowBytes) const override {
    Type f32 = b.getF32Type();
    int64_t nAcc = n / 2;
    // Every register a step reads, A's words (RS) and the accumulators, of
    // every chain passes through the fence (tied in and out): PTX requires
    // all writes to them before wgmma.fence, and LLVM would otherwise
    // schedule their producers (P's packing, the rescaling of an
    // accumulator) after it. vals: per chain its A words, then its
    // accumulators.
    SmallVector<Value> vals;
    SmallVector<int64_t> firstA, firstAcc;
    for (const WarpgroupChain &ch : chains) {
      firstA.push_back(vals.size());
      for (Value av : ch.a.regs) {
        Value words = asWords(b, loc, av, 4);
        for (int64_t i = 0; i < 4; ++i)
          vals.push_back(vector::ExtractOp::create(b, loc, words, i));
      }
      firstAcc.push_back(vals.size());
      if (ch.acc)
        for (int64_t i = 0; i < nAcc; ++i)
          vals.push_back(vector::ExtractOp::create(b, loc, ch.acc, i));
    }
    vals = tiedAsm(b, loc, "wgmma.fence.sync.aligned;", vals);
    std::string types = "f32." + typeName(aElem) + "." + typeName(bElem);
    // 16-bit: k16 and the transpose immediates (0: both K-major); fp8 has
    // none (K-major only).
    std::string shapeK = "k" + std::to_string(atom.k / eb);
    SmallVector<Value> out; // every chain's accumulators after its last step
    for (auto [ci, ch] : llvm::enumerate(chains)) {
      const WarpgroupOperandA &a = ch.a;
      bool rs = !a.regs.empty();
      std::string trans = eb == 2 ? (rs ? ", 0" : ", 0, 0") : "";
      SmallVector<Value> cur(vals.begin() + firstAcc[ci],
                             vals.begin() + firstAcc[ci] + (ch.acc ? nAcc : 0));
      Value *aWords = vals.begin() + firstA[ci];
      for (int64_t c = 0, steps = ch.offsets.size(); c < steps; ++c) {
        // Operands: the accumulators (tied; none for the first step of a
        // chain from zero: scale-d = 0 ignores them), A (4 words or a
        // descriptor), B's descriptor. Inputs are numbered after the
        // outputs.
        bool tied = !cur.empty();
        SmallVector<Value> ins(cur);
        if (rs)
          ins.append(aWords + 4 * c, aWords + 4 * c + 4);
        else
          ins.push_back(descriptor(b, loc, a.ldsBase, a.offsets[c], a.rowBytes));
        ins.push_back(descriptor(b, loc, ldsBase, ch.offsets[c], rowBytes));
        int64_t in0 = tied ? 2 * nAcc : nAcc;
        std::string text = std::string("{\n.reg .pred p;\nsetp.ne.b32 p, ") +
                           (tied ? "1" : "0") +
                           ", 0;\nwgmma.mma_async.sync.aligned.m64n" +
                           std::to_string(n) + shapeK + "." + types + " {";
        std::string cons;
        for (int64_t i = 0; i < nAcc; ++i) {
          text += (i ? ", $" : "$") + std::to_string(i);
          cons += (i ? ",=f" : "=f");
        }
        if (tied)
          for (int64_t i = 0; i < nAcc; ++i)
            cons += "," + std::to_string(i);
        text += "}, ";
        if (rs) {
          text += "{";
          for (int64_t i = 0; i < 4; ++i)
            text += (i ? ", $" : "$") + std::to_string(in0 + i);
          text += "}, $" + std::to_string(in0 + 4);
          cons += ",r,r,r,r,l";
        } else {
          text += "$" + std::to_string(in0) + ", $" + std::to_string(in0 + 1);
          cons += ",l,l";
        }
        text += ", p, 1, 1" + trans + ";\n}";
        auto resT = LLVM::LLVMStructType::getLiteral(
            b.getContext(), SmallVector<Type>(nAcc, f32));
        Value st = inlineAsm(b, loc, resT, ins, text, cons, /*sideEffects=*/true)
                       .getResult(0);
        cur.clear();
        for (int64_t i = 0; i < nAcc; ++i)
          cur.push_back(LLVM::ExtractValueOp::create(b, loc, st, i));
      }
      out.push_back(vector::FromElementsOp::create(
          b, loc, VectorType::get({nAcc}, f32), cur));
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    return out;
  }

  bool scoreInHalves() const override { return info.warpgroupMma; }
  bool pvInColumnPieces(int64_t n) const override {
    return info.warpgroupMma && n >= 256 && n % 64 == 0;
  }
  SmallVector<Value> warpgroupMmaWait(OpBuilder &b, Location loc,
                                      ArrayRef<Value> inFlight,
                                      int64_t pending) const override {
    // The wait with the accumulators tied in and out: LLVM's
    // llvm.nvvm.wgmma.wait_group has no data operands, so a use of an
    // accumulator could otherwise move above it (HOPPER_NOTES.md 2.3).
    SmallVector<Value> all;
    SmallVector<int64_t> sizes;
    for (Value v : inFlight) {
      int64_t n = cast<VectorType>(v.getType()).getNumElements();
      sizes.push_back(n);
      for (int64_t i = 0; i < n; ++i)
        all.push_back(vector::ExtractOp::create(b, loc, v, i));
    }
    all = tiedAsm(b, loc,
                  "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";", all);
    SmallVector<Value> out;
    int64_t at = 0;
    for (auto [v, n] : llvm::zip(inFlight, sizes)) {
      out.push_back(vector::FromElementsOp::create(
          b, loc, v.getType(), ArrayRef<Value>(all).slice(at, n)));
      at += n;
    }
    return out;
  }

  void setKernelAttrs(gpu::GPUFuncOp f, int64_t threads,
                      int64_t) const override {
    Builder b(f.getContext());
    f.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  }

  std::optional<MmaAtom> mmaAtom(Type kvElem) const override {
    if (eb == 2 ? !isa<BFloat16Type, Float16Type>(kvElem)
                : !isa<Float8E4M3FNType, Float8E5M2Type>(kvElem))
      return std::nullopt;
    int64_t lanes = info.waveSize;
    return MmaAtom{atom.m,           atom.n,           atom.k,
                   kvElem,           kvElem,           atom.m * atom.k / lanes,
                   atom.k * atom.n / lanes, atom.m * atom.n / lanes, eb};
  }
  bool transposedScores() const override { return false; }
  // groupID = lane / 4, threadID_in_group = lane % 4; byte e of a .b32
  // register r is element 4r + e (lower bits hold the lower index).
  AccElem accElem(int64_t lane, int64_t reg) const override {
    return {lane / 4 + 8 * (reg / 2), 2 * (lane % 4) + reg % 2};
  }
  FragElem aFragElem(int64_t lane, int64_t elem) const override {
    return {lane / 4 + 8 * ((elem / 4) % 2),
            4 * (lane % 4) + elem % 4 + 16 * (elem / 8)};
  }
  FragElem bFragElem(int64_t lane, int64_t elem) const override {
    return {4 * (lane % 4) + elem % 4 + 16 * (elem / 4), lane / 4};
  }
  int64_t kGroupOfLane(int64_t lane) const override { return lane % 4; }
  // A warp's 32 lanes store 32 words of one V^T row: one store a wavefront
  // (consecutive lanes on one key group's 8 chunks hit one bank 8 times,
  // the 128B swizzle keeping d % 8 equal; bench/NOTES.md 2026-12-02).
  bool transposeByKeyGroups() const override { return true; }
  // f32 divisions as the approximate division (arcp afn: div.approx.f32,
  // at most 2 ulp) instead of div.rn.f32, which ptxas expands to a fast
  // path, an FCHK range check and a branch to a slow path (9 divisions a
  // KV tile on page 16's scaled_p route; bench/NOTES.md 2026-12-05).
  bool fastReciprocal() const override { return true; }
  int64_t pvKeyPosition(int64_t key) const override {
    // 16-bit: m16n8k16's A fragment is the m16n8 accumulator's (the lane's
    // own scores, in order).
    if (eb == 2)
      return key;
    // key = 16i + 8b1 + 2t + b0 -> 16i + 4t + 2b1 + b0
    int64_t t = (key >> 1) & 3, b1 = (key >> 3) & 1;
    return (key & ~int64_t(0xF)) | (t << 2) | (b1 << 1) | (key & 1);
  }
  Value mma(OpBuilder &b, Location loc, Value a, Value bv,
            Value acc) const override {
    // a: 16 fp8 or 8 bf16 -> 4 x b32, b: 8 fp8 or 4 bf16 -> 2 x b32, acc: 4 x f32.
    Type f32 = b.getF32Type();
    SmallVector<Value> ins;
    auto words = [&](Value v, int64_t n) {
      Value w = asWords(b, loc, v, n);
      for (int64_t i = 0; i < n; ++i)
        ins.push_back(vector::ExtractOp::create(b, loc, w, i));
    };
    words(a, 4);
    words(bv, 2);
    for (int64_t i = 0; i < 4; ++i)
      ins.push_back(vector::ExtractOp::create(b, loc, acc, i));
    auto resT = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                 {f32, f32, f32, f32});
    // e4m3 x e5m2 in either order (an e4m3 Q or P with an e5m2 cache);
    // bf16 / f16: m16n8k16, the same registers.
    auto ty = [](Value v) {
      return typeName(cast<VectorType>(v.getType()).getElementType());
    };
    auto asmOp = inlineAsm(
        b, loc, resT, ins,
        "mma.sync.aligned.m16n8k" + std::to_string(atom.k / eb) + ".row.col.f32." +
            ty(a) + "." + ty(bv) +
            ".f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};",
        "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f");
    SmallVector<Value> outs;
    for (int64_t i = 0; i < 4; ++i)
      outs.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), i));
    return vector::FromElementsOp::create(b, loc, acc.getType(), outs);
  }

  Value exp2(OpBuilder &b, Location loc, Value x) const override {
    return inlineAsm(b, loc, x.getType(), x, "ex2.approx.ftz.f32 $0, $1;", "=f,f")
        .getResult(0);
  }
  Value maxF(OpBuilder &b, Location loc, Value x, Value y) const override {
    return LLVM::MaxNumOp::create(b, loc, x, y);
  }
  // Inline PTX: convert-gpu-to-nvvm rejects llvm.intr.exp2/log2 already in
  // the IR (it wants math ops, which it turns into libdevice calls).
  Value log2(OpBuilder &b, Location loc, Value x) const override {
    return inlineAsm(b, loc, x.getType(), x, "lg2.approx.ftz.f32 $0, $1;", "=f,f")
        .getResult(0);
  }
  int64_t fp8PackedByte(int64_t half, int64_t src) const override {
    return 2 * half + 1 - src;
  }
  Fp8PackSlot packFp8x4Slot(int64_t value) const override {
    return {value / 2, 1 - value % 2};
  }
  Value packFp8x4(OpBuilder &b, Location loc, ArrayRef<Value> v,
                  Type fp8) const override {
    // cvt.rn.satfinite.e4m3x2.f32 d, a, b puts a in the upper byte.
    std::string ty = isa<Float8E5M2Type>(fp8) ? "e5m2" : "e4m3";
    Type i16 = b.getI16Type(), i32 = b.getI32Type();
    Value halves[2];
    for (int64_t half = 0; half < 2; ++half) {
      Value src[2];
      for (int64_t i = 0; i < 4; ++i) {
        Fp8PackSlot s = packFp8x4Slot(i);
        if (s.half == half)
          src[s.src] = v[i];
      }
      auto asmOp = inlineAsm(b, loc, i16, ValueRange{src[0], src[1]},
                             "cvt.rn.satfinite." + ty + "x2.f32 $0, $1, $2;",
                             "=h,f,f");
      halves[half] = arith::ExtUIOp::create(b, loc, i32, asmOp.getResult(0));
    }
    Value hi = arith::ShLIOp::create(
        b, loc, halves[1], arith::ConstantIntOp::create(b, loc, i32, 16));
    return arith::OrIOp::create(b, loc, halves[0], hi);
  }
  Value permuteBytes(OpBuilder &, Location, Value, Value,
                     uint32_t) const override {
    notYet("permuteBytes", 11);
  }

  Value broadcastFirstLane(OpBuilder &b, Location loc, Value v) const override {
    return gpu::ShuffleOp::create(b, loc, v, /*offset=*/0,
                                  static_cast<int32_t>(waveSize()),
                                  gpu::ShuffleMode::IDX)
        .getShuffleResult();
  }
  // The 8 lanes of one lane % 4 hold the same score columns (mma.sync's
  // and wgmma's per-warp layout): a group of 8 lanes, stride 4.
  int64_t groupBroadcastLanes() const override { return 8; }
  int64_t groupBroadcastStride() const override { return 4; }
  Value broadcastInGroup(OpBuilder &b, Location loc, Value v, int64_t idx,
                         Value lane) const override {
    // SpreadPlan::sourceLane: the lane's place bits replaced by idx's; a
    // group spans the warp, so they are all bits above the stride's.
    int64_t g = groupBroadcastLanes(), stride = groupBroadcastStride();
    assert(g * stride == waveSize() && "an NVIDIA group spans its warp");
    (void)g;
    Value src = arith::OrIOp::create(
        b, loc,
        arith::AndIOp::create(b, loc, lane,
                              arith::ConstantIntOp::create(b, loc, stride - 1, 32)),
        arith::ConstantIntOp::create(b, loc, idx * stride, 32));
    return gpu::ShuffleOp::create(b, loc, v, src,
                                  arith::ConstantIntOp::create(
                                      b, loc, static_cast<int32_t>(waveSize()), 32),
                                  gpu::ShuffleMode::IDX)
        .getShuffleResult();
  }
  SmallVector<int64_t> rowReduceXorMasks() const override { return {1, 2}; }
  void barrier(OpBuilder &b, Location loc) const override {
    gpu::BarrierOp::create(b, loc);
  }

  // cp.async (sm_80 and later): 16-byte copies that bypass L1 (.cg), one
  // commit group per staged tile.
  bool hasAsyncCopies() const override { return true; }
  void asyncCopy16(OpBuilder &b, Location loc, Value dst, Value dstIx, Value src,
                   ValueRange srcIx) const override {
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dst,
        ValueRange{dstIx}, src, srcIx, b.getIndexAttr(16),
        /*srcElements=*/Value(), /*bypassL1=*/b.getUnitAttr());
  }
  void asyncCommit(OpBuilder &b, Location loc) const override {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  void asyncWait(OpBuilder &b, Location loc, int64_t pending) const override {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, static_cast<int32_t>(pending));
  }

  // Warp roles (sm_90a; setmaxnreg is sm_90a-only, and LLVM aborts on it
  // for sm_90).
  bool hasWarpRoles() const override { return info.warpgroupMma; }
  void groupBarrier(OpBuilder &b, Location loc, Value id,
                    int64_t threads) const override {
    Value n = arith::ConstantIntOp::create(b, loc, b.getI32Type(), threads);
    NVVM::BarrierOp::create(b, loc, TypeRange{}, id, n, /*reductionOp=*/{},
                            /*reductionPredicate=*/Value());
  }
  void groupArrive(OpBuilder &b, Location loc, Value id,
                   int64_t threads) const override {
    Value n = arith::ConstantIntOp::create(b, loc, b.getI32Type(), threads);
    NVVM::BarrierArriveOp::create(b, loc, id, n);
  }
  void groupBarrierAfterLdsWrites(OpBuilder &b, Location loc, Value id,
                                  int64_t threads) const override {
    asyncProxyFence(b, loc);
    groupBarrier(b, loc, id, threads);
  }
  void asyncProxyFence(OpBuilder &b, Location loc) const override {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
  }
  void mbarrierInit(OpBuilder &b, Location loc, Value addr,
                    int64_t count) const override {
    Value n = arith::ConstantIntOp::create(b, loc, b.getI32Type(), count);
    NVVM::MBarrierInitOp::create(b, loc, addr, n, /*predicate=*/Value());
  }
  void mbarrierInitFence(OpBuilder &b, Location loc) const override {
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  void mbarrierArrive(OpBuilder &b, Location loc, Value addr) const override {
    NVVM::MBarrierArriveOp::create(b, loc, b.getI64Type(), addr);
  }
  void mbarrierArriveOnCopies(OpBuilder &b, Location loc,
                              Value addr) const override {
    NVVM::CpAsyncMBarrierArriveOp::create(b, loc, addr, /*noinc=*/true);
  }
  void mbarrierWait(OpBuilder &b, Location loc, Value addr,
                    Value parity) const override {
    Value ticks = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0x989680);
    NVVM::MBarrierTryWaitParityOp::create(b, loc, addr, parity, ticks);
  }
  void mbarrierArriveExpectTx(OpBuilder &b, Location loc, Value addr,
                              int64_t bytes) const override {
    Value n = arith::ConstantIntOp::create(b, loc, b.getI32Type(), bytes);
    NVVM::MBarrierArriveExpectTxOp::create(b, loc, /*res=*/Type(), addr, n,
                                           NVVM::MemScopeKind::CTA, /*relaxed=*/false,
                                           /*predicate=*/Value());
  }
  void tmaLoad(OpBuilder &b, Location loc, Value dst, Value map, ValueRange coords,
               Value mbar) const override {
    // The destination as a shared::cluster address (LLVM's intrinsic takes
    // address space 7; a CTA's own shared::cta address is one).
    Value cluster = LLVM::AddrSpaceCastOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), dst);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, cluster, map, coords, mbar, /*im2colOffsets=*/ValueRange{},
        /*multicastMask=*/Value(), /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
        /*isCTAOnly=*/false, /*group=*/nullptr, /*predicate=*/Value());
  }
  void setRegisters(OpBuilder &b, Location loc, int64_t regs,
                    bool increase) const override {
    NVVM::SetMaxRegisterOp::create(b, loc, static_cast<int32_t>(regs),
                                   increase ? NVVM::SetMaxRegisterAction::increase
                                            : NVVM::SetMaxRegisterAction::decrease);
  }

private:
  /// Matrix descriptor of a K-major swizzled tile at shared address
  /// ldsBase + offset (PTX ISA "Matrix Descriptor Format"): start address
  /// >> 4 in bits 0-13, leading byte offset 1 (unused for swizzled K-major),
  /// stride byte offset = one 8-row group (8 W) >> 4 in bits 32-45, base
  /// offset 0 (the tile is 1024-aligned), swizzle mode in bits 62-63 (1:
  /// 128B, 2: 64B, 3: 32B).
  Value descriptor(OpBuilder &b, Location loc, Value ldsBase, int64_t offset,
                   int64_t rowBytes) const {
    Type i64 = b.getI64Type();
    auto c64 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
    };
    int64_t w = ldsSwizzleBytes(rowBytes);
    int64_t mode = w == 128 ? 1 : w == 64 ? 2 : 3;
    Value addr = arith::AddIOp::create(b, loc, ldsBase, c64(offset));
    Value start = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, addr, c64(4)), c64(0x3FFF));
    uint64_t hi = (uint64_t(1) << 16) | (uint64_t(8 * w >> 4) << 32) |
                  (uint64_t(mode) << 62);
    return arith::OrIOp::create(b, loc, start, c64(static_cast<int64_t>(hi)));
  }
  /// A side-effecting asm `text` that takes `vals` (i32 or f32) tied in and
  /// out and returns them: an ordering point no producer or user of them
  /// can cross.
  static SmallVector<Value> tiedAsm(OpBuilder &b, Location loc, StringRef text,
                                    ArrayRef<Value> vals) {
    std::string cons;
    SmallVector<Type> types;
    for (Value v : vals) {
      cons += std::string(cons.empty() ? "" : ",") +
              (v.getType().isF32() ? "=f" : "=r");
      types.push_back(v.getType());
    }
    for (size_t i = 0; i < vals.size(); ++i)
      cons += "," + std::to_string(i);
    auto resT = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
    Value st = inlineAsm(b, loc, resT, vals, text, cons, /*sideEffects=*/true)
                   .getResult(0);
    SmallVector<Value> out;
    for (size_t i = 0; i < vals.size(); ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, st, i));
    return out;
  }
  static std::string typeName(Type t) {
    if (t.isBF16())
      return "bf16";
    if (t.isF16())
      return "f16";
    return isa<Float8E5M2Type>(t) ? "e5m2" : "e4m3";
  }
  /// An operand vector (fp8 or 16-bit elements) as `n` i32 words.
  static Value asWords(OpBuilder &b, Location loc, Value v, int64_t n) {
    auto t = cast<VectorType>(v.getType());
    if (t.getElementTypeBitWidth() == 8)
      v = arith::BitcastOp::create(
          b, loc, VectorType::get({t.getNumElements()}, b.getI8Type()), v);
    return vector::BitCastOp::create(b, loc, VectorType::get({n}, b.getI32Type()), v);
  }
  [[noreturn]] void notYet(StringRef method, int step) const {
    llvm::reportFatalInternalError(
        Twine("TargetInfo::") + method + " (" + info.name +
        ") is written with step " + Twine(step) +
        " of docs/archive/GPU_LOWERING_STUDY.md section 7; not implemented yet");
  }

  const ChipInfo &info;
  MmaShape atom;
  int64_t eb;
};

} // namespace

std::unique_ptr<TargetInfo> mlir::fmha::createNVVMTargetInfo(StringRef chip,
                                                             int64_t kStep,
                                                             int64_t elemBytes) {
  // The chip table's fp8 MMA with that K step (Chips.h): sm_90 has one,
  // mma.sync m16n8k32; any other k_step has no MMA here.
  const ChipInfo *info = lookupChip(chip);
  if (!info || info->vendor != ChipVendor::NVIDIA)
    return nullptr;
  // 16-bit K/V: mma16 (mma.sync m16n8k16; wgmma k16 on sm_90a), k in bytes.
  std::optional<MmaShape> atom = info->mmaInBytes(kStep, elemBytes);
  if (!atom)
    return nullptr;
  return std::make_unique<NVVMTargetInfo>(*info, *atom, elemBytes);
}
