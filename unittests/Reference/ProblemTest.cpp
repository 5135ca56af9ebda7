//===- ProblemTest.cpp - Requests, masks and input generation -------------===//

#include "fmha/Reference/FloatCodec.h"
#include "fmha/Reference/Problem.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

using namespace fmha::ref;

TEST(Problem, ParseNames) {
  for (DType t : kAllDTypes)
    EXPECT_EQ(parseDType(dtypeName(t)), t);
  EXPECT_EQ(parseDType("e4m3fnuz"), DType::F8E4M3FNUZ);
  EXPECT_EQ(parseDType("fp8_e5m2"), DType::F8E5M2);
  EXPECT_EQ(parseDType("F8E4M3FN"), DType::F8E4M3FN);
  EXPECT_EQ(parseDType("bfloat16"), DType::BF16);
  // torch's names and the OCP short ones; bare e4m3 is OCP's e4m3fn.
  EXPECT_EQ(parseDType("float8_e4m3fn"), DType::F8E4M3FN);
  EXPECT_EQ(parseDType("float8_e4m3fnuz"), DType::F8E4M3FNUZ);
  EXPECT_EQ(parseDType("float8_e5m2"), DType::F8E5M2);
  EXPECT_EQ(parseDType("e4m3"), DType::F8E4M3FN);
  EXPECT_EQ(parseDType("e5m2"), DType::F8E5M2);
  EXPECT_FALSE(parseDType("fp8").has_value()); // chip-dependent: the tools
  EXPECT_FALSE(parseDType("float8").has_value());
  EXPECT_FALSE(parseDType("f8").has_value());
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeSize(DType::F16), 2u);
  EXPECT_EQ(dtypeSize(DType::F8E5M2FNUZ), 1u);
  EXPECT_EQ(defaultExp2Shift(DType::F8E4M3FN), 8);
  EXPECT_EQ(defaultExp2Shift(DType::F8E4M3FNUZ), 7);
  EXPECT_EQ(defaultExp2Shift(DType::BF16), 0);
  for (DType t : kFp8DTypes) // 2^SHIFT stays below the type's max
    EXPECT_LT(std::ldexp(1.0, defaultExp2Shift(t)), dtypeMaxFinite(t));

  EXPECT_EQ(parseLayout("hnd"), KVLayout::HND);
  EXPECT_EQ(parseQuantMode("kv_blockscale"), QuantMode::KVBlockscale);
  EXPECT_EQ(parseQuantMode("per-tensor"), QuantMode::PerTensor);
  EXPECT_EQ(parseQuantMode("none"), QuantMode::None);
  EXPECT_FALSE(parseQuantMode("per_head").has_value());

  auto w = parseMask("window(128, -1)");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->kind, MaskKind::Window);
  EXPECT_EQ(w->left, 128);
  EXPECT_EQ(w->right, -1);
  EXPECT_EQ(w->str(), "window(128,-1)");
  EXPECT_EQ(parseMask("window:4,0")->right, 0);
  EXPECT_EQ(parseMask("causal")->kind, MaskKind::Causal);
  EXPECT_FALSE(parseMask("window(-2,0)").has_value());
  EXPECT_FALSE(parseMask("window(1)").has_value());
}

TEST(Problem, MaskRanges) {
  int64_t lo, hi;
  // Causal, Sq = 4, Sk = 10: query i sits at i + 6.
  Mask::causal().visibleRange(0, 4, 10, lo, hi);
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 6);
  // Causal with Sq > Sk: the first Sq - Sk rows see nothing.
  Mask::causal().visibleRange(1, 5, 3, lo, hi);
  EXPECT_GT(lo, hi);
  Mask::causal().visibleRange(2, 5, 3, lo, hi);
  EXPECT_EQ(hi, 0);
  Mask::causal().visibleRange(3, 5, 3, lo, hi);
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 1);
  // Window(2, 1) at position 6 of Sk = 10: keys 4..7.
  Mask::window(2, 1).visibleRange(0, 4, 10, lo, hi);
  EXPECT_EQ(lo, 4);
  EXPECT_EQ(hi, 7);
  // Unbounded sides; keys past Sk are never visible.
  Mask::window(-1, 100).visibleRange(3, 4, 10, lo, hi);
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 9);
  Mask::none().visibleRange(0, 1, 0, lo, hi);
  EXPECT_GT(lo, hi);
}

// The kernel key: the static part only. Lengths, pool size, seed and data
// do not change it; every field a kernel is compiled from does.
TEST(Problem, KernelKey) {
  Request a;
  a.qo_lens = {100};
  a.kv_lens = {1500};
  Request b = a;
  b.qo_lens = {1, 2, 3};
  b.kv_lens = {9, 99, 999};
  b.n_pages = 4000;
  b.seed = 7;
  b.data = DataMode::Spread;
  EXPECT_EQ(a.kernelKey(), b.kernelKey());
  // The default sm_scale is 1/sqrt(D): stating it gives the same kernel.
  b.sm_scale = 1.0 / std::sqrt(128.0);
  EXPECT_EQ(a.kernelKey(), b.kernelKey());
  EXPECT_EQ(a.kernelKey(),
            "H=32/8 D=128/128 P=1024 csr NHD kv_blockscale q=f8E4M3FN kv=f8E4M3FN "
            "out=bf16 mask=causal sm_scale=0.088388347648318433 lse=1");
  for (auto change : std::vector<std::function<void(Request &)>>{
           [](Request &r) { r.page_size = 16; },
           [](Request &r) { r.num_kv_heads = 4; },
           [](Request &r) { r.head_dim_v = 64; },
           [](Request &r) { r.table = TableForm::Block; },
           [](Request &r) { r.layout = KVLayout::HND; },
           [](Request &r) { r.quant = QuantMode::PerTensor; },
           [](Request &r) { r.kv_dtype = DType::F8E5M2; },
           [](Request &r) { r.out_dtype = DType::F16; },
           [](Request &r) { r.mask = Mask::window(24, 4); },
           [](Request &r) { r.sm_scale = 0.3; },
           [](Request &r) { r.soft_cap = 30; },
           [](Request &r) { r.kv_strided = true; },
           [](Request &r) { r.return_lse = false; }}) {
    Request c = a;
    change(c);
    EXPECT_NE(c.kernelKey(), a.kernelKey()) << c.kernelKey();
  }
}

// With run-time scalars, sm_scale and the window bounds leave the key (the
// kernel reads them) and the buffer holds this run's values.
TEST(Problem, RuntimeScalarsKey) {
  Request a;
  a.qo_lens = {10};
  a.kv_lens = {100};
  a.runtime_scalars = true;
  a.mask = Mask::window(24, 4);
  a.sm_scale = 0.3;
  Request b = a;
  b.mask = Mask::window(-1, 0);
  b.sm_scale = 0.05;
  EXPECT_EQ(a.kernelKey(), b.kernelKey());
  EXPECT_NE(a.kernelKey().find("mask=window(rt) sm_scale=rt"), std::string::npos)
      << a.kernelKey();
  b.mask = Mask::causal();
  EXPECT_NE(a.kernelKey(), b.kernelKey()); // the mask kind stays compiled in
  Request c = a;
  c.runtime_scalars = false;
  EXPECT_NE(a.kernelKey(), c.kernelKey());
  std::array<int32_t, 4> rs = a.runtimeScalars();
  EXPECT_EQ(rs[0], 0x3e99999a); // 0.3f
  EXPECT_EQ(rs[1], 24);
  EXPECT_EQ(rs[2], 4);
  EXPECT_EQ(rs[3], 0); // no soft cap
  Request d;
  d.head_dim = 64;
  EXPECT_EQ(d.runtimeScalars()[0], 0x3e000000); // 1/sqrt(64) = 0.125f
  EXPECT_EQ(d.runtimeScalars()[1], -1);
  EXPECT_EQ(d.runtimeScalars()[2], -1);
  // A soft cap's value is a run-time scalar too; having one is in the key.
  Request e = a, f = a;
  e.soft_cap = 5.0;
  f.soft_cap = 30.0;
  EXPECT_EQ(e.runtimeScalars()[3], 0x40a00000); // 5.0f
  EXPECT_EQ(e.kernelKey(), f.kernelKey());
  EXPECT_NE(e.kernelKey().find("soft_cap=rt"), std::string::npos) << e.kernelKey();
  EXPECT_NE(e.kernelKey(), a.kernelKey());
  e.runtime_scalars = f.runtime_scalars = false;
  EXPECT_NE(e.kernelKey(), f.kernelKey());
}

TEST(Problem, FlopCount) {
  Request r;
  r.qo_lens = {4};
  r.kv_lens = {10};
  r.mask = Mask::none();
  EXPECT_EQ(visiblePairs(r), 40);
  EXPECT_EQ(attentionFlops(r), 2.0 * 40 * 32 * 256);
  r.mask = Mask::causal(); // rows see 7, 8, 9, 10 keys
  EXPECT_EQ(visiblePairs(r), 34);
  // The benchmarks' count: causal with a cached prefix ~ Sq * (2 Sk - Sq) / 2.
  r.qo_lens = {1000};
  r.kv_lens = {3000};
  EXPECT_NEAR(double(visiblePairs(r)), 1000.0 * (6000 - 1000) / 2, 1000.0);
}

TEST(Problem, ValidateRules) {
  Request r = test::smallRequest();
  EXPECT_EQ(r.validate(), "");
  auto bad = [&](auto edit, const char *needle) {
    Request x = test::smallRequest();
    edit(x);
    std::string msg = x.validate();
    EXPECT_NE(msg.find(needle), std::string::npos) << "got: " << msg;
    EXPECT_THROW(makeInputs(x), std::invalid_argument);
  };
  bad([](Request &x) { x.num_qo_heads = 6; x.num_kv_heads = 4; }, "Hq % Hkv");
  bad([](Request &x) { x.page_size = 0; }, "page size");
  bad([](Request &x) { x.kv_lens.pop_back(); }, "sequences");
  bad([](Request &x) { x.kv_dtype = DType::BF16; x.q_dtype = DType::BF16; },
      "quant mode kv_blockscale");
  bad([](Request &x) { x.q_dtype = DType::F8E5M2; }, "q element type");
  bad([](Request &x) { x.out_dtype = DType::F8E4M3FN; }, "out element type");
  bad([](Request &x) { x.mask = Mask::window(-3, 0); }, "window");
  bad([](Request &x) { x.qo_lens[0] = -1; }, "negative");
  bad([](Request &x) { x.n_pages = 2; }, "n_pages");
  EXPECT_NEAR(r.smScale(), 1.0 / std::sqrt(32.0), 1e-15);
  r.sm_scale = 0.25;
  EXPECT_EQ(r.smScale(), 0.25);
  EXPECT_NE(r.str().find("kv_blockscale"), std::string::npos);
}

// Issue 18: every bound of a request is one rule of validate(), checked with
// overflow-safe arithmetic, and the message names the field, rule and values.
TEST(Problem, ValidateBounds) {
  auto msgOf = [](auto edit) {
    Request x = test::smallRequest();
    edit(x);
    return x.validate();
  };
  auto bad = [&](auto edit, std::initializer_list<const char *> needles) {
    std::string msg = msgOf(edit);
    EXPECT_FALSE(msg.empty());
    for (const char *n : needles)
      EXPECT_NE(msg.find(n), std::string::npos) << "no '" << n << "' in: " << msg;
  };
  auto good = [&](auto edit) { EXPECT_EQ(msgOf(edit), ""); };
  const int64_t big = int64_t(1) << 62, i32max = kMaxIndex;

  // Lengths whose int64 sum wraps to 0 (4 * 2^62) and INT64_MAX lengths.
  bad([&](Request &x) { x.qo_lens.assign(4, big); x.kv_lens.assign(4, 10); },
      {"total_q", "2147483647", "Sq=4611686018427387904"});
  bad([](Request &x) {
        x.qo_lens.assign(2, INT64_MAX);
        x.kv_lens.assign(2, 10);
      },
      {"total_q", "Sq=9223372036854775807"});
  // The sum passes 2^31 - 1 only over several sequences.
  bad([&](Request &x) {
        x.qo_lens = {i32max / 2 + 1, i32max / 2 + 1};
        x.kv_lens = {1, 1};
        x.num_qo_heads = x.num_kv_heads = 1;
        x.head_dim = 1;
      },
      {"total_q", "sequence 1"});
  // Sk: INT64_MAX, and Sq + Sk past i32 (the kernel's key positions).
  bad([](Request &x) { x.kv_lens[0] = INT64_MAX; }, {"sequence 0", "Sq + Sk", "Sk=9223372036854775807"});
  bad([&](Request &x) { x.qo_lens[1] = 1; x.kv_lens[1] = i32max; },
      {"sequence 1", "Sq + Sk", "Sq=1, Sk=2147483647"});
  // Sk past what the f32 softmax sums hold (kMaxKvLen = 2^23), and at it.
  bad([](Request &x) { x.kv_lens[1] = fmha::ref::kMaxKvLen + 1; },
      {"sequence 1", "Sk must be <= 8388608", "got 8388609"});
  good([](Request &x) { x.kv_lens[1] = fmha::ref::kMaxKvLen; });
  // Window bounds: overflowing ones and ones whose position passes i32.
  bad([](Request &x) { x.mask = Mask::window(0, INT64_MAX); },
      {"window bounds", "right=9223372036854775807"});
  bad([](Request &x) { x.mask = Mask::window(INT64_MAX, -1); },
      {"window bounds", "left=9223372036854775807"});
  bad([&](Request &x) { x.mask = Mask::window(i32max, 0); },
      {"window bound", "bound=2147483647"});
  good([](Request &x) { x.mask = Mask::window(1000, 1000); }); // > Sk is fine
  good([](Request &x) { x.mask = Mask::window(-1, -1); });
  bad([](Request &x) { x.mask = Mask::window(-2, 0); }, {"window bounds", "left=-2"});
  // Pages needed and the pool.
  bad([&](Request &x) {
        x.page_size = 1;
        // 256 sequences of 2^23 keys in pages of one: 2^31 pages.
        x.qo_lens.assign(256, 1);
        x.kv_lens.assign(256, fmha::ref::kMaxKvLen);
        x.num_qo_heads = x.num_kv_heads = 1;
        x.head_dim = 1;
      },
      {"pages needed", "sequence 255"});
  bad([&](Request &x) {
        x.page_size = 1;
        // 128 sequences of 2^23 keys: 2^30 pages, a default pool of 2^31 + 3.
        x.qo_lens.assign(128, 1);
        x.kv_lens.assign(128, fmha::ref::kMaxKvLen);
        x.num_qo_heads = x.num_kv_heads = 1;
        x.head_dim = 1;
      },
      {"n_pages", "default 2 * needed + 3"});
  bad([&](Request &x) { x.n_pages = i32max + int64_t(1); }, {"n_pages", "2147483648"});
  // Elements per tensor: q, out, k_cache, v_cache past i32.
  bad([](Request &x) {
        x.qo_lens = {1 << 20};
        x.kv_lens = {1};
        x.num_qo_heads = 64;
        x.num_kv_heads = 8;
        x.head_dim = 64;
      },
      {"q has too many elements", "total_q * Hq * D", "1048576 * 64 * 64"});
  bad([](Request &x) {
        x.qo_lens = {1 << 20};
        x.kv_lens = {1};
        x.num_qo_heads = 64;
        x.num_kv_heads = 8;
        x.head_dim = 16;
        x.head_dim_v = 64;
      },
      {"out has too many elements", "total_q * Hq * Dv"});
  bad([](Request &x) {
        x.qo_lens = {1};
        x.kv_lens = {1 << 20};
        x.num_qo_heads = x.num_kv_heads = 64;
        x.head_dim = 64;
        x.page_size = 1024;
      },
      {"k_cache has too many elements", "N_pages * P * Hkv * D", "2051 * 1024 * 64 * 64"});
  bad([](Request &x) {
        x.qo_lens = {1};
        x.kv_lens = {1 << 16};
        x.num_qo_heads = x.num_kv_heads = 64;
        x.head_dim = 16;
        x.head_dim_v = 1024;
        x.page_size = 1024;
      },
      {"v_cache has too many elements"});
  // Maxima: batch, heads, head dims, page size.
  bad([](Request &x) {
        x.qo_lens.assign(kMaxBatch + 1, 1);
        x.kv_lens.assign(kMaxBatch + 1, 1);
      },
      {"batch must be <= 65535", "65536"});
  good([](Request &x) {
    x.qo_lens.assign(kMaxBatch, 1);
    x.kv_lens.assign(kMaxBatch, 1);
  });
  bad([](Request &x) { x.num_qo_heads = 2048; }, {"head counts must be <= 1024", "Hq=2048"});
  bad([](Request &x) { x.num_qo_heads = 2; x.num_kv_heads = 4; }, {"Hq % Hkv", "Hq=2, Hkv=4"});
  bad([](Request &x) { x.num_kv_heads = 0; }, {"head counts must be >= 1", "Hkv=0"});
  bad([](Request &x) { x.head_dim = 0; }, {"head dims must be >= 1", "D=0"});
  bad([](Request &x) { x.head_dim_v = 2048; }, {"head dims must be <= 1024", "Dv=2048"});
  bad([](Request &x) { x.head_dim = INT64_MAX; }, {"head dims must be <= 1024"});
  bad([](Request &x) { x.page_size = INT64_MAX; }, {"page size must be in [1, 65536]", "9223372036854775807"});
  bad([](Request &x) { x.page_size = -5; }, {"page size", "-5"});
  // sm_scale: 0 is the default, else > 0 and finite (in f32); soft_cap >= 0.
  good([](Request &x) { x.sm_scale = 0.0; });
  good([](Request &x) { x.sm_scale = 0.125; });
  bad([](Request &x) { x.sm_scale = -0.5; }, {"sm_scale must be > 0", "-0.5"});
  bad([](Request &x) { x.sm_scale = std::nan(""); }, {"sm_scale"});
  bad([](Request &x) { x.sm_scale = INFINITY; }, {"sm_scale"});
  bad([](Request &x) { x.sm_scale = 1e300; }, {"sm_scale", "f32"});
  bad([](Request &x) { x.sm_scale = 1e-300; }, {"sm_scale", "f32"});
  bad([](Request &x) { x.soft_cap = -1.0; }, {"soft_cap must be >= 0", "-1"});
  bad([](Request &x) { x.soft_cap = INFINITY; }, {"soft_cap"});
  bad([](Request &x) { x.soft_cap = std::nan(""); }, {"soft_cap"});
  good([](Request &x) { x.soft_cap = 30.0; });
  // An empty batch is still a valid request (the compiler rejects its grid).
  good([](Request &x) { x.qo_lens.clear(); x.kv_lens.clear(); });
}

TEST(Problem, MakeInputsShapesAndDescales) {
  Request r = test::smallRequest();
  r.head_dim_v = 24;
  Inputs in = makeInputs(r);
  const int64_t N = in.nPages(), P = r.page_size, H = r.num_kv_heads;
  EXPECT_EQ(in.qo_indptr, (std::vector<int32_t>{0, 7, 26, 27}));
  EXPECT_EQ(in.q.size(), size_t(27 * 4 * 32));
  EXPECT_EQ(in.k_cache.size(), size_t(N * P * H * 32));
  EXPECT_EQ(in.v_cache.size(), size_t(N * P * H * 24));
  EXPECT_EQ(in.kv_descale.size(), size_t(N * H * 2));
  EXPECT_EQ(in.k_descale.page_stride, 2 * H);
  EXPECT_EQ(in.k_descale.head_stride, 2);
  EXPECT_EQ(in.v_descale.offset, 1);
  EXPECT_EQ(checkFormsAgree(in.table), "");
  // q per tensor: max|q| < 1 maps to 448.
  float qmax = 0;
  bool sawMaxCode = false;
  for (size_t i = 0; i < in.q.size(); ++i) {
    qmax = std::max(qmax, decode(r.q_dtype, in.q[i]) * in.q_descale);
    sawMaxCode |= in.q[i] == maxFiniteCode(r.q_dtype);
  }
  EXPECT_TRUE(sawMaxCode);
  EXPECT_LT(in.q_descale, 1.0f / 448.0f);
  EXPECT_GT(in.q_descale, 0.9f / 448.0f);
  // Every (page, head) of the pool has its own descale, all positive, the
  // values are in [0, 1) and never all zero.
  int nonzero = 0;
  for (int64_t pg = 0; pg < N; ++pg)
    for (int64_t g = 0; g < H; ++g) {
      EXPECT_GT(in.kDescale(pg, g), 0.5f / 448.0f);
      EXPECT_LE(in.kDescale(pg, g), 1.0f / 448.0f);
      EXPECT_GT(in.vDescale(pg, g), 0.5f / 448.0f);
      for (int64_t s = 0; s < P; ++s) {
        float k = in.kStored(pg, s, g, 3) * in.kDescale(pg, g);
        if (std::isnan(k)) // a slot past a sequence's end (PageTailsHoldNaN)
          continue;
        EXPECT_GE(k, 0.0f);
        EXPECT_LT(k, 1.0f);
        nonzero += k != 0.0f;
      }
    }
  EXPECT_GT(nonzero, N * H * P / 2);
}

TEST(Problem, LayoutsHoldTheSameLogicalCache) {
  Request r = test::smallRequest();
  r.head_dim_v = 16;
  Inputs a = makeInputs(r);
  r.layout = KVLayout::HND;
  Inputs b = makeInputs(r);
  EXPECT_EQ(a.kv_descale, b.kv_descale);
  EXPECT_EQ(a.q, b.q);
  EXPECT_EQ(a.table.kv_page_indices, b.table.kv_page_indices);
  EXPECT_NE(a.k_cache, b.k_cache); // same values, different order
  // Equal, or both NaN (the slots past a sequence's end: PageTailsHoldNaN).
  auto same = [](float x, float y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  for (int64_t pg = 0; pg < a.nPages(); ++pg)
    for (int64_t s = 0; s < r.page_size; ++s)
      for (int64_t g = 0; g < r.num_kv_heads; ++g) {
        for (int64_t d = 0; d < r.head_dim; ++d)
          ASSERT_TRUE(same(a.kStored(pg, s, g, d), b.kStored(pg, s, g, d)));
        for (int64_t d = 0; d < 16; ++d)
          ASSERT_TRUE(same(a.vStored(pg, s, g, d), b.vStored(pg, s, g, d)));
      }
}

// SPEC section 1: the slots of a sequence's last page from Sk_b on hold
// anything; the generated cache puts NaN codes there (every head, K and V,
// each kv type's NaN), so a kernel that lets them into a product shows NaN.
// Every other slot of the pool is finite.
TEST(Problem, PageTailsHoldNaN) {
  for (DType t : {DType::F8E4M3FN, DType::F8E4M3FNUZ, DType::F8E5M2, DType::BF16}) {
    Request r = test::smallRequest(); // Sk 40, 19, 33 in pages of 16
    r.kv_dtype = t;
    if (t == DType::BF16) {
      r.quant = QuantMode::None;
      r.q_dtype = DType::BF16;
    }
    Inputs in = makeInputs(r);
    std::set<std::pair<int64_t, int64_t>> tails; // (page, slot)
    for (int64_t b = 0; b < r.batch(); ++b) {
      const int64_t len = r.kv_lens[b], n = (len + 15) / 16;
      const int32_t last = in.table.pages(TableForm::CSR, b)[n - 1];
      for (int64_t slot = len % 16; slot < 16; ++slot)
        tails.insert({last, slot});
    }
    EXPECT_EQ(tails.size(), 8u + 13u + 15u) << dtypeName(t);
    for (int64_t pg = 0; pg < in.nPages(); ++pg)
      for (int64_t s = 0; s < 16; ++s)
        for (int64_t g = 0; g < r.num_kv_heads; ++g)
          for (int64_t d = 0; d < r.head_dim; ++d) {
            bool tail = tails.count({pg, s}) > 0;
            ASSERT_EQ(std::isnan(in.kStored(pg, s, g, d)), tail)
                << dtypeName(t) << " page " << pg << " slot " << s;
            ASSERT_EQ(std::isnan(in.vStored(pg, s, g, d)), tail)
                << dtypeName(t) << " page " << pg << " slot " << s;
          }
  }
}

TEST(Problem, QuantModesAndTypes) {
  Request r = test::smallRequest();
  r.quant = QuantMode::PerTensor;
  Inputs pt = makeInputs(r);
  ASSERT_EQ(pt.kv_descale.size(), 2u);
  EXPECT_EQ(pt.k_descale.page_stride, 0);
  EXPECT_EQ(pt.kDescale(3, 1), pt.kv_descale[0]);
  EXPECT_EQ(pt.vDescale(0, 0), pt.kv_descale[1]);
  EXPECT_LT(pt.kv_descale[0], 1.0f / 448.0f);

  r.quant = QuantMode::None;
  r.q_dtype = r.kv_dtype = DType::BF16;
  r.out_dtype = DType::F16;
  Inputs bf = makeInputs(r);
  EXPECT_EQ(bf.q_descale, 1.0f);
  EXPECT_EQ(bf.kv_descale, (std::vector<float>{1.0f, 1.0f}));
  EXPECT_EQ(bf.q.size(), size_t(27 * 4 * 32 * 2));
  // Mixed precision: bf16 q, fp8 e4m3fnuz k/v per page.
  r.quant = QuantMode::KVBlockscale;
  r.kv_dtype = DType::F8E4M3FNUZ;
  Inputs mixed = makeInputs(r);
  EXPECT_EQ(mixed.q_descale, 1.0f);
  EXPECT_LE(mixed.kDescale(0, 0), 1.0f / 240.0f);
}

TEST(Problem, SpreadData) {
  EXPECT_EQ(parseDataMode("uniform"), DataMode::Uniform);
  EXPECT_EQ(parseDataMode("Spread"), DataMode::Spread);
  EXPECT_FALSE(parseDataMode("wide"));
  Request r = test::smallRequest();
  // Uniform data prints no data= field (every existing line is unchanged).
  EXPECT_EQ(r.str().find("data="), std::string::npos) << r.str();
  Inputs u = makeInputs(r);
  r.data = DataMode::Spread;
  EXPECT_NE(r.str().find(" data=spread seed=7"), std::string::npos) << r.str();
  Inputs s = makeInputs(r);
  // Same table and q; deterministic.
  EXPECT_EQ(s.table.kv_page_indices, u.table.kv_page_indices);
  EXPECT_EQ(s.q, u.q);
  EXPECT_EQ(s.kv_descale, makeInputs(r).kv_descale);
  EXPECT_EQ(s.k_cache, makeInputs(r).k_cache);
  // Per (page, head), K and V: the real values are the uniform draws times
  // one magnitude in [2^-6, 2^6] (up to fp8 rounding), and the magnitudes
  // of the pool spread over most of 2^12, independently for K and V.
  const int64_t N = s.nPages(), H = r.num_kv_heads, P = r.page_size;
  double lo[2] = {1e9, 1e9}, hi[2] = {0, 0};
  int kvDiffer = 0;
  for (int64_t pg = 0; pg < N; ++pg)
    for (int64_t g = 0; g < H; ++g) {
      const double ratio[2] = {s.kDescale(pg, g) / u.kDescale(pg, g),
                               s.vDescale(pg, g) / u.vDescale(pg, g)};
      for (int t = 0; t < 2; ++t) {
        EXPECT_GE(ratio[t], 0x1p-6 * 0.999);
        EXPECT_LE(ratio[t], 0x1p6 * 1.001);
        lo[t] = std::min(lo[t], ratio[t]);
        hi[t] = std::max(hi[t], ratio[t]);
      }
      kvDiffer += std::fabs(std::log2(ratio[0] / ratio[1])) > 0.5;
      for (int64_t slot = 0; slot < P; slot += 5) {
        const double ks = s.kStored(pg, slot, g, 2) * s.kDescale(pg, g);
        const double ku = u.kStored(pg, slot, g, 2) * u.kDescale(pg, g);
        if (std::isnan(ks)) // a slot past a sequence's end (PageTailsHoldNaN)
          continue;
        EXPECT_NEAR(ks, ku * ratio[0], 0.07 * ks + 1e-9);
      }
    }
  for (int t = 0; t < 2; ++t)
    EXPECT_GT(hi[t] / lo[t], 0x1p9) << "t=" << t;
  EXPECT_GT(kvDiffer, N * H / 2);
  // Both layouts hold the same logical cache.
  r.layout = KVLayout::HND;
  Inputs h = makeInputs(r);
  EXPECT_EQ(h.kv_descale, s.kv_descale);
  for (int64_t pg = 0; pg < N; ++pg)
    for (int64_t slot = 0; slot < P; ++slot)
      ASSERT_TRUE(h.vStored(pg, slot, 1, 3) == s.vStored(pg, slot, 1, 3) ||
                  (std::isnan(h.vStored(pg, slot, 1, 3)) && std::isnan(s.vStored(pg, slot, 1, 3))));
}

// The host memory of a run, by hand: 1 query row, 2048 keys in pages of 1024
// (2 needed, a pool of 2 * 2 + 3 = 7), Hq = Hkv = 1, D = Dv = 2, fp8 q/k/v:
// q 2, k and v 7 * 1024 * (2 + 2), descales 7 * 2 * 4, both page tables
// (3B + 3 + 2 * pool + B * pool) * 4 = 108, out and lse 4 * (2 + 1) * 4 = 48.
TEST(Request, HostBytesAndTheMemoryCheck) {
  fmha::ref::Request r;
  r.qo_lens = {1};
  r.kv_lens = {2048};
  r.num_qo_heads = r.num_kv_heads = 1;
  r.head_dim = 2;
  r.page_size = 1024;
  ASSERT_EQ(r.validate(), "");
  const uint64_t want = 2 + 7 * 1024 * 4 + 56 + 108 + 48;
  EXPECT_EQ(r.hostBytes(), want);
  EXPECT_EQ(fmha::ref::checkHostMemory(r, 2 * want), "");
  std::string msg = fmha::ref::checkHostMemory(r, 2 * want - 2);
  EXPECT_NE(msg.find("of host memory, more than half of the"), std::string::npos) << msg;
  EXPECT_GT(fmha::ref::availableHostBytes(), uint64_t(1) << 20);
}

// The stride rule of a kv_strided kernel's K / V views (docs/ABI.md), and the
// combined cache the runners build: page pg's K block at 2 * pg * page, its V
// block after it, each the dense page of the inputs.
TEST(Problem, KVStrideRuleAndCombinedCache) {
  auto check = Request::checkKVStrides;
  // Dense NHD [N, P, H, D] and a combined cache's view: kept.
  EXPECT_EQ(check({9, 16, 2, 64}, {2048, 128, 64, 1}, 1), "");
  EXPECT_EQ(check({9, 16, 2, 64}, {4096, 128, 64, 1}, 1), "");
  // HND order with heads outermost inside a page, and padding: kept.
  EXPECT_EQ(check({9, 2, 16, 64}, {8192, 2048, 128, 1}, 1), "");
  EXPECT_NE(check({9, 16, 2, 64}, {4096, 64, 64, 1}, 1).find("the strides overlap"),
            std::string::npos);
  EXPECT_NE(check({9, 16, 2, 64}, {4096, 128, 32, 1}, 1).find("the strides overlap"),
            std::string::npos);
  EXPECT_NE(check({9, 16, 2, 64}, {4096, 136, 64, 1}, 1).find("multiples of 16 bytes"),
            std::string::npos);
  // 8 bf16 elements are 16 bytes: 136 is fine there, 132 is not.
  EXPECT_EQ(check({9, 16, 2, 64}, {4352, 136, 64, 1}, 2), "");
  EXPECT_NE(check({9, 16, 2, 64}, {4352, 132, 64, 1}, 2).find("(8 elements)"),
            std::string::npos);
  EXPECT_NE(check({9, 16, 2, 64}, {4096, 128, 64, 2}, 1).find("contiguous (stride 1)"),
            std::string::npos);
  EXPECT_NE(check({9, 16, 2, 64}, {0, 128, 64, 1}, 1).find("must be > 0"), std::string::npos);
  // A dimension of one index: its stride is never used.
  EXPECT_EQ(check({1, 16, 2, 64}, {0, 128, 64, 1}, 1), "");

  Request r;
  r.qo_lens = {5};
  r.kv_lens = {40};
  r.num_qo_heads = 4;
  r.num_kv_heads = 2;
  r.head_dim = 64;
  r.head_dim_v = 32;
  r.page_size = 16;
  r.kv_strided = true;
  Inputs in = makeInputs(r);
  const int64_t n = in.nPages(), kPage = 16 * 2 * 64, vPage = 16 * 2 * 32;
  const int64_t page = kPage + vPage;
  EXPECT_EQ(r.combinedKView().offset, 0);
  EXPECT_EQ(r.combinedVView().offset, kPage);
  EXPECT_EQ(r.combinedKView().strides, (std::array<int64_t, 4>{page, 2 * 64, 64, 1}));
  EXPECT_EQ(r.combinedVView().strides, (std::array<int64_t, 4>{page, 2 * 32, 32, 1}));
  std::vector<uint8_t> kv = in.combinedKVCache();
  ASSERT_EQ(static_cast<int64_t>(kv.size()), n * page);
  for (int64_t pg = 0; pg < n; ++pg) {
    EXPECT_TRUE(std::equal(kv.begin() + pg * page, kv.begin() + pg * page + kPage,
                           in.k_cache.begin() + pg * kPage));
    EXPECT_TRUE(std::equal(kv.begin() + pg * page + kPage, kv.begin() + (pg + 1) * page,
                           in.v_cache.begin() + pg * vPage));
  }
  r.layout = KVLayout::HND;
  EXPECT_EQ(r.combinedKView().strides, (std::array<int64_t, 4>{page, 16 * 64, 64, 1}));
}
