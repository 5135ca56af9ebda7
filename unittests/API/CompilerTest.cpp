//===- CompilerTest.cpp - the embeddable API (fmha/API/Compiler.h) --------===//
//
// Through libFmhaMLIR.so as a consumer sees it: bad input is a diagnostic and
// no kernel; the text formats; concurrent compiles of different requests
// equal their one-thread results. (examples/embed does the same against the
// installed package, in scripts/test.sh.)
//
//===----------------------------------------------------------------------===//
#include "fmha/API/CAPI.h"
#include "fmha/API/Compiler.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <sys/stat.h>

using namespace fmha::api;
using fmha::ref::DType;

namespace {

Request small(const std::string &chip, int64_t page = 1024) {
  Request r;
  r.qo_lens = {40, 7};
  r.kv_lens = {300, 64};
  r.page_size = page;
  r.q_dtype = r.kv_dtype = chip == "gfx942" ? DType::F8E4M3FNUZ : DType::F8E4M3FN;
  return r;
}

Target on(const std::string &chip, Format f = Format::Binary) {
  Target t;
  t.chip = chip;
  t.format = f;
  return t;
}

TEST(Compiler, BadInputIsADiagnostic) {
  Request r = small("gfx942");
  r.kv_lens = {300}; // lengths of different sizes
  Result a = compile(r, on("gfx942"));
  EXPECT_FALSE(a);
  EXPECT_TRUE(a.badInput);
  EXPECT_FALSE(a.kernel.has_value());
  EXPECT_NE(a.diagnostic.find("invalid request"), std::string::npos) << a.diagnostic;

  Result b = compile(small("gfx942"), on("gfx90a"));
  EXPECT_FALSE(b);
  EXPECT_NE(b.diagnostic.find("unknown chip 'gfx90a'"), std::string::npos);

  // 16-bit K and V tiles of D 256 do not fit sm_90a's 48 KiB even at
  // block_n 64: the lowering names the rule, no kernel.
  Request c = small("sm_90a");
  c.q_dtype = c.kv_dtype = DType::BF16;
  c.quant = fmha::ref::QuantMode::None;
  c.head_dim = c.head_dim_v = 256;
  Result cr = compile(c, on("sm_90a"));
  EXPECT_FALSE(cr);
  EXPECT_TRUE(cr.badInput);
  EXPECT_NE(cr.diagnostic.find("convert-fmha-to-gpu"), std::string::npos) << cr.diagnostic;
}

TEST(Compiler, DefaultsCompileTogether) {
  // Only the lengths set (a default Request has no sequences).
  Request req;
  req.qo_lens = {100};
  req.kv_lens = {1500};
  Result r = compile(req, Target{});
  ASSERT_TRUE(r) << r.diagnostic;
  EXPECT_NE(r.kernel->manifest.find("\"chip\": \"gfx950\""), std::string::npos);
}

TEST(Compiler, Formats) {
  Result isa = compile(small("gfx950"), on("gfx950", Format::Assembly));
  ASSERT_TRUE(isa) << isa.diagnostic;
  EXPECT_NE(isa.kernel->binary.find("v_mfma_f32_32x32x64_f8f6f4"), std::string::npos);
  EXPECT_TRUE(isa.kernel->manifest.empty());
  Result mlir = compile(small("sm_90"), on("sm_90", Format::MLIR));
  ASSERT_TRUE(mlir) << mlir.diagnostic;
  EXPECT_NE(mlir.kernel->binary.find("gpu.func @fmha_batch_prefill_kernel"), std::string::npos);
  Result ll = compile(small("gfx942"), on("gfx942", Format::LLVMIR));
  ASSERT_TRUE(ll) << ll.diagnostic;
  EXPECT_NE(ll.kernel->binary.find("define amdgpu_kernel"), std::string::npos);
}

// sm_90a splits the workgroup by warp role by default (3 warpgroups: the
// manifest's 384 threads); Target::warpSpecialize = false keeps one (128).
TEST(Compiler, WarpSpecializationIsTheSm90aDefault) {
  Result ws = compile(small("sm_90a"), on("sm_90a"));
  ASSERT_TRUE(ws) << ws.diagnostic;
  EXPECT_NE(ws.kernel->binary.find("setmaxnreg"), std::string::npos);
  EXPECT_NE(ws.kernel->manifest.find("\"workgroup\": [\n    384,"), std::string::npos)
      << ws.kernel->manifest;
  Target one = on("sm_90a");
  one.warpSpecialize = false;
  Result single = compile(small("sm_90a"), one);
  ASSERT_TRUE(single) << single.diagnostic;
  EXPECT_EQ(single.kernel->binary.find("setmaxnreg"), std::string::npos);
  EXPECT_NE(single.kernel->manifest.find("\"workgroup\": [\n    128,"), std::string::npos)
      << single.kernel->manifest;
}

TEST(Compiler, ThreadsGetTheirOwnKernels) {
  std::vector<std::pair<Request, Target>> jobs = {
      {small("gfx942", 16), on("gfx942", Format::Assembly)},
      {small("gfx942", 1024), on("gfx942", Format::Assembly)},
      {small("sm_90", 16), on("sm_90")},
      {small("sm_90", 1024), on("sm_90")}};
  std::vector<std::string> serial, parallel(jobs.size());
  for (auto &[r, t] : jobs) {
    Result res = compile(r, t);
    ASSERT_TRUE(res) << res.diagnostic;
    serial.push_back(res.kernel->binary);
  }
  std::vector<std::thread> threads;
  for (size_t i = 0; i < jobs.size(); ++i)
    threads.emplace_back([&, i] {
      Result res = compile(jobs[i].first, jobs[i].second);
      parallel[i] = res ? res.kernel->binary : res.diagnostic;
    });
  for (std::thread &t : threads)
    t.join();
  for (size_t i = 0; i < jobs.size(); ++i)
    EXPECT_EQ(serial[i], parallel[i]) << "job " << i;
  EXPECT_NE(serial[0], serial[1]);
  EXPECT_NE(serial[2], serial[3]);
}

/// A toolkit folder whose llvm/bin/ld.lld is the shell script `body`.
std::string fakeToolkit(const std::string &name, const std::string &body) {
  std::string dir = ::testing::TempDir() + "fmha-api-" + name;
  std::string bin = dir + "/llvm/bin";
  EXPECT_EQ(std::system(("mkdir -p '" + bin + "'").c_str()), 0);
  std::string lld = bin + "/ld.lld";
  FILE *f = std::fopen(lld.c_str(), "w");
  EXPECT_NE(f, nullptr);
  std::fputs(("#!/bin/sh\n" + body + "\n").c_str(), f);
  std::fclose(f);
  EXPECT_EQ(::chmod(lld.c_str(), 0755), 0);
  return dir;
}

TEST(Compiler, FailingLinkerIsADiagnostic) {
  Target t = on("gfx942");
  t.toolkit = fakeToolkit("fail", "echo 'ld.lld: error: disk on fire' >&2; exit 1");
  Result r = compile(small("gfx942"), t);
  EXPECT_FALSE(r);
  EXPECT_FALSE(r.badInput); // the tool failed, not the request
  EXPECT_NE(r.diagnostic.find("ld.lld failed (exit 1): ld.lld: error: disk on fire"),
            std::string::npos)
      << r.diagnostic;
}

TEST(Compiler, HangingLinkerIsKilled) {
  Target t = on("gfx942");
  t.toolkit = fakeToolkit("hang", "exec sleep 60");
  t.linkSeconds = 1;
  auto start = std::chrono::steady_clock::now();
  Result r = compile(small("gfx942"), t);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                 .count();
  EXPECT_FALSE(r);
  EXPECT_NE(r.diagnostic.find("timed out after 1 s and was killed"), std::string::npos)
      << r.diagnostic;
  EXPECT_LT(s, 30.0);
}

// The C interface refuses a request JSON nested past 64 levels before
// llvm::json::parse, which recurses per level: 100000 levels overflowed the
// stack of the calling process (found by CAPIRequestFuzzer).
TEST(CAPI, DeepJsonIsRefusedNotACrash) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  fmha_kernel *kernel = nullptr;
  char *diag = nullptr;
  EXPECT_EQ(fmha_compile(deep.c_str(), "gfx950", "mlir", &kernel, &diag), 2);
  EXPECT_EQ(kernel, nullptr);
  ASSERT_NE(diag, nullptr);
  EXPECT_NE(std::string(diag).find("nesting deeper than 64"), std::string::npos) << diag;
  fmha_free(diag);
  // Brackets inside strings do not count: the nesting check lets this
  // through and the request reader names the value.
  std::string inString = "{\"qo_lens\": [5], \"kv_lens\": [40], \"mask\": \"" +
                         std::string(200, '[') + "\"}";
  diag = nullptr;
  EXPECT_EQ(fmha_compile(inString.c_str(), "gfx950", "mlir", &kernel, &diag), 2);
  ASSERT_NE(diag, nullptr);
  EXPECT_NE(std::string(diag).find("\"mask\": unknown value"), std::string::npos) << diag;
  fmha_free(diag);
}

// A key the request does not have, or a value of the wrong type, is refused;
// it used to leave the field at its default silently.
TEST(CAPI, UnknownKeysAndWrongTypesAreRefused) {
  auto rc = [](const std::string &json, std::string &msg) {
    fmha_kernel *kernel = nullptr;
    char *diag = nullptr;
    int code = fmha_compile(json.c_str(), "gfx950", "mlir", &kernel, &diag);
    msg = diag ? diag : "";
    fmha_kernel_free(kernel);
    fmha_free(diag);
    return code;
  };
  std::string msg;
  EXPECT_EQ(rc(R"({"qo_lens": [5], "kv_lens": [40], "page_sz": 16})", msg), 2);
  EXPECT_NE(msg.find("unknown key \"page_sz\""), std::string::npos) << msg;
  EXPECT_EQ(rc(R"({"qo_lens": [5], "kv_lens": [40], "mask": 5})", msg), 2);
  EXPECT_NE(msg.find("\"mask\" must be a string"), std::string::npos) << msg;
  EXPECT_EQ(rc(R"({"qo_lens": [5, 6], "kv_lens": [40, 9], "batch": 3})", msg), 2);
  EXPECT_NE(msg.find("\"batch\" must be the number of qo_lens (2)"), std::string::npos) << msg;
  // A manifest's own request (with batch, seed and data) is accepted.
  EXPECT_EQ(rc(R"({"qo_lens": [5, 6], "kv_lens": [40, 9], "batch": 2, "seed": 7,
                   "data": "spread", "mask": "none"})", msg), 0) << msg;
}

/// fmha_compile_options of `req` for `chip` in `format`: the return code,
/// the kernel's text and manifest (empty without a kernel), the diagnostic.
int compileOptions(const char *req, const char *chip, const char *format,
                   const char *options, std::string &text, std::string &manifest,
                   std::string &msg) {
  fmha_kernel *kernel = nullptr;
  char *diag = nullptr;
  int code = fmha_compile_options(req, chip, format, options, &kernel, &diag);
  msg = diag ? diag : "";
  text.clear();
  manifest.clear();
  if (kernel) {
    size_t n = 0;
    const char *b = fmha_kernel_binary(kernel, &n);
    text.assign(b, n);
    manifest = fmha_kernel_manifest(kernel);
  }
  fmha_kernel_free(kernel);
  fmha_free(diag);
  return code;
}

// "tma" and "stage_descales" through the C interface: an sm_90a kernel at
// page 16 with tma takes a tensor map a cache (its manifest's "tensormap"
// arguments, docs/ABI.md) and copies by cp.async.bulk.tensor; with both
// false, neither, and no descale from shared memory; with neither given
// (null or left out), the chip's choice at page 16 (kv_blockscale): the
// descales staged and the copies by TMA; stage_descales true with tma
// false stages them over cp.async; a wrong type is refused by name.
TEST(CAPI, TmaOptionReachesTheKernel) {
  const char *req = R"({"qo_lens": [40], "kv_lens": [300], "page_size": 16})";
  auto compileWith = [&](const char *options, std::string &ptx, std::string &manifest,
                         std::string &msg) {
    return compileOptions(req, "sm_90a", "bin", options, ptx, manifest, msg);
  };
  std::string ptx, manifest, msg;
  // Each case: its options, whether the kernel copies by TMA (a tensor map
  // a cache in the manifest, cp.async.bulk.tensor in the PTX), whether its
  // consumers read staged descales from shared memory.
  struct Case {
    const char *options;
    bool tma, staged;
  };
  for (Case c : {Case{R"({"tma": true, "stage_descales": false})", true, false},
                 Case{R"({"tma": false, "stage_descales": false})", false, false},
                 Case{nullptr, true, true},
                 Case{R"({"tma": null, "stage_descales": null})", true, true},
                 Case{R"({"stage_descales": true, "tma": false})", false, true}}) {
    SCOPED_TRACE(c.options ? c.options : "(no options)");
    ASSERT_EQ(compileWith(c.options, ptx, manifest, msg), 0) << msg;
    EXPECT_EQ(manifest.find("\"name\": \"k_cache_tmap\"") != std::string::npos, c.tma)
        << manifest;
    EXPECT_EQ(manifest.find("\"kind\": \"tensormap\"") != std::string::npos, c.tma);
    EXPECT_EQ(ptx.find("cp.async.bulk.tensor.4d") != std::string::npos, c.tma);
    EXPECT_EQ(ptx.find("ld.shared.b32") != std::string::npos, c.staged);
  }
  EXPECT_EQ(compileWith(R"({"stage_descales": 1})", ptx, manifest, msg), 2);
  EXPECT_NE(msg.find("\"stage_descales\" must be true, false or null"), std::string::npos)
      << msg;
  EXPECT_EQ(compileWith(R"({"tma": 1})", ptx, manifest, msg), 2);
  EXPECT_NE(msg.find("\"tma\" must be true, false or null"), std::string::npos) << msg;
}

// The lowering's choices through the C interface (fmha_compile_options):
// each one reaches the kernel (the gfx942 code object loads K straight into
// LDS with lds_loads, a workgroup of 8 waves with warps 8, the exp2_bias
// route's config with vd_route), null and "" are the compiler's choices,
// and an unknown key, a wrong type or a choice the request cannot take is
// refused by name.
TEST(CAPI, LoweringOptionsReachTheKernel) {
  const char *req = R"({"qo_lens": [40], "kv_lens": [300], "page_size": 16,
                        "q_dtype": "f8E4M3FNUZ", "kv_dtype": "f8E4M3FNUZ"})";
  auto compileWith = [&](const char *options, const char *format, std::string &text,
                         std::string &manifest, std::string &msg) {
    return compileOptions(req, "gfx942", format, options, text, manifest, msg);
  };
  std::string isa, manifest, msg;
  ASSERT_EQ(compileWith(nullptr, "isa", isa, manifest, msg), 0) << msg;
  EXPECT_EQ(isa.find("offen lds"), std::string::npos) << "gfx942's choice: through registers";
  std::string isaEmpty;
  ASSERT_EQ(compileWith("", "isa", isaEmpty, manifest, msg), 0) << msg;
  EXPECT_EQ(isaEmpty, isa);
  // lds_swizzle: gfx942's choice is chunk-major (V^T read by ds_read_b128),
  // false row-major (V^T read by ds_read2_b64).
  EXPECT_EQ(isa.find("ds_read2_b64"), std::string::npos) << "gfx942's choice: chunk-major";
  std::string isaRowMajor;
  ASSERT_EQ(compileWith(R"({"lds_swizzle": false})", "isa", isaRowMajor, manifest, msg), 0)
      << msg;
  EXPECT_NE(isaRowMajor.find("ds_read2_b64"), std::string::npos) << "lds_swizzle: row-major";
  ASSERT_EQ(compileWith(R"({"lds_swizzle": null})", "isa", isaEmpty, manifest, msg), 0) << msg;
  EXPECT_EQ(isaEmpty, isa);
  ASSERT_EQ(compileWith(R"({"lds_loads": true})", "isa", isa, manifest, msg), 0) << msg;
  EXPECT_NE(isa.find("buffer_load_dword"), std::string::npos);
  EXPECT_NE(isa.find("offen lds"), std::string::npos) << "lds_loads: K straight into LDS";
  ASSERT_EQ(compileWith(R"({"lds_loads": null, "warps": 8})", "bin", isa, manifest, msg), 0)
      << msg;
  EXPECT_NE(manifest.find("\"workgroup\": [\n    512,"), std::string::npos) << manifest;
  std::string mlir;
  ASSERT_EQ(compileWith(R"({"vd_route": "exp2_bias"})", "mlir", mlir, manifest, msg), 0) << msg;
  EXPECT_NE(mlir.find("vd_route = exp2_bias"), std::string::npos);
  // block_n: the chip's 128, or the stated tile.
  EXPECT_NE(mlir.find("block_n = 128"), std::string::npos);
  ASSERT_EQ(compileWith(R"({"block_n": 64})", "mlir", mlir, manifest, msg), 0) << msg;
  EXPECT_NE(mlir.find("block_n = 64,"), std::string::npos);
  ASSERT_EQ(compileWith(R"({"block_n": 64})", "bin", isa, manifest, msg), 0) << msg;
  EXPECT_NE(manifest.find("\"block_n\": 64"), std::string::npos) << manifest;
  // Refused, by name.
  EXPECT_EQ(compileWith(R"({"block_n": 96})", "mlir", mlir, manifest, msg), 2);
  EXPECT_NE(msg.find("does not split into 16-byte chunks"), std::string::npos) << msg;
  EXPECT_EQ(compileWith(R"({"block_n": 4096})", "mlir", mlir, manifest, msg), 2);
  EXPECT_NE(msg.find("block_n must be 0 (the chip's) to 1024, not 4096"), std::string::npos)
      << msg;
  EXPECT_EQ(compileWith(R"({"block_n": 48})", "mlir", mlir, manifest, msg), 2);
  EXPECT_NE(msg.find("block_n = 48 must be a multiple of mma_n = 32"), std::string::npos)
      << msg;
  EXPECT_EQ(compileWith(R"({"lds_load": true})", "mlir", mlir, manifest, msg), 2);
  EXPECT_NE(msg.find("unknown key \"lds_load\""), std::string::npos) << msg;
  EXPECT_EQ(compileWith(R"({"warps": "8"})", "mlir", mlir, manifest, msg), 2);
  EXPECT_NE(msg.find("\"warps\" must be an integer"), std::string::npos) << msg;
  EXPECT_EQ(compileWith(R"({"lds_loads": 1})", "mlir", mlir, manifest, msg), 2);
  EXPECT_NE(msg.find("\"lds_loads\" must be true, false or null"), std::string::npos) << msg;
  EXPECT_EQ(compileWith(R"({"lds_swizzle": "yes"})", "mlir", mlir, manifest, msg), 2);
  EXPECT_NE(msg.find("\"lds_swizzle\" must be true, false or null"), std::string::npos) << msg;
  EXPECT_EQ(compileWith(R"([1])", "mlir", mlir, manifest, msg), 2);
  EXPECT_NE(msg.find("not an object"), std::string::npos) << msg;
  // Counts out of range (a huge kv_stages or kv_unroll had built rings or
  // unrolled loops that exhausted the host's memory).
  EXPECT_EQ(compileWith(R"({"kv_stages": 4611686018427387904})", "mlir", mlir, manifest, msg), 2);
  EXPECT_NE(msg.find("kv stages must be 2 to 8"), std::string::npos) << msg;
  EXPECT_EQ(compileWith(R"({"kv_unroll": 4096})", "mlir", mlir, manifest, msg), 2);
  EXPECT_NE(msg.find("kv unroll must be -1 (auto) or 1 to 8"), std::string::npos) << msg;
  EXPECT_EQ(compileWith(R"({"kv_unroll": 0})", "mlir", mlir, manifest, msg), 2);
  EXPECT_EQ(compileWith(R"({"warps": -4})", "mlir", mlir, manifest, msg), 2);
  EXPECT_NE(msg.find("warps must be 0 (the chip's) to 16"), std::string::npos) << msg;
  EXPECT_EQ(compileWith(R"({"vd_route": "nonsense"})", "mlir", mlir, manifest, msg), 2);
  EXPECT_NE(msg.find("nonsense"), std::string::npos) << msg;
  // The CPU kernel takes the same options (the lane emulator's gfx942
  // kernel with loads into LDS).
  fmha_cpu_kernel *k = nullptr;
  char *diag = nullptr;
  EXPECT_EQ(fmha_cpu_compile_options(req, "gfx942", R"({"lds_loads": true})", &k, &diag), 0)
      << (diag ? diag : "");
  fmha_cpu_kernel_free(k);
  fmha_free(diag);
  diag = nullptr;
  k = nullptr;
  EXPECT_EQ(fmha_cpu_compile_options(req, "gfx942", R"({"kv_unroll": 0})", &k, &diag), 2);
  EXPECT_EQ(k, nullptr);
  ASSERT_NE(diag, nullptr);
  EXPECT_NE(std::string(diag).find("kv unroll must be"), std::string::npos) << diag;
  fmha_free(diag);
  diag = nullptr;
  EXPECT_EQ(fmha_cpu_compile_options(req, "gfx942", R"({"kv_stage": 2})", &k, &diag), 2);
  EXPECT_EQ(k, nullptr);
  ASSERT_NE(diag, nullptr);
  EXPECT_NE(std::string(diag).find("unknown key \"kv_stage\""), std::string::npos) << diag;
  fmha_free(diag);
}

// The C interface's CPU execution: compile without lengths, run on buffers
// the caller owns (the lengths come from them), refuse a bad table by name
// with 2 and nothing written; and the completed request and its kernel key.
TEST(CAPI, CpuKernelRunsOnCallerBuffers) {
  char *diag = nullptr;
  fmha_cpu_kernel *k = nullptr;
  const char *req = R"({"num_qo_heads": 2, "num_kv_heads": 1, "head_dim": 16,
                        "page_size": 4, "mask": "none", "lse": false})";
  ASSERT_EQ(fmha_cpu_compile(req, "host", &k, &diag), 0) << (diag ? diag : "");
  EXPECT_NE(std::string(fmha_cpu_kernel_operands(k)).find(R"({"name": "q", "rank": 3})"),
            std::string::npos);
  // One sequence: 2 queries over 6 keys in pages 1 and 0 of a pool of 2.
  // Every code is 0x38 = 1.0 in e4m3fn, descales 1: O = mean of V = 1.0.
  std::vector<uint8_t> q(2 * 2 * 16, 0x38), kc(2 * 4 * 16, 0x38), vc(2 * 4 * 16, 0x38);
  std::vector<int32_t> qo = {0, 2}, kvIndptr = {0, 2}, pages = {1, 0}, last = {2};
  float one = 1.0f;
  std::vector<float> kd(2, 1.0f), vd(2, 1.0f);
  std::vector<uint16_t> out(2 * 2 * 16, 0);
  long long qs[] = {2, 2, 16}, cs[] = {2, 4, 1, 16}, b1[] = {2}, b0[] = {1}, one1[] = {1},
            ds[] = {2, 1}, os[] = {2, 2, 16};
  std::vector<fmha_buffer> bufs = {
      {"q", q.data(), 3, qs, nullptr},           {"k_cache", kc.data(), 4, cs, nullptr},
      {"v_cache", vc.data(), 4, cs, nullptr},    {"qo_indptr", qo.data(), 1, b1, nullptr},
      {"kv_indptr", kvIndptr.data(), 1, b1, nullptr},
      {"kv_page_indices", pages.data(), 1, b1, nullptr},
      {"kv_last_page_len", last.data(), 1, b0, nullptr},
      {"q_descale", &one, 1, one1, nullptr},    {"k_descale", kd.data(), 2, ds, nullptr},
      {"v_descale", vd.data(), 2, ds, nullptr}, {"out", out.data(), 3, os, nullptr}};
  ASSERT_EQ(fmha_cpu_run(k, bufs.data(), bufs.size(), &diag), 0) << (diag ? diag : "");
  for (uint16_t o : out)
    EXPECT_EQ(o, 0x3f80); // bf16 1.0
  pages[1] = 2;
  std::fill(out.begin(), out.end(), 0);
  EXPECT_EQ(fmha_cpu_run(k, bufs.data(), bufs.size(), &diag), 2);
  ASSERT_NE(diag, nullptr);
  EXPECT_NE(std::string(diag).find("invalid page table: kv_page_indices[1] = 2"),
            std::string::npos) << diag;
  fmha_free(diag);
  for (uint16_t o : out)
    EXPECT_EQ(o, 0);
  fmha_cpu_kernel_free(k);

  char *done = nullptr;
  ASSERT_EQ(fmha_request_complete(req, &done, &diag), 0);
  std::string text = done;
  fmha_free(done);
  EXPECT_NE(text.find(R"("kernel_key":"H=2/1 D=16/16 P=4 csr NHD kv_blockscale)"),
            std::string::npos) << text;
  EXPECT_NE(text.find(R"("sm_scale":0.25)"), std::string::npos) << text;
  EXPECT_EQ(fmha_request_complete(R"({"page_size": 0})", &done, &diag), 2);
  ASSERT_NE(diag, nullptr);
  fmha_free(diag);
}

} // namespace
