//===- Pipelines.cpp - staged pipeline builders -----------------------------===//
#include "fmha/Pipelines/Pipelines.h"

#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"
#include "fmha/Target/AMDGPU.h"
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

using namespace mlir;

void fmha::buildFmhaTilingPipeline(OpPassManager &pm, StringRef chip,
                                   bool folds, bool perTokenPrefetch) {
  FmhaSelectConfigOptions select;
  select.chip = chip.str();
  pm.addPass(createFmhaSelectConfig(select));
  pm.addPass(createFmhaTile());
  if (folds) {
    pm.addPass(createFmhaFoldDescales());
    pm.addPass(createFmhaFoldExp2Shift());
    pm.addPass(createFmhaFoldVdRescale());
  }
  FmhaPrefetchPageIdsOptions prefetch;
  prefetch.perToken = perTokenPrefetch;
  pm.addPass(createFmhaPrefetchPageIds(prefetch));
}

void fmha::buildFmhaToROCDLPipeline(OpPassManager &pm,
                                    const GPUPipelineOptions &options) {
  buildFmhaToLaneKernelPipeline(pm, options.chip, options.folds);
  AMDGPUTargetOptions target;
  target.chip = options.chip;
  buildAMDGPUToROCDLPassPipeline(pm, target);
  if (options.format != "none")
    buildAMDGPUSerializePassPipeline(
        pm, options.format,
        options.toolkit.empty() ? StringRef(FMHA_DEFAULT_ROCM_TOOLKIT)
                                : StringRef(options.toolkit));
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
  buildFmhaTilingPipeline(pm, options.chip, options.folds);
  pm.addPass(createConvertFmhaToHost());
  pm.addPass(createForallToForLoopPass());
  pm.addPass(createCanonicalizerPass());
  addHostLowering(pm);
}

void fmha::buildFmhaToLaneKernelPipeline(OpPassManager &pm, StringRef chip,
                                         bool folds) {
  buildFmhaTilingPipeline(pm, chip, folds, /*perTokenPrefetch=*/false);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OutlineKernelOptions outline;
  outline.chip = chip.str();
  pm.addPass(createOutlineKernel(outline));
  ConvertFmhaToGPUOptions gpu;
  gpu.chip = chip.str();
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
  buildFmhaToLaneKernelPipeline(pm, options.chip, options.folds);
  buildLanesToLLVMPipeline(pm);
}

void fmha::buildFmhaToNVVMPipeline(OpPassManager &pm,
                                   const GPUPipelineOptions &options) {
  buildFmhaToLaneKernelPipeline(pm, options.chip, options.folds);
  buildNVVMToLLVMPassPipeline(pm);
  if (options.format != "none")
    buildAMDGPUSerializePassPipeline(
        pm, options.format == "bin" ? "isa" : StringRef(options.format), "");
}

void fmha::registerFmhaPipelines() {
  PassPipelineRegistration<HostPipelineOptions>(
      "fmha-to-host-pipeline",
      "fmha.batch_prefill to LLVM for the CPU: select-config, tile, "
      "convert-fmha-to-host, fp8 expansion and the upstream LLVM lowering",
      buildFmhaToHostPipeline);
  PassPipelineRegistration<GPUPipelineOptions>(
      "fmha-to-rocdl-pipeline",
      "fmha.batch_prefill to an AMDGPU code object: the tiling stages, "
      "convert-fmha-to-gpu, the ROCDL lowering and gpu-module-to-binary",
      buildFmhaToROCDLPipeline);
  PassPipelineRegistration<GPUPipelineOptions>(
      "fmha-to-lanes-pipeline",
      "fmha.batch_prefill for a GPU chip, compiled to run on the CPU one lane "
      "at a time (the lane emulator): the GPU front half for the chip, "
      "fmha-lanes-to-host and the host lowering to LLVM",
      buildFmhaToLanesPipeline);
  PassPipelineRegistration<GPUPipelineOptions>(
      "fmha-to-nvvm-pipeline",
      "fmha.batch_prefill to PTX for sm_90: the tiling stages, "
      "convert-fmha-to-gpu, the NVVM lowering and gpu-module-to-binary "
      "(format isa = PTX)",
      buildFmhaToNVVMPipeline);
}
