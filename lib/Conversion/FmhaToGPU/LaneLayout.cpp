//===- LaneLayout.cpp - where a tile's elements live in the lanes ---------===//
#include "fmha/Conversion/FmhaToGPU/LaneLayout.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"

using namespace mlir;
using namespace mlir::fmha;

int64_t BitLinear::eval(int64_t x) const {
  int64_t y = c0;
  for (size_t i = 0; i < coef.size(); ++i)
    if ((x >> i) & 1)
      y += coef[i];
  return y;
}

std::optional<BitLinear>
mlir::fmha::fitBits(int64_t n, function_ref<int64_t(int64_t)> f) {
  BitLinear r;
  r.c0 = f(0);
  for (int64_t bit = 1; bit < n; bit <<= 1)
    r.coef.push_back(f(bit) - r.c0);
  for (int64_t x = 0; x < n; ++x)
    if (r.eval(x) != f(x))
      return std::nullopt;
  return r;
}

std::optional<BitLinear> mlir::fmha::pvKeyInverse(const TargetInfo &ti,
                                                  int64_t keys) {
  SmallVector<int64_t> keyAt(keys, -1); // the key at each position
  for (int64_t k = 0; k < keys; ++k) {
    int64_t p = ti.pvKeyPosition(k);
    if (p < 0 || p >= keys || keyAt[p] >= 0)
      return std::nullopt;
    keyAt[p] = k;
  }
  return fitBits(keys, [&](int64_t p) { return keyAt[p]; });
}

std::optional<SpreadPlan> mlir::fmha::planSpread(const LaneLayout &l, int64_t g,
                                                 int64_t stride) {
  if (g <= 0 || stride <= 0 || (g & (g - 1)) || (stride & (stride - 1)) ||
      l.wave % (g * stride))
    return std::nullopt;
  SpreadPlan plan;
  plan.g = g;
  plan.stride = stride;
  for (int64_t lane = 0; lane < l.wave; ++lane)
    if (l.nLane.eval(lane) != l.nLane.eval(lane - plan.placeOf(lane) * stride))
      return std::nullopt;
  for (int64_t v = 0; v < l.accPerLane(); ++v) {
    auto at = llvm::find_if(plan.regs, [&](int64_t r) { return l.nReg[r] == l.nReg[v]; });
    plan.placeOfReg.push_back(at - plan.regs.begin());
    if (at == plan.regs.end())
      plan.regs.push_back(v);
  }
  return plan;
}

int64_t SpreadPlan::offsetOf(const LaneLayout &l, int64_t e) const {
  int64_t r = static_cast<int64_t>(regs.size());
  return e / r * l.atomN + l.nReg[regs[e % r]];
}

std::optional<BitLinear> SpreadPlan::slotBits(const LaneLayout &l, int64_t s) const {
  return fitBits(g, [&](int64_t i) { return offsetOf(l, s * g + i) - offsetOf(l, s * g); });
}

bool SpreadPlan::fits(const LaneLayout &l, int64_t atoms) const {
  if ((atoms * static_cast<int64_t>(regs.size())) % g)
    return false;
  for (int64_t s = 0; s < slots(atoms); ++s)
    if (!slotBits(l, s))
      return false;
  return true;
}

bool mlir::fmha::descaleLoadsUniform(const LaneLayout &l, int64_t n, int64_t pageSize,
                                     bool aligned) {
  if (!aligned)
    return false;
  for (int64_t j = 0; j < n / l.atomN; ++j)
    for (int64_t v = 0; v < l.accPerLane(); ++v)
      for (int64_t lane = 1; lane < l.wave; ++lane)
        if (l.columnOf(lane, j, v) / pageSize != l.columnOf(0, j, v) / pageSize)
          return false;
  return true;
}

VWordPlan mlir::fmha::planVWords(const TargetInfo &ti, int64_t bn, int64_t ldsCols,
                                 int64_t chunksPerRow, int64_t threads) {
  VWordPlan plan;
  plan.base = *fitBits(bn, [](int64_t k) { return k; });
  SmallVector<int64_t> keyAt(bn, -1); // the key at each position
  for (int64_t k = 0; k < bn; ++k) {
    int64_t p = ti.pvKeyPosition(k);
    if (p < 0 || p >= bn || keyAt[p] >= 0)
      return plan; // not a permutation: one key per word
    keyAt[p] = k;
  }
  for (int64_t r = 4; r >= 2; r /= 2) {
    // Every thread takes whole words; or, fewer words than threads, each
    // group of `words` threads (whole waves) all of them (emitKVTile):
    // AMDGPU only (gfx942 D 64 now takes words of 8-byte chunks, one a
    // thread, instead); NVIDIA's D 64 (2-key words) is unchanged until
    // timed.
    int64_t words = (bn / r) * chunksPerRow;
    bool whole = words % threads == 0 ||
                 (!ti.transposeByKeyGroups() && threads % words == 0 &&
                  words % ti.waveSize() == 0);
    if (bn % r || ldsCols % r || !whole)
      continue;
    SmallVector<int64_t, 4> offs;
    for (int64_t j = 0; j < r; ++j)
      offs.push_back(keyAt[j] - keyAt[0]);
    SmallVector<int64_t> bases;
    bool ok = true;
    for (int64_t m = 0; m < bn / r && ok; ++m) {
      bases.push_back(keyAt[m * r]);
      for (int64_t j = 0; j < r && ok; ++j)
        ok = keyAt[m * r + j] == keyAt[m * r] + offs[j];
    }
    if (!ok)
      continue;
    llvm::sort(bases);
    auto base = fitBits(bn / r, [&](int64_t q) { return bases[q]; });
    if (!base)
      continue;
    plan.keys = r;
    plan.offsets = offs;
    plan.base = *base;
    return plan;
  }
  return plan;
}

InFlightDiagnostic mlir::fmha::laneError(Operation *op, const TargetInfo &ti,
                                         const Twine &msg) {
  return op->emitOpError("convert-fmha-to-gpu (" + ti.chip() + "): " + msg);
}

FailureOr<SmallVector<FragmentRun>>
LaneLayout::runsOf(Operation *at, const TargetInfo &ti, int64_t wave,
                   int64_t perLane,
                   function_ref<FragElem(int64_t, int64_t)> frag) {
  SmallVector<FragmentRun> runs;
  for (int64_t e = 0; e < perLane;) {
    int64_t len = 1;
    while (e + len < perLane) {
      bool ok = true;
      for (int64_t l = 0; l < wave && ok; ++l) {
        FragElem s = frag(l, e), n = frag(l, e + len);
        ok = n.row == s.row && n.col == s.col + len;
      }
      if (!ok)
        break;
      ++len;
    }
    auto r = fitBits(wave, [&](int64_t l) { return frag(l, e).row; });
    auto c = fitBits(wave, [&](int64_t l) { return frag(l, e).col; });
    if (!r || !c)
      return laneError(at, ti, "operand layout is not linear in the lane bits"),
             failure();
    runs.push_back({e, len, *r, *c});
    e += len;
  }
  for (const FragmentRun &r : runs)
    if (r.len != runs[0].len || (runs.size() & (runs.size() - 1)))
      return laneError(at, ti, "operand runs of unequal length"), failure();
  return runs;
}

FailureOr<LaneLayout> LaneLayout::get(const TargetInfo &ti, ConfigAttr cfg,
                                      Type kvElem, Operation *at) {
  LaneLayout l;
  std::optional<MmaAtom> a = ti.mmaAtom(kvElem);
  if (!a)
    return laneError(at, ti, "the chip's MMA does not take ") << kvElem,
           failure();
  l.atom = *a;
  l.transposed = ti.transposedScores();
  l.wave = ti.waveSize();
  l.rowsPerWave = cfg.getBlockM() / cfg.getWarps();
  int64_t atomQ = l.transposed ? l.atom.n : l.atom.m;
  l.atomN = l.transposed ? l.atom.m : l.atom.n;
  if (l.rowsPerWave != atomQ)
    return laneError(at, ti, "block_m / warps = ")
               << l.rowsPerWave << " must equal the MMA's query extent "
               << atomQ,
           failure();
  bool tr = l.transposed;
  auto qOf = [&](int64_t lane, int64_t v) {
    AccElem e = ti.accElem(lane, v);
    return tr ? e.col : e.row;
  };
  auto nOf = [&](int64_t lane, int64_t v) {
    AccElem e = ti.accElem(lane, v);
    return tr ? e.row : e.col;
  };
  for (int64_t v = 0; v < l.accPerLane(); ++v) {
    l.qReg.push_back(qOf(0, v));
    l.nReg.push_back(nOf(0, v));
  }
  auto fq = fitBits(l.wave, [&](int64_t x) { return qOf(x, 0) - l.qReg[0]; });
  auto fn = fitBits(l.wave, [&](int64_t x) { return nOf(x, 0) - l.nReg[0]; });
  if (!fq || !fn)
    return laneError(at, ti, "accumulator layout is not linear in the lane bits"),
           failure();
  l.qLane = *fq;
  l.nLane = *fn;
  for (int64_t x = 0; x < l.wave; ++x)
    for (int64_t v = 0; v < l.accPerLane(); ++v)
      if (qOf(x, v) != l.qReg[v] + qOf(x, 0) - l.qReg[0] ||
          nOf(x, v) != l.nReg[v] + nOf(x, 0) - l.nReg[0])
        return laneError(at, ti,
                         "accumulator layout does not split into lane and "
                         "register parts"),
               failure();
  for (int64_t v = 0; v < l.accPerLane(); ++v) {
    auto it = llvm::find(l.slotQ, l.qReg[v]);
    if (it == l.slotQ.end()) {
      l.slotOfReg.push_back(l.slotQ.size());
      l.slotQ.push_back(l.qReg[v]);
    } else {
      l.slotOfReg.push_back(it - l.slotQ.begin());
    }
  }
  // Q: (query, k); the K/V side: (row in LDS, contiguous column).
  auto qFrag = [&](int64_t lane, int64_t e) -> FragElem {
    if (tr) {
      FragElem f = ti.bFragElem(lane, e);
      return {f.col, f.row};
    }
    return ti.aFragElem(lane, e);
  };
  auto kvFrag = [&](int64_t lane, int64_t e) -> FragElem {
    if (tr) {
      FragElem f = ti.aFragElem(lane, e); // (m = key|d, k)
      return {f.row, f.col};
    }
    FragElem f = ti.bFragElem(lane, e); // (k, n = key|d)
    return {f.col, f.row};
  };
  auto q = runsOf(at, ti, l.wave, l.qPerLane(), qFrag);
  if (failed(q))
    return failure();
  auto kv = runsOf(at, ti, l.wave, l.kvPerLane(), kvFrag);
  if (failed(kv))
    return failure();
  l.qRuns = std::move(*q);
  l.kvRuns = std::move(*kv);
  return l;
}

FailureOr<SmallVector<SmallVector<std::pair<int64_t, int64_t>>>>
LaneLayout::pvOperandElems(const TargetInfo &ti, int64_t bn,
                           Operation *at) const {
  // The fragments name bytes; a 16-bit element is its first byte's.
  int64_t eb = atom.elemBytes, keysPerStep = atom.k / eb;
  int64_t steps = bn / keysPerStep,
          pPerLane = (transposed ? atom.bPerLane : atom.aPerLane) / eb;
  SmallVector<int64_t> posInv(bn);
  for (int64_t key = 0; key < bn; ++key)
    posInv[ti.pvKeyPosition(key)] = key;
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> out(steps);
  for (int64_t c = 0; c < steps; ++c)
    for (int64_t e = 0; e < pPerLane; ++e) {
      std::optional<std::pair<int64_t, int64_t>> res;
      bool ok = true;
      for (int64_t l = 0; l < wave && ok; ++l) {
        FragElem f = transposed ? ti.bFragElem(l, e * eb) : ti.aFragElem(l, e * eb);
        int64_t kq = (transposed ? f.row : f.col) / eb, q = transposed ? f.col : f.row;
        int64_t key = posInv[c * keysPerStep + kq];
        std::optional<std::pair<int64_t, int64_t>> found;
        for (int64_t v = 0; v < accPerLane() && !found; ++v) {
          AccElem a = ti.accElem(l, v);
          int64_t aq = transposed ? a.col : a.row, an = transposed ? a.row : a.col;
          if (aq == q && (key - an) % atomN == 0 && key - an >= 0)
            found = std::make_pair((key - an) / atomN, v);
        }
        ok = found && (!res || *res == *found);
        res = found;
      }
      if (!ok)
        return laneError(at, ti,
                         "P is not in the lanes the PV product needs it in "
                         "(pvKeyPosition does not match the layouts)"),
               failure();
      out[c].push_back(*res);
    }
  return out;
}
