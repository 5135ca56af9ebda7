//===- Pipelines.h - staged pipeline builders --------------------*- C++ -*-===//
//
// One builder per pipeline, each with an options struct, so a host compiler
// can put our stages into its own pass manager. Each is registered for
// fmha-opt under the name in its comment.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_PIPELINES_PIPELINES_H
#define FMHA_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace fmha {

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
};

/// The tiled stages every target shares:
///   fmha-select-config{chip=...}, fmha-tile, fmha-fold-descales,
///   fmha-fold-exp2-shift, fmha-fold-vd-rescale, fmha-prefetch-page-ids
/// `perTokenPrefetch` false leaves per-token page ids in their tile (the GPU
/// lowering loads them per lane; carrying them would cost registers).
void buildFmhaTilingPipeline(OpPassManager &pm, StringRef chip,
                             bool folds = true, bool perTokenPrefetch = true);

struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("gfx942 or gfx950"), llvm::cl::init("gfx942")};
  PassOptions::Option<bool> folds{
      *this, "folds",
      llvm::cl::desc("run the folds (descales, exp2 shift, vd rescale)"),
      llvm::cl::init(true)};
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

/// The tiling stages, convert-fmha-to-gpu{chip}, the gpu.module lowering to
/// ROCDL and, unless format=none, gpu-module-to-binary. No ROCm needed.
void buildFmhaToROCDLPipeline(OpPassManager &pm,
                              const GPUPipelineOptions &options);

/// The same for NVIDIA (chip sm_90): the gpu.module lowering to NVVM, then
/// gpu-module-to-binary with format isa (PTX, through LLVM's NVPTX back end)
/// unless format=none (`bin` gives PTX too: a cubin needs ptxas).
void buildFmhaToNVVMPipeline(OpPassManager &pm,
                             const GPUPipelineOptions &options);

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

/// The GPU front half shared by the GPU pipelines: the tiling stages for
/// `chip`, canonicalize + CSE, fmha-outline-kernel{chip},
/// convert-fmha-to-gpu{chip}. Ends at the
/// lane-level kernel (gpu/amdgpu/rocdl or inline PTX ops).
void buildFmhaToLaneKernelPipeline(OpPassManager &pm, StringRef chip,
                                   bool folds);

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
