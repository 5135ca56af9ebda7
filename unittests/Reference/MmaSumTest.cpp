//===- MmaSumTest.cpp - The FP8 wgmma step against the H200's own sums ----===//
//
// data/wgmma_fp8_h200: 2,816 rows (rows.bin: int32 count, 32 e4m3 bytes a
// row, one f32 C a row; rows.json labels them) and what one
// wgmma.mma_async m64n8k32 e4m3 returned for them on an H200 with every B
// element b (d-<b>.bin, f32 a row), from bench/nvidia/probes (2026-12-05).
// The model must give the hardware's f32 bit for bit on every row.
//
//===----------------------------------------------------------------------===//
#include "fmha/Reference/FloatCodec.h"
#include "fmha/Reference/MmaSum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace fmha::ref;

namespace {

std::vector<char> slurp(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

const std::string kDir = FMHA_MMASUM_DATA_DIR;

struct Rows {
  int32_t n = 0;
  std::vector<float> a; // n x 32 decoded
  std::vector<float> c;
};

Rows loadRows() {
  std::vector<char> raw = slurp(kDir + "/rows.bin");
  Rows r;
  EXPECT_GE(raw.size(), 4u);
  std::memcpy(&r.n, raw.data(), 4);
  EXPECT_EQ(raw.size(), 4u + r.n * 36u);
  for (int64_t i = 0; i < r.n * 32; ++i)
    r.a.push_back(decodeFp8(DType::F8E4M3FN, static_cast<uint8_t>(raw[4 + i])));
  r.c.resize(r.n);
  std::memcpy(r.c.data(), raw.data() + 4 + r.n * 32, r.n * 4u);
  return r;
}

uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

float step(float c, std::vector<float> a, float b) {
  a.resize(32, 0.0f);
  std::vector<float> bs(32, b);
  return wgmmaFp8Step(c, a.data(), DType::F8E4M3FN, bs.data(), DType::F8E4M3FN, 32);
}

} // namespace

TEST(WgmmaFp8Step, MatchesTheH200BitForBit) {
  Rows r = loadRows();
  ASSERT_EQ(r.n, 2816);
  const char *bytes[] = {"0x38", "0x3C", "0x3F", "0x30", "0x39",
                         "0x7E", "0xBE", "0x01", "0x04"};
  int64_t checked = 0;
  for (const char *bb : bytes) {
    std::vector<char> raw = slurp(kDir + "/d-" + bb + ".bin");
    ASSERT_EQ(raw.size(), r.n * 4u) << bb;
    std::vector<float> d(r.n);
    std::memcpy(d.data(), raw.data(), raw.size());
    const float b = decodeFp8(DType::F8E4M3FN, static_cast<uint8_t>(std::stoi(bb, nullptr, 16)));
    std::vector<float> bs(32, b);
    int64_t wrong = 0;
    for (int32_t i = 0; i < r.n; ++i) {
      float m = wgmmaFp8Step(r.c[i], &r.a[i * 32], DType::F8E4M3FN, bs.data(),
                             DType::F8E4M3FN, 32);
      wrong += bitsOf(m) != bitsOf(d[i]);
      ++checked;
    }
    EXPECT_EQ(wrong, 0) << "b = " << bb;
  }
  EXPECT_EQ(checked, 9 * 2816);
}

// The same rows through mma.sync differ: the model is wgmma's only.
TEST(WgmmaFp8Step, IsNotMmaSync) {
  Rows r = loadRows();
  std::vector<char> raw = slurp(kDir + "/mma-sync-0x38.bin");
  ASSERT_EQ(raw.size(), r.n * 4u);
  std::vector<float> d(r.n), ones(32, 1.0f);
  std::memcpy(d.data(), raw.data(), raw.size());
  int64_t differ = 0;
  for (int32_t i = 0; i < r.n; ++i)
    differ += bitsOf(wgmmaFp8Step(r.c[i], &r.a[i * 32], DType::F8E4M3FN, ones.data(),
                                  DType::F8E4M3FN, 32)) != bitsOf(d[i]);
  EXPECT_GT(differ, 1000);
}

// The rule on cases worked by hand (the first eight are rows the H200 ran;
// the product exponent rule is tested by the replay above, whose B = 1.5,
// 1.875, 448 and -1.75 rows a normalised exponent gets wrong about half
// the time).
TEST(WgmmaFp8Step, CutsBelowTheLargestTerm) {
  // 256 = 2^8: the grid is 2^(8 - 13) = 2^-5.
  EXPECT_EQ(step(0, {256, 0.03125f}, 1), 256.03125f);
  EXPECT_EQ(step(0, {256, 0.015625f}, 1), 256.0f);
  EXPECT_EQ(step(0, {256, -0.015625f}, 1), 256.0f);      // toward zero
  EXPECT_EQ(step(0, {256, 0.046875f}, 1), 256.03125f);   // 3 * 2^-6
  std::vector<float> many(32, 0.015625f);                // 31 x 2^-6: each lost
  many[0] = 256;
  EXPECT_EQ(step(0, many, 1), 256.0f);
  EXPECT_EQ(step(0, {256, -256, 0.015625f}, 1), 0.0f);   // aligned before cancelling
  // C = 2^14 + 1: the grid is 2; 2^13 + 1.5 -> 2^13 + 1.
  EXPECT_EQ(step(16384, {1}, 1), 16384.0f);
  EXPECT_EQ(step(8192, {1.5f}, 1), 8193.0f);
  // The sum keeps 14 significant bits. 8 x 448 + 0.25: the grid beside 448
  // (2^8) is 2^-5; 3584.25 < 2^12 needs 14 bits at step 2^-2, so it stays.
  EXPECT_EQ(step(0, {448, 448, 448, 448, 448, 448, 448, 448, 0.25f}, 1), 3584.25f);
  // 16 x 448 + 0.25 = 7168.25 < 2^13 would need 15: cut to 7168.
  std::vector<float> sixteen(16, 448.0f);
  sixteen.push_back(0.25f);
  EXPECT_EQ(step(0, sixteen, 1), 7168.0f);
}
