//===- Passes.h - fmha conversion passes ------------------------*- C++ -*-===//
#ifndef FMHA_CONVERSION_PASSES_H
#define FMHA_CONVERSION_PASSES_H

#include "fmha/Conversion/FmhaToGPU/FmhaToGPU.h"
#include "fmha/Conversion/FmhaToHost/FmhaToHost.h"
#include "fmha/Conversion/LanesToHost/LanesToHost.h"
#include "fmha/Conversion/OutlineKernel/OutlineKernel.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace fmha {

#define GEN_PASS_DECL
#include "fmha/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fmha/Conversion/Passes.h.inc"

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_PASSES_H
