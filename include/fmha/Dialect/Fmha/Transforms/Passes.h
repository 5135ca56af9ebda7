//===- Passes.h - fmha dialect passes ---------------------------*- C++ -*-===//
#ifndef FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_H
#define FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_H

#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace fmha {

#define GEN_PASS_DECL
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"

/// Marker of the KV-tile loop that fmha-tile writes. Its first three
/// iter_args are the running row max m, row sum l and accumulator o; passes
/// that carry more state (the page-id prefetch) append after them.
inline constexpr const char *kKVLoopAttr = "fmha.kv_loop";
/// The #fmha.config fmha-tile leaves on the grid (scf.forall) it writes.
inline constexpr const char *kGridConfigAttr = "fmha.config";
enum KVLoopIterArg : unsigned { kKVLoopM = 0, kKVLoopL = 1, kKVLoopO = 2 };

/// The config fmha-select-config picks for `op` on `chip`, or a diagnostic on
/// `op` when the chip is unknown or nothing fits.
FailureOr<ConfigAttr> selectConfig(BatchPrefillOp op, StringRef chip);

/// Checks that `config` fits `op` (the rules of fmha-select-config).
LogicalResult verifyConfig(BatchPrefillOp op, ConfigAttr config);

} // namespace fmha
} // namespace mlir

#endif // FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_H
