//===- KernelFlags.h - the lowering flags shared by the tools ---*- C++ -*-===//
//
// The flags that choose how a request is lowered (the folds, the peel, the
// NVIDIA staging, warp specialization and its forms, the V-descale route),
// shared by fmha-compile and fmha-run so both take the same spelling and
// defaults. applyKernelFlags fills the libraries' option structs
// (mlir::fmha::CompileOptions, mlir::fmha::CpuKernelOptions: the same
// field names). Tools only.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_TOOLS_COMMON_KERNELFLAGS_H
#define FMHA_TOOLS_COMMON_KERNELFLAGS_H

#include "ToolMain.h"
#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <string>

namespace fmha_tools {
namespace cl = llvm::cl;

inline cl::opt<bool> optNoFolds(
    "no-folds",
    cl::desc("skip the folds: fmha-fold-descales, fmha-fold-exp2-shift, "
             "fmha-fold-vd-exp2, fmha-fold-vd-rescale (measurements)"),
    cl::init(false), cl::cat(kToolCategory));
inline cl::opt<bool> optNoPeel(
    "no-peel",
    cl::desc("skip fmha-peel-masked-tiles on a GPU target: every KV tile masked "
             "(measurements; the host never peels)"),
    cl::init(false), cl::cat(kToolCategory));
inline cl::opt<bool> optPipeline(
    "pipeline",
    cl::desc("sm_90 / sm_90a: run fmha-pipeline-kv-stages: the full tiles' K/V "
             "staged one tile ahead by cp.async into a 2-stage ring (on by "
             "default; --pipeline=false for the synchronous loop; the lane "
             "emulator copies at once)"),
    cl::init(true), cl::cat(kToolCategory));
inline cl::opt<bool> optOverlapScoreMma(
    "overlap-score-mma",
    cl::desc("sm_90a: run fmha-overlap-score-mma: S = Q K^T started before the V "
             "tile's wait and transpose, waited for where S is first used (off by "
             "default)"),
    cl::init(false), cl::cat(kToolCategory));
inline cl::opt<bool> optOverlapSoftmax(
    "overlap-softmax",
    cl::desc("sm_90a with --warp-specialize: run fmha-overlap-softmax: each consumer "
             "runs the softmax of tile t + 1 while P V of tile t computes (off by "
             "default)"),
    cl::init(false), cl::cat(kToolCategory));
inline cl::opt<bool> optWarpSpecialize(
    "warp-specialize",
    cl::desc("sm_90a: run fmha-warp-specialize: a producer warpgroup stages K/V "
             "for two consumer warpgroups (one query head each, mbarrier "
             "handoff, setmaxnreg); on by default (--warp-specialize=false: one "
             "warpgroup)"),
    cl::init(true), cl::cat(kToolCategory));
inline cl::opt<bool> optTransposeV(
    "producer-transposes-v",
    cl::desc("with --warp-specialize: the producer warpgroup transposes each V "
             "tile into a ring the consumers read as it is (else each consumer "
             "transposes it); on by default"),
    cl::init(true), cl::cat(kToolCategory));
inline cl::opt<bool> optPingPong(
    "ping-pong",
    cl::desc("with --warp-specialize: run fmha-ping-pong: the consumer "
             "warpgroups issue S = Q K^T in turn (named barriers), so their "
             "products alternate on the tensor cores (off by default)"),
    cl::init(false), cl::cat(kToolCategory));
inline cl::opt<int64_t> optKvStages(
    "kv-stages",
    cl::desc("sm_90 / sm_90a with --pipeline: stages of each K/V ring in shared "
             "memory (fmha-pipeline-kv-stages; default 2, at least 2)"),
    cl::init(2), cl::cat(kToolCategory));
inline cl::opt<int64_t> optKvUnroll(
    "kv-unroll",
    cl::desc("AMDGPU: unroll the loop of full KV tiles by this factor "
             "(fmha-unroll-kv-loop; -1, the default: 2 for kv_blockscale, else "
             "1; 1: off)"),
    cl::init(-1), cl::cat(kToolCategory));
inline cl::opt<cl::boolOrDefault> optLdsLoads(
    "lds-loads",
    cl::desc("AMDGPU: K brought by loads straight into LDS (buffer_load ... "
             "lds; V too on gfx950), this tile's V and the next tile's K in "
             "flight behind the products (fmha-pipeline-kv-stages "
             "single-stage); unset: the chip's choice (gfx950 on, gfx942 "
             "off), =true or =false; an NVIDIA chip ignores it"),
    cl::init(cl::BOU_UNSET), cl::cat(kToolCategory));
inline cl::opt<cl::boolOrDefault> optLdsSwizzle(
    "lds-swizzle",
    cl::desc("AMDGPU: the K and V tiles the lanes stage in LDS chunk-major "
             "(16-byte column chunks of consecutive rows contiguous: operand "
             "reads without bank conflicts; V^T's k steps in pairs; "
             "convert-fmha-to-gpu lds-bank-swizzle); unset: the chip's "
             "choice, =true or =false; an NVIDIA chip ignores it"),
    cl::init(cl::BOU_UNSET), cl::cat(kToolCategory));
inline cl::opt<cl::boolOrDefault> optStageDescales(
    "stage-descales",
    cl::desc("sm_90a with --warp-specialize and --producer-transposes-v: the "
             "per-key descales of tiles of whole pages (8 keys or more) read "
             "by the producer a tile ahead into shared memory, the consumers "
             "reading them there; unset: the chip's choice (pages of at most "
             "16 keys, docs/REGIMES.md), =true: every such page, =false: off"),
    cl::init(cl::BOU_UNSET), cl::cat(kToolCategory));
inline cl::opt<cl::boolOrDefault> optTma(
    "tma",
    cl::desc("sm_90a with --warp-specialize and --producer-transposes-v: the "
             "K/V tiles brought by TMA, one box per run of gcd(page size, "
             "BlockN) keys, the kernel taking a tensor map per cache "
             "(docs/ABI.md); unset: the chip's choice (docs/REGIMES.md), "
             "=true: wherever a box is a multiple of 8 rows (cp.async "
             "otherwise), =false: cp.async"),
    cl::init(cl::BOU_UNSET), cl::cat(kToolCategory));
inline cl::opt<int64_t> optWarps(
    "warps",
    cl::desc("AMDGPU: waves of a workgroup sharing each K/V tile (0, the "
             "default: the chip's 4; 8: block_m 256, where two waves a SIMD "
             "fit, D <= 128)"),
    cl::init(0), cl::cat(kToolCategory));
inline cl::opt<int64_t> optBlockN(
    "block-n",
    cl::desc("KV tokens a KV-loop iteration takes instead of the chip's "
             "(0, the default: the chip's; fmha-select-config block-n); "
             "checked like a stated config"),
    cl::init(0), cl::cat(kToolCategory));
inline cl::opt<std::string> optVdRoute(
    "vd-route",
    cl::desc("the V-descale route to state instead of the compiler's choice: "
             "scalar | page_groups | scaled_p | exp2_bias, and per_key on "
             "fmha-run's host target (auto: chosen; docs/REGIMES.md); a route "
             "the request cannot take is an error"),
    cl::init("auto"), cl::cat(kToolCategory));

/// The flags into `o` (CompileOptions or CpuKernelOptions).
template <typename Options> void applyKernelFlags(Options &o) {
  o.folds = !optNoFolds;
  o.peel = !optNoPeel;
  o.pipeline = optPipeline;
  o.overlapScoreMma = optOverlapScoreMma;
  o.overlapSoftmax = optOverlapSoftmax;
  o.warpSpecialize = optWarpSpecialize;
  o.transposeV = optTransposeV;
  o.pingPong = optPingPong;
  o.kvStages = optKvStages;
  o.kvUnroll = optKvUnroll;
  if (optLdsLoads != cl::BOU_UNSET)
    o.ldsLoads = optLdsLoads == cl::BOU_TRUE;
  if (optLdsSwizzle != cl::BOU_UNSET)
    o.ldsSwizzle = optLdsSwizzle == cl::BOU_TRUE;
  o.vdRoute = optVdRoute;
  o.warps = optWarps;
  o.blockN = optBlockN;
  if (optStageDescales != cl::BOU_UNSET)
    o.stageDescales = optStageDescales == cl::BOU_TRUE;
  if (optTma != cl::BOU_UNSET)
    o.tma = optTma == cl::BOU_TRUE;
}

} // namespace fmha_tools

#endif // FMHA_TOOLS_COMMON_KERNELFLAGS_H
