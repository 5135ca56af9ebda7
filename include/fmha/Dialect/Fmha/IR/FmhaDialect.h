//===- FmhaDialect.h - The fmha dialect -------------------------*- C++ -*-===//
#ifndef FMHA_DIALECT_FMHA_IR_FMHADIALECT_H
#define FMHA_DIALECT_FMHA_IR_FMHADIALECT_H

#include "mlir/IR/Dialect.h"

#include "fmha/Dialect/Fmha/IR/FmhaOpsDialect.h.inc"

#endif // FMHA_DIALECT_FMHA_IR_FMHADIALECT_H
