//===- OutlineKernel.h - the grid outlined as a kernel ----------*- C++ -*-===//
#ifndef FMHA_CONVERSION_OUTLINEKERNEL_OUTLINEKERNEL_H
#define FMHA_CONVERSION_OUTLINEKERNEL_OUTLINEKERNEL_H

#include "fmha/Conversion/OutlineKernel/KernelAbi.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace fmha {

/// Name of the gpu.module the kernels are outlined into.
inline constexpr const char *kKernelModuleName = "fmha_kernels";

/// fmha.stage_kv's attribute when fmha-outline-kernel `tma` plans its copies
/// as TMA boxes: a dictionary of `arg` (the kernel argument holding its
/// cache's tensor map), `operand` (the cache's function argument),
/// `box_rows` and `box_cols` (elements: a box is box_rows rows of one
/// column group). convert-fmha-to-gpu lowers the op by it.
inline constexpr const char *kTmaAttr = "fmha.tma";

/// Outlines one grid that fmha-tile wrote (`scf.forall` with fmha.config) as
/// a `gpu.func` kernel of `threads` threads in `kernels` (named `kernelName`,
/// made unique there), and replaces the grid with a `gpu.launch_func`.
/// Captured constants are cloned into the kernel; every other captured value
/// becomes a kernel argument: the enclosing function's arguments first, in
/// their order, then values computed in the function. The kernel has the
/// flat ABI: each memref is one `!llvm.ptr<1>` and one i64 per dynamic size
/// (then, for a strided layout, per dynamic offset and stride), rebuilt into
/// a memref at the top of the entry block (fp8 elements as i8, address space
/// 1); the launch passes the same flat values. The kernel's `fmha.abi`
/// records where each argument comes from (KernelAbi.h). Emits an error on
/// the grid and returns failure, leaving the IR as it was, when the grid is
/// not a 3-d `scf.forall` without outputs or captures a memref that is not
/// strided.
FailureOr<gpu::GPUFuncOp> outlineGrid(RewriterBase &rewriter,
                                      scf::ForallOp grid,
                                      gpu::GPUModuleOp kernels,
                                      StringRef kernelName, int64_t threads);

/// Rewrites the operands of `launch` to the flat ABI: each memref becomes its
/// aligned pointer (`!llvm.ptr<1>`), its dynamic sizes and (strided layouts)
/// its dynamic offset and strides, as i64.
void flattenLaunchOperands(RewriterBase &rewriter, gpu::LaunchFuncOp launch);

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_OUTLINEKERNEL_OUTLINEKERNEL_H
