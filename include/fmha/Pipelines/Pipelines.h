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
void buildFmhaTilingPipeline(OpPassManager &pm, StringRef chip,
                             bool folds = true);

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

/// Registers the pipelines above with the global pass registry (tools only).
void registerFmhaPipelines();

} // namespace fmha
} // namespace mlir

#endif // FMHA_PIPELINES_PIPELINES_H
