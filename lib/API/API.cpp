//===- API.cpp - fmha-mlir embedded in another program --------------------===//
#include "fmha/API/Compiler.h"
#include "fmha/API/Stages.h"

#include "fmha/Compile/Compile.h"
#include "fmha/Dialect/Fmha/IR/FmhaDialect.h"
#include "fmha/Pipelines/Pipelines.h"
#include "fmha/Target/AMDGPU.h"
#include "fmha/Support/Chips.h"
#include "fmha/Support/FatalErrors.h"
#include "fmha/Target/NVVM.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;

namespace fmha {
namespace api {

std::vector<std::string> supportedChips() {
  return mlir::fmha::chipNames(mlir::fmha::kGPUChips);
}

void registerDialects(DialectRegistry &registry) {
  registry.insert<mlir::fmha::FmhaDialect>();
  mlir::fmha::registerAMDGPUTargetDependencies(registry);
  mlir::fmha::registerNVVMTargetDependencies(registry);
}

void buildTilingStages(OpPassManager &pm, const std::string &chip, bool folds) {
  mlir::fmha::buildFmhaTilingPipeline(pm, chip, folds);
}

std::string buildGPUStages(OpPassManager &pm, const std::string &chip,
                           const std::string &format,
                           const std::string &toolkit, bool folds) {
  mlir::fmha::GPUPipelineOptions options;
  options.chip = chip;
  options.format = format;
  options.toolkit = toolkit;
  options.folds = folds;
  std::string error;
  if (failed(mlir::fmha::buildFmhaToGPUPipeline(
          pm, options, [&](const llvm::Twine &msg) {
            error = msg.str();
            return failure();
          })))
    return error.empty() ? "buildGPUStages failed" : error;
  return "";
}

/// One compile in its own context; the body of compile().
static Result compileIn(MLIRContext &ctx, const Request &request,
                        const Target &target) {
  Result result;
  ctx.loadDialect<mlir::fmha::FmhaDialect>();
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      result.diagnostic += (result.diagnostic.empty() ? "" : "\n") + d.str();
    return success();
  });
  mlir::fmha::CompileOptions options;
  options.chip = target.chip;
  options.toolkit = target.toolkit;
  options.folds = target.folds;
  options.warpSpecialize = target.warpSpecialize;
  options.linkSeconds = target.linkSeconds;
  options.peel = target.peel;
  options.pipeline = target.pipeline;
  options.transposeV = target.transposeV;
  options.pingPong = target.pingPong;
  options.stageDescales = target.stageDescales;
  options.kvStages = target.kvStages;
  options.kvUnroll = target.kvUnroll;
  options.ldsLoads = target.ldsLoads;
  options.ldsSwizzle = target.ldsSwizzle;
  options.tma = target.tma;
  options.vdRoute = target.vdRoute;
  options.warps = target.warps;
  options.blockN = target.blockN;
  switch (target.format) {
  case Format::Binary: options.emit = "bin"; break;
  case Format::Assembly: options.emit = "isa"; break;
  case Format::LLVMIR: options.emit = "llvm"; break;
  case Format::MLIR: options.emit = "mlir"; break;
  }
  bool bad = false;
  FailureOr<mlir::fmha::CompileResult> res =
      mlir::fmha::compileRequest(ctx, request, options, &bad);
  if (failed(res)) {
    result.badInput = bad;
    if (result.diagnostic.empty())
      result.diagnostic = "compilation failed";
    return result;
  }
  result.kernel = Kernel{std::move(res->payload), std::move(res->manifest),
                         std::move(res->kernel)};
  return result;
}

Result compile(const Request &request, const Target &target) {
  DialectRegistry registry;
  registerDialects(registry);
  // One context per call, no thread pool of its own: calls on several
  // threads share nothing.
  auto ctx = std::make_unique<MLIRContext>(registry,
                                           MLIRContext::Threading::DISABLED);
  Result result;
  std::string fatal;
  // A fatal LLVM error or a crash inside ends this call, not the host
  // (fmha/Support/FatalErrors.h); the abandoned context is leaked.
  if (!mlir::fmha::runRecovering(
          [&] { result = compileIn(*ctx, request, target); }, fatal)) {
    (void)ctx.release();
    Result failed;
    failed.diagnostic = "internal compiler error, the compile was abandoned: " +
                        fatal;
    return failed;
  }
  return result;
}

} // namespace api
} // namespace fmha
