//===- GPUTarget.h - what the AMDGPU and NVVM back ends share ---*- C++ -*-===//
//
// The vendor-neutral part of the GPU back end: the upstream dialects the
// shared conversion emits with their to-LLVM interfaces and LLVM IR
// translations, and the serialize step (fmha-gpu-module-to-binary), which turns a
// lowered gpu.module into a gpu.binary through the target attribute on it
// (#rocdl.target: HSACO / AMDGCN assembly; #nvvm.target: PTX). The per-vendor
// parts are fmha/Target/AMDGPU.h and fmha/Target/NVVM.h.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_TARGET_GPUTARGET_H
#define FMHA_TARGET_GPUTARGET_H

#include "fmha/Target/ModuleToBinary.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;

namespace fmha {

/// The dialects both back halves create or rewrite (gpu, arith, cf, func,
/// index, llvm, math, memref, scf, ub, vector), their ConvertToLLVM
/// interfaces (convert-gpu-to-rocdl / -nvvm lower every loaded dialect
/// through them) and the builtin/gpu/llvm translations to LLVM IR.
void registerGPUTargetDependencies(DialectRegistry &registry);

/// Appends `fmha-gpu-module-to-binary{format=FORMAT toolkit=TOOLKIT
/// link-timeout=SECONDS}` (fmha/Target/ModuleToBinary.h: upstream's
/// serializers, LLVM's errors as diagnostics, a time limit on ld.lld).
/// `format`: "bin" (AMDGPU: HSACO, linked with TOOLKIT/llvm/bin/ld.lld; NVVM:
/// PTX, a cubin needs ptxas), "isa" (AMDGCN assembly / PTX), "llvm" (bitcode).
void buildGPUSerializePassPipeline(OpPassManager &pm, StringRef format,
                                   StringRef toolkit,
                                   unsigned linkSeconds = kDefaultLinkSeconds);

} // namespace fmha
} // namespace mlir

#endif // FMHA_TARGET_GPUTARGET_H
