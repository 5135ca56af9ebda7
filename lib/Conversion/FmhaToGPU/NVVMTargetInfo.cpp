//===- NVVMTargetInfo.cpp - sm_90 (mma.sync m16n8k32 e4m3) TargetInfo -----===//
//
// Warp32 mma.sync m16n8k32 with OCP fp8 operands (PTX ISA, "Matrix Fragments
// for mma.m16n8k32"). The accumulator's row is the query and a row lives in
// the 4 lanes of a quad, so the scores are not transposed and a row reduction
// is shfl xor 1, 2 (docs/GPU_LOWERING.md, "TargetInfo: the vendor interface"). Later wgmma/TMA paths get
// their own TargetInfo.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"
#include "fmha/Support/Chips.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::fmha;

namespace {

LLVM::InlineAsmOp inlineAsm(OpBuilder &b, Location loc, Type res,
                            ValueRange operands, const Twine &text,
                            StringRef constraints) {
  return LLVM::InlineAsmOp::create(
      b, loc, res, operands, b.getStringAttr(text), b.getStringAttr(constraints),
      /*has_side_effects=*/UnitAttr(), /*is_align_stack=*/UnitAttr(),
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      LLVM::AsmDialectAttr(), ArrayAttr());
}

class NVVMTargetInfo final : public TargetInfo {
public:
  NVVMTargetInfo(const ChipInfo &info, MmaShape atom) : info(info), atom(atom) {}

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
  void setKernelAttrs(gpu::GPUFuncOp f, int64_t threads,
                      int64_t) const override {
    Builder b(f.getContext());
    f.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  }

  std::optional<MmaAtom> mmaAtom(Type kvElem) const override {
    if (!isa<Float8E4M3FNType, Float8E5M2Type>(kvElem))
      return std::nullopt;
    int64_t lanes = info.waveSize;
    return MmaAtom{atom.m,           atom.n,           atom.k,
                   kvElem,           kvElem,           atom.m * atom.k / lanes,
                   atom.k * atom.n / lanes, atom.m * atom.n / lanes};
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
  int64_t pvKeyPosition(int64_t key) const override {
    // key = 16i + 8b1 + 2t + b0 -> 16i + 4t + 2b1 + b0
    int64_t t = (key >> 1) & 3, b1 = (key >> 3) & 1;
    return (key & ~int64_t(0xF)) | (t << 2) | (b1 << 1) | (key & 1);
  }
  Value mma(OpBuilder &b, Location loc, Value a, Value bv,
            Value acc) const override {
    // a: 16 fp8 -> 4 x b32, b: 8 fp8 -> 2 x b32, acc: 4 x f32.
    Type i32 = b.getI32Type(), f32 = b.getF32Type();
    SmallVector<Value> ins;
    auto words = [&](Value v, int64_t n) {
      Value bytes = arith::BitcastOp::create(
          b, loc, VectorType::get({4 * n}, b.getI8Type()), v);
      Value w = vector::BitCastOp::create(b, loc, VectorType::get({n}, i32),
                                          bytes);
      for (int64_t i = 0; i < n; ++i)
        ins.push_back(vector::ExtractOp::create(b, loc, w, i));
    };
    words(a, 4);
    words(bv, 2);
    for (int64_t i = 0; i < 4; ++i)
      ins.push_back(vector::ExtractOp::create(b, loc, acc, i));
    auto resT = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                 {f32, f32, f32, f32});
    std::string ty = isa<Float8E5M2Type>(
                         cast<VectorType>(a.getType()).getElementType())
                         ? "e5m2"
                         : "e4m3";
    auto asmOp = inlineAsm(
        b, loc, resT, ins,
        "mma.sync.aligned.m16n8k32.row.col.f32." + ty + "." + ty +
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
  SmallVector<int64_t> rowReduceXorMasks() const override { return {1, 2}; }
  void barrier(OpBuilder &b, Location loc) const override {
    gpu::BarrierOp::create(b, loc);
  }

private:
  [[noreturn]] void notYet(StringRef method, int step) const {
    llvm::reportFatalInternalError(
        Twine("TargetInfo::") + method + " (" + info.name +
        ") is written with step " + Twine(step) +
        " of docs/archive/GPU_LOWERING_STUDY.md section 7; not implemented yet");
  }

  const ChipInfo &info;
  MmaShape atom;
};

} // namespace

std::unique_ptr<TargetInfo> mlir::fmha::createNVVMTargetInfo(StringRef chip,
                                                             int64_t kStep) {
  // The chip table's fp8 MMA with that K step (Chips.h): sm_90 has one,
  // mma.sync m16n8k32; any other k_step has no MMA here.
  const ChipInfo *info = lookupChip(chip);
  if (!info || info->vendor != ChipVendor::NVIDIA)
    return nullptr;
  const MmaShape *atom = info->fp8MmaWithK(kStep);
  if (!atom)
    return nullptr;
  return std::make_unique<NVVMTargetInfo>(*info, *atom);
}
