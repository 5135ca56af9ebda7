//===- Passes.h - fmha passes not tied to the fmha dialect ----*- C++ -*-===//
#ifndef FMHA_TRANSFORMS_PASSES_H
#define FMHA_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace fmha {

#define GEN_PASS_DECL
#include "fmha/Transforms/Passes.h.inc"

/// Rewrites arith.extf from and arith.truncf to f8E4M3FN, f8E4M3FNUZ, f8E5M2
/// and f8E5M2FNUZ (scalars and vectors) into integer arith ops, with the
/// semantics documented on fmha-expand-fp8-arith. `saturateInf` also maps
/// +-inf to +-max for f8E5M2 (the other three formats have no inf and always
/// saturate it).
void populateExpandFp8ArithPatterns(RewritePatternSet &patterns,
                                    bool saturateInf = false);

#define GEN_PASS_REGISTRATION
#include "fmha/Transforms/Passes.h.inc"

} // namespace fmha
} // namespace mlir

#endif // FMHA_TRANSFORMS_PASSES_H
