//===- fmha-run.cpp - run a request and check it against the oracle --------===//
//
// Builds a request from flags, makes its inputs with the reference library,
// compiles it through fmha-to-host-pipeline, runs it in the JIT, and compares
// the output with the double-precision oracle (SPEC section 6) and with the
// emulating reference of the same tile sizes.
// Exit: 0 pass, 1 SPEC section 6 not met, 2 invalid request, 3 tool error.
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"
#include "fmha/Pipelines/Pipelines.h"
#include "fmha/Reference/Compare.h"
#include "fmha/Reference/Emulate.h"
#include "fmha/Reference/FloatCodec.h"
#include "fmha/Reference/Mutate.h"
#include "fmha/Compile/Compile.h"
#include "fmha/Emulator/CpuKernel.h"
#include "fmha/Emulator/LaneRuntime.h"
#include "fmha/Reference/Oracle.h"
#include "fmha/Reference/PageTable.h"
#include "fmha/Reference/Problem.h"
#include "fmha/Request/RequestModule.h"
#include "fmha/Support/Chips.h"
#include "../common/AtomicOutput.h"
#include "../common/KernelFlags.h"
#include "../common/RequestFlags.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstring>

using namespace mlir;
namespace cl = llvm::cl;
namespace ref = ::fmha::ref;
using namespace fmha_tools;

static cl::opt<std::string> optTarget(
    "target",
    cl::desc("where to run: host (the tiled form on the CPU) | gfx942 | gfx950 | sm_90 | sm_90a "
             "(that chip's lane-level kernel on the CPU, one lane at a time: the lane emulator)"),
    cl::init("host"), cl::cat(kToolCategory));
static cl::opt<bool> optJson("json", cl::desc("print one JSON object"), cl::init(false), cl::cat(kToolCategory));
static cl::opt<int64_t> optBlockM("block-m", cl::desc("override the config's BlockM (0: keep)"), cl::init(0), cl::cat(kToolCategory));
static cl::opt<int64_t> optShift("shift", cl::desc("override the config's exp2 SHIFT (-1: keep; 0: P cast unshifted)"), cl::init(-1), cl::cat(kToolCategory));
static cl::opt<bool> optLdsLoadsAtIssue("lds-loads-land-at-issue", cl::desc("test hook (lane targets): a load into LDS lands when issued, not at its wave's wait for it (finds a load started before the barrier that follows another wave's reads of its bytes)"), cl::init(false), cl::Hidden, cl::cat(kToolCategory));
static cl::opt<bool> optWavesInTurn("waves-in-turn", cl::desc("test hook (lane targets): one wave at a time, each running to its next barrier before the next moves (finds LDS written while another wave still reads it)"), cl::init(false), cl::Hidden, cl::cat(kToolCategory));
static cl::opt<int64_t> optLdsBanks("lds-banks", cl::desc("lane targets: count the kernel's LDS accesses under a bank model of this many 4-byte banks (32: CDNA's LDS; 0: off), reported as lds_read / lds_write cycles against the fewest the bytes need (a model, not a timing; docs/LANE_EMULATOR.md)"), cl::init(0), cl::cat(kToolCategory));
static cl::opt<bool> optReverseLanes("reverse-lanes", cl::desc("test hook (lane targets): run the lanes from the last thread to the first (with warp roles: the consumers ahead of the producer)"), cl::init(false), cl::Hidden, cl::cat(kToolCategory));
static cl::list<int64_t> optGridPad("grid-pad", cl::desc("test hook (lane targets): X,Y,Z extra workgroups in each grid dimension, as a launch captured for a larger batch runs"), cl::CommaSeparated, cl::Hidden, cl::cat(kToolCategory));
static cl::opt<bool> optBadPageId("corrupt-page-table", cl::desc("test hook: put a page id outside the pool into the table"), cl::init(false), cl::Hidden, cl::cat(kToolCategory));
static cl::opt<std::string> optMutateDescales(
    "mutate-descales",
    cl::desc("test hook: hand the kernel the descales a kernel with this bug would read "
             "(swap-kv | logical-page | wrong-head | per-tile | global); the references "
             "keep the true ones"),
    cl::init("none"), cl::Hidden, cl::cat(kToolCategory));
static cl::opt<unsigned> optOptLevel("jit-opt-level", cl::desc("LLVM optimization level of the host JIT (0-3)"), cl::init(2), cl::cat(kToolCategory));
static cl::list<std::string> optRuns(
    "run",
    cl::desc("one more run through the same compiled kernel: 'QO;KV[;seed=N][;data=uniform|spread]"
             "[;sm_scale=S][;window=L,R][;soft_cap=C]' (the last three with --runtime-scalars) "
             "(comma lists as for --qo-len/--kv-len; seed and data default to the flags'); repeatable. "
             "The flags' own lengths run first; with --json one line per run; exit 0 when all pass"),
    cl::cat(kToolCategory));
static cl::opt<std::string> optDump("dump", cl::desc("write every tensor and a JSON index to DIR"), cl::init(""), cl::cat(kToolCategory));

namespace {

int fail(int code, const llvm::Twine &msg) {
  llvm::errs() << "fmha-run: " << msg << "\n";
  return code;
}

struct Tensor {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  const void *data;
  size_t bytes;
};

std::string shapeStr(const std::vector<int64_t> &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

/// Writes each tensor as raw little-endian bytes and an index.json, all or
/// none (AtomicOutput.h): "" or the error.
std::string dumpTensors(const std::string &dir, const std::vector<Tensor> &ts,
                        const ref::Request &req, const std::string &verdict) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return "cannot create " + dir + ": " + ec.message();
  OutputSet set;
  std::string idx = "{\n  \"request\": \"" + req.str() +
                    "\",\n  \"result\": " + verdict + ",\n  \"tensors\": [\n";
  for (size_t i = 0; i < ts.size(); ++i) {
    const Tensor &t = ts[i];
    if (std::string err = set.add(dir + "/" + t.name + ".bin", t.data, t.bytes);
        !err.empty())
      return err;
    std::vector<int64_t> strides(t.shape.size(), 1);
    for (size_t k = t.shape.size(); k-- > 1;)
      strides[k - 1] = strides[k] * t.shape[k];
    idx += "    {\"name\": \"" + t.name + "\", \"file\": \"" + t.name +
           ".bin\", \"dtype\": \"" + t.dtype + "\", \"shape\": " +
           shapeStr(t.shape) + ", \"strides\": " + shapeStr(strides) + "}" +
           (i + 1 < ts.size() ? "," : "") + "\n";
  }
  idx += "  ]\n}\n";
  if (std::string err = set.add(dir + "/index.json", idx); !err.empty())
    return err;
  return set.commit();
}

/// The kv descale buffer handed to the kernel, whatever the target runs it:
/// the inputs' own, or with --mutate-descales the buffer that makes a correct
/// kernel compute what one with that descale bug computes (the references
/// keep in.kv_descale). It has in.kv_descale's layout (in.k_descale,
/// in.v_descale). blockN: the config's KV tile width (per-tile). Prints what
/// it changed; std::nullopt (after printing why) when it cannot.
std::optional<std::vector<float>> kernelDescales(const ref::Inputs &in,
                                                 int64_t blockN) {
  auto kind = ref::parseDescaleMutation(optMutateDescales);
  if (!kind || *kind == ref::DescaleMutation::None)
    return in.kv_descale;
  std::vector<float> d;
  std::string note;
  if (std::string err = ref::mutatedDescales(in, *kind, blockN, d, &note);
      !err.empty()) {
    llvm::errs() << "fmha-run: --mutate-descales: " << err << "\n";
    return std::nullopt;
  }
  llvm::errs() << "fmha-run: note: --mutate-descales=" << note << "\n";
  return d;
}

/// "" after reading a --run spec 'QO;KV[;seed=N][;data=D][;sm_scale=S]
/// [;window=L,R][;soft_cap=C]' into `r` (the flags' request: only lengths,
/// seed and data change, and with run-time scalars sm_scale, the window
/// bounds and a soft cap's value), else the problem.
std::string readRunSpec(const std::string &spec, ref::Request &r) {
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(spec).split(parts, ';');
  if (parts.size() < 2)
    return "needs the query and the KV lengths, 'QO;KV'";
  std::vector<int64_t> qo, kv;
  if (!parseList(parts[0].str(), qo) || !parseList(parts[1].str(), kv))
    return "lengths must be integers or comma lists";
  if (qo.size() == 1 && kv.size() > 1)
    qo.assign(kv.size(), qo[0]);
  if (kv.size() == 1 && qo.size() > 1)
    kv.assign(qo.size(), kv[0]);
  if (qo.size() != kv.size())
    return "the query and KV length lists must have the same length";
  r.qo_lens = qo;
  r.kv_lens = kv;
  r.n_pages = 0;
  for (size_t i = 2; i < parts.size(); ++i) {
    auto [key, value] = parts[i].split('=');
    if (key == "seed") {
      if (value.getAsInteger(10, r.seed))
        return "seed must be a non-negative integer, not '" + value.str() + "'";
    } else if (key == "data") {
      std::optional<ref::DataMode> d = ref::parseDataMode(value);
      if (!d)
        return "data must be uniform or spread, not '" + value.str() + "'";
      r.data = *d;
    } else if (key == "sm_scale" || key == "window" || key == "soft_cap") {
      // Compiled in unless the kernel reads them at run time.
      if (!r.runtime_scalars)
        return key.str() + " is compiled into this kernel: --runtime-scalars lets a run "
                           "change it";
      if (key == "sm_scale") {
        if (value.getAsDouble(r.sm_scale) || !(r.sm_scale > 0))
          return "sm_scale must be a number > 0, not '" + value.str() + "'";
      } else if (key == "soft_cap") {
        // Whether there is a cap is compiled in; its value is not.
        double c = 0;
        if (value.getAsDouble(c) || !(c > 0) || !(r.soft_cap > 0))
          return "soft_cap=C needs a kernel with a soft cap (--soft-cap) and a "
                 "number > 0, not '" + value.str() + "'";
        r.soft_cap = c;
      } else {
        std::optional<ref::Mask> m = ref::parseMask(("window:" + value).str());
        if (!m || r.mask.kind != ref::MaskKind::Window)
          return "window=L,R needs a window mask and two bounds, not '" + value.str() + "'";
        r.mask = *m;
      }
    } else {
      return "unknown field '" + parts[i].str() +
             "' (seed=N, data=D, and with --runtime-scalars sm_scale=S, window=L,R, soft_cap=C)";
    }
  }
  return "";
}

/// One run of `kernel` on inputs generated for `req`: the oracle and
/// emulation checks, the result line (or JSON) and --dump. 0 pass, 1 fail,
/// 2 / 3 as the tool's exit codes.
int runOnce(ref::Request &req, mlir::fmha::CpuKernel &k, double compileS,
            ref::DescaleMutation mutationKind) {
  auto *kernel = &k;
  auto *mutation = &mutationKind;
  bool lanes = optTarget != "host";
  std::string err;
  const ref::EmulateOptions &emu = kernel->emulation();
  // Inputs, and the run-time checker (SPEC section 7): no launch with a page
  // id outside [0, N_pages) or a malformed table.
  ref::Inputs in = ref::makeInputs(req);
  if (optBadPageId) {
    // Test hook: one page id outside the pool, as a corrupt table would have.
    auto &ids = req.table == ref::TableForm::CSR ? in.table.kv_page_indices
                                                 : in.table.block_table;
    if (!ids.empty())
      ids.front() = static_cast<int32_t>(in.nPages());
  }
  if (std::string e = ref::validatePageTable(in.table, req.table); !e.empty())
    return fail(2, "invalid page table: " + e);
  const ref::PageTable &pt = in.table;
  int64_t totalQ = req.totalQ(), hq = req.num_qo_heads, hkv = req.num_kv_heads,
          d = req.head_dim, dv = req.headDimV(), p = req.page_size,
          n = in.nPages(), b = req.batch();
  bool nhd = req.layout == ref::KVLayout::NHD;
  auto cacheShape = [&](int64_t dim) {
    return nhd ? std::vector<int64_t>{n, p, hkv, dim}
               : std::vector<int64_t>{n, hkv, p, dim};
  };
  std::optional<std::vector<float>> kernelKv = kernelDescales(in, emu.block_n);
  if (!kernelKv)
    return 3;
  const std::vector<float> &descales = *kernelKv;
  std::vector<uint8_t> out;
  std::vector<float> lse;
  if (failed(kernel->run(in, descales, out, lse, err)))
    return fail(3, err);
  const std::vector<int32_t> &qoIndptr = in.qo_indptr;
  float qd = in.q_descale;
  ::fmha::lane::LaneRuntimeStats laneStats = kernel->laneStats();
  double runS = kernel->runSeconds();

  const float *lsePtr = req.return_lse ? lse.data() : nullptr;
  // A kernel that quantizes a 16-bit Q per tile is judged on the Q it
  // multiplies; the error that adds against the exact Q is reported.
  ref::CompareResult vsExactQ;
  ref::CompareResult vsOracle = ref::judgeAgainstOracle(
      in, out.data(), lsePtr, emu.q_per_tile ? emu.block_m : 0, &vsExactQ);
  std::string qAdded =
      emu.q_per_tile ? " | q per tile vs exact-q oracle (reported): " + vsExactQ.errors()
                     : std::string();
  ref::EmulateResult emulated = ref::runEmulation(in, emu);
  ref::CompareResult vsEmu = ref::compareWithEmulation(in, out.data(), lsePtr, emulated);
  bool pass = vsOracle.pass && vsEmu.pass;

  std::string mutated = *mutation == ref::DescaleMutation::None
                            ? ""
                            : std::string(", \"mutate_descales\": \"") +
                                  ref::descaleMutationName(*mutation) + "\"";
  std::string json = "{\"request\": \"" + req.str() + "\", \"target\": \"" + optTarget + "\"" + mutated +
                     ", \"pass\": " + (pass ? "true" : "false") +
                     ", \"max_abs_err\": " + std::to_string(vsOracle.max_abs_err) +
                     ", \"rel_fro_err\": " + std::to_string(vsOracle.rel_fro_err) +
                     ", \"nonfinite\": " + std::to_string(vsOracle.nonfinite) +
                     ", \"unwritten\": " + std::to_string(vsOracle.poisoned) +
                     ", \"compile_s\": " + std::to_string(compileS) +
                     ", \"run_s\": " + std::to_string(runS) +
                     (lanes ? ", \"lanes\": {\"workgroups\": " + std::to_string(laneStats.workgroups) +
                                  ", \"lanes\": " + std::to_string(laneStats.lanes) +
                                  ", \"mma\": " + std::to_string(laneStats.mmas) +
                                  ", \"barriers\": " + std::to_string(laneStats.barriers) +
                                  ", \"tma_loads\": " + std::to_string(laneStats.tmaLoads) +
                                  (optLdsBanks
                                       ? ", \"lds_banks\": " + std::to_string(optLdsBanks) +
                                             ", \"lds_reads\": " + std::to_string(laneStats.ldsReads) +
                                             ", \"lds_read_cycles\": " + std::to_string(laneStats.ldsReadCycles) +
                                             ", \"lds_read_ideal\": " + std::to_string(laneStats.ldsReadIdeal) +
                                             ", \"lds_writes\": " + std::to_string(laneStats.ldsWrites) +
                                             ", \"lds_write_cycles\": " + std::to_string(laneStats.ldsWriteCycles) +
                                             ", \"lds_write_ideal\": " + std::to_string(laneStats.ldsWriteIdeal)
                                       : std::string()) +
                                  ", \"vd_route\": \"" + kernel->vdRoute() + "\"}"
                            : std::string()) +
                     ", \"oracle\": " + vsOracle.toJson() +
                     (emu.q_per_tile ? ", \"exact_q_oracle\": " + vsExactQ.toJson()
                                     : std::string()) +
                     ", \"emulation\": " + vsEmu.toJson() + "}";
  if (optJson)
    llvm::outs() << json << "\n";
  else
    llvm::outs() << (pass ? "PASS" : "FAIL") << " " << (lanes ? "[" + optTarget + " lanes] " : "")
                 << req.str() << " | "
                 << vsOracle.summary() << " | " << vsEmu.summary() << qAdded << "\n";
  if (optLdsBanks && !optJson)
    llvm::outs() << "LDS bank model (" << optLdsBanks << " banks, a model): reads "
                 << laneStats.ldsReadCycles << " cycles for " << laneStats.ldsReadIdeal
                 << " the bytes need (" << laneStats.ldsReads << " wave accesses), writes "
                 << laneStats.ldsWriteCycles << " for " << laneStats.ldsWriteIdeal << " ("
                 << laneStats.ldsWrites << ")\n";

  if (!optDump.empty()) {
    auto nm = [](ref::DType t) { return std::string(ref::dtypeName(t)); };
    auto i32 = [](const char *name, const std::vector<int32_t> &v,
                  std::vector<int64_t> shape) {
      return Tensor{name, "i32", std::move(shape), v.data(), v.size() * 4};
    };
    std::vector<Tensor> ts = {
        {"q", nm(req.q_dtype), {totalQ, hq, d}, in.q.data(), in.q.size()},
        {"k_cache", nm(req.kv_dtype), cacheShape(d), in.k_cache.data(), in.k_cache.size()},
        {"v_cache", nm(req.kv_dtype), cacheShape(dv), in.v_cache.data(), in.v_cache.size()},
        i32("qo_indptr", qoIndptr, {b + 1}),
        i32("kv_indptr", pt.kv_indptr, {(int64_t)pt.kv_indptr.size()}),
        i32("kv_page_indices", pt.kv_page_indices, {(int64_t)pt.kv_page_indices.size()}),
        i32("kv_last_page_len", pt.kv_last_page_len, {b}),
        i32("block_table", pt.block_table, {b, pt.max_pages}),
        i32("kv_seqlen", pt.kv_seqlen, {b}),
        {"q_descale", "f32", {1}, &qd, 4},
        // kv_blockscale: aiter's [N_pages, Hkv, 2] (K at 0, V at 1); else {kd, vd}.
        {"kv_descale", "f32",
         req.quant == ref::QuantMode::KVBlockscale ? std::vector<int64_t>{n, hkv, 2}
                                                   : std::vector<int64_t>{2},
         descales.data(), descales.size() * 4},
        {"out", nm(req.out_dtype), {totalQ, hq, dv}, out.data(), out.size()}};
    if (req.return_lse)
      ts.push_back({"lse", "f32", {totalQ, hq}, lse.data(), lse.size() * 4});
    if (std::string err = dumpTensors(optDump, ts, req, vsOracle.toJson());
        !err.empty())
      return fail(3, "--dump: " + err + " (nothing written)");
  }
  return pass ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  fmha_tools::setUpToolErrors("fmha-run");
  // Usage errors exit 2: fmha-run's 1 means "numerics failed".
  if (!parseToolCommandLine(argc, argv, "fmha-run: run a request and check it\n"))
    return 2;
  bool lanes = optTarget != "host";
  if (!mlir::fmha::lookupChip(optTarget))
    return fail(2, "--target must be " + mlir::fmha::expectedChipsText() +
                       ", not '" + optTarget + "'");
  // "fp8": the chip's e4m3 flavour (FNUZ on gfx942; the host takes OCP).
  optQType = chipDType(optQType, lanes && mlir::fmha::chipUsesFnuz(optTarget));
  optKvType = chipDType(optKvType, lanes && mlir::fmha::chipUsesFnuz(optTarget));
  // A chip's default fp8 flavour, as fmha-compile picks it (FNUZ on gfx942).
  if (lanes && !optQType.getNumOccurrences())
    optQType = mlir::fmha::chipUsesFnuz(optTarget) ? "f8E4M3FNUZ" : "f8E4M3FN";
  if (lanes && !optKvType.getNumOccurrences())
    optKvType = mlir::fmha::chipUsesFnuz(optTarget) ? "f8E4M3FNUZ" : "f8E4M3FN";

  ref::Request req;
  if (std::string err = readRequest(req); !err.empty())
    return fail(2, err);
  if (std::string err = req.validate(); !err.empty())
    return fail(2, "invalid request: " + err);
  // The inputs, the references and the output fit the host (exit 3: this
  // machine's limit, not an invalid request), before anything is allocated.
  if (std::string err = ref::checkHostMemory(req, ref::availableHostBytes());
      !err.empty())
    return fail(3, err);
  std::optional<ref::DescaleMutation> mutation =
      ref::parseDescaleMutation(optMutateDescales);
  if (!mutation)
    return fail(2, "--mutate-descales must be none, swap-kv, logical-page, "
                   "wrong-head, per-tile or global, got '" + optMutateDescales + "'");

  if (!optGridPad.empty()) {
    if (optGridPad.size() != 3 ||
        llvm::any_of(optGridPad, [](int64_t v) { return v < 0 || v > 64; }))
      return fail(2, "--grid-pad takes X,Y,Z, each in [0, 64]");
    if (!lanes)
      return fail(2, "--grid-pad needs a lane target (--target CHIP)");
    ::fmha::lane::setLaneGridPadding(optGridPad[0], optGridPad[1], optGridPad[2]);
  }
  if (optLdsBanks) {
    if (!lanes || optLdsBanks < 1 || optLdsBanks > 128 ||
        !mlir::fmha::lookupChip(optTarget) ||
        mlir::fmha::lookupChip(optTarget)->vendor != mlir::fmha::ChipVendor::AMDGPU)
      return fail(2, "--lds-banks takes 1 to 128 banks and an AMDGPU lane target "
                     "(--target gfx942 | gfx950: NVIDIA's cp.async and wgmma reads "
                     "are not counted)");
    ::fmha::lane::setLdsBankModel(optLdsBanks);
  }
  if (optWavesInTurn) {
    if (!lanes)
      return fail(2, "--waves-in-turn needs a lane target (--target CHIP)");
    ::fmha::lane::setLaneWavesInTurn(true);
  }
  if (optLdsLoadsAtIssue) {
    if (!lanes)
      return fail(2, "--lds-loads-land-at-issue needs a lane target (--target CHIP)");
    ::fmha::lane::setLdsLoadsLandAtIssue(true);
  }
  if (optReverseLanes) {
    if (!lanes)
      return fail(2, "--reverse-lanes needs a lane target (--target CHIP)");
    ::fmha::lane::setLaneScheduleReversed(true);
  }
  mlir::fmha::CpuKernelOptions kopt;
  kopt.target = optTarget;
  applyKernelFlags(kopt);
  kopt.optLevel = optOptLevel;
  kopt.blockM = optBlockM;
  kopt.shift = optShift;
  std::string err;
  int code = 0;
  std::unique_ptr<mlir::fmha::CpuKernel> kernel =
      mlir::fmha::CpuKernel::compile(req, kopt, err, code);
  if (!kernel)
    return fail(code, err);
  double compileS = kernel->compileSeconds();

  // The flags' lengths, then every --run, through the one compiled kernel.
  std::vector<ref::Request> runs = {req};
  for (const std::string &spec : optRuns) {
    ref::Request r = req;
    if (std::string err = readRunSpec(spec, r); !err.empty())
      return fail(2, "--run '" + spec + "': " + err);
    if (std::string err = r.validate(); !err.empty())
      return fail(2, "--run '" + spec + "': invalid request: " + err);
    if (std::string err = ref::checkHostMemory(r, ref::availableHostBytes()); !err.empty())
      return fail(3, "--run '" + spec + "': " + err);
    runs.push_back(std::move(r));
  }
  if (!optDump.empty() && runs.size() > 1)
    return fail(2, "--dump takes one run, not " + std::to_string(runs.size()));
  bool allPass = true;
  for (ref::Request &r : runs) {
    int rc = runOnce(r, *kernel, compileS, *mutation);
    if (rc != 0 && rc != 1)
      return rc;
    allPass &= rc == 0;
  }
  if (std::string err = stdoutError(); !err.empty())
    return fail(3, err);
  return allPass ? 0 : 1;
}
