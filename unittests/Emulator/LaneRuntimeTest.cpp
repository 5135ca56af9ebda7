//===- LaneRuntimeTest.cpp - the lane runtime on hand-written lanes -------===//
//
// Lanes written in C++ call the runtime's entry points as the JIT'd kernel
// does. The MMA semantics (written from the vendors' documents) are checked
// against the compiler's TargetInfo layout facts (written separately): each
// lane fills its fragments at TargetInfo's positions, and the wave's result
// must be A * B + C at TargetInfo's accumulator positions. Scheduling
// errors (divergent lanes, a barrier some lanes miss) must be reported, and
// so must the out-of-bounds accesses of check-bounds kernels (without
// stopping the launch).
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"
#include "fmha/Emulator/LaneABI.h"
#include "fmha/Emulator/LaneRuntime.h"
#include "fmha/Reference/FloatCodec.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>


using namespace fmha;
namespace ref = fmha::ref;

namespace {

//===----------------------------------------------------------------------===//
// MMA: runtime semantics vs TargetInfo layouts
//===----------------------------------------------------------------------===//

struct MmaCase {
  const char *chip;
  int64_t kStep;
};

/// What every lane of the MMA test reads: the matrices and the layout.
struct MmaWorld {
  const mlir::fmha::TargetInfo *ti;
  mlir::fmha::MmaAtom atom;
  int32_t kind;
  ref::DType dtype;
  std::vector<uint8_t> A, B; // codes, row-major M x K and K x N
  std::vector<float> C;      // M x N
  std::vector<float> D;      // filled by the lanes
};
MmaWorld *gWorld = nullptr;

void mmaLane(int64_t *) {
  MmaWorld &w = *gWorld;
  int64_t l = fmha_lane_id(lane::ThreadX);
  alignas(64) uint8_t a[64] = {}, b[64] = {};
  alignas(64) float c[16] = {}, d[16] = {};
  for (int64_t e = 0; e < w.atom.aPerLane; ++e) {
    mlir::fmha::FragElem f = w.ti->aFragElem(l, e);
    a[e] = w.A[f.row * w.atom.k + f.col];
  }
  for (int64_t e = 0; e < w.atom.bPerLane; ++e) {
    mlir::fmha::FragElem f = w.ti->bFragElem(l, e);
    b[e] = w.B[f.row * w.atom.n + f.col];
  }
  for (int64_t v = 0; v < w.atom.accPerLane; ++v) {
    mlir::fmha::AccElem f = w.ti->accElem(l, v);
    c[v] = w.C[f.row * w.atom.n + f.col];
  }
  fmha_lane_mma(7, w.kind, a, b, c, d);
  for (int64_t v = 0; v < w.atom.accPerLane; ++v) {
    mlir::fmha::AccElem f = w.ti->accElem(l, v);
    w.D[f.row * w.atom.n + f.col] = d[v];
  }
}

class LaneMma : public ::testing::TestWithParam<MmaCase> {};

TEST_P(LaneMma, MatchesTargetInfoLayouts) {
  mlir::MLIRContext ctx;
  MmaCase p = GetParam();
  auto ti = mlir::fmha::createTargetInfo(p.chip, p.kStep);
  ASSERT_TRUE(ti);
  bool fnuz = std::string(p.chip) == "gfx942";
  mlir::Type t = fnuz ? mlir::Type(mlir::Float8E4M3FNUZType::get(&ctx))
                      : mlir::Type(mlir::Float8E4M3FNType::get(&ctx));
  auto atom = ti->mmaAtom(t);
  ASSERT_TRUE(atom);
  MmaWorld w;
  w.ti = ti.get();
  w.atom = *atom;
  w.dtype = fnuz ? ref::DType::F8E4M3FNUZ : ref::DType::F8E4M3FN;
  lane::Fp8Format fmt = fnuz ? lane::E4M3FNUZ : lane::E4M3FN;
  lane::MmaShape shape = ti->waveSize() == 32 ? lane::MmaSyncM16N8K32
                         : atom->k == 64      ? lane::Mfma32x32x64
                                              : lane::Mfma32x32x16;
  w.kind = lane::mmaKind(shape, fmt, fmt);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-2, 2);
  int64_t M = atom->m, N = atom->n, K = atom->k;
  for (int64_t i = 0; i < M * K; ++i)
    w.A.push_back(static_cast<uint8_t>(ref::encode(w.dtype, u(rng))));
  for (int64_t i = 0; i < K * N; ++i)
    w.B.push_back(static_cast<uint8_t>(ref::encode(w.dtype, u(rng))));
  for (int64_t i = 0; i < M * N; ++i)
    w.C.push_back(u(rng));
  w.D.assign(M * N, NAN);
  lane::takeLaneRuntimeStats(); // count this launch only
  gWorld = &w;
  fmha_lane_launch(mmaLane, 1, 1, 1, ti->waveSize(), 1, 1, nullptr, ti->waveSize());
  gWorld = nullptr;
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = w.C[i * N + j];
      for (int64_t k = 0; k < K; ++k)
        s += double(ref::decodeFp8(w.dtype, w.A[i * K + k])) *
             ref::decodeFp8(w.dtype, w.B[k * N + j]);
      EXPECT_EQ(w.D[i * N + j], static_cast<float>(s)) << p.chip << " (" << i << ", " << j << ")";
    }
  lane::LaneRuntimeStats st = lane::takeLaneRuntimeStats();
  EXPECT_EQ(st.mmas, 1);
  EXPECT_EQ(st.lanes, ti->waveSize());
}

INSTANTIATE_TEST_SUITE_P(Chips, LaneMma,
                         ::testing::Values(MmaCase{"gfx942", 0}, MmaCase{"gfx950", 0},
                                           MmaCase{"gfx950", 16}, MmaCase{"sm_90", 0}),
                         [](const auto &info) {
                           return std::string(info.param.chip) + "_k" +
                                  std::to_string(info.param.kStep);
                         });

//===----------------------------------------------------------------------===//
// Shuffles, readfirstlane, shared memory, barriers, lane ids
//===----------------------------------------------------------------------===//

std::vector<int64_t> gOut;

void shuffleLane(int64_t *args) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  int32_t v = static_cast<int32_t>(100 + t);
  int64_t x = fmha_lane_shuffle(1, lane::Xor, v, 32, 64);
  int64_t i = fmha_lane_shuffle(2, lane::Idx, v, 3, 64);
  int32_t f = fmha_lane_readfirstlane(3, v);
  gOut[t] = (x & 0xFFFFFFFF) * 1000000 + (i & 0xFFFFFFFF) * 1000 + f;
  (void)args;
}

TEST(LaneRuntime, ShuffleAndReadFirstLanePerWave) {
  gOut.assign(128, -1);
  fmha_lane_launch(shuffleLane, 1, 1, 1, 128, 1, 1, nullptr, 64);
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  for (int64_t t = 0; t < 128; ++t) {
    int64_t w = t / 64 * 64, l = t % 64;
    EXPECT_EQ(gOut[t], (100 + w + (l ^ 32)) * 1000000 + (100 + w + 3) * 1000 + (100 + w))
        << "lane " << t;
  }
}

void sharedLane(int64_t *args) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  auto *s = static_cast<int32_t *>(fmha_lane_shared(0, 4 * 256));
  int64_t bx = fmha_lane_id(lane::BlockX);
  // Unwritten shared memory reads as 0x7F bytes.
  if (t == 0 && s[255] != 0x7F7F7F7F)
    gOut[1000 + bx] = 1;
  fmha_lane_barrier(1);
  s[t] = static_cast<int32_t>(t * 10 + bx);
  fmha_lane_barrier(2);
  gOut[bx * 256 + t] = s[255 - t]; // another wave's value: needs the barrier
  (void)args;
}

TEST(LaneRuntime, SharedMemoryAndBarrierAcrossWaves) {
  gOut.assign(2000, 0);
  fmha_lane_launch(sharedLane, 2, 1, 1, 256, 1, 1, nullptr, 64);
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  for (int64_t bx = 0; bx < 2; ++bx) {
    EXPECT_EQ(gOut[1000 + bx], 0) << "shared memory not poisoned in workgroup " << bx;
    for (int64_t t = 0; t < 256; ++t)
      EXPECT_EQ(gOut[bx * 256 + t], (255 - t) * 10 + bx);
  }
  EXPECT_EQ(lane::takeLaneRuntimeStats().barriers, 4);
}

void divergentLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  fmha_lane_shuffle(t < 5 ? 1 : 2, lane::Xor, 0, 1, 32);
}

TEST(LaneRuntime, DivergentWaveOpIsAnError) {
  fmha_lane_launch(divergentLane, 1, 1, 1, 32, 1, 1, nullptr, 32);
  std::string e = lane::takeLaneRuntimeError();
  EXPECT_NE(e.find("diverged"), std::string::npos) << e;
}

void missedBarrierLane(int64_t *) {
  if (fmha_lane_id(lane::ThreadX) < 64)
    fmha_lane_barrier(1);
}

TEST(LaneRuntime, BarrierMissedByAWaveIsAnError) {
  fmha_lane_launch(missedBarrierLane, 1, 1, 1, 128, 1, 1, nullptr, 64);
  std::string e = lane::takeLaneRuntimeError();
  EXPECT_NE(e.find("barrier not reached"), std::string::npos) << e;
}

TEST(LaneRuntime, BadLaunchIsAnError) {
  fmha_lane_launch(missedBarrierLane, 1, 1, 1, 0, 1, 1, nullptr, 64);
  EXPECT_NE(lane::takeLaneRuntimeError().find("invalid launch"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Out-of-bounds accesses (check-bounds)
//===----------------------------------------------------------------------===//

// Workgroup 1: lane 5 reports before the barrier, lanes 9 and 10 after it;
// every lane of both workgroups then finishes (the kernel skipped the
// accesses, the runtime lets it go on).
void outOfBoundsLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX), bx = fmha_lane_id(lane::BlockX);
  if (bx == 1 && t == 5)
    fmha_lane_out_of_bounds(7, 12, 10, 1);
  fmha_lane_barrier(1);
  if (bx == 1 && (t == 9 || t == 10))
    fmha_lane_out_of_bounds(8, -1, 4, 0);
  fmha_lane_shuffle(2, lane::Xor, 0, 1, 64);
  gOut[bx * 128 + t] = 1;
}

TEST(LaneRuntime, OutOfBoundsIsReportedAndTheLaunchGoesOn) {
  gOut.assign(256, 0);
  lane::takeLaneRuntimeStats();
  fmha_lane_launch(outOfBoundsLane, 2, 1, 1, 128, 1, 1, nullptr, 64);
  EXPECT_EQ(lane::takeLaneRuntimeError(),
            "out-of-bounds memory access in workgroup (1, 0, 0) lane 5 at site 7: "
            "index 12 on dim 1, bound 10 (the first of 3 out-of-bounds accesses)");
  for (int64_t i = 0; i < 256; ++i)
    EXPECT_EQ(gOut[i], 1) << "workgroup " << i / 128 << " lane " << i % 128 << " did not finish";
  lane::LaneRuntimeStats st = lane::takeLaneRuntimeStats();
  EXPECT_EQ(st.outOfBounds, 3);
  EXPECT_EQ(st.workgroups, 2);
  // Taken: the next launch starts clean.
  fmha_lane_launch(shuffleLane, 1, 1, 1, 64, 1, 1, nullptr, 64);
  EXPECT_EQ(lane::takeLaneRuntimeError(), "");
}

void oobThenDivergeLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  if (t == 3)
    fmha_lane_out_of_bounds(4, 64, 64, 0);
  fmha_lane_shuffle(t < 5 ? 1 : 2, lane::Xor, 0, 1, 32);
}

TEST(LaneRuntime, OutOfBoundsComesFirstAndDivergenceStillStops) {
  lane::takeLaneRuntimeStats();
  fmha_lane_launch(oobThenDivergeLane, 3, 1, 1, 32, 1, 1, nullptr, 32);
  EXPECT_EQ(lane::takeLaneRuntimeError(),
            "out-of-bounds memory access in workgroup (0, 0, 0) lane 3 at site 4: "
            "index 64 on dim 0, bound 64");
  EXPECT_EQ(lane::takeLaneRuntimeStats().workgroups, 1); // stopped at the divergence
}

TEST(LaneRuntime, OutOfBoundsOutsideALaunch) {
  fmha_lane_out_of_bounds(2, 5, 0, 3);
  EXPECT_EQ(lane::takeLaneRuntimeError(),
            "out-of-bounds memory access outside a launch at site 2: index 5 on dim 3, "
            "bound 0");
}

TEST(LaneRuntime, SymbolsIncludeOutOfBounds) {
  bool found = false;
  for (auto [name, addr] : lane::laneRuntimeSymbols())
    if (std::string(name) == lane::kOutOfBounds)
      found = addr == reinterpret_cast<void *>(&fmha_lane_out_of_bounds);
  EXPECT_TRUE(found);
}

//===----------------------------------------------------------------------===//
// Lane-local numerics
//===----------------------------------------------------------------------===//

TEST(LaneRuntime, Fp8PacksPutBytesWhereTheVendorsSay) {
  // v_cvt_pk_fp8_f32 a, b -> word wordSel: a low byte, b high byte.
  int32_t w = fmha_lane_cvt_pk_fp8(1.0f, -2.0f, 0x11223344, 1, lane::E4M3FN);
  EXPECT_EQ(uint32_t(w) & 0xFFFF, 0x3344u);
  EXPECT_EQ((uint32_t(w) >> 16) & 0xFF, ref::encode(ref::DType::F8E4M3FN, 1.0f));
  EXPECT_EQ(uint32_t(w) >> 24, ref::encode(ref::DType::F8E4M3FN, -2.0f));
  int32_t z = fmha_lane_cvt_pk_fp8(0.3f, 100.0f, 0, 0, lane::E4M3FNUZ);
  EXPECT_EQ(uint32_t(z) & 0xFF, ref::encode(ref::DType::F8E4M3FNUZ, 0.3f));
  EXPECT_EQ((uint32_t(z) >> 8) & 0xFF, ref::encode(ref::DType::F8E4M3FNUZ, 100.0f));
  // cvt.rn.satfinite.e4m3x2.f32 d, a, b: a in the upper byte; satfinite.
  int32_t n = fmha_lane_cvt_fp8x2(3.0f, 1000.0f, lane::E4M3FN);
  EXPECT_EQ((uint32_t(n) >> 8) & 0xFF, ref::encode(ref::DType::F8E4M3FN, 3.0f));
  EXPECT_EQ(ref::decodeFp8(ref::DType::F8E4M3FN, uint32_t(n) & 0xFF), 448.0f);
}

TEST(LaneRuntime, Exp2FlushesDenormals) {
  EXPECT_EQ(fmha_lane_exp2(3.0f), 8.0f);
  EXPECT_EQ(fmha_lane_exp2(-130.0f), 0.0f); // 2^-130 is an f32 denormal
  EXPECT_EQ(fmha_lane_exp2(-INFINITY), 0.0f);
  EXPECT_EQ(fmha_lane_exp2(-126.0f), std::ldexp(1.0f, -126));
}

} // namespace
