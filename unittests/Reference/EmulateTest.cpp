//===- EmulateTest.cpp - The step-by-step kernel emulation ----------------===//

#include "fmha/Reference/Compare.h"
#include "fmha/Reference/Emulate.h"
#include "fmha/Reference/FloatCodec.h"
#include "fmha/Reference/Oracle.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

using namespace fmha::ref;

namespace {

Request edgeRequest() {
  Request r = test::smallRequest();
  r.qo_lens = {7, 19, 1, 0, 5, 12};
  r.kv_lens = {40, 19, 33, 10, 0, 5};
  return r;
}

/// The default request of the project at a size that runs in about a second:
/// fp8 e4m3 Q/K/V, kv_blockscale, P = 1024, 32/8 heads, D = 128, causal, CSR,
/// bf16 out; two sequences, each with a partly filled last page.
Request defaultRequest(DType e4m3, DType out = DType::BF16) {
  Request r; // member defaults are the default request
  r.q_dtype = r.kv_dtype = e4m3;
  r.out_dtype = out;
  r.qo_lens = {128, 96};
  r.kv_lens = {1280, 1100};
  r.seed = 2024;
  return r;
}

/// With P kept in f32 and no shift, the emulation differs from the oracle only
/// by f32 rounding: this checks the online softmax, the tiling, kd/vd per page
/// run and the masks, independent of the P cast.
void expectF32EmulationMatchesOracle(const Inputs &in, int64_t blockN) {
  EmulateOptions opt;
  opt.block_n = blockN;
  opt.p_dtype = DType::F32;
  opt.shift = 0;
  EmulateResult e = runEmulation(in, opt);
  OracleResult o = runOracle(in);
  double maxAbs, relFro;
  test::errors(e.out_f32, o.out, maxAbs, relFro);
  EXPECT_LT(relFro, 2e-6) << "block_n " << blockN;
  EXPECT_LT(maxAbs, 1e-5) << "block_n " << blockN;
  for (size_t i = 0; i < o.lse.size(); ++i) {
    if (std::isinf(o.lse[i])) {
      ASSERT_EQ(double(e.lse[i]), o.lse[i]) << i;
      continue;
    }
    ASSERT_NEAR(e.lse[i], o.lse[i], 2e-5 * std::max(1.0, std::fabs(o.lse[i])));
  }
}

} // namespace

TEST(Emulate, F32PMatchesOracleOverMasksPagesTiles) {
  const Mask masks[] = {Mask::none(), Mask::causal(), Mask::window(5, 0),
                        Mask::window(-1, 3), Mask::window(9, 9)};
  for (const Mask &mask : masks)
    for (int64_t P : {1, 16, 48}) {
      Request r = edgeRequest();
      r.mask = mask;
      r.page_size = P;
      r.soft_cap = P == 48 ? 0.7 : 0.0;
      SCOPED_TRACE(r.str());
      Inputs in = makeInputs(r);
      // block_n below, equal to and above the page size: one page per tile,
      // and tiles spanning pages (kd/vd per column / per page run).
      for (int64_t bn : {1, 16, 32, 64})
        expectF32EmulationMatchesOracle(in, bn);
    }
}

TEST(Emulate, DefaultPTypeAndShift) {
  Request r = test::smallRequest();
  EXPECT_EQ(defaultPType(r), DType::F8E4M3FN);
  r.q_dtype = r.kv_dtype = DType::F8E4M3FNUZ;
  Inputs in = makeInputs(r);
  EmulateResult e = runEmulation(in);
  EXPECT_EQ(e.p_dtype, DType::F8E4M3FNUZ);
  EXPECT_EQ(e.shift, 7);
  r.q_dtype = DType::BF16;
  EXPECT_EQ(defaultPType(r), DType::BF16);
  EXPECT_EQ(runEmulation(makeInputs(r)).shift, 0);
  EmulateOptions bad;
  bad.block_n = 0;
  EXPECT_THROW(runEmulation(in, bad), std::invalid_argument);
}

TEST(Emulate, ShiftIsSubtractedFromLse) {
  // With f32 P the shift only scales p and l by 2^SHIFT: O and lse must not
  // move (a kernel that forgets to subtract it is off by SHIFT * ln 2).
  Inputs in = makeInputs(edgeRequest());
  EmulateOptions a, b;
  a.p_dtype = b.p_dtype = DType::F32;
  a.shift = 0;
  b.shift = 8;
  EmulateResult ea = runEmulation(in, a), eb = runEmulation(in, b);
  double maxAbs, relFro;
  test::errors(eb.out_f32, ea.out_f32, maxAbs, relFro);
  EXPECT_LT(relFro, 1e-6);
  for (size_t i = 0; i < ea.lse.size(); ++i) {
    if (std::isinf(ea.lse[i]))
      ASSERT_EQ(ea.lse[i], eb.lse[i]);
    else
      ASSERT_NEAR(ea.lse[i], eb.lse[i], 1e-5);
  }
}

TEST(Emulate, BlockMDoesNotChangeTheNumbers) {
  Inputs in = makeInputs(edgeRequest());
  EmulateOptions a, b;
  a.block_m = 1;
  b.block_m = 128;
  EmulateResult ea = runEmulation(in, a), eb = runEmulation(in, b);
  EXPECT_EQ(ea.out, eb.out);
  EXPECT_EQ(ea.lse, eb.lse);
}

TEST(Emulate, FullyMaskedRowsAndEmptySequences) {
  Request r = edgeRequest(); // Sk = 0 in sequence 4, Sq > Sk in sequence 5
  Inputs in = makeInputs(r);
  EmulateResult e = runEmulation(in);
  const int64_t Hq = r.num_qo_heads, Dv = r.headDimV();
  auto masked = [&](int64_t row) {
    for (int64_t h = 0; h < Hq; ++h) {
      ASSERT_TRUE(std::isinf(e.lse[row * Hq + h]) && e.lse[row * Hq + h] < 0);
      for (int64_t d = 0; d < Dv; ++d)
        ASSERT_EQ(e.out_f32[(row * Hq + h) * Dv + d], 0.0f);
    }
  };
  for (int64_t row = in.qo_indptr[4]; row < in.qo_indptr[5]; ++row)
    masked(row);
  for (int64_t i = 0; i < 7; ++i)
    masked(in.qo_indptr[5] + i);
  r.qo_lens = {0};
  r.kv_lens = {0};
  EXPECT_TRUE(runEmulation(makeInputs(r)).out.empty());
}

TEST(Emulate, MeetsOracleToleranceOnSmallCases) {
  for (DType t : {DType::F8E4M3FN, DType::F8E4M3FNUZ})
    for (int64_t P : {1, 16, 48})
      for (TableForm f : {TableForm::CSR, TableForm::Block}) {
        Request r = edgeRequest();
        r.q_dtype = r.kv_dtype = t;
        r.page_size = P;
        r.table = f;
        r.layout = P == 16 ? KVLayout::HND : KVLayout::NHD;
        SCOPED_TRACE(r.str());
        Inputs in = makeInputs(r);
        EmulateResult e = runEmulation(in);
        CompareResult c = compareWithOracle(in, e.out.data(), e.lse.data(),
                                            runOracle(in));
        EXPECT_TRUE(c.pass) << c.summary();
      }
}

TEST(Emulate, MixedPrecisionAnd16Bit) {
  // bf16 Q with fp8 K/V (dequantized once, bf16 P) and bf16 everything.
  for (DType kv : {DType::F8E4M3FNUZ, DType::F8E5M2, DType::BF16}) {
    Request r = edgeRequest();
    r.q_dtype = DType::BF16;
    r.kv_dtype = kv;
    r.quant = isFp8(kv) ? QuantMode::KVBlockscale : QuantMode::None;
    r.out_dtype = DType::F16;
    SCOPED_TRACE(r.str());
    Inputs in = makeInputs(r);
    EmulateResult e = runEmulation(in);
    EXPECT_EQ(e.p_dtype, DType::BF16);
    CompareResult c =
        compareWithOracle(in, e.out.data(), e.lse.data(), runOracle(in));
    EXPECT_TRUE(c.pass) << c.summary();
    EXPECT_LT(c.rel_fro_err, 5e-3) << c.summary();
  }
}

// A 16-bit Q quantized per tile (the GPU kernels' q_scale = per_tile): the
// emulation meets the bars against the oracle of the same quantized Q
// (OracleOptions::q_tile_rows), its error against the exact-Q oracle is
// larger in lse (the quantization's own error), and block_m now matters.
TEST(Emulate, QuantizedQPerTile) {
  for (DType q : {DType::BF16, DType::F16}) {
    Request r = edgeRequest();
    r.q_dtype = q;
    r.kv_dtype = DType::F8E4M3FN;
    r.quant = QuantMode::KVBlockscale;
    r.return_lse = true;
    SCOPED_TRACE(r.str());
    Inputs in = makeInputs(r);
    EmulateOptions o;
    o.q_per_tile = true;
    o.block_m = 16;
    o.p_dtype = DType::F8E4M3FN;
    EmulateResult e = runEmulation(in, o);
    OracleOptions oo;
    oo.q_tile_rows = 16;
    CompareResult judged =
        compareWithOracle(in, e.out.data(), e.lse.data(), runOracle(in, oo));
    EXPECT_TRUE(judged.pass) << judged.summary();
    CompareResult exact;
    CompareResult viaJudge = judgeAgainstOracle(in, e.out.data(), e.lse.data(), 16, &exact);
    EXPECT_EQ(viaJudge.rel_fro_err, judged.rel_fro_err);
    EXPECT_GT(exact.lse_max_err, judged.lse_max_err) << exact.errors();
    // Another tile height quantizes other rows together: other numbers.
    o.block_m = 4;
    EmulateResult e4 = runEmulation(in, o);
    EXPECT_NE(e4.lse, e.lse);
  }
  // Only a 16-bit Q with an fp8 cache is quantized per tile.
  Request r = edgeRequest();
  Inputs in = makeInputs(r);
  EmulateOptions o;
  o.q_per_tile = true;
  EXPECT_THROW(runEmulation(in, o), std::invalid_argument);
  OracleOptions oo;
  oo.q_tile_rows = 16;
  EXPECT_THROW(runOracle(in, oo), std::invalid_argument);
}

// The acceptance check: on the default request the emulating reference meets
// the oracle tolerance of SPEC section 6, for both e4m3 flavours of P (and
// both 16-bit outputs). The measured gaps are printed; docs/REFERENCE.md
// records them.
TEST(Emulate, DefaultRequestMeetsOracleTolerance) {
  for (DType t : {DType::F8E4M3FN, DType::F8E4M3FNUZ}) {
    Request r = defaultRequest(t);
    SCOPED_TRACE(r.str());
    Inputs in = makeInputs(r);
    OracleResult o = runOracle(in);
    EmulateResult e = runEmulation(in);
    CompareResult c = compareWithOracle(in, e.out.data(), e.lse.data(), o);
    EXPECT_TRUE(c.pass) << c.summary();
    double maxF32, relF32;
    test::errors(e.out_f32, o.out, maxF32, relF32);

    EmulateOptions unshifted;
    unshifted.shift = 0;
    EmulateResult u = runEmulation(in, unshifted);
    CompareResult cu = compareWithOracle(in, u.out.data(), u.lse.data(), o);
    std::printf("[gap] P=%s SHIFT=%d bf16-out: max_abs=%.4g rel_fro=%.4g "
                "lse_max=%.3g | f32-out: max_abs=%.4g rel_fro=%.4g\n",
                dtypeName(t), e.shift, c.max_abs_err, c.rel_fro_err,
                c.lse_max_err, maxF32, relF32);
    std::printf("[gap] P=%s SHIFT=0 (unshifted cast) bf16-out: max_abs=%.4g "
                "rel_fro=%.4g\n",
                dtypeName(t), cu.max_abs_err, cu.rel_fro_err);
    // With these inputs the logits spread little: almost every p is an fp8
    // normal with or without the shift, so the two casts nearly coincide
    // (they differ only where exp2's rounding moves p across an fp8
    // boundary). ShiftHelpsWhenPSpreadsWide shows where the shift matters.
    EXPECT_LE(c.rel_fro_err, cu.rel_fro_err * 1.02);

    // f16 output: the same f32 result, cast as the epilogue would.
    std::vector<uint8_t> out16(e.out_f32.size() * 2);
    encodeBuffer(DType::F16, e.out_f32.data(), e.out_f32.size(), out16.data(),
                 Overflow::NonSaturate);
    CompareResult c16 =
        compareOutputs(DType::F16, out16.data(), o.out.data(), o.out.size(),
                       e.lse.data(), o.lse.data(), o.lse.size(),
                       CompareMode::Oracle);
    EXPECT_TRUE(c16.pass) << c16.summary();
    std::printf("[gap] P=%s SHIFT=%d f16-out: max_abs=%.4g rel_fro=%.4g\n",
                dtypeName(t), e.shift, c16.max_abs_err, c16.rel_fro_err);
  }
}

// With a sharper softmax (sm_scale = 1 on D = 128 uniform inputs: the logits
// of a row spread over several natural-log units) and many keys, much of the
// softmax mass sits in p below the smallest fp8 normal (2^-6 for e4m3fn,
// 2^-7 for e4m3fnuz) unless shifted up by 2^SHIFT: the shift must reduce the
// error against the oracle clearly (measured: rel. Frobenius error 5.4x
// lower with the shift for e4m3fn, 2.3x for e4m3fnuz).
TEST(Emulate, ShiftHelpsWhenPSpreadsWide) {
  for (DType t : {DType::F8E4M3FN, DType::F8E4M3FNUZ}) {
    Request r = test::smallRequest();
    r.q_dtype = r.kv_dtype = t;
    r.head_dim = 128;
    r.sm_scale = 1.0;
    r.mask = Mask::none();
    r.qo_lens = {8};
    r.kv_lens = {2000};
    SCOPED_TRACE(r.str());
    Inputs in = makeInputs(r);
    OracleResult o = runOracle(in);
    EmulateOptions unshifted;
    unshifted.shift = 0;
    EmulateResult es = runEmulation(in), eu = runEmulation(in, unshifted);
    double maxS, relS, maxU, relU;
    test::errors(es.out_f32, o.out, maxS, relS);
    test::errors(eu.out_f32, o.out, maxU, relU);
    std::printf("[shift] P=%s sm_scale=1: rel_fro shifted %.4g, unshifted "
                "%.4g\n", dtypeName(t), relS, relU);
    EXPECT_LT(relS * 1.3, relU);
  }
}

// Not run by default (a few seconds): the larger measurement recorded in
// docs/REFERENCE.md. Run with --gtest_also_run_disabled_tests
// --gtest_filter='*DefaultRequestGapLarge*'.
TEST(Emulate, DISABLED_DefaultRequestGapLarge) {
  for (DType t : {DType::F8E4M3FN, DType::F8E4M3FNUZ}) {
    Request r = defaultRequest(t);
    r.qo_lens = {256, 200, 512};
    r.kv_lens = {2048, 1500, 4000};
    Inputs in = makeInputs(r);
    OracleResult o = runOracle(in);
    for (int shift : {defaultExp2Shift(t), 0}) {
      EmulateOptions opt;
      opt.shift = shift;
      EmulateResult e = runEmulation(in, opt);
      CompareResult c = compareWithOracle(in, e.out.data(), e.lse.data(), o);
      double maxF32, relF32;
      test::errors(e.out_f32, o.out, maxF32, relF32);
      std::printf("[gap-large] %s\n  P=%s SHIFT=%d bf16-out: max_abs=%.4g "
                  "rel_fro=%.4g lse_max=%.3g | f32-out: max_abs=%.4g "
                  "rel_fro=%.4g | %s\n",
                  r.str().c_str(), dtypeName(t), shift, c.max_abs_err,
                  c.rel_fro_err, c.lse_max_err, maxF32, relF32,
                  c.pass ? "PASS" : "FAIL");
    }
  }
}

TEST(Emulate, ScaledPRouteForPerKeyVd) {
  // The scaled-p route (vd_j / r folded into P before the cast): exact with P
  // in f32 (r cancels), within the oracle's tolerance with an fp8 P, and a
  // different rounding from the default route, so the flag is not ignored:
  // pages smaller than the tile, and 96 > 64 where tiles cross pages (the
  // sm_90 kernel takes the route there too). With whole tiles per page (128)
  // the route changes nothing.
  for (int64_t P : {1, 16, 96}) {
    Request r = defaultRequest(DType::F8E4M3FN);
    r.page_size = P;
    r.qo_lens = {33, 64};
    r.kv_lens = {300, 200};
    SCOPED_TRACE(r.str());
    Inputs in = makeInputs(r);
    EmulateOptions f32;
    f32.block_n = 64;
    f32.p_dtype = DType::F32;
    f32.shift = 0;
    EmulateOptions f32s = f32;
    f32s.vd_scaled_p = true;
    EmulateResult a = runEmulation(in, f32), b = runEmulation(in, f32s);
    double maxAbs, relFro;
    test::errors(a.out_f32, b.out_f32, maxAbs, relFro);
    EXPECT_LT(relFro, 1e-6);
    EmulateOptions fp8;
    fp8.block_n = 64;
    EmulateOptions fp8s = fp8;
    fp8s.vd_scaled_p = true;
    EmulateResult c = runEmulation(in, fp8), d = runEmulation(in, fp8s);
    CompareResult cmp =
        compareWithOracle(in, d.out.data(), d.lse.data(), runOracle(in));
    EXPECT_TRUE(cmp.pass) << cmp.summary();
    EXPECT_NE(c.out_f32, d.out_f32);
  }
  // (The route is taken as given: which pages get scaled_p is the config's
  // decision, fmha-select-config's completeConfig, tested there.)
}

namespace {
/// One e4m3 query row over kvLen keys, D = Dv = 64, one head, no mask, every
/// descale 1 and Q = 0, so every p = 2^8 (P = 256); V byte of key j from
/// vByte(j) in every column.
Inputs zeroQInputs(int64_t kvLen, uint8_t (*vByte)(int64_t)) {
  Request r;
  r.q_dtype = r.kv_dtype = DType::F8E4M3FN;
  r.qo_lens = {1};
  r.kv_lens = {kvLen};
  r.num_qo_heads = r.num_kv_heads = 1;
  r.head_dim = 64;
  r.mask = Mask::none();
  Inputs in = makeInputs(r);
  std::fill(in.q.begin(), in.q.end(), 0x00);
  std::fill(in.k_cache.begin(), in.k_cache.end(), 0x00);
  std::fill(in.kv_descale.begin(), in.kv_descale.end(), 1.0f);
  in.q_descale = 1.0f;
  for (int64_t j = 0; j < kvLen; ++j)
    for (int64_t d = 0; d < 64; ++d)
      in.v_cache[in.kvIndex(in.table.pageOf(r.table, 0, j), j, 0, d, 64)] = vByte(j);
  return in;
}
} // namespace

// Hopper's FP8 wgmma sums (wgmma_fp8_promote), on a row worked by hand: Q = 0
// makes every p = 2^8 (P = 256 in e4m3); key 0's V row is 448 and keys
// 1-31 hold 2^-6. One wgmma step sums 256 * 448 (exponent 8 + 8) with 31
// terms 256 * 2^-6 = 4 (exponent 2): 14 exponents below, each is cut to 0.
// Exact: (114688 + 124) / 8192 = 14.01513671875; the wgmma's: 14.

TEST(Emulate, WgmmaFp8SumsCutSmallTerms) {
  // 448 at key 0, 2^-6 at the others.
  Inputs in = zeroQInputs(32, [](int64_t j) -> uint8_t { return j == 0 ? 0x7E : 0x08; });
  EmulateOptions opt;
  opt.block_n = 128;
  EmulateResult exact = runEmulation(in, opt);
  opt.wgmma_fp8_promote = 2;
  EmulateResult wg = runEmulation(in, opt);
  ASSERT_EQ(exact.out_f32.size(), 64u);
  for (int64_t d = 0; d < 64; ++d) {
    EXPECT_FLOAT_EQ(exact.out_f32[d], 14.01513671875f) << d;
    EXPECT_EQ(wg.out_f32[d], 14.0f) << d;
  }
  // The S side: Q = 0 sums to 0 either way, so lse agrees.
  EXPECT_EQ(exact.lse[0], wg.lse[0]);
}

// On the default request with spread data (K and V 2^u apart per page) the
// wgmma sums move the output by more than f32 rounding yet stay inside the
// oracle bar; bad options are refused.
/// Two sequences (Sq 64 and `q1` over Sk 700 and 300), 8/2 heads, spread
/// data (K and V 2^u apart per page and KV head), at `page` (0: the
/// default request's).
static Request spreadRequest(int64_t page, int64_t q1) {
  Request r = defaultRequest(DType::F8E4M3FN);
  if (page)
    r.page_size = page;
  r.kv_lens = {700, 300};
  r.qo_lens = {64, q1};
  r.num_qo_heads = 8;
  r.num_kv_heads = 2;
  r.data = DataMode::Spread;
  return r;
}

TEST(Emulate, WgmmaFp8SumsOnSpreadData) {
  Inputs in = makeInputs(spreadRequest(0, 32));
  EmulateOptions opt;
  opt.block_n = 128;
  EmulateResult exact = runEmulation(in, opt);
  opt.wgmma_fp8_promote = 2;
  EmulateResult wg = runEmulation(in, opt);
  double maxAbs, relFro;
  test::errors(wg.out_f32, exact.out_f32, maxAbs, relFro);
  EXPECT_GT(relFro, 1e-4) << maxAbs;
  EXPECT_LT(relFro, 2e-2) << maxAbs;
  CompareResult c = judgeAgainstOracle(in, wg.out.data(), wg.lse.data(), 0);
  EXPECT_TRUE(c.pass) << c.summary();
  opt.wgmma_fp8_promote = -1;
  EXPECT_THROW(runEmulation(in, opt), std::invalid_argument);
  opt.wgmma_fp8_promote = 2;
  opt.block_n = 48; // not a multiple of the k step
  EXPECT_THROW(runEmulation(in, opt), std::invalid_argument);
}

// wgmma_fp8_promote_pv: a P V chain of 4 steps (keys 0-127) in pieces of 2
// or of 4. Q = 0 (every P = 256); V = 448 at key 0, 0 at keys 1-63, 2^-6 at
// keys 64-95 (96 keys, l = 96 * 256). Pieces of 2: keys 64-95 form a piece
// from zero, 32 * 256 * 2^-6 = 128 exactly, added in f32: (114688 + 128) /
// 24576 = 4.671875, the exact value. One piece of 4: those steps add 4s to
// an accumulator of 114688 (exponent 16, grid 8), each cut to 0: 114688 /
// 24576.
TEST(Emulate, WgmmaFp8PvPromoteSplitsTheChain) {
  Inputs in = zeroQInputs(96, [](int64_t j) -> uint8_t {
    return j == 0 ? 0x7E : j < 64 ? 0x00 : 0x08;
  });
  EmulateOptions opt;
  opt.block_n = 128;
  opt.wgmma_fp8_promote = 2;
  EmulateResult two = runEmulation(in, opt);
  opt.wgmma_fp8_promote_pv = 4;
  EmulateResult four = runEmulation(in, opt);
  EXPECT_EQ(two.out_f32[0], 4.671875f);
  EXPECT_EQ(four.out_f32[0], 114688.0f / 24576.0f);
}

// The proposed V-descale route "vd in the exp2 argument" (docs/FOLDS.md):
// with P in f32 it is the default route up to f32 rounding; with an fp8 P
// on spread data (each page its own V descale, 2^u apart) it meets the
// oracle at pages 1, 16 and 64, with errors the size of the default
// (page-run) route's, where scaled_p's are larger; and it is a different
// rounding, so the flag is not ignored.
TEST(Emulate, Exp2BiasRouteForPerKeyVd) {
  for (int64_t P : {1, 16, 64}) {
    Request r = spreadRequest(P, 33);
    SCOPED_TRACE(r.str());
    Inputs in = makeInputs(r);
    EmulateOptions f32;
    f32.block_n = 128;
    f32.p_dtype = DType::F32;
    f32.shift = 0;
    EmulateOptions f32b = f32;
    f32b.vd_exp2_bias = true;
    EmulateResult a = runEmulation(in, f32), b = runEmulation(in, f32b);
    double maxAbs, relFro;
    test::errors(a.out_f32, b.out_f32, maxAbs, relFro);
    EXPECT_LT(relFro, 1e-5) << maxAbs;
    for (size_t i = 0; i < a.lse.size(); ++i)
      EXPECT_NEAR(a.lse[i], b.lse[i], 1e-4) << i;

    EmulateOptions fp8;
    fp8.block_n = 128;
    EmulateOptions fp8b = fp8, fp8s = fp8;
    fp8b.vd_exp2_bias = true;
    fp8s.vd_scaled_p = true;
    OracleResult oracle = runOracle(in);
    EmulateResult c = runEmulation(in, fp8), d = runEmulation(in, fp8b),
                  e = runEmulation(in, fp8s);
    CompareResult cc = compareWithOracle(in, c.out.data(), c.lse.data(), oracle);
    CompareResult cd = compareWithOracle(in, d.out.data(), d.lse.data(), oracle);
    CompareResult ce = compareWithOracle(in, e.out.data(), e.lse.data(), oracle);
    std::printf("[exp2-bias] P=%lld rel_fro: page runs %.4g, exp2 bias %.4g, "
                "scaled_p %.4g; max_abs %.4g %.4g %.4g\n",
                static_cast<long long>(P), cc.rel_fro_err, cd.rel_fro_err,
                ce.rel_fro_err, cc.max_abs_err, cd.max_abs_err, ce.max_abs_err);
    EXPECT_TRUE(cd.pass) << cd.summary();
    EXPECT_NE(c.out_f32, d.out_f32);
    // Measured 2026-12-05 (rel. Frobenius against the oracle; page runs,
    // exp2 bias, scaled_p): P 1: 0.0040, 0.0021, 0.0199; P 16: 0.0038,
    // 0.0038, 0.0147; P 64: 0.0019 each (two pages a tile, whose vds
    // differ little next to the tile's spread).
    EXPECT_LE(cd.rel_fro_err, 1.1 * cc.rel_fro_err);
    if (P < 64)
      EXPECT_GT(ce.rel_fro_err, 2 * cd.rel_fro_err);
  }
  EmulateOptions bad;
  bad.vd_exp2_bias = bad.vd_scaled_p = true;
  Inputs in = makeInputs(defaultRequest(DType::F8E4M3FN));
  EXPECT_THROW(runEmulation(in, bad), std::invalid_argument);
  EmulateOptions bad2;
  bad2.vd_exp2_bias = bad2.vd_page_groups = true;
  EXPECT_THROW(runEmulation(in, bad2), std::invalid_argument);
}

// exp2_bias with sm_90a's FP8 wgmma sums (wgmma_fp8_promote): one P V chain
// a tile (vd is in P), from zero, added to o. On spread data at page 16 it
// meets the oracle, stays near the exactly summed route (the 14-bit sums
// move spread data by 0.0025-0.0056 rel. Frobenius on the other routes,
// bench/NOTES.md; here 0.0029) and differs from it (the model is applied,
// not ignored).
TEST(Emulate, Exp2BiasWithWgmmaSums) {
  Inputs in = makeInputs(spreadRequest(16, 33));
  EmulateOptions exact;
  exact.block_n = 128;
  exact.block_m = 64;
  exact.vd_exp2_bias = true;
  EmulateOptions wg = exact;
  wg.wgmma_fp8_promote = 2;
  wg.wgmma_fp8_promote_pv = 4;
  EmulateResult a = runEmulation(in, exact), b = runEmulation(in, wg);
  double maxAbs, relFro;
  test::errors(a.out_f32, b.out_f32, maxAbs, relFro);
  EXPECT_LT(relFro, 1e-2) << maxAbs;
  EXPECT_GT(relFro, 1e-4) << maxAbs;
  OracleResult oracle = runOracle(in);
  CompareResult cb = compareWithOracle(in, b.out.data(), b.lse.data(), oracle);
  EXPECT_TRUE(cb.pass) << cb.summary();
}
