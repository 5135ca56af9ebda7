//===- LaneRuntime.h - the runtime of the lane emulator ---------*- C++ -*-===//
//
// Runs a kernel that fmha-lanes-to-host rewrote: every workgroup of the grid,
// in order; inside one, every lane as a coroutine on one thread. A lane runs
// until it reaches an op that needs other lanes (an MMA, a shuffle,
// readfirstlane: its wave; a barrier: its workgroup; a named barrier or an
// mbarrier wait: the lanes that arrive there) and waits there; when all
// lanes of the wave (workgroup) wait at the same op, the runtime computes it
// for all of them with its reference semantics and lets them go on; a named
// barrier lets its waiters go when its thread count arrived, an mbarrier
// wait when the phase it waits for completed. docs/LANE_EMULATOR.md gives
// the semantics of each op.
//
// The entry points have C linkage (fmha/Emulator/LaneABI.h lists them);
// laneRuntimeSymbols() gives their addresses for a JIT's symbol table. No
// MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_EMULATOR_LANERUNTIME_H
#define FMHA_EMULATOR_LANERUNTIME_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fmha::lane {

/// (name, address) of every runtime entry point.
std::vector<std::pair<const char *, void *>> laneRuntimeSymbols();

/// What the last launches on this thread met: "" when all went well, else
/// the first error (divergent lanes, a deadlock, a bad launch, an
/// out-of-bounds memory access of a kernel built with check-bounds; for the
/// last, how many there were in all when more than one). Divergence, a
/// deadlock and a bad launch stop the launch; an out-of-bounds access does
/// not (the kernel skipped it). Cleared by the call.
std::string takeLaneRuntimeError();

/// Counters of the launches on this thread since the last call (cleared).
struct LaneRuntimeStats {
  int64_t workgroups = 0, lanes = 0, switches = 0, mmas = 0, barriers = 0;
  int64_t outOfBounds = 0; // fmha_lane_out_of_bounds calls
  int64_t namedBarriers = 0; // completed generations of named barriers
  int64_t mbarrierWaits = 0; // mbarrier waits that had to wait (suspended)
  int64_t tmaLoads = 0; // TMA boxes copied (fmha_lane_tma_load)
  /// With setLdsBankModel: the LDS accesses counted (wave ops), the cycles
  /// the bank model gives them and the fewest their bytes need, reads and
  /// writes apart.
  int64_t ldsReads = 0, ldsReadCycles = 0, ldsReadIdeal = 0;
  int64_t ldsWrites = 0, ldsWriteCycles = 0, ldsWriteIdeal = 0;
};
LaneRuntimeStats takeLaneRuntimeStats();

/// Extra workgroups every later launch on this thread runs in x, y and z
/// (0, 0, 0 by default): a grid larger than the request's, as one launch
/// captured in a CUDA / HIP graph for the largest batch is (docs/ABI.md).
/// The kernel must leave the extra workgroups without a memory access.
void setLaneGridPadding(int64_t x, int64_t y, int64_t z);

/// Every later launch on this thread runs its runnable lanes from the last
/// thread to the first (false: first to last, the default). A kernel whose
/// warps synchronise correctly gives the same result in either order; with
/// warp roles, reversed runs the consumers (the later warpgroups) ahead of
/// the producer, so a consumer that reads a stage without waiting for it
/// reads it before it is filled.
void setLaneScheduleReversed(bool reversed);

/// Every later launch on this thread lands a load into LDS when it is
/// issued (true) instead of at the lane's wait for it (false, the default).
/// The default finds a read that does not wait for the loads; at issue
/// finds a load started while another wave may still read the bytes it
/// overwrites (one before the barrier after those reads).
void setLdsLoadsLandAtIssue(bool atIssue);

/// Every later launch on this thread runs one wave at a time: the first
/// wave with a runnable lane runs (its wave ops done as its lanes meet)
/// until it waits at a barrier, then the next (false: every runnable lane a
/// round, the default, which keeps the waves in step between barriers).
/// With setLdsLoadsLandAtIssue it finds a wave overwriting LDS another
/// wave has not finished reading.
void setLaneWavesInTurn(bool inTurn);

/// Every later launch on this thread counts its LDS accesses under a bank
/// model (0 banks: off, the default): each access of a wave is a wave op;
/// its lanes go in groups of banks * 4 / bytes consecutive lanes a cycle,
/// and a group takes as many cycles as the most distinct 4-byte words any
/// one bank holds among its lanes' bytes (one word read by several lanes
/// is one). The fewest cycles: the wave's bytes / (banks * 4). A model of
/// the LDS of CDNA (32 banks of 4 bytes), not a timing.
void setLdsBankModel(int64_t banks);

} // namespace fmha::lane

#endif // FMHA_EMULATOR_LANERUNTIME_H
