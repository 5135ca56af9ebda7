//===- Chips.cpp - the one table of chip facts ----------------------------===//
//
// gfx942 (CDNA3, MI300): v_mfma_f32_32x32x16_fp8_fp8 (FNUZ fp8),
//   v_mfma_f32_32x32x8_bf16; 64 KiB LDS per CU, all of it one workgroup's.
// gfx950 (CDNA4, MI355): v_mfma_f32_32x32x64_f8f6f4 (OCP fp8) and, for small
//   pages, v_mfma_f32_32x32x16_fp8_fp8; v_mfma_f32_32x32x16_bf16; 160 KiB LDS.
// sm_90 (Hopper): mma.sync m16n8k32 e4m3/e5m2, m16n8k16 bf16; 48 KiB static
//   shared memory per block, 228 KiB per SM. PTX for sm_90 also runs on later
//   NVIDIA parts (the driver JITs it).
// sm_90a (H100 / H200 only): the same SM with wgmma; one warpgroup (4 warps)
//   issues wgmma.m64nNk32 e4m3 with the B operand in shared memory, BlockN
//   128 (S = 64 and O = 64 f32 registers per thread at D 128).
// CDNA2/3/4 wave64: VGPRs and AGPRs share one 512-entry file per lane and
// SIMD, allocated in granules of 8, at most 8 waves per SIMD.
//
//===----------------------------------------------------------------------===//
#include "fmha/Support/Chips.h"

using namespace mlir;
using namespace mlir::fmha;

namespace {

constexpr VgprOccupancy kCdnaWave64{512, 8, 8};

const ChipInfo kChips[] = {
    {"gfx942", ChipVendor::AMDGPU, /*waveSize=*/64, /*warps=*/4,
     /*blockM=*/128, /*blockNFp8=*/128, /*blockN16=*/64,
     /*fp8Mma=*/{{32, 32, 16}, {}}, /*mma16=*/{32, 32, 8}, Fp8Family::FnuzOnly,
     /*ldsBytesPerWorkgroup=*/65536, /*ldsBytesPerCu=*/65536,
     /*simdsPerCu=*/4, kCdnaWave64, "amdgcn-amd-amdhsa", "",
     /*warpgroupMma=*/false, 0, 0, /*permlane32Swap=*/false,
     /*uniformUnrolledCount=*/false, /*ldsLoadBytes=*/4},
    {"gfx950", ChipVendor::AMDGPU, 64, 4, 128, 128, 64,
     {{32, 32, 64}, {32, 32, 16}}, {32, 32, 16}, Fp8Family::OcpOnly,
     163840, 163840, 4, kCdnaWave64, "amdgcn-amd-amdhsa", "", false, 0, 0,
     /*permlane32Swap=*/true, /*uniformUnrolledCount=*/true, /*ldsLoadBytes=*/16},
    {"sm_90", ChipVendor::NVIDIA, 32, 4, 64, 64, 64, {{16, 8, 32}, {}},
     {16, 8, 16}, Fp8Family::OcpOnly, 48 * 1024, 228 * 1024,
     /*simdsPerCu (SM sub-partitions)=*/4, {}, "nvptx64-nvidia-cuda",
     "+ptx84", false},
    {"sm_90a", ChipVendor::NVIDIA, 32, 4, 64, 128, 64, {{16, 8, 32}, {}},
     {16, 8, 16}, Fp8Family::OcpOnly, 48 * 1024, 228 * 1024, 4, {},
     "nvptx64-nvidia-cuda", "+ptx84", /*warpgroupMma=*/true,
     /*wgmmaFp8PromoteSteps=*/2, /*wgmmaFp8PvPromoteSteps=*/4},
    {"host", ChipVendor::Host, 1, 1, 16, 32, 32, {{1, 1, 1}, {}}, {1, 1, 1},
     Fp8Family::Any, 0, 0, 0, {}, "", "", false},
};

bool inMask(ChipVendor v, unsigned mask) {
  switch (v) {
  case ChipVendor::AMDGPU:
    return mask & kAMDGPUChips;
  case ChipVendor::NVIDIA:
    return mask & kNVIDIAChips;
  case ChipVendor::Host:
    return mask & kHostChip;
  }
  return false;
}

} // namespace

const MmaShape *ChipInfo::fp8MmaWithK(int64_t kStep) const {
  for (const MmaShape &mma : fp8Mmas())
    if (kStep == 0 || mma.k == kStep)
      return &mma;
  return nullptr;
}

std::optional<MmaShape> ChipInfo::mmaInBytes(int64_t kStep,
                                              int64_t elemBytes) const {
  if (elemBytes == 2) {
    if (kStep && kStep != mma16.k)
      return std::nullopt;
    MmaShape m = mma16;
    m.k *= 2;
    return m;
  }
  const MmaShape *m = elemBytes == 1 ? fp8MmaWithK(kStep) : nullptr;
  return m ? std::optional<MmaShape>(*m) : std::nullopt;
}

llvm::ArrayRef<ChipInfo> mlir::fmha::allChips() { return kChips; }

const ChipInfo *mlir::fmha::lookupChip(llvm::StringRef name) {
  for (const ChipInfo &c : kChips)
    if (name == c.name)
      return &c;
  return nullptr;
}

std::vector<std::string> mlir::fmha::chipNames(unsigned mask) {
  std::vector<std::string> names;
  for (const ChipInfo &c : kChips)
    if (inMask(c.vendor, mask))
      names.push_back(c.name);
  return names;
}

std::string mlir::fmha::expectedChipsText(unsigned mask) {
  std::vector<std::string> names = chipNames(mask);
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i)
      text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

llvm::StringRef mlir::fmha::vendorName(ChipVendor vendor) {
  switch (vendor) {
  case ChipVendor::AMDGPU:
    return "AMDGPU";
  case ChipVendor::NVIDIA:
    return "NVIDIA";
  case ChipVendor::Host:
    return "host";
  }
  return "";
}

const VgprOccupancy *mlir::fmha::lookupVgprOccupancy(llvm::StringRef chip) {
  // gfx90a (CDNA2): code objects only; the compiler does not target it.
  if (chip == "gfx90a")
    return &kCdnaWave64;
  const ChipInfo *c = lookupChip(chip);
  return c && c->vgprOccupancy.vgprsPerLane ? &c->vgprOccupancy : nullptr;
}
