//===- Compile.cpp - request to GPU code object and manifest --------------===//
#include "fmha/Compile/Compile.h"
#include "fmha/Transforms/Passes.h"

#include "fmha/Conversion/OutlineKernel/KernelAbi.h"
#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"
#include "fmha/Pipelines/Pipelines.h"
#include "fmha/Reference/PageTable.h"
#include "fmha/Request/RequestModule.h"
#include "fmha/Target/AMDGPU.h"
#include "fmha/Support/Chips.h"
#include "fmha/Target/GPUTarget.h"
#include "fmha/Target/NVVM.h"
#include "fmha/Target/ToolkitConfig.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fmha;

bool mlir::fmha::chipUsesFnuz(StringRef chip) {
  const ChipInfo *c = lookupChip(chip);
  return c && c->fp8Family == Fp8Family::FnuzOnly;
}

namespace {

/// `key`: [values...].
template <typename Ints>
void intArray(llvm::json::OStream &j, llvm::StringRef key, const Ints &values) {
  j.attributeArray(key, [&] {
    for (int64_t x : values)
      j.value(x);
  });
}

std::string writeRequest(const ref::Request &r, llvm::json::OStream &j) {
  j.attributeObject("request", [&] {
    j.attribute("batch", r.batch());
    intArray(j, "qo_lens", r.qo_lens);
    intArray(j, "kv_lens", r.kv_lens);
    j.attribute("num_qo_heads", r.num_qo_heads);
    j.attribute("num_kv_heads", r.num_kv_heads);
    j.attribute("head_dim", r.head_dim);
    j.attribute("head_dim_v", r.headDimV());
    j.attribute("page_size", r.page_size);
    j.attribute("page_table", r.table == ref::TableForm::CSR ? "csr" : "block_table");
    j.attribute("kv_layout", r.layout == ref::KVLayout::NHD ? "nhd" : "hnd");
    j.attribute("quant", ref::quantModeName(r.quant));
    j.attribute("mask", r.mask.str());
    j.attribute("q_dtype", ref::dtypeName(r.q_dtype));
    j.attribute("kv_dtype", ref::dtypeName(r.kv_dtype));
    j.attribute("out_dtype", ref::dtypeName(r.out_dtype));
    j.attribute("sm_scale", r.smScale());
    j.attribute("soft_cap", r.soft_cap);
    j.attribute("lse", r.return_lse);
    j.attribute("runtime_scalars", r.runtime_scalars);
    j.attribute("kv_strided", r.kv_strided);
    j.attribute("seed", static_cast<int64_t>(r.seed));
    j.attribute("data", ref::dataModeName(r.data));
  });
  return "";
}

/// A private toolkit folder (DIR/llvm/bin/ld.lld -> LLVM's ld.lld) for
/// installs without the build tree's; removed when the compile is done.
struct TempToolkit {
  SmallString<128> dir;
  std::string make() {
    std::string lld = FMHA_LLVM_TOOLS_DIR "/ld.lld";
    if (!llvm::sys::fs::can_execute(lld)) {
      auto found = llvm::sys::findProgramByName("ld.lld");
      if (!found)
        return "";
      lld = *found;
    }
    if (llvm::sys::fs::createUniqueDirectory("fmha-toolkit", dir))
      return "";
    SmallString<128> bin(dir);
    llvm::sys::path::append(bin, "llvm", "bin");
    SmallString<128> link(bin);
    llvm::sys::path::append(link, "ld.lld");
    if (llvm::sys::fs::create_directories(bin) ||
        llvm::sys::fs::create_link(lld, link))
      return "";
    return std::string(dir);
  }
  ~TempToolkit() {
    if (!dir.empty())
      llvm::sys::fs::remove_directories(dir);
  }
};

FailureOr<std::string> binaryPayload(ModuleOp module) {
  SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
  if (binaries.size() != 1 || binaries[0].getObjects().size() != 1)
    return module.emitError() << "expected one gpu.binary with one object";
  auto object = cast<gpu::ObjectAttr>(binaries[0].getObjects()[0]);
  return object.getObject().getValue().str();
}

LogicalResult bitcodeToText(StringRef bitcode, std::string &text, Location loc) {
  llvm::LLVMContext llctx;
  auto buf = llvm::MemoryBuffer::getMemBuffer(bitcode, "kernel", false);
  auto m = llvm::parseBitcodeFile(buf->getMemBufferRef(), llctx);
  if (!m)
    return emitError(loc) << "bitcode: " << llvm::toString(m.takeError());
  llvm::raw_string_ostream os(text);
  (*m)->print(os, nullptr);
  return success();
}

void writeCommon(llvm::json::OStream &j, const ref::Request &req,
                 const CompileOptions &opt, ConfigAttr cfg,
                 const CompileResult &res, StringRef target, StringRef symbol) {
  j.attribute("format", "fmha-kernel-manifest/1");
  j.attribute("chip", opt.chip);
  j.attribute("target", target);
  j.attribute("kernel", res.kernel);
  j.attribute("symbol", symbol);
  writeRequest(req, j);
  j.attributeArray("args", [&] {
    for (const AbiArg &a : res.args)
      j.object([&] {
        j.attribute("name", a.name);
        j.attribute("kind", a.kind);
        j.attribute("offset", a.offset);
        j.attribute("size", a.size);
        j.attribute("align", a.align);
        if (a.kind == "tensormap")
          j.attributeObject("tensormap", [&] {
            intArray(j, "dims", a.tmapDims);
            intArray(j, "box", a.tmapBox);
            j.attribute("element_bytes", a.elementBytes);
            j.attribute("swizzle", a.swizzle);
          });
      });
  });
  if (cfg)
    j.attributeObject("config", [&] {
      j.attribute("block_m", cfg.getBlockM());
      j.attribute("block_n", cfg.getBlockN());
      j.attribute("k_step", cfg.getKStep());
      j.attribute("warps", cfg.getWarps());
      j.attribute("wave_size", cfg.getWaveSize());
      std::string p;
      llvm::raw_string_ostream ps(p);
      ps << cfg.getPType();
      j.attribute("p_type", p);
      j.attribute("shift", cfg.getShift());
      // The decisions fmha-select-config took (docs/REGIMES.md section 2).
      j.attribute("page_regime", stringifyPageRegime(cfg.getPageRegime()));
      j.attribute("pv_vd_route", stringifyVdRoute(cfg.getVdRoute()));
      j.attribute("pv_group", cfg.getPvGroup());
      j.attribute("q_scale", stringifyQScale(cfg.getQScale()));
      // How the MMA sums: > 0 on sm_90a's fp8 wgmma (the emulating
      // reference's wgmma_fp8_promote for S, _pv for P V), 0 where
      // products sum exactly.
      j.attribute("wgmma_fp8_promote", wgmmaFp8Promote(req, cfg));
      j.attribute("wgmma_fp8_promote_pv", wgmmaFp8Promote(req, cfg, /*pv=*/true));
    });
  j.attributeArray("workgroup", [&] {
    for (int64_t x : res.workgroup)
      j.value(x);
  });
  j.attributeObject("grid", [&] {
    j.attribute("x", "ceil(max_qo_len / " +
                         std::to_string(cfg ? cfg.getBlockM() : 0) + ")");
    j.attribute("y", res.headsPerWorkgroup > 1
                         ? "num_qo_heads / " + std::to_string(res.headsPerWorkgroup)
                         : std::string("num_qo_heads"));
    j.attribute("z", "batch");
  });
  j.attributeArray("grid_for_request", [&] {
    for (int64_t x : res.grid)
      j.value(x);
  });
  // x and z may exceed the formula (docs/ABI.md section 4): workgroups past
  // a sequence's rows or past the batch return at once, so the grid of the
  // largest batch serves a launch captured in a CUDA / HIP graph.
  j.attributeArray("grid_may_exceed", [&] {
    j.value("x");
    j.value("z");
  });
}

/// sm_90: NVVM, then PTX (the driver JITs it; ptxas makes a cubin where it
/// exists). The manifest has the ABI; registers come from ptxas, not here.
FailureOr<CompileResult> finishNvidia(MLIRContext &ctx, ModuleOp module,
                                      const ref::Request &req,
                                      const CompileOptions &opt, ConfigAttr cfg,
                                      CompileResult res, Location loc) {
  PassManager back(&ctx);
  buildGPUBackHalfPipeline(back, *lookupChip(opt.chip), opt.emit, "");
  if (failed(back.run(module)))
    return failure();
  FailureOr<std::string> payload = binaryPayload(module);
  if (failed(payload))
    return failure();
  if (opt.emit == "llvm") {
    if (failed(bitcodeToText(*payload, res.payload, loc)))
      return failure();
    return res;
  }
  res.payload = std::move(*payload);
  if (opt.emit == "isa")
    return res;
  llvm::raw_string_ostream os(res.manifest);
  llvm::json::OStream j(os, 2);
  uint64_t kernarg = res.args.empty() ? 0 : res.args.back().offset + res.args.back().size;
  // TRIPLE:CHIP, e.g. nvptx64-nvidia-cuda:sm_90.
  const ChipInfo *chip = lookupChip(opt.chip);
  std::string target = std::string(chip->triple) + ":" + chip->name;
  j.object([&] {
    writeCommon(j, req, opt, cfg, res, target, res.kernel);
    j.attribute("binary_format", "ptx");
    j.attribute("kernarg_size", kernarg);
    // A tensor map's slot is 64-aligned; the buffer is then too.
    uint64_t align = 8;
    for (const AbiArg &a : res.args)
      align = std::max<uint64_t>(align, a.align);
    j.attribute("kernarg_align", align);
    j.attribute("lds_bytes", res.ldsBytes);
    // Above 48 KiB all of it is dynamic (fmha-shared-to-dynamic): the
    // launcher passes it as sharedMemBytes (docs/ABI.md); 0 when static.
    j.attribute("dynamic_shared_bytes",
                res.ldsBytes > kStaticSharedLimit ? res.ldsBytes : int64_t(0));
  });
  os << "\n";
  return res;
}

} // namespace

std::string mlir::fmha::requestJson(const ref::Request &r) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream j(os);
  j.object([&] { writeRequest(r, j); });
  os.flush();
  // {"request": {...}} -> {...}
  size_t open = text.find('{', 1), close = text.rfind('}');
  return text.substr(open, close - open);
}

FailureOr<CompileResult> mlir::fmha::compileRequest(MLIRContext &ctx,
                                                    const ref::Request &req,
                                                    const CompileOptions &opt,
                                                    bool *badInput) {
  bool scratch;
  bool &bad = badInput ? *badInput : scratch;
  bad = true;
  Location loc = NameLoc::get(StringAttr::get(&ctx, "request"));
  if (std::string e = loweringCountsError(opt.kvStages, opt.kvUnroll, opt.warps,
                                              opt.blockN); !e.empty())
    return emitError(loc) << e, failure();
  const ChipInfo *chip = lookupChip(opt.chip);
  if (!chip || !chip->isGPU())
    return emitError(loc) << "unknown chip '" << opt.chip << "'; expected "
                          << expectedChipsText(kGPUChips),
           failure();
  bool nvidia = chip->vendor == ChipVendor::NVIDIA;
  if (!llvm::is_contained({"bin", "isa", "llvm", "mlir"}, opt.emit))
    return emitError(loc) << "--emit must be bin, isa, llvm or mlir, not '"
                          << opt.emit << "'",
           failure();
  if (std::string err = req.validate(); !err.empty())
    return emitError(loc) << "invalid request: " << err, failure();
  {
    DialectRegistry registry;
    if (nvidia)
      registerNVVMTargetDependencies(registry);
    else
      registerAMDGPUTargetDependencies(registry);
    ctx.appendDialectRegistry(registry);
  }
  OwningOpRef<ModuleOp> module = buildRequestModule(ctx, req);
  if (!module)
    return failure();

  // Front half: the kernel at the gpu/amdgpu/rocdl level.
  // (the same builder the pipelines and the lane emulator use).
  PassManager front(&ctx);
  buildFmhaToLaneKernelPipeline(front, opt.chip, laneKernelOptionsOf(opt));
  if (failed(front.run(*module)))
    return failure();

  bad = false;
  CompileResult res;
  SmallVector<gpu::LaunchFuncOp> launches;
  module->walk([&](gpu::LaunchFuncOp l) { launches.push_back(l); });
  if (launches.size() != 1)
    return module->emitError() << "expected one kernel launch, got "
                               << launches.size(),
           failure();
  gpu::LaunchFuncOp launch = launches[0];
  auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernelAttr());
  res.kernel = kernel.getName().str();
  // The arguments as fmha-outline-kernel recorded them (KernelAbi.h).
  FailureOr<SmallVector<KernelAbiArg>> abi = readKernelAbi(kernel);
  if (failed(abi))
    return failure();
  uint64_t offset = 0;
  for (auto [i, from] : llvm::enumerate(*abi)) {
    if (from.operand < 0)
      return kernel.emitOpError()
                 << "kernel argument " << i << " ('" << from.flatName()
                 << "') is not a request operand but a value computed on the "
                    "host; a launcher cannot pass it",
             failure();
    AbiArg a;
    a.name = from.flatName();
    a.kind = from.part == AbiPart::Pointer ? "pointer" : "i64";
    a.size = a.align = 8;
    if (from.part == AbiPart::TensorMap) {
      // A CUtensorMap by value (__grid_constant__): .param .align 64 .b8[128].
      a.kind = "tensormap";
      a.size = 128;
      a.align = 64;
      a.tmapDims.assign(from.tmapDims.begin(), from.tmapDims.end());
      a.tmapBox.assign(from.tmapBox.begin(), from.tmapBox.end());
      a.elementBytes = from.elementBytes;
      a.swizzle = from.swizzle;
    }
    a.offset = offset = llvm::alignTo(offset, a.align);
    offset += a.size;
    res.args.push_back(a);
  }
  if (std::optional<ArrayRef<int32_t>> bs = kernel.getKnownBlockSize())
    for (int i = 0; i < 3; ++i)
      res.workgroup[i] = (*bs)[i];
  // The workgroup buffers as the NVIDIA back half lays them out in one
  // dynamic block (fmha-shared-to-dynamic: each at its alignment); the AMD
  // manifest takes the code object's own group segment size.
  SmallVector<std::pair<int64_t, int64_t>> buffers;
  for (auto [i, wg] : llvm::enumerate(kernel.getWorkgroupAttributions())) {
    auto mt = cast<MemRefType>(wg.getType());
    auto align = kernel.getWorkgroupAttributionAttr(
        i, LLVM::LLVMDialect::getAlignAttrName());
    buffers.push_back({mt.getNumElements() * mt.getElementTypeBitWidth() / 8,
                       align ? cast<IntegerAttr>(align).getInt() : 0});
  }
  sharedLayout(buffers, res.ldsBytes);
  auto cfg = kernel->getAttrOfType<ConfigAttr>(kGridConfigAttr);
  int64_t blockM = cfg ? cfg.getBlockM() : 0;
  int64_t maxQ = 0;
  for (int64_t q : req.qo_lens)
    maxQ = std::max(maxQ, q);
  // validate() keeps maxQ <= 2^31 - 1, so ceil(maxQ / blockM) cannot
  // overflow; the grid must still be launchable on CUDA and HIP.
  if (auto h = kernel->getAttrOfType<IntegerAttr>(kHeadsPerWorkgroupAttr))
    res.headsPerWorkgroup = h.getInt();
  res.grid = {blockM > 0 ? (maxQ + blockM - 1) / blockM : 0,
              req.num_qo_heads / res.headsPerWorkgroup, req.batch()};
  if (res.grid[0] < 1 || res.grid[0] > ::fmha::ref::kMaxGridX || res.grid[1] < 1 ||
      res.grid[1] > ::fmha::ref::kMaxGridYZ || res.grid[2] < 1 ||
      res.grid[2] > ::fmha::ref::kMaxGridYZ) {
    bad = true;
    return emitError(loc) << "invalid request: grid (" << res.grid[0] << ", "
                          << res.grid[1] << ", " << res.grid[2]
                          << ") = (ceil(max_qo_len / " << blockM
                          << "), num_qo_heads, batch) must have 1 <= x <= "
                          << ::fmha::ref::kMaxGridX << " and 1 <= y, z <= "
                          << ::fmha::ref::kMaxGridYZ,
           failure();
  }

  if (opt.emit == "mlir") {
    llvm::raw_string_ostream os(res.payload);
    module->print(os);
    return res;
  }

  if (nvidia)
    return finishNvidia(ctx, *module, req, opt, cfg, std::move(res), loc);

  // Back half: ROCDL, then the code object (or its text forms).
  TempToolkit temp;
  std::string toolkit = opt.toolkit;
  if (toolkit.empty())
    toolkit = toolkitHasLld(FMHA_DEFAULT_ROCM_TOOLKIT) ? std::string(FMHA_DEFAULT_ROCM_TOOLKIT)
                                                : temp.make();
  if (opt.emit == "bin" && !toolkitHasLld(toolkit)) {
    SmallString<128> lld(toolkit);
    llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
    return emitError(loc) << "linking the code object needs ld.lld at '"
                          << lld << "' (--toolkit)",
           failure();
  }
  PassManager back(&ctx);
  buildGPUBackHalfPipeline(back, *lookupChip(opt.chip), opt.emit, toolkit,
                           opt.linkSeconds);
  if (failed(back.run(*module)))
    return failure();
  FailureOr<std::string> payload = binaryPayload(*module);
  if (failed(payload))
    return failure();
  if (opt.emit == "llvm") {
    if (failed(bitcodeToText(*payload, res.payload, loc)))
      return failure();
    return res;
  }
  res.payload = std::move(*payload);
  if (opt.emit == "isa")
    return res;

  // The manifest: our ABI, checked against the code object's own notes.
  ArrayRef<char> bytes(res.payload.data(), res.payload.size());
  FailureOr<KernelManifest> notes = readAmdgpuManifest(bytes);
  if (failed(notes) || notes->kernels.size() != 1)
    return emitError(loc) << "code object has no readable kernel metadata",
           failure();
  const KernelInfo &k = notes->kernels[0];
  if (k.args.size() != res.args.size())
    return emitError(loc) << "code object lists " << k.args.size()
                          << " kernel arguments, the ABI " << res.args.size(),
           failure();
  for (size_t i = 0; i < res.args.size(); ++i)
    if (k.args[i].offset != res.args[i].offset || k.args[i].size != res.args[i].size)
      return emitError(loc) << "kernel argument " << i << " (" << res.args[i].name
                            << ") at offset " << k.args[i].offset
                            << " in the code object, " << res.args[i].offset
                            << " in the ABI",
             failure();
  unsigned waves = wavesPerSimdByVgprs(opt.chip, k.vgprCount).value_or(0);
  // LDS per CU and SIMDs per CU: the chip table's.
  int64_t ldsPerCu = chip->ldsBytesPerCu;
  int64_t wavesPerGroup = res.workgroup[0] / static_cast<int64_t>(k.wavefrontSize);
  if (k.groupSegmentFixedSize && wavesPerGroup)
    waves = std::min<unsigned>(
        waves, (ldsPerCu / k.groupSegmentFixedSize) * wavesPerGroup /
                   chip->simdsPerCu);

  llvm::raw_string_ostream os(res.manifest);
  llvm::json::OStream j(os, 2);
  j.object([&] {
    writeCommon(j, req, opt, cfg, res, notes->target, k.symbol);
    j.attribute("kernarg_size", k.kernargSegmentSize);
    j.attribute("kernarg_align", k.kernargSegmentAlign);
    j.attribute("lds_bytes", k.groupSegmentFixedSize);
    j.attribute("vgpr", k.vgprCount);
    j.attribute("agpr", k.agprCount);
    j.attribute("sgpr", k.sgprCount);
    j.attribute("scratch_bytes", k.privateSegmentFixedSize);
    j.attribute("vgpr_spills", k.vgprSpillCount);
    j.attribute("sgpr_spills", k.sgprSpillCount);
    j.attribute("wavefront_size", k.wavefrontSize);
    j.attribute("waves_per_simd", waves);
  });
  os << "\n";
  return res;
}
