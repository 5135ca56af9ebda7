//===- Pipelines.h - staged pipeline builders --------------------*- C++ -*-===//
//
// One builder per pipeline, each with an options struct, so a host compiler
// can put our stages into its own pass manager. Each is registered for
// fmha-opt under the name in its comment.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_PIPELINES_PIPELINES_H
#define FMHA_PIPELINES_PIPELINES_H

#include "fmha/Target/ModuleToBinary.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir {
class OpPassManager;
namespace fmha {
struct ChipInfo;

struct HostPipelineOptions : public PassPipelineOptions<HostPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("config chip for ops without a config (host by default)"),
      llvm::cl::init("host")};
  PassOptions::Option<bool> folds{
      *this, "folds",
      llvm::cl::desc("run the folds (descales, exp2 shift, vd rescale); off gives "
                     "the unfolded tiled form, for measurements"),
      llvm::cl::init(true)};
  /// Off by default on the host: the split loop doubles the JIT's code (and
  /// its compile time) and buys nothing on the CPU; the GPU pipelines run it.
  PassOptions::Option<bool> peel{
      *this, "peel",
      llvm::cl::desc("run fmha-peel-masked-tiles (full tiles without a mask); "
                     "off by default on the host, where it doubles the JIT's "
                     "code for no gain"),
      llvm::cl::init(false)};
};

/// The tiled stages every target shares:
///   fmha-select-config{chip=...}, fmha-tile, fmha-fold-descales,
///   fmha-fold-exp2-shift, fmha-fold-vd-exp2, fmha-fold-vd-rescale (the
///   folds unless `folds` is false), fmha-prefetch-page-ids,
///   fmha-peel-masked-tiles and fmha-drop-empty-row-guard (unless `peel`
///   is false), fmha-expand-masks
/// `perTokenPrefetch` false leaves per-token page ids in their tile (the GPU
/// lowering loads them per lane; carrying them would cost registers).
/// `vdRoute` (empty: chosen) is fmha-select-config's vd-route, `warps` (0:
/// the chip's) its warps, `blockN` (0: the chip's) its block-n.
void buildFmhaTilingPipeline(OpPassManager &pm, StringRef chip,
                             bool folds = true, bool perTokenPrefetch = true,
                             bool peel = true, StringRef vdRoute = "",
                             int64_t warps = 0, int64_t blockN = 0);

struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  /// A GPU chip of the chip table (fmha/Support/Chips.h). gfx942 here and in
  /// fmha-to-rocdl-pipeline / fmha-to-lanes-pipeline; fmha-to-nvvm-pipeline
  /// registers sm_90 as its default.
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("the GPU chip: an AMDGPU chip for fmha-to-rocdl-pipeline "
                     "(default gfx942), an NVIDIA chip for "
                     "fmha-to-nvvm-pipeline (default sm_90), either for "
                     "fmha-to-lanes-pipeline (default gfx942)"),
      llvm::cl::init("gfx942")};
  PassOptions::Option<bool> folds{
      *this, "folds",
      llvm::cl::desc("run the folds (descales, exp2 shift, vd rescale)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> peel{
      *this, "peel",
      llvm::cl::desc("run fmha-peel-masked-tiles (full tiles without a mask)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> pipeline{
      *this, "pipeline",
      llvm::cl::desc("NVIDIA: run fmha-pipeline-kv-stages (the full tiles' "
                     "K/V staged one tile ahead by cp.async; on by default: "
                     "1.15-1.39x on the H200, bench/NOTES.md)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> warpSpecialize{
      *this, "warp-specialize",
      llvm::cl::desc("sm_90a: run fmha-warp-specialize (a producer warpgroup, "
                     "two consumer warpgroups; on by default, false for one "
                     "warpgroup)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> transposeV{
      *this, "producer-transposes-v",
      llvm::cl::desc("with warp-specialize: the producer transposes each V "
                     "tile (on by default; false: each consumer does)"),
      llvm::cl::init(true)};
  PassOptions::Option<llvm::cl::boolOrDefault> stageDescales{
      *this, "stage-descales",
      llvm::cl::desc("with warp-specialize and producer-transposes-v: the "
                     "per-key descales of tiles of whole pages of 8 keys or "
                     "more read by the producer a tile ahead into shared "
                     "memory (fmha-warp-specialize stage-descales); unset: "
                     "the chip's choice (docs/REGIMES.md), true: every such "
                     "page size, false: off"),
      llvm::cl::init(llvm::cl::BOU_UNSET)};
  PassOptions::Option<bool> pingPong{
      *this, "ping-pong",
      llvm::cl::desc("with warp-specialize: run fmha-ping-pong (the consumers "
                     "issue S = Q K^T in turn; off by default)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> vdRoute{
      *this, "vd-route",
      llvm::cl::desc("fmha-select-config's vd-route: the V-descale route to "
                     "state (scalar, page_groups, scaled_p, exp2_bias; empty "
                     "or auto: chosen)"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> kvUnroll{
      *this, "kv-unroll",
      llvm::cl::desc("AMDGPU: fmha-unroll-kv-loop's factor (-1, the default: "
                     "its rule, 2 for kv_blockscale, else 1; 1: off)"),
      llvm::cl::init(-1)};
  PassOptions::Option<llvm::cl::boolOrDefault> ldsLoads{
      *this, "lds-loads",
      llvm::cl::desc("AMDGPU: K brought by loads straight into LDS (V too on "
                     "gfx950), a tile's V and the next tile's K in flight "
                     "behind the products (fmha-pipeline-kv-stages "
                     "single-stage); unset: the chip's choice (gfx950 on, "
                     "gfx942 off), true or false"),
      llvm::cl::init(llvm::cl::BOU_UNSET)};
  PassOptions::Option<llvm::cl::boolOrDefault> ldsSwizzle{
      *this, "lds-swizzle",
      llvm::cl::desc("AMDGPU: the K and V tiles the lanes stage in LDS "
                     "chunk-major, across the LDS banks (convert-fmha-to-gpu "
                     "lds-bank-swizzle); unset: the chip's choice, true or "
                     "false"),
      llvm::cl::init(llvm::cl::BOU_UNSET)};
  PassOptions::Option<llvm::cl::boolOrDefault> tma{
      *this, "tma",
      llvm::cl::desc("sm_90a, with warp-specialize and producer-transposes-v: "
                     "the K/V tiles brought by TMA, one box per run of "
                     "gcd(page size, BlockN) keys, the kernel taking a tensor "
                     "map per cache; unset: the chip's choice (docs/REGIMES.md), "
                     "true: wherever a box is a multiple of 8 rows, false: "
                     "cp.async"),
      llvm::cl::init(llvm::cl::BOU_UNSET)};
  PassOptions::Option<int64_t> warps{
      *this, "warps",
      llvm::cl::desc("AMDGPU: fmha-select-config's warps, the waves of a "
                     "workgroup sharing each K/V tile (0, the default: the "
                     "chip's 4)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> blockN{
      *this, "block-n",
      llvm::cl::desc("fmha-select-config's block-n: KV tokens a KV-loop "
                     "iteration takes (0, the default: the chip's)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("what gpu-module-to-binary makes: bin (HSACO), isa "
                     "(assembly), llvm (bitcode), or none (stop at the "
                     "ROCDL-level LLVM dialect)"),
      llvm::cl::init("bin")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("folder whose llvm/bin/ld.lld links HSACO (default: the "
                     "build tree's, which points at Debian's ld.lld)"),
      llvm::cl::init("")};
};

/// Reports a pipeline builder's error (one line, naming the rule broken);
/// returns failure(). fmha-opt's handler prints it as an error.
using PipelineErrorHandler = function_ref<LogicalResult(const Twine &)>;

/// The back half of every GPU pipeline (and of fmha::compileRequest, which
/// reads the kernel between the halves): the gpu.module lowering of `chip`'s
/// vendor (ROCDL or NVVM) and, unless `format` is none, gpu-module-to-binary
/// (NVIDIA: PTX for bin and isa; AMDGPU: `toolkit` holds llvm/bin/ld.lld,
/// empty for the build's; ld.lld is killed after `linkSeconds`, 0: never).
void buildGPUBackHalfPipeline(OpPassManager &pm, const ChipInfo &chip,
                              StringRef format, StringRef toolkit,
                              unsigned linkSeconds = kDefaultLinkSeconds);

/// The one GPU stage builder (fmha-to-rocdl-pipeline, fmha-to-nvvm-pipeline
/// and the API's buildGPUStages): the front half
/// (buildFmhaToLaneKernelPipeline), the gpu.module lowering of the chip's
/// vendor (ROCDL for AMDGPU chips, NVVM for NVIDIA chips) and, unless
/// format=none, gpu-module-to-binary (NVIDIA: format isa, PTX through LLVM's
/// NVPTX back end, also for `bin`: a cubin needs ptxas). A chip that is not a
/// GPU chip of the chip table fails through `onError` before any pass is
/// added.
LogicalResult buildFmhaToGPUPipeline(OpPassManager &pm,
                                     const GPUPipelineOptions &options,
                                     PipelineErrorHandler onError);

/// fmha-to-rocdl-pipeline: buildFmhaToGPUPipeline for an AMDGPU chip. Another
/// chip fails, e.g. "fmha-to-rocdl-pipeline: chip 'sm_90' is an NVIDIA chip;
/// expected an AMDGPU chip (gfx942 or gfx950)". No ROCm needed.
LogicalResult buildFmhaToROCDLPipeline(OpPassManager &pm,
                                       const GPUPipelineOptions &options,
                                       PipelineErrorHandler onError);

/// fmha-to-nvvm-pipeline: buildFmhaToGPUPipeline for an NVIDIA chip (sm_90);
/// an AMDGPU or host chip fails the same way.
LogicalResult buildFmhaToNVVMPipeline(OpPassManager &pm,
                                      const GPUPipelineOptions &options,
                                      PipelineErrorHandler onError);

/// fmha-to-host-pipeline: the tiled form lowered to the LLVM dialect for the
/// CPU (ExecutionEngine / mlir-runner). Equivalent to
///   fmha-select-config{chip=host} fmha-tile fmha-fold-descales
///   fmha-fold-exp2-shift fmha-fold-vd-rescale fmha-prefetch-page-ids
///   convert-fmha-to-host
///   scf-forall-to-for canonicalize fmha-expand-fp8-arith
///   arith-expand{include-bf16}
///   lower-vector-multi-reduction convert-vector-to-scf{full-unroll}
///   math-expand-ops{ops=tanh} expand-strided-metadata lower-affine convert-scf-to-cf
///   convert-vector-to-llvm convert-math-to-llvm finalize-memref-to-llvm
///   convert-arith-to-llvm convert-index-to-llvm convert-func-to-llvm
///   convert-cf-to-llvm convert-ub-to-llvm reconcile-unrealized-casts
void buildFmhaToHostPipeline(OpPassManager &pm,
                             const HostPipelineOptions &options);

/// sm_90a's choice of TMA (LaneKernelOptions::tma unset): kernels whose
/// boxes have at least this many rows, gcd(page size, BlockN) (pages 64,
/// 128, 192, 256, 1024 at BlockN 128, not 160 or 1100); measured on an H100 against cp.async: page 1024 +3.8 %,
/// page 64 +1.9 %, page 16 -0.7 % (bench/NOTES.md, sixteenth session).
inline constexpr int64_t kTmaMinBoxRows = 64;

/// sm_90a's choice of staged descales (LaneKernelOptions::stageDescales
/// unset): pages of at most this many keys (8 and 16: 8 or more page
/// groups a tile), where the producer also copies by TMA
/// (kTmaStagedMinBoxRows); measured on an H100, TMA and staged descales
/// against TMA alone: page 16 +3.7 %, page 64 -0.2 % (bench/NOTES.md,
/// sixteenth session).
inline constexpr int64_t kStageDescalesMaxPage = 16;
/// The fewest box rows for TMA where the producer stages the descales
/// (fmha-outline-kernel tma-staged-min-box-rows), asked for or not: any
/// box TMA can take (8 rows, the swizzle atom); the combination measured at
/// page 16 (+3.7 % over TMA alone, about +2 % over cp.async without staged
/// descales: bench/NOTES.md, seventeenth session).
inline constexpr int64_t kTmaStagedMinBoxRows = 8;

/// The options of the GPU front half beyond the chip.
struct LaneKernelOptions {
  bool folds = true;
  bool peel = true;
  /// NVIDIA: fmha-pipeline-kv-stages (then fmha-hoist-tile-reads).
  bool pipeline = true;
  /// sm_90a, with `pipeline`: fmha-overlap-score-mma.
  bool overlapScoreMma = false;
  /// sm_90a with warpSpecialize: fmha-overlap-softmax (a consumer's softmax
  /// of tile t + 1 while P V of tile t computes). Off by default.
  bool overlapSoftmax = false;
  /// sm_90a, with `pipeline`: fmha-warp-specialize (a producer warpgroup
  /// and two consumer warpgroups, one query head each; grids it cannot
  /// split keep one warpgroup). On by default with transposeV: measured
  /// 1.14-1.17x at page 1024 and 1.16x at page 64 causal (1.03-1.04x at
  /// page 64 without a mask), Sk >= 8k, on an H100, the full sm_90a matrix
  /// passing with it (bench/NOTES.md, 2026-12-06).
  bool warpSpecialize = true;
  /// With warpSpecialize: the producer transposes V (transpose-v).
  bool transposeV = true;
  /// With warpSpecialize: fmha-ping-pong (the consumers take turns at S).
  bool pingPong = false;
  /// With warpSpecialize and transposeV: the per-key descales staged by
  /// the producer (fmha-warp-specialize stage-descales); unset: the chip's
  /// choice (sm_90a: pages of at most kStageDescalesMaxPage keys).
  std::optional<bool> stageDescales;
  /// With `pipeline`: stages of each K/V ring (fmha-pipeline-kv-stages).
  int64_t kvStages = 2;
  /// AMDGPU: fmha-unroll-kv-loop's factor (-1: its auto rule, 2 for a loop
  /// that gathers descales, 1 otherwise; 1: off).
  int64_t kvUnroll = -1;
  /// AMDGPU: fmha-pipeline-kv-stages single-stage (K by loads straight
  /// into LDS, V too on gfx950, this tile's V and the next tile's K in
  /// flight behind the products). Unset: the chip's choice, on for gfx950
  /// (bench/NOTES.md, 2026-12-06, twelfth session: fewer modelled cycles
  /// on every fp8 row), off for gfx942 (fourteenth session: its 4-byte
  /// loads cost more than they hide on most rows).
  std::optional<bool> ldsLoads;
  /// AMDGPU: the chunk-major LDS layout of the tiles the lanes stage
  /// (convert-fmha-to-gpu lds-bank-swizzle). Unset: the chip's choice.
  std::optional<bool> ldsSwizzle;
  /// sm_90a, with warpSpecialize and transposeV: K/V by TMA
  /// (fmha-outline-kernel tma; docs/ABI.md, tensor-map arguments). Unset:
  /// the chip's choice; true: wherever a box of gcd(page, tile rows) rows
  /// is a multiple of 8; false: cp.async.
  std::optional<bool> tma;
  /// fmha-select-config's vd-route ("" or "auto": chosen).
  std::string vdRoute;
  /// fmha-select-config's warps (0: the chip's; AMDGPU: 8 shares each K/V
  /// tile among 8 waves, block_m 256).
  int64_t warps = 0;
  /// fmha-select-config's block-n (0: the chip's).
  int64_t blockN = 0;
};
/// "" when the lowering's counts are in range, else the rule they break:
/// kv stages 2 to 8, kv unroll -1 (auto) or 1 to 8, warps 0 (the chip's)
/// to 16, block_n 0 (the chip's) to kMaxBlockN (larger values made rings,
/// unrolled loops or tiles that exhausted the host's memory). compileRequest
/// and the CPU kernel's compile check it.
inline constexpr int64_t kMaxBlockN = 1024;
std::string loweringCountsError(int64_t kvStages, int64_t kvUnroll, int64_t warps,
                                int64_t blockN = 0);

/// The front half's options as fmha-compile's CompileOptions and the lane
/// emulator's CpuKernelOptions give them (the same seventeen fields).
template <typename Options>
LaneKernelOptions laneKernelOptionsOf(const Options &o) {
  LaneKernelOptions l;
  l.folds = o.folds;
  l.peel = o.peel;
  l.pipeline = o.pipeline;
  l.overlapScoreMma = o.overlapScoreMma;
  l.overlapSoftmax = o.overlapSoftmax;
  l.warpSpecialize = o.warpSpecialize;
  l.transposeV = o.transposeV;
  l.pingPong = o.pingPong;
  l.stageDescales = o.stageDescales;
  l.kvStages = o.kvStages;
  l.kvUnroll = o.kvUnroll;
  l.ldsLoads = o.ldsLoads;
  l.ldsSwizzle = o.ldsSwizzle;
  l.tma = o.tma;
  l.vdRoute = o.vdRoute;
  l.warps = o.warps;
  l.blockN = o.blockN;
  return l;
}
/// The GPU front half shared by the GPU pipelines: the tiling stages for
/// `chip`, canonicalize + CSE, fmha-outline-kernel{chip},
/// convert-fmha-to-gpu{chip}. Ends at the
/// lane-level kernel (gpu/amdgpu/rocdl or inline PTX ops).
void buildFmhaToLaneKernelPipeline(OpPassManager &pm, StringRef chip,
                                   const LaneKernelOptions &options);

/// fmha-to-lanes-pipeline: the lane emulator's compile (docs/LANE_EMULATOR.md).
/// The GPU front half for the chip, then fmha-lanes-to-host and the host
/// lowering to the LLVM dialect; the result runs in the ExecutionEngine with
/// the lane runtime's symbols (fmha/Emulator/LaneRuntime.h).
void buildFmhaToLanesPipeline(OpPassManager &pm,
                              const GPUPipelineOptions &options);
/// Only the back half: fmha-lanes-to-host{check-bounds} and the host
/// lowering, on a module at the lane-kernel level. `checkBounds` guards every
/// memory access of the kernel (an out-of-range index is reported by the lane
/// runtime, the access skipped).
void buildLanesToLLVMPipeline(OpPassManager &pm, bool checkBounds = true);

/// Registers the pipelines above with the global pass registry (tools only).
void registerFmhaPipelines();

} // namespace fmha
} // namespace mlir

#endif // FMHA_PIPELINES_PIPELINES_H
