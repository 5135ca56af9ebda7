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
#include "fmha/Reference/MmaSum.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
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
// wgmma: runtime semantics vs the sm_90a TargetInfo's per-warp layouts and a
// shared-memory layout built by chunk permutation
//===----------------------------------------------------------------------===//

/// One warpgroup MMA of 64 x n x 32: A in registers (RS) or staged with
/// 64-byte rows (SS, k offset 32: the second k step of those rows), B
/// staged with rows of `bRowBytes` (128: 128B swizzle, 32: 32B swizzle).
struct WgmmaWorld {
  const mlir::fmha::TargetInfo *ti;
  bool ss;
  int64_t n, bRowBytes;
  bool accumulate;
  std::vector<uint8_t> A, B; // codes, A row-major 64 x 32, B row-major 32 x n
  std::vector<float> C, D;   // 64 x n
};
WgmmaWorld *gWg = nullptr;

/// Where a K-major swizzled tile (rows of `w` bytes, 1024-aligned) keeps
/// byte k of row r: the 16-byte chunk c = k / 16 of the row moves to
/// c ^ ((r / (128 / w)) % (w / 16)) (the chunk permutation the PTX ISA's
/// swizzle figures draw).
int64_t swizzled(int64_t w, int64_t r, int64_t k) {
  int64_t c = (k / 16) ^ ((r / (128 / w)) % (w / 16));
  return r * w + c * 16 + k % 16;
}

int64_t descriptor(uint64_t addr, int64_t w) {
  uint64_t mode = w == 128 ? 1 : w == 64 ? 2 : 3;
  return static_cast<int64_t>(((addr >> 4) & 0x3FFF) | (uint64_t(1) << 16) |
                              (uint64_t(8 * w >> 4) << 32) | (mode << 62));
}

void wgmmaLane(int64_t *) {
  WgmmaWorld &w = *gWg;
  int64_t t = fmha_lane_id(lane::ThreadX), warp = t / 32, l = t % 32;
  auto *a = static_cast<uint8_t *>(fmha_lane_shared(0, 64 * 64));
  auto *b = static_cast<uint8_t *>(fmha_lane_shared(1, 256 * 128));
  if (t == 0) {
    for (int64_t m = 0; m < 64; ++m)
      for (int64_t k = 0; k < 32; ++k)
        a[swizzled(64, m, 32 + k)] = w.A[m * 32 + k];
    for (int64_t j = 0; j < w.n; ++j)
      for (int64_t k = 0; k < 32; ++k)
        b[swizzled(w.bRowBytes, j, k)] = w.B[k * w.n + j];
  }
  fmha_lane_barrier(1);
  alignas(64) uint8_t ra[16] = {};
  alignas(64) float c[128] = {}, d[128] = {};
  for (int64_t e = 0; e < 16; ++e) {
    mlir::fmha::FragElem f = w.ti->aFragElem(l, e);
    ra[e] = w.A[(16 * warp + f.row) * 32 + f.col];
  }
  auto accPos = [&](int64_t v) {
    mlir::fmha::AccElem f = w.ti->accElem(l, v % 4);
    return (16 * warp + f.row) * w.n + 8 * (v / 4) + f.col;
  };
  for (int64_t v = 0; v < w.n / 2; ++v)
    c[v] = w.C[accPos(v)];
  int32_t kind = lane::mmaKind(lane::WgmmaM64NK32, lane::E4M3FN, lane::E4M3FN);
  fmha_lane_wgmma(9, kind, static_cast<int32_t>(w.n), w.accumulate ? 1 : 0,
                  w.ss ? nullptr : ra,
                  w.ss ? descriptor(reinterpret_cast<uintptr_t>(a) + 32, 64) : 0,
                  descriptor(reinterpret_cast<uintptr_t>(b), w.bRowBytes), c, d);
  for (int64_t v = 0; v < w.n / 2; ++v)
    w.D[accPos(v)] = d[v];
}

struct WgmmaCase {
  bool ss;
  int64_t n, bRowBytes;
  bool accumulate;
};
class LaneWgmma : public ::testing::TestWithParam<WgmmaCase> {};

TEST_P(LaneWgmma, MatchesLayoutsAndSwizzle) {
  WgmmaCase p = GetParam();
  auto ti = mlir::fmha::createTargetInfo("sm_90a");
  ASSERT_TRUE(ti);
  WgmmaWorld w{ti.get(), p.ss, p.n, p.bRowBytes, p.accumulate, {}, {}, {}, {}};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2, 2);
  for (int64_t i = 0; i < 64 * 32; ++i)
    w.A.push_back(static_cast<uint8_t>(ref::encode(ref::DType::F8E4M3FN, u(rng))));
  for (int64_t i = 0; i < 32 * p.n; ++i)
    w.B.push_back(static_cast<uint8_t>(ref::encode(ref::DType::F8E4M3FN, u(rng))));
  for (int64_t i = 0; i < 64 * p.n; ++i)
    w.C.push_back(u(rng));
  w.D.assign(64 * p.n, NAN);
  lane::takeLaneRuntimeStats();
  gWg = &w;
  fmha_lane_launch(wgmmaLane, 1, 1, 1, 128, 1, 1, nullptr, 32);
  gWg = nullptr;
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  // The products of the documented layouts, summed as Hopper's fp8 wgmma
  // does (ref::wgmmaFp8Step, checked against the H200 in MmaSumTest); a
  // wrong layout or swizzle pairs other elements.
  std::vector<float> a(64 * 32), b(32 * p.n);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = ref::decodeFp8(ref::DType::F8E4M3FN, w.A[i]);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = ref::decodeFp8(ref::DType::F8E4M3FN, w.B[i]);
  int64_t inexact = 0;
  for (int64_t i = 0; i < 64; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      const float c = p.accumulate ? w.C[i * p.n + j] : 0.0f;
      float s = ref::wgmmaFp8Step(c, &a[i * 32], ref::DType::F8E4M3FN, &b[j], p.n,
                                  ref::DType::F8E4M3FN, 32);
      EXPECT_EQ(w.D[i * p.n + j], s) << "(" << i << ", " << j << ")";
      double exact = c;
      for (int64_t k = 0; k < 32; ++k)
        exact += double(a[i * 32 + k]) * b[k * p.n + j];
      inexact += s != static_cast<float>(exact);
    }
  // The data reaches the cut: many sums differ from the exact ones.
  EXPECT_GT(inexact, 64 * p.n / 4);
  EXPECT_EQ(lane::takeLaneRuntimeStats().mmas, 1);
}

INSTANTIATE_TEST_SUITE_P(
    Forms, LaneWgmma,
    ::testing::Values(WgmmaCase{false, 128, 128, false}, WgmmaCase{false, 256, 128, true},
                      WgmmaCase{true, 64, 32, true}, WgmmaCase{true, 128, 128, false}),
    [](const auto &info) {
      const WgmmaCase &c = info.param;
      return std::string(c.ss ? "SS" : "RS") + "_n" + std::to_string(c.n) + "_b" +
             std::to_string(c.bRowBytes) + (c.accumulate ? "_acc" : "_zero");
    });

/// A warpgroup op some waves of the warpgroup never reach is reported.
void wgmmaHalfLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  alignas(64) uint8_t ra[16] = {};
  alignas(64) float c[64] = {}, d[64] = {};
  if (t < 64)
    fmha_lane_wgmma(3, lane::mmaKind(lane::WgmmaM64NK32, lane::E4M3FN, lane::E4M3FN),
                    128, 0, ra, 0, 0, c, d);
  fmha_lane_barrier(4);
}

TEST(LaneWgmma, WarpgroupNotAllThereIsAnError) {
  fmha_lane_launch(wgmmaHalfLane, 1, 1, 1, 128, 1, 1, nullptr, 32);
  std::string err = lane::takeLaneRuntimeError();
  EXPECT_NE(err, "");
}

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

// Transpose loads (ds_read_b64_tr_b8): with each 16-lane group g = L / 16
// addressing a row-major 64 x 32 byte tile B[k][n] as CK and Triton build a
// 32x32x64 MFMA operand (lane s = L % 16 of read q reads 8 bytes of row
// 8 (q % 2) + 32 (q / 2) + 16 (g / 2) + s / 2 at column 16 (g % 2) +
// 8 (s % 2)), the four reads give lane L exactly the operand layout AMD
// documents (byte e: n = L % 32, k = 16 (L / 32) + 32 (e / 16) + e % 16;
// AMDGPUTargetInfo::bFragElem), from the runtime's transpose rule.
uint8_t gTile[64][32];

void transposeLane(int64_t *args) {
  int64_t L = fmha_lane_id(lane::ThreadX);
  int64_t g = L / 16, s = L % 16;
  uint8_t got[32];
  for (int64_t q = 0; q < 4; ++q) {
    int64_t row = 8 * (q % 2) + 32 * (q / 2) + 16 * (g / 2) + s / 2;
    int64_t col = 16 * (g % 2) + 8 * (s % 2);
    int64_t own = 0;
    std::memcpy(&own, &gTile[row][col], 8);
    int64_t r = fmha_lane_transpose8(static_cast<int32_t>(1 + q), own);
    std::memcpy(got + 8 * q, &r, 8);
  }
  int64_t bad = 0;
  for (int64_t e = 0; e < 32; ++e) {
    int64_t n = L % 32, k = 16 * (L / 32) + 32 * (e / 16) + e % 16;
    bad += got[e] != gTile[k][n];
  }
  gOut[L] = bad;
  (void)args;
}

TEST(LaneRuntime, TransposeLoadsBuildTheDocumentedMfmaOperand) {
  // Two fillings, the low 8 and the high 3 bits of the element's index
  // k * 32 + n: together they tell every element of the tile apart.
  for (int fill = 0; fill < 2; ++fill) {
    for (int k = 0; k < 64; ++k)
      for (int n = 0; n < 32; ++n)
        gTile[k][n] = static_cast<uint8_t>(fill ? (k * 32 + n) >> 8 : (k * 32 + n) & 0xFF);
    gOut.assign(64, -1);
    fmha_lane_launch(transposeLane, 1, 1, 1, 64, 1, 1, nullptr, 64);
    ASSERT_EQ(lane::takeLaneRuntimeError(), "");
    for (int64_t L = 0; L < 64; ++L)
      EXPECT_EQ(gOut[L], 0) << "lane " << L << " fill " << fill;
  }
}

void transposeHalfWave(int64_t *args) {
  int64_t L = fmha_lane_id(lane::ThreadX);
  if (L < 40) // not whole groups of 16 at the op: an error, not a guess
    fmha_lane_transpose8(1, 0);
  (void)args;
}

TEST(LaneRuntime, TransposeLoadOfAPartialWaveIsAnError) {
  fmha_lane_launch(transposeHalfWave, 1, 1, 1, 40, 1, 1, nullptr, 64);
  EXPECT_NE(lane::takeLaneRuntimeError(), "");
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

// Loads into LDS (gfx950's buffer_load ... lds): each of 128 lanes (two
// waves) loads 16 bytes twice into its own slot of buffer 0 and reads the
// slot's first byte after a barrier (gOut[t]), after wait(1) (gOut[256 +
// t]) and after wait(0) (gOut[128 + t]).
void ldsLoadLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  auto *s = static_cast<uint8_t *>(fmha_lane_shared(0, 16 * 128));
  auto at = [&](int64_t lane) { return reinterpret_cast<int64_t>(s + 16 * lane); };
  int64_t v1 = 0x0101010101010101 * 1, v2 = 0x0101010101010101 * 2;
  fmha_lane_lds_load(at(t), v1, v1, 16); // older: lands at wait(1)
  fmha_lane_lds_load(at(t), v2, v2, 16); // newer: stays in flight at wait(1)
  fmha_lane_barrier(1);              // lands nothing
  gOut[t] = s[16 * t];
  fmha_lane_lds_load_wait(10, 1);
  fmha_lane_barrier(2);
  gOut[256 + t] = s[16 * t];
  fmha_lane_lds_load_wait(11, 0);
  fmha_lane_barrier(3);
  gOut[128 + t] = s[16 * t];
}

TEST(LaneRuntime, LdsLoadsLandAtTheirWaitNotAtABarrier) {
  gOut.assign(400, -1);
  fmha_lane_launch(ldsLoadLane, 1, 1, 1, 128, 1, 1, nullptr, 64);
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  for (int64_t t = 0; t < 128; ++t) {
    EXPECT_EQ(gOut[t], 0x7F) << "lane " << t << ": a load landed before its wait";
    EXPECT_EQ(gOut[256 + t], 1) << "lane " << t << ": wait(1) lands all but the newest";
    EXPECT_EQ(gOut[128 + t], 2) << "lane " << t << ": wait(0) lands every load";
  }
  // Landing at issue (the test hook): the first read already sees them.
  lane::setLdsLoadsLandAtIssue(true);
  gOut.assign(400, -1);
  fmha_lane_launch(ldsLoadLane, 1, 1, 1, 128, 1, 1, nullptr, 64);
  lane::setLdsLoadsLandAtIssue(false);
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  EXPECT_EQ(gOut[0], 2);
}

// gfx942's 4-byte loads into LDS: lane t loads 4 bytes into word 4 t + 1
// of a buffer whose bytes are 0x7F; after the wait, exactly those 4 bytes
// changed (gOut[4 t + j], j = 0..7 of the lane's two words), and a size
// other than 4 or 16 is an error.
void ldsLoad4Lane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  auto *s = static_cast<uint8_t *>(fmha_lane_shared(0, 8 * 64));
  int64_t word = 0x0102030405060708;
  fmha_lane_lds_load(reinterpret_cast<int64_t>(s + 8 * t + 4), word, word, 4);
  fmha_lane_lds_load_wait(10, 0);
  fmha_lane_barrier(1);
  for (int64_t j = 0; j < 8; ++j)
    gOut[8 * t + j] = s[8 * t + j];
}

TEST(LaneRuntime, FourByteLdsLoadsWriteFourBytes) {
  gOut.assign(512, -1);
  fmha_lane_launch(ldsLoad4Lane, 1, 1, 1, 64, 1, 1, nullptr, 64);
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  for (int64_t t = 0; t < 64; ++t)
    for (int64_t j = 0; j < 8; ++j)
      EXPECT_EQ(gOut[8 * t + j], j < 4 ? 0x7F : 8 - (j - 4)) << "lane " << t << " byte " << j;
}

// The wait is the wave's (s_waitcnt): every lane's loads land before any
// lane goes on, so a lane reads, with no barrier, the word the next lane's
// load wrote into its slot (gfx942's loads write other lanes' chunks).
void ldsLoadWaveWaitLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  auto *s = static_cast<int32_t *>(fmha_lane_shared(0, 4 * 64));
  int64_t word = 1000 + t;
  fmha_lane_lds_load(reinterpret_cast<int64_t>(s + (t + 63) % 64), word, 0, 4);
  fmha_lane_lds_load_wait(20, 0);
  gOut[t] = s[t];
}

TEST(LaneRuntime, TheLdsWaitIsTheWaves) {
  gOut.assign(64, -1);
  fmha_lane_launch(ldsLoadWaveWaitLane, 1, 1, 1, 64, 1, 1, nullptr, 64);
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  for (int64_t t = 0; t < 64; ++t)
    EXPECT_EQ(gOut[t], 1000 + (t + 1) % 64) << "lane " << t;
}

// A store to bytes a load into LDS still has in flight: the load lands
// over it, an order the hardware does not define, and the emulator says so.
void ldsLoadOverStoreLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  auto *s = static_cast<uint8_t *>(fmha_lane_shared(0, 16 * 64));
  fmha_lane_lds_load(reinterpret_cast<int64_t>(s + 16 * t), 1, 1, 16);
  s[16 * t] = 9;
  fmha_lane_lds_load_wait(21, 0);
}

TEST(LaneRuntime, AnLdsLoadLandingOverAStoreIsAnError) {
  fmha_lane_launch(ldsLoadOverStoreLane, 1, 1, 1, 64, 1, 1, nullptr, 64);
  EXPECT_NE(lane::takeLaneRuntimeError().find("lands on bytes written while it was in flight"),
            std::string::npos);
}

// The LDS bank model (setLdsBankModel, 32 banks of 4 bytes): a wave's
// 16-byte accesses go 8 lanes a cycle. Lane t reads 16 bytes at 16 t (every
// bank once a group: 8 cycles, the fewest), at 128 t (rows of 128 bytes:
// the 8 lanes of a group in the same 4 banks, 8 cycles each: 64), at 0 (one
// word read by every lane: 8), and writes 4 bytes at 4 t (32 lanes a cycle
// on 32 banks: 2); a 64-byte read at 128 t is four 16-byte ones (256).
void ldsBankLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  auto *s = static_cast<uint8_t *>(fmha_lane_shared(0, 128 * 64));
  int64_t base = reinterpret_cast<int64_t>(s);
  fmha_lane_lds_access(30, base + 16 * t, 16, 0);
  fmha_lane_lds_access(31, base + 128 * t, 16, 0);
  fmha_lane_lds_access(32, base, 16, 0);
  fmha_lane_lds_access(33, base + 4 * t, 4, 1);
  // 64 bytes at 128 t: four 16-byte pieces, each as the read at 128 t.
  fmha_lane_lds_access(34, base + 128 * t, 64, 0);
}

TEST(LaneRuntime, LdsBankModelCountsConflicts) {
  lane::takeLaneRuntimeStats();
  lane::setLdsBankModel(32);
  fmha_lane_launch(ldsBankLane, 1, 1, 1, 64, 1, 1, nullptr, 64);
  lane::setLdsBankModel(0);
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  lane::LaneRuntimeStats st = lane::takeLaneRuntimeStats();
  EXPECT_EQ(st.ldsReads, 4);
  EXPECT_EQ(st.ldsReadCycles, 8 + 64 + 8 + 4 * 64);
  EXPECT_EQ(st.ldsReadIdeal, 3 * 8 + 4 * 8);
  EXPECT_EQ(st.ldsWrites, 1);
  EXPECT_EQ(st.ldsWriteCycles, 2);
  EXPECT_EQ(st.ldsWriteIdeal, 2);
  // Off (the default): the calls count nothing.
  fmha_lane_launch(ldsBankLane, 1, 1, 1, 64, 1, 1, nullptr, 64);
  st = lane::takeLaneRuntimeStats();
  EXPECT_EQ(st.ldsReads + st.ldsWrites, 0);
}

void ldsLoadBadSizeLane(int64_t *) {
  auto *s = static_cast<uint8_t *>(fmha_lane_shared(0, 64));
  fmha_lane_lds_load(reinterpret_cast<int64_t>(s), 1, 1, 8);
}

TEST(LaneRuntime, LdsLoadOfAnotherSizeIsAnError) {
  fmha_lane_launch(ldsLoadBadSizeLane, 1, 1, 1, 64, 1, 1, nullptr, 64);
  EXPECT_NE(lane::takeLaneRuntimeError().find("a load into LDS of 8 bytes"), std::string::npos);
}

void ldsLoadOutsideLane(int64_t *) {
  int64_t local[2] = {0, 0};
  fmha_lane_shared(0, 64);
  fmha_lane_lds_load(reinterpret_cast<int64_t>(local), 1, 1, 16);
}

TEST(LaneRuntime, LdsLoadOutsideTheWorkgroupBuffersIsAnError) {
  fmha_lane_launch(ldsLoadOutsideLane, 1, 1, 1, 64, 1, 1, nullptr, 64);
  EXPECT_NE(lane::takeLaneRuntimeError().find("outside the workgroup buffers"),
            std::string::npos);
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

// One wave at the barrier of site 1, the other at site 2: neither passes.
void missedBarrierLane(int64_t *) {
  fmha_lane_barrier(fmha_lane_id(lane::ThreadX) < 64 ? 1 : 2);
}

TEST(LaneRuntime, BarrierMissedByAWaveIsAnError) {
  fmha_lane_launch(missedBarrierLane, 1, 1, 1, 128, 1, 1, nullptr, 64);
  std::string e = lane::takeLaneRuntimeError();
  EXPECT_NE(e.find("barrier not reached"), std::string::npos) << e;
}

// Lanes that returned do not hold the workgroup barrier back (a GPU counts
// the waves that have not ended): wave 1 returns, wave 0 passes twice.
void returnedWaveLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  if (t >= 64)
    return;
  fmha_lane_barrier(1);
  fmha_lane_barrier(2);
  gOut[t] = 1;
}

TEST(LaneRuntime, BarrierPassesWithoutTheLanesThatReturned) {
  gOut.assign(64, 0);
  lane::takeLaneRuntimeStats();
  fmha_lane_launch(returnedWaveLane, 1, 1, 1, 128, 1, 1, nullptr, 64);
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  for (int64_t t = 0; t < 64; ++t)
    EXPECT_EQ(gOut[t], 1) << "lane " << t;
  EXPECT_EQ(lane::takeLaneRuntimeStats().barriers, 2);
}

void returnedHalfWaveLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  if (t >= 96) // half of the second wave of 64
    return;
  fmha_lane_barrier(1);
}

// Returned lanes stand in for a barrier only as whole waves: half a wave
// gone while its other half waits is divergence.
TEST(LaneRuntime, BarrierWithHalfAWaveReturnedIsAnError) {
  fmha_lane_launch(returnedHalfWaveLane, 1, 1, 1, 128, 1, 1, nullptr, 64);
  std::string err = lane::takeLaneRuntimeError();
  EXPECT_NE(err.find("lanes of one wave diverged"), std::string::npos) << err;
  EXPECT_NE(err.find("32 of the 64 lanes from 64 returned"), std::string::npos) << err;
}

TEST(LaneRuntime, BadLaunchIsAnError) {
  fmha_lane_launch(missedBarrierLane, 1, 1, 1, 0, 1, 1, nullptr, 64);
  EXPECT_NE(lane::takeLaneRuntimeError().find("invalid launch"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Warp specialization: mbarriers, named barriers, elect.sync
//===----------------------------------------------------------------------===//

int64_t addressOf(const void *p) {
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p));
}

/// A ring of 2 stages between 1 producer warp (threads 0-31) and 2
/// consumer warps (32-95), wave 32, as sm_90a's warp-specialized kernels
/// run it. full[s] expects the 32 producer lanes, empty[s] the 64 consumer
/// lanes. Tile k goes to stage k % 2 in round k / 2; a stage's barrier
/// completes one phase per round, so round r waits for parity r & 1 (full)
/// and the producer for parity (r & 1) ^ 1 (empty: the phase before phase
/// 0 counts as completed, so round 0 passes at once).
struct Ring {
  int64_t tiles = 64;
  bool producerWaitsEmpty = true, consumerWaitsFull = true;
  std::vector<int64_t> sums; // one per consumer lane
};
Ring *gRing = nullptr;

int64_t ringValue(int64_t tile, int64_t lane) { return 1000 * tile + lane + 1; }

void ringLane(int64_t *) {
  Ring &w = *gRing;
  int64_t t = fmha_lane_id(lane::ThreadX);
  auto *bars = static_cast<int64_t *>(fmha_lane_shared(0, 4 * 8));
  auto *stage = static_cast<int64_t *>(fmha_lane_shared(1, 2 * 32 * 8));
  auto full = [&](int64_t s) { return addressOf(bars + s); };
  auto empty = [&](int64_t s) { return addressOf(bars + 2 + s); };
  if (t == 0)
    for (int64_t s = 0; s < 2; ++s) {
      fmha_lane_mbarrier_init(1, full(s), 32);
      fmha_lane_mbarrier_init(2, empty(s), 64);
    }
  fmha_lane_barrier(3);
  if (t < 32) {
    for (int64_t k = 0; k < w.tiles; ++k) {
      int64_t s = k % 2, r = k / 2;
      if (w.producerWaitsEmpty)
        fmha_lane_mbarrier_wait(4, empty(s), static_cast<int32_t>((r & 1) ^ 1));
      stage[s * 32 + t] = ringValue(k, t);
      fmha_lane_mbarrier_arrive(5, full(s), 1);
    }
    return;
  }
  int64_t c = t - 32, sum = 0;
  for (int64_t k = 0; k < w.tiles; ++k) {
    int64_t s = k % 2, r = k / 2;
    if (w.consumerWaitsFull)
      fmha_lane_mbarrier_wait(6, full(s), static_cast<int32_t>(r & 1));
    sum += stage[s * 32 + c % 32];
    fmha_lane_mbarrier_arrive(7, empty(s), 1);
  }
  w.sums[c] = sum;
}

/// Consumer lane c's sum over all tiles: sum_k 1000 k + (c % 32) + 1.
int64_t ringSum(int64_t tiles, int64_t c) {
  return 1000 * tiles * (tiles - 1) / 2 + tiles * (c % 32 + 1);
}

void runRing(Ring &w) {
  w.sums.assign(64, -1);
  gRing = &w;
  fmha_lane_launch(ringLane, 2, 1, 1, 96, 1, 1, nullptr, 32);
  gRing = nullptr;
}

TEST(LaneWarpSpecialization, ProducerConsumerRingSumsExactly) {
  Ring w;
  lane::takeLaneRuntimeStats();
  runRing(w);
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  for (int64_t c = 0; c < 64; ++c)
    EXPECT_EQ(w.sums[c], ringSum(w.tiles, c)) << "consumer lane " << c;
  lane::LaneRuntimeStats st = lane::takeLaneRuntimeStats();
  EXPECT_EQ(st.workgroups, 2);
  // Both sides waited (the producer runs ahead until a stage is full).
  EXPECT_GT(st.mbarrierWaits, 0);
}

// Without the producer's empty wait, the producer lanes (first in thread
// order) run through all 64 tiles before any consumer reads: every stage
// holds the last tiles, and each full barrier completed all its 32 phases
// (an even count, current parity 0), so the consumers' first wait (parity
// 0) waits for a phase nobody completes: a deadlock, named.
TEST(LaneWarpSpecialization, RingWithoutTheEmptyWaitIsCaught) {
  Ring w;
  w.producerWaitsEmpty = false;
  runRing(w);
  std::string e = lane::takeLaneRuntimeError();
  EXPECT_NE(e.find("deadlock in workgroup (0, 0, 0): lane 32 waits at mbarrier 0x"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("lanes 0-31: return"), std::string::npos) << e;
  EXPECT_NE(e.find("parity 0 at site 6 (phase 32, 32 of 32 arrivals pending)"),
            std::string::npos)
      << e;
}

// Without the consumers' full wait, each consumer lane reads all 64 tiles
// at once (arrives never wait) while the stages hold tiles 0 and 1 (the
// producer waits for an empty stage): the sums are wrong. The consumers'
// 64 x 32 arrivals then completed 32 phases of each empty barrier (current
// parity 0): the producer passes its round-2 waits (parity 1) and waits
// forever in round 3 (parity 0): a deadlock too.
TEST(LaneWarpSpecialization, RingWithoutTheFullWaitGivesWrongSums) {
  Ring w;
  w.consumerWaitsFull = false;
  runRing(w);
  std::string e = lane::takeLaneRuntimeError();
  EXPECT_NE(e.find("deadlock in workgroup (0, 0, 0): lane 0 waits at mbarrier 0x"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("parity 0 at site 4 (phase 32, 64 of 64 arrivals pending); lane "
                   "states: lanes 0-31: mbarrier "),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("lanes 32-95: return"), std::string::npos) << e;
  for (int64_t c = 0; c < 64; ++c) {
    EXPECT_NE(w.sums[c], ringSum(w.tiles, c)) << "consumer lane " << c;
    EXPECT_EQ(w.sums[c], 32 * (ringValue(0, c % 32) + ringValue(1, c % 32)));
  }
}

// Warp 0 waits for a phase of an mbarrier that expects the 32 lanes of
// warp 1, whose last lane returns without arriving.
int64_t gMbar = 0;

void deadlockLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  auto *bars = static_cast<int64_t *>(fmha_lane_shared(0, 8));
  gMbar = addressOf(bars);
  if (t == 0)
    fmha_lane_mbarrier_init(1, gMbar, 32);
  fmha_lane_barrier(2);
  if (t < 32)
    fmha_lane_mbarrier_wait(3, gMbar, 0);
  else if (t != 63)
    fmha_lane_mbarrier_arrive(4, gMbar, 1);
}

TEST(LaneWarpSpecialization, DeadlockNamesTheMBarrier) {
  fmha_lane_launch(deadlockLane, 1, 1, 1, 64, 1, 1, nullptr, 32);
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(gMbar));
  std::string bar = std::string("mbarrier ") + hex +
                    " parity 0 at site 3 (phase 0, 1 of 32 arrivals pending)";
  EXPECT_EQ(lane::takeLaneRuntimeError(),
            "deadlock in workgroup (0, 0, 0): lane 0 waits at " + bar +
                "; lane states: lanes 0-31: " + bar + "; lanes 32-63: return");
}

void uninitialisedLane(int64_t *) {
  auto *bars = static_cast<int64_t *>(fmha_lane_shared(0, 16));
  if (fmha_lane_id(lane::ThreadX) == 0)
    fmha_lane_mbarrier_init(1, addressOf(bars), 32);
  fmha_lane_barrier(2);
  fmha_lane_mbarrier_wait(3, addressOf(bars + 1), 0); // the next 8 bytes
}

TEST(LaneWarpSpecialization, UninitialisedMBarrierIsAnError) {
  fmha_lane_launch(uninitialisedLane, 1, 1, 1, 32, 1, 1, nullptr, 32);
  std::string e = lane::takeLaneRuntimeError();
  EXPECT_NE(e.find("a wait on mbarrier 0x"), std::string::npos) << e;
  EXPECT_NE(e.find(", which was never initialised (workgroup (0, 0, 0) lane 0 at site 3)"),
            std::string::npos)
      << e;
}

void initOutsideLane(int64_t *) {
  int64_t onStack = 0;
  fmha_lane_shared(0, 8);
  fmha_lane_mbarrier_init(1, addressOf(&onStack), 32);
}

TEST(LaneWarpSpecialization, MBarrierOutsideSharedMemoryIsAnError) {
  fmha_lane_launch(initOutsideLane, 1, 1, 1, 32, 1, 1, nullptr, 32);
  std::string e = lane::takeLaneRuntimeError();
  EXPECT_NE(e.find("not 8 aligned bytes of the workgroup's buffers"), std::string::npos) << e;
}

// try_wait.parity on a completed phase returns at once: parity 1 right
// after init (the phase before phase 0), parity 0 once all 32 arrived
// (and a barrier ordered the arrivals before the wait).
void completedPhaseLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  auto *bars = static_cast<int64_t *>(fmha_lane_shared(0, 8));
  if (t == 0)
    fmha_lane_mbarrier_init(1, addressOf(bars), 32);
  fmha_lane_barrier(2);
  fmha_lane_mbarrier_wait(3, addressOf(bars), 1);
  int64_t phase = fmha_lane_mbarrier_arrive(4, addressOf(bars), 1);
  fmha_lane_barrier(5);
  fmha_lane_mbarrier_wait(6, addressOf(bars), 0);
  gOut[t] = 1 + phase; // the arrive returned the phase before it: 0
}

TEST(LaneWarpSpecialization, WaitOnACompletedPhaseReturnsAtOnce) {
  gOut.assign(32, 0);
  lane::takeLaneRuntimeStats();
  fmha_lane_launch(completedPhaseLane, 1, 1, 1, 32, 1, 1, nullptr, 32);
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  for (int64_t t = 0; t < 32; ++t)
    EXPECT_EQ(gOut[t], 1) << "lane " << t;
  EXPECT_EQ(lane::takeLaneRuntimeStats().mbarrierWaits, 0);
}

// Named barriers among 96 threads: warp 1 (32-63) writes round r's data
// and arrives at barrier 1 (bar.arrive 1, 64: no wait), warp 2 (64-95)
// waits there (bar.sync 1, 64) and reads; barrier 2 runs the other way
// before the next write. Warp 0 meanwhile shuffles and syncs alone at
// barrier 3 (32 threads), never at 1 or 2.
struct NamedWorld {
  int64_t rounds = 8;
  int32_t count = 64; // barrier 1's thread count
  bool drain = true;   // warp 1 ends with barrier 2's last generation
  std::vector<int64_t> sums;
};
NamedWorld *gNamed = nullptr;

void namedLane(int64_t *) {
  NamedWorld &w = *gNamed;
  int64_t t = fmha_lane_id(lane::ThreadX);
  auto *data = static_cast<int64_t *>(fmha_lane_shared(0, 32 * 8));
  int64_t sum = 0;
  for (int64_t r = 0; r < w.rounds; ++r) {
    if (t < 32) {
      sum += fmha_lane_shuffle(1, lane::Xor, static_cast<int32_t>(r + t), 1, 32) & 0xFFFFFFFF;
      fmha_lane_named_barrier(2, 3, 32, 1);
    } else if (t < 64) {
      if (r)
        fmha_lane_named_barrier(3, 2, 64, 1);
      data[t - 32] = ringValue(r, t - 32);
      fmha_lane_named_barrier(4, 1, w.count, 0);
    } else {
      fmha_lane_named_barrier(5, 1, w.count, 1);
      sum += data[t - 64];
      fmha_lane_named_barrier(6, 2, 64, 0);
    }
  }
  // Warp 1 takes warp 2's last arrival at barrier 2 (else it would be
  // pending when the workgroup ends, an error).
  if (t >= 32 && t < 64 && w.drain)
    fmha_lane_named_barrier(7, 2, 64, 1);
  w.sums[t] = sum;
}

TEST(LaneWarpSpecialization, NamedBarriersOfPartOfTheWorkgroup) {
  NamedWorld w;
  w.sums.assign(96, -1);
  lane::takeLaneRuntimeStats();
  gNamed = &w;
  fmha_lane_launch(namedLane, 1, 1, 1, 96, 1, 1, nullptr, 32);
  gNamed = nullptr;
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  for (int64_t t = 0; t < 32; ++t) { // sum_r (r + (t ^ 1))
    EXPECT_EQ(w.sums[t], w.rounds * (w.rounds - 1) / 2 + w.rounds * (t ^ 1)) << "lane " << t;
    EXPECT_EQ(w.sums[32 + t], 0) << "lane " << 32 + t;
    EXPECT_EQ(w.sums[64 + t], ringSum(w.rounds, t)) << "lane " << 64 + t;
  }
  // Barrier 3, 1 and 2 every round.
  EXPECT_EQ(lane::takeLaneRuntimeStats().namedBarriers, 3 * w.rounds);
}

TEST(LaneWarpSpecialization, ArrivalsPendingAtTheEndAreAnError) {
  NamedWorld w;
  w.drain = false;
  w.sums.assign(96, -1);
  gNamed = &w;
  fmha_lane_launch(namedLane, 1, 1, 1, 96, 1, 1, nullptr, 32);
  gNamed = nullptr;
  std::string e = lane::takeLaneRuntimeError();
  EXPECT_NE(e.find("named barrier 2 has 32 of 64 arrivals pending when"), std::string::npos)
      << e;
}

TEST(LaneWarpSpecialization, NamedBarrierCountNotOfWholeWavesIsAnError) {
  NamedWorld w;
  w.count = 48;
  w.sums.assign(96, -1);
  gNamed = &w;
  fmha_lane_launch(namedLane, 1, 1, 1, 96, 1, 1, nullptr, 32);
  gNamed = nullptr;
  std::string e = lane::takeLaneRuntimeError();
  EXPECT_NE(e.find("bar.arrive 1, 48: the thread count must be a multiple of the wave size 32"),
            std::string::npos)
      << e;
}

// Two counts in one generation of barrier 1: warp 0 states 64, warp 1 96.
void mixedCountLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  fmha_lane_named_barrier(1, 1, t < 32 ? 64 : 96, 1);
}

TEST(LaneWarpSpecialization, NamedBarrierCountsMustAgree) {
  fmha_lane_launch(mixedCountLane, 1, 1, 1, 96, 1, 1, nullptr, 32);
  std::string e = lane::takeLaneRuntimeError();
  EXPECT_NE(e.find("bar.sync 1, 96: earlier arrivals of this generation (32) stated 64 threads"),
            std::string::npos)
      << e;
}

void electLane(int64_t *) {
  int64_t t = fmha_lane_id(lane::ThreadX);
  gOut[t] = fmha_lane_elect(1);
}

TEST(LaneWarpSpecialization, ElectChoosesEachWavesFirstLane) {
  gOut.assign(64, -1);
  fmha_lane_launch(electLane, 1, 1, 1, 64, 1, 1, nullptr, 32);
  ASSERT_EQ(lane::takeLaneRuntimeError(), "");
  for (int64_t t = 0; t < 64; ++t)
    EXPECT_EQ(gOut[t], t % 32 == 0 ? 1 : 0) << "lane " << t;
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

// v_perm_b32 as the runtime models it, on the cases whose results LLVM's
// constant folding of llvm.amdgcn.perm gives (test/Target/AMDGPU/Inputs/perm.ll,
// checked by v-transpose-perm_gfx942.test): source 1 is bytes 0-3, source 0
// bytes 4-7, selector 12 is 0x00 and 13 is 0xFF.
TEST(LaneRuntime, PermB32MatchesLLVM) {
  EXPECT_EQ(fmha_lane_perm_b32(0x07060504, 0x03020100, 0x05010400), 83952640);
  EXPECT_EQ(fmha_lane_perm_b32(0x07060504, 0x03020100, 0x07030602), 117638658);
  EXPECT_EQ(fmha_lane_perm_b32(0x07060504, 0x03020100, 0x0c0d0700), 16713472);
}
