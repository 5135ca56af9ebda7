//===- LanesToHost.cpp - fmha-lanes-to-host: the kernel, once per lane ----===//
//
// The lane emulator's compiler half (docs/LANE_EMULATOR.md). The kernel of
// convert-fmha-to-gpu is the code of ONE lane; on the CPU the lane runtime
// runs it once per lane of every workgroup, each lane a coroutine. This pass
// makes that possible:
//
// - the gpu.func becomes a func.func with the same flat ABI, its workgroup
//   attributions buffers of the runtime (one per workgroup), and an entry
//   `<kernel>_lanes(i64 *args)` the runtime can call without knowing the ABI;
// - every op that needs the wave or the workgroup (MMA, sm_90a's warpgroup
//   MMA, shuffles, readfirstlane, barrier) or a vendor's exact numerics (fp8
//   packs, exp2, log2) becomes a call of the runtime with scalar or pointer
//   arguments; wgmma's tied fence and wait pass their values through, its
//   commit and the async-proxy fence are dropped (the runtime is
//   synchronous);
// - sm_90a's warp-specialization ops become runtime calls too: the
//   mbarriers (nvvm.mbarrier.init / arrive / try_wait.parity,
//   cp.async.mbarrier.arrive), named barriers (nvvm.barrier id, n and
//   nvvm.barrier.arrive) and elect.sync; an mbarrier's address (an
//   !llvm.ptr<3> made from a workgroup buffer's pointer, host memory here)
//   goes as an i64. nvvm.fence.mbarrier.init and nvvm.setmaxregister are
//   dropped;
// - the host function's gpu.launch_func becomes fmha_lane_launch;
// - with check-bounds (the default), every memref / vector load and store
//   and every subview of the kernel is guarded: an index outside its dim
//   calls fmha_lane_out_of_bounds, and the access is skipped (a load yields
//   zero), so the lane goes on safely and the runtime reports the first
//   violation.
//
// The pass checks every op first and changes nothing when one has no
// emulation: the error names the op.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/LanesToHost/LanesToHost.h"
#include "fmha/Conversion/OutlineKernel/KernelAbi.h"
#include "fmha/Conversion/Passes.h"
#include "fmha/Emulator/LaneABI.h"
#include "fmha/Support/Chips.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_CONVERTLANESTOHOST
#include "fmha/Conversion/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using mlir::fmha::AbiPart;
using mlir::fmha::KernelAbiArg;
using mlir::fmha::kKernelAbiAttr;
using mlir::fmha::readKernelAbi;
namespace lane = ::fmha::lane;

namespace {

//===----------------------------------------------------------------------===//
// What the emulator knows
//===----------------------------------------------------------------------===//

/// The chip facts the rewrite needs, from the gpu.module's target.
struct Chip {
  bool amd = false;
  std::string name;
  int64_t waveSize = 0;
  lane::Fp8Format packFormat = lane::E4M3FN; // rocdl.cvt.pk.fp8.f32's output
};

/// The bits one lane's amdgpu.gather_to_lds moves (its transfer type's).
int64_t ldsLoadBits(amdgpu::GatherToLDSOp g) {
  Type t = g.getTransferType();
  if (auto v = dyn_cast<VectorType>(t))
    return v.getNumElements() * v.getElementTypeBitWidth();
  return t.getIntOrFloatBitWidth();
}

FailureOr<Chip> chipOf(gpu::GPUModuleOp m) {
  Chip c;
  ArrayAttr targets = m.getTargetsAttr();
  if (!targets || targets.size() != 1)
    return m.emitOpError("fmha-lanes-to-host: expected one target on the "
                         "gpu.module"),
           failure();
  if (auto r = dyn_cast<ROCDL::ROCDLTargetAttr>(targets[0])) {
    c.amd = true;
    c.name = r.getChip().str();
  } else if (auto n = dyn_cast<NVVM::NVVMTargetAttr>(targets[0])) {
    c.name = n.getChip().str();
  } else {
    return m.emitOpError("fmha-lanes-to-host: unknown gpu.module target ")
               << targets[0],
           failure();
  }
  // Wave size and the fp8 flavour v_cvt_pk_fp8_f32 writes (the chip's own:
  // FNUZ on gfx942) come from the chip table.
  const mlir::fmha::ChipInfo *info = mlir::fmha::lookupChip(c.name);
  if (!info || !info->isGPU() ||
      (info->vendor == mlir::fmha::ChipVendor::AMDGPU) != c.amd)
    return m.emitOpError("fmha-lanes-to-host: gpu.module target chip '")
               << c.name << "' is not a "
               << (c.amd ? "AMDGPU" : "NVIDIA") << " chip of the chip table ("
               << mlir::fmha::expectedChipsText(
                      c.amd ? mlir::fmha::kAMDGPUChips
                            : mlir::fmha::kNVIDIAChips)
               << ")",
           failure();
  c.waveSize = info->waveSize;
  c.packFormat = info->fp8Family == mlir::fmha::Fp8Family::FnuzOnly
                     ? lane::E4M3FNUZ
                     : lane::E4M3FN;
  return c;
}

std::optional<lane::Fp8Format> fp8Format(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return lane::E4M3FN;
  if (isa<Float8E4M3FNUZType>(t))
    return lane::E4M3FNUZ;
  if (isa<Float8E5M2Type>(t))
    return lane::E5M2;
  if (isa<Float8E5M2FNUZType>(t))
    return lane::E5M2FNUZ;
  return std::nullopt;
}

/// Inline PTX the emulator gives semantics to, parsed from its text.
struct Asm {
  enum Kind { MmaSync, Ex2, Lg2, CvtFp8x2, Wgmma, Tied } kind;
  // The operands' formats: lane::Fp8Format, or lane::Format16 when k16.
  int32_t a = lane::E4M3FN, b = lane::E4M3FN;
  // mma.sync m16n8k16 / wgmma k16 with bf16 or f16 operands.
  bool k16 = false;
  // Wgmma: N, scale-d (accumulator inputs first when 1), A in registers.
  int64_t n = 0;
  bool scaleD = false, aRegs = false;
};

std::optional<lane::Fp8Format> ptxFp8(StringRef s) {
  if (s == "e4m3")
    return lane::E4M3FN;
  if (s == "e5m2")
    return lane::E5M2;
  return std::nullopt;
}

std::optional<lane::Format16> ptx16(StringRef s) {
  if (s == "bf16")
    return lane::BF16;
  if (s == "f16")
    return lane::F16;
  return std::nullopt;
}

std::optional<lane::Format16> format16(Type t) {
  if (t.isBF16())
    return lane::BF16;
  if (t.isF16())
    return lane::F16;
  return std::nullopt;
}

/// An operand type's format: fp8 (lane::Fp8Format) or 16-bit
/// (lane::Format16, `is16` set).
std::optional<int32_t> operandFormat(Type t, bool &is16) {
  is16 = false;
  if (auto f = fp8Format(t))
    return *f;
  is16 = true;
  if (auto f = format16(t))
    return *f;
  return std::nullopt;
}

/// sm_90a's wgmma step as TargetInfo::warpgroupMmaChain prints it:
/// "{\n.reg .pred p;\nsetp.ne.b32 p, S, 0;\nwgmma.mma_async.sync.aligned.
/// m64n<N>k32.f32.<a>.<b> {...}, A, descB, p, 1, 1;\n}" with operands: the
/// N/2 accumulators when S = 1, A (4 b32, or a descriptor), descB.
std::optional<Asm> parseWgmma(LLVM::InlineAsmOp op) {
  StringRef s = op.getAsmString();
  StringRef head = "{\n.reg .pred p;\nsetp.ne.b32 p, ";
  if (!s.consume_front(head))
    return std::nullopt;
  Asm r{Asm::Wgmma};
  if (s.consume_front("1"))
    r.scaleD = true;
  else if (!s.consume_front("0"))
    return std::nullopt;
  if (!s.consume_front(", 0;\nwgmma.mma_async.sync.aligned.m64n") ||
      s.consumeInteger(10, r.n) || r.n < 8 || r.n > 256 || r.n % 8)
    return std::nullopt;
  // k32 with e4m3 / e5m2, or k16 with bf16 / f16 (then the transpose
  // immediates, which must be 0: K-major operands).
  r.k16 = s.consume_front("k16.f32.");
  if (!r.k16 && !s.consume_front("k32.f32."))
    return std::nullopt;
  StringRef types = s.take_until([](char c) { return c == ' '; });
  s = s.drop_front(types.size());
  auto [ta, tb] = types.split('.');
  if (r.k16) {
    auto a = ptx16(ta), b = ptx16(tb);
    if (!a || !b || !s.ends_with(", 0;\n}"))
      return std::nullopt;
    r.a = *a, r.b = *b;
  } else {
    auto a = ptxFp8(ta), b = ptxFp8(tb);
    if (!a || !b)
      return std::nullopt;
    r.a = *a, r.b = *b;
  }
  int64_t nAcc = r.n / 2, in0 = r.scaleD ? nAcc : 0;
  ValueRange in = op.getOperands();
  r.aRegs = in.size() == size_t(in0 + 5);
  if (!r.aRegs && in.size() != size_t(in0 + 2))
    return std::nullopt;
  for (int64_t i = 0; i < in0; ++i)
    if (!in[i].getType().isF32())
      return std::nullopt;
  for (int64_t i = in0; i < int64_t(in.size()) - 1; ++i)
    if (!in[i].getType().isInteger(r.aRegs ? 32 : 64))
      return std::nullopt;
  if (!in.back().getType().isInteger(64))
    return std::nullopt;
  return r;
}

std::optional<Asm> parseAsm(LLVM::InlineAsmOp op) {
  if (op.getAsmString().contains("wgmma.mma_async"))
    return parseWgmma(op);
  // wgmma.fence / wait_group with their operands tied in and out: the
  // runtime's wgmma is synchronous, so both pass the values through.
  StringRef waitN = op.getAsmString();
  if (op.getAsmString() == "wgmma.fence.sync.aligned;" ||
      (waitN.consume_front("wgmma.wait_group.sync.aligned ") && waitN.size() == 2 &&
       llvm::isDigit(waitN[0]) && waitN[1] == ';'))
    return Asm{Asm::Tied};
  StringRef s = op.getAsmString().trim();
  StringRef mnemonic = s.take_until([](char c) { return c == ' '; });
  SmallVector<StringRef> parts;
  mnemonic.split(parts, '.');
  // mma.sync.aligned.m16n8k32.row.col.f32.<a>.<b>.f32: 4+2 b32 and 4 f32 in,
  // 4 f32 out.
  if (parts.size() == 10 && parts[0] == "mma" && parts[1] == "sync" &&
      parts[2] == "aligned" && parts[3] == "m16n8k32" && parts[4] == "row" &&
      parts[5] == "col" && parts[6] == "f32" && parts[9] == "f32") {
    auto a = ptxFp8(parts[7]), b = ptxFp8(parts[8]);
    if (!a || !b || op.getOperands().size() != 10)
      return std::nullopt;
    return Asm{Asm::MmaSync, *a, *b};
  }
  // mma.sync.aligned.m16n8k16.row.col.f32.<bf16|f16>.<bf16|f16>.f32: the
  // same registers, 16-bit values two to a b32.
  if (parts.size() == 10 && parts[0] == "mma" && parts[1] == "sync" &&
      parts[2] == "aligned" && parts[3] == "m16n8k16" && parts[4] == "row" &&
      parts[5] == "col" && parts[6] == "f32" && parts[9] == "f32") {
    auto a = ptx16(parts[7]), b = ptx16(parts[8]);
    if (!a || !b || op.getOperands().size() != 10)
      return std::nullopt;
    Asm r{Asm::MmaSync, *a, *b};
    r.k16 = true;
    return r;
  }
  if (mnemonic == "ex2.approx.ftz.f32" && op.getOperands().size() == 1)
    return Asm{Asm::Ex2};
  if (mnemonic == "lg2.approx.ftz.f32" && op.getOperands().size() == 1)
    return Asm{Asm::Lg2};
  // cvt.rn.satfinite.<t>x2.f32 d, hi, lo
  if (parts.size() == 5 && parts[0] == "cvt" && parts[1] == "rn" &&
      parts[2] == "satfinite" && parts[3].ends_with("x2") && parts[4] == "f32" &&
      op.getOperands().size() == 2) {
    auto f = ptxFp8(parts[3].drop_back(2));
    if (!f)
      return std::nullopt;
    return Asm{Asm::CvtFp8x2, *f, *f};
  }
  return std::nullopt;
}

bool isScalarF32OrI32(Type t) { return t.isF32() || t.isInteger(32); }

/// Why `op` cannot be emulated, or "" when it can.
std::string unsupported(Operation *op) {
  if (auto a = dyn_cast<LLVM::InlineAsmOp>(op))
    return parseAsm(a) ? "" : "inline assembly '" + a.getAsmString().str() + "'";
  // Target intrinsics by name: only v_perm_b32 has a model.
  if (auto c = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
    StringRef n = c.getIntrin();
    if (n == "llvm.amdgcn.perm")
      return c.getArgs().size() == 3 && c.getNumResults() == 1 &&
                     c.getResult(0).getType().isInteger(32)
                 ? ""
                 : "llvm.amdgcn.perm not of three i32 to one i32";
    if (n.starts_with("llvm.amdgcn.") || n.starts_with("llvm.nvvm."))
      return "intrinsic '" + n.str() + "'";
    return "";
  }
  Dialect *d = op->getDialect();
  StringRef ns = d ? d->getNamespace() : "";
  if (ns != "gpu" && ns != "amdgpu" && ns != "rocdl" && ns != "nvvm" && ns != "nvgpu")
    return "";
  // cp.async: the runtime copies at once (a load and a store), so the
  // groups' commit and wait have nothing left to wait for.
  if (auto c = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op))
    return !c.getSrcElements() && c.getAsyncToken().use_empty() &&
                   c.getDstElements().getZExtValue() == 16 &&
                   c.getDst().getType().getElementType().isInteger(8) &&
                   c.getSrc().getType().getElementType().isInteger(8)
               ? ""
               : "an async copy other than 16 bytes of i8 without zero-fill";
  if (isa<NVVM::CpAsyncCommitGroupOp, NVVM::CpAsyncWaitGroupOp>(op))
    return "";
  // A load into LDS (gfx950 16 bytes, gfx942 4): kept in flight by the
  // runtime until the lane's counter wait (rewriteOp), where the hardware
  // writes it.
  if (auto g = dyn_cast<amdgpu::GatherToLDSOp>(op)) {
    int64_t bits = ldsLoadBits(g);
    return (bits == 128 || bits == 32) &&
                   g.getDst().getType().getElementType().isInteger(8) &&
                   g.getSrc().getType().getElementType().isInteger(8) &&
                   g.getDstIndices().size() == 1
               ? ""
               : "a load into LDS other than 16 or 4 bytes of i8 to a 1-D buffer";
  }
  if (isa<amdgpu::MemoryCounterWaitOp>(op))
    return "";
  // Warp specialization: mbarriers of the workgroup's memory (generic or
  // shared::cta pointers), named barriers without a reduction, elect.sync
  // of the whole warp; the mbarrier-init fence and register reallocation
  // have nothing to do here.
  if (isa<NVVM::MBarrierInitOp, NVVM::MBarrierTryWaitParityOp, NVVM::CpAsyncMBarrierArriveOp,
          NVVM::BarrierArriveOp, NVVM::Barrier0Op, NVVM::FenceMbarrierInitOp,
          NVVM::SetMaxRegisterOp>(op))
    return "";
  if (auto a = dyn_cast<NVVM::MBarrierArriveOp>(op)) {
    unsigned space = cast<LLVM::LLVMPointerType>(a.getAddr().getType()).getAddressSpace();
    return space == 0 || space == 3 ? "" : "an mbarrier.arrive outside shared::cta memory";
  }
  if (auto b = dyn_cast<NVVM::BarrierOp>(op))
    return !b.getReductionOp() && !b.getReductionPredicate() ? ""
                                                             : "nvvm.barrier with a reduction";
  // TMA (sm_90a): a tiled box of up to 5 dimensions through a tensor map
  // the launch made (fmha_lane_tensor_map), and the arrive that expects
  // its bytes.
  if (auto t = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op))
    return t.getCoordinates().size() <= 5 && t.getIm2colOffsets().empty() &&
                   !t.getMulticastMask() && !t.getL2CacheHint() && !t.getPredicate() &&
                   t.getMode() == NVVM::TMALoadMode::TILE
               ? ""
               : "a TMA load other than a tiled box without multicast, cache hint "
                 "or predicate";
  if (auto a = dyn_cast<NVVM::MBarrierArriveExpectTxOp>(op))
    return !a.getPredicate() && !a.getRelaxed() ? ""
                                                : "mbarrier.arrive.expect_tx with a predicate "
                                                  "or relaxed";
  if (auto e = dyn_cast<NVVM::ElectSyncOp>(op))
    return !e.getMembermask() ? "" : "elect.sync with a member mask";
  if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BarrierOp, gpu::ReturnOp,
          amdgpu::SchedBarrierOp>(op))
    return "";
  // The runtime's wgmma is synchronous and reads shared memory directly:
  // the commit and the async-proxy fence have nothing to order.
  if (isa<NVVM::WgmmaGroupSyncAlignedOp, NVVM::FenceProxyOp>(op))
    return "";
  if (auto s = dyn_cast<gpu::ShuffleOp>(op))
    return isScalarF32OrI32(s.getValue().getType()) ? "" : "a shuffle of a non-32-bit value";
  if (auto r = dyn_cast<ROCDL::ReadfirstlaneOp>(op))
    return isScalarF32OrI32(r.getType()) ? "" : "readfirstlane of a non-32-bit value";
  if (auto p = dyn_cast<ROCDL::Permlane32SwapOp>(op))
    return !p.getFi() && !p.getBoundControl() ? ""
                                              : "permlane32.swap with fi or bound_ctrl";
  if (auto d = dyn_cast<ROCDL::DPPUpdateOp>(op))
    return d.getDppCtrl() >= 0x150 && d.getDppCtrl() <= 0x15f && d.getRowMask() == 0xf &&
                   d.getBankMask() == 0xf && isScalarF32OrI32(d.getType())
               ? ""
               : "update.dpp other than row_newbcast of 32 bits to all rows and banks";
  if (auto t = dyn_cast<amdgpu::TransposeLoadOp>(op)) {
    auto vt = cast<VectorType>(t.getType());
    auto mt = cast<MemRefType>(t.getSrc().getType());
    return vt.getNumElements() == 8 && vt.getElementTypeBitWidth() == 8 &&
                   mt.getElementTypeBitWidth() == 8
               ? ""
               : "a transpose load other than 8 bytes of a byte memref";
  }
  if (isa<ROCDL::ROCDLExp2, ROCDL::ROCDLLog>(op))
    return op->getResult(0).getType().isF32() ? "" : "exp2/log of a non-f32 value";
  if (isa<ROCDL::CvtPkFp8F32Op>(op))
    return "";
  if (auto c = dyn_cast<amdgpu::FatRawBufferCastOp>(op)) {
    if (!c.getValidBytes())
      return "a fat_raw_buffer_cast without validBytes";
    for (Operation *u : c->getUsers()) {
      auto l = dyn_cast<vector::LoadOp>(u);
      auto ml = dyn_cast<memref::LoadOp>(u);
      auto gl = dyn_cast<amdgpu::GatherToLDSOp>(u); // a load, then a store
      if (!(l && l.getBase() == c.getResult()) && !(ml && ml.getMemRef() == c.getResult()) &&
          !(gl && gl.getSrc() == c.getResult() && gl.getDst() != c.getResult()))
        return "a fat_raw_buffer_cast used other than by loads";
    }
    return "";
  }
  if (auto m = dyn_cast<amdgpu::MFMAOp>(op)) {
    auto a = dyn_cast<VectorType>(m.getSourceA().getType());
    auto b = dyn_cast<VectorType>(m.getSourceB().getType());
    bool a16 = false, b16 = false;
    if (!a || !b || !operandFormat(a.getElementType(), a16) ||
        !operandFormat(b.getElementType(), b16) || a16 != b16)
      return "an MFMA whose operands are not fp8, bf16 or f16 vectors of one width";
    int64_t perLane = m.getK() / 2; // 32x32xK: K/2 values a lane
    bool shapeOk = m.getM() == 32 && m.getN() == 32 &&
                   a.getNumElements() == perLane && b.getNumElements() == perLane &&
                   (a16 ? (m.getK() == 8 || m.getK() == 16)
                        : (m.getK() == 16 || m.getK() == 64));
    if (!shapeOk)
      return "an MFMA other than 32x32x16 / 32x32x64 fp8 or 32x32x8 / 32x32x16 bf16, f16";
    if (m.getBlocks() != 1 || m.getCbsz() != 0 || m.getAbid() != 0 ||
        m.getBlgp() != amdgpu::MFMAPermB::none || m.getNegateA() ||
        m.getNegateB() || m.getNegateC() || m.getReducePrecision())
      return "an MFMA with blocks, broadcast, permute or negate modifiers";
    return "";
  }
  return "'" + op->getName().getStringRef().str() + "'";
}

/// The accesses check-bounds guards (and memref.subview, whose range it
/// checks against its source).
bool isGuardedAccess(Operation *op) {
  return isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp>(op);
}

/// Why check-bounds cannot guard `op`, or "" when it can (or need not): an
/// op that reads or writes a memref or a pointer other than the guarded
/// accesses, or one with unknown effects on a memref operand.
std::string unguarded(Operation *op) {
  // Rewritten into a guarded load and store, or a guarded load (rewriteOp).
  if (isGuardedAccess(op) ||
      isa<memref::SubViewOp, nvgpu::DeviceAsyncCopyOp, amdgpu::TransposeLoadOp,
          amdgpu::GatherToLDSOp>(op))
    return "";
  // The runtime checks the mbarrier's address itself (an initialised
  // mbarrier in the workgroup's buffers).
  if (isa<NVVM::MBarrierInitOp, NVVM::MBarrierArriveOp, NVVM::MBarrierTryWaitParityOp,
          NVVM::CpAsyncMBarrierArriveOp, NVVM::MBarrierArriveExpectTxOp>(op))
    return "";
  // A TMA load: the runtime checks its box lies in the workgroup's buffers
  // (the tensor map bounds the source: zeros outside).
  if (isa<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op))
    return "";
  auto isMemory = [](Type t) {
    return isa<BaseMemRefType, LLVM::LLVMPointerType>(t);
  };
  if (auto mem = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    mem.getEffects(effects);
    for (const MemoryEffects::EffectInstance &e : effects)
      if (Value v = e.getValue(); v && isMemory(v.getType()) &&
                                  isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()))
        return "'" + op->getName().getStringRef().str() + "'";
    return "";
  }
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return "";
  for (Value v : op->getOperands())
    if (isMemory(v.getType()))
      return "'" + op->getName().getStringRef().str() + "' (unknown effects on a "
             "memref or pointer operand)";
  return "";
}

//===----------------------------------------------------------------------===//
// The rewrite of one kernel
//===----------------------------------------------------------------------===//

/// Stack slots are aligned for the widest vector the JIT may move with one
/// aligned instruction (64 bytes: a <16 x float> in an AVX-512 register);
/// every access states its alignment.
constexpr unsigned kSlotAlign = 64;

struct DimCheck;

struct Rewriter {
  ModuleOp module;
  Chip chip;
  bool checkBounds = true;
  int32_t nextSite = 0;
  // Stack slots of the current kernel, at its entry: operands of a runtime
  // call that are vectors (the calls take pointers).
  Value slotA, slotB, slotC, slotD;

  func::FuncOp runtime(ImplicitLocOpBuilder &b, StringRef name,
                       TypeRange args, TypeRange results) {
    if (auto f = module.lookupSymbol<func::FuncOp>(name))
      return f;
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    auto f = func::FuncOp::create(b, name, b.getFunctionType(args, results));
    f.setPrivate();
    return f;
  }
  Value call(ImplicitLocOpBuilder &b, StringRef name, ValueRange args,
             TypeRange results) {
    func::FuncOp f = runtime(b, name, args.getTypes(), results);
    auto c = func::CallOp::create(b, f, args);
    return c.getNumResults() ? c.getResult(0) : Value();
  }
  Value i32(ImplicitLocOpBuilder &b, int64_t v) {
    return arith::ConstantIntOp::create(b, b.getI32Type(), v);
  }
  Value site(ImplicitLocOpBuilder &b) { return i32(b, nextSite++); }
  Value ptrTy(ImplicitLocOpBuilder &b, Value slot, int64_t byteOffset) {
    if (!byteOffset)
      return slot;
    return LLVM::GEPOp::create(b, LLVM::LLVMPointerType::get(b.getContext()),
                               b.getI8Type(), slot,
                               ArrayRef<LLVM::GEPArg>{LLVM::GEPArg(byteOffset)});
  }
  /// f32 <-> i32 for the runtime's 32-bit lane values.
  Value asI32(ImplicitLocOpBuilder &b, Value v) {
    return v.getType().isF32() ? arith::BitcastOp::create(b, b.getI32Type(), v)
                               : v;
  }
  Value fromI32(ImplicitLocOpBuilder &b, Value v, Type t) {
    return t.isF32() ? arith::BitcastOp::create(b, t, v) : v;
  }
  /// An fp8 vector as the bytes it holds (llvm.store takes no fp8 type).
  Value asBytes(ImplicitLocOpBuilder &b, Value v) {
    auto t = cast<VectorType>(v.getType());
    if (t.getElementType().isInteger(8))
      return v;
    if (t.getElementTypeBitWidth() == 16) // stored as it is: little-endian
      return v;
    return arith::BitcastOp::create(
        b, VectorType::get(t.getShape(), b.getI8Type()), v);
  }

  LogicalResult rewriteKernel(gpu::GPUModuleOp gm, gpu::GPUFuncOp k);
  void rewriteOp(Operation *op);
  // check-bounds: index constants at the kernel's entry and the sizes of
  // dynamic dims after their memref's definition, made once each.
  Block *entryBlock = nullptr;
  DenseMap<int64_t, Value> constants;
  DenseMap<std::pair<Value, int64_t>, Value> dimSizes;
  Value indexConst(int64_t v);
  Value dimSize(Value mem, int64_t d);
  void reportOutOfBounds(ImplicitLocOpBuilder &b, int32_t site,
                         ArrayRef<DimCheck> dims);
  void guardAccess(Operation *op);
  void rewriteBoundedView(amdgpu::FatRawBufferCastOp op);
  void countLdsAccess(Operation *op);
  /// The site constants of countLdsAccess's calls, numbered at the end.
  SmallVector<arith::ConstantOp> ldsSites;
  void guardSubView(memref::SubViewOp op);
  void rewriteLaunch(gpu::LaunchFuncOp launch, func::FuncOp lanes);
  /// The kernel's fmha.abi record (empty without one).
  SmallVector<KernelAbiArg> abi;
  /// A tensor-map argument's value at the launch: the emulator's own map
  /// (fmha_lane_tensor_map) of the memref whose flat values the launch
  /// passes, described by the record's entry `at`.
  Value tensorMapAt(ImplicitLocOpBuilder &b, ValueRange ops, unsigned at);
};

/// Before an LDS access (a load or store of workgroup memory, a transpose
/// load): its byte address and size for the runtime's bank model
/// (fmha_lane_lds_access; nothing when the model is off).
void Rewriter::countLdsAccess(Operation *op) {
  ImplicitLocOpBuilder b(op->getLoc(), op);
  Value mem;
  ValueRange ix;
  Type elem;
  bool store = false;
  if (auto l = dyn_cast<vector::LoadOp>(op))
    mem = l.getBase(), ix = l.getIndices(), elem = l.getVectorType();
  else if (auto s = dyn_cast<vector::StoreOp>(op))
    mem = s.getBase(), ix = s.getIndices(), elem = s.getVectorType(), store = true;
  else if (auto l = dyn_cast<memref::LoadOp>(op))
    mem = l.getMemRef(), ix = l.getIndices(), elem = l.getType();
  else if (auto s = dyn_cast<memref::StoreOp>(op))
    mem = s.getMemRef(), ix = s.getIndices(), elem = s.getValue().getType(), store = true;
  else if (auto t = dyn_cast<amdgpu::TransposeLoadOp>(op))
    mem = t.getSrc(), ix = t.getSrcIndices(), elem = t.getResult().getType();
  else
    return;
  auto mt = cast<MemRefType>(mem.getType());
  int64_t eb = mt.getElementTypeBitWidth() / 8;
  int64_t bytes = isa<VectorType>(elem)
                      ? cast<VectorType>(elem).getNumElements() *
                            cast<VectorType>(elem).getElementTypeBitWidth() / 8
                      : elem.getIntOrFloatBitWidth() / 8;
  // Identity layouts of static shape (the workgroup buffers and their
  // views): the element index is row-major in the shape.
  if (!mt.getLayout().isIdentity() || !mt.hasStaticShape())
    return;
  Value at = arith::ConstantIndexOp::create(b, 0);
  for (auto [i, x] : llvm::enumerate(ix))
    at = arith::AddIOp::create(
        b, arith::MulIOp::create(b, at, arith::ConstantIndexOp::create(b, mt.getDimSize(i))), x);
  at = arith::AddIOp::create(
      b, memref::ExtractAlignedPointerAsIndexOp::create(b, mem),
      arith::MulIOp::create(b, at, arith::ConstantIndexOp::create(b, eb)));
  Type i64 = b.getI64Type();
  auto siteConst = arith::ConstantOp::create(b, b.getI32IntegerAttr(0));
  ldsSites.push_back(siteConst);
  call(b, lane::kLdsAccess,
       {siteConst, arith::IndexCastOp::create(b, i64, at), i32(b, bytes), i32(b, store)}, {});
}

void Rewriter::rewriteOp(Operation *op) {
  ImplicitLocOpBuilder b(op->getLoc(), op);
  Type i64 = b.getI64Type(), i32T = b.getI32Type(), f32 = b.getF32Type();
  auto replace = [&](Value v) {
    op->getResult(0).replaceAllUsesWith(v);
    op->erase();
  };
  auto laneId = [&](int32_t which) {
    Value r = call(b, lane::kId, {i32(b, which)}, {i64});
    replace(arith::IndexCastOp::create(b, b.getIndexType(), r));
  };
  if (auto t = dyn_cast<gpu::ThreadIdOp>(op))
    return laneId(lane::ThreadX + static_cast<int32_t>(t.getDimension()));
  if (auto t = dyn_cast<gpu::BlockIdOp>(op))
    return laneId(lane::BlockX + static_cast<int32_t>(t.getDimension()));
  auto nvBarrier = dyn_cast<NVVM::BarrierOp>(op);
  if (isa<gpu::BarrierOp, NVVM::Barrier0Op>(op) ||
      (nvBarrier && !nvBarrier.getBarrierId() && !nvBarrier.getNumberOfThreads())) {
    call(b, lane::kBarrier, {site(b)}, {});
    op->erase();
    return;
  }
  if (isa<amdgpu::SchedBarrierOp, NVVM::WgmmaGroupSyncAlignedOp,
          NVVM::FenceProxyOp, NVVM::CpAsyncCommitGroupOp, NVVM::CpAsyncWaitGroupOp,
          NVVM::FenceMbarrierInitOp, NVVM::SetMaxRegisterOp>(op)) {
    op->erase();
    return;
  }
  // bar.sync / bar.arrive id, n: id 0 and n 0 (all threads) when absent.
  auto named = [&](Value id, Value n, bool wait) {
    call(b, lane::kNamedBarrier,
         {site(b), id ? id : i32(b, 0), n ? n : i32(b, 0), i32(b, wait ? 1 : 0)}, {});
    op->erase();
  };
  if (nvBarrier)
    return named(nvBarrier.getBarrierId(), nvBarrier.getNumberOfThreads(), true);
  if (auto a = dyn_cast<NVVM::BarrierArriveOp>(op))
    return named(a.getBarrierId(), a.getNumberOfThreads(), false);
  // mbarriers: the object's address as an i64 (host memory).
  auto address = [&](Value p) { return LLVM::PtrToIntOp::create(b, i64, p).getResult(); };
  if (auto m = dyn_cast<NVVM::MBarrierInitOp>(op)) {
    auto init = [&](ImplicitLocOpBuilder &ib) {
      call(ib, lane::kMBarrierInit,
           {i32(ib, nextSite++), LLVM::PtrToIntOp::create(ib, i64, m.getAddr()), m.getCount()},
           {});
    };
    if (Value pred = m.getPredicate()) {
      auto guarded = scf::IfOp::create(b, pred, /*withElse=*/false);
      ImplicitLocOpBuilder ib(op->getLoc(), guarded.getThenRegion().front().getTerminator());
      init(ib);
    } else {
      init(b);
    }
    op->erase();
    return;
  }
  if (auto m = dyn_cast<NVVM::MBarrierArriveOp>(op)) {
    Value count = m.getCount() ? Value(m.getCount()) : i32(b, 1);
    Value r = call(b, lane::kMBarrierArrive, {site(b), address(m.getAddr()), count}, {i64});
    if (m.getRes())
      m.getRes().replaceAllUsesWith(r);
    op->erase();
    return;
  }
  if (auto m = dyn_cast<NVVM::CpAsyncMBarrierArriveOp>(op)) {
    // The copies are done at issue, so the arrive is one now: with noinc it
    // counts toward the expected arrivals; without, the pending count was
    // raised by one first (net: no arrival, count 0).
    call(b, lane::kMBarrierArrive,
         {site(b), address(m.getAddr()), i32(b, m.getNoinc() ? 1 : 0)}, {i64});
    op->erase();
    return;
  }
  if (auto m = dyn_cast<NVVM::MBarrierArriveExpectTxOp>(op)) {
    Value r = call(b, lane::kMBarrierArriveExpectTx,
                   {site(b), address(m.getAddr()), m.getTxcount()}, {i64});
    if (m.getRes())
      m.getRes().replaceAllUsesWith(r);
    op->erase();
    return;
  }
  if (auto t = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op)) {
    // The shared::cluster destination is the CTA's own shared address.
    Value dst = t.getDstMem();
    if (auto c = dst.getDefiningOp<LLVM::AddrSpaceCastOp>())
      dst = c.getArg();
    SmallVector<Value> args{site(b), address(t.getTmaDescriptor()), address(dst),
                            address(t.getMbar()),
                            i32(b, static_cast<int64_t>(t.getCoordinates().size()))};
    for (int i = 0; i < 5; ++i)
      args.push_back(i < static_cast<int>(t.getCoordinates().size()) ? t.getCoordinates()[i]
                                                                     : i32(b, 0));
    call(b, lane::kTmaLoad, args, {});
    op->erase();
    return;
  }
  if (auto m = dyn_cast<NVVM::MBarrierTryWaitParityOp>(op)) {
    call(b, lane::kMBarrierWait, {site(b), address(m.getAddr()), m.getPhase()}, {});
    op->erase();
    return;
  }
  if (isa<NVVM::ElectSyncOp>(op)) {
    Value r = call(b, lane::kElect, {site(b)}, {i32T});
    return replace(arith::CmpIOp::create(b, arith::CmpIPredicate::ne, r, i32(b, 0)));
  }
  if (auto c = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
    // Done at once: the bytes are in shared memory when the copy is
    // issued (the bounds checks then guard its load and store).
    auto vt = VectorType::get({16}, b.getI8Type());
    Value v = vector::LoadOp::create(b, vt, c.getSrc(), c.getSrcIndices());
    vector::StoreOp::create(b, v, c.getDst(), c.getDstIndices());
    op->erase();
    return;
  }
  if (auto g = dyn_cast<amdgpu::GatherToLDSOp>(op)) {
    // The hardware writes lane l's n bytes (16 or 4) at the wave's first
    // lane's LDS index + n (l % wave), whatever index the lane itself
    // names: the emulator writes them there too, so a lowering whose lanes'
    // indices are not that run puts bytes where it does not expect them.
    int64_t n = ldsLoadBits(g) / 8;
    auto vt = VectorType::get({n}, b.getI8Type());
    Value v = vector::LoadOp::create(b, vt, g.getSrc(), g.getSrcIndices());
    Value own = arith::IndexCastOp::create(b, i32T, g.getDstIndices()[0]);
    Value first = call(b, lane::kReadFirstLane, {site(b), own}, {i32T});
    Value tid = arith::TruncIOp::create(
        b, i32T, call(b, lane::kId, {i32(b, lane::ThreadX)}, {i64}));
    Value inWave = arith::RemUIOp::create(b, tid, i32(b, chip.waveSize));
    Value at = arith::AddIOp::create(b, first,
                                     arith::MulIOp::create(b, inWave, i32(b, n)));
    // In flight until the lane's wait (the runtime keeps it): its LDS
    // address is the buffer's (aligned pointer and offset, i8) + at.
    auto md = memref::ExtractStridedMetadataOp::create(b, g.getDst());
    Value base = arith::AddIOp::create(
        b, memref::ExtractAlignedPointerAsIndexOp::create(b, g.getDst()), md.getOffset());
    Value addr = arith::IndexCastOp::create(
        b, i64, arith::AddIOp::create(b, base, arith::IndexCastOp::create(
                                                  b, b.getIndexType(), at)));
    Value lo, hi = arith::ConstantIntOp::create(b, i64, 0);
    if (n == 16) {
      Value words = vector::BitCastOp::create(b, VectorType::get({2}, i64), v);
      lo = vector::ExtractOp::create(b, words, 0);
      hi = vector::ExtractOp::create(b, words, 1);
    } else {
      Value word = vector::ExtractOp::create(
          b, vector::BitCastOp::create(b, VectorType::get({1}, i32T), v), 0);
      lo = arith::ExtUIOp::create(b, i64, word);
    }
    call(b, lane::kLdsLoad, {addr, lo, hi, arith::ConstantIntOp::create(b, i64, n)}, {});
    op->erase();
    return;
  }
  if (auto w = dyn_cast<amdgpu::MemoryCounterWaitOp>(op)) {
    // vmcnt(n), a wave op (the wave waits, not a lane: gfx942's 4-byte
    // loads write bytes of other lanes' chunks): each lane's loads into LDS
    // but its newest n land.
    if (auto n = w.getLoadAttr())
      call(b, lane::kLdsLoadWait, {site(b), i32(b, n.getInt())}, {});
    op->erase();
    return;
  }
  if (isa<gpu::ReturnOp>(op)) {
    func::ReturnOp::create(b);
    op->erase();
    return;
  }
  if (auto s = dyn_cast<gpu::ShuffleOp>(op)) {
    int32_t mode = s.getMode() == gpu::ShuffleMode::XOR    ? lane::Xor
                   : s.getMode() == gpu::ShuffleMode::UP   ? lane::Up
                   : s.getMode() == gpu::ShuffleMode::DOWN ? lane::Down
                                                           : lane::Idx;
    Type t = s.getValue().getType();
    Value r = call(b, lane::kShuffle,
                   {site(b), i32(b, mode), asI32(b, s.getValue()), s.getOffset(),
                    s.getWidth()},
                   {i64});
    Value v = fromI32(b, arith::TruncIOp::create(b, i32T, r), t);
    Value valid = arith::TruncIOp::create(
        b, b.getI1Type(),
        arith::ShRUIOp::create(b, r, arith::ConstantIntOp::create(b, i64, 32)));
    s.getShuffleResult().replaceAllUsesWith(v);
    s.getValid().replaceAllUsesWith(valid);
    op->erase();
    return;
  }
  if (auto t = dyn_cast<amdgpu::TransposeLoadOp>(op)) {
    // The lane reads the 8 bytes it addresses (a load the bounds checks
    // guard like any other); the runtime moves the bytes between lanes.
    auto vt = cast<VectorType>(t.getType());
    auto bytesT = VectorType::get({8}, b.getI8Type());
    Value own = vector::LoadOp::create(b, bytesT, t.getSrc(), t.getSrcIndices());
    Type i64 = b.getI64Type();
    Value word = vector::ExtractOp::create(
        b, vector::BitCastOp::create(b, VectorType::get({1}, i64), own), 0);
    Value r = call(b, lane::kTranspose8, {site(b), word}, {i64});
    Value back = vector::BitCastOp::create(
        b, bytesT, vector::BroadcastOp::create(b, VectorType::get({1}, i64), r));
    if (vt.getElementType() != b.getI8Type())
      back = arith::BitcastOp::create(b, vt, back);
    return replace(back);
  }
  if (auto p = dyn_cast<ROCDL::Permlane32SwapOp>(op)) {
    // v_permlane32_swap_b32 old, src: old's lanes 32-63 trade places with
    // src's lanes 0-31. As two xor-32 shuffles (a lane reads lane ^ 32) and
    // a select by the lane's half (waves are 64 consecutive x threads).
    auto xor32 = [&](Value v) {
      Value r = call(b, lane::kShuffle,
                     {site(b), i32(b, lane::Xor), v, i32(b, 32), i32(b, 64)}, {i64});
      return Value(arith::TruncIOp::create(b, i32T, r));
    };
    Value oldX = xor32(p.getOld()), srcX = xor32(p.getSrc());
    Value tid = arith::TruncIOp::create(
        b, i32T, call(b, lane::kId, {i32(b, lane::ThreadX)}, {i64}));
    Value hi = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                     arith::AndIOp::create(b, tid, i32(b, 32)), i32(b, 0));
    Value first = arith::SelectOp::create(b, hi, srcX, p.getOld());
    Value second = arith::SelectOp::create(b, hi, p.getSrc(), oldX);
    Value pair = LLVM::UndefOp::create(b, p.getRes().getType());
    pair = LLVM::InsertValueOp::create(b, pair, first, ArrayRef<int64_t>{0});
    return replace(LLVM::InsertValueOp::create(b, pair, second, ArrayRef<int64_t>{1}));
  }
  if (auto d = dyn_cast<ROCDL::DPPUpdateOp>(op)) {
    // row_newbcast:i: a lane reads lane i of its row of 16 (all rows and
    // banks written: `old` is never read).
    Value tid = arith::TruncIOp::create(
        b, i32T, call(b, lane::kId, {i32(b, lane::ThreadX)}, {i64}));
    Value src = arith::OrIOp::create(
        b, arith::AndIOp::create(b, tid, i32(b, 48)),
        i32(b, static_cast<int32_t>(d.getDppCtrl()) - 0x150));
    Value r = call(b, lane::kShuffle,
                   {site(b), i32(b, lane::Idx), asI32(b, d.getSrc()), src, i32(b, 64)},
                   {i64});
    return replace(fromI32(b, arith::TruncIOp::create(b, i32T, r), d.getType()));
  }
  if (auto r = dyn_cast<ROCDL::ReadfirstlaneOp>(op)) {
    Type t = r.getType();
    Value v = call(b, lane::kReadFirstLane, {site(b), asI32(b, r.getSrc())}, {i32T});
    return replace(fromI32(b, v, t));
  }
  if (auto c = dyn_cast<LLVM::CallIntrinsicOp>(op);
      c && c.getIntrin() == "llvm.amdgcn.perm")
    return replace(call(b, lane::kPermB32, {c.getArgs()[0], c.getArgs()[1], c.getArgs()[2]},
                        {i32T}));
  if (auto e = dyn_cast<ROCDL::ROCDLExp2>(op))
    return replace(call(b, lane::kExp2, {e->getOperand(0)}, {f32}));
  if (auto e = dyn_cast<ROCDL::ROCDLLog>(op))
    return replace(call(b, lane::kLog2, {e->getOperand(0)}, {f32}));
  if (auto c = dyn_cast<ROCDL::CvtPkFp8F32Op>(op)) {
    Value r = call(b, lane::kCvtPkFp8,
                   {c.getSrcA(), c.getSrcB(), c.getOld(),
                    i32(b, c.getWordSel() ? 1 : 0), i32(b, chip.packFormat)},
                   {i32T});
    return replace(r);
  }
  if (auto m = dyn_cast<amdgpu::MFMAOp>(op)) {
    auto at = cast<VectorType>(m.getSourceA().getType());
    auto bt = cast<VectorType>(m.getSourceB().getType());
    bool is16 = false;
    int32_t fa = *operandFormat(at.getElementType(), is16);
    int32_t fb = *operandFormat(bt.getElementType(), is16);
    lane::MmaShape shape =
        is16 ? (m.getK() == 8 ? lane::Mfma32x32x8F16 : lane::Mfma32x32x16F16)
             : (m.getK() == 16 ? lane::Mfma32x32x16 : lane::Mfma32x32x64);
    int32_t kind = shape * 16 + fa * 4 + fb;
    LLVM::StoreOp::create(b, asBytes(b, m.getSourceA()), slotA, kSlotAlign);
    LLVM::StoreOp::create(b, asBytes(b, m.getSourceB()), slotB, kSlotAlign);
    LLVM::StoreOp::create(b, m.getDestC(), slotC, kSlotAlign);
    call(b, lane::kMma, {site(b), i32(b, kind), slotA, slotB, slotC, slotD}, {});
    return replace(LLVM::LoadOp::create(b, m.getDestC().getType(), slotD, kSlotAlign));
  }
  auto a = cast<LLVM::InlineAsmOp>(op);
  Asm info = *parseAsm(a);
  ValueRange in = a.getOperands();
  switch (info.kind) {
  case Asm::Ex2:
    return replace(call(b, lane::kExp2, {in[0]}, {f32}));
  case Asm::Lg2:
    return replace(call(b, lane::kLog2, {in[0]}, {f32}));
  case Asm::CvtFp8x2: {
    Value r = call(b, lane::kCvtFp8x2, {in[0], in[1], i32(b, info.a)}, {i32T});
    return replace(arith::TruncIOp::create(b, op->getResult(0).getType(), r));
  }
  case Asm::Tied: {
    Type st = op->getResult(0).getType();
    Value s = LLVM::PoisonOp::create(b, st);
    for (auto [i, v] : llvm::enumerate(in))
      s = LLVM::InsertValueOp::create(b, s, v, ArrayRef<int64_t>{int64_t(i)});
    return replace(s);
  }
  case Asm::Wgmma: {
    int64_t nAcc = info.n / 2, in0 = info.scaleD ? nAcc : 0;
    for (int64_t i = 0; i < in0; ++i)
      LLVM::StoreOp::create(b, in[i], ptrTy(b, slotC, 4 * i), 4);
    Value aPtr, descA;
    if (info.aRegs) {
      for (int i = 0; i < 4; ++i)
        LLVM::StoreOp::create(b, in[in0 + i], ptrTy(b, slotA, 4 * i), 4);
      aPtr = slotA;
      descA = arith::ConstantIntOp::create(b, i64, 0);
    } else {
      aPtr = LLVM::ZeroOp::create(b, LLVM::LLVMPointerType::get(b.getContext()));
      descA = in[in0];
    }
    int32_t kind = (info.k16 ? lane::WgmmaM64NK16 : lane::WgmmaM64NK32) * 16 +
                   info.a * 4 + info.b;
    call(b, lane::kWgmma,
         {site(b), i32(b, kind), i32(b, info.n), i32(b, info.scaleD ? 1 : 0),
          aPtr, descA, in.back(), slotC, slotD},
         {});
    Type st = op->getResult(0).getType();
    Value s = LLVM::PoisonOp::create(b, st);
    for (int64_t i = 0; i < nAcc; ++i) {
      Value v = LLVM::LoadOp::create(b, f32, ptrTy(b, slotD, 4 * i), 4);
      s = LLVM::InsertValueOp::create(b, s, v, ArrayRef<int64_t>{i});
    }
    return replace(s);
  }
  case Asm::MmaSync: {
    // {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3}: the b32 registers in order,
    // so byte e of the operand is byte e % 4 of register e / 4.
    for (int i = 0; i < 4; ++i)
      LLVM::StoreOp::create(b, in[i], ptrTy(b, slotA, 4 * i), 4);
    for (int i = 0; i < 2; ++i)
      LLVM::StoreOp::create(b, in[4 + i], ptrTy(b, slotB, 4 * i), 4);
    for (int i = 0; i < 4; ++i)
      LLVM::StoreOp::create(b, in[6 + i], ptrTy(b, slotC, 4 * i), 4);
    int32_t kind = (info.k16 ? lane::MmaSyncM16N8K16 : lane::MmaSyncM16N8K32) * 16 +
                   info.a * 4 + info.b;
    call(b, lane::kMma, {site(b), i32(b, kind), slotA, slotB, slotC, slotD}, {});
    Type st = op->getResult(0).getType();
    Value s = LLVM::PoisonOp::create(b, st);
    for (int i = 0; i < 4; ++i) {
      Value v = LLVM::LoadOp::create(b, f32, ptrTy(b, slotD, 4 * i), 4);
      s = LLVM::InsertValueOp::create(b, s, v, ArrayRef<int64_t>{i});
    }
    return replace(s);
  }
  }
}

//===----------------------------------------------------------------------===//
// check-bounds
//===----------------------------------------------------------------------===//

/// One dim of a checked access: its index `i`, the dim's `size`, the length
/// of the access along it (a vector's, else 1) and whether it is inside
/// (`ok`).
struct DimCheck {
  int64_t dim;
  Value i, size;
  int64_t extent;
  Value ok;
};

/// In the else branch of a failed check: the first dim out of range, the
/// index to report (the first element's when it is out, else the last one's)
/// and the dim's size, to fmha_lane_out_of_bounds.
void Rewriter::reportOutOfBounds(ImplicitLocOpBuilder &b, int32_t site,
                                 ArrayRef<DimCheck> dims) {
  auto badIndex = [&](const DimCheck &c) -> Value {
    if (c.extent == 1)
      return c.i;
    Value firstIn = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, c.i, c.size);
    Value last = arith::AddIOp::create(b, c.i, indexConst(c.extent - 1));
    return arith::SelectOp::create(b, firstIn, last, c.i);
  };
  // From the last dim to the first, so that the first bad one wins; the
  // last one's values stand when no earlier dim is bad (one of them is).
  const DimCheck &lastDim = dims.back();
  Value index = badIndex(lastDim), bound = lastDim.size;
  Value dim = i32(b, lastDim.dim);
  for (const DimCheck &c : llvm::reverse(dims.drop_back())) {
    index = arith::SelectOp::create(b, c.ok, index, badIndex(c));
    bound = arith::SelectOp::create(b, c.ok, bound, c.size);
    dim = arith::SelectOp::create(b, c.ok, dim, i32(b, c.dim));
  }
  Type i64 = b.getI64Type();
  call(b, lane::kOutOfBounds,
       {i32(b, site), arith::IndexCastOp::create(b, i64, index),
        arith::IndexCastOp::create(b, i64, bound), dim},
       {});
}

Value Rewriter::indexConst(int64_t v) {
  Value &c = constants[v];
  if (!c) {
    OpBuilder b(entryBlock, entryBlock->begin());
    c = arith::ConstantIndexOp::create(b, entryBlock->getParentOp()->getLoc(), v);
  }
  return c;
}

Value Rewriter::dimSize(Value mem, int64_t d) {
  auto t = cast<MemRefType>(mem.getType());
  if (!t.isDynamicDim(d))
    return indexConst(t.getDimSize(d));
  Value &v = dimSizes[{mem, d}];
  if (!v) {
    OpBuilder b(mem.getContext());
    if (Operation *def = mem.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(mem).getOwner());
    v = memref::DimOp::create(b, mem.getLoc(), mem, d);
  }
  return v;
}

/// memref.load / memref.store / vector.load / vector.store: every index in
/// [0, dim), the last n of an n-D vector access with i + length <= dim. The
/// access runs in an scf.if; the else branch reports and yields zero.
void Rewriter::guardAccess(Operation *op) {
  ImplicitLocOpBuilder b(op->getLoc(), op);
  Value mem;
  ValueRange indices;
  ArrayRef<int64_t> shape; // of a vector access
  if (auto l = dyn_cast<memref::LoadOp>(op))
    mem = l.getMemRef(), indices = l.getIndices();
  else if (auto s = dyn_cast<memref::StoreOp>(op))
    mem = s.getMemRef(), indices = s.getIndices();
  else if (auto l = dyn_cast<vector::LoadOp>(op))
    mem = l.getBase(), indices = l.getIndices(), shape = l.getVectorType().getShape();
  else if (auto s = dyn_cast<vector::StoreOp>(op))
    mem = s.getBase(), indices = s.getIndices(), shape = s.getVectorType().getShape();
  auto mt = cast<MemRefType>(mem.getType());
  int64_t rank = static_cast<int64_t>(indices.size());
  int64_t first = rank - static_cast<int64_t>(shape.size());
  using P = arith::CmpIPredicate;
  SmallVector<DimCheck> checks;
  Value ok;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t extent = d < first ? 1 : shape[d - first];
    Value i = indices[d], size = dimSize(mem, d);
    // Unsigned compares: a negative index is out too.
    Value in;
    if (extent == 1) {
      in = b.createOrFold<arith::CmpIOp>(P::ult, i, size);
    } else if (!mt.isDynamicDim(d)) {
      // 0 <= i <= size - extent (never, if the vector is longer than the dim).
      int64_t lim = mt.getDimSize(d) - extent + 1;
      in = lim > 0 ? b.createOrFold<arith::CmpIOp>(P::ult, i, indexConst(lim))
                   : arith::ConstantIntOp::create(b, b.getI1Type(), 0).getResult();
    } else {
      Value last = b.createOrFold<arith::AddIOp>(i, indexConst(extent - 1));
      in = b.createOrFold<arith::AndIOp>(b.createOrFold<arith::CmpIOp>(P::ult, i, size),
                                         b.createOrFold<arith::CmpIOp>(P::ult, last, size));
    }
    if (matchPattern(in, m_One())) { // in range by construction
      if (Operation *c = in.getDefiningOp(); c && in.use_empty())
        c->erase();
      continue;
    }
    checks.push_back({d, i, size, extent, in});
    ok = ok ? b.createOrFold<arith::AndIOp>(ok, in) : in;
  }
  if (!ok)
    return;
  int32_t site = nextSite++;
  auto guarded = scf::IfOp::create(
      b, ok,
      [&](OpBuilder &nb, Location loc) {
        Operation *c = nb.clone(*op);
        scf::YieldOp::create(nb, loc, c->getResults());
      },
      [&](OpBuilder &nb, Location loc) {
        ImplicitLocOpBuilder eb(loc, nb);
        reportOutOfBounds(eb, site, checks);
        SmallVector<Value> zeros;
        for (Type t : op->getResultTypes())
          zeros.push_back(arith::ConstantOp::create(eb, cast<TypedAttr>(eb.getZeroAttr(t))));
        scf::YieldOp::create(eb, zeros);
      });
  op->replaceAllUsesWith(guarded.getResults());
  op->erase();
}

/// amdgpu.fat_raw_buffer_cast (a raw buffer resource): a load through it
/// reads its source when its bytes lie below validBytes and zero when they
/// lie at or above it, as the buffer's range check does. A load across
/// validBytes is reported under check-bounds (kStraddle) and reads zero: the
/// hardware checks each dword, which the lowering never relies on. The
/// source's own accesses are then guarded like any other.
void Rewriter::rewriteBoundedView(amdgpu::FatRawBufferCastOp op) {
  ImplicitLocOpBuilder b(op->getLoc(), op);
  Value src = op.getSource();
  auto st = cast<MemRefType>(src.getType());
  int64_t elemBytes = st.getElementTypeBitWidth() / 8;
  auto meta = memref::ExtractStridedMetadataOp::create(b, src);
  Value vb = arith::IndexCastOp::create(b, b.getIndexType(), op.getValidBytes());
  SmallVector<Operation *> users(op->getUsers());
  for (Operation *u : users) {
    ImplicitLocOpBuilder lb(u->getLoc(), u);
    auto vl = dyn_cast<vector::LoadOp>(u);
    ValueRange ix = vl ? vl.getIndices() : cast<memref::LoadOp>(u).getIndices();
    int64_t bytes = elemBytes * (vl ? vl.getVectorType().getNumElements() : 1);
    Value off = arith::ConstantIndexOp::create(lb, 0);
    for (auto [i, stride] : llvm::zip(ix, meta.getStrides()))
      off = arith::AddIOp::create(lb, off, arith::MulIOp::create(lb, i, stride));
    off = arith::MulIOp::create(lb, off, arith::ConstantIndexOp::create(lb, elemBytes));
    Value end = arith::AddIOp::create(lb, off, arith::ConstantIndexOp::create(lb, bytes));
    using P = arith::CmpIPredicate;
    Value below = arith::CmpIOp::create(lb, P::ule, end, vb);
    Value above = arith::CmpIOp::create(lb, P::uge, off, vb);
    Type t = u->getResult(0).getType();
    int32_t site = nextSite++;
    auto guarded = scf::IfOp::create(
        lb, below,
        [&](OpBuilder &nb, Location loc) {
          Value v = vl ? Value(vector::LoadOp::create(nb, loc, vl.getVectorType(), src, ix))
                       : Value(memref::LoadOp::create(nb, loc, src, ix));
          scf::YieldOp::create(nb, loc, v);
        },
        [&](OpBuilder &nb, Location loc) {
          ImplicitLocOpBuilder eb(loc, nb);
          if (checkBounds) {
            auto across = scf::IfOp::create(
                eb, arith::XOrIOp::create(eb, above,
                                          arith::ConstantIntOp::create(eb, eb.getI1Type(), 1)),
                /*withElse=*/false);
            OpBuilder::InsertionGuard g(eb);
            eb.setInsertionPointToStart(&across.getThenRegion().front());
            Type i64 = eb.getI64Type();
            call(eb, lane::kOutOfBounds,
                 {i32(eb, site), arith::IndexCastOp::create(eb, i64, off),
                  arith::IndexCastOp::create(eb, i64, vb), i32(eb, lane::kStraddle)},
                 {});
          }
          scf::YieldOp::create(
              eb, ValueRange{arith::ConstantOp::create(eb, cast<TypedAttr>(eb.getZeroAttr(t)))});
        });
    u->getResult(0).replaceAllUsesWith(guarded.getResult(0));
    u->erase();
  }
  op->erase();
}

/// memref.subview: offset o, size s, stride t of every dim with
/// o >= 0, s >= 0 and o + (s - 1) t < dim (o <= dim when s = 0). Out of
/// range, it is reported and the view becomes empty where its offsets and
/// sizes are dynamic (an access through it is then out of its bounds, and
/// skipped; a static size over a smaller source stays unsafe).
void Rewriter::guardSubView(memref::SubViewOp op) {
  ImplicitLocOpBuilder b(op->getLoc(), op);
  Value src = op.getSource();
  Value zero = indexConst(0), one = indexConst(1);
  auto value = [&](OpFoldResult r) {
    return getValueOrCreateConstantIndexOp(b, b.getLoc(), r);
  };
  using P = arith::CmpIPredicate;
  SmallVector<DimCheck> checks;
  Value ok;
  SmallVector<OpFoldResult> offsets = op.getMixedOffsets(), sizes = op.getMixedSizes(),
                            strides = op.getMixedStrides();
  for (int64_t d = 0, e = static_cast<int64_t>(offsets.size()); d < e; ++d) {
    Value o = value(offsets[d]), s = value(sizes[d]), t = value(strides[d]);
    Value dim = dimSize(src, d);
    Value lastEl = b.createOrFold<arith::AddIOp>(
        o, b.createOrFold<arith::MulIOp>(b.createOrFold<arith::SubIOp>(s, one), t));
    Value nonEmpty = b.createOrFold<arith::CmpIOp>(P::sgt, s, zero);
    Value endOk = b.createOrFold<arith::SelectOp>(
        nonEmpty, b.createOrFold<arith::CmpIOp>(P::slt, lastEl, dim),
        b.createOrFold<arith::CmpIOp>(P::sle, o, dim));
    // The index to report: a negative offset or size, else the last element
    // (the offset of an empty view).
    Value index = b.createOrFold<arith::SelectOp>(
        b.createOrFold<arith::CmpIOp>(P::slt, o, zero), o,
        b.createOrFold<arith::SelectOp>(
            b.createOrFold<arith::CmpIOp>(P::slt, s, zero), s,
            b.createOrFold<arith::SelectOp>(nonEmpty, lastEl, o)));
    Value in = b.createOrFold<arith::AndIOp>(
        b.createOrFold<arith::AndIOp>(b.createOrFold<arith::CmpIOp>(P::sge, o, zero),
                                      b.createOrFold<arith::CmpIOp>(P::sge, s, zero)),
        endOk);
    if (matchPattern(in, m_One()))
      continue; // a static view of a static source: verified
    checks.push_back({d, index, dim, /*extent=*/1, in});
    ok = ok ? b.createOrFold<arith::AndIOp>(ok, in) : in;
  }
  if (!ok)
    return;
  int32_t site = nextSite++;
  Value bad = arith::XOrIOp::create(b, ok, arith::ConstantIntOp::create(b, b.getI1Type(), 1));
  scf::IfOp::create(b, bad, [&](OpBuilder &nb, Location loc) {
    ImplicitLocOpBuilder eb(loc, nb);
    reportOutOfBounds(eb, site, checks);
    scf::YieldOp::create(eb);
  });
  // Out of range: an empty view at offset 0 (in its dynamic sizes/offsets).
  for (OpOperand &o : op.getOffsetsMutable())
    o.set(arith::SelectOp::create(b, ok, o.get(), zero));
  for (OpOperand &s : op.getSizesMutable())
    s.set(arith::SelectOp::create(b, ok, s.get(), zero));
}

/// A memref<shape x elem> (no memory space, identity layout) over `p`.
Value memrefAt(ImplicitLocOpBuilder &b, Value p, MemRefType t) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  int64_t rank = t.getRank();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  auto arr = LLVM::LLVMArrayType::get(i64, rank);
  auto st = LLVM::LLVMStructType::getLiteral(ctx, {ptr, ptr, i64, arr, arr});
  Value d = LLVM::PoisonOp::create(b, st);
  auto c = [&](int64_t v) { return LLVM::ConstantOp::create(b, i64, v); };
  d = LLVM::InsertValueOp::create(b, d, p, ArrayRef<int64_t>{0});
  d = LLVM::InsertValueOp::create(b, d, p, ArrayRef<int64_t>{1});
  d = LLVM::InsertValueOp::create(b, d, c(0), ArrayRef<int64_t>{2});
  int64_t stride = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    d = LLVM::InsertValueOp::create(b, d, c(t.getDimSize(i)), ArrayRef<int64_t>{3, i});
    d = LLVM::InsertValueOp::create(b, d, c(stride), ArrayRef<int64_t>{4, i});
    stride *= t.getDimSize(i);
  }
  auto plain = MemRefType::get(t.getShape(), t.getElementType());
  return UnrealizedConversionCastOp::create(b, plain, d).getResult(0);
}

LogicalResult Rewriter::rewriteKernel(gpu::GPUModuleOp gm, gpu::GPUFuncOp k) {
  MLIRContext *ctx = module.getContext();
  ImplicitLocOpBuilder b(k.getLoc(), ctx);
  b.setInsertionPointToEnd(module.getBody());
  unsigned nArgs = k.getNumArguments();
  SmallVector<Type> argTypes(k.getArgumentTypes());
  // The argument record, for the launch's tensor maps (rewriteLaunch).
  abi.clear();
  if (k->hasAttr(kKernelAbiAttr)) {
    FailureOr<SmallVector<KernelAbiArg>> record = readKernelAbi(k);
    if (failed(record))
      return failure();
    abi = std::move(*record);
  }
  auto f = func::FuncOp::create(b, k.getName(), b.getFunctionType(argTypes, {}));
  if (auto cfg = k->getDiscardableAttr("fmha.config"))
    f->setAttr("fmha.config", cfg);
  f.getBody().takeBody(k.getBody());
  Block &entry = f.getBody().front();

  // Stack slots for vector operands of runtime calls (the largest: a
  // wgmma m64n256's 128 f32 accumulators, 512 bytes), allocated once at
  // the entry.
  b.setInsertionPointToStart(&entry);
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Value one = LLVM::ConstantOp::create(b, b.getI64Type(), 1);
  auto slot = [&] {
    return LLVM::AllocaOp::create(b, ptr, LLVM::LLVMArrayType::get(b.getI8Type(), 512),
                                  one, /*alignment=*/kSlotAlign);
  };
  slotA = slot();
  slotB = slot();
  slotC = slot();
  slotD = slot();

  // LDS accesses (loads and stores of workgroup memory, transpose loads),
  // found while their memrefs still say so: each gets a call that the
  // runtime's LDS bank model counts when it is on. Their sites are numbered
  // last (ldsSites), so the wave ops' and bounds checks' keep their ids.
  SmallVector<Operation *> ldsAccesses;
  auto inLds = [](Value mem) {
    auto t = dyn_cast<MemRefType>(mem.getType());
    auto space = t ? dyn_cast_or_null<gpu::AddressSpaceAttr>(t.getMemorySpace()) : nullptr;
    return space && space.getValue() == gpu::AddressSpace::Workgroup;
  };
  f.walk([&](Operation *op) {
    if ((isa<vector::LoadOp>(op) && inLds(cast<vector::LoadOp>(op).getBase())) ||
        (isa<vector::StoreOp>(op) && inLds(cast<vector::StoreOp>(op).getBase())) ||
        (isa<memref::LoadOp>(op) && inLds(cast<memref::LoadOp>(op).getMemRef())) ||
        (isa<memref::StoreOp>(op) && inLds(cast<memref::StoreOp>(op).getMemRef())) ||
        isa<amdgpu::TransposeLoadOp>(op))
      ldsAccesses.push_back(op);
  });
  for (Operation *op : ldsAccesses)
    countLdsAccess(op);

  // Workgroup attributions: one runtime buffer each, per workgroup.
  SmallVector<unsigned> attrArgs;
  for (unsigned i = nArgs; i < entry.getNumArguments(); ++i) {
    BlockArgument a = entry.getArgument(i);
    auto mt = cast<MemRefType>(a.getType());
    int64_t bytes = mt.getNumElements() * mt.getElementTypeBitWidth() / 8;
    Value p = call(b, lane::kShared,
                   {i32(b, i - nArgs), LLVM::ConstantOp::create(b, b.getI64Type(), bytes)},
                   {ptr});
    a.replaceAllUsesWith(memrefAt(b, p, mt));
    attrArgs.push_back(i);
  }
  for (unsigned i : llvm::reverse(attrArgs))
    entry.eraseArgument(i);
  // Views of a workgroup buffer (a ring's stages, memref.view) are now
  // views of host memory too.
  f.walk([&](memref::ViewOp v) {
    MemRefType src = v.getSource().getType(), res = v.getType();
    if (src.getMemorySpace() != res.getMemorySpace())
      v.getResult().setType(MemRefType::get(res.getShape(), res.getElementType(),
                                            res.getLayout(), src.getMemorySpace()));
  });

  SmallVector<Operation *> ops;
  SmallVector<amdgpu::FatRawBufferCastOp> views;
  f.walk([&](Operation *op) {
    if (op == f.getOperation())
      return;
    if (auto v = dyn_cast<amdgpu::FatRawBufferCastOp>(op))
      return views.push_back(v);
    auto intr = dyn_cast<LLVM::CallIntrinsicOp>(op);
    if (isa<LLVM::InlineAsmOp>(op) || (intr && intr.getIntrin() == "llvm.amdgcn.perm") ||
        (op->getDialect() && llvm::is_contained({"gpu", "amdgpu", "rocdl", "nvvm", "nvgpu"},
                                                op->getDialect()->getNamespace())))
      ops.push_back(op);
  });
  for (Operation *op : ops)
    rewriteOp(op);
  // Bounded views after the wave ops (their sites are reports, like the
  // bounds checks'), before the checks, which then guard the loads they
  // leave on the views' sources.
  for (amdgpu::FatRawBufferCastOp v : views)
    rewriteBoundedView(v);

  // Bounds checks, after the wave ops so that their sites keep their ids.
  if (checkBounds) {
    entryBlock = &entry;
    SmallVector<Operation *> accesses;
    f.walk([&](Operation *op) {
      if (isGuardedAccess(op) || isa<memref::SubViewOp>(op))
        accesses.push_back(op);
    });
    for (Operation *op : accesses) {
      if (auto sv = dyn_cast<memref::SubViewOp>(op))
        guardSubView(sv);
      else
        guardAccess(op);
    }
  }

  for (arith::ConstantOp c : ldsSites)
    c.setValueAttr(IntegerAttr::get(c.getType(), nextSite++));
  ldsSites.clear();

  // The entry the runtime calls: args[i] holds argument i (pointers as
  // integers).
  b.setInsertionPointToEnd(module.getBody());
  auto lanes = func::FuncOp::create(b, (k.getName() + "_lanes").str(),
                                    b.getFunctionType({ptr}, {}));
  Block *body = lanes.addEntryBlock();
  b.setInsertionPointToStart(body);
  SmallVector<Value> args;
  for (auto [i, t] : llvm::enumerate(argTypes)) {
    Value at = i ? ptrTy(b, body->getArgument(0), 8 * static_cast<int64_t>(i))
                 : Value(body->getArgument(0));
    Value v = LLVM::LoadOp::create(b, b.getI64Type(), at, 8);
    if (isa<LLVM::LLVMPointerType>(t))
      v = LLVM::IntToPtrOp::create(b, t, v);
    args.push_back(v);
  }
  func::CallOp::create(b, f, args);
  func::ReturnOp::create(b);

  SmallVector<gpu::LaunchFuncOp> launches;
  module.walk([&](gpu::LaunchFuncOp l) {
    if (l.getKernelModuleName() == gm.getName() && l.getKernelName() == k.getName())
      launches.push_back(l);
  });
  for (gpu::LaunchFuncOp l : launches)
    rewriteLaunch(l, lanes);
  return success();
}

Value Rewriter::tensorMapAt(ImplicitLocOpBuilder &b, ValueRange ops, unsigned at) {
  const KernelAbiArg &m = abi[at];
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) { return arith::ConstantIntOp::create(b, i64, v).getResult(); };
  auto asI64 = [&](Value v) {
    return isa<LLVM::LLVMPointerType>(v.getType()) ? LLVM::PtrToIntOp::create(b, i64, v).getResult()
                                                   : v;
  };
  int64_t rank = static_cast<int64_t>(m.shape.size());
  Value base, offset = c64(0);
  SmallVector<Value> sizes(rank), strides(rank);
  for (auto [i, e] : llvm::enumerate(abi)) {
    if (e.operand != m.operand || i >= ops.size())
      continue;
    if (e.part == AbiPart::Pointer)
      base = asI64(ops[i]);
    else if (e.part == AbiPart::Offset)
      offset = ops[i];
    else if (e.part == AbiPart::Size && e.dim < rank)
      sizes[e.dim] = ops[i];
    else if (e.part == AbiPart::Stride && e.dim < rank)
      strides[e.dim] = ops[i];
  }
  for (int64_t d = 0; d < rank; ++d)
    if (!sizes[d])
      sizes[d] = c64(m.shape[d]);
  // Strides neither static nor passed: an identity layout's, from the sizes.
  for (int64_t d = rank - 1; d >= 0; --d)
    if (!strides[d])
      strides[d] = m.strides[d] >= 0 ? c64(m.strides[d])
                   : d == rank - 1   ? c64(1)
                                     : Value(arith::MulIOp::create(b, strides[d + 1], sizes[d + 1]));
  Value eb = c64(m.elementBytes);
  base = arith::AddIOp::create(b, base, arith::MulIOp::create(b, offset, eb));
  SmallVector<Value> args{base, eb, c64(m.swizzle), c64(static_cast<int64_t>(m.tmapDims.size()))};
  for (int part = 0; part < 3; ++part)
    for (size_t i = 0; i < 5; ++i) {
      if (i >= m.tmapDims.size()) {
        args.push_back(c64(part == 2 ? 1 : 0));
        continue;
      }
      int64_t d = m.tmapDims[i];
      args.push_back(part == 0 ? sizes[d] : part == 1 ? strides[d] : c64(m.tmapBox[i]));
    }
  return call(b, lane::kTensorMap, args, {i64});
}

void Rewriter::rewriteLaunch(gpu::LaunchFuncOp launch, func::FuncOp lanes) {
  ImplicitLocOpBuilder b(launch.getLoc(), launch);
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type(), ptr = LLVM::LLVMPointerType::get(ctx);
  ValueRange ops = launch.getKernelOperands();
  Value n = LLVM::ConstantOp::create(b, i64, std::max<int64_t>(1, ops.size()));
  Value args = LLVM::AllocaOp::create(b, ptr, i64, n, /*alignment=*/8);
  for (auto [i, v] : llvm::enumerate(ops)) {
    Value x = isa<LLVM::LLVMPointerType>(v.getType())
                  ? LLVM::PtrToIntOp::create(b, i64, v).getResult()
                  : v;
    // A tensor map (the launch holds a null placeholder): the emulator's.
    if (i < abi.size() && abi[i].part == AbiPart::TensorMap)
      x = tensorMapAt(b, ops, i);
    LLVM::StoreOp::create(b, x, ptrTy(b, args, 8 * static_cast<int64_t>(i)), 8);
  }
  auto idx = [&](Value v) { return arith::IndexCastOp::create(b, i64, v); };
  gpu::KernelDim3 g = launch.getGridSizeOperandValues();
  gpu::KernelDim3 t = launch.getBlockSizeOperandValues();
  Value fn = func::ConstantOp::create(b, lanes.getFunctionType(), lanes.getSymName());
  Value wave = LLVM::ConstantOp::create(b, i64, chip.waveSize);
  call(b, lane::kLaunch,
       {fn, idx(g.x), idx(g.y), idx(g.z), idx(t.x), idx(t.y), idx(t.z), args, wave},
       {});
  launch.erase();
}

} // namespace

LogicalResult mlir::fmha::convertLanesToHost(ModuleOp module, bool checkBounds) {
  SmallVector<gpu::GPUModuleOp> gms(module.getOps<gpu::GPUModuleOp>());
  if (gms.empty())
    return module.emitError("fmha-lanes-to-host: no gpu.module to emulate "
                            "(run convert-fmha-to-gpu first)");
  // Check everything before changing anything.
  SmallVector<std::pair<Chip, gpu::GPUFuncOp>> kernels;
  for (gpu::GPUModuleOp gm : gms) {
    FailureOr<Chip> chip = chipOf(gm);
    if (failed(chip))
      return failure();
    for (gpu::GPUFuncOp k : gm.getOps<gpu::GPUFuncOp>()) {
      if (!k.isKernel())
        return k.emitOpError("fmha-lanes-to-host: only kernels are emulated");
      if (k.getNumPrivateAttributions())
        return k.emitOpError("fmha-lanes-to-host: private attributions are "
                             "not emulated");
      if (module.lookupSymbol(k.getName()) ||
          module.lookupSymbol((k.getName() + "_lanes").str()))
        return k.emitOpError("fmha-lanes-to-host: the module already has a "
                             "symbol named like the kernel");
      for (BlockArgument a : k.getWorkgroupAttributions()) {
        auto mt = dyn_cast<MemRefType>(a.getType());
        if (!mt || !mt.hasStaticShape() || !mt.getLayout().isIdentity())
          return k.emitOpError("fmha-lanes-to-host: workgroup attributions "
                               "must be static identity memrefs");
      }
      WalkResult r = k.walk([&](Operation *op) {
        if (op == k.getOperation())
          return WalkResult::advance();
        if (std::string why = unsupported(op); !why.empty()) {
          op->emitOpError("fmha-lanes-to-host (") << chip->name << "): the lane "
              "emulator has no semantics for " << why;
          return WalkResult::interrupt();
        }
        if (!checkBounds)
          return WalkResult::advance();
        if (std::string why = unguarded(op); !why.empty()) {
          op->emitOpError("fmha-lanes-to-host (") << chip->name << "): check-bounds "
              "has no guard for the memory access of " << why
              << " (check-bounds=false emulates it unchecked)";
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (r.wasInterrupted())
        return failure();
      kernels.push_back({*chip, k});
    }
  }
  WalkResult r = module.walk([&](gpu::LaunchFuncOp l) {
    for (Value v : l.getKernelOperands())
      if (!isa<LLVM::LLVMPointerType>(v.getType()) && !v.getType().isInteger(64)) {
        l.emitOpError("fmha-lanes-to-host: kernel operands must be pointers or "
                      "i64 (the flat ABI), got ")
            << v.getType();
        return WalkResult::interrupt();
      }
    if (l.getClusterSizeX() || l.getDynamicSharedMemorySize() ||
        l.getAsyncToken()) {
      l.emitOpError("fmha-lanes-to-host: clusters, dynamic shared memory and "
                    "async launches are not emulated");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();

  for (auto &[chip, k] : kernels) {
    Rewriter rw;
    rw.module = module;
    rw.chip = chip;
    rw.checkBounds = checkBounds;
    auto gm = k->getParentOfType<gpu::GPUModuleOp>();
    if (failed(rw.rewriteKernel(gm, k)))
      return failure();
  }
  for (gpu::GPUModuleOp gm : gms)
    gm.erase();
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  return success();
}

namespace {
struct ConvertLanesToHostPass
    : mlir::fmha::impl::ConvertLanesToHostBase<ConvertLanesToHostPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(mlir::fmha::convertLanesToHost(getOperation(), checkBounds)))
      signalPassFailure();
  }
};
} // namespace
