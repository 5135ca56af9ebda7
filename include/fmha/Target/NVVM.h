//===- NVVM.h - PTX for NVIDIA Hopper (sm_90) -------------------*- C++ -*-===//
//
// The back half of the NVIDIA path: the gpu.module lowering to NVVM and
// gpu-module-to-binary with format=isa, which gives PTX through LLVM's NVPTX
// back end (no CUDA toolkit needed; a cubin needs ptxas, which the H200
// device machine has).
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_TARGET_NVVM_H
#define FMHA_TARGET_NVVM_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;

namespace fmha {

/// Dialects, to-LLVM interfaces, the #nvvm.target serializer and the LLVM IR
/// translations a lowered NVIDIA gpu.module needs: those of
/// registerGPUTargetDependencies (fmha/Target/GPUTarget.h) plus NVVM's.
/// The serialize step is buildGPUSerializePassPipeline (format isa: PTX).
void registerNVVMTargetDependencies(DialectRegistry &registry);

/// gpu.module(canonicalize, cse, expand-strided-metadata, lower-affine,
/// convert-scf-to-cf, convert-gpu-to-nvvm, convert-nvvm-to-llvm,
/// canonicalize, cse), reconcile-unrealized-casts.
void buildNVVMToLLVMPassPipeline(OpPassManager &pm);

} // namespace fmha
} // namespace mlir

#endif // FMHA_TARGET_NVVM_H
