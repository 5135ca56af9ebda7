// A naive FP8 paged-attention kernel that follows the emulating reference
// (lib/Reference/Emulate.cpp, SPEC section 4) step by step, one thread per
// (query row, query head). It is NOT the project's kernel and is not fast:
// it exists so that fmha-cuda-run and bench/h200/run_matrix.sh can be checked
// end to end on an NVIDIA GPU (JIT load of PTX, the kernarg buffer, the
// manifest's grid, poisoned outputs, copy back, both verdicts, event timing)
// independently of the compiler. make.sh compiles it to PTX with clang (no
// CUDA toolkit: -nocudainc -nocudalib) and writes the manifests.
//
// Scope: CSR page table, NHD caches, f8E4M3FN Q/K/V, kv_blockscale descales
// passed as aiter's interleaved buffer (offset and strides in the args), bf16
// out, optional lse, masks none / causal / window. The static shape comes in
// as macros: HQ, HKV, D, DV, PAGE, BLOCK_N, SHIFT, SM_SCALE, MASK (0 none,
// 1 causal, 2 window with WL, WR), LSE (0/1). BUG_NO_KD=1 drops the K
// descale (a deliberately wrong kernel: the runner must say FAIL).
//
// Kernel arguments, in the manifest's order (every slot 8 bytes):
//   q, q_dim0, k_cache, k_cache_dim0, v_cache, v_cache_dim0,
//   qo_indptr, qo_indptr_dim0, kv_indptr, kv_indptr_dim0,
//   kv_page_indices, kv_page_indices_dim0, kv_last_page_len,
//   kv_last_page_len_dim0, q_descale,
//   k_descale, k_descale_dim0, k_descale_offset, k_descale_stride0,
//   k_descale_stride1, v_descale (same four), out, out_dim0 [, lse, lse_dim0]
// Grid: (ceil(max_qo_len / blockDim.x), HQ, B); one row per thread.

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef long long i64;

#ifndef BUG_NO_KD
#define BUG_NO_KD 0
#endif
#ifndef WL
#define WL (-1)
#endif
#ifndef WR
#define WR (-1)
#endif

static __device__ inline float bitsToFloat(u32 b) {
  return __builtin_bit_cast(float, b);
}
static __device__ inline u32 floatToBits(float f) {
  return __builtin_bit_cast(u32, f);
}

// f8E4M3FN code to float (exact). 0x7F/0xFF (NaN) never occur in the inputs.
static __device__ inline float decodeE4M3FN(u8 c) {
  u32 sign = (c >> 7) & 1, e = (c >> 3) & 0xF, m = c & 7;
  float v = e == 0 ? (float)m * (1.0f / 512.0f)
                   : bitsToFloat(((e - 7 + 127) << 23) | (m << 20));
  return sign ? -v : v;
}

// p >= 0 rounded to the nearest f8E4M3FN value (ties to even, saturating),
// returned as a float: the emulation's castP.
static __device__ inline float roundE4M3FN(float p) {
  if (!(p > 0.0f))
    return 0.0f;
  int e = (int)((floatToBits(p) >> 23) & 0xFF) - 127;
  if (e < -6)
    e = -6; // subnormals: spacing 2^-9
  float step = bitsToFloat((u32)(e - 3 + 127) << 23);
  float inv = bitsToFloat((u32)(3 - e + 127) << 23);
  float q = __builtin_rintf(p * inv) * step;
  return q > 448.0f ? 448.0f : q;
}

// float to bf16, round to nearest even (finite inputs).
static __device__ inline u16 toBF16(float f) {
  u32 b = floatToBits(f);
  b += 0x7FFF + ((b >> 16) & 1);
  return (u16)(b >> 16);
}

extern "C" __global__ void fmha_selftest_kernel(
    const u8 *q, i64 q_dim0, const u8 *k_cache, i64 k_cache_dim0,
    const u8 *v_cache, i64 v_cache_dim0, const int *qo_indptr,
    i64 qo_indptr_dim0, const int *kv_indptr, i64 kv_indptr_dim0,
    const int *kv_page_indices, i64 kv_page_indices_dim0,
    const int *kv_last_page_len, i64 kv_last_page_len_dim0,
    const float *q_descale, const float *k_descale, i64 k_descale_dim0,
    i64 k_descale_offset, i64 k_descale_stride0, i64 k_descale_stride1,
    const float *v_descale, i64 v_descale_dim0, i64 v_descale_offset,
    i64 v_descale_stride0, i64 v_descale_stride1, u16 *out, i64 out_dim0
#if LSE
    ,
    float *lse, i64 lse_dim0
#endif
) {
  const float kLog2e = 1.44269504088896340736f;
  const float kLn2 = 0.693147180559945309417f;
  const float negInf = -__builtin_inff();
  const int b = __nvvm_read_ptx_sreg_ctaid_z();
  const int h = __nvvm_read_ptx_sreg_ctaid_y();
  const int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() +
                __nvvm_read_ptx_sreg_tid_x();
  const int q0 = qo_indptr[b], sq = qo_indptr[b + 1] - q0;
  if (i >= sq)
    return;
  const int np = kv_indptr[b + 1] - kv_indptr[b];
  const int sk = np ? (np - 1) * PAGE + kv_last_page_len[b] : 0;
  const int *pages = kv_page_indices + kv_indptr[b];
  const int g = h / (HQ / HKV);
  const i64 row = q0 + i;

  // Visible keys [lo, hi] (Mask::visibleRange).
  const i64 pos = (i64)i + sk - sq;
  i64 lo = 0, hi = sk - 1;
#if MASK == 1
  hi = hi < pos ? hi : pos;
#elif MASK == 2
  if (WL >= 0)
    lo = lo > pos - WL ? lo : pos - WL;
  if (WR >= 0)
    hi = hi < pos + WR ? hi : pos + WR;
#endif

  const float qd = q_descale[0];
  const float sigma = (float)SM_SCALE * kLog2e * qd;
  const float shiftF = (float)SHIFT;
  float qv[D];
  for (int d = 0; d < D; ++d)
    qv[d] = decodeE4M3FN(q[(row * HQ + h) * D + d]);

  float o[DV], u[DV], x[BLOCK_N], pc[BLOCK_N];
  for (int d = 0; d < DV; ++d)
    o[d] = 0.0f;
  float m = negInf, l = 0.0f;
  for (i64 c0 = 0; c0 < sk; c0 += BLOCK_N) {
    const i64 c1 = c0 + BLOCK_N < sk ? c0 + BLOCK_N : sk;
    const i64 a = c0 > lo ? c0 : lo, e = c1 - 1 < hi ? c1 - 1 : hi;
    if (a > e)
      continue;
    const int n = (int)(e - a + 1);
    float rowMax = negInf;
    for (int j = 0; j < n; ++j) {
      const i64 key = a + j;
      const int page = pages[key / PAGE];
      const i64 slot = key % PAGE;
      const u8 *kr = k_cache + ((page * (i64)PAGE + slot) * HKV + g) * D;
      float s = 0.0f;
      for (int d = 0; d < D; ++d)
        s += qv[d] * decodeE4M3FN(kr[d]);
#if !BUG_NO_KD
      s *= k_descale[k_descale_offset + page * k_descale_stride0 +
                     g * k_descale_stride1];
#endif
      x[j] = s;
      rowMax = rowMax > s ? rowMax : s;
    }
    const float mNew = m > rowMax ? m : rowMax;
    const float off = sigma * mNew - shiftF;
    const float alpha = m == negInf ? 0.0f : __builtin_exp2f(sigma * (m - mNew));
    float rowSum = 0.0f;
    for (int j = 0; j < n; ++j) {
      const float p = __builtin_exp2f(__builtin_fmaf(sigma, x[j], -off));
      rowSum += p;
      pc[j] = roundE4M3FN(p);
    }
    l = alpha * l + rowSum;
    for (int d = 0; d < DV; ++d)
      o[d] *= alpha;
    // u = P V per run of keys in one physical page; o += vd * u.
    for (int j = 0; j < n;) {
      const int page = pages[(a + j) / PAGE];
      for (int d = 0; d < DV; ++d)
        u[d] = 0.0f;
      int kk = j;
      for (; kk < n && pages[(a + kk) / PAGE] == page; ++kk) {
        const i64 key = a + kk;
        const u8 *vr =
            v_cache + ((page * (i64)PAGE + key % PAGE) * HKV + g) * DV;
        const float pk = pc[kk];
        for (int d = 0; d < DV; ++d)
          u[d] += pk * decodeE4M3FN(vr[d]);
      }
      const float vdr = v_descale[v_descale_offset + page * v_descale_stride0 +
                                  g * v_descale_stride1];
      for (int d = 0; d < DV; ++d)
        o[d] += vdr * u[d];
      j = kk;
    }
    m = mNew;
  }
  u16 *dst = out + (row * HQ + h) * DV;
  for (int d = 0; d < DV; ++d)
    dst[d] = toBF16(l > 0.0f ? o[d] / l : 0.0f);
#if LSE
  lse[row * HQ + h] =
      l > 0.0f ? kLn2 * ((sigma * m - shiftF) + __nvvm_lg2_approx_f(l)) : negInf;
#endif
}
