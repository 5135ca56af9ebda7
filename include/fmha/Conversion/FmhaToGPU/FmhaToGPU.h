//===- FmhaToGPU.h - the shared GPU lowering of the tiled form --*- C++ -*-===//
#ifndef FMHA_CONVERSION_FMHATOGPU_FMHATOGPU_H
#define FMHA_CONVERSION_FMHATOGPU_FMHATOGPU_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace fmha {
class TargetInfo;

/// Name of the gpu.module the kernels are outlined into.
inline constexpr const char *kKernelModuleName = "fmha_kernels";

/// Outlines one grid that fmha-tile wrote (`scf.forall` with fmha.config) as
/// a `gpu.func` kernel of `threads` threads in `kernels`, and replaces the
/// grid with a `gpu.launch_func`. Captured constants are cloned into the
/// kernel; every other captured value becomes a kernel argument.
FailureOr<gpu::GPUFuncOp> outlineGrid(RewriterBase &rewriter,
                                      scf::ForallOp grid,
                                      gpu::GPUModuleOp kernels,
                                      StringRef kernelName, int64_t threads);

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_FMHATOGPU_FMHATOGPU_H
