//===- TargetInfoTest.cpp - TargetInfo layouts and a lane-level emulation -===//
//
// Pins the layout facts of each TargetInfo (gfx942, gfx950, sm_90):
// - Layout: every (lane, reg) accumulator element and every (lane, byte) A/B
//   element equals a formula written here from docs/archive/GPU_LOWERING_STUDY.md section 2.2
//   and the PTX ISA fragment tables (section 6), not taken from the code.
// - Emulation: a C++ port of the doc's appendix B mapping.py. One wave runs
//   the S^T/P/V^T plan of sections 2.3-2.6 (S/P/V on sm_90) lane by lane and
//   register by register on random data, knowing the hardware only through the
//   TargetInfo: QK with the doc's d-slot permutation (needs P1), the row
//   reduction by rowReduceXorMasks, P taken from the lane's own score
//   registers through the packed fp8 convert's byte order, V^T in LDS at
//   pvKeyPosition, one and two KV tiles with the online-softmax rescale. The
//   result must match a plain double-precision attention.
// - Mutations: one wrong fact or choice each must make the emulation fail.
// - The one-line IR emitters build ops that verify.
//
//===----------------------------------------------------------------------===//

#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"
#include "MutatedTargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::fmha;

namespace {

//===----------------------------------------------------------------------===//
// The documented layouts, written independently of the implementation
//===----------------------------------------------------------------------===//

using Map2 = std::function<FragElem(int64_t, int64_t)>;

struct DocLayout {
  int64_t wave, m, n, k, aPerLane, bPerLane, accPerLane;
  bool transposed;
  std::vector<int64_t> masks;
  Map2 a, b, acc; // (lane, byte or reg) -> element
  std::function<int64_t(int64_t)> group, pos;
  int64_t fp8ByteOf[2][2]; // [half][src]
  int64_t vRunBytes;       // contiguous V^T bytes per read
  int64_t ldsBytes;
};

DocLayout docLayout(StringRef chip) {
  DocLayout d;
  if (chip == "gfx942" || chip == "gfx950") {
    bool k64 = chip == "gfx950";
    d.wave = 64;
    d.m = d.n = 32;
    d.k = k64 ? 64 : 16;
    d.aPerLane = d.bPerLane = k64 ? 32 : 8;
    d.accPerLane = 16;
    d.transposed = true;
    d.masks = {32};
    // Section 2.2: A[l%32][8h + j] (K=16); the AMD blog's 16h + 32i + j for
    // K=64 with byte e = 16i + j. B uses the same k. C: register v holds
    // C[8*(v/4) + 4h + v%4][l%32].
    auto kOf = [k64](int64_t l, int64_t e) {
      int64_t h = l / 32;
      if (!k64)
        return 8 * h + e;
      int64_t i = e / 16, j = e % 16;
      return 16 * h + 32 * i + j;
    };
    d.a = [kOf](int64_t l, int64_t e) { return FragElem{l % 32, kOf(l, e)}; };
    d.b = [kOf](int64_t l, int64_t e) { return FragElem{kOf(l, e), l % 32}; };
    d.acc = [](int64_t l, int64_t v) {
      return FragElem{8 * (v / 4) + 4 * (l / 32) + v % 4, l % 32};
    };
    d.group = [](int64_t l) { return l / 32; };
    if (!k64) {
      // "pos(key) = key with bits 2 and 3 swapped"
      d.pos = [](int64_t key) {
        int64_t b2 = (key >> 2) & 1, b3 = (key >> 3) & 1;
        return key - 4 * b2 - 8 * b3 + 4 * b3 + 8 * b2;
      };
      d.vRunBytes = 8; // one ds_read_b64 at Vt[d][16c + 8h]
    } else {
      // "pos rotates key bits 4..2 from (g1 g0 h) to (h g1 g0)"
      d.pos = [](int64_t key) {
        int64_t hi = key / 32, g = (key / 8) % 4, h = (key / 4) % 2,
                r = key % 4;
        return 32 * hi + 16 * h + 4 * g + r;
      };
      d.vRunBytes = 16; // 2 x 16 contiguous bytes
    }
    // v_cvt_pk_fp8_f32: srcA in byte 0, srcB in byte 1 of the selected word.
    d.fp8ByteOf[0][0] = 0;
    d.fp8ByteOf[0][1] = 1;
    d.fp8ByteOf[1][0] = 2;
    d.fp8ByteOf[1][1] = 3;
    d.ldsBytes = k64 ? 160 * 1024 : 64 * 1024;
    return d;
  }
  // sm_90, mma.sync m16n8k32 e4m3: the PTX ISA's fragment tables as written
  // there (groupID = laneid >> 2, threadID_in_group = laneid % 4).
  d.wave = 32;
  d.m = 16;
  d.n = 8;
  d.k = 32;
  d.aPerLane = 16;
  d.bPerLane = 8;
  d.accPerLane = 4;
  d.transposed = false;
  d.masks = {1, 2};
  d.a = [](int64_t lane, int64_t i) {
    int64_t gid = lane >> 2, tig = lane % 4;
    int64_t row = (i < 4 || (8 <= i && i < 12)) ? gid : gid + 8;
    int64_t col = i < 8 ? tig * 4 + (i & 0x3) : tig * 4 + (i & 0x3) + 16;
    return FragElem{row, col};
  };
  d.b = [](int64_t lane, int64_t i) {
    int64_t gid = lane >> 2, tig = lane % 4;
    int64_t row = i < 4 ? tig * 4 + (i & 0x3) : tig * 4 + (i & 0x3) + 16;
    return FragElem{row, gid};
  };
  d.acc = [](int64_t lane, int64_t i) {
    int64_t gid = lane >> 2, tig = lane % 4;
    return FragElem{i < 2 ? gid : gid + 8, tig * 2 + (i & 0x1)};
  };
  d.group = [](int64_t lane) { return lane % 4; };
  // Section 6: pos(key) = 16i + 4t + 2b1 + b0 for key = 16i + 8b1 + 2t + b0.
  d.pos = [](int64_t key) {
    int64_t i = key / 16, b1 = (key % 16) / 8, t = (key % 8) / 2, b0 = key % 2;
    return 16 * i + 4 * t + 2 * b1 + b0;
  };
  // cvt.rn.satfinite.e4m3x2.f32 d, a, b: a in the upper byte, b in the lower.
  d.fp8ByteOf[0][0] = 1;
  d.fp8ByteOf[0][1] = 0;
  d.fp8ByteOf[1][0] = 3;
  d.fp8ByteOf[1][1] = 2;
  d.vRunBytes = 4; // one .b32 register of the B operand
  d.ldsBytes = 48 * 1024;
  return d;
}

Type fp8For(MLIRContext &ctx, StringRef chip) {
  if (chip == "gfx942")
    return Float8E4M3FNUZType::get(&ctx);
  return Float8E4M3FNType::get(&ctx);
}

//===----------------------------------------------------------------------===//
// Lane-level emulation of one wave (appendix B, mapping.py, in C++)
//===----------------------------------------------------------------------===//

using Lanes = std::vector<std::vector<double>>; // [lane][byte or register]

struct EmuProblem {
  int64_t blockN, headDim, headDimV, tiles;
  uint64_t seed;
};

struct EmuResult {
  std::string failure; // the plan broke structurally; empty if not
  double maxErrO = INFINITY, maxErrM = INFINITY, maxRelErrL = INFINITY;
  int64_t qkMmasPerTile = 0, pvMmasPerTile = 0;
  bool ok(double tol) const {
    return failure.empty() && maxErrO < tol && maxErrM < tol &&
           maxRelErrL < tol;
  }
};

std::ostream &operator<<(std::ostream &os, const EmuResult &r) {
  return os << "failure='" << r.failure << "' errO=" << r.maxErrO
            << " errM=" << r.maxErrM << " relErrL=" << r.maxRelErrL;
}

class WaveEmulator {
public:
  WaveEmulator(const TargetInfo &ti, const MmaAtom &atom)
      : ti(ti), at(atom), wave(ti.waveSize()) {}

  EmuResult run(const EmuProblem &p);

private:
  bool fail(const std::string &why) {
    if (failure.empty())
      failure = why;
    return false;
  }
  /// The hardware: D = A * B + C, with A, B gathered from the lanes and C
  /// scattered to them through the TargetInfo's fragment maps only.
  bool mma(const Lanes &a, const Lanes &b, Lanes &acc);
  /// Per lane, the sorted distinct k values of operand A or B.
  std::vector<std::vector<int64_t>> kSets(bool isA) const;

  const TargetInfo &ti;
  MmaAtom at;
  int64_t wave;
  std::string failure;
};

bool WaveEmulator::mma(const Lanes &a, const Lanes &b, Lanes &acc) {
  const int64_t M = at.m, N = at.n, K = at.k;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> A(M * K, nan), B(K * N, nan);
  for (int64_t l = 0; l < wave; ++l) {
    for (int64_t e = 0; e < at.aPerLane; ++e) {
      FragElem x = ti.aFragElem(l, e);
      if (x.row < 0 || x.row >= M || x.col < 0 || x.col >= K ||
          !std::isnan(A[x.row * K + x.col]))
        return fail("A element out of range or held twice");
      A[x.row * K + x.col] = a[l][e];
    }
    for (int64_t e = 0; e < at.bPerLane; ++e) {
      FragElem x = ti.bFragElem(l, e);
      if (x.row < 0 || x.row >= K || x.col < 0 || x.col >= N ||
          !std::isnan(B[x.row * N + x.col]))
        return fail("B element out of range or held twice");
      B[x.row * N + x.col] = b[l][e];
    }
  }
  if (std::any_of(A.begin(), A.end(), [](double v) { return std::isnan(v); }) ||
      std::any_of(B.begin(), B.end(), [](double v) { return std::isnan(v); }))
    return fail("A or B element held by no lane");
  for (int64_t l = 0; l < wave; ++l)
    for (int64_t v = 0; v < at.accPerLane; ++v) {
      AccElem c = ti.accElem(l, v);
      if (c.row < 0 || c.row >= M || c.col < 0 || c.col >= N)
        return fail("accumulator element out of range");
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += A[c.row * K + k] * B[k * N + c.col];
      acc[l][v] += s;
    }
  return true;
}

std::vector<std::vector<int64_t>> WaveEmulator::kSets(bool isA) const {
  int64_t perLane = isA ? at.aPerLane : at.bPerLane;
  std::vector<std::vector<int64_t>> sets(wave);
  for (int64_t l = 0; l < wave; ++l) {
    std::set<int64_t> s;
    for (int64_t e = 0; e < perLane; ++e)
      s.insert(isA ? ti.aFragElem(l, e).col : ti.bFragElem(l, e).row);
    sets[l].assign(s.begin(), s.end());
  }
  return sets;
}

EmuResult WaveEmulator::run(const EmuProblem &p) {
  EmuResult r;
  failure.clear();
  const int64_t W = wave, M = at.m, N = at.n, K = at.k;
  const bool tr = ti.transposedScores();
  const int64_t QW = tr ? N : M; // queries of the wave
  const int64_t KB = tr ? M : N; // keys per score accumulator
  const int64_t DB = tr ? M : N; // d per output accumulator
  const int64_t BN = p.blockN, D = p.headDim, DV = p.headDimV;
  const int64_t SP = at.accPerLane;
  auto done = [&](EmuResult &res) -> EmuResult & {
    res.failure = failure;
    return res;
  };
  if (BN % KB || BN % K || D % K || DV % DB) {
    fail("tile sizes are not multiples of the atom");
    return done(r);
  }

  // Random Q, K, V; keys of all tiles.
  std::mt19937_64 rng(p.seed);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  const int64_t keys = p.tiles * BN;
  std::vector<std::vector<double>> Q(QW, std::vector<double>(D)),
      Kc(keys, std::vector<double>(D)), V(keys, std::vector<double>(DV));
  for (auto *mat : {&Q, &Kc, &V})
    for (auto &row : *mat)
      for (double &x : row)
        x = uni(rng);

  // QK d-slot plan (section 2.3): in MMA kk, a lane of k group g supplies
  // d = (D/G) g + (K/G) kk + r for its r-th k value, so a lane's Q and K bytes
  // are D/G contiguous bytes. Correct only if A and B agree on the k groups.
  std::set<int64_t> groupIds;
  for (int64_t l = 0; l < W; ++l)
    groupIds.insert(ti.kGroupOfLane(l));
  const int64_t G = groupIds.size();
  if (*groupIds.begin() != 0 || *groupIds.rbegin() != G - 1 || K % G || D % G) {
    fail("k groups are not 0..G-1 dividing K and D");
    return done(r);
  }
  std::vector<std::vector<int64_t>> setA = kSets(true), setB = kSets(false);
  for (int64_t l = 0; l < W; ++l)
    if ((int64_t)setA[l].size() != K / G || (int64_t)setB[l].size() != K / G) {
      fail("a lane's k values are not one k group of K/G values");
      return done(r);
    }
  auto dOf = [&](const std::vector<std::vector<int64_t>> &sets, int64_t kk,
                 int64_t lane, int64_t k) {
    const auto &s = sets[lane];
    int64_t rank = std::lower_bound(s.begin(), s.end(), k) - s.begin();
    return (D / G) * ti.kGroupOfLane(lane) + (K / G) * kk + rank;
  };

  // Score register slots: the distinct queries of a lane, in register order.
  auto sQuery = [&](int64_t l, int64_t v) {
    AccElem c = ti.accElem(l, v);
    return tr ? c.col : c.row;
  };
  auto sKey = [&](int64_t l, int64_t v) {
    AccElem c = ti.accElem(l, v);
    return tr ? c.row : c.col;
  };
  std::vector<std::vector<int64_t>> slotOf(W, std::vector<int64_t>(SP)),
      slotQuery(W);
  for (int64_t l = 0; l < W; ++l)
    for (int64_t v = 0; v < SP; ++v) {
      int64_t q = sQuery(l, v);
      auto it = std::find(slotQuery[l].begin(), slotQuery[l].end(), q);
      slotOf[l][v] = it - slotQuery[l].begin();
      if (it == slotQuery[l].end())
        slotQuery[l].push_back(q);
    }
  const int64_t NS = slotQuery[0].size();
  for (int64_t l = 0; l < W; ++l)
    if ((int64_t)slotQuery[l].size() != NS) {
      fail("lanes hold different numbers of queries");
      return done(r);
    }
  SmallVector<int64_t> masks = ti.rowReduceXorMasks();
  for (int64_t mask : masks)
    if (mask <= 0 || mask >= W) {
      fail("xor mask out of the wave");
      return done(r);
    }
  // Finishes a per-lane, per-slot reduction across lanes as shuffleXor would:
  // slot s of lane l meets slot s of lane l ^ mask.
  auto crossLane = [&](std::vector<std::vector<double>> &x, bool isMax) {
    for (int64_t mask : masks) {
      auto old = x;
      for (int64_t l = 0; l < W; ++l)
        for (int64_t s = 0; s < NS; ++s)
          x[l][s] = isMax ? std::max(old[l][s], old[l ^ mask][s])
                          : old[l][s] + old[l ^ mask][s];
    }
  };

  // Output registers: the query and d of (block, lane, reg).
  auto oQuery = [&](int64_t l, int64_t v) {
    AccElem c = ti.accElem(l, v);
    return tr ? c.col : c.row;
  };
  auto oD = [&](int64_t bd, int64_t l, int64_t v) {
    AccElem c = ti.accElem(l, v);
    return bd * DB + (tr ? c.row : c.col);
  };
  std::vector<std::vector<int64_t>> oSlot(W, std::vector<int64_t>(SP));
  for (int64_t l = 0; l < W; ++l)
    for (int64_t v = 0; v < SP; ++v) {
      auto it =
          std::find(slotQuery[l].begin(), slotQuery[l].end(), oQuery(l, v));
      if (it == slotQuery[l].end()) {
        fail("an output register's query is not in the lane's scores");
        return done(r);
      }
      oSlot[l][v] = it - slotQuery[l].begin();
    }

  const double c = std::log2(std::exp(1.0)) / std::sqrt((double)D);
  const double shift = 7.0; // SHIFT rides in the subtraction, P is not scaled
  const int64_t nSB = BN / KB, nOB = DV / DB, nPV = BN / K;
  const int64_t pPerLane = tr ? at.bPerLane : at.aPerLane;
  std::vector<std::vector<double>> m(W, std::vector<double>(NS, -INFINITY)),
      lsum(W, std::vector<double>(NS, 0.0));
  std::vector<Lanes> O(nOB, Lanes(W, std::vector<double>(SP, 0.0)));
  std::vector<double> refMax(QW, -INFINITY);
  r.maxErrM = 0;

  for (int64_t t = 0; t < p.tiles; ++t) {
    const int64_t key0 = t * BN;
    // --- scores: S^T = K Q^T (A = K rows) or S = Q K^T (A = Q rows) --------
    std::vector<Lanes> S(nSB, Lanes(W, std::vector<double>(SP, 0.0)));
    int64_t qk = 0;
    for (int64_t b = 0; b < nSB; ++b)
      for (int64_t kk = 0; kk < D / K; ++kk) {
        Lanes a(W, std::vector<double>(at.aPerLane)),
            bb(W, std::vector<double>(at.bPerLane));
        for (int64_t l = 0; l < W; ++l) {
          for (int64_t e = 0; e < at.aPerLane; ++e) {
            FragElem x = ti.aFragElem(l, e);
            int64_t d = dOf(setA, kk, l, x.col);
            a[l][e] = tr ? Kc[key0 + b * KB + x.row][d] : Q[x.row][d];
          }
          for (int64_t e = 0; e < at.bPerLane; ++e) {
            FragElem x = ti.bFragElem(l, e);
            int64_t d = dOf(setB, kk, l, x.row);
            bb[l][e] = tr ? Q[x.col][d] : Kc[key0 + b * KB + x.col][d];
          }
        }
        if (!mma(a, bb, S[b]))
          return done(r);
        ++qk;
      }
    r.qkMmasPerTile = qk;

    // --- row max: in the lane, then the xor shuffles -------------------------
    std::vector<std::vector<double>> tmax(W,
                                          std::vector<double>(NS, -INFINITY));
    for (int64_t b = 0; b < nSB; ++b)
      for (int64_t l = 0; l < W; ++l)
        for (int64_t v = 0; v < SP; ++v)
          tmax[l][slotOf[l][v]] = std::max(tmax[l][slotOf[l][v]], S[b][l][v]);
    crossLane(tmax, /*isMax=*/true);
    for (int64_t q = 0; q < QW; ++q)
      for (int64_t j = key0; j < key0 + BN; ++j) {
        double s = 0;
        for (int64_t d = 0; d < D; ++d)
          s += Q[q][d] * Kc[j][d];
        refMax[q] = std::max(refMax[q], s);
      }
    std::vector<std::vector<double>> alpha(W, std::vector<double>(NS));
    for (int64_t l = 0; l < W; ++l)
      for (int64_t s = 0; s < NS; ++s) {
        double mNew = std::max(m[l][s], tmax[l][s]);
        r.maxErrM =
            std::max(r.maxErrM, std::abs(mNew - refMax[slotQuery[l][s]]));
        alpha[l][s] = std::exp2(c * (m[l][s] - mNew)); // 0 on the first tile
        m[l][s] = mNew;
      }

    // --- P = exp2(s c - (m c - SHIFT)); per-lane partial row sums ------------
    std::vector<Lanes> P = S;
    for (int64_t l = 0; l < W; ++l) {
      std::vector<double> part(NS, 0.0);
      for (int64_t b = 0; b < nSB; ++b)
        for (int64_t v = 0; v < SP; ++v) {
          int64_t s = slotOf[l][v];
          P[b][l][v] = std::exp2(c * S[b][l][v] - (c * m[l][s] - shift));
          part[s] += P[b][l][v];
        }
      for (int64_t s = 0; s < NS; ++s)
        lsum[l][s] = alpha[l][s] * lsum[l][s] + part[s];
    }
    for (int64_t bd = 0; bd < nOB; ++bd)
      for (int64_t l = 0; l < W; ++l)
        for (int64_t v = 0; v < SP; ++v)
          O[bd][l][v] *= alpha[l][oSlot[l][v]];

    // --- V^T in LDS at the permuted key position -----------------------------
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<std::vector<double>> Vt(DV, std::vector<double>(BN, nan));
    for (int64_t key = 0; key < BN; ++key) {
      int64_t pos = ti.pvKeyPosition(key);
      if (pos < 0 || pos >= BN || !std::isnan(Vt[0][pos])) {
        fail("pvKeyPosition is not a permutation of the tile's keys");
        return done(r);
      }
      for (int64_t d = 0; d < DV; ++d)
        Vt[d][pos] = V[key0 + key][d];
    }

    // --- PV: P from the lane's own score registers, no shuffle ---------------
    int64_t pv = 0;
    for (int64_t cc = 0; cc < nPV; ++cc) {
      Lanes pOp(W, std::vector<double>(pPerLane));
      for (int64_t l = 0; l < W; ++l) {
        // The lane's P values of keys [cc K, cc K + K), per query, in
        // (block, register) order; the j-th P byte of query q takes the j-th.
        std::map<int64_t, std::vector<double>> cand;
        for (int64_t b = 0; b < nSB; ++b)
          for (int64_t v = 0; v < SP; ++v) {
            int64_t key = b * KB + sKey(l, v);
            if (key >= cc * K && key < cc * K + K)
              cand[sQuery(l, v)].push_back(P[b][l][v]);
          }
        std::map<int64_t, size_t> used;
        std::vector<double> x(pPerLane);
        for (int64_t e = 0; e < pPerLane; ++e) {
          int64_t q = tr ? ti.bFragElem(l, e).col : ti.aFragElem(l, e).row;
          size_t &j = used[q];
          if (j >= cand[q].size()) {
            fail("a P byte has no score register of its query left");
            return done(r);
          }
          x[e] = cand[q][j++];
        }
        for (auto &[q, vals] : cand)
          if (used[q] != vals.size()) {
            fail("a score register is not used by the PV product");
            return done(r);
          }
        // packFp8x4 on each 4 values, as the emitted converts place them.
        if (pPerLane % 4) {
          fail("the P operand is not whole i32s");
          return done(r);
        }
        for (int64_t w = 0; w < pPerLane / 4; ++w) {
          std::set<int64_t> bytes;
          for (int64_t i = 0; i < 4; ++i) {
            Fp8PackSlot slot = ti.packFp8x4Slot(i);
            if (slot.half < 0 || slot.half > 1 || slot.src < 0 ||
                slot.src > 1) {
              fail("packFp8x4Slot out of range");
              return done(r);
            }
            int64_t byte = ti.fp8PackedByte(slot.half, slot.src);
            if (byte < 0 || byte > 3 || !bytes.insert(byte).second) {
              fail("two fp8 values packed into one byte");
              return done(r);
            }
            pOp[l][4 * w + byte] = x[4 * w + i];
          }
        }
      }
      for (int64_t bd = 0; bd < nOB; ++bd) {
        // The V operand of (lane, byte) at (d, k) is Vt[d][cc K + k].
        int64_t vPerLane = tr ? at.aPerLane : at.bPerLane;
        Lanes vOp(W, std::vector<double>(vPerLane));
        for (int64_t l = 0; l < W; ++l)
          for (int64_t e = 0; e < vPerLane; ++e) {
            FragElem f = tr ? ti.aFragElem(l, e) : ti.bFragElem(l, e);
            int64_t d = bd * DB + (tr ? f.row : f.col), k = tr ? f.col : f.row;
            vOp[l][e] = Vt[d][cc * K + k];
          }
        if (!(tr ? mma(vOp, pOp, O[bd]) : mma(pOp, vOp, O[bd])))
          return done(r);
        ++pv;
      }
    }
    r.pvMmasPerTile = pv;
  }

  // --- epilogue: l over the lanes of a row, O / l ----------------------------
  crossLane(lsum, /*isMax=*/false);
  std::vector<std::vector<double>> out(QW, std::vector<double>(DV, NAN));
  std::vector<double> lOf(QW, NAN);
  for (int64_t bd = 0; bd < nOB; ++bd)
    for (int64_t l = 0; l < W; ++l)
      for (int64_t v = 0; v < SP; ++v) {
        int64_t q = oQuery(l, v), d = oD(bd, l, v);
        if (!std::isnan(out[q][d])) {
          fail("an output element is held twice");
          return done(r);
        }
        out[q][d] = O[bd][l][v] / lsum[l][oSlot[l][v]];
        lOf[q] = lsum[l][oSlot[l][v]];
      }

  // --- plain attention in double ---------------------------------------------
  r.maxErrO = 0;
  r.maxRelErrL = 0;
  for (int64_t q = 0; q < QW; ++q) {
    std::vector<double> s(keys);
    double mx = -INFINITY;
    for (int64_t j = 0; j < keys; ++j) {
      s[j] = 0;
      for (int64_t d = 0; d < D; ++d)
        s[j] += Q[q][d] * Kc[j][d];
      mx = std::max(mx, s[j]);
    }
    double den = 0;
    for (int64_t j = 0; j < keys; ++j) {
      s[j] = std::exp2(c * (s[j] - mx));
      den += s[j];
    }
    r.maxRelErrL =
        std::max(r.maxRelErrL, std::abs(lOf[q] / std::exp2(shift) - den) / den);
    for (int64_t d = 0; d < DV; ++d) {
      double ref = 0;
      for (int64_t j = 0; j < keys; ++j)
        ref += s[j] * V[j][d];
      ref /= den;
      double err = std::abs(out[q][d] - ref);
      r.maxErrO = std::isnan(err) ? INFINITY : std::max(r.maxErrO, err);
    }
  }
  if (std::isnan(r.maxRelErrL))
    r.maxRelErrL = INFINITY;
  return done(r);
}

/// Float rounding level for these sizes: the double emulation lands near
/// 1e-15; any layout error is O(0.1).
constexpr double kTol = 1e-12;

EmuResult emulate(const TargetInfo &ti, MLIRContext &ctx, int64_t tiles,
                  uint64_t seed) {
  Type fp8 = fp8For(ctx, ti.chip());
  std::optional<MmaAtom> atom = ti.mmaAtom(fp8);
  EXPECT_TRUE(atom.has_value());
  if (!atom)
    return {};
  // sm_90's config uses block_n = 64 for fp8 (fmha-select-config).
  int64_t blockN = ti.chip() == "sm_90" ? 64 : 128;
  WaveEmulator emu(ti, *atom);
  return emu.run({blockN, 128, 128, tiles, seed});
}

//===----------------------------------------------------------------------===//
// Tests
//===----------------------------------------------------------------------===//

class TargetInfoTest : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    ti = createTargetInfo(GetParam());
    ASSERT_NE(ti, nullptr);
    doc = docLayout(GetParam());
  }
  MLIRContext ctx;
  std::unique_ptr<TargetInfo> ti;
  DocLayout doc;
};

TEST_P(TargetInfoTest, IdentityAndAtom) {
  EXPECT_EQ(ti->chip(), GetParam());
  EXPECT_EQ(ti->waveSize(), doc.wave);
  EXPECT_EQ(ti->transposedScores(), doc.transposed);
  SmallVector<int64_t> masks = ti->rowReduceXorMasks();
  EXPECT_EQ(std::vector<int64_t>(masks.begin(), masks.end()), doc.masks);
  EXPECT_EQ(ti->sharedAddressSpace(), 3u);
  EXPECT_EQ(ti->sharedMemoryBytesPerBlock(), doc.ldsBytes);

  Type fp8 = fp8For(ctx, GetParam());
  std::optional<MmaAtom> atom = ti->mmaAtom(fp8);
  ASSERT_TRUE(atom.has_value());
  EXPECT_EQ(atom->m, doc.m);
  EXPECT_EQ(atom->n, doc.n);
  EXPECT_EQ(atom->k, doc.k);
  EXPECT_EQ(atom->aElem, fp8);
  EXPECT_EQ(atom->bElem, fp8);
  EXPECT_EQ(atom->aPerLane, doc.aPerLane);
  EXPECT_EQ(atom->bPerLane, doc.bPerLane);
  EXPECT_EQ(atom->accPerLane, doc.accPerLane);
  // Every element of A, B and C is held by exactly one (lane, byte / reg).
  EXPECT_EQ(doc.wave * doc.aPerLane, doc.m * doc.k);
  EXPECT_EQ(doc.wave * doc.bPerLane, doc.k * doc.n);
  EXPECT_EQ(doc.wave * doc.accPerLane, doc.m * doc.n);

  // The other fp8 flavour is not this chip's MMA (gfx942 FNUZ only; gfx950
  // and sm_90 OCP only), nor is a 16-bit type (not in this step).
  bool fnuz = StringRef(GetParam()) == "gfx942";
  Type other = fnuz ? Type(Float8E4M3FNType::get(&ctx))
                    : Type(Float8E4M3FNUZType::get(&ctx));
  EXPECT_FALSE(ti->mmaAtom(other).has_value());
  EXPECT_FALSE(ti->mmaAtom(BFloat16Type::get(&ctx)).has_value());
  Type e5m2 = fnuz ? Type(Float8E5M2FNUZType::get(&ctx))
                   : Type(Float8E5M2Type::get(&ctx));
  std::optional<MmaAtom> atom5 = ti->mmaAtom(e5m2);
  ASSERT_TRUE(atom5.has_value());
  EXPECT_EQ(atom5->k, doc.k);
}

TEST_P(TargetInfoTest, AccumulatorElementOfEveryLaneAndReg) {
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t l = 0; l < doc.wave; ++l)
    for (int64_t v = 0; v < doc.accPerLane; ++v) {
      AccElem got = ti->accElem(l, v), want = doc.acc(l, v);
      EXPECT_EQ(got.row, want.row) << "lane " << l << " reg " << v;
      EXPECT_EQ(got.col, want.col) << "lane " << l << " reg " << v;
      EXPECT_TRUE(seen.insert({got.row, got.col}).second);
    }
  EXPECT_EQ((int64_t)seen.size(), doc.m * doc.n);
}

TEST_P(TargetInfoTest, OperandElementsAndKGroups) {
  std::set<std::pair<int64_t, int64_t>> seenA, seenB;
  std::map<int64_t, std::set<int64_t>> groupK;
  for (int64_t l = 0; l < doc.wave; ++l) {
    std::set<int64_t> kA, kB;
    for (int64_t e = 0; e < doc.aPerLane; ++e) {
      FragElem got = ti->aFragElem(l, e), want = doc.a(l, e);
      EXPECT_EQ(got.row, want.row) << "A lane " << l << " byte " << e;
      EXPECT_EQ(got.col, want.col) << "A lane " << l << " byte " << e;
      EXPECT_TRUE(seenA.insert({got.row, got.col}).second);
      kA.insert(got.col);
    }
    for (int64_t e = 0; e < doc.bPerLane; ++e) {
      FragElem got = ti->bFragElem(l, e), want = doc.b(l, e);
      EXPECT_EQ(got.row, want.row) << "B lane " << l << " byte " << e;
      EXPECT_EQ(got.col, want.col) << "B lane " << l << " byte " << e;
      EXPECT_TRUE(seenB.insert({got.row, got.col}).second);
      kB.insert(got.row);
    }
    // P1: a lane's A and B hold the same k values, those of its k group.
    EXPECT_EQ(kA, kB) << "lane " << l;
    int64_t g = ti->kGroupOfLane(l);
    EXPECT_EQ(g, doc.group(l));
    auto [it, fresh] = groupK.try_emplace(g, kA);
    if (!fresh)
      EXPECT_EQ(it->second, kA) << "lane " << l << " group " << g;
  }
  EXPECT_EQ((int64_t)seenA.size(), doc.m * doc.k);
  EXPECT_EQ((int64_t)seenB.size(), doc.k * doc.n);
  // The groups partition 0..K-1.
  std::set<int64_t> all;
  size_t total = 0;
  for (auto &[g, ks] : groupK) {
    all.insert(ks.begin(), ks.end());
    total += ks.size();
  }
  EXPECT_EQ((int64_t)all.size(), doc.k);
  EXPECT_EQ((int64_t)total, doc.k);
}

TEST_P(TargetInfoTest, ScoresOrientationMatchesLanes) {
  // Transposed (P2): a lane's accumulator column, B column and query are all
  // lane % 32. Not transposed: a row's registers sit in the lanes that
  // rowReduceXorMasks connects (a quad on sm_90).
  for (int64_t l = 0; l < doc.wave; ++l) {
    std::set<int64_t> reach = {l};
    for (int64_t mask : doc.masks) {
      std::set<int64_t> next = reach;
      for (int64_t x : reach)
        next.insert(x ^ mask);
      reach = next;
    }
    for (int64_t v = 0; v < doc.accPerLane; ++v) {
      AccElem c = ti->accElem(l, v);
      int64_t query = doc.transposed ? c.col : c.row;
      // Every lane holding this query's scores is reachable by the masks.
      for (int64_t l2 = 0; l2 < doc.wave; ++l2)
        for (int64_t v2 = 0; v2 < doc.accPerLane; ++v2) {
          AccElem c2 = ti->accElem(l2, v2);
          if ((doc.transposed ? c2.col : c2.row) == query)
            EXPECT_TRUE(reach.count(l2)) << "lane " << l << " query " << query;
        }
      if (doc.transposed) {
        EXPECT_EQ(c.col, l % 32);
        for (int64_t e = 0; e < doc.bPerLane; ++e)
          EXPECT_EQ(ti->bFragElem(l, e).col, c.col);
      }
    }
  }
  if (StringRef(GetParam()) == "gfx942") {
    // Section 2.2 in words: h = 0 holds rows {0-3, 8-11, 16-19, 24-27}.
    std::set<int64_t> rows0, rows1;
    for (int64_t v = 0; v < 16; ++v) {
      rows0.insert(ti->accElem(5, v).row);
      rows1.insert(ti->accElem(37, v).row);
    }
    EXPECT_EQ(rows0, (std::set<int64_t>{0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18,
                                        19, 24, 25, 26, 27}));
    EXPECT_EQ(rows1, (std::set<int64_t>{4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22,
                                        23, 28, 29, 30, 31}));
  }
}

TEST_P(TargetInfoTest, Fp8PackByteOrder) {
  for (int64_t half = 0; half < 2; ++half)
    for (int64_t src = 0; src < 2; ++src)
      EXPECT_EQ(ti->fp8PackedByte(half, src), doc.fp8ByteOf[half][src])
          << "half " << half << " src " << src;
  // packFp8x4's promise: byte i = value i.
  for (int64_t i = 0; i < 4; ++i) {
    Fp8PackSlot s = ti->packFp8x4Slot(i);
    EXPECT_EQ(doc.fp8ByteOf[s.half][s.src], i) << "value " << i;
  }
}

TEST_P(TargetInfoTest, VKeyPositionAndContiguousVReads) {
  for (int64_t key = 0; key < 256; ++key)
    EXPECT_EQ(ti->pvKeyPosition(key), doc.pos(key)) << "key " << key;
  // A lane's V operand of PV MMA c sits at Vt[d][c K + k]: runs of vRunBytes
  // contiguous, aligned bytes (ds_read_b64, 2 x 16 bytes, one .b32).
  int64_t perLane = doc.transposed ? doc.aPerLane : doc.bPerLane;
  for (int64_t l = 0; l < doc.wave; ++l)
    for (int64_t e = 0; e < perLane; ++e) {
      FragElem f = doc.transposed ? ti->aFragElem(l, e) : ti->bFragElem(l, e);
      FragElem f0 = doc.transposed ? ti->aFragElem(l, e - e % doc.vRunBytes)
                                   : ti->bFragElem(l, e - e % doc.vRunBytes);
      int64_t k = doc.transposed ? f.col : f.row;
      int64_t k0 = doc.transposed ? f0.col : f0.row;
      EXPECT_EQ(k, k0 + e % doc.vRunBytes) << "lane " << l << " byte " << e;
      EXPECT_EQ(k0 % doc.vRunBytes, 0) << "lane " << l << " byte " << e;
    }
}

TEST_P(TargetInfoTest, EmulatedWaveMatchesAttentionOneTile) {
  for (uint64_t seed : {1, 2}) {
    EmuResult r = emulate(*ti, ctx, /*tiles=*/1, seed);
    EXPECT_TRUE(r.ok(kTol)) << GetParam() << " seed " << seed << ": " << r;
  }
}

TEST_P(TargetInfoTest, EmulatedWaveMatchesAttentionTwoTilesRescaled) {
  EmuResult r = emulate(*ti, ctx, /*tiles=*/2, /*seed=*/3);
  EXPECT_TRUE(r.ok(kTol)) << GetParam() << ": " << r;
  // Section 2.7's MMA counts per wave per KV tile.
  if (StringRef(GetParam()) == "gfx942") {
    EXPECT_EQ(r.qkMmasPerTile, 32);
    EXPECT_EQ(r.pvMmasPerTile, 32);
  } else if (StringRef(GetParam()) == "gfx950") {
    EXPECT_EQ(r.qkMmasPerTile, 8);
    EXPECT_EQ(r.pvMmasPerTile, 8);
  } else if (StringRef(GetParam()) == "sm_90a") {
    // 128 keys: 2*16*128*128 / (16*8*32), one warp's m16n8k32 slices of
    // 4 + 4 wgmma m64n128k32 (16 each).
    EXPECT_EQ(r.qkMmasPerTile, 64);
    EXPECT_EQ(r.pvMmasPerTile, 64);
  } else { // 16 queries, 64 keys, D = Dv = 128: 2*16*64*128 / (16*8*32)
    EXPECT_EQ(r.qkMmasPerTile, 32);
    EXPECT_EQ(r.pvMmasPerTile, 32);
  }
}

// Each mutation breaks one fact or choice; the emulation must notice.
struct Mutation {
  const char *name;
  std::function<void(MutatedTargetInfo &, MLIRContext &)> apply;
};

std::vector<Mutation> mutations() {
  // The lane xor that changes the k group / the key half of an accumulator.
  auto flip = [](const TargetInfo &t) { return t.waveSize() == 64 ? 32 : 1; };
  return {
      {"identity V key position",
       [](MutatedTargetInfo &m, MLIRContext &) {
         m.pos = [](int64_t key) { return key; };
       }},
      {"pack fed in the other vendor's order",
       [](MutatedTargetInfo &m, MLIRContext &) {
         const TargetInfo &o = m.orig();
         m.packSlot = [&o](int64_t i) {
           Fp8PackSlot s = o.packFp8x4Slot(i);
           return Fp8PackSlot{s.half, 1 - s.src};
         };
       }},
      {"cvt byte order fact flipped",
       [](MutatedTargetInfo &m, MLIRContext &) {
         const TargetInfo &o = m.orig();
         m.packedByte = [&o](int64_t h, int64_t s) {
           return o.fp8PackedByte(h, 1 - s);
         };
       }},
      {"no cross-lane row reduction",
       [](MutatedTargetInfo &m, MLIRContext &) {
         m.masks = SmallVector<int64_t>{};
       }},
      {"P operand bytes reversed in the lane",
       [](MutatedTargetInfo &m, MLIRContext &ctx) {
         // The operand that carries P (B when the scores are transposed, A
         // otherwise) keeps its k set but lists it backwards.
         const TargetInfo &o = m.orig();
         MmaAtom at = *o.mmaAtom(fp8For(ctx, o.chip()));
         if (o.transposedScores())
           m.b = [&o, per = at.bPerLane](int64_t l, int64_t e) {
             return o.bFragElem(l, per - 1 - e);
           };
         else
           m.a = [&o, per = at.aPerLane](int64_t l, int64_t e) {
             return o.aFragElem(l, per - 1 - e);
           };
       }},
      {"B k group taken from another lane (breaks P1)",
       [flip](MutatedTargetInfo &m, MLIRContext &) {
         const TargetInfo &o = m.orig();
         int64_t f = flip(o);
         m.b = [&o, f](int64_t l, int64_t e) {
           return FragElem{o.bFragElem(l ^ f, e).row, o.bFragElem(l, e).col};
         };
       }},
      {"accumulator key rows of the two lane groups swapped",
       [flip](MutatedTargetInfo &m, MLIRContext &) {
         const TargetInfo &o = m.orig();
         int64_t f = flip(o);
         bool tr = o.transposedScores();
         m.acc = [&o, f, tr](int64_t l, int64_t v) {
           AccElem own = o.accElem(l, v), other = o.accElem(l ^ f, v);
           return tr ? AccElem{other.row, own.col}
                     : AccElem{own.row, other.col};
         };
       }},
      {"scores orientation flipped",
       [](MutatedTargetInfo &m, MLIRContext &) {
         const TargetInfo &o = m.orig();
         m.transposed = [&o] { return !o.transposedScores(); };
       }},
  };
}

TEST_P(TargetInfoTest, MutatedLayoutsFailTheEmulation) {
  for (const Mutation &mu : mutations()) {
    MutatedTargetInfo m(createTargetInfo(GetParam()));
    mu.apply(m, ctx);
    EmuResult r = emulate(m, ctx, /*tiles=*/2, /*seed=*/4);
    EXPECT_FALSE(r.ok(kTol))
        << GetParam() << " '" << mu.name << "' went unnoticed: " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Chips, TargetInfoTest,
                         ::testing::Values("gfx942", "gfx950", "sm_90", "sm_90a"),
                         [](const auto &info) {
                           return std::string(info.param);
                         });

TEST(TargetInfoFactory, UnknownChipsGiveNull) {
  for (const char *chip : {"", "gfx90a", "gfx1100", "GFX942", "sm_80", "sm_100",
                           "host", "gfx942:sramecc+"})
    EXPECT_EQ(createTargetInfo(chip), nullptr) << chip;
  EXPECT_EQ(createAMDGPUTargetInfo("sm_90"), nullptr);
  EXPECT_EQ(createNVVMTargetInfo("gfx942"), nullptr);
  EXPECT_NE(createAMDGPUTargetInfo("gfx950"), nullptr);
  EXPECT_NE(createNVVMTargetInfo("sm_90"), nullptr);
}

// The factories take the chip table's fp8 MMAs (fmha/Support/Chips.h) and
// reject a k_step the chip has no MMA for, rather than ignoring it.
TEST(TargetInfoFactory, KStepsWithoutAnMmaGiveNull) {
  for (auto [chip, k] : {std::pair<const char *, int64_t>{"sm_90", 0},
                         {"sm_90", 32}, {"gfx942", 0}, {"gfx942", 16},
                         {"gfx950", 0}, {"gfx950", 64}, {"gfx950", 16}}) {
    std::unique_ptr<TargetInfo> ti = createTargetInfo(chip, k);
    ASSERT_NE(ti, nullptr) << chip << " k " << k;
    EXPECT_EQ(ti->chip(), chip);
  }
  for (int64_t k : {8, 16, 64}) {
    EXPECT_EQ(createNVVMTargetInfo("sm_90", k), nullptr) << k;
    EXPECT_EQ(createTargetInfo("sm_90", k), nullptr) << k;
  }
  EXPECT_EQ(createTargetInfo("gfx942", 8), nullptr);
  EXPECT_EQ(createTargetInfo("gfx942", 64), nullptr);
  EXPECT_EQ(createTargetInfo("gfx950", 32), nullptr);
}

//===----------------------------------------------------------------------===//
// The one-line IR emitters
//===----------------------------------------------------------------------===//

class TargetInfoIRTest : public TargetInfoTest {};

TEST_P(TargetInfoIRTest, OneLineEmittersVerify) {
  ctx.loadDialect<arith::ArithDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect, ROCDL::ROCDLDialect>();
  Attribute target = ti->gpuModuleTarget(&ctx);
  std::string targetText;
  llvm::raw_string_ostream(targetText) << target;
  bool amd = doc.wave == 64;
  EXPECT_EQ(targetText,
            amd ? "#rocdl.target<chip = \"" + std::string(GetParam()) + "\">"
                : "#nvvm.target<chip = \"" + std::string(GetParam()) +
                      "\", features = \"+ptx84\">");

  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto gpuModule =
      gpu::GPUModuleOp::create(b, loc, "k", b.getArrayAttr({target}));
  b.setInsertionPointToStart(gpuModule.getBody());
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  auto func =
      gpu::GPUFuncOp::create(b, loc, "f", b.getFunctionType({f32, i32}, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  b.setInsertionPointToStart(&func.getBody().front());
  Value x = func.getArgument(0), id = func.getArgument(1);
  ti->barrier(b, loc);
  Value shuffled = ti->shuffleXor(b, loc, x, doc.masks.back());
  Value uniform = ti->broadcastFirstLane(b, loc, id);
  Value e = ti->exp2(b, loc, shuffled);
  EXPECT_EQ(uniform.getType(), i32);
  EXPECT_EQ(e.getType(), f32);
  gpu::ReturnOp::create(b, loc);
  ASSERT_TRUE(succeeded(verify(*module)));

  EXPECT_TRUE(isa<gpu::BarrierOp>(&func.getBody().front().front()));
  auto shuffle = shuffled.getDefiningOp<gpu::ShuffleOp>();
  ASSERT_TRUE(shuffle);
  EXPECT_EQ(shuffle.getMode(), gpu::ShuffleMode::XOR);
  EXPECT_EQ(getConstantIntValue(shuffle.getOffset()), doc.masks.back());
  EXPECT_EQ(getConstantIntValue(shuffle.getWidth()), doc.wave);
  if (amd) {
    EXPECT_TRUE(uniform.getDefiningOp<ROCDL::ReadfirstlaneOp>());
    EXPECT_TRUE(e.getDefiningOp<ROCDL::ROCDLExp2>());
  } else {
    auto idx = uniform.getDefiningOp<gpu::ShuffleOp>();
    ASSERT_TRUE(idx);
    EXPECT_EQ(idx.getMode(), gpu::ShuffleMode::IDX);
    EXPECT_EQ(getConstantIntValue(idx.getOffset()), 0);
    EXPECT_EQ(getConstantIntValue(idx.getWidth()), 32);
    auto ex = e.getDefiningOp<LLVM::InlineAsmOp>();
    ASSERT_TRUE(ex);
    EXPECT_EQ(ex.getAsmString(), "ex2.approx.ftz.f32 $0, $1;");
  }
}

// sm_90a's warpgroup MMA: the facts the lowering plans with, and one chain
// of each form built and verified: a fence, one asm per step (the first of
// a chain from zero with scale-d = 0 and no accumulator inputs), the
// commit, and the wait.
TEST(TargetInfoWarpgroup, Sm90aChains) {
  std::unique_ptr<TargetInfo> sm90 = createTargetInfo("sm_90");
  std::unique_ptr<TargetInfo> ti = createTargetInfo("sm_90a");
  ASSERT_TRUE(sm90 && ti);
  EXPECT_FALSE(sm90->warpgroupMma());
  EXPECT_EQ(sm90->ldsSwizzleBytes(128), 0);
  EXPECT_TRUE(ti->warpgroupMma());
  EXPECT_EQ(ti->ldsSwizzleBytes(32), 32);
  EXPECT_EQ(ti->ldsSwizzleBytes(64), 64);
  EXPECT_EQ(ti->ldsSwizzleBytes(128), 128);
  EXPECT_EQ(ti->ldsSwizzleBytes(256), 128); // two column groups of 128
  EXPECT_EQ(ti->warpgroupMmaPromoteSteps(), 2);
  EXPECT_EQ(ti->warpgroupMmaPvPromoteSteps(), 4);

  MLIRContext ctx;
  ctx.loadDialect<arith::ArithDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect, vector::VectorDialect>();
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto gpuModule = gpu::GPUModuleOp::create(
      b, loc, "k", b.getArrayAttr({ti->gpuModuleTarget(&ctx)}));
  b.setInsertionPointToStart(gpuModule.getBody());
  Type fp8 = b.getType<Float8E4M3FNType>();
  auto aT = VectorType::get({16}, fp8), accT = VectorType::get({64}, b.getF32Type());
  auto func = gpu::GPUFuncOp::create(
      b, loc, "f", b.getFunctionType({aT, aT, b.getI64Type(), accT}, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  b.setInsertionPointToStart(&func.getBody().front());
  Value base = func.getArgument(2);
  TargetInfo::WarpgroupOperandA rs;
  rs.regs = {func.getArgument(0), func.getArgument(1)};
  Value c1 = ti->warpgroupMmaChain(b, loc, rs, fp8, fp8, base, {0, 32}, 128,
                                   128, Value());
  TargetInfo::WarpgroupOperandA ss;
  ss.ldsBase = base;
  ss.offsets = {0, 32};
  ss.rowBytes = 128;
  Value c2 = ti->warpgroupMmaChain(b, loc, ss, fp8, fp8, base, {16384, 16416},
                                   128, 128, func.getArgument(3));
  EXPECT_EQ(c1.getType(), accT);
  EXPECT_EQ(c2.getType(), accT);
  gpu::ReturnOp::create(b, loc);
  ASSERT_TRUE(succeeded(verify(*module)));
  SmallVector<std::string> asms;
  int64_t commits = 0;
  func.walk([&](Operation *op) {
    if (auto a = dyn_cast<LLVM::InlineAsmOp>(op)) {
      EXPECT_TRUE(a.getHasSideEffects()) << a.getAsmString().str();
      asms.push_back(a.getAsmString().str());
    }
    commits += isa<NVVM::WgmmaGroupSyncAlignedOp>(op);
  });
  EXPECT_EQ(commits, 2);
  ASSERT_EQ(asms.size(), 8u); // per chain: fence, 2 steps, wait
  EXPECT_EQ(asms[0], "wgmma.fence.sync.aligned;");
  EXPECT_EQ(asms[3], "wgmma.wait_group.sync.aligned 0;");
  // RS from zero: scale-d 0 and A's 4 words at $64 (no tied inputs), then
  // scale-d 1 with the 64 accumulators tied ($64.. are inputs, A at $128).
  EXPECT_NE(asms[1].find("setp.ne.b32 p, 0, 0;"), std::string::npos);
  EXPECT_NE(asms[1].find("}, {$64, $65, $66, $67}, $68, p, 1, 1;"), std::string::npos);
  EXPECT_NE(asms[2].find("setp.ne.b32 p, 1, 0;"), std::string::npos);
  EXPECT_NE(asms[2].find("}, {$128, $129, $130, $131}, $132, p, 1, 1;"),
            std::string::npos);
  // SS into an accumulator: both steps tied, two descriptors.
  EXPECT_NE(asms[5].find("setp.ne.b32 p, 1, 0;"), std::string::npos);
  EXPECT_NE(asms[5].find("}, $128, $129, p, 1, 1;"), std::string::npos);
  EXPECT_NE(asms[5].find("m64n128k32.f32.e4m3.e4m3"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Chips, TargetInfoIRTest,
                         ::testing::Values("gfx942", "gfx950", "sm_90", "sm_90a"),
                         [](const auto &info) {
                           return std::string(info.param);
                         });

} // namespace
