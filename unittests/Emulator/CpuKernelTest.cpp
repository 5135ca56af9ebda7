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

} // namespace
