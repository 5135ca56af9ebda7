//===- FmhaToGPU.h - the shared GPU lowering of the tiled form --*- C++ -*-===//
#ifndef FMHA_CONVERSION_FMHATOGPU_FMHATOGPU_H
#define FMHA_CONVERSION_FMHATOGPU_FMHATOGPU_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace fmha {
class TargetInfo;
class ConfigAttr;

/// Every check of the lane lowering on `kernel` (its layout, the form of
/// every value: LaneForms), with no rewrite: convert-fmha-to-gpu runs it on
/// every kernel before it rewrites any.
LogicalResult verifyKernelTiles(gpu::GPUFuncOp kernel, const TargetInfo &ti,
                                ConfigAttr cfg, bool ldsBankSwizzle = false);

/// The lane lowering (convert-fmha-to-gpu): rewrites the body of a kernel
/// fmha-outline-kernel wrote (flat ABI, memrefs rebuilt at the top of the
/// entry block) from whole-tile vectors to one lane's code (MMA atoms, LDS
/// staging, row reductions across lanes, fp8 P packed from the score
/// accumulators). The kernel's arguments stay as they are. Emits an error
/// naming the op and returns failure on anything the GPU lowering does not
/// take. ldsBankSwizzle: AMDGPU K and V tiles the lanes stage in the
/// bank-swizzled layout (ValueForm::bankSwizzle).
LogicalResult lowerKernelTiles(gpu::GPUFuncOp kernel, const TargetInfo &ti,
                               ConfigAttr cfg, bool ldsBankSwizzle = false);

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_FMHATOGPU_FMHATOGPU_H
