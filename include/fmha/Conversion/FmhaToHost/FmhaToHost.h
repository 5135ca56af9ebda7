//===- FmhaToHost.h - tile ops to CPU loops ---------------------*- C++ -*-===//
#ifndef FMHA_CONVERSION_FMHATOHOST_FMHATOHOST_H
#define FMHA_CONVERSION_FMHATOHOST_FMHATOHOST_H

namespace mlir {
class RewritePatternSet;
namespace fmha {

/// The rewrites of convert-fmha-to-host, for reuse in other pipelines.
void populateFmhaToHostPatterns(RewritePatternSet &patterns);

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_FMHATOHOST_FMHATOHOST_H
