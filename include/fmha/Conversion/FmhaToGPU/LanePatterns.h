//===- LanePatterns.h - the lane lowering's pattern families ----*- C++ -*-===//
//
// convert-fmha-to-gpu is a 1:N dialect conversion of an outlined kernel's
// tile ops and vector ops to one lane's code, with upstream's structural scf
// conversion carrying the loop state. The patterns come in four families,
// one file each; a vendor adds or overrides a pattern at a higher benefit
// (PatternBenefit) instead of growing a hook in the shared lowering.
//
//   LaneForms forms;            // LaneForms.h: the form of every value
//   LaneTypeConverter tc(ctx, forms);
//   LaneContext lc(kernel, ti, cfg, layout, forms);
//   RewritePatternSet patterns(ctx);
//   populateLaneMemoryPatterns(tc, patterns, ti, lc);
//   populateLaneMmaPatterns(tc, patterns, ti, lc);
//   populateLaneElementwisePatterns(tc, patterns, ti, lc);
//   populateLaneQuantizePatterns(tc, patterns, ti, lc);
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_CONVERSION_FMHATOGPU_LANEPATTERNS_H
#define FMHA_CONVERSION_FMHATOGPU_LANEPATTERNS_H

#include "fmha/Conversion/FmhaToGPU/LaneContext.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace fmha {

/// A unit attribute a pattern puts on an arith.divf that must stay IEEE
/// (correctly rounded); convert-fmha-to-gpu removes it after the patterns,
/// where every other f32 division takes the chip's fast reciprocal
/// (TargetInfo::fastReciprocal).
inline constexpr llvm::StringLiteral kIeeeDivisionAttr = "fmha.ieee_division";

/// The base of every lane pattern: an OpConversionPattern that reads the
/// kernel's LaneContext.
template <typename Op>
struct LanePattern : public OpConversionPattern<Op> {
  LanePattern(const TypeConverter &tc, MLIRContext *ctx, const LaneContext &lc,
              PatternBenefit benefit = 1)
      : OpConversionPattern<Op>(tc, ctx, benefit), lc(lc) {}
  const LaneContext &lc;
};

/// MemoryPatterns.cpp: fmha.load_rows (Q into MMA operand registers),
/// fmha.store_rows (O, lse), fmha.page_ids, fmha.gather_descale,
/// fmha.gather_kv (K / V staged in LDS).
void populateLaneMemoryPatterns(const TypeConverter &tc,
                                RewritePatternSet &patterns,
                                const TargetInfo &ti, const LaneContext &lc,
                                PatternBenefit benefit = 1);

/// MmaPatterns.cpp: fmha.tile_mma (S = Q K^T, O += P V with the config's
/// V-descale route) and the fp8 cast of P.
void populateLaneMmaPatterns(const TypeConverter &tc, RewritePatternSet &patterns,
                             const TargetInfo &ti, const LaneContext &lc,
                             PatternBenefit benefit = 1);

/// ElementwisePatterns.cpp: splat constants and broadcasts, arith
/// elementwise ops (with symbolic column indices and masks as bounds), row
/// reductions across lanes, exp2 / log, vector.step and shape_cast.
void populateLaneElementwisePatterns(const TypeConverter &tc,
                                     RewritePatternSet &patterns,
                                     const TargetInfo &ti, const LaneContext &lc,
                                     PatternBenefit benefit = 1);

/// QuantizePatterns.cpp: fmha.quantize_tile of a 16-bit Q in operand
/// registers (the workgroup's amax through LDS, fp8 packs).
void populateLaneQuantizePatterns(const TypeConverter &tc,
                                  RewritePatternSet &patterns,
                                  const TargetInfo &ti, const LaneContext &lc,
                                  PatternBenefit benefit = 1);

/// WarpRolePatterns.cpp: fmha.warp_roles (a branch on the warpgroup with
/// each role's register count) and the stage handoff ops as mbarrier waits
/// and arrivals.
void populateLaneWarpRolePatterns(const TypeConverter &tc,
                                  RewritePatternSet &patterns,
                                  const TargetInfo &ti, const LaneContext &lc,
                                  PatternBenefit benefit = 1);

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_FMHATOGPU_LANEPATTERNS_H
