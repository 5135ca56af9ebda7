//===- NVVM.cpp - PTX for NVIDIA Hopper (sm_90) ---------------------------===//
#include "fmha/Target/NVVM.h"
#include "fmha/Target/GPUTarget.h"
#include "fmha/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::fmha::registerNVVMTargetDependencies(DialectRegistry &registry) {
  // The dialects and to-LLVM interfaces both back halves need (the shared
  // conversion emits the same upstream ops), plus NVVM's.
  registerGPUTargetDependencies(registry);
  registry.insert<NVVM::NVVMDialect, nvgpu::NVGPUDialect>();
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerNVVMDialectTranslation(registry);
}

void mlir::fmha::buildNVVMToLLVMPassPipeline(OpPassManager &pm) {
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  gpuPm.addPass(memref::createExpandStridedMetadataPass());
  gpuPm.addPass(createLowerAffinePass());
  gpuPm.addPass(createSCFToControlFlowPass());
  // The staged tiles' cp.async copies (nvgpu.device_async_copy).
  gpuPm.addPass(createConvertNVGPUToNVVMPass());
  gpuPm.addPass(createConvertGpuOpsToNVVMOps());
  gpuPm.addPass(createConvertNVVMToLLVMPass());
  // TMA kernels' tensor maps by value, as __grid_constant__ parameters.
  gpuPm.addPass(fmha::createGridConstantTensorMapsPass());
  // Above 48 KiB (CUDA's static limit; a kernel with K/V stage rings),
  // every workgroup buffer in one dynamic shared memory block (docs/ABI.md,
  // "dynamic_shared_bytes").
  fmha::SharedToDynamicPassOptions dynamic;
  dynamic.minBytes = fmha::kStaticSharedLimit;
  gpuPm.addPass(fmha::createSharedToDynamicPass(dynamic));
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
