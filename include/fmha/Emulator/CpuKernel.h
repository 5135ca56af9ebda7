//===- CpuKernel.h - a request compiled and run on the CPU -------*- C++ -*-===//
//
// The C++ entry point to the two CPU executions of a request, for tools and
// tests: `host` (the tiled form lowered for the CPU, fmha-to-host-pipeline)
// and `gfx942` / `gfx950` / `sm_90` (that chip's lane-level kernel, as
// fmha-compile builds it, run one lane at a time by the lane emulator:
// docs/LANE_EMULATOR.md). fmha-run is a thin tool over it.
//
//   std::string err; int code;
//   auto k = mlir::fmha::CpuKernel::compile(req, {"gfx942"}, err, code);
//   ref::Inputs in = ref::makeInputs(req);
//   std::vector<uint8_t> out; std::vector<float> lse;
//   if (k && succeeded(k->run(in, in.kv_descale, out, lse, err))) ...
//   // then ref::compareWithOracle / compareWithEmulation(k->emulation())
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_EMULATOR_CPUKERNEL_H
#define FMHA_EMULATOR_CPUKERNEL_H

#include "fmha/Emulator/LaneRuntime.h"
#include "fmha/Reference/Emulate.h"
#include "fmha/Reference/Problem.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace fmha {

struct CpuKernelOptions {
  /// host | gfx942 | gfx950 | sm_90.
  std::string target = "host";
  bool folds = true;
  /// fmha-peel-masked-tiles for a GPU target (false: every tile masked). The
  /// host target never peels (HostPipelineOptions::peel).
  bool peel = true;
  /// fmha-pipeline-kv-stages on sm_90 / sm_90a (K/V staged a tile ahead by cp.async;
  /// the lane emulator copies at once). On by default, as in fmha-compile.
  bool pipeline = true;
  /// fmha-overlap-score-mma on sm_90a (as fmha-compile's; off by default).
  bool overlapScoreMma = false;
  /// fmha-overlap-softmax on sm_90a (as fmha-compile's; off by default).
  bool overlapSoftmax = false;
  /// fmha-warp-specialize on sm_90a (as fmha-compile's; on by default).
  bool warpSpecialize = true;
  bool transposeV = true; ///< with warpSpecialize: the producer transposes V
  bool pingPong = false;   ///< with warpSpecialize: fmha-ping-pong
  int64_t kvStages = 2;    ///< with `pipeline`: stages of each K/V ring
  int64_t kvUnroll = -1;   ///< AMDGPU: fmha-unroll-kv-loop's factor (-1: auto)
  /// AMDGPU: K (and on gfx950 V) by loads straight into LDS; unset: the
  /// chip's choice (gfx950 on, gfx942 off).
  std::optional<bool> ldsLoads;
  /// AMDGPU: K and V staged chunk-major in LDS; unset: the chip's choice.
  std::optional<bool> ldsSwizzle;
  std::optional<bool> tma; ///< sm_90a: K/V by TMA (unset: the chip's choice)
  std::optional<bool> stageDescales; ///< sm_90a: descales staged by the producer (unset: the chip's choice)
  int64_t warps = 0;       ///< AMDGPU: a workgroup's waves (0: the chip's)
  /// fmha-select-config's vd-route ("" or "auto": chosen), as fmha-compile's.
  std::string vdRoute;
  unsigned optLevel = 2; ///< LLVM optimization level of the JIT (0-3)
  /// Overrides of the chosen config (0 / -1: keep): block_m and SHIFT set
  /// on it afterwards (the decisions taken again); block_n stated to
  /// fmha-select-config (its block-n, as fmha-compile's --block-n).
  int64_t blockM = 0, blockN = 0, shift = -1;
};

/// One caller-owned buffer bound to a request operand (requestOperands'
/// names: "q", "k_cache", ..., "out", "lse"): its first element, its sizes
/// and its strides in elements (empty: dense row-major). Only the kv
/// descales of kv_blockscale take other strides; everything else must be
/// dense.
struct BufferView {
  std::string name;
  const void *data = nullptr;
  std::vector<int64_t> sizes, strides;
};

class CpuKernel {
public:
  ~CpuKernel();
  /// Compiles `req` for `opt.target`. On failure returns null, with the
  /// message in `error` and the tool exit code in `code`: 2 for a request
  /// that is invalid or that the target does not take, 3 for a tool error.
  static std::unique_ptr<CpuKernel> compile(const ::fmha::ref::Request &req,
                                            const CpuKernelOptions &opt,
                                            std::string &error, int &code);

  /// Runs on `in` (generated for a request with the same kernelKey(), any
  /// lengths), with `kernelDescales` as
  /// the kv descale buffer (in.kv_descale's layout: in.k_descale,
  /// in.v_descale). `out` and `lse` are sized, poisoned, then written. On a
  /// lane emulator error (divergent lanes, a missed barrier, an out-of-bounds
  /// access) fails with the message in `error`.
  LogicalResult run(const ::fmha::ref::Inputs &in,
                    const std::vector<float> &kernelDescales,
                    std::vector<uint8_t> &out, std::vector<float> &lse,
                    std::string &error);

  /// Runs on caller-owned buffers, one per operand of the kernel's request.
  /// The kernel depends only on the request's kernelKey(); the lengths come
  /// from the buffers, as on a GPU: batch and query runs from qo_indptr, the
  /// pool size from k_cache, the sequences from the page table. Before
  /// anything runs, every buffer is checked against the request (names,
  /// ranks, sizes, density) and the table and indptr against SPEC section 7
  /// (the run-time checker: no page id outside the pool, no query run past
  /// q's rows), and the lengths so found against Request::validate; the
  /// first broken rule fails the call with its message in `error` and no
  /// buffer touched. `out` and `lse` are written where the lengths say.
  LogicalResult runOnBuffers(ArrayRef<BufferView> buffers, std::string &error);
  /// The request the kernel was compiled for (its lengths are the ones it
  /// was compiled with; any others with the same kernelKey() run too).
  const ::fmha::ref::Request &request() const;

  /// What the emulating reference needs to round as this kernel does: the
  /// config's tile sizes, P type and shift, and the kernel's V-descale route.
  const ::fmha::ref::EmulateOptions &emulation() const;
  /// The config's vd_route: scalar, page_groups or scaled_p.
  const std::string &vdRoute() const;
  bool isLaneEmulation() const;
  double compileSeconds() const;
  /// Of the last run.
  double runSeconds() const;
  const ::fmha::lane::LaneRuntimeStats &laneStats() const;

private:
  struct Impl;
  explicit CpuKernel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace fmha
} // namespace mlir

#endif // FMHA_EMULATOR_CPUKERNEL_H
