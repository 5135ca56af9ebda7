//===- CpuKernel.cpp - a request compiled and run on the CPU ---------------===//
//
// The host target: fmha-to-host-pipeline. A chip: the GPU front half for it
// (buildFmhaToLaneKernelPipeline, what fmha-compile runs), then
// fmha-lanes-to-host and the host lowering (buildLanesToLLVMPipeline), with
// the lane runtime's entry points in the JIT's symbol table. Both expose the
// same host function (the request's operands as memref descriptors), so one
// binding of the inputs serves both.
//
//===----------------------------------------------------------------------===//
#include "fmha/Emulator/CpuKernel.h"

#include "fmha/Conversion/FmhaToGPU/FmhaToGPU.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"
#include "fmha/Pipelines/Pipelines.h"
#include "fmha/Reference/Compare.h" // poisonFill
#include "fmha/Reference/FloatCodec.h"
#include "fmha/Request/RequestModule.h"
#include "fmha/Support/Chips.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>
#include <cstring>
#include <cmath>

using namespace mlir;
using namespace mlir::fmha;
namespace ref = ::fmha::ref;

namespace {

/// A memref descriptor of any rank (the layout of StridedMemRefType).
struct Descriptor {
  void *allocated = nullptr, *aligned = nullptr;
  int64_t offset = 0;
  int64_t sizesAndStrides[8] = {};
};

Descriptor describe(const void *data, int64_t offset, std::vector<int64_t> sizes,
                    std::vector<int64_t> strides = {}) {
  Descriptor d;
  d.allocated = d.aligned = const_cast<void *>(data);
  d.offset = offset;
  size_t r = sizes.size();
  if (strides.empty()) {
    strides.assign(r, 1);
    for (size_t i = r; i-- > 1;)
      strides[i - 1] = strides[i] * sizes[i];
  }
  for (size_t i = 0; i < r; ++i) {
    d.sizesAndStrides[i] = sizes[i];
    d.sizesAndStrides[r + i] = strides[i];
  }
  return d;
}

/// compiler-rt's bf16 conversions (round to nearest even, NaN kept quiet),
/// for JIT code on CPUs without native bf16 instructions. Without libFuzzer's
/// coverage instrumentation, whose tracing of a __bf16 value itself calls
/// __truncsfbf2, which Debian 12's libgcc lacks (the fuzz build did not link).
#if defined(__clang__)
#define FMHA_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define FMHA_NO_COVERAGE
#endif
FMHA_NO_COVERAGE __bf16 truncSfBf2(float x) {
  uint16_t bits = ref::floatToBf16(x);
  return __builtin_bit_cast(__bf16, bits);
}
FMHA_NO_COVERAGE float extendBfSf2(__bf16 x) { return ref::bf16ToFloat(__builtin_bit_cast(uint16_t, x)); }

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

struct CpuKernel::Impl {
  ref::Request req;
  CpuKernelOptions opt;
  bool lanes = false;
  std::unique_ptr<MLIRContext> ctx;
  std::unique_ptr<ExecutionEngine> engine;
  ref::EmulateOptions emu;
  std::string vdRoute;
  double compileS = 0, runS = 0;
  ::fmha::lane::LaneRuntimeStats stats;
};

CpuKernel::CpuKernel(std::unique_ptr<Impl> i) : impl(std::move(i)) {}
CpuKernel::~CpuKernel() = default;
const ref::EmulateOptions &CpuKernel::emulation() const { return impl->emu; }
bool CpuKernel::isLaneEmulation() const { return impl->lanes; }
const std::string &CpuKernel::vdRoute() const { return impl->vdRoute; }
namespace {
/// LLVM's instruction scheduler for the JIT's code generation, while it
/// lives: "fast" instead of the target's list scheduler. A kernel's KV-loop
/// body lowered to host vectors is one basic block of many thousand DAG
/// nodes, and the list scheduler is superlinear in that: on a znver3 host
/// with LLVM 22.1.8, 20-30 s per head-dim-64 kernel of the host matrix and
/// about 190 s for the default D 128 kernel, against about 2-5 s with this
/// one (bench/NOTES.md). The code it schedules is tests' code, where compile
/// time dominates. The option is process-wide: it is set back to the
/// target's default when the JIT has compiled, before anything else (a GPU
/// code object) is generated. Two compiles on two threads at once may see
/// each other's setting: that changes how fast one compiles, not what.
class FastJitScheduler {
public:
  FastJitScheduler() {
    auto &opts = llvm::cl::getRegisteredOptions();
    auto it = opts.find("pre-RA-sched");
    // Left alone when a command line chose a scheduler.
    if (it != opts.end() && it->second->getNumOccurrences() == 0) {
      opt = it->second;
      (void)opt->addOccurrence(0, "pre-RA-sched", "fast");
    }
  }
  ~FastJitScheduler() {
    if (!opt)
      return;
    opt->reset(); // the initial value (the target's default), no occurrence
  }

private:
  llvm::cl::Option *opt = nullptr;
};
} // namespace

double CpuKernel::compileSeconds() const { return impl->compileS; }
double CpuKernel::runSeconds() const { return impl->runS; }
const ::fmha::lane::LaneRuntimeStats &CpuKernel::laneStats() const { return impl->stats; }

std::unique_ptr<CpuKernel> CpuKernel::compile(const ref::Request &req,
                                              const CpuKernelOptions &opt,
                                              std::string &error, int &code) {
  auto t0 = std::chrono::steady_clock::now();
  auto impl = std::make_unique<Impl>();
  impl->req = req;
  impl->opt = opt;
  impl->lanes = opt.target != "host";
  const std::string &t = opt.target;
  code = 2;
  if (std::string e = loweringCountsError(opt.kvStages, opt.kvUnroll, opt.warps,
                                              opt.blockN); !e.empty()) {
    error = e;
    return nullptr;
  }
  if (!lookupChip(t)) {
    error = "target must be " + expectedChipsText() + ", not '" + t + "'";
    return nullptr;
  }
  if (std::string err = req.validate(); !err.empty()) {
    error = "invalid request: " + err;
    return nullptr;
  }
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registry.insert<FmhaDialect>();
  impl->ctx = std::make_unique<MLIRContext>(registry);
  MLIRContext &ctx = *impl->ctx;
  ctx.disableMultithreading();
  std::string diag;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    diag += d.str();
    return success();
  });
  OwningOpRef<ModuleOp> module = buildRequestModule(ctx, req);
  if (!module) {
    error = "invalid request: " + diag;
    return nullptr;
  }

  // The config, decided by fmha-select-config, then the overrides.
  PassManager cfgPm(&ctx);
  FmhaSelectConfigOptions s;
  s.chip = impl->lanes ? t : "host";
  s.vdRoute = opt.vdRoute;
  if (!impl->lanes && opt.warps != 0) {
    error = "invalid request: --warps states an AMDGPU lane kernel's waves; "
            "the host target takes none";
    return nullptr;
  }
  s.warps = opt.warps;
  s.blockN = opt.blockN;
  cfgPm.addPass(createFmhaSelectConfig(s));
  if (failed(cfgPm.run(*module))) {
    error = "invalid request: " + diag;
    return nullptr;
  }
  bool bad = false;
  ref::EmulateOptions &emu = impl->emu;
  module->walk([&](BatchPrefillOp op) {
    ConfigAttr c = op.getConfigAttr();
    // (a stated block_n is fmha-select-config's block-n, above)
    if (opt.blockM || opt.shift >= 0) {
      // New tile sizes: the decisions are taken again for them (a stated
      // vd-route stays).
      // (the option parsed: select-config above refused a bad name)
      bool stated = parseVdRouteOption(opt.vdRoute).value_or(VdRoute::Unset) !=
                    VdRoute::Unset;
      c = ConfigAttr::get(&ctx, c.getChip(), opt.blockM ? opt.blockM : c.getBlockM(),
                          c.getBlockN(), c.getKStep(),
                          c.getWarps(), c.getWaveSize(), c.getMmaM(), c.getMmaN(),
                          c.getPType(), opt.shift >= 0 ? opt.shift : c.getShift(),
                          PageRegime::Unset, stated ? c.getVdRoute() : VdRoute::Unset,
                          0, c.getQScale());
      if (failed(verifyConfig(op, c))) {
        bad = true;
        return;
      }
      c = completeConfig(op, c);
      op.setConfigAttr(c);
    }
    // The V-descale route the config decided (the kernel follows it).
    emu.vd_scaled_p = c.getVdRoute() == VdRoute::ScaledP;
    emu.vd_exp2_bias = c.getVdRoute() == VdRoute::Exp2Bias;
    emu.q_per_tile = c.getQScale() == QScale::PerTile;
    // sm_90a's fp8 wgmma sums as that MMA does (the lane emulator's wgmma).
    emu.wgmma_fp8_promote = impl->lanes ? wgmmaFp8Promote(req, c) : 0;
    emu.wgmma_fp8_promote_pv = impl->lanes ? wgmmaFp8Promote(req, c, /*pv=*/true) : 0;
    emu.vd_page_groups = c.getVdRoute() == VdRoute::PageGroups;
    impl->vdRoute = stringifyVdRoute(c.getVdRoute()).str();
    emu.block_m = c.getBlockM();
    emu.block_n = c.getBlockN();
    emu.shift = c.getShift();
    Type p = c.getPType();
    emu.p_dtype = isa<Float8E4M3FNType>(p)     ? ref::DType::F8E4M3FN
                  : isa<Float8E4M3FNUZType>(p) ? ref::DType::F8E4M3FNUZ
                  : p.isBF16()                 ? ref::DType::BF16
                                               : ref::DType::F16;
  });
  if (bad) {
    error = "invalid config override: " + diag;
    return nullptr;
  }

  PassManager pm(&ctx);
  if (!impl->lanes) {
    HostPipelineOptions hopts;
    hopts.folds = opt.folds;
    buildFmhaToHostPipeline(pm, hopts);
  } else {
    // The chip's kernel, as fmha-compile builds it.
    PassManager front(&ctx);
    // (its vd-route: the config already states it)
    buildFmhaToLaneKernelPipeline(front, t, laneKernelOptionsOf(opt));
    if (failed(front.run(*module))) {
      error = "not supported on " + t + ": " + diag;
      return nullptr;
    }
    buildLanesToLLVMPipeline(pm);
  }
  code = 3;
  if (failed(pm.run(*module))) {
    error = std::string(impl->lanes ? "lane emulator" : "host") + " pipeline failed: " + diag;
    return nullptr;
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions eo;
  auto optimize = makeOptimizingTransformer(opt.optLevel, 0, nullptr);
  eo.transformer = optimize; // a function_ref: `optimize` outlives create()
  eo.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(std::min(opt.optLevel, 3u));
  // No perf jitdump (MLIR's default writes /tmp/.debug/jit/*/jit-PID.dump,
  // 50 KB per run, never removed; a failed write there was a fatal error)
  // and no GDB registration.
  eo.enablePerfNotificationListener = false;
  eo.enableGDBNotificationListener = false;
  FastJitScheduler scheduler; // until the lookup below has compiled
  auto engine = ExecutionEngine::create(*module, eo);
  if (!engine) {
    error = "JIT: " + llvm::toString(engine.takeError());
    return nullptr;
  }
  bool lanes = impl->lanes;
  // On CPUs without native bf16 conversions the x86 back end legalizes bf16
  // vector moves through compiler-rt's helpers; the JIT process has none.
  (*engine)->registerSymbols([lanes](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto add = [&](const char *name, void *addr) {
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(addr),
                             llvm::JITSymbolFlags::Exported};
    };
    add("__truncsfbf2", reinterpret_cast<void *>(&truncSfBf2));
    add("__extendbfsf2", reinterpret_cast<void *>(&extendBfSf2));
    if (lanes)
      for (auto [name, addr] : ::fmha::lane::laneRuntimeSymbols())
        add(name, addr);
    return map;
  });
  // The JIT compiles a function when it is first looked up: do it here, so
  // compileSeconds() holds all of the compile and the first run none of it.
  if (auto fn = (*engine)->lookupPacked(std::string("_mlir_ciface_") + kKernelName); !fn) {
    error = "JIT: " + llvm::toString(fn.takeError());
    return nullptr;
  }
  impl->engine = std::move(*engine);
  impl->compileS = since(t0);
  code = 0;
  return std::unique_ptr<CpuKernel>(new CpuKernel(std::move(impl)));
}

const ref::Request &CpuKernel::request() const { return impl->req; }

namespace {

int64_t elements(const std::vector<int64_t> &sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

std::string shapeText(const std::vector<int64_t> &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

/// The int32 contents of an index buffer (checked dense and of its shape).
std::vector<int32_t> int32s(const BufferView &v) {
  int64_t n = elements(v.sizes);
  const int32_t *p = static_cast<const int32_t *>(v.data);
  return n > 0 ? std::vector<int32_t>(p, p + n) : std::vector<int32_t>{};
}

} // namespace

LogicalResult CpuKernel::runOnBuffers(ArrayRef<BufferView> buffers,
                                      std::string &error) {
  const ref::Request &st = impl->req;
  std::vector<RequestOperand> operands = requestOperands(st);
  llvm::StringMap<const BufferView *> byName;
  for (const BufferView &v : buffers) {
    if (!llvm::any_of(operands, [&](const RequestOperand &a) { return a.name == v.name; })) {
      error = "buffer '" + v.name + "' is not an operand of this kernel";
      return failure();
    }
    if (!byName.try_emplace(v.name, &v).second) {
      error = "buffer '" + v.name + "' given twice";
      return failure();
    }
  }
  for (const RequestOperand &a : operands) {
    auto it = byName.find(a.name);
    if (it == byName.end()) {
      error = "missing buffer '" + a.name + "'";
      return failure();
    }
    const BufferView &v = *it->second;
    if (static_cast<int64_t>(v.sizes.size()) != a.rank) {
      error = "'" + a.name + "' must have rank " + std::to_string(a.rank) +
              ", has " + std::to_string(v.sizes.size());
      return failure();
    }
    if (llvm::any_of(v.sizes, [](int64_t s) { return s < 0 || s > ref::kMaxIndex; })) {
      error = "'" + a.name + "' has a size outside [0, 2^31 - 1]: " + shapeText(v.sizes);
      return failure();
    }
    if (!v.data && elements(v.sizes) > 0) {
      error = "'" + a.name + "' has no data";
      return failure();
    }
    bool strided = (a.name == "k_descale" || a.name == "v_descale") && a.rank == 2;
    if (st.kv_strided && (a.name == "k_cache" || a.name == "v_cache")) {
      // Any strides the rule allows (none given: dense).
      if (!v.strides.empty())
        if (std::string e = ref::Request::checkKVStrides(v.sizes, v.strides,
                                                         ref::dtypeSize(st.kv_dtype));
            !e.empty()) {
          error = "'" + a.name + "': " + e;
          return failure();
        }
      continue;
    }
    if (!v.strides.empty() && !strided) {
      if (v.strides.size() != v.sizes.size()) {
        error = "'" + a.name + "' needs one stride per dimension";
        return failure();
      }
      // Dense row-major (a size-1 dimension's stride does not matter).
      int64_t want = 1;
      for (size_t i = v.sizes.size(); i-- > 0;) {
        if (v.sizes[i] != 1 && v.strides[i] != want) {
          error = "'" + a.name + "' must be dense row-major (shape " +
                  shapeText(v.sizes) + ", strides " + shapeText(v.strides) + ")";
          return failure();
        }
        want *= v.sizes[i];
      }
    }
    if (strided && !v.strides.empty() && v.strides.size() != 2) {
      error = "'" + a.name + "' needs two strides (or none: dense)";
      return failure();
    }
  }
  auto sizes = [&](const char *name) -> const std::vector<int64_t> & {
    return byName.lookup(name)->sizes;
  };
  auto expect = [&](const char *name, std::vector<int64_t> want) {
    if (!byName.count(name) || sizes(name) == want)
      return true;
    error = std::string("'") + name + "' must have shape " + shapeText(want) +
            ", has " + shapeText(sizes(name));
    return false;
  };
  int64_t t = sizes("q")[0], hq = st.num_qo_heads, hkv = st.num_kv_heads,
          d = st.head_dim, dv = st.headDimV(), p = st.page_size,
          n = sizes("k_cache")[0], b = sizes("qo_indptr")[0] - 1;
  bool nhd = st.layout == ref::KVLayout::NHD;
  auto cache = [&](int64_t dim) {
    return nhd ? std::vector<int64_t>{n, p, hkv, dim} : std::vector<int64_t>{n, hkv, p, dim};
  };
  if (b < 0) {
    error = "'qo_indptr' needs batch + 1 entries, has none";
    return failure();
  }
  bool csr = st.table == ref::TableForm::CSR;
  int64_t maxPages = csr ? 0 : sizes("block_table")[1];
  if (!expect("q", {t, hq, d}) || !expect("k_cache", cache(d)) ||
      !expect("v_cache", cache(dv)) || !expect("out", {t, hq, dv}) ||
      !expect("lse", {t, hq}) || !expect("q_descale", {1}) ||
      !expect("runtime_scalars", {4}) ||
      (csr && (!expect("kv_indptr", {b + 1}) || !expect("kv_last_page_len", {b}))) ||
      (!csr && (!expect("block_table", {b, maxPages}) || !expect("kv_seqlen", {b}))))
    return failure();
  for (const char *name : {"k_descale", "v_descale"})
    if (byName.count(name) && sizes(name).size() == 2 &&
        !expect(name, {n, hkv}))
      return failure();
    else if (byName.count(name) && sizes(name).size() == 1 && !expect(name, {1}))
      return failure();

  // The lengths, from the buffers, and SPEC section 7's run-time checks.
  std::vector<int32_t> qoIndptr = int32s(*byName.lookup("qo_indptr"));
  ref::PageTable pt;
  pt.page_size = p;
  pt.n_pages = n;
  if (csr) {
    pt.kv_indptr = int32s(*byName.lookup("kv_indptr"));
    pt.kv_page_indices = int32s(*byName.lookup("kv_page_indices"));
    pt.kv_last_page_len = int32s(*byName.lookup("kv_last_page_len"));
    // seqLen and the checker read kv_seqlen's size as the batch.
    pt.kv_seqlen.assign(b, 0);
  } else {
    pt.max_pages = maxPages;
    pt.block_table = int32s(*byName.lookup("block_table"));
    pt.kv_seqlen = int32s(*byName.lookup("kv_seqlen"));
  }
  if (std::string e = ref::validatePageTable(pt, st.table); !e.empty()) {
    error = "invalid page table: " + e;
    return failure();
  }
  ref::Request req = st;
  req.qo_lens.clear();
  req.kv_lens.clear();
  if (qoIndptr[0] != 0) {
    error = "qo_indptr[0] must be 0, is " + std::to_string(qoIndptr[0]);
    return failure();
  }
  for (int64_t i = 0; i < b; ++i) {
    if (qoIndptr[i + 1] < qoIndptr[i]) {
      error = "qo_indptr must not decrease: qo_indptr[" + std::to_string(i + 1) +
              "] = " + std::to_string(qoIndptr[i + 1]) + " < qo_indptr[" +
              std::to_string(i) + "] = " + std::to_string(qoIndptr[i]);
      return failure();
    }
    req.qo_lens.push_back(qoIndptr[i + 1] - qoIndptr[i]);
    req.kv_lens.push_back(pt.seqLen(st.table, i));
  }
  if (qoIndptr[b] > t) {
    error = "qo_indptr[" + std::to_string(b) + "] = " + std::to_string(qoIndptr[b]) +
            " is past q's " + std::to_string(t) + " rows";
    return failure();
  }
  // Sequences may share pages (a common prefix), so the lengths can need
  // more pages than the pool holds; the pool's own bounds are the table's.
  req.n_pages = std::max<int64_t>(n, ref::pagesNeeded(req.kv_lens, p));
  // Run-time scalars: a finite sm_scale > 0 and window bounds >= -1 (the
  // lengths' rules below then see them as the request's).
  if (st.runtime_scalars) {
    const int32_t *rs = static_cast<const int32_t *>(byName.lookup("runtime_scalars")->data);
    float s;
    std::memcpy(&s, &rs[0], 4);
    if (!(s > 0.0f) || !std::isfinite(s)) {
      error = "runtime_scalars[0] (sm_scale) must be finite and > 0, got " +
              std::to_string(s);
      return failure();
    }
    req.sm_scale = s;
    if (req.mask.kind == ref::MaskKind::Window)
      req.mask = ref::Mask::window(rs[1], rs[2]);
    else if (rs[1] != -1 || rs[2] != -1) {
      error = "runtime_scalars[1..2] (window bounds) must be -1, -1 without a window mask";
      return failure();
    }
    // The cap: finite and > 0 for a kernel with a soft cap, 0 without one.
    float cap;
    std::memcpy(&cap, &rs[3], 4);
    if (req.soft_cap > 0) {
      if (!(cap > 0.0f) || !std::isfinite(cap)) {
        error = "runtime_scalars[3] (soft cap) must be finite and > 0 for a kernel "
                "with a soft cap, got " + std::to_string(cap);
        return failure();
      }
      req.soft_cap = cap;
    } else if (rs[3] != 0) {
      error = "runtime_scalars[3] (soft cap) must be 0 for a kernel without a soft cap";
      return failure();
    }
  }
  if (std::string e = req.validate(); !e.empty()) {
    error = "invalid request: " + e;
    return failure();
  }

  std::vector<Descriptor> descs;
  for (const RequestOperand &a : operands) {
    const BufferView &v = *byName.lookup(a.name);
    descs.push_back(describe(v.data, 0, v.sizes, v.strides));
  }
  std::vector<Descriptor *> ptrs;
  for (Descriptor &dsc : descs)
    ptrs.push_back(&dsc);
  std::vector<void *> args;
  for (Descriptor *&ptr : ptrs)
    args.push_back(&ptr);
  auto t1 = std::chrono::steady_clock::now();
  ::fmha::lane::takeLaneRuntimeError();
  ::fmha::lane::takeLaneRuntimeStats();
  std::string entry = std::string("_mlir_ciface_") + kKernelName;
  if (llvm::Error e = impl->engine->invokePacked(entry, args)) {
    error = "JIT invoke: " + llvm::toString(std::move(e));
    return failure();
  }
  impl->runS = since(t1);
  impl->stats = ::fmha::lane::takeLaneRuntimeStats();
  if (std::string err = ::fmha::lane::takeLaneRuntimeError(); !err.empty()) {
    error = "lane emulator: " + err;
    return failure();
  }
  return success();
}

LogicalResult CpuKernel::run(const ref::Inputs &in,
                             const std::vector<float> &kernelDescales,
                             std::vector<uint8_t> &out, std::vector<float> &lse,
                             std::string &error) {
  const ref::Request &req = in.req;
  if (req.kernelKey() != impl->req.kernelKey()) {
    error = "the inputs' request (" + req.kernelKey() +
            ") is not the kernel's (" + impl->req.kernelKey() + ")";
    return failure();
  }
  const ref::PageTable &pt = in.table;
  int64_t totalQ = req.totalQ(), hq = req.num_qo_heads, hkv = req.num_kv_heads,
          d = req.head_dim, dv = req.headDimV(), p = req.page_size, n = in.nPages(),
          b = req.batch();
  if (kernelDescales.size() != in.kv_descale.size()) {
    error = "the kernel's descale buffer has " + std::to_string(kernelDescales.size()) +
            " floats, the inputs' " + std::to_string(in.kv_descale.size());
    return failure();
  }
  out.assign(totalQ * hq * dv * ref::dtypeSize(req.out_dtype), 0);
  lse.assign(totalQ * hq, 0);
  ref::poisonFill(req.out_dtype, out.data(), totalQ * hq * dv);
  ref::poisonFill(ref::DType::F32, lse.data(), lse.size());
  bool nhd = req.layout == ref::KVLayout::NHD;
  auto cacheShape = [&](int64_t dim) {
    return nhd ? std::vector<int64_t>{n, p, hkv, dim} : std::vector<int64_t>{n, hkv, p, dim};
  };
  // Copies, so the kernel cannot change what the references read.
  std::vector<int32_t> qoIndptr = in.qo_indptr;
  std::vector<float> descales = kernelDescales;
  float qd = in.q_descale;
  std::array<int32_t, 4> scalars = req.runtimeScalars();
  // A kv_strided kernel reads K and V from one combined cache (per page its
  // K block, then its V block: ref::Request::combinedKView), as views.
  std::vector<uint8_t> combined;
  ref::Request::KVView kView = req.combinedKView(), vView = req.combinedVView();
  if (req.kv_strided)
    combined = in.combinedKVCache();
  auto strides = [](const ref::Request::KVView &v) {
    return std::vector<int64_t>(v.strides.begin(), v.strides.end());
  };
  const int64_t kvEsz = ref::dtypeSize(req.kv_dtype);
  std::vector<BufferView> views;
  for (const RequestOperand &a : requestOperands(req)) {
    const std::string &nm = a.name;
    auto add = [&](const void *data, std::vector<int64_t> sizes,
                   std::vector<int64_t> strides = {}) {
      views.push_back({nm, data, std::move(sizes), std::move(strides)});
    };
    if (nm == "q")
      add(in.q.data(), {totalQ, hq, d});
    else if (nm == "k_cache" && req.kv_strided)
      add(combined.data() + kView.offset * kvEsz, cacheShape(d), strides(kView));
    else if (nm == "v_cache" && req.kv_strided)
      add(combined.data() + vView.offset * kvEsz, cacheShape(dv), strides(vView));
    else if (nm == "k_cache")
      add(in.k_cache.data(), cacheShape(d));
    else if (nm == "v_cache")
      add(in.v_cache.data(), cacheShape(dv));
    else if (nm == "qo_indptr")
      add(qoIndptr.data(), {b + 1});
    else if (nm == "kv_indptr")
      add(pt.kv_indptr.data(), {(int64_t)pt.kv_indptr.size()});
    else if (nm == "kv_page_indices")
      add(pt.kv_page_indices.data(), {(int64_t)pt.kv_page_indices.size()});
    else if (nm == "kv_last_page_len")
      add(pt.kv_last_page_len.data(), {b});
    else if (nm == "block_table")
      add(pt.block_table.data(), {b, pt.max_pages});
    else if (nm == "kv_seqlen")
      add(pt.kv_seqlen.data(), {b});
    else if (nm == "q_descale")
      add(&qd, {1});
    else if (nm == "runtime_scalars")
      add(scalars.data(), {4});
    else if (nm == "k_descale" || nm == "v_descale") {
      const ref::DescaleLayout &l = nm == "k_descale" ? in.k_descale : in.v_descale;
      // kd and vd share one buffer ({kd, vd} per tensor, aiter's
      // interleaved [N_pages, Hkv, 2] per page): the view starts at the
      // element (a static memref<1xf32> does not read a descriptor offset;
      // one there gave the kernel kd for vd).
      if (a.rank == 1)
        add(descales.data() + l.offset, {1});
      else
        add(descales.data() + l.offset, {n, hkv}, {l.page_stride, l.head_stride});
    } else if (nm == "out")
      add(out.data(), {totalQ, hq, dv});
    else if (nm == "lse")
      add(lse.data(), {totalQ, hq});
    else {
      error = "no buffer for request operand '" + nm + "'";
      return failure();
    }
  }
  return runOnBuffers(views, error);
}
