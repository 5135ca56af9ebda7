//===- Oracle.cpp - Double-precision reference of SPEC section 3 ----------===//

#include "fmha/Reference/Oracle.h"
#include "fmha/Reference/FloatCodec.h"
#include "fmha/Reference/Quantize.h"

#include "Parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fmha::ref {

OracleResult runOracle(const Inputs &in, TableForm form) {
  OracleOptions opt;
  opt.form = form;
  return runOracle(in, opt);
}

OracleResult runOracle(const Inputs &in, const OracleOptions &opt) {
  const TableForm form = opt.form.value_or(in.req.table);
  if (std::string err = validatePageTable(in.table, form); !err.empty())
    throw std::invalid_argument("oracle: invalid page table: " + err);
  const Request &req = in.req;
  const int64_t B = req.batch(), Hq = req.num_qo_heads, Hkv = req.num_kv_heads;
  const int64_t D = req.head_dim, Dv = req.headDimV(), G = req.groupSize();
  const double scale = req.smScale(), cap = req.soft_cap;
  const int64_t totalQ = in.qo_indptr[B];
  const double qd = in.q_descale;
  const DType kvT = req.kv_dtype;
  const size_t kvSz = dtypeSize(kvT);
  const int64_t qRows = opt.q_tile_rows;
  if (qRows > 0 && (!isFp8(kvT) || isFp8(req.q_dtype)))
    throw std::invalid_argument(
        "oracle: q_tile_rows quantizes a 16-bit Q for an fp8 cache");

  OracleResult r;
  r.out.assign(static_cast<size_t>(totalQ * Hq * Dv), 0.0);
  r.lse.assign(static_cast<size_t>(totalQ * Hq),
               -std::numeric_limits<double>::infinity());

  // One item per (sequence, kv head): it owns the output rows of the heads
  // of that group.
  detail::parallelFor(B * Hkv, opt.threads, [&](int64_t item) {
    const int64_t b = item / Hkv, g = item % Hkv;
    const int64_t sq = in.seqLenQ(b), sk = in.table.seqLen(form, b);
    const int64_t q0 = in.qo_indptr[b];
    if (sq == 0)
      return;
    // Dequantized K (transposed, [D][Sk]) and V ([Sk][Dv]) of this head.
    std::vector<float> rowF(static_cast<size_t>(std::max(D, Dv)));
    std::vector<double> kt(static_cast<size_t>(D * sk)),
        v(static_cast<size_t>(sk * Dv)), s(static_cast<size_t>(sk)), q(D),
        o(Dv);
    for (int64_t j = 0; j < sk; ++j) {
      const int64_t page = in.table.pageOf(form, b, j);
      const int64_t slot = j % req.page_size;
      const double kd = in.kDescale(page, g), vd = in.vDescale(page, g);
      decodeBuffer(kvT, &in.k_cache[in.kvIndex(page, slot, g, 0, D) * kvSz],
                   static_cast<size_t>(D), rowF.data());
      for (int64_t d = 0; d < D; ++d)
        kt[d * sk + j] = kd * double(rowF[d]);
      decodeBuffer(kvT, &in.v_cache[in.kvIndex(page, slot, g, 0, Dv) * kvSz],
                   static_cast<size_t>(Dv), rowF.data());
      for (int64_t d = 0; d < Dv; ++d)
        v[j * Dv + d] = vd * double(rowF[d]);
    }
    std::vector<float> qTile;
    double qTileDs = 1.0;
    for (int64_t h = g * G; h < (g + 1) * G; ++h) {
      for (int64_t i = 0; i < sq; ++i) {
        const int64_t row = q0 + i;
        if (qRows > 0 && i % qRows == 0) {
          // The tile of rows i .. i + qRows - 1 as the kernel quantizes it.
          const int64_t rows = std::min(sq - i, qRows);
          qTile.resize(static_cast<size_t>(rows * D));
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t d = 0; d < D; ++d)
              qTile[r * D + d] = in.qStored(row + r, h, d);
          qTileDs = quantizeQTile(qTile.data(), qTile.size(), qTileType(kvT), qTile.data());
        }
        int64_t lo, hi;
        req.mask.visibleRange(i, sq, sk, lo, hi);
        if (lo > hi)
          continue; // O = 0, lse = -inf
        for (int64_t d = 0; d < D; ++d)
          q[d] = qRows > 0 ? qd * (double(qTile[(i % qRows) * D + d]) * qTileDs)
                           : qd * double(in.qStored(row, h, d));
        std::fill(s.begin() + lo, s.begin() + hi + 1, 0.0);
        for (int64_t d = 0; d < D; ++d) {
          const double qv = q[d];
          const double *kr = &kt[d * sk];
          for (int64_t j = lo; j <= hi; ++j)
            s[j] += qv * kr[j];
        }
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t j = lo; j <= hi; ++j) {
          double x = scale * s[j];
          if (cap > 0)
            x = cap * std::tanh(x / cap);
          s[j] = x;
          m = std::max(m, x);
        }
        double l = 0.0;
        std::fill(o.begin(), o.end(), 0.0);
        for (int64_t j = lo; j <= hi; ++j) {
          const double p = std::exp(s[j] - m);
          l += p;
          const double *vr = &v[j * Dv];
          for (int64_t d = 0; d < Dv; ++d)
            o[d] += p * vr[d];
        }
        double *dst = &r.out[static_cast<size_t>((row * Hq + h) * Dv)];
        for (int64_t d = 0; d < Dv; ++d)
          dst[d] = o[d] / l;
        r.lse[static_cast<size_t>(row * Hq + h)] = m + std::log(l);
      }
    }
  });
  return r;
}

} // namespace fmha::ref
