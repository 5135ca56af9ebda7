//===- ChipsTest.cpp - the chip table -------------------------------------===//
//
// Pins every number of the chip table (fmha/Support/Chips.h) to the values the
// kernels were built with: a changed number changes the compiled kernels.
//
//===----------------------------------------------------------------------===//
#include "fmha/Support/Chips.h"

#include <gtest/gtest.h>

using namespace mlir::fmha;

namespace {

TEST(Chips, TableNamesAndVendors) {
  ASSERT_EQ(allChips().size(), 5u);
  EXPECT_EQ(chipNames(), (std::vector<std::string>{"gfx942", "gfx950", "sm_90",
                                                    "sm_90a", "host"}));
  EXPECT_EQ(chipNames(kGPUChips), (std::vector<std::string>{
                                      "gfx942", "gfx950", "sm_90", "sm_90a"}));
  EXPECT_EQ(chipNames(kAMDGPUChips),
            (std::vector<std::string>{"gfx942", "gfx950"}));
  EXPECT_EQ(chipNames(kNVIDIAChips),
            (std::vector<std::string>{"sm_90", "sm_90a"}));
  EXPECT_EQ(lookupChip("gfx942")->vendor, ChipVendor::AMDGPU);
  EXPECT_EQ(lookupChip("gfx950")->vendor, ChipVendor::AMDGPU);
  EXPECT_EQ(lookupChip("sm_90")->vendor, ChipVendor::NVIDIA);
  EXPECT_EQ(lookupChip("host")->vendor, ChipVendor::Host);
  EXPECT_FALSE(lookupChip("host")->isGPU());
  EXPECT_TRUE(lookupChip("sm_90")->isGPU());
  for (const char *bad : {"", "gfx90a", "GFX942", "sm_80", "gfx1100"})
    EXPECT_EQ(lookupChip(bad), nullptr) << bad;
  EXPECT_EQ(vendorName(ChipVendor::AMDGPU), "AMDGPU");
  EXPECT_EQ(vendorName(ChipVendor::NVIDIA), "NVIDIA");
  EXPECT_EQ(vendorName(ChipVendor::Host), "host");
}

TEST(Chips, ExpectedChipsText) {
  EXPECT_EQ(expectedChipsText(), "gfx942, gfx950, sm_90, sm_90a or host");
  EXPECT_EQ(expectedChipsText(kGPUChips), "gfx942, gfx950, sm_90 or sm_90a");
  EXPECT_EQ(expectedChipsText(kAMDGPUChips), "gfx942 or gfx950");
  EXPECT_EQ(expectedChipsText(kNVIDIAChips), "sm_90 or sm_90a");
  EXPECT_EQ(expectedChipsText(0), "");
}

void expectMma(const MmaShape &s, int64_t m, int64_t n, int64_t k) {
  EXPECT_EQ(s.m, m);
  EXPECT_EQ(s.n, n);
  EXPECT_EQ(s.k, k);
}

TEST(Chips, Gfx942) {
  const ChipInfo &c = *lookupChip("gfx942");
  EXPECT_EQ(c.waveSize, 64);
  EXPECT_EQ(c.warps, 4);
  EXPECT_EQ(c.blockM, 128);
  EXPECT_EQ(c.blockNFp8, 128);
  EXPECT_EQ(c.blockN16, 64);
  ASSERT_EQ(c.fp8Mmas().size(), 1u);
  expectMma(c.fp8Mmas()[0], 32, 32, 16); // v_mfma_f32_32x32x16_fp8_fp8
  expectMma(c.mma16, 32, 32, 8);
  EXPECT_EQ(c.fp8Family, Fp8Family::FnuzOnly);
  EXPECT_EQ(c.ldsBytesPerWorkgroup, 65536);
  EXPECT_EQ(c.ldsBytesPerCu, 65536);
  EXPECT_EQ(c.simdsPerCu, 4);
  EXPECT_EQ(c.vgprOccupancy.vgprsPerLane, 512);
  EXPECT_EQ(c.vgprOccupancy.granule, 8);
  EXPECT_EQ(c.vgprOccupancy.maxWaves, 8);
  EXPECT_STREQ(c.triple, "amdgcn-amd-amdhsa");
  EXPECT_STREQ(c.features, "");
}

TEST(Chips, Gfx950) {
  const ChipInfo &c = *lookupChip("gfx950");
  EXPECT_EQ(c.waveSize, 64);
  EXPECT_EQ(c.warps, 4);
  EXPECT_EQ(c.blockM, 128);
  EXPECT_EQ(c.blockNFp8, 128);
  EXPECT_EQ(c.blockN16, 64);
  ASSERT_EQ(c.fp8Mmas().size(), 2u);
  expectMma(c.fp8Mmas()[0], 32, 32, 64); // v_mfma_f32_32x32x64_f8f6f4
  expectMma(c.fp8Mmas()[1], 32, 32, 16); // v_mfma_f32_32x32x16_fp8_fp8
  expectMma(c.mma16, 32, 32, 16);
  EXPECT_EQ(c.fp8Family, Fp8Family::OcpOnly);
  EXPECT_EQ(c.ldsBytesPerWorkgroup, 163840);
  EXPECT_EQ(c.ldsBytesPerCu, 163840);
  EXPECT_EQ(c.simdsPerCu, 4);
  EXPECT_EQ(c.vgprOccupancy.vgprsPerLane, 512);
  EXPECT_STREQ(c.triple, "amdgcn-amd-amdhsa");
}

TEST(Chips, Sm90) {
  const ChipInfo &c = *lookupChip("sm_90");
  EXPECT_EQ(c.waveSize, 32);
  EXPECT_EQ(c.warps, 4);
  EXPECT_EQ(c.blockM, 64);
  EXPECT_EQ(c.blockNFp8, 64);
  EXPECT_EQ(c.blockN16, 64);
  ASSERT_EQ(c.fp8Mmas().size(), 1u);
  expectMma(c.fp8Mmas()[0], 16, 8, 32); // mma.sync m16n8k32
  expectMma(c.mma16, 16, 8, 16);
  EXPECT_EQ(c.fp8Family, Fp8Family::OcpOnly);
  EXPECT_EQ(c.ldsBytesPerWorkgroup, 49152);
  EXPECT_EQ(c.ldsBytesPerCu, 228 * 1024);
  EXPECT_EQ(c.vgprOccupancy.vgprsPerLane, 0);
  EXPECT_STREQ(c.triple, "nvptx64-nvidia-cuda");
  EXPECT_STREQ(c.features, "+ptx84");
  EXPECT_FALSE(c.warpgroupMma);
}

TEST(Chips, Sm90a) {
  // The same SM as sm_90; the MMA is wgmma, one warpgroup per workgroup.
  const ChipInfo &c = *lookupChip("sm_90a"), &sm90 = *lookupChip("sm_90");
  EXPECT_EQ(c.vendor, ChipVendor::NVIDIA);
  EXPECT_TRUE(c.warpgroupMma);
  EXPECT_EQ(c.waveSize * c.warps, 128); // one warpgroup
  EXPECT_EQ(c.blockM, 64);              // wgmma's m
  EXPECT_EQ(c.blockNFp8, 128);
  ASSERT_EQ(c.fp8Mmas().size(), 1u);
  expectMma(c.fp8Mmas()[0], 16, 8, 32); // one warp's slice of m64nNk32
  EXPECT_EQ(c.fp8Family, sm90.fp8Family);
  EXPECT_EQ(c.ldsBytesPerWorkgroup, sm90.ldsBytesPerWorkgroup);
  EXPECT_STREQ(c.triple, sm90.triple);
  EXPECT_STREQ(c.features, "+ptx84");
}

TEST(Chips, Host) {
  const ChipInfo &c = *lookupChip("host");
  EXPECT_EQ(c.waveSize, 1);
  EXPECT_EQ(c.warps, 1);
  EXPECT_EQ(c.blockM, 16);
  EXPECT_EQ(c.blockNFp8, 32);
  EXPECT_EQ(c.blockN16, 32);
  expectMma(c.fp8Mmas()[0], 1, 1, 1);
  expectMma(c.mma16, 1, 1, 1);
  EXPECT_EQ(c.fp8Family, Fp8Family::Any);
  EXPECT_EQ(c.ldsBytesPerWorkgroup, 0);
}

TEST(Chips, Fp8MmaWithK) {
  const ChipInfo &gfx950 = *lookupChip("gfx950");
  EXPECT_EQ(gfx950.fp8MmaWithK(0)->k, 64);
  EXPECT_EQ(gfx950.fp8MmaWithK(64)->k, 64);
  EXPECT_EQ(gfx950.fp8MmaWithK(16)->k, 16);
  EXPECT_EQ(gfx950.fp8MmaWithK(32), nullptr);
  const ChipInfo &gfx942 = *lookupChip("gfx942");
  EXPECT_EQ(gfx942.fp8MmaWithK(0)->k, 16);
  EXPECT_EQ(gfx942.fp8MmaWithK(64), nullptr);
  const ChipInfo &sm90 = *lookupChip("sm_90");
  EXPECT_EQ(sm90.fp8MmaWithK(0)->k, 32);
  EXPECT_EQ(sm90.fp8MmaWithK(32)->k, 32);
  for (int64_t k : {8, 16, 64})
    EXPECT_EQ(sm90.fp8MmaWithK(k), nullptr) << k;
}

// The lane lowering's MMA in bytes: fp8 as the table says; 16-bit the
// chip's mma16 with twice its k (its operands, read as bytes, are laid out
// as the fp8 MMA's of that k).
TEST(Chips, MmaInBytes) {
  struct Want {
    const char *chip;
    int64_t k16, kBytes16, kFp8;
  };
  for (Want w : {Want{"gfx942", 8, 16, 16}, Want{"gfx950", 16, 32, 64},
                 Want{"sm_90", 16, 32, 32}, Want{"sm_90a", 16, 32, 32}}) {
    const ChipInfo &c = *lookupChip(w.chip);
    std::optional<MmaShape> m16 = c.mmaInBytes(0, 2);
    ASSERT_TRUE(m16) << w.chip;
    EXPECT_EQ(m16->k, w.kBytes16) << w.chip;
    EXPECT_EQ(m16->m, c.mma16.m) << w.chip;
    EXPECT_TRUE(c.mmaInBytes(w.k16, 2)) << w.chip;     // k step in elements
    EXPECT_FALSE(c.mmaInBytes(w.kBytes16, 2)) << w.chip; // not in bytes
    EXPECT_EQ(c.mmaInBytes(0, 1)->k, w.kFp8) << w.chip;
    EXPECT_FALSE(c.mmaInBytes(0, 4)) << w.chip;
  }
}

TEST(Chips, VgprOccupancy) {
  for (const char *chip : {"gfx90a", "gfx942", "gfx950"}) {
    const VgprOccupancy *r = lookupVgprOccupancy(chip);
    ASSERT_NE(r, nullptr) << chip;
    EXPECT_EQ(r->vgprsPerLane, 512);
    EXPECT_EQ(r->granule, 8);
    EXPECT_EQ(r->maxWaves, 8);
  }
  for (const char *chip : {"sm_90", "sm_90a", "host", "gfx1100", ""})
    EXPECT_EQ(lookupVgprOccupancy(chip), nullptr) << chip;
}

} // namespace
