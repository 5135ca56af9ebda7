//===- LaneContext.h - what every lane-lowering pattern reads ---*- C++ -*-===//
//
// The lane lowering's patterns are stateless; what they share is here,
// computed once per kernel before the conversion runs: the chip's
// TargetInfo, the kernel's #fmha.config, its LaneLayout and LaneForms, the
// per-lane index values emitted at the kernel entry, and the LDS buffer of
// every K / V tile. The helpers below are the index arithmetic and the
// operand loads all pattern families use.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_CONVERSION_FMHATOGPU_LANECONTEXT_H
#define FMHA_CONVERSION_FMHATOGPU_LANECONTEXT_H

#include "fmha/Conversion/FmhaToGPU/LaneForms.h"
#include "fmha/Conversion/FmhaToGPU/LaneLayout.h"
#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <map>

namespace mlir {
namespace fmha {

/// The per-lane values of one original value, by its form (LaneForms.h).
struct LaneValues {
  SmallVector<Value> parts;   // acc, p, q_operand, row_bcast (per slot)
  SmallVector<Value> row, col; // vec
  SmallVector<Value> lb, ub;   // mask
  Value aff;                   // vec, affine: the base b
  Value spread;                // vec: the lane's share of the column form
  Value lds;                   // kv
};

struct LaneContext {
  LaneContext(gpu::GPUFuncOp kernel, const TargetInfo &ti, ConfigAttr cfg,
              const LaneLayout &layout, const LaneForms &forms)
      : kernel(kernel), ti(ti), cfg(cfg), layout(layout), forms(forms) {}

  gpu::GPUFuncOp kernel;
  const TargetInfo &ti;
  ConfigAttr cfg;
  const LaneLayout &layout;
  const LaneForms &forms;

  /// Emitted at the kernel entry: thread id, lane, the wave's index and
  /// first query row (wave-uniform), the lane parts of the accumulator's
  /// query and column (all i32).
  Value tidV, laneV, waveV, waveRow0, qLaneV, nLaneV;
  /// The LDS buffer (workgroup attribution) of every fmha.gather_kv.
  DenseMap<Operation *, Value> lds;
  /// A ring of fmha.stage_kv: `stages` buffers of one tile in one workgroup
  /// attribution, each a tile in K's (row-major) form `form`.
  struct Ring {
    Value buffer;
    ValueForm form;
    int64_t stages = 0, stageBytes = 0;
    /// Filled by fmha.stage_transpose: V tiles in their transposed form
    /// `form` (a staged read is the stage itself).
    bool transposed = false;
    /// A one-stage ring of V tiles on a chip whose loads into LDS cannot
    /// give its V^T (gfx942: the lanes transpose V by byte permutes):
    /// fmha.stage_kv loads the tile's chunks into registers, its
    /// fmha.staged_kv permutes them into the stage, in V^T form `form`
    /// (with `transposed`: the staged read is the stage itself).
    bool viaRegisters = false;
  };
  std::map<int64_t, Ring> rings;
  /// The rings of fmha.stage_descale (warp roles, stage-descales): `keys`
  /// f32 a stage, `stages` stages.
  struct DescaleRing {
    Value buffer;
    int64_t stages = 0, keys = 0;
  };
  std::map<int64_t, DescaleRing> descaleRings;
  /// The kernel's rings are filled by loads straight into LDS
  /// (TargetInfo::loadToLds): its read-only inputs are read through
  /// TargetInfo::readOnlyInput (readOnly).
  bool ldsLoads = false;
  /// A K tile's LDS stores held back until its V tile's loads are issued
  /// (TargetInfo::batchKVLoads): set by the K gather's pattern, emitted at
  /// the builder's point by the V gather's; empty otherwise, and at the end
  /// of the conversion.
  mutable std::function<void(ImplicitLocOpBuilder &)> deferredKStores;
  /// A register ring's (Ring::viaRegisters) loaded tile: its permutes and
  /// LDS stores into the stage it is given, set by the ring's
  /// fmha.stage_kv, run and cleared by its fmha.staged_kv.
  mutable std::map<int64_t, std::function<void(ImplicitLocOpBuilder &, Value)>>
      pendingTranspose;
  /// Page `page` of a tile of whole pages (per-token fmha.page_ids `ids`),
  /// loaded once where first used (MemoryPatterns tilePageId) in `block`;
  /// the K and V gathers and the descales of later ops in that block or in
  /// blocks nested in it reuse it.
  struct TilePageId {
    Operation *ids;
    int64_t page;
    Block *block;
    Value id;
  };
  mutable SmallVector<TilePageId> tilePageIds;
  /// A warpgroup product started by an fmha.tile_mma that fmha.mma_wait ops
  /// wait for (keyed by the tile_mma's result): the sum of its pieces
  /// already waited for (null if none) and the pieces still in flight
  /// (TargetInfo::warpgroupMmaChainsStart), added to it after the wait.
  /// A P V product (fmha-overlap-softmax) also keeps the accumulator it
  /// adds to (`addTo`, one part per atom) and a scale per piece (each
  /// piece a chain from zero; o += scale x piece after the wait, o + piece
  /// where the scale is null). `group`: the value of mmaGroupsCommitted
  /// once its last pieces were committed.
  struct InflightMma {
    Value waited;
    SmallVector<Value> pieces;
    SmallVector<Value> addTo;
    SmallVector<Value> scales;
    int64_t group = 0;
  };
  mutable llvm::DenseMap<Value, InflightMma> inflightMmas;
  /// Warpgroup MMA commit groups issued so far, in the order the patterns
  /// lower the ops (program order within a block): an fmha.mma_wait waits
  /// with as many groups pending as were committed after its product's,
  /// where nothing between them has regions (else with none pending).
  mutable int64_t mmaGroupsCommitted = 0;
  /// fmha.warp_roles: the stage handoff's mbarriers (a workgroup buffer of
  /// 2 x stages i64: every stage's "filled" barrier, then its "free" one;
  /// with TMA 3 x stages, then its "landed" one), the threads of one
  /// role's warpgroup and the consumer groups; null / 0 without roles.
  Value mbarriers;
  int64_t mbarrierStages = 0, roleThreads = 0, consumers = 0;
  /// The stages' K/V copies go by TMA (fmha.stage_kv's `fmha.tma`,
  /// fmha-outline-kernel): the "landed" barriers count their bytes.
  bool tma = false;
  /// The address (`!llvm.ptr<3>`) of stage `slot`'s (index) filled or free
  /// mbarrier.
  Value stageBarrier(ImplicitLocOpBuilder &b, Value slot, bool free) const;
  /// The address of stage `slot`'s "landed" mbarrier (TMA: one
  /// arrive.expect_tx a TMA stage op of a fill, completed by its boxes'
  /// bytes; the producer's threads wait at it before the V transpose).
  Value landedBarrier(ImplicitLocOpBuilder &b, Value slot) const;
  /// The mbarrier `first` + slot of the buffer.
  Value barrierAt(ImplicitLocOpBuilder &b, Value slot, int64_t first) const;
  /// The named barrier of the producer's warpgroup (the consumers' are
  /// 1 + c; 0 is the workgroup's).
  int64_t producerBarrierId() const { return 1 + consumers; }
  /// The first of the consumers' turn barriers (fmha.turn_take of consumer
  /// c waits at turnBarrierBase() + c).
  int64_t turnBarrierBase() const { return 2 + consumers; }

  //===--- packing --------------------------------------------------------===//

  LaneValues unpack(Value orig, ValueRange converted) const;
  SmallVector<Value> pack(const ValueForm &f, const LaneValues &v) const;

  //===--- per-lane values ------------------------------------------------===//

  /// The scalar of a splat vector (LaneForms::isSplat), emitted here (index
  /// as i32); `remap` gives the current value of an original scalar (the
  /// conversion rewriter's getRemappedValue).
  Value splatScalar(ImplicitLocOpBuilder &b, Value orig,
                    function_ref<Value(Value)> remap) const;
  /// Query row (in the q tile) of row slot s.
  Value queryOfSlot(ImplicitLocOpBuilder &b, int64_t s) const;
  /// Column of (atom j, register v).
  Value colOf(ImplicitLocOpBuilder &b, int64_t j, int64_t v) const;
  /// The column of slot s of a spread form on this lane (LaneLayout.h
  /// SpreadPlan).
  Value spreadColumn(ImplicitLocOpBuilder &b, int64_t s) const;
  /// The column form (`atoms` atoms) of a spread form's share: each
  /// element broadcast from its group's lane (TargetInfo::broadcastInGroup).
  /// A spread value has no column form of its own: its users make the
  /// columns where they take them (colsOf), so the broadcasts sit next to
  /// their use and no column form is live across the tile.
  SmallVector<Value> colsFromSpread(ImplicitLocOpBuilder &b, Value spread,
                                    int64_t atoms) const;
  /// vector<accPerLane x T> whose element v is the value of v's row slot.
  Value rowsToAcc(ImplicitLocOpBuilder &b, ArrayRef<Value> slotVals) const;
  /// The constant column offsets j * atomN + nReg[v] of atom j.
  Value colConst(ImplicitLocOpBuilder &b, int64_t j) const;
  /// base + the column constants of atom j.
  Value materializeAffine(ImplicitLocOpBuilder &b, Value base, int64_t j) const;
  /// The mask lb <= C <= ub of atom j (C: the atom's column constants);
  /// with both bounds one unsigned compare, C - max(lb, 0) <u
  /// max(ub - max(lb, 0) + 1, 0). With `len` > 0, only the atom's elements
  /// [off, off + len) (a vector of len).
  Value maskOfAtom(ImplicitLocOpBuilder &b, const LaneValues &m, int64_t j,
                   int64_t off = 0, int64_t len = 0) const;
  /// Elements [off, off + len) of 1-d vector `v` (a constant or a scalar's
  /// broadcast stays one; otherwise a vector.shuffle).
  static Value sliceElements(ImplicitLocOpBuilder &b, Value v, int64_t off, int64_t len);
  /// `into` with its elements [off, off + n) replaced by 1-d vector `part`
  /// of n elements (a vector.shuffle).
  static Value replaceElements(ImplicitLocOpBuilder &b, Value into, Value part, int64_t off);
  /// The column form of a vec value (materializing an affine one).
  SmallVector<Value> colsOf(ImplicitLocOpBuilder &b, Value orig,
                            const LaneValues &v) const;
  /// The accumulator-layout parts of a 2-d value (materializing affine and
  /// mask forms).
  SmallVector<Value> accParts(ImplicitLocOpBuilder &b, Value orig,
                              const LaneValues &v) const;

  //===--- staged tiles (LDS) ---------------------------------------------===//

  /// Byte offset (i32) of (row, byte col) in the staged tile of form `f`
  /// (f.ldsRows x f.ldsCols bytes), in the chip's swizzled layout
  /// (TargetInfo::ldsSwizzleBytes; row-major when it is 0).
  Value ldsOffset(ImplicitLocOpBuilder &b, const ValueForm &f, Value row,
                  Value col) const;
  /// The same for constants, `row` a multiple of 8 (swizzle phase 0): where a
  /// warpgroup MMA's descriptor starts.
  int64_t ldsTileOffset(const ValueForm &f, int64_t row, int64_t col) const;
  /// Stage `slot` (index) of `ring`: a memref.view of its bytes.
  Value ringStage(ImplicitLocOpBuilder &b, const Ring &ring, Value slot) const;
  /// `mem`, a kernel input never written (page table, descales), as its
  /// loads should read it: TargetInfo::readOnlyInput where ldsLoads.
  Value readOnly(ImplicitLocOpBuilder &b, Value mem) const {
    return ldsLoads ? ti.readOnlyInput(b, b.getLoc(), mem) : mem;
  }
  /// The shared-memory address of a staged tile's buffer, as an i64.
  Value ldsAddress(ImplicitLocOpBuilder &b, Value lds) const;
  /// One vector of all accumulator parts (atom j's registers at
  /// j * accPerLane), and back.
  Value wideAcc(ImplicitLocOpBuilder &b, ArrayRef<Value> parts) const;
  SmallVector<Value> splitAcc(ImplicitLocOpBuilder &b, Value wide) const;

  //===--- MMA operand loads ----------------------------------------------===//

  /// One operand: for every run, `load(row, col, len)` gives the run's
  /// `len` bytes (vector<len x i8>, or a 16-bit Q's len elements when the
  /// MMA is fp8); the result is the operand vector of `fp8` (one element per
  /// byte, or per two bytes for a 16-bit type).
  Value loadOperand(ImplicitLocOpBuilder &b, ArrayRef<FragmentRun> runs, Type fp8,
                    function_ref<Value(Value, Value, int64_t)> load) const;
  /// All nK k steps of one operand at once: the contraction index of step
  /// kk, lane slot k is (k / L) * nK * L + kk * L + k % L for runs of length
  /// L, a permutation of [0, nK * K) both operands use (free: lanes of one k
  /// group hold the same k values in A and B), which makes each run's bytes
  /// over all steps one contiguous segment (one wide load).
  SmallVector<Value>
  loadOperandAllSteps(ImplicitLocOpBuilder &b, ArrayRef<FragmentRun> runs,
                      int64_t nK, Type fp8,
                      function_ref<Value(Value, Value, int64_t)> load) const;
};

//===--- small emitters -----------------------------------------------------===//

Value laneConstI32(ImplicitLocOpBuilder &b, int64_t v);
Value laneToIndex(ImplicitLocOpBuilder &b, Value v);
Value laneToI32(ImplicitLocOpBuilder &b, Value v);
/// f(x) of a bit-linear function, x an i32.
Value laneEmitBits(ImplicitLocOpBuilder &b, const BitLinear &f, Value x);
/// Concatenates equal vectors pairwise.
Value laneConcat(ImplicitLocOpBuilder &b, SmallVector<Value> parts);

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_FMHATOGPU_LANECONTEXT_H
