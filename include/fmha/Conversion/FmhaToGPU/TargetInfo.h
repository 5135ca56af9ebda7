//===- TargetInfo.h - per-vendor facts of the GPU lowering ------*- C++ -*-===//
//
// convert-fmha-to-gpu is one conversion for AMDGPU and NVIDIA. It decides what
// to compute (tiles, loops, LDS plan, online softmax); a TargetInfo says how,
// for one chip: the MMA atom and its fragment layouts, the fp8 pack, the
// cross-lane ops and the kernel attributes (docs/GPU_LOWERING.md, "TargetInfo: the vendor interface").
//
// Two kinds of methods:
// - Layout facts: plain integers the shared conversion plans with, and that a
//   unit test runs a lane-level emulation of the kernel on
//   (unittests/Conversion/FmhaToGPU). Each says whether it is a hardware fact
//   (from the vendor's ISA documents) or a choice the IR emitters must follow.
// - IR emitters: build the ops for one step on one lane, with the types of
//   `MmaAtom` (operand element e = byte e of the lane's packed registers).
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_CONVERSION_FMHATOGPU_TARGETINFO_H
#define FMHA_CONVERSION_FMHATOGPU_TARGETINFO_H

#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace mlir {
class Attribute;
class RewritePatternSet;
class TypeConverter;
class Location;
class MLIRContext;
class OpBuilder;
namespace gpu {
class GPUFuncOp;
} // namespace gpu

namespace fmha {
struct LaneContext;

/// One MMA instruction as the shared conversion sees it: D = A * B + C with A
/// `m x k`, B `k x n`, C/D `m x n` in f32. Per lane, A is
/// `vector<aPerLane x aElem>`, B `vector<bPerLane x bElem>`, C
/// `vector<accPerLane x f32>`.
struct MmaAtom {
  int64_t m, n, k;   // 32,32,16 (gfx942) | 32,32,64 (gfx950) | 16,8,32 (sm_90)
  Type aElem, bElem; // the type asked for, both operands
  int64_t aPerLane, bPerLane, accPerLane; // 8,8,16 | 32,32,16 | 16,8,4
  /// Bytes of one operand element: 1 (fp8) or 2 (bf16 / f16). k, aPerLane
  /// and bPerLane count BYTES, and the fragment methods name bytes: a 16-bit
  /// MMA's operands, read as bytes, are laid out as the fp8 MMA's with twice
  /// the k (gfx942 32x32x8 bf16 as 32x32x16 fp8, mma.sync m16n8k16 as
  /// m16n8k32, wgmma k16 as k32), so the lowering stages and loads bytes and
  /// only the MMA instruction, P's pack and the V transpose see elements.
  int64_t elemBytes = 1;
};

/// A fragment element's place in its matrix: (m, k) for A, (k, n) for B,
/// (m, n) for the accumulator.
struct FragElem {
  int64_t row, col;
  bool operator==(const FragElem &o) const {
    return row == o.row && col == o.col;
  }
};
using AccElem = FragElem;

/// One source operand of one packed fp8 convert instruction: `half` says which
/// 16 bits of the packed i32 the instruction fills (AMD: the word select of
/// v_cvt_pk_fp8_f32; NVIDIA: which cvt.e4m3x2 result goes low), `src` which of
/// its two f32 sources (0 = the first written).
struct Fp8PackSlot {
  int64_t half, src;
};

class TargetInfo {
public:
  virtual ~TargetInfo();

  //===--- identity and kernel shape --------------------------------------===//

  virtual StringRef chip() const = 0;
  /// Lanes per wave (AMD) or warp (NVIDIA): 64 | 32.
  virtual int64_t waveSize() const = 0;
  /// The gpu.module target: `#rocdl.target<chip = "gfx942">` |
  /// `#nvvm.target<chip = "sm_90", features = "+ptx84">` (PTX 8.4).
  virtual Attribute gpuModuleTarget(MLIRContext *ctx) const = 0;
  /// Address space of workgroup / shared memory: 3 on both
  /// (`#gpu.address_space<workgroup>` lowers to it).
  virtual unsigned sharedAddressSpace() const = 0;
  /// Bytes of LDS / static shared memory one workgroup may allocate.
  virtual int64_t sharedMemoryBytesPerBlock() const = 0;
  /// The most a workgroup may have with the launcher's opt-in (NVIDIA:
  /// dynamic shared memory up to 227 KiB); the rings of staged K/V tiles
  /// are checked against it.
  virtual int64_t maxSharedMemoryBytesPerBlock() const {
    return sharedMemoryBytesPerBlock();
  }
  /// Puts the kernel attributes on `f`.
  /// AMDGPU: `known_block_size = [threads, 1, 1]` (gives
  /// `amdgpu-flat-work-group-size`), `rocdl.waves_per_eu = minWavesPerSimd`,
  /// and `denormal_fp_math_f32 = "preserve-sign"` wherever exp2 may end up as
  /// `llvm.intr.exp2` (else LLVM wraps v_exp_f32 in a v_ldexp_f32 on P).
  /// NVIDIA: `known_block_size`, which gives `nvvm.maxntid`.
  virtual void setKernelAttrs(gpu::GPUFuncOp f, int64_t threads,
                              int64_t minWavesPerSimd) const = 0;

  //===--- MMA: layout facts ----------------------------------------------===//

  /// The MMA the chip uses for K/V of element type `kvElem` (both operands of
  /// that type), or nullopt when its MMA does not take that type: gfx942 FNUZ
  /// fp8 (`v_mfma_f32_32x32x16_fp8_fp8`), gfx950 OCP fp8
  /// (`v_mfma_f32_32x32x64_f8f6f4`), sm_90 OCP fp8 (`mma.sync m16n8k32`).
  /// The fragment methods below describe this atom.
  virtual std::optional<MmaAtom> mmaAtom(Type kvElem) const = 0;
  /// true: the wave computes S^T = K Q^T and O^T = V^T P^T, so the
  /// accumulator's column is the query (AMD: every register of a lane holds
  /// query lane % 32). false: S = Q K^T and O = P V, the row is the query
  /// (NVIDIA: a row lives in the 4 lanes of a quad).
  virtual bool transposedScores() const = 0;
  /// Hardware fact: the accumulator element that (lane, reg) holds.
  /// AMD: (8(v/4) + 4(l/32) + v%4, l%32); NVIDIA: (l/4 + 8(v/2), 2(l%4) + v%2).
  virtual AccElem accElem(int64_t lane, int64_t reg) const = 0;
  /// Hardware fact: the A element (row m, k) that byte `elem` of the lane's A
  /// operand holds. AMD K=16: (l%32, 8(l/32) + e); K=64 (fp8):
  /// (l%32, 16(l/32) + 32(e/16) + e%16); NVIDIA: (l/4 + 8((e/4)%2),
  /// 4(l%4) + e%4 + 16(e/8)).
  virtual FragElem aFragElem(int64_t lane, int64_t elem) const = 0;
  /// Hardware fact: the B element (k, col n) of byte `elem` of the lane's B
  /// operand. AMD: the k of aFragElem, col l%32 (properties P1, P2 of the doc);
  /// NVIDIA: (4(l%4) + e%4 + 16(e/4), l/4).
  virtual FragElem bFragElem(int64_t lane, int64_t elem) const = 0;
  /// The lane's k group: lanes of one group hold the same k values, in A and
  /// in B (P1), so any permutation of the contraction index that is the same
  /// for A and B is free. l/32 | l%4.
  virtual int64_t kGroupOfLane(int64_t lane) const = 0;
  /// Emission choice: where key `key` of a KV tile goes in the transposed V
  /// tile in LDS (`Vt[d][pvKeyPosition(key)]`), so that the PV product reads
  /// P straight from the score accumulators (no shuffle) and a lane's V
  /// operand is contiguous bytes. A permutation of each run of 16 (K=16,
  /// sm_90) or 64 (K=64) keys. gfx942: swap key bits 2 and 3; gfx950 K=64:
  /// rotate key bits 4..2 from (g1 g0 h) to (h g1 g0); sm_90:
  /// 16i + 8b1 + 2t + b0 -> 16i + 4t + 2b1 + b0.
  virtual int64_t pvKeyPosition(int64_t key) const = 0;

  //===--- MMA: IR --------------------------------------------------------===//

  /// acc + a * b for one atom; a, b, acc and the result have the types of
  /// `MmaAtom` (fp8 vectors, f32 vector).
  /// AMDGPU: `amdgpu.mfma 32x32x16` (gfx950 `32x32x64`) `%a * %b + %acc
  /// {blocks = 1} blgp = none`.
  /// NVIDIA: a, b bitcast to 4 x i32 / 2 x i32, then `llvm.inline_asm
  /// "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {$0,$1,$2,$3},
  /// {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};"` with constraints
  /// "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f".
  virtual Value mma(OpBuilder &b, Location loc, Value a, Value bOperand,
                    Value acc) const = 0;

  //===--- warpgroup MMA with B from shared memory (sm_90a) ----------------===//

  /// Hardware fact: one MMA instruction is issued by the whole workgroup (a
  /// warpgroup of four warps, wgmma.m64nNk32) and covers the full N extent
  /// of a tile; its B operand (and, in the SS form, its A) is read from a
  /// staged LDS tile through a descriptor, a register A operand is the
  /// per-warp `aFragElem` registers, its result the per-warp accumulators
  /// of `accElem` repeated N / atom.n times. false on AMDGPU and sm_90 (one
  /// `mma` per atom, both operands in registers).
  virtual bool warpgroupMma() const { return false; }
  /// Emission choice: the swizzle width in bytes of a staged Q / K / V^T tile
  /// whose rows hold `rowBytes`: 0 = rows as they are (AMDGPU, sm_90). For
  /// a width W the tile is stored as rowBytes / W column groups of W-byte
  /// rows, one after the other, and the 16-byte chunk c of row r of a group
  /// sits at chunk c ^ ((r / (128 / W)) % (W / 16)) (the 128B / 64B / 32B
  /// swizzle of wgmma descriptors). sm_90a: the widest of 128, 64 and 32 that
  /// divides rowBytes (0 when none does).
  virtual int64_t ldsSwizzleBytes(int64_t rowBytes) const { return 0; }
  /// Emission choice: the k steps one chain accumulates inside the MMA
  /// before its sum is added in f32 registers. sm_90a: 2 for S = Q K^T.
  /// Hopper's FP8 wgmma keeps 14 significant bits a step
  /// (fmha/Reference/MmaSum.h); measured on the H200 with spread data (page
  /// 16, causal, 16/16 heads): a whole 4-step S chain gives a row error of
  /// 0.090 against the oracle (bar 0.07), 2 steps 0.054, 1 step 0.056
  /// (bench/NOTES.md).
  virtual int64_t warpgroupMmaPromoteSteps() const { return 1; }
  /// The same for an fp8 P V chain. sm_90a: 4 (a whole chain at block_n
  /// 128): with the wgmma's sums modelled bit for bit, the lane emulator
  /// gives that case the same worst row (0.0536) as 2 steps, where a 4-step
  /// S chain gives 0.090; 64 f32 adds a tile and thread fewer
  /// (bench/NOTES.md, 2026-12-05).
  virtual int64_t warpgroupMmaPvPromoteSteps() const {
    return warpgroupMmaPromoteSteps();
  }
  /// A chain of warpgroup MMAs, waited for: acc + sum over steps c of
  /// A_c * B_c. A_c is one k step of the A operand: `a.regs[c]`
  /// (vector<aPerLane x fp8>, the RS form) or, when `a.regs` is empty, the
  /// 64 rows x 32 bytes at byte a.offsets[c] of the staged tile at shared
  /// address a.ldsBase whose rows hold a.rowBytes (the SS form). B_c
  /// (element type `bElem`) is the `n` rows x 32 bytes at byte offsets[c]
  /// of the staged tile at `ldsBase` whose rows hold `rowBytes`; staged
  /// tiles are 1024-aligned, in `ldsSwizzleBytes` layout. `acc` is
  /// vector<n / 2 x f32> (n / 8 accumulators of 4), or null for a chain
  /// from zero. sm_90a: a fence every register operand passes through, one
  /// inline `wgmma.mma_async.sync.aligned.m64n<n>k32.f32.<a>.<b>` per step
  /// (inline PTX: MLIR 22 has no RS op; the first step of a chain from zero
  /// with scale-d = 0), `wgmma.commit_group`, and a wait the accumulators
  /// pass through.
  struct WarpgroupOperandA {
    SmallVector<Value> regs;
    Value ldsBase;
    SmallVector<int64_t> offsets;
    int64_t rowBytes = 0;
  };
  Value warpgroupMmaChain(OpBuilder &b, Location loc, const WarpgroupOperandA &a,
                          Type aElem, Type bElem, Value ldsBase,
                          ArrayRef<int64_t> offsets, int64_t n, int64_t rowBytes,
                          Value acc) const;
  /// Several independent chains (A operand, B offsets, acc) with the same
  /// B tile, in flight together: one fence for all their register
  /// operands, every chain's steps, one commit and one wait all their
  /// accumulators pass through; their results in order. The pieces of one
  /// promoted chain (warpgroupMmaPromoteSteps) go this way, so the tensor
  /// core runs the second piece while the first drains instead of the
  /// warpgroup waiting for each.
  struct WarpgroupChain {
    WarpgroupOperandA a;
    SmallVector<int64_t> offsets;
    Value acc;
  };
  SmallVector<Value> warpgroupMmaChains(OpBuilder &b, Location loc,
                                        ArrayRef<WarpgroupChain> chains, Type aElem,
                                        Type bElem, Value ldsBase, int64_t n,
                                        int64_t rowBytes) const;
  /// warpgroupMmaChains in two halves: the start (fence, steps, commit)
  /// gives the chains' accumulators in flight, which nothing may read
  /// before warpgroupMmaWait (all of them at once: they pass through the
  /// wait) returns them; the lanes run other work between (an
  /// fmha.mma_wait after its fmha.tile_mma).
  virtual SmallVector<Value>
  warpgroupMmaChainsStart(OpBuilder &b, Location loc, ArrayRef<WarpgroupChain> chains,
                          Type aElem, Type bElem, Value ldsBase, int64_t n,
                          int64_t rowBytes) const;
  /// Waits until at most `pending` of the warpgroup's committed groups
  /// are in flight (`wgmma.wait_group pending`); `inFlight` are the
  /// accumulators of the groups it waits for, which pass through it (the
  /// pending groups' accumulators must not: they pass through a later wait).
  virtual SmallVector<Value> warpgroupMmaWait(OpBuilder &b, Location loc,
                                              ArrayRef<Value> inFlight,
                                              int64_t pending = 0) const;
  /// An fp8 S = Q K^T of N = 128 keys in two promoted pieces from zero
  /// (D 128), not waited for by an fmha.mma_wait, issued as the tile's two
  /// key halves (m64n64): the first half's pieces and the second's
  /// first piece in flight, the first half waited for and summed, then the
  /// second's second piece: 3 x N / 4 accumulators at the peak where the
  /// whole-N pieces held N (MmaPatterns.cpp). The sums per element are the
  /// same.
  virtual bool scoreInHalves() const { return false; }
  /// An fp8 P V of one chain from zero on the scalar-vd route whose o is
  /// `n` columns wide is issued in column pieces (a few in flight, each
  /// added to o as it lands), so that o and one full-width chain are never
  /// live together (D 256 on sm_90a: 128 + 128 accumulators a lane).
  virtual bool pvInColumnPieces(int64_t n) const { return false; }

  //===--- elementwise ----------------------------------------------------===//

  /// 2^x of an f32 that becomes one hardware exp.
  /// AMDGPU: `rocdl.exp2` (a bare v_exp_f32; never `math.exp2`, which becomes
  /// an `__ocml` call). NVIDIA: inline `ex2.approx.ftz.f32` (convert-gpu-to-nvvm
  /// rejects an `llvm.intr.exp2` already in the IR).
  virtual Value exp2(OpBuilder &b, Location loc, Value x) const = 0;
  /// max(a, b) of f32 scalars or vectors, NaN-ignoring (IEEE maxNum), with
  /// no library call. AMDGPU: `arith.maxnumf` (v_max_f32). NVIDIA:
  /// `llvm.intr.maxnum` (max.f32): convert-gpu-to-nvvm turns `arith.maxnumf`
  /// into a call of libdevice's `__nv_fmaxf`, which a machine without CUDA
  /// cannot link, leaving the PTX with an unresolved function.
  virtual Value maxF(OpBuilder &b, Location loc, Value x, Value y) const;
  /// log2(x) of an f32 as one hardware instruction (lse epilogue).
  /// AMDGPU: `rocdl.log` (v_log_f32). NVIDIA: inline `lg2.approx.ftz.f32`.
  virtual Value log2(OpBuilder &b, Location loc, Value x) const = 0;
  /// Hardware fact: the byte of the packed i32 that source `src` of the
  /// instruction filling half `half` lands in. AMD v_cvt_pk_fp8_f32: srcA in
  /// the low byte of the selected word, 2*half + src. NVIDIA
  /// cvt.rn.satfinite.e4m3x2.f32 d, a, b: a in the upper byte,
  /// 2*half + 1 - src.
  virtual int64_t fp8PackedByte(int64_t half, int64_t src) const = 0;
  /// Emission choice: the (half, src) that packFp8x4 feeds value i (0..3) to.
  /// Must give byte i = value i through fp8PackedByte; AMD (i/2, i%2), NVIDIA
  /// (i/2, 1 - i%2), i.e. pass (v1, v0).
  virtual Fp8PackSlot packFp8x4Slot(int64_t value) const = 0;
  /// 4 f32 -> 4 fp8 of type `fp8` in one i32, byte i = value i (round to
  /// nearest, saturating where the instruction does), per packFp8x4Slot.
  /// AMDGPU: 2 x `rocdl.cvt.pk.fp8.f32 %v0, %v1 -> %old[false|true] : i32`.
  /// NVIDIA: 2 x `llvm.inline_asm "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;"`
  /// ("=h,f,f") on (v1, v0) and (v3, v2), then the two i16 joined low, high.
  virtual Value packFp8x4(OpBuilder &b, Location loc, ArrayRef<Value> f32x4,
                          Type fp8) const = 0;
  /// Whether permuteBytes is implemented: the V transpose then uses it
  /// (16 bytes of 4 keys in 8 byte permutes per 4 words) instead of
  /// vector.shuffle, which LLVM lowers byte by byte.
  virtual bool hasBytePermute() const { return false; }
  /// Emission choice for the V transpose's lanes: true, the lanes of a wave
  /// take consecutive words of V^T's key axis in one 16-byte d chunk, so one
  /// store instruction writes one V^T row's words (no two lanes in one
  /// shared-memory bank: NVIDIA, 128B-swizzled V^T); false, consecutive
  /// lanes take the chunks of one word's keys, whose loads are consecutive
  /// bytes of one row (AMDGPU: its per-wave bounded views need a wave's
  /// rows in one page).
  virtual bool transposeByKeyGroups() const { return false; }
  /// Emission choice: whether the PV product reads its V operand from V
  /// staged row-major (like K) by transpose loads, instead of V^T that the
  /// lanes transpose while staging. AMDGPU gfx950 with the 32x32x64 fp8
  /// MFMA: true (ds_read_b64_tr_b8; no byte permutes, no V^T stores).
  virtual bool transposeLoadsV() const { return false; }
  /// Emission choice: a TargetInfo::schedulingFence after the S = Q K^T
  /// MMAs of a tile, so that all of them issue before the row max reads
  /// the first. AMDGPU gfx950 with the 32x32x64 MFMA: true (its results
  /// are read by VALU only 18 wait states after issue; with the max of an
  /// atom scheduled behind that atom's chain the loop had 10 hazard s_nop,
  /// now 7: 424 -> 421 instructions, 681 -> 679 modelled cycles; on gfx942
  /// the fence changed nothing but spilled 4 SGPRs at page 64).
  virtual bool fenceAfterScoreMmas() const { return false; }
  /// Emission choice: a masked tile's selects in groups of this many
  /// elements of an atom, each group's compares right before its selects
  /// and a TargetInfo::schedulingFence after it (0: an atom at a time).
  /// AMDGPU: each compare is a lane mask, an SGPR pair once two are live;
  /// with a fence an atom LLVM could issue an atom's 16 compares together
  /// (gfx950 page 16's masked-tile loop: 60 compares into SGPR pairs).
  virtual int64_t maskSelectsPerFence() const { return 0; }
  /// Emission choice: a K tile gathered right before its V tile (same page
  /// ids, nothing between but page-id and descale reads) writes LDS after
  /// V's global loads are issued, so both tiles' loads are in flight
  /// together: one load wait a tile instead of two. AMDGPU: true (llvm-mca
  /// charged the second wait 74 cycles at gfx942 page 64, where V's
  /// loads followed K's LDS stores; docs/AMDGPU_STATIC_REPORT.md).
  virtual bool batchKVLoads() const { return false; }
  /// Hardware fact: a wave-wide transpose load of 8 one-byte elements per
  /// lane from `lds` (i8 workgroup memory) at this lane's byte offset `at`
  /// (a multiple of 8). In each group of 16 lanes (base G), byte j of lane
  /// L's result is byte L % 8 of the 8 bytes lane G + ((L / 8) % 2) + 2j
  /// addresses. AMDGPU gfx950: `amdgpu.transpose_load` (ds_read_b64_tr_b8);
  /// the lane emulator's runtime implements the same rule (LaneRuntime.cpp).
  virtual Value transposeLoad8(OpBuilder &b, Location loc, Value lds,
                               Value at) const {
    llvm_unreachable("no transpose loads on this chip");
  }
  /// Whether f32 divisions may use the chip's reciprocal (1 ulp, `arcp`)
  /// instead of IEEE division. AMDGPU: v_rcp_f32 + v_mul_f32 (about 10
  /// instructions fewer per division, one per KV tile on the scalar-vd
  /// route).
  virtual bool fastReciprocal() const { return false; }
  /// One i32 from the eight bytes of {a (bytes 0-3), b (bytes 4-7)}: byte i
  /// of the result is byte ((sel >> 8i) & 0xFF) of them (0-7 only), for the
  /// V transpose in registers. AMDGPU: `llvm.amdgcn.perm` (v_perm_b32 d, b,
  /// a, sel: its source 0 holds bytes 4-7); NVIDIA: not yet (`prmt.b32`, a
  /// nibble selector, would be).
  virtual Value permuteBytes(OpBuilder &b, Location loc, Value a, Value bv,
                             uint32_t sel) const = 0;

  //===--- memory ---------------------------------------------------------===//

  /// `view` (a global memref whose base is wave-uniform) as a view whose
  /// loads take a uniform base plus a lane's 32-bit offset and read zero at
  /// byte offsets from `validBytes` (i64) on; null where the chip has no
  /// such view (the lowering then adds per-lane 64-bit addresses and selects
  /// zero itself). Loads through it must lie wholly below or wholly at or
  /// above `validBytes` (the lane emulator reports one that straddles it).
  /// AMDGPU: `amdgpu.fat_raw_buffer_cast ... resetOffset` (a buffer resource
  /// in SGPRs, buffer_load with a VGPR offset). NVIDIA: null.
  virtual Value boundedView(OpBuilder &b, Location loc, Value view,
                            Value validBytes) const {
    return {};
  }
  /// Whether boundedView gives views (AMDGPU) or null (NVIDIA).
  virtual bool hasBoundedViews() const { return false; }
  /// `mem` (a kernel input the kernel never writes: the page table, the
  /// descales) as the view its loads should go through in a kernel that
  /// loads into LDS (LaneContext::readOnly). AMDGPU: the constant address
  /// space (4), whose uniform loads are always scalar (LLVM cannot prove a
  /// global load unclobbered past an LDS load, which may write any memory
  /// its resource points to, and would read them per lane). Else `mem`.
  virtual Value readOnlyInput(OpBuilder &b, Location loc, Value mem) const { return mem; }
  /// The bytes a lane's loadToLds writes (ChipInfo::ldsLoadBytes: 16 on
  /// gfx950, 4 on gfx942), 0 where the chip has no such load.
  virtual int64_t ldsLoadBytes() const { return 0; }
  /// ldsLoadBytes() bytes of `view` (a boundedView) at `ix` written
  /// straight into the workgroup buffer `lds` (i8) at byte `ldsIx`
  /// (index), no register in between: `amdgpu.gather_to_lds`
  /// (buffer_load_dwordx4 / buffer_load_dword ... lds). The hardware writes
  /// lane l's bytes at the wave's first lane's `ldsIx` + ldsLoadBytes() x l,
  /// whatever index the other lanes name (callers give every lane that
  /// first index; the lane emulator writes where the hardware does); they
  /// are in LDS once the wave's loads are waited for (waitLdsLoads) and
  /// visible to other waves after a barrier.
  virtual void loadToLds(OpBuilder &b, Location loc, Value view, ValueRange ix,
                         Value lds, Value ldsIx) const;
  /// Waits until every loadToLds of the lane (its wave) has landed:
  /// `amdgpu.memory_counter_wait load(0)` (s_waitcnt vmcnt(0): the count
  /// is of all the wave's vector memory loads, so only 0 names a group).
  virtual void waitLdsLoads(OpBuilder &b, Location loc) const;
  /// Whether wave-uniform reads are scalar loads (AMDGPU: s_load_dword*):
  /// a run of 2, 4, 8 or 16 consecutive words from a 4-byte aligned
  /// address is one instruction, so a full tile's page ids are read
  /// together (MemoryPatterns tilePageId), and a 32-bit byte offset is the
  /// load's operand, so a descale's offset is formed as id * (4 * stride)
  /// (no shift a load) and a per-key id, always the sequence's, is not
  /// guarded. NVIDIA: false (each thread loads; wider loads need wider
  /// alignment; its descale reads stay as the H100 ran them).
  virtual bool uniformWordRuns() const { return false; }
  /// Whether a lane's value among a few wave-uniform ones is cheaper as a
  /// chain of selects (AMDGPU: v_cndmask on SGPR values) than as its own
  /// load (a per-lane page-table read whose latency the V^T staging
  /// waits for). NVIDIA: false.
  virtual bool selectsOverLaneLoads() const { return false; }

  //===--- cross-lane and sync --------------------------------------------===//

  /// The value of lane `lane ^ mask` (32-bit types).
  /// AMDGPU: `gpu.shuffle xor %v, mask, 64` (ds_swizzle below 32, ds_bpermute
  /// for 32 on gfx942, v_permlane32_swap on gfx950). NVIDIA: `gpu.shuffle xor
  /// %v, mask, 32` (shfl.sync.bfly.b32). Both are `gpu.shuffle xor` over
  /// the wave, which is what the base class emits.
  virtual Value shuffleXor(OpBuilder &b, Location loc, Value v,
                           int64_t mask) const;
  /// combine(v, v of lane `lane ^ mask`) for a commutative, associative
  /// `combine` (a max or a sum of a row reduction): every lane gets the same
  /// value as from shuffleXor. The base class combines with shuffleXor.
  /// gfx950, mask 32: `rocdl.permlane32.swap %v, %v` gives one register
  /// with lanes 0-31 in both halves and one with lanes 32-63 in both halves;
  /// combining the two needs no lane select (v_mov + v_permlane32_swap_b32
  /// + the combine, where shuffleXor took 2 v_mov, the swap, v_cmp and
  /// v_cndmask).
  virtual Value combineXor(OpBuilder &b, Location loc, Value v, int64_t mask,
                           function_ref<Value(Value, Value)> combine) const;
  /// Whether wave-uniform values the kernel loads and carries (a tile's
  /// prefetched descales) should live in vector registers: where the kernel
  /// has vector registers to spare and scalar ones are scarce. AMDGPU: a
  /// kernel of one wave per SIMD (`rocdl.waves_per_eu` 1: D 256), whose SGPRs
  /// were at the 106 limit; kept as SGPRs its descales spilled 4 SGPRs
  /// (gfx942) and 2 (gfx950). Elsewhere false.
  virtual bool uniformValuesInVectorRegs(Operation *kernel) const { return false; }
  /// Whether the group count of a loop fmha-unroll-kv-loop unrolled is
  /// stated wave-uniform (broadcastFirstLane) before the loop. AMDGPU
  /// gfx950: without it LLVM kept the counter in a VGPR with a VALU compare
  /// (and llvm-mca hung on that loop); gfx942 already counts it in SGPRs,
  /// where the broadcast's SGPR cost 2 SGPR spills (D 128 and D 64, 106
  /// SGPRs). Measured 2026-12-06, tenth session. Elsewhere false.
  virtual bool uniformUnrolledCount() const { return false; }
  /// A wave-uniform copy of `v` (lane 0's value).
  /// AMDGPU: `rocdl.readfirstlane` (v_readfirstlane_b32, an SGPR).
  /// NVIDIA: `gpu.shuffle idx %v, 0, 32` (shfl.sync.idx.b32).
  virtual Value broadcastFirstLane(OpBuilder &b, Location loc,
                                   Value v) const = 0;
  /// Lanes of a group (lanes base + stride * i, i < this, a power of two;
  /// LaneLayout.h SpreadPlan) in which every lane can read one lane's
  /// register in one cheap instruction (broadcastInGroup); 0 where the chip
  /// has none. AMDGPU: 16 consecutive lanes, a DPP row (`row_newbcast`,
  /// gfx90a and later: a VALU move, no LDS). NVIDIA: the 8 lanes of one
  /// lane % 4 (stride 4), which hold the same score columns
  /// (`shfl.sync.idx`).
  virtual int64_t groupBroadcastLanes() const { return 0; }
  /// The lane stride of such a group (lanes base + stride * i). AMDGPU: 1.
  virtual int64_t groupBroadcastStride() const { return 1; }
  /// Every lane's copy of `v` (32 bits) from place `idx` of its group
  /// (`lane` is the lane's index in its wave). AMDGPU: `rocdl.update.dpp`
  /// with row_newbcast:idx (v_mov_b32_dpp), all rows and banks; NVIDIA:
  /// `gpu.shuffle idx` from lane (lane % stride) + stride * idx.
  virtual Value broadcastInGroup(OpBuilder &b, Location loc, Value v, int64_t idx,
                                 Value lane) const;
  /// Layout fact: after an in-lane reduction over the lane's registers of one
  /// query, these shuffleXor steps finish a row reduction: {32} | {1, 2}.
  virtual SmallVector<int64_t> rowReduceXorMasks() const = 0;
  /// A point the instruction scheduler may not move ALU work across (MMAs
  /// may cross), to bound how many values of an unrolled sequence are live.
  /// AMDGPU: `amdgpu.sched_barrier allow = <mfma_wmma>`; NVIDIA: nothing.
  virtual void schedulingFence(OpBuilder &b, Location loc) const;
  /// A point the instruction scheduler moves nothing across, MMAs
  /// included: loads issued before it stay in front of the products after
  /// it. AMDGPU: `amdgpu.sched_barrier allow = <none>`; NVIDIA: nothing.
  virtual void scheduleBoundary(OpBuilder &b, Location loc) const {}
  /// Workgroup barrier: `gpu.barrier` (s_waitcnt lgkmcnt(0) + s_barrier on
  /// AMDGPU, bar.sync 0 on NVIDIA).
  virtual void barrier(OpBuilder &b, Location loc) const = 0;
  /// The barrier between the lanes' stores into a staged tile and the MMA
  /// that reads it: `barrier`, and on sm_90a first
  /// `fence.proxy.async.shared::cta` (wgmma reads shared memory through the
  /// async proxy; the stores are generic-proxy writes).
  virtual void barrierAfterLdsWrites(OpBuilder &b, Location loc) const {
    barrier(b, loc);
  }

  //===--- asynchronous copies (fmha.stage_kv / fmha.staged_kv) -----------===//

  /// Copies from global to shared memory that complete in groups the lane
  /// waits for (cp.async on NVIDIA); without them fmha-pipeline-kv-stages
  /// is not run and a staged tile is refused.
  virtual bool hasAsyncCopies() const { return false; }
  /// Starts one 16-byte copy of `src` at `srcIx` (global, bytes) to `dst` at
  /// byte `dstIx` (shared): `nvgpu.device_async_copy` (cp.async.cg ... 16).
  virtual void asyncCopy16(OpBuilder &b, Location loc, Value dst, Value dstIx,
                           Value src, ValueRange srcIx) const;
  /// Ends the lane's current group of copies (cp.async.commit_group).
  virtual void asyncCommit(OpBuilder &b, Location loc) const;
  /// Waits until at most `pending` of the lane's groups are in flight
  /// (cp.async.wait_group pending).
  virtual void asyncWait(OpBuilder &b, Location loc, int64_t pending) const;

  //===--- warp roles (fmha.warp_roles) -----------------------------------===//

  /// Warpgroups of one workgroup in different roles, synchronised by
  /// mbarriers and named barriers (sm_90a); without them fmha.warp_roles is
  /// refused.
  virtual bool hasWarpRoles() const { return false; }
  /// A barrier of the `threads` threads (whole warps) that use barrier `id`
  /// (i32): `bar.sync id, threads` (`nvvm.barrier`).
  virtual void groupBarrier(OpBuilder &b, Location loc, Value id,
                            int64_t threads) const;
  /// An arrival at barrier `id` (i32) of `threads` threads that does not
  /// wait for the others: `bar.arrive id, threads` (`nvvm.barrier.arrive`).
  virtual void groupArrive(OpBuilder &b, Location loc, Value id, int64_t threads) const;
  /// groupBarrier after the lanes' stores into a staged tile, before the
  /// MMA that reads it (barrierAfterLdsWrites for one group).
  virtual void groupBarrierAfterLdsWrites(OpBuilder &b, Location loc, Value id,
                                          int64_t threads) const {
    groupBarrier(b, loc, id, threads);
  }
  /// The mbarrier (8 bytes of shared memory at `addr`, an `!llvm.ptr<3>`):
  /// init with `count` arrivals a phase (one thread), then the fence that
  /// makes inits visible to the other threads' mbarrier ops.
  virtual void mbarrierInit(OpBuilder &b, Location loc, Value addr,
                            int64_t count) const;
  virtual void mbarrierInitFence(OpBuilder &b, Location loc) const;
  /// One arrival (release: the lane's earlier writes are seen by a waiter).
  virtual void mbarrierArrive(OpBuilder &b, Location loc, Value addr) const;
  /// One arrival once the lane's asynchronous copies started so far have
  /// landed (cp.async.mbarrier.arrive.noinc).
  virtual void mbarrierArriveOnCopies(OpBuilder &b, Location loc, Value addr) const;
  /// Waits until the phase of parity `parity` (i32, 0 or 1) completed.
  virtual void mbarrierWait(OpBuilder &b, Location loc, Value addr,
                            Value parity) const;
  /// Orders the lane's earlier shared-memory stores before later reads of
  /// them by the asynchronous proxy (the warpgroup MMA):
  /// `fence.proxy.async.shared::cta`.
  virtual void asyncProxyFence(OpBuilder &b, Location loc) const;
  /// The role's registers per thread (setmaxnreg.inc / .dec).
  virtual void setRegisters(OpBuilder &b, Location loc, int64_t regs,
                            bool increase) const;
  /// TMA (sm_90a): one arrival that also expects `bytes` more bytes of
  /// copies on the mbarrier (mbarrier.arrive.expect_tx).
  virtual void mbarrierArriveExpectTx(OpBuilder &b, Location loc, Value addr,
                                      int64_t bytes) const;
  /// TMA (sm_90a): starts copying the box of tensor map `map` (a generic
  /// `!llvm.ptr`) at `coords` (i32, innermost first) to shared address
  /// `dst` (`!llvm.ptr<3>`), its bytes counted on mbarrier `mbar`
  /// (cp.async.bulk.tensor ... mbarrier::complete_tx::bytes).
  virtual void tmaLoad(OpBuilder &b, Location loc, Value dst, Value map,
                       ValueRange coords, Value mbar) const;

  //===--- vendor patterns ------------------------------------------------===//

  /// Patterns of the lane lowering this vendor adds at `benefit`, above the
  /// shared ones (LanePatterns.h): a vendor replaces the shared lowering of
  /// an op with a pattern of its own instead of a new hook here. They read
  /// the kernel's LaneContext and must produce the values its LaneForms
  /// give the op's results. None on AMDGPU or NVIDIA today.
  virtual void populateLanePatterns(const TypeConverter &tc,
                                    RewritePatternSet &patterns,
                                    const LaneContext &lc,
                                    unsigned benefit) const;
};

/// The TargetInfo of a GPU chip of the chip table (fmha/Support/Chips.h:
/// gfx942, gfx950, sm_90, sm_90a), or null for any other. `kStep` picks the chip's
/// fp8 MMA with that K step (gfx950: 64 or 16, v_mfma_f32_32x32x16_fp8_fp8);
/// 0 takes the chip's default; a K step the chip has no MMA for gives null.
/// `elemBytes` 2 takes the chip's 16-bit MMA (mma16, K step in elements)
/// for bf16 / f16 K/V.
std::unique_ptr<TargetInfo> createTargetInfo(StringRef chip, int64_t kStep = 0,
                                             int64_t elemBytes = 1);
/// The same, per vendor: null unless an AMDGPU chip, unless an NVIDIA chip
/// (and null for a K step without an MMA, e.g. sm_90 with anything but 32).
std::unique_ptr<TargetInfo> createAMDGPUTargetInfo(StringRef chip,
                                                   int64_t kStep = 0,
                                                   int64_t elemBytes = 1);
std::unique_ptr<TargetInfo> createNVVMTargetInfo(StringRef chip,
                                                 int64_t kStep = 0,
                                                 int64_t elemBytes = 1);

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_FMHATOGPU_TARGETINFO_H
