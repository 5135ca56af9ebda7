//===- Quantize.cpp - fp8 quantizers --------------------------------------===//

#include "fmha/Reference/Quantize.h"
#include "fmha/Reference/FloatCodec.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace fmha::ref {

float descaleFromAbsMax(float absMax, DType t) {
  float m = std::max(absMax, kAbsMaxFloor);
  return m / static_cast<float>(dtypeMaxFinite(t));
}

void quantizeWithDescale(const float *x, size_t n, float descale, DType t,
                         void *out) {
  if (isFp8(t)) {
    Fp8Encoder enc(t, Overflow::Saturate);
    auto *o = static_cast<uint8_t *>(out);
    for (size_t i = 0; i < n; ++i)
      o[i] = enc(x[i] / descale);
    return;
  }
  for (size_t i = 0; i < n; ++i)
    storeBits(t, out, i, encode(t, x[i] / descale, Overflow::Saturate));
}

float quantizePerTensor(const float *x, size_t n, DType t, void *out) {
  float amax = 0.0f;
  for (size_t i = 0; i < n; ++i)
    amax = std::max(amax, std::fabs(x[i]));
  float d = descaleFromAbsMax(amax, t);
  quantizeWithDescale(x, n, d, t, out);
  return d;
}

void quantizePerPageHead(const float *x, int64_t n_pages, int64_t page_size,
                         int64_t num_kv_heads, int64_t head_dim,
                         KVLayout layout, DType t, void *out, float *descale,
                         DescaleLayout dl) {
  const int64_t P = page_size, H = num_kv_heads, D = head_dim;
  const int64_t pageElems = P * H * D;
  const size_t esz = dtypeSize(t);
  std::vector<float> amax(static_cast<size_t>(H)), ds(static_cast<size_t>(H));
  // Both layouts are runs of D contiguous values of one (slot, head); walk
  // them in memory order.
  auto headOfRun = [&](int64_t run) {
    return layout == KVLayout::NHD ? run % H : run / P;
  };
  for (int64_t pg = 0; pg < n_pages; ++pg) {
    const float *xp = x + pg * pageElems;
    auto *op = static_cast<unsigned char *>(out) + pg * pageElems * esz;
    std::fill(amax.begin(), amax.end(), 0.0f);
    for (int64_t run = 0; run < P * H; ++run) {
      float &a = amax[headOfRun(run)];
      for (int64_t d = 0; d < D; ++d)
        a = std::max(a, std::fabs(xp[run * D + d]));
    }
    for (int64_t h = 0; h < H; ++h) {
      ds[h] = descaleFromAbsMax(amax[h], t);
      descale[dl.index(pg, h)] = ds[h];
    }
    for (int64_t run = 0; run < P * H; ++run)
      quantizeWithDescale(xp + run * D, static_cast<size_t>(D),
                          ds[headOfRun(run)], t, op + run * D * esz);
  }
}

} // namespace fmha::ref

float fmha::ref::quantizeQTile(const float *x, size_t n, DType t, float *out) {
  float amax = 0.0f;
  for (size_t i = 0; i < n; ++i)
    amax = std::max(amax, std::fabs(x[i]));
  amax = std::max(amax, std::ldexp(1.0f, -100));
  const float m = static_cast<float>(dtypeMaxFinite(t));
  const float inv = m / amax;
  const Fp8Encoder enc(t, Overflow::Saturate);
  for (size_t i = 0; i < n; ++i)
    out[i] = decodeFp8(t, enc(x[i] * inv));
  return amax / m;
}

fmha::ref::DType fmha::ref::qTileType(DType kv) {
  return kv == DType::F8E4M3FNUZ || kv == DType::F8E5M2FNUZ ? DType::F8E4M3FNUZ
                                                            : DType::F8E4M3FN;
}
