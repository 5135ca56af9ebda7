//===- FmhaOps.h - fmha attributes and operations ---------------*- C++ -*-===//
#ifndef FMHA_DIALECT_FMHA_IR_FMHAOPS_H
#define FMHA_DIALECT_FMHA_IR_FMHAOPS_H

#include "fmha/Dialect/Fmha/IR/FmhaDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fmha/Dialect/Fmha/IR/FmhaEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fmha/Dialect/Fmha/IR/FmhaAttributes.h.inc"

#define GET_OP_CLASSES
#include "fmha/Dialect/Fmha/IR/FmhaOps.h.inc"

#endif // FMHA_DIALECT_FMHA_IR_FMHAOPS_H
