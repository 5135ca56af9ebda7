//===- LaneLayout.h - where a tile's elements live in the lanes -*- C++ -*-===//
//
// The integer facts of one kernel's lane lowering, computed once from the
// chip's TargetInfo and the kernel's #fmha.config before anything is
// rewritten:
//
// - Every 2-d f32/i1/index tile [BM x N] lives in MMA accumulator layout: wave
//   w owns BM/warps query rows and, per lane, one vector<accPerLane> per MMA
//   atom along N. Element (lane l, register v) of atom j is query
//   qLane(l) + qReg[v], column j * atomN + nLane(l) + nReg[v]: the
//   accumulator layout of TargetInfo::accElem split into a lane part (linear
//   in the lane's bits) and a register part, both checked exact on every lane.
// - A lane holds the rows of a few distinct queries, its row "slots": slotQ[s]
//   is the query offset of slot s, slotOfReg[v] the slot of register v.
// - The MMA operands a lane loads are runs of contiguous bytes (one row,
//   consecutive columns), the same on every lane, with linear starts.
//
// The lane layout is what LaneTypeConverter (LaneForms.h) consults to give
// each tile value its per-lane values, and what the patterns emit index
// arithmetic from. unittests/Conversion/FmhaToGPU checks these facts on every
// lane of every chip.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_CONVERSION_FMHATOGPU_LANELAYOUT_H
#define FMHA_CONVERSION_FMHATOGPU_LANELAYOUT_H

#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace mlir {
namespace fmha {
class ConfigAttr;

/// f(x) = c0 + sum over the bits i of x of coef[i], x in [0, 2^coef.size()).
struct BitLinear {
  int64_t c0 = 0;
  SmallVector<int64_t, 8> coef;
  int64_t eval(int64_t x) const;
};

/// The bit-linear function equal to f on [0, n) (n a power of two), or
/// nullopt when f is not linear in the bits of x.
std::optional<BitLinear> fitBits(int64_t n, function_ref<int64_t(int64_t)> f);

/// The inverse of the chip's pvKeyPosition on [0, keys) (the key at each
/// position of V^T's key axis) as a bit-linear function, or nullopt when it
/// is not one (or pvKeyPosition is not a permutation of [0, keys)).
std::optional<BitLinear> pvKeyInverse(const TargetInfo &ti, int64_t keys);

/// A run of one MMA operand's per-lane elements [e0, e0 + len): one row and
/// `len` consecutive columns, starting at (row(lane), col(lane)).
struct FragmentRun {
  int64_t e0, len;
  BitLinear row, col;
};

class LaneLayout {
public:
  /// The layout of `ti`'s MMA for K/V of type `kvElem` under `cfg`; a
  /// diagnostic on `at` (naming the rule) when the chip's facts do not
  /// give one.
  static FailureOr<LaneLayout> get(const TargetInfo &ti, ConfigAttr cfg,
                                   Type kvElem, Operation *at);

  MmaAtom atom{};
  /// true: S^T = K Q^T (AMDGPU), the accumulator column is the query.
  bool transposed = false;
  int64_t wave = 0, rowsPerWave = 0;
  /// Columns (keys or head-dim entries) of one atom.
  int64_t atomN = 0;
  BitLinear qLane, nLane;
  SmallVector<int64_t> qReg, nReg, slotOfReg, slotQ;
  /// The Q operand (query, k) and the K/V operand read from LDS (row of the
  /// staged tile, contiguous column) as runs.
  SmallVector<FragmentRun> qRuns, kvRuns;

  int64_t accPerLane() const { return atom.accPerLane; }
  int64_t slots() const { return static_cast<int64_t>(slotQ.size()); }
  int64_t qPerLane() const {
    return transposed ? atom.bPerLane : atom.aPerLane;
  }
  int64_t kvPerLane() const {
    return transposed ? atom.aPerLane : atom.bPerLane;
  }
  /// Column j * atomN + nReg[v] + nLane(lane): the lane's key of element
  /// (atom j, register v) in a tile.
  int64_t columnOf(int64_t lane, int64_t j, int64_t v) const {
    return nLane.eval(lane) + j * atomN + nReg[v];
  }
  /// A bank-swizzled V^T's (ValueForm::bankSwizzle) column of contraction
  /// byte p (step c = p / k, the run's column and byte in it): steps in
  /// pairs, each lane's run of the pair's two steps contiguous, as
  /// LaneContext::loadOperandAllSteps reads two steps (one run: LaneForms
  /// checked it).
  int64_t vtPairColumn(int64_t p) const {
    int64_t k = atom.k, len = kvRuns[0].len, c = p / k, in = p % k;
    return (c / 2) * 2 * k + 2 * (in - in % len) + (c % 2) * len + in % len;
  }

  /// For the PV product of a tile of `bn` keys: element e (an fp8 or 16-bit
  /// value, not a byte) of the lane's P
  /// operand of MMA step c is its own score element (atom, register) for
  /// every lane; a diagnostic on `at` when TargetInfo::pvKeyPosition does not
  /// make it so.
  FailureOr<SmallVector<SmallVector<std::pair<int64_t, int64_t>>>>
  pvOperandElems(const TargetInfo &ti, int64_t bn, Operation *at) const;

private:
  static FailureOr<SmallVector<FragmentRun>>
  runsOf(Operation *at, const TargetInfo &ti, int64_t wave, int64_t perLane,
         function_ref<FragElem(int64_t, int64_t)> frag);
};

/// The spread form of a column vector (LaneForms.h) on groups of `g` lanes
/// (lanes base + stride * i, i < g: TargetInfo::groupBroadcastLanes and
/// groupBroadcastStride) that hold the same columns (nLane equal). A
/// group's distinct columns are its elements: element e is atom
/// e / regs.size() at register regs[e % regs.size()] (the registers of an
/// atom with distinct columns, nReg). The group's lane i holds element
/// s * g + i in slot s, so a lane holds atoms * regs.size() / g values
/// where the column form holds atoms * accPerLane, and an element of the
/// column form is one broadcast of its slot from its lane
/// (TargetInfo::broadcastInGroup). AMDGPU: rows of 16 lanes (DPP), 16
/// distinct columns an atom: 4 slots at BlockN 128. NVIDIA: the 8 lanes of
/// one lane % 4 (shfl.sync.idx), 2 distinct columns an atom (the rows q
/// and q + 8 share them): 4 slots at BlockN 128.
struct SpreadPlan {
  int64_t g = 0, stride = 1;
  SmallVector<int64_t, 16> regs, placeOfReg;
  /// A lane's place in its group.
  int64_t placeOf(int64_t lane) const { return lane / stride % g; }
  /// The lane at place `idx` of `lane`'s group: lane with its place bits
  /// (stride * (g - 1)) replaced by idx's.
  int64_t sourceLane(int64_t lane, int64_t idx) const {
    return (lane & ~(stride * (g - 1))) | (idx * stride);
  }
  /// The group element of (atom j, register v).
  int64_t elementOf(int64_t j, int64_t v) const {
    return j * static_cast<int64_t>(regs.size()) + placeOfReg[v];
  }
  /// Element e's column past nLane.
  int64_t offsetOf(const LaneLayout &l, int64_t e) const;
  int64_t slots(int64_t atoms) const {
    return atoms * static_cast<int64_t>(regs.size()) / g;
  }
  /// Slot s's column past nLane, as a function of the lane's place:
  /// offsetOf(s * g) + bits(place); nullopt when it is not bit-linear.
  std::optional<BitLinear> slotBits(const LaneLayout &l, int64_t s) const;
  /// Whether a vector of `atoms` atoms takes the form: whole slots, each
  /// bit-linear.
  bool fits(const LaneLayout &l, int64_t atoms) const;
};
std::optional<SpreadPlan> planSpread(const LaneLayout &l, int64_t g, int64_t stride);

/// Whether the per-key descale loads of a tile of `n` keys in the column
/// form are all wave-uniform: tiles on page boundaries (page_regime not
/// unaligned) where each group of elements a lane takes at one key lies in
/// one page on every lane (GatherDescalePattern's groups). Where they are
/// not, a lane loads ids and descales of its own keys, one per group.
bool descaleLoadsUniform(const LaneLayout &l, int64_t n, int64_t pageSize,
                         bool aligned);

/// How the V tile is transposed into V^T in LDS (fmha.gather_kv of V): the
/// positions of V^T's key axis (TargetInfo::pvKeyPosition) fall into words
/// of `keys` bytes; the keys of one word are base + offsets[j] (j = the
/// byte), the same offsets for every word, and the words' base keys in
/// ascending order are base(q), q = 0 .. bn / keys - 1. A lane loads the
/// chunks (16 bytes, or 8 where 16-byte words would be half as many as the
/// threads: emitKVTile, gfx942 D 64) of one word's keys, transposes them in
/// registers and stores `keys`-byte words; every thread takes whole words,
/// or, where the words are fewer than the threads but whole waves
/// (AMDGPU), each group of that many threads takes all of them (equal
/// bytes stored twice). `keys` is 1 when no word of 2 or 4 keys has these
/// properties.
struct VWordPlan {
  int64_t keys = 1;
  SmallVector<int64_t, 4> offsets{0};
  BitLinear base;
};
/// The largest word (4, then 2 keys) whose keys are one base plus fixed
/// offsets, whose bases are bit-linear, and that divides the tile into
/// `threads` lanes' shares (bn / keys words x chunksPerRow chunks).
VWordPlan planVWords(const TargetInfo &ti, int64_t bn, int64_t ldsCols,
                     int64_t chunksPerRow, int64_t threads);

/// The error prefix every diagnostic of the lane lowering carries.
InFlightDiagnostic laneError(Operation *op, const TargetInfo &ti,
                             const Twine &msg);

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_FMHATOGPU_LANELAYOUT_H
