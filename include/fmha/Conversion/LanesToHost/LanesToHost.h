//===- LanesToHost.h - the lane-level kernel as a host function -*- C++ -*-===//
//
// fmha-lanes-to-host (Passes.td): the kernel convert-fmha-to-gpu emits,
// rewritten into a function the lane runtime (fmha/Emulator/LaneRuntime.h)
// runs once per lane on the CPU. docs/LANE_EMULATOR.md.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_CONVERSION_LANESTOHOST_LANESTOHOST_H
#define FMHA_CONVERSION_LANESTOHOST_LANESTOHOST_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
namespace fmha {

/// The rewrite of the pass on one module: every gpu.func kernel of its
/// gpu.module becomes a host func.func per lane, every gpu.launch_func a
/// runtime launch. With `checkBounds`, every memref / vector load and store
/// (and subview) of a kernel is guarded: out of range, the lane reports it
/// through fmha_lane_out_of_bounds and skips the access. Fails (with a
/// diagnostic naming the op) on an op the emulator has no semantics for, or
/// with `checkBounds` one whose memory access it cannot guard; the module
/// is then left unchanged.
LogicalResult convertLanesToHost(ModuleOp module, bool checkBounds = true);

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_LANESTOHOST_LANESTOHOST_H
