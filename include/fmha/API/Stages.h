//===- Stages.h - fmha-mlir's stages in a host compiler's pipeline -*- C++ -*-//
//
// For a compiler that runs its own mlir::PassManager: register what the
// stages need, then add them. The stages are those of fmha-compile:
// tiling (select-config, tile, the folds, page-id prefetch), then the GPU
// lowering to ROCDL or NVVM and, optionally, gpu-module-to-binary.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_API_STAGES_H
#define FMHA_API_STAGES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace fmha {
namespace api {

/// The fmha dialect, the upstream dialects the lowering emits, their
/// to-LLVM interfaces and the AMDGPU/NVVM target serializers. Nothing else.
void registerDialects(mlir::DialectRegistry &registry);

/// select-config{chip}, tile, the folds (unless `folds` is false), page-id
/// prefetch: fmha.batch_prefill to the tiled form.
void buildTilingStages(mlir::OpPassManager &pm, const std::string &chip,
                       bool folds = true);

/// The tiling stages, convert-fmha-to-gpu{chip}, the gpu.module lowering
/// of the chip's vendor (ROCDL for gfx942/gfx950, NVVM for sm_90) and, when
/// `format` is not "none", gpu-module-to-binary with that format ("bin",
/// "isa", "llvm"): mlir::fmha::buildFmhaToGPUPipeline, the builder of the
/// fmha-opt GPU pipelines. Returns "" when the stages were added, else the
/// error (a chip that is not a GPU chip of the chip table), `pm` untouched.
std::string buildGPUStages(mlir::OpPassManager &pm, const std::string &chip,
                           const std::string &format = "bin",
                           const std::string &toolkit = "", bool folds = true);

} // namespace api
} // namespace fmha

#endif // FMHA_API_STAGES_H
