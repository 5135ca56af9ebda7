//===- CpuKernelTest.cpp - the CPU executions through their C++ API --------===//
//
// mlir::fmha::CpuKernel, what fmha-run is built on: each target's kernel
// (the host's tiled form, each chip's lane-level kernel on the lane
// emulator) meets both references on spread data, a wrong-descale input is
// caught, and bad requests come back as errors with the tool's exit code.
//
//===----------------------------------------------------------------------===//
#include "fmha/Emulator/CpuKernel.h"
#include "fmha/Reference/Compare.h"
#include "fmha/Reference/Mutate.h"
#include "fmha/Reference/Oracle.h"

#include <gtest/gtest.h>

#include <algorithm>

using mlir::fmha::CpuKernel;
using mlir::fmha::CpuKernelOptions;
namespace ref = fmha::ref;

namespace {

ref::Request smallRequest(const std::string &target) {
  ref::Request r;
  r.qo_lens = {17, 40};
  r.kv_lens = {150, 70};
  r.num_qo_heads = 4;
  r.num_kv_heads = 2;
  r.head_dim = 64;
  r.page_size = 16;
  r.data = ref::DataMode::Spread;
  if (target == "gfx942")
    r.q_dtype = r.kv_dtype = ref::DType::F8E4M3FNUZ;
  return r;
}

/// The buffers of smallRequest's kernel (CSR, kv_blockscale with aiter's
/// interleaved descales) over `in` and caller-owned copies, K and V given.
std::vector<mlir::fmha::BufferView>
smallViews(const ref::Inputs &in, std::vector<int32_t> &qo, std::vector<int32_t> &pages,
           uint16_t *out, float *lse, mlir::fmha::BufferView k, mlir::fmha::BufferView v) {
  const int64_t t = in.req.totalQ(), n = in.nPages();
  return {{"q", in.q.data(), {t, 4, 64}, {}},
          std::move(k),
          std::move(v),
          {"qo_indptr", qo.data(), {3}, {}},
          {"kv_indptr", in.table.kv_indptr.data(), {3}, {}},
          {"kv_page_indices", pages.data(), {(int64_t)pages.size()}, {}},
          {"kv_last_page_len", in.table.kv_last_page_len.data(), {2}, {}},
          {"q_descale", &in.q_descale, {1}, {}},
          {"k_descale", in.kv_descale.data(), {n, 2}, {4, 2}},
          {"v_descale", in.kv_descale.data() + 1, {n, 2}, {4, 2}},
          {"out", out, {t, 4, 64}, {}},
          {"lse", lse, {t, 4}, {}}};
}

class CpuKernelTarget : public ::testing::TestWithParam<const char *> {};

TEST_P(CpuKernelTarget, MeetsBothReferencesAndSeesADescaleBug) {
  std::string target = GetParam(), err;
  int code = -1;
  ref::Request req = smallRequest(target);
  CpuKernelOptions opt;
  opt.target = target;
  auto k = CpuKernel::compile(req, opt, err, code);
  ASSERT_TRUE(k) << err;
  EXPECT_EQ(code, 0);
  EXPECT_EQ(k->isLaneEmulation(), target != "host");
  ref::Inputs in = ref::makeInputs(req);
  std::vector<uint8_t> out;
  std::vector<float> lse;
  ASSERT_TRUE(mlir::succeeded(k->run(in, in.kv_descale, out, lse, err))) << err;
  ref::OracleResult oracle = ref::runOracle(in);
  ref::CompareResult vo = ref::compareWithOracle(in, out.data(), nullptr, oracle);
  ref::CompareResult ve = ref::compareWithEmulation(in, out.data(), nullptr,
                                                    ref::runEmulation(in, k->emulation()));
  EXPECT_TRUE(vo.pass) << vo.summary();
  EXPECT_TRUE(ve.pass) << ve.summary();
  if (k->isLaneEmulation()) {
    EXPECT_GT(k->laneStats().mmas, 0);
    EXPECT_GT(k->laneStats().workgroups, 0);
  }
  // The same kernel handed K and V descales swapped.
  std::vector<float> swapped;
  ASSERT_EQ(ref::mutatedDescales(in, ref::DescaleMutation::SwapKV, k->emulation().block_n,
                                 swapped, nullptr),
            "");
  ASSERT_TRUE(mlir::succeeded(k->run(in, swapped, out, lse, err))) << err;
  EXPECT_FALSE(ref::compareWithOracle(in, out.data(), nullptr, oracle).pass);
  // A descale buffer of the wrong size is refused, not read.
  std::vector<float> tooShort(1, 1.0f);
  EXPECT_TRUE(mlir::failed(k->run(in, tooShort, out, lse, err)));
  EXPECT_NE(err.find("descale buffer"), std::string::npos) << err;
}

INSTANTIATE_TEST_SUITE_P(Targets, CpuKernelTarget,
                         ::testing::Values("host", "gfx942", "gfx950", "sm_90", "sm_90a"));

TEST(CpuKernel, BadRequestsAreErrorsWithTheToolsExitCode) {
  std::string err;
  int code = -1;
  CpuKernelOptions opt;
  opt.target = "gfx90a";
  EXPECT_FALSE(CpuKernel::compile(smallRequest("host"), opt, err, code));
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("target must be gfx942, gfx950, sm_90, sm_90a or host, not 'gfx90a'"), std::string::npos) << err;
  ref::Request bad = smallRequest("host");
  bad.num_qo_heads = 3; // not a multiple of Hkv = 2
  opt.target = "host";
  EXPECT_FALSE(CpuKernel::compile(bad, opt, err, code));
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("invalid request"), std::string::npos) << err;
  // OCP fp8 on gfx942 (FNUZ only): the chip's config rejects it.
  opt.target = "gfx942";
  EXPECT_FALSE(CpuKernel::compile(smallRequest("sm_90"), opt, err, code));
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("FNUZ"), std::string::npos) << err;
}

// A kernel depends on the request's kernel key only: compiled once, it runs
// other lengths, seeds and data (each checked against both references), and
// refuses inputs of another key.
TEST(CpuKernel, OneCompileServesAnyLengths) {
  std::string err;
  int code = -1;
  ref::Request req = smallRequest("host");
  auto k = CpuKernel::compile(req, {}, err, code);
  ASSERT_TRUE(k) << err;
  for (auto [qo, kv] : {std::pair<std::vector<int64_t>, std::vector<int64_t>>{{64}, {64}},
                        {{1, 9, 33}, {300, 0, 20}}}) {
    ref::Request r = req;
    r.qo_lens = qo;
    r.kv_lens = kv;
    r.seed = 5;
    ASSERT_EQ(r.kernelKey(), req.kernelKey());
    ref::Inputs in = ref::makeInputs(r);
    std::vector<uint8_t> out;
    std::vector<float> lse;
    ASSERT_TRUE(mlir::succeeded(k->run(in, in.kv_descale, out, lse, err))) << err;
    ref::CompareResult vo =
        ref::compareWithOracle(in, out.data(), lse.data(), ref::runOracle(in));
    ref::CompareResult ve = ref::compareWithEmulation(
        in, out.data(), lse.data(), ref::runEmulation(in, k->emulation()));
    EXPECT_TRUE(vo.pass) << vo.summary();
    EXPECT_TRUE(ve.pass) << ve.summary();
  }
  ref::Request other = req;
  other.page_size = 32;
  ref::Inputs in = ref::makeInputs(other);
  std::vector<uint8_t> out;
  std::vector<float> lse;
  EXPECT_TRUE(mlir::failed(k->run(in, in.kv_descale, out, lse, err)));
  EXPECT_NE(err.find("is not the kernel's"), std::string::npos) << err;
}

// Caller-owned buffers are checked before anything runs: names, shapes,
// density, the page table (SPEC section 7) and the query runs.
TEST(CpuKernel, BuffersBreakingARuleAreRefused) {
  std::string err;
  int code = -1;
  ref::Request req = smallRequest("host");
  auto k = CpuKernel::compile(req, {}, err, code);
  ASSERT_TRUE(k) << err;
  ref::Inputs in = ref::makeInputs(req);
  int64_t t = req.totalQ(), n = in.nPages();
  std::vector<uint16_t> out(t * 4 * 64);
  std::vector<float> lse(t * 4);
  std::vector<int32_t> pages = in.table.kv_page_indices, qo = in.qo_indptr;
  auto views = [&] {
    return smallViews(in, qo, pages, out.data(), lse.data(),
                      {"k_cache", in.k_cache.data(), {n, 16, 2, 64}, {}},
                      {"v_cache", in.v_cache.data(), {n, 16, 2, 64}, {}});
  };
  auto refused = [&](std::vector<mlir::fmha::BufferView> v, const std::string &want) {
    std::fill(out.begin(), out.end(), 0);
    std::string e;
    EXPECT_TRUE(mlir::failed(k->runOnBuffers(v, e)));
    EXPECT_NE(e.find(want), std::string::npos) << e;
    EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](uint16_t x) { return x == 0; }));
  };
  std::vector<mlir::fmha::BufferView> v = views();
  ASSERT_TRUE(mlir::succeeded(k->runOnBuffers(v, err))) << err;
  v = views();
  v.pop_back();
  refused(v, "missing buffer 'lse'");
  v = views();
  v[1].sizes = {n, 8, 2, 64};
  refused(v, "'k_cache' must have shape");
  v = views();
  v[0].strides = {4 * 64, 1, 4};
  refused(v, "'q' must be dense row-major");
  pages[0] = static_cast<int32_t>(n);
  refused(views(), "invalid page table: kv_page_indices[0]");
  pages = in.table.kv_page_indices;
  qo[2] = static_cast<int32_t>(t + 1);
  refused(views(), "is past q's");
  // A dense kernel takes no K strides.
  qo = in.qo_indptr;
  v = views();
  v[1].strides = {2 * 16 * 2 * 64, 2 * 64, 64, 1};
  refused(v, "'k_cache' must be dense row-major");
}

// A kv_strided kernel takes K and V as views of any layout the stride rule
// allows: here one combined (N_pages, 2, P, Hkv, D) buffer, checked against
// the oracle on spread data; strides that overlap, are not 16-byte
// multiples, or leave d strided are refused before anything runs.
TEST(CpuKernel, StridedKVViewsOfOneCombinedCache) {
  for (const char *target : {"host", "gfx942"}) {
    std::string err;
    int code = -1;
    ref::Request req = smallRequest(target);
    req.kv_strided = true;
    CpuKernelOptions opt;
    opt.target = target;
    auto k = CpuKernel::compile(req, opt, err, code);
    ASSERT_TRUE(k) << err;
    ref::Inputs in = ref::makeInputs(req);
    const int64_t t = req.totalQ(), n = in.nPages(), page = 16 * 2 * 64;
    // The combined cache, built here from the dense inputs: page pg's K at
    // 2 * pg * page, its V right after.
    std::vector<uint8_t> kv(2 * n * page);
    for (int64_t pg = 0; pg < n; ++pg) {
      std::copy_n(in.k_cache.begin() + pg * page, page, kv.begin() + 2 * pg * page);
      std::copy_n(in.v_cache.begin() + pg * page, page, kv.begin() + (2 * pg + 1) * page);
    }
    std::vector<uint16_t> out(t * 4 * 64, 0);
    std::vector<float> lse(t * 4);
    std::vector<int32_t> pages = in.table.kv_page_indices, qo = in.qo_indptr;
    std::vector<int64_t> strides = {2 * page, 2 * 64, 64, 1};
    auto views = [&](std::vector<int64_t> ks) {
      return smallViews(in, qo, pages, out.data(), lse.data(),
                        {"k_cache", kv.data(), {n, 16, 2, 64}, ks},
                        {"v_cache", kv.data() + page, {n, 16, 2, 64}, strides});
    };
    ASSERT_TRUE(mlir::succeeded(k->runOnBuffers(views(strides), err))) << err;
    ref::OracleResult oracle = ref::runOracle(in);
    ref::CompareResult vo = ref::compareWithOracle(in, out.data(), nullptr, oracle);
    EXPECT_TRUE(vo.pass) << target << ": " << vo.summary();
    // The same buffer read as if dense: K's page 1 is then page 0's V.
    std::fill(out.begin(), out.end(), 0);
    ASSERT_TRUE(mlir::succeeded(k->runOnBuffers(views({page, 2 * 64, 64, 1}), err))) << err;
    EXPECT_FALSE(ref::compareWithOracle(in, out.data(), nullptr, oracle).pass) << target;
    for (auto [ks, want] : std::vector<std::pair<std::vector<int64_t>, std::string>>{
             {{2 * page, 64, 64, 1}, "the strides overlap"},
             {{2 * page, 2 * 64 + 8, 64, 1}, "multiples of 16 bytes"},
             {{2 * page, 2 * 64, 64, 2}, "contiguous (stride 1)"},
             {{2 * page, -2 * 64, 64, 1}, "must be > 0"}}) {
      std::fill(out.begin(), out.end(), 0);
      std::string e;
      EXPECT_TRUE(mlir::failed(k->runOnBuffers(views(ks), e)));
      EXPECT_EQ(e.rfind("'k_cache': ", 0), 0u) << e;
      EXPECT_NE(e.find(want), std::string::npos) << e;
      EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](uint16_t x) { return x == 0; }));
    }
  }
}

} // namespace
