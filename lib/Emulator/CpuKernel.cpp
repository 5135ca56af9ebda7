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
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>

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
  cfgPm.addPass(createFmhaSelectConfig(s));
  if (failed(cfgPm.run(*module))) {
    error = "invalid request: " + diag;
    return nullptr;
  }
  bool bad = false;
  ref::EmulateOptions &emu = impl->emu;
  module->walk([&](BatchPrefillOp op) {
    ConfigAttr c = op.getConfigAttr();
    if (opt.blockM || opt.blockN || opt.shift >= 0) {
      // New tile sizes: the decisions are taken again for them.
      c = ConfigAttr::get(&ctx, c.getChip(), opt.blockM ? opt.blockM : c.getBlockM(),
                          opt.blockN ? opt.blockN : c.getBlockN(), c.getKStep(),
                          c.getWarps(), c.getWaveSize(), c.getMmaM(), c.getMmaN(),
                          c.getPType(), opt.shift >= 0 ? opt.shift : c.getShift(),
                          PageRegime::Unset, VdRoute::Unset, 0);
      if (failed(verifyConfig(op, c))) {
        bad = true;
        return;
      }
      c = completeConfig(op, c);
      op.setConfigAttr(c);
    }
    // The V-descale route the config decided (the kernel follows it).
    emu.vd_scaled_p = c.getVdRoute() == VdRoute::ScaledP;
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
    buildFmhaToLaneKernelPipeline(front, t, opt.folds);
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
  impl->engine = std::move(*engine);
  impl->compileS = since(t0);
  code = 0;
  return std::unique_ptr<CpuKernel>(new CpuKernel(std::move(impl)));
}

LogicalResult CpuKernel::run(const ref::Inputs &in,
                             const std::vector<float> &kernelDescales,
                             std::vector<uint8_t> &out, std::vector<float> &lse,
                             std::string &error) {
  const ref::Request &req = impl->req;
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
  std::vector<Descriptor> descs;
  for (const RequestOperand &a : requestOperands(req)) {
    const std::string &nm = a.name;
    if (nm == "q")
      descs.push_back(describe(in.q.data(), 0, {totalQ, hq, d}));
    else if (nm == "k_cache")
      descs.push_back(describe(in.k_cache.data(), 0, cacheShape(d)));
    else if (nm == "v_cache")
      descs.push_back(describe(in.v_cache.data(), 0, cacheShape(dv)));
    else if (nm == "qo_indptr")
      descs.push_back(describe(qoIndptr.data(), 0, {b + 1}));
    else if (nm == "kv_indptr")
      descs.push_back(describe(pt.kv_indptr.data(), 0, {(int64_t)pt.kv_indptr.size()}));
    else if (nm == "kv_page_indices")
      descs.push_back(describe(pt.kv_page_indices.data(), 0,
                               {(int64_t)pt.kv_page_indices.size()}));
    else if (nm == "kv_last_page_len")
      descs.push_back(describe(pt.kv_last_page_len.data(), 0, {b}));
    else if (nm == "block_table")
      descs.push_back(describe(pt.block_table.data(), 0, {b, pt.max_pages}));
    else if (nm == "kv_seqlen")
      descs.push_back(describe(pt.kv_seqlen.data(), 0, {b}));
    else if (nm == "q_descale")
      descs.push_back(describe(&qd, 0, {1}));
    else if (nm == "k_descale" || nm == "v_descale") {
      const ref::DescaleLayout &l = nm == "k_descale" ? in.k_descale : in.v_descale;
      // A per-tensor descale is a static memref<1xf32>: its descriptor
      // offset is not read, so the element goes into the pointer (kd and vd
      // share one buffer, {kd, vd}; an offset here gave the kernel kd for vd).
      if (a.rank == 1)
        descs.push_back(describe(descales.data() + l.offset, 0, {1}));
      else
        descs.push_back(describe(descales.data(), l.offset, {n, hkv},
                                 {l.page_stride, l.head_stride}));
    } else if (nm == "out")
      descs.push_back(describe(out.data(), 0, {totalQ, hq, dv}));
    else if (nm == "lse")
      descs.push_back(describe(lse.data(), 0, {totalQ, hq}));
    else {
      error = "no buffer for request operand '" + nm + "'";
      return failure();
    }
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
