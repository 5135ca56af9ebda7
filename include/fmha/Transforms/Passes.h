//===- Passes.h - fmha passes not tied to the fmha dialect ----*- C++ -*-===//
#ifndef FMHA_TRANSFORMS_PASSES_H
#define FMHA_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

#include <cstdint>
#include <utility>
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

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

/// The layout fmha-shared-to-dynamic gives workgroup buffers of (bytes,
/// alignment) in this order: each at the next multiple of its alignment
/// (16 when 0). Returns the offsets and sets `total` (0 for none).
llvm::SmallVector<int64_t>
sharedLayout(llvm::ArrayRef<std::pair<int64_t, int64_t>> sizeAndAlign,
             int64_t &total);

/// The external global fmha-shared-to-dynamic places the buffers in.
inline constexpr const char *kDynamicSharedSymbol = "fmha_dynamic_shared";
/// CUDA's static shared memory per block: the NVVM back half makes a
/// kernel's shared memory dynamic only above it.
inline constexpr int64_t kStaticSharedLimit = 48 * 1024;

#define GEN_PASS_REGISTRATION
#include "fmha/Transforms/Passes.h.inc"

} // namespace fmha
} // namespace mlir

#endif // FMHA_TRANSFORMS_PASSES_H
