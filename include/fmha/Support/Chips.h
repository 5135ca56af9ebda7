//===- Chips.h - the one table of chip facts --------------------*- C++ -*-===//
//
// Every fact about a chip that the compiler uses lives in one table here:
// vendor, wave size, the config defaults (warps, block sizes), the MMA atoms
// per element type, the fp8 family the MMA takes, LDS / shared memory per
// workgroup and per CU, SIMDs per CU, the VGPR occupancy rule and the
// gpu.module target. fmha-select-config, the TargetInfo factories, Compile,
// the AMDGPU manifest, the pipelines, the API and the tools read it.
//
// The library depends on LLVM Support only, so that the dialect transforms,
// the conversions and the target back ends all link it without a cycle.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_TARGET_CHIPS_H
#define FMHA_TARGET_CHIPS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace fmha {

/// Who makes the chip, i.e. which back end compiles for it. `Host` is the
/// pseudo-chip of the CPU path (scalar loops, no MMA).
enum class ChipVendor { AMDGPU, NVIDIA, Host };

/// Which vendors a chip list keeps (a bit set of ChipVendor).
enum ChipVendorMask : unsigned {
  kAMDGPUChips = 1u << 0,
  kNVIDIAChips = 1u << 1,
  kHostChip = 1u << 2,
  kGPUChips = kAMDGPUChips | kNVIDIAChips,
  kAllChips = kGPUChips | kHostChip,
};

/// The fp8 types a chip's MMA takes: FNUZ (f8E4M3FNUZ, f8E5M2FNUZ), OCP
/// (f8E4M3FN, f8E5M2), or either (the host computes in f32).
enum class Fp8Family { Any, OcpOnly, FnuzOnly };

/// One MMA instruction: D (m x n) += A (m x k) * B (k x n).
struct MmaShape {
  int64_t m = 0, n = 0, k = 0;
};

/// The VGPR side of occupancy on a chip with one unified VGPR+AGPR file:
///   waves per SIMD = min(maxWaves, floor(vgprsPerLane / alignTo(max(v, 1),
///   granule))).
struct VgprOccupancy {
  int64_t vgprsPerLane = 0, granule = 0, maxWaves = 0;
};

struct ChipInfo {
  const char *name;
  ChipVendor vendor;
  /// Lanes per wave (AMD) / warp (NVIDIA); 1 on the host.
  int64_t waveSize;
  /// fmha-select-config's defaults: waves per workgroup, BlockM, BlockN for
  /// fp8 and for 16-bit caches.
  int64_t warps, blockM, blockNFp8, blockN16;
  /// The fp8 MMAs, the default first; k = 0 marks an unused slot.
  MmaShape fp8Mma[2];
  /// The 16-bit (bf16 / f16) MMA.
  MmaShape mma16;
  Fp8Family fp8Family;
  /// LDS / shared memory bytes one workgroup may allocate (sm_90: static
  /// `workgroup` attributions, capped at 48 KiB by ptxas) and bytes per CU /
  /// SM; 0 on the host.
  int64_t ldsBytesPerWorkgroup, ldsBytesPerCu;
  /// SIMDs per CU (AMD); 0 where Compile does not compute occupancy.
  int64_t simdsPerCu;
  /// VGPR occupancy rule; all 0 where there is none.
  VgprOccupancy vgprOccupancy;
  /// The gpu.module target: LLVM triple and target features ("" on the host).
  const char *triple, *features;
  /// sm_90a: the fp8 MMA is issued by a warpgroup of four warps (wgmma
  /// m64nNk32, N the whole tile), its B operand read from 128-byte (or
  /// narrower) swizzled shared memory through a descriptor; `fp8Mma` is one
  /// warp's m16n8 slice of it, whose register layout equals mma.sync
  /// m16n8k32's (docs/GPU_LOWERING.md, "sm_90a").
  bool warpgroupMma;
  /// sm_90a: a wgmma chain of S = Q K^T is summed in f32 every this many
  /// k steps (pieces from zero): the MMA keeps 14 significant bits a step
  /// (fmha/Reference/MmaSum.h), a whole 4-step S chain missed the
  /// spread-data row bar at page 16 (bench/NOTES.md, 2026-12-01). 0
  /// elsewhere.
  int64_t wgmmaFp8PromoteSteps = 0;
  /// The same for an fp8 P V chain (4 on sm_90a: a whole chain at block_n
  /// 128; bench/NOTES.md, 2026-12-05). 0 elsewhere.
  int64_t wgmmaFp8PvPromoteSteps = 0;
  /// gfx950 (CDNA4): v_permlane32_swap_b32 swaps a register's lanes 32-63
  /// with another's lanes 0-31 (TargetInfo::combineXor, mask 32).
  bool permlane32Swap = false;
  /// gfx950: the group count of an unrolled KV loop is stated wave-uniform
  /// (TargetInfo::uniformUnrolledCount; measured 2026-12-06: without it the
  /// counter lived in a VGPR, on gfx942 the statement cost 2 SGPR spills).
  bool uniformUnrolledCount = false;
  /// The bytes a lane's buffer load writes straight into LDS, each lane's
  /// at the wave's LDS base + bytes x lane (TargetInfo::loadToLds): 16 on
  /// gfx950 (CDNA4, buffer_load_dwordx4 ... lds), 4 on gfx942
  /// (buffer_load_dword ... lds); 0 where the chip has no such load.
  int64_t ldsLoadBytes = 0;

  /// The promote steps of S (pv false) or of P V when fp8 products run on
  /// this chip's warpgroup MMA (the emulating reference's
  /// wgmma_fp8_promote / wgmma_fp8_promote_pv), else 0.
  int64_t fp8WgmmaPromote(bool fp8Operands, bool pv = false) const {
    if (!warpgroupMma || !fp8Operands)
      return 0;
    return pv ? wgmmaFp8PvPromoteSteps : wgmmaFp8PromoteSteps;
  }

  bool isGPU() const { return vendor != ChipVendor::Host; }
  /// The fp8 MMAs of the chip, the default first.
  llvm::ArrayRef<MmaShape> fp8Mmas() const {
    return llvm::ArrayRef<MmaShape>(fp8Mma, fp8Mma[1].k ? 2 : 1);
  }
  /// The fp8 MMA with K step `kStep` (0: the default), or null when the chip
  /// has none.
  const MmaShape *fp8MmaWithK(int64_t kStep) const;
  /// The MMA for operands of `elemBytes` bytes (1: fp8MmaWithK, 2: mma16)
  /// with K step `kStep` in elements (0: the default), its k counted in
  /// BYTES (the lane lowering's unit, MmaAtom::elemBytes); nullopt when the
  /// chip has none.
  std::optional<MmaShape> mmaInBytes(int64_t kStep, int64_t elemBytes) const;
};

/// The whole table: gfx942, gfx950, sm_90, sm_90a, host.
llvm::ArrayRef<ChipInfo> allChips();

/// The chip named `name`, or null.
const ChipInfo *lookupChip(llvm::StringRef name);

/// The names of the chips of `mask`'s vendors, in table order.
std::vector<std::string> chipNames(unsigned mask = kAllChips);

/// Those names for an error message: "gfx942, gfx950, sm_90 or host".
std::string expectedChipsText(unsigned mask = kAllChips);

/// "AMDGPU", "NVIDIA" or "host".
llvm::StringRef vendorName(ChipVendor vendor);

/// The VGPR occupancy rule of `chip`: a table chip's, or that of an AMDGPU
/// chip whose code objects the manifest reader knows but the compiler does
/// not target (gfx90a); null for any other chip.
const VgprOccupancy *lookupVgprOccupancy(llvm::StringRef chip);

} // namespace fmha
} // namespace mlir

#endif // FMHA_TARGET_CHIPS_H
