//===- fmha-opt.cpp - mlir-opt with the fmha dialect, passes and pipelines ===//
#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/Fmha/IR/FmhaDialect.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"
#include "fmha/Pipelines/Pipelines.h"
#include "fmha/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllPasses();
  mlir::fmha::registerFmhaPasses();
  mlir::fmha::registerFmhaConversionPasses();
  mlir::fmha::registerFmhaPipelines();
  mlir::fmha::registerFmhaTransformsPasses();
  registry.insert<mlir::fmha::FmhaDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fmha-mlir optimizer driver\n", registry));
}
