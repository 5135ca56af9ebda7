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
/// Marker fmha-peel-masked-tiles puts on the KV loop of the full tiles (no
/// mask: every key of every tile before seq_len and visible to every row).
inline constexpr const char *kFullTilesAttr = "fmha.full_tiles";
/// ... and on the KV loops it leaves masked (the tiles before and after).
inline constexpr const char *kMaskedTilesAttr = "fmha.masked_tiles";
/// On a KV loop fmha-pipeline-kv-stages rewrote (its K/V from rings).
inline constexpr const char *kPipelinedAttr = "fmha.pipelined";
/// On a full-tile loop fmha-unroll-kv-loop unrolled: the tiles one
/// iteration runs (its body is that many copies of one tile's).
inline constexpr const char *kUnrolledAttr = "fmha.unrolled";
/// On an fmha.tile_mma whose k_scale fmha-fold-vd-rescale divided by the
/// tile's first key's vd: the scale is 1 on every key of the tile's first
/// page, so a lowering may accumulate that page's products into acc without
/// a multiply (the page_groups route's first group).
inline constexpr const char *kUnitFirstPageAttr = "fmha.unit_first_page";
/// The #fmha.config fmha-tile leaves on the grid (scf.forall) it writes.
inline constexpr const char *kGridConfigAttr = "fmha.config";
/// On a kernel whose grid fmha-warp-specialize split: the query heads one
/// workgroup takes (grid y = query heads / it).
inline constexpr const char *kHeadsPerWorkgroupAttr = "fmha.heads_per_workgroup";
enum KVLoopIterArg : unsigned { kKVLoopM = 0, kKVLoopL = 1, kKVLoopO = 2 };

/// fmha-select-config's vd-route option: "" or "auto" give Unset (the pass
/// chooses), a route's name that route, anything else nothing.
std::optional<VdRoute> parseVdRouteOption(StringRef name);

/// The config fmha-select-config picks for `op` on `chip`, or a diagnostic on
/// `op` when the chip is unknown or nothing fits. `route` other than Unset is
/// stated instead of chosen (the k step follows it: gfx950's K=16 MFMA only
/// for page_groups) and checked by verifyConfig. `warps` other than 0 states
/// the workgroup's waves (block_m = the chip's rows a wave times warps).
/// `blockN` other than 0 states block_n instead of the chip's table.
FailureOr<ConfigAttr> selectConfig(BatchPrefillOp op, StringRef chip,
                                   VdRoute route = VdRoute::Unset,
                                   int64_t warps = 0, int64_t blockN = 0);

/// The f32 accumulator values of S and O one lane holds: block_m (block_n +
/// dv) over `threads` lanes, rounded up (AMDGPU's waves-per-SIMD rules:
/// fmha-outline-kernel's waves_per_eu and verifyConfig's wave count).
inline int64_t accumulatorsPerLane(ConfigAttr cfg, int64_t dv, int64_t threads) {
  return (cfg.getBlockM() * (cfg.getBlockN() + dv) + threads - 1) / threads;
}

/// Checks that `config` fits `op` (the rules of fmha-select-config),
/// including the decisions it states (verifyDecisions).
LogicalResult verifyConfig(BatchPrefillOp op, ConfigAttr config);

/// Checks the decisions `config` states (page_regime, vd_route, pv_group)
/// against `op`; unset ones pass.
LogicalResult verifyDecisions(BatchPrefillOp op, ConfigAttr config);

/// `config` with every unset decision taken (docs/REGIMES.md section 2):
/// - page_regime from the page size P and block_n: one_page when
///   P % block_n == 0, whole_pages when block_n % P == 0, else unaligned;
/// - vd_route: scalar unless kv_blockscale with a regime other than one_page;
///   then, on the host, per_key; on a GPU, page_groups when the tile is whole
///   pages and P % k_step == 0, else scaled_p;
/// - pv_group: min(block_n, P) / k_step for page_groups, else 0.
/// Stated decisions are kept (verifyDecisions checks them).
ConfigAttr completeConfig(BatchPrefillOp op, ConfigAttr config);

} // namespace fmha
} // namespace mlir

#endif // FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_H
