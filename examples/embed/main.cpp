// An inference server's view of fmha-mlir: compile kernels in process.
//
//   fmha-embed OUTDIR [REPEAT]
//
// Compiles the default request (fp8 kv_blockscale, page 1024, 32/8 heads,
// D 128, causal, Sq 128/96 over Sk 1280/1100) to a gfx942 HSACO and to sm_90
// PTX, checks both (ELF header and machine, the fp8 MFMA / mma.sync and the
// manifest's kernel), writes OUTDIR/embed_gfx942.hsaco and
// OUTDIR/embed_sm_90.ptx (for a byte comparison with fmha-compile), then
// checks that bad requests come back as diagnostics, and that four threads
// compiling different requests each get what one thread gets. With REPEAT,
// prints the median in-process compile time per target over REPEAT compiles.
#include "fmha/API/Compiler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using fmha::api::Format;
using fmha::api::Request;
using fmha::api::Target;

static int failures = 0;
static void check(bool ok, const std::string &what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  failures += !ok;
}

static Request defaultRequest() {
  Request r; // member defaults are the project's default request
  r.qo_lens = {128, 96};
  r.kv_lens = {1280, 1100};
  return r;
}

static Target target(const std::string &chip) {
  Target t;
  t.chip = chip;
  return t;
}

static Request forChip(Request r, const std::string &chip) {
  using fmha::ref::DType;
  r.q_dtype = r.kv_dtype = chip == "gfx942" ? DType::F8E4M3FNUZ : DType::F8E4M3FN;
  return r;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fmha-embed OUTDIR [REPEAT]\n");
    return 2;
  }
  std::string out = argv[1];
  int repeat = argc > 2 ? std::atoi(argv[2]) : 0;

  // 1. Two kernels in process.
  fmha::api::Result amd = fmha::api::compile(forChip(defaultRequest(), "gfx942"), target("gfx942"));
  check(bool(amd), "gfx942 compiles" + (amd ? "" : ": " + amd.diagnostic));
  if (amd) {
    const std::string &b = amd.kernel->binary;
    check(b.size() > 64 && std::memcmp(b.data(), "\x7f" "ELF", 4) == 0 &&
              uint8_t(b[18]) == 224 /* EM_AMDGPU */,
          "gfx942 binary is an AMDGPU ELF (" + std::to_string(b.size()) + " bytes)");
    check(amd.kernel->manifest.find("\"symbol\": \"" + amd.kernel->symbol + ".kd\"") !=
              std::string::npos,
          "gfx942 manifest names the kernel descriptor " + amd.kernel->symbol + ".kd");
    std::ofstream(out + "/embed_gfx942.hsaco", std::ios::binary) << b;
  }
  fmha::api::Result nv = fmha::api::compile(forChip(defaultRequest(), "sm_90"), target("sm_90"));
  check(bool(nv), "sm_90 compiles" + (nv ? "" : ": " + nv.diagnostic));
  if (nv) {
    const std::string &p = nv.kernel->binary;
    check(p.find(".target sm_90") != std::string::npos &&
              p.find(".entry " + nv.kernel->symbol) != std::string::npos &&
              p.find("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32") != std::string::npos,
          "sm_90 PTX has the entry and the fp8 mma.sync");
    std::ofstream(out + "/embed_sm_90.ptx", std::ios::binary) << p;
  }

  // 2. Bad requests: a diagnostic, no kernel, no abort.
  Request bad = defaultRequest();
  bad.num_kv_heads = 5;
  fmha::api::Result r1 = fmha::api::compile(bad, target("gfx942"));
  check(!r1 && r1.badInput && r1.diagnostic.find("Hq % Hkv != 0") != std::string::npos,
        "bad heads -> diagnostic: " + r1.diagnostic);
  fmha::api::Result r2 = fmha::api::compile(defaultRequest(), target("gfx1100"));
  check(!r2 && r2.diagnostic.find("unknown chip 'gfx1100'") != std::string::npos,
        "unknown chip -> diagnostic: " + r2.diagnostic);
  // gfx942's FNUZ fp8 for gfx950, whose MFMA takes OCP fp8 only: refused by
  // the lowering with the rule named, and no kernel comes back.
  fmha::api::Result r3 =
      fmha::api::compile(forChip(defaultRequest(), "gfx942"), target("gfx950"));
  check(!r3 && !r3.kernel && r3.diagnostic.find("takes OCP fp8") != std::string::npos,
        "FNUZ fp8 on gfx950 -> diagnostic, no partial binary: " + r3.diagnostic);

  // 3. Threads: different requests at once, each equal to its serial result.
  std::vector<std::pair<Request, Target>> jobs;
  for (int64_t page : {16, 1024})
    for (const char *chip : {"gfx950", "sm_90"}) {
      Request r = forChip(defaultRequest(), chip);
      r.page_size = page;
      jobs.push_back({r, target(chip)});
    }
  std::vector<std::string> serial, parallel(jobs.size());
  for (auto &[r, t] : jobs) {
    fmha::api::Result res = fmha::api::compile(r, t);
    serial.push_back(res ? res.kernel->binary : "error: " + res.diagnostic);
  }
  std::vector<std::thread> threads;
  for (size_t i = 0; i < jobs.size(); ++i)
    threads.emplace_back([&, i] {
      fmha::api::Result res = fmha::api::compile(jobs[i].first, jobs[i].second);
      parallel[i] = res ? res.kernel->binary : "error: " + res.diagnostic;
    });
  for (std::thread &t : threads)
    t.join();
  for (size_t i = 0; i < jobs.size(); ++i)
    check(serial[i] == parallel[i] && serial[i].rfind("error", 0) != 0,
          "thread " + std::to_string(i) + " (" + jobs[i].second.chip + ", page " +
              std::to_string(jobs[i].first.page_size) + ") equals the serial compile");
  bool distinct = serial[0] != serial[2] && serial[1] != serial[3];
  check(distinct, "the requests differ (page 16 and 1024 give different kernels)");

  // 4. Compile time, median over REPEAT in-process compiles per target.
  if (repeat > 0)
    for (const char *chip : {"gfx942", "gfx950", "sm_90"}) {
      std::vector<double> ms;
      for (int i = 0; i < repeat; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        fmha::api::Result res = fmha::api::compile(forChip(defaultRequest(), chip), target(chip));
        auto t1 = std::chrono::steady_clock::now();
        if (!res)
          return 1;
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      }
      std::sort(ms.begin(), ms.end());
      std::printf("compile-time %s: median %.0f ms over %d compiles (min %.0f, max %.0f)\n",
                  chip, ms[ms.size() / 2], repeat, ms.front(), ms.back());
    }
  std::printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
