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

class ConfigAttr;

/// Parts 2-5: rewrites the body of an outlined kernel from whole-tile vectors
/// to one lane's code (MMA atoms, LDS staging, row reductions across lanes,
/// fp8 P packed from the score accumulators) and gives it the flat ABI: one
/// `!llvm.ptr<1>` per memref argument followed by one i64 per dynamic size of
/// it. Emits an error naming the op and returns failure on anything the GPU
/// lowering does not take.
LogicalResult lowerKernelTiles(gpu::GPUFuncOp kernel, const TargetInfo &ti,
                               ConfigAttr cfg);

/// Rewrites the operands of a launch of a kernel whose memrefs were flattened
/// by lowerKernelTiles: each memref becomes its aligned pointer and its
/// dynamic sizes.
void flattenLaunchOperands(RewriterBase &rewriter, gpu::LaunchFuncOp launch);

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_FMHATOGPU_FMHATOGPU_H
