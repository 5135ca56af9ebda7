//===- Emulate.h - Step-by-step emulation of the kernel algorithm -*- C++ -*-===//
//
// Follows SPEC section 4 in f32 with the stored (quantized) values, so kernel
// outputs can be checked to within 2e-3 relative Frobenius error instead of the
// oracle's looser bar. Per query row and KV tile of block_n keys:
//
//   sigma = f32(sm_scale) * f32(log2 e) * qd                    (at entry)
//   s_j   = sum_d Q[d] * K_j[d]            f32, sequential over d (or as
//           Hopper's FP8 wgmma sums, wgmma_fp8_promote below)
//   s_j  *= kd_j                           kd of key j's physical page
//   soft cap c > 0: x_j = log2e * c * tanh(s_j * (sm_scale * qd) / c) and the
//     kernel's scale becomes 1 (the cap needs the real logit, so sigma cannot
//     be folded past it); without cap x_j = s_j with scale sigma
//   m_new = max(m_old, max over visible x_j); offset uses 0 if m_new = -inf
//   p_j   = exp2(fma(scale, x_j, -(scale * m_new - SHIFT)))   visible j
//   alpha = exp2(scale * (m_old - m_new))          (0 while m_old = -inf)
//   l     = alpha * l + sum_j p_j                  f32 p, before the cast
//   P_j   = cast(p_j) to the P type, RNE, saturating
//   o     = alpha * o + sum over runs of one page r: vd_r * (sum_j P_j V_j)
//           (one run per tile when the tile lies in one page)
//   O = o / l (0 when l == 0), then cast to the out type (RNE)
//   lse = ln2 * (scale * m - SHIFT + log2(l)), -inf when l == 0.
//
// Tiles with no visible key of a row are skipped: a kernel that runs them
// computes alpha = 1 and p = 0, the same numbers. block_m does not change the
// math (rows are independent) unless Q is quantized per tile (q_per_tile).
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_REFERENCE_EMULATE_H
#define FMHA_REFERENCE_EMULATE_H

#include "fmha/Reference/Problem.h"

#include <optional>
#include <vector>

namespace fmha::ref {

struct EmulateOptions {
  int64_t block_m = 64; ///< BlockM, >= 1 (no effect on the numbers)
  int64_t block_n = 64; ///< BlockN, >= 1: KV tile width of the online softmax
  /// P element type; default defaultPType(req). F32 means no cast.
  std::optional<DType> p_dtype;
  /// exp2 shift; default defaultExp2Shift(P type). 0 with an fp8 P type gives
  /// the "unshifted P cast" variant.
  std::optional<int> shift;
  /// Page-table form to read; default in.req.table.
  std::optional<TableForm> form;
  /// The kernel's V-descale route is scaled_p (its #fmha.config vd_route,
  /// manifest config.pv_vd_route; taken as given): fold the V descale into P
  /// before the cast, P_j = cast(p_j * (vd_j * (1 / r))) with r the largest
  /// vd of the tile's keys, and o += r * (sum_j P_j V_j). Off (scalar,
  /// page_groups): vd_r per page run after the cast, as above.
  bool vd_scaled_p = false;
  /// The kernel's config q_scale is per_tile (manifest config.q_scale): a
  /// 16-bit Q is quantized to the cache's fp8 type per tile of block_m rows
  /// of one (sequence, query head), as fmha.quantize_tile does: amax =
  /// max(max |q| over the tile, 2^-100), q8 = fp8(q * (M / amax)) (RNE,
  /// saturating), and the tile's sigma (and soft-cap scale) times amax / M.
  bool q_per_tile = false;
  /// The kernel's MMA is Hopper's FP8 wgmma (sm_90a; manifest
  /// config.wgmma_fp8_promote): > 0 sums S = Q K^T and every P V chain as
  /// that MMA does (fmha/Reference/MmaSum.h), in k steps of 32, pieces of
  /// this many steps (P V: wgmma_fp8_promote_pv) from zero added in f32; a
  /// P V chain runs over all
  /// keys of its span, masked keys as P = 0: the tile, or its page with
  /// vd_page_groups. 0: products summed exactly (f32, as above).
  int64_t wgmma_fp8_promote = 0;
  /// The pieces of a P V chain under wgmma_fp8_promote (manifest
  /// config.wgmma_fp8_promote_pv); 0: as S's.
  int64_t wgmma_fp8_promote_pv = 0;
  /// The kernel's V-descale route is page_groups (manifest
  /// config.pv_vd_route): its P V chains are one a page. Only read with
  /// wgmma_fp8_promote (exact sums do not depend on it).
  bool vd_page_groups = false;
  /// The V-descale route of docs/FOLDS.md "vd in the exp2 argument"
  /// (proposed; no kernel takes it yet): each key's log2(vd) joins its exp2
  /// argument, y = sigma s + log2(vd), with one running row max M of y;
  /// P = cast(exp2(fma(sigma, s, log2(vd) - (M - SHIFT)))), o = alpha o +
  /// sum P V (no vd after the product), l = alpha l + sum exp2(..) / vd (in
  /// f32, before the cast), out = o / l, lse = ln 2 ((M - SHIFT) + log2 l).
  /// Not with vd_scaled_p or wgmma_fp8_promote.
  bool vd_exp2_bias = false;
  /// Worker threads over (sequence, kv head) items; <= 0: one per hardware
  /// thread. The result does not depend on it.
  int threads = 0;
};

/// The P type a kernel for this request uses: q_dtype (fp8 Q with fp8 K/V:
/// fp8 P of Q's flavour; 16-bit Q, whether K/V are 16-bit or fp8 dequantized
/// once in shared memory: a 16-bit P).
DType defaultPType(const Request &req);

struct EmulateResult {
  DType p_dtype = DType::F32;
  int shift = 0;
  std::vector<float> out_f32; ///< [total_q, Hq, Dv]: O before the out cast
  std::vector<uint8_t> out;   ///< [total_q, Hq, Dv] in req.out_dtype
  std::vector<float> lse;     ///< [total_q, Hq], natural log
};

/// Throws std::invalid_argument for bad options or an invalid page table.
EmulateResult runEmulation(const Inputs &in, const EmulateOptions &opt = {});

} // namespace fmha::ref

#endif // FMHA_REFERENCE_EMULATE_H
