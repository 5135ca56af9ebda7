//===- Quantize.h - fp8 quantizers (per tensor, per page and head) -*- C++ -*-===//
//
// The quantizers of SPEC section 6, matching aiter's tests:
//   descale = max(max|x|, kAbsMaxFloor) / fp8_max      (f32 arithmetic)
//   code    = encode(x / descale) with round-to-nearest-even, saturating
// so x_real = decode(code) * descale. The floor keeps the descale positive and
// finite for an all-zero block (aiter clamps max|x| at 1e-12 the same way).
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_REFERENCE_QUANTIZE_H
#define FMHA_REFERENCE_QUANTIZE_H

#include "fmha/Reference/Types.h"

#include <cstddef>
#include <cstdint>

namespace fmha::ref {

/// Floor applied to max|x| before dividing by fp8_max (aiter: clamp(min=1e-12)).
inline constexpr float kAbsMaxFloor = 1e-12f;

/// max(absMax, kAbsMaxFloor) / dtypeMaxFinite(t), computed in f32.
float descaleFromAbsMax(float absMax, DType t);

/// Where the descale of (physical page, kv head) lives in a descale buffer:
/// base[offset + page * page_stride + head * head_stride]. A per-tensor
/// descale is {offset, 0, 0}. aiter's [N_pages, Hkv, 2] tensor is
/// K = {0, 2*Hkv, 2}, V = {1, 2*Hkv, 2}.
struct DescaleLayout {
  int64_t offset = 0;
  int64_t page_stride = 0;
  int64_t head_stride = 0;

  int64_t index(int64_t page, int64_t head) const {
    return offset + page * page_stride + head * head_stride;
  }
  float at(const float *base, int64_t page, int64_t head) const {
    return base[index(page, head)];
  }
};

/// Encodes x / descale (f32 division) saturating, for n elements.
void quantizeWithDescale(const float *x, size_t n, float descale, DType t,
                         void *out);

/// Per-tensor quantization of n elements into t (an fp8 type). Returns the
/// descale.
float quantizePerTensor(const float *x, size_t n, DType t, void *out);

/// Per (physical page, kv head) quantization of a whole cache of n_pages pages
/// in `layout` (x and out share it). Writes one descale per (page, head) to
/// descale[dl.index(page, head)].
void quantizePerPageHead(const float *x, int64_t n_pages, int64_t page_size,
                         int64_t num_kv_heads, int64_t head_dim,
                         KVLayout layout, DType t, void *out, float *descale,
                         DescaleLayout dl);

/// The on-the-fly quantization of one Q tile (fmha.quantize_tile, config
/// q_scale = per_tile): x holds the tile's n values (its valid rows);
/// amax = max(max |x|, 2^-100), inv = M / amax and descale = amax / M in f32
/// (M = dtypeMaxFinite(t)), out[i] = decode(encode(x[i] * inv)) (RNE,
/// saturating). Returns the descale; x = out * descale to t's rounding.
float quantizeQTile(const float *x, size_t n, DType t, float *out);

/// The fp8 type a GPU quantizes a 16-bit Q tile to for a cache of type kv:
/// the e4m3 of the cache's family (f8E4M3FNUZ for FNUZ caches, else
/// f8E4M3FN), the config's p_type; an e5m2 cache takes it through the mixed
/// e4m3 x e5m2 MMA.
DType qTileType(DType kv);

} // namespace fmha::ref

#endif // FMHA_REFERENCE_QUANTIZE_H
