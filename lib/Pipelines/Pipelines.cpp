//===- Pipelines.cpp - staged pipeline builders -----------------------------===//
#include "fmha/Pipelines/Pipelines.h"

#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"
#include "fmha/Target/AMDGPU.h"
#include "fmha/Support/Chips.h"
#include "fmha/Target/GPUTarget.h"
#include "fmha/Target/NVVM.h"
#include "fmha/Target/ToolkitConfig.h"
#include "fmha/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <optional>

using namespace mlir;
using namespace mlir::fmha;

void fmha::buildFmhaTilingPipeline(OpPassManager &pm, StringRef chip,
                                   bool folds, bool perTokenPrefetch,
                                   bool peel, StringRef vdRoute, int64_t warps,
                                   int64_t blockN) {
  FmhaSelectConfigOptions select;
  select.chip = chip.str();
  select.vdRoute = vdRoute.str();
  select.warps = warps;
  select.blockN = blockN;
  pm.addPass(createFmhaSelectConfig(select));
  pm.addPass(createFmhaTile());
  if (folds) {
    pm.addPass(createFmhaFoldDescales());
    pm.addPass(createFmhaFoldExp2Shift());
    pm.addPass(createFmhaFoldVdExp2());
    pm.addPass(createFmhaFoldVdRescale());
  }
  FmhaPrefetchPageIdsOptions prefetch;
  prefetch.perToken = perTokenPrefetch;
  pm.addPass(createFmhaPrefetchPageIds(prefetch));
  if (peel) {
    pm.addPass(createFmhaPeelMaskedTiles());
    pm.addPass(createFmhaDropEmptyRowGuard());
  }
  pm.addPass(createFmhaExpandMasks());
}

namespace {
/// The GPU pipelines' check of their chip option, before any pass is added:
/// a GPU chip of the chip table and, when `vendor` is given, one of that
/// vendor. The error is one line naming the rule, prefixed by `pipeline`.
const ChipInfo *
checkGPUChip(StringRef pipeline, StringRef chip,
             std::optional<ChipVendor> vendor,
             function_ref<LogicalResult(const Twine &)> onError) {
  unsigned mask = !vendor                          ? kGPUChips
                  : *vendor == ChipVendor::AMDGPU ? kAMDGPUChips
                                                  : kNVIDIAChips;
  std::string expected =
      (Twine(!vendor ? "a GPU" : *vendor == ChipVendor::AMDGPU ? "an AMDGPU"
                                                                : "an NVIDIA") +
       " chip (" + expectedChipsText(mask) + ")")
          .str();
  const ChipInfo *info = lookupChip(chip);
  if (!info) {
    (void)onError(pipeline + ": unknown chip '" + chip + "'; expected " +
                  expected);
    return nullptr;
  }
  if (!info->isGPU() || (vendor && info->vendor != *vendor)) {
    (void)onError(pipeline + ": chip '" + chip + "' is " +
                  (info->isGPU() ? (info->vendor == ChipVendor::AMDGPU
                                        ? "an AMDGPU chip"
                                        : "an NVIDIA chip")
                                 : "the host pseudo-chip") +
                  "; expected " + expected);
    return nullptr;
  }
  return info;
}

/// The front half's options as a GPU pipeline's options give them.
LaneKernelOptions laneKernelOptions(const GPUPipelineOptions &options) {
  LaneKernelOptions o;
  o.folds = options.folds;
  o.peel = options.peel;
  o.pipeline = options.pipeline;
  o.warpSpecialize = options.warpSpecialize;
  o.transposeV = options.transposeV;
  o.pingPong = options.pingPong;
  if (options.stageDescales != llvm::cl::BOU_UNSET)
    o.stageDescales = options.stageDescales == llvm::cl::BOU_TRUE;
  o.vdRoute = options.vdRoute;
  o.kvUnroll = options.kvUnroll;
  if (options.ldsLoads != llvm::cl::BOU_UNSET)
    o.ldsLoads = options.ldsLoads == llvm::cl::BOU_TRUE;
  if (options.ldsSwizzle != llvm::cl::BOU_UNSET)
    o.ldsSwizzle = options.ldsSwizzle == llvm::cl::BOU_TRUE;
  o.warps = options.warps;
  o.blockN = options.blockN;
  if (options.tma != llvm::cl::BOU_UNSET)
    o.tma = options.tma == llvm::cl::BOU_TRUE;
  return o;
}

/// The one GPU stage builder: the front half, then the chip's vendor's back
/// half and, unless format=none, gpu-module-to-binary.
LogicalResult
buildGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options,
                 StringRef pipeline, std::optional<ChipVendor> vendor,
                 function_ref<LogicalResult(const Twine &)> onError) {
  const ChipInfo *chip = checkGPUChip(pipeline, options.chip, vendor, onError);
  if (!chip)
    return failure();
  fmha::buildFmhaToLaneKernelPipeline(pm, options.chip, laneKernelOptions(options));
  fmha::buildGPUBackHalfPipeline(pm, *chip, options.format, options.toolkit);
  return success();
}
} // namespace

void fmha::buildGPUBackHalfPipeline(OpPassManager &pm, const ChipInfo &chip,
                                    StringRef format, StringRef toolkit,
                                    unsigned linkSeconds) {
  if (chip.vendor == ChipVendor::NVIDIA) {
    fmha::buildNVVMToLLVMPassPipeline(pm);
    // PTX either way: a cubin needs ptxas.
    if (format != "none")
      fmha::buildGPUSerializePassPipeline(pm, format == "bin" ? "isa" : format, "");
    return;
  }
  fmha::AMDGPUTargetOptions target;
  target.chip = chip.name;
  fmha::buildAMDGPUToROCDLPassPipeline(pm, target);
  if (format != "none")
    fmha::buildGPUSerializePassPipeline(
        pm, format,
        toolkit.empty() ? StringRef(FMHA_DEFAULT_ROCM_TOOLKIT) : toolkit,
        linkSeconds);
}

LogicalResult
fmha::buildFmhaToGPUPipeline(OpPassManager &pm,
                             const GPUPipelineOptions &options,
                             function_ref<LogicalResult(const Twine &)> onError) {
  return buildGPUPipeline(pm, options, "fmha GPU stages", std::nullopt,
                          onError);
}

LogicalResult fmha::buildFmhaToROCDLPipeline(
    OpPassManager &pm, const GPUPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> onError) {
  return buildGPUPipeline(pm, options, "fmha-to-rocdl-pipeline",
                          ChipVendor::AMDGPU, onError);
}

LogicalResult fmha::buildFmhaToNVVMPipeline(
    OpPassManager &pm, const GPUPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> onError) {
  return buildGPUPipeline(pm, options, "fmha-to-nvvm-pipeline",
                          ChipVendor::NVIDIA, onError);
}

namespace {
/// The host lowering after the tile ops are gone: fp8 / bf16 casts as integer
/// code, vectors, memrefs and control flow to the LLVM dialect.
void addHostLowering(OpPassManager &pm) {
  pm.addPass(fmha::createExpandFp8ArithPass());
  // bf16 casts as integer code too: without it the JIT may need compiler-rt's
  // __truncsfbf2, which it cannot resolve.
  arith::ArithExpandOpsPassOptions expandBf16;
  expandBf16.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expandBf16));
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMultiReductionPass());
  VectorTransferToSCFOptions toScf;
  toScf.unroll = true;
  pm.addPass(createConvertVectorToSCFPass(toScf));
  // Only tanh (soft cap) needs expanding; exp2 stays llvm.intr.exp2.
  math::MathExpandOpsPassOptions expand;
  expand.opMnemonics = {"tanh"};
  pm.addPass(math::createMathExpandOpsPass(expand));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
} // namespace

void fmha::buildFmhaToHostPipeline(OpPassManager &pm,
                                   const HostPipelineOptions &options) {
  buildFmhaTilingPipeline(pm, options.chip, options.folds,
                          /*perTokenPrefetch=*/true, options.peel);
  pm.addPass(createConvertFmhaToHost());
  pm.addPass(createForallToForLoopPass());
  pm.addPass(createCanonicalizerPass());
  addHostLowering(pm);
}

void fmha::buildFmhaToLaneKernelPipeline(OpPassManager &pm, StringRef chip,
                                         const LaneKernelOptions &options) {
  buildFmhaTilingPipeline(pm, chip, options.folds, /*perTokenPrefetch=*/false,
                          options.peel, options.vdRoute, options.warps,
                          options.blockN);
  // The soft cap's tanh as exp2 and arith: no device library on a GPU.
  pm.addPass(fmha::createExpandTanhPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // NVIDIA, when asked: the full tiles' K and V staged one tile ahead by
  // cp.async into a 2-stage ring (dynamic shared memory above 48 KiB).
  const ChipInfo *info = lookupChip(chip);
  if (options.pipeline && info && info->vendor == ChipVendor::NVIDIA) {
    FmhaPipelineKVStagesOptions stages;
    stages.stages = options.kvStages;
    pm.addPass(createFmhaPipelineKVStages(stages));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    // Tile t's descale reads before its waits (their latency under S).
    pm.addPass(createFmhaHoistTileReads());
    // sm_90a, when asked: S = Q K^T started before V's wait and transpose,
    // which run while the wgmma computes it (off by default: 5-11 % slower
    // on an H100, bench/NOTES.md).
    if (options.overlapScoreMma && info->warpgroupMma)
      pm.addPass(createFmhaOverlapScoreMma());
    // sm_90a, by default: the grid point split into a producer warpgroup
    // and two consumer warpgroups (fmha-warp-specialize; grids it cannot
    // split keep one warpgroup).
    if (options.warpSpecialize && info->warpgroupMma) {
      FmhaWarpSpecializeOptions ws;
      ws.transposeV = options.transposeV;
      // Staged descales: when asked, at every page size the pass takes;
      // the chip's choice, at pages of at most kStageDescalesMaxPage.
      ws.stageDescales = options.stageDescales.value_or(true);
      ws.stageDescalesMaxPage = options.stageDescales ? 0 : kStageDescalesMaxPage;
      // A transposing producer holds a V chunk's words: 40 registers, the
      // consumers 232 (the split timed on an H100, bench/NOTES.md
      // 2026-12-06; 24 spilled in the producer); else 24 / 240.
      if (options.transposeV) {
        ws.producerRegs = 40;
        ws.consumerRegs = 232;
      }
      pm.addPass(createFmhaWarpSpecialize(ws));
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createCSEPass());
      // When asked: each consumer's softmax of tile t + 1 while P V of
      // tile t computes (fmha-overlap-softmax; loops with turns are left
      // alone, so it runs first).
      if (options.overlapSoftmax) {
        pm.addPass(createFmhaOverlapSoftmax());
        pm.addPass(createCanonicalizerPass());
        pm.addPass(createCSEPass());
      }
      // When asked: the consumers issue S (and what is issued with it) in
      // turn (fmha-ping-pong).
      if (options.pingPong)
        pm.addPass(createFmhaPingPong());
    }
  }
  // AMDGPU, the chip's choice unless asked: K by loads straight into LDS
  // (V too on gfx950), one stage each: this tile's V in flight behind S
  // (and the softmax on gfx950), the next tile's K behind P V. gfx942's
  // loads take 4 bytes a lane (16 loads and M0 writes a K tile a wave where
  // 4 loads and 4 LDS stores did): off unless asked (bench/NOTES.md,
  // 2026-12-06, fourteenth session).
  if (info && info->vendor == ChipVendor::AMDGPU && info->ldsLoadBytes &&
      options.ldsLoads.value_or(info->ldsLoadBytes >= 16)) {
    FmhaPipelineKVStagesOptions stages;
    stages.singleStage = true;
    // gfx942 (4-byte loads into LDS, no transpose loads): V comes through
    // registers, its V^T written by the lanes at its read, which is then
    // best right after S (bench/NOTES.md, 2026-12-06, fourteenth session).
    stages.vAfterScores = info->ldsLoadBytes < 16;
    pm.addPass(createFmhaPipelineKVStages(stages));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  // AMDGPU: P x V accumulates into the rescaled o where nothing scales the
  // product (exp2_bias, quant none; bench/NOTES.md, 2026-12-06, eleventh
  // session).
  // And the row sum after P x V, where LLVM's scheduler interleaves its
  // adds with the MFMAs (same note).
  if (info && info->vendor == ChipVendor::AMDGPU) {
    pm.addPass(createFmhaAccumulatePV());
    pm.addPass(createFmhaSinkRowSum());
  }
  // AMDGPU: the full tiles' loop unrolled (its auto rule: by 2 where the
  // loop gathers descales; bench/NOTES.md, 2026-12-06, tenth session).
  if (info && info->vendor == ChipVendor::AMDGPU && options.kvUnroll != 1) {
    FmhaUnrollKVLoopOptions unroll;
    unroll.factor = options.kvUnroll;
    pm.addPass(createFmhaUnrollKVLoop(unroll));
  }
  OutlineKernelOptions outline;
  outline.chip = chip.str();
  // sm_90a: the producer's K/V copies by TMA where the pages allow
  // (fmha-outline-kernel gives the kernel its tensor maps): when asked,
  // wherever a box is a multiple of 8 rows; the chip's choice: boxes of
  // kTmaMinBoxRows rows or more, any where the producer stages the
  // descales (docs/REGIMES.md decision 15).
  outline.tma = info && info->warpgroupMma && options.tma.value_or(true);
  outline.tmaMinBoxRows = options.tma ? 8 : kTmaMinBoxRows;
  outline.tmaStagedMinBoxRows = kTmaStagedMinBoxRows;
  pm.addPass(createOutlineKernel(outline));
  ConvertFmhaToGPUOptions gpu;
  gpu.chip = chip.str();
  // AMDGPU: K and V^T chunk-major in LDS, the chip's choice where the
  // lanes stage its steady loop's tiles (gfx942: the LDS bank model's
  // operand reads 12x -> 1.0x their conflict-free cycles, llvm-mca within
  // a few percent on most rows; bench/NOTES.md, 2026-12-07, fifteenth
  // session); off on gfx950, whose loads into LDS fill row-major tiles
  // (there it reaches only a V^T the lanes write and --lds-loads=false
  // kernels).
  gpu.ldsBankSwizzle = info && info->vendor == ChipVendor::AMDGPU &&
                       options.ldsSwizzle.value_or(info->ldsLoadBytes < 16);
  pm.addPass(createConvertFmhaToGPU(gpu));
}

void fmha::buildLanesToLLVMPipeline(OpPassManager &pm, bool checkBounds) {
  ConvertLanesToHostOptions lanes;
  lanes.checkBounds = checkBounds;
  pm.addPass(createConvertLanesToHost(lanes));
  addHostLowering(pm);
}

void fmha::buildFmhaToLanesPipeline(OpPassManager &pm,
                                    const GPUPipelineOptions &options) {
  buildFmhaToLaneKernelPipeline(pm, options.chip, laneKernelOptions(options));
  buildLanesToLLVMPipeline(pm);
}

namespace {
/// Registers a GPU pipeline whose builder may fail (a chip of the other
/// vendor): PassPipelineRegistration takes only builders returning void, so
/// this uses registerPassPipeline, whose builder reports through the error
/// handler (fmha-opt prints one error line and exits non-zero).
/// `defaultChip` is the chip option's value when chip= is not given.
void registerGPUPipeline(
    StringRef arg, StringRef description, StringRef defaultChip,
    LogicalResult (*builder)(OpPassManager &, const fmha::GPUPipelineOptions &,
                             function_ref<LogicalResult(const Twine &)>)) {
  std::string chip = defaultChip.str();
  registerPassPipeline(
      arg, description,
      [builder, chip](OpPassManager &pm, StringRef optionsStr,
                      function_ref<LogicalResult(const Twine &)> onError) {
        fmha::GPUPipelineOptions options;
        options.chip.setInitialValue(chip);
        if (failed(options.parseFromString(optionsStr)))
          return failure();
        return builder(pm, options, onError);
      },
      [chip](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        fmha::GPUPipelineOptions options;
        options.chip.setInitialValue(chip);
        optHandler(options);
      });
}
} // namespace

void fmha::registerFmhaPipelines() {
  PassPipelineRegistration<HostPipelineOptions>(
      "fmha-to-host-pipeline",
      "fmha.batch_prefill to LLVM for the CPU: select-config, tile, the "
      "folds, prefetch-page-ids, convert-fmha-to-host, fp8 expansion and the "
      "upstream LLVM lowering",
      buildFmhaToHostPipeline);
  registerGPUPipeline(
      "fmha-to-rocdl-pipeline",
      "fmha.batch_prefill to an AMDGPU code object: the tiling stages, "
      "fmha-outline-kernel, convert-fmha-to-gpu, the ROCDL lowering and "
      "gpu-module-to-binary (chip: an AMDGPU chip, gfx942 by default)",
      "gfx942", buildFmhaToROCDLPipeline);
  PassPipelineRegistration<GPUPipelineOptions>(
      "fmha-to-lanes-pipeline",
      "fmha.batch_prefill for a GPU chip, compiled to run on the CPU one lane "
      "at a time (the lane emulator): the GPU front half for the chip (the "
      "tiling stages, fmha-outline-kernel, convert-fmha-to-gpu), "
      "fmha-lanes-to-host and the host lowering to LLVM",
      buildFmhaToLanesPipeline);
  registerGPUPipeline(
      "fmha-to-nvvm-pipeline",
      "fmha.batch_prefill to PTX for an NVIDIA chip: the tiling stages, "
      "fmha-outline-kernel, convert-fmha-to-gpu, the NVVM lowering and "
      "gpu-module-to-binary (format isa = PTX; chip: an NVIDIA chip, sm_90 "
      "by default)",
      "sm_90", buildFmhaToNVVMPipeline);
}

std::string mlir::fmha::loweringCountsError(int64_t kvStages, int64_t kvUnroll,
                                            int64_t warps, int64_t blockN) {
  if (kvStages < 2 || kvStages > 8)
    return "kv stages must be 2 to 8, not " + std::to_string(kvStages);
  if (kvUnroll != -1 && (kvUnroll < 1 || kvUnroll > 8))
    return "kv unroll must be -1 (auto) or 1 to 8, not " + std::to_string(kvUnroll);
  if (warps < 0 || warps > 16)
    return "warps must be 0 (the chip's) to 16, not " + std::to_string(warps);
  if (blockN < 0 || blockN > kMaxBlockN)
    return "block_n must be 0 (the chip's) to " + std::to_string(kMaxBlockN) +
           ", not " + std::to_string(blockN);
  return "";
}
