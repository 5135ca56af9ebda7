//===- TestUtil.h - Helpers shared by the reference unit tests --*- C++ -*-===//
#ifndef FMHA_UNITTESTS_REFERENCE_TESTUTIL_H
#define FMHA_UNITTESTS_REFERENCE_TESTUTIL_H

#include "fmha/Reference/Problem.h"

#include <cmath>
#include <vector>

namespace fmha::ref::test {

/// A small request that runs in milliseconds: fp8 e4m3fn, kv_blockscale,
/// 4/2 heads, D = Dv = 32, page size 16, causal, CSR, bf16 out.
inline Request smallRequest() {
  Request r;
  r.qo_lens = {7, 19, 1};
  r.kv_lens = {40, 19, 33};
  r.num_qo_heads = 4;
  r.num_kv_heads = 2;
  r.head_dim = 32;
  r.page_size = 16;
  r.seed = 7;
  return r;
}

/// Max |a - b| and ||a - b|| / ||b|| of two equally long vectors.
template <typename A, typename B>
inline void errors(const std::vector<A> &a, const std::vector<B> &b,
                   double &maxAbs, double &relFro) {
  double d2 = 0, r2 = 0;
  maxAbs = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double d = double(a[i]) - double(b[i]);
    maxAbs = std::max(maxAbs, std::fabs(d));
    d2 += d * d;
    r2 += double(b[i]) * double(b[i]);
  }
  relFro = r2 > 0 ? std::sqrt(d2 / r2) : std::sqrt(d2);
}

} // namespace fmha::ref::test

#endif
