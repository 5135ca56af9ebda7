//===- FmhaPlugin.cpp - the fmha dialect and passes in stock mlir-opt -----===//
//
// One shared library that Debian's own mlir-opt-22 loads both ways:
//
//   mlir-opt-22 --load-dialect-plugin=libFmhaMLIRPlugin.so \
//               --load-pass-plugin=libFmhaMLIRPlugin.so \
//               in.mlir --fmha-to-rocdl-pipeline=chip=gfx942
//
// The dialect plugin registers the fmha dialect and the GPU targets'
// translation dependencies (so gpu-module-to-binary runs); the pass plugin
// registers every fmha pass and pipeline, as fmha-opt does. The library
// links libMLIR.so, the one copy of MLIR mlir-opt-22 itself uses.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/Fmha/IR/FmhaDialect.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"
#include "fmha/Pipelines/Pipelines.h"
#include "fmha/Target/GPUTarget.h"
#include "fmha/Transforms/Passes.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "FmhaDialect", LLVM_VERSION_STRING,
          [](::mlir::DialectRegistry *registry) {
            registry->insert<::mlir::fmha::FmhaDialect>();
            ::mlir::fmha::registerGPUTargetDependencies(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "FmhaPasses", LLVM_VERSION_STRING, []() {
            ::mlir::fmha::registerFmhaPasses();
            ::mlir::fmha::registerFmhaConversionPasses();
            ::mlir::fmha::registerFmhaTransformsPasses();
            ::mlir::fmha::registerFmhaPipelines();
            ::mlir::fmha::registerGpuModuleToBinaryPass();
          }};
}
