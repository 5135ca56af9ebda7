//===- Emulate.cpp - Step-by-step emulation of the kernel algorithm -------===//

#include "fmha/Reference/Emulate.h"
#include "fmha/Reference/FloatCodec.h"
#include "fmha/Reference/MmaSum.h"
#include "fmha/Reference/Quantize.h"

#include "Parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fmha::ref {

DType defaultPType(const Request &req) { return req.q_dtype; }

namespace {
constexpr float kLog2eF = 1.44269504088896340736f;
constexpr float kLn2F = 0.693147180559945309417f;

/// A wgmma chain over elements [k0, k1) in steps of 32: pieces of `promote`
/// steps, each from zero, summed in f32 in order (MmaPatterns' wgChain).
template <typename Step>
float wgmmaChain(int64_t k0, int64_t k1, int64_t promote, Step step) {
  float sum = 0.0f;
  for (int64_t p0 = k0; p0 < k1; p0 += 32 * promote) {
    float piece = 0.0f;
    for (int64_t s = p0; s < std::min(k1, p0 + 32 * promote); s += 32)
      piece = step(s, piece);
    sum = p0 == k0 ? piece : sum + piece;
  }
  return sum;
}
} // namespace

EmulateResult runEmulation(const Inputs &in, const EmulateOptions &opt) {
  const Request &req = in.req;
  const TableForm form = opt.form.value_or(req.table);
  if (std::string err = validatePageTable(in.table, form); !err.empty())
    throw std::invalid_argument("emulation: invalid page table: " + err);
  if (opt.block_m < 1 || opt.block_n < 1)
    throw std::invalid_argument("emulation: block_m and block_n must be >= 1");
  EmulateResult r;
  r.p_dtype = opt.p_dtype.value_or(defaultPType(req));
  r.shift = opt.shift.value_or(defaultExp2Shift(r.p_dtype));
  if (r.shift < 0 || r.shift > 126)
    throw std::invalid_argument("emulation: shift must be in [0, 126]");

  const int64_t B = req.batch(), Hq = req.num_qo_heads, Hkv = req.num_kv_heads;
  const int64_t D = req.head_dim, Dv = req.headDimV(), G = req.groupSize();
  const int64_t BN = opt.block_n, BM = opt.block_m, P = req.page_size;
  // Per-key V descales folded into P, as the kernel's scaled-p route does
  // (the route its config states; nothing is derived here).
  const bool scaledP = opt.vd_scaled_p;
  const bool vdBias = opt.vd_exp2_bias;
  if (vdBias && (scaledP || opt.vd_page_groups))
    throw std::invalid_argument(
        "emulation: vd_exp2_bias takes neither vd_scaled_p nor vd_page_groups");
  const int64_t totalQ = in.qo_indptr[B];
  const DType kvT = req.kv_dtype, pT = r.p_dtype;
  const size_t kvSz = dtypeSize(kvT);

  const float qd = in.q_descale;
  const float smScale = static_cast<float>(req.smScale());
  const float sigma = smScale * kLog2eF * qd;
  const bool hasCap = req.soft_cap > 0;
  const float cap = static_cast<float>(req.soft_cap);
  // The kernels multiply by 1 / cap (fmha-tile).
  const float invCap = hasCap ? static_cast<float>(1.0 / req.soft_cap) : 0.0f;
  const float realScale0 = smScale * qd; // s * kd * realScale = real logit
  const bool qPerTile = opt.q_per_tile;
  if (qPerTile && (!isFp8(kvT) || isFp8(req.q_dtype)))
    throw std::invalid_argument(
        "emulation: q_per_tile quantizes a 16-bit Q for an fp8 cache");
  const float shiftF = static_cast<float>(r.shift);
  const float negInf = -std::numeric_limits<float>::infinity();
  // Hopper's FP8 wgmma sums (sm_90a): k steps of 32, pieces of wp steps.
  const int64_t wp = opt.wgmma_fp8_promote;
  const int64_t wpPV = opt.wgmma_fp8_promote_pv > 0 ? opt.wgmma_fp8_promote_pv : wp;
  const DType qT = qPerTile ? qTileType(kvT) : req.q_dtype;
  if (wp < 0 || opt.wgmma_fp8_promote_pv < 0)
    throw std::invalid_argument(
        "emulation: wgmma_fp8_promote and wgmma_fp8_promote_pv must be >= 0");
  if (wp && (!isFp8(kvT) || !isFp8(qT) || !isFp8(r.p_dtype) || D % 32 ||
             Dv % 32 || BN % 32))
    throw std::invalid_argument(
        "emulation: wgmma_fp8_promote models fp8 Q, K, V and P with D, Dv "
        "and block_n multiples of 32");

  // The P cast: RNE, saturating (p <= 2^SHIFT stays below max for the default
  // shifts anyway).
  const bool pIsFp8 = isFp8(pT);
  const Fp8Encoder pEnc(pIsFp8 ? pT : DType::F8E4M3FN, Overflow::Saturate);
  auto castP = [&](float p) {
    if (pIsFp8)
      return decodeFp8(pT, pEnc(p));
    return pT == DType::F32 ? p : roundTo(pT, p, Overflow::Saturate);
  };

  r.out_f32.assign(static_cast<size_t>(totalQ * Hq * Dv), 0.0f);
  r.lse.assign(static_cast<size_t>(totalQ * Hq), negInf);

  detail::parallelFor(B * Hkv, opt.threads, [&](int64_t item) {
    const int64_t b = item / Hkv, g = item % Hkv;
    const int64_t sq = in.seqLenQ(b), sk = in.table.seqLen(form, b);
    const int64_t q0 = in.qo_indptr[b];
    if (sq == 0)
      return;
    // Stored K (transposed [D][Sk]) and V ([Sk][Dv]) of this head, and the
    // page and descales of every key.
    std::vector<float> kt(static_cast<size_t>(D * sk)),
        v(static_cast<size_t>(sk * Dv)), kd(sk), vd(sk), rowF(D), q(D), x(BN),
        pc(BN), o(Dv), u(Dv), qTile, pt(wp ? BN : 0);
    std::vector<int32_t> pageOf(sk);
    // With the wgmma model, K row-major ([Sk][D]) and V transposed
    // ([Dv][Sk]) too, so each step reads its 32 products contiguously.
    std::vector<float> kRows(wp ? static_cast<size_t>(sk * D) : 0),
        vt(wp ? static_cast<size_t>(Dv * sk) : 0);
    for (int64_t j = 0; j < sk; ++j) {
      const int32_t page = in.table.pageOf(form, b, j);
      const int64_t slot = j % P;
      pageOf[j] = page;
      kd[j] = in.kDescale(page, g);
      vd[j] = in.vDescale(page, g);
      decodeBuffer(kvT, &in.k_cache[in.kvIndex(page, slot, g, 0, D) * kvSz],
                   static_cast<size_t>(D), rowF.data());
      for (int64_t d = 0; d < D; ++d)
        kt[d * sk + j] = rowF[d];
      if (wp)
        std::copy(rowF.begin(), rowF.end(), kRows.begin() + j * D);
      decodeBuffer(kvT, &in.v_cache[in.kvIndex(page, slot, g, 0, Dv) * kvSz],
                   static_cast<size_t>(Dv), &v[j * Dv]);
      if (wp)
        for (int64_t d = 0; d < Dv; ++d)
          vt[d * sk + j] = v[j * Dv + d];
    }
    for (int64_t h = g * G; h < (g + 1) * G; ++h) {
      // Query rows in blocks of BlockM; rows are independent.
      for (int64_t mb = 0; mb < sq; mb += BM) {
        // Q quantized per tile (fmha.quantize_tile): the tile's multiplier
        // and descale; the scales below take the descale.
        float qTileDs = 1.0f;
        const int64_t rows = std::min(sq, mb + BM) - mb;
        if (qPerTile) {
          qTile.resize(static_cast<size_t>(rows * D));
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t d = 0; d < D; ++d)
              qTile[i * D + d] = in.qStored(q0 + mb + i, h, d);
          qTileDs = quantizeQTile(qTile.data(), qTile.size(), qTileType(kvT), qTile.data());
        }
        const float sc = hasCap ? 1.0f : sigma * qTileDs;
        const float realScale = realScale0 * qTileDs;
        for (int64_t i = mb; i < std::min(sq, mb + BM); ++i) {
          const int64_t row = q0 + i;
          int64_t lo, hi;
          req.mask.visibleRange(i, sq, sk, lo, hi);
          for (int64_t d = 0; d < D; ++d)
            q[d] = qPerTile ? qTile[(i - mb) * D + d] : in.qStored(row, h, d);
          float m = negInf, l = 0.0f;
          std::fill(o.begin(), o.end(), 0.0f);
          for (int64_t c0 = 0; c0 < sk; c0 += BN) {
            const int64_t c1 = std::min(sk, c0 + BN);
            const int64_t a = std::max(c0, lo), e = std::min(c1 - 1, hi);
            if (a > e)
              continue; // fully masked tile: alpha = 1, p = 0
            const int64_t n = e - a + 1;
            // s = Q K^T (f32), then kd, then the soft cap.
            if (wp) {
              for (int64_t j = 0; j < n; ++j)
                x[j] = wgmmaChain(0, D, wp, [&](int64_t k0, float acc) {
                  return wgmmaFp8Step(acc, &q[k0], qT, &kRows[(a + j) * D + k0], 1,
                                      kvT, 32);
                });
            } else {
              std::fill(x.begin(), x.begin() + n, 0.0f);
              for (int64_t d = 0; d < D; ++d) {
                const float qv = q[d];
                const float *kr = &kt[d * sk + a];
                for (int64_t j = 0; j < n; ++j)
                  x[j] += qv * kr[j];
              }
            }
            float rowMax = negInf;
            for (int64_t j = 0; j < n; ++j) {
              float s = x[j] * kd[a + j];
              if (hasCap)
                s = kLog2eF * (cap * std::tanh((s * realScale) * invCap));
              x[j] = s;
              rowMax = std::max(rowMax, s);
            }
            if (vdBias) {
              // m is the running max of y = sc s + log2(vd) (exp2 units).
              float yMax = negInf;
              for (int64_t j = 0; j < n; ++j)
                yMax = std::max(yMax, std::fma(sc, x[j], std::log2(vd[a + j])));
              const float mNewY = std::max(m, yMax);
              const float offY = mNewY - shiftF;
              const float alphaY = m == negInf ? 0.0f : std::exp2(m - mNewY);
              float sumY = 0.0f;
              for (int64_t d = 0; d < Dv; ++d)
                o[d] *= alphaY;
              for (int64_t j = 0; j < n; ++j) {
                const float p = std::exp2(std::fma(sc, x[j], std::log2(vd[a + j]) - offY));
                sumY += p * (1.0f / vd[a + j]);
                pc[j] = castP(p);
              }
              l = alphaY * l + sumY;
              m = mNewY;
              if (wp) {
                // One P V chain over the tile's BN keys (vd is in P), from
                // zero, added to o (masked keys and keys past the end: 0).
                std::fill(pt.begin(), pt.end(), 0.0f);
                std::copy(pc.begin(), pc.begin() + n, pt.begin() + (a - c0));
                for (int64_t d = 0; d < Dv; ++d)
                  o[d] += wgmmaChain(0, BN, wpPV, [&](int64_t k0, float acc) {
                    const int64_t cnt = std::clamp<int64_t>(sk - (c0 + k0), 0, 32);
                    return wgmmaFp8Step(acc, &pt[k0], r.p_dtype,
                                        cnt ? &vt[d * sk + c0 + k0] : &pt[k0], 1, kvT,
                                        cnt);
                  });
                continue;
              }
              for (int64_t j = 0; j < n; ++j) {
                const float pk = pc[j];
                const float *vr = &v[(a + j) * Dv];
                for (int64_t d = 0; d < Dv; ++d)
                  o[d] += pk * vr[d];
              }
              continue;
            }
            const float mNew = std::max(m, rowMax);
            const float off = sc * mNew - shiftF;
            const float alpha = m == negInf ? 0.0f : std::exp2(sc * (m - mNew));
            float rowSum = 0.0f;
            for (int64_t j = 0; j < n; ++j) {
              const float p = std::exp2(std::fma(sc, x[j], -off));
              rowSum += p;
              pc[j] = castP(p);
              x[j] = p; // kept for the scaled-p route
            }
            l = alpha * l + rowSum;
            for (int64_t d = 0; d < Dv; ++d)
              o[d] *= alpha;
            // The scaled-p route: vd_j / rTile into p before the cast, rTile
            // (the tile's largest vd) scales the sum.
            float rTile = 1.0f;
            if (scaledP) {
              rTile = 0.0f;
              for (int64_t j = c0; j < c1; ++j)
                rTile = std::max(rTile, vd[j]);
              const float rinv = rTile > 0.0f ? 1.0f / rTile : 0.0f;
              for (int64_t k = 0; k < n; ++k)
                pc[k] = castP(x[k] * (vd[a + k] * rinv));
            }
            if (wp) {
              // The kernel's P V chains run over all BN keys of the tile in
              // steps of 32 (masked keys and keys past the end: P = 0; an
              // all-zero step still cuts its accumulator).
              std::fill(pt.begin(), pt.end(), 0.0f);
              std::copy(pc.begin(), pc.begin() + n, pt.begin() + (a - c0));
              // One chain a tile, or one a page (the page_groups route).
              const int64_t span = opt.vd_page_groups ? P : BN;
              if (BN % span || span % 32)
                throw std::invalid_argument(
                    "emulation: wgmma_fp8_promote with vd_page_groups takes "
                    "pages of a multiple of 32 keys that divide block_n");
              for (int64_t g0 = 0; g0 < BN; g0 += span) {
                const int64_t lo = std::max(a, c0 + g0), hi = std::min(e, c0 + g0 + span - 1);
                if (lo > hi)
                  continue; // no visible key: the chain is 0
                for (int64_t d = 0; d < Dv; ++d)
                  u[d] = wgmmaChain(g0, g0 + span, wpPV, [&](int64_t k0, float acc) {
                    const int64_t cnt = std::clamp<int64_t>(sk - (c0 + k0), 0, 32);
                    return wgmmaFp8Step(acc, &pt[k0], r.p_dtype,
                                        cnt ? &vt[d * sk + c0 + k0] : &pt[k0], 1,
                                        kvT, cnt);
                  });
                const float sv = scaledP ? rTile : vd[lo];
                for (int64_t d = 0; d < Dv; ++d)
                  o[d] = std::fma(u[d], sv, o[d]);
              }
              m = mNew;
              continue;
            }
            if (scaledP) {
              std::fill(u.begin(), u.end(), 0.0f);
              for (int64_t k = 0; k < n; ++k) {
                const float pk = pc[k];
                const float *vr = &v[(a + k) * Dv];
                for (int64_t d = 0; d < Dv; ++d)
                  u[d] += pk * vr[d];
              }
              for (int64_t d = 0; d < Dv; ++d)
                o[d] = std::fma(u[d], rTile, o[d]);
              m = mNew;
              continue;
            }
            // u = P V per run of keys in one physical page; o += vd * u.
            for (int64_t j = 0; j < n;) {
              const int32_t page = pageOf[a + j];
              std::fill(u.begin(), u.end(), 0.0f);
              int64_t k = j;
              for (; k < n && pageOf[a + k] == page; ++k) {
                const float pk = pc[k];
                const float *vr = &v[(a + k) * Dv];
                for (int64_t d = 0; d < Dv; ++d)
                  u[d] += pk * vr[d];
              }
              const float vdr = vd[a + j];
              for (int64_t d = 0; d < Dv; ++d)
                o[d] += vdr * u[d];
              j = k;
            }
            m = mNew;
          }
          float *dst = &r.out_f32[static_cast<size_t>((row * Hq + h) * Dv)];
          if (l > 0.0f) {
            for (int64_t d = 0; d < Dv; ++d)
              dst[d] = o[d] / l;
            r.lse[static_cast<size_t>(row * Hq + h)] =
                kLn2F * ((vdBias ? m : sc * m) - shiftF + std::log2(l));
          }
        }
      }
    }
  });
  r.out.assign(r.out_f32.size() * dtypeSize(req.out_dtype), 0);
  encodeBuffer(req.out_dtype, r.out_f32.data(), r.out_f32.size(), r.out.data(),
               Overflow::NonSaturate);
  return r;
}

} // namespace fmha::ref
