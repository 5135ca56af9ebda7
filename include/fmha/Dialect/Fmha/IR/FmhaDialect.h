//===- FmhaDialect.h - The fmha dialect -------------------------*- C++ -*-===//
#ifndef FMHA_DIALECT_FMHA_IR_FMHADIALECT_H
#define FMHA_DIALECT_FMHA_IR_FMHADIALECT_H

#include "mlir/IR/Dialect.h"

#include "fmha/Dialect/Fmha/IR/FmhaOpsDialect.h.inc"

namespace mlir {
namespace fmha {
/// Argument attribute (a string) naming the fmha.batch_prefill operand a
/// function argument holds ("q", "k_cache", ...). buildRequestModule puts it
/// on the request function's arguments; fmha-outline-kernel copies it into
/// the kernel's fmha.abi record (KernelAbi.h).
inline constexpr const char *kOperandNameAttr = "fmha.operand_name";
} // namespace fmha
} // namespace mlir

#endif // FMHA_DIALECT_FMHA_IR_FMHADIALECT_H
