//===- fmha-opt.cpp - mlir-opt with the fmha dialect, passes and pipelines ===//
#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/Fmha/IR/FmhaDialect.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"
#include "fmha/Pipelines/Pipelines.h"
#include "fmha/Target/AMDGPU.h"
#include "fmha/Target/ModuleToBinary.h"
#include "fmha/Target/NVVM.h"
#include "fmha/Transforms/Passes.h"
#include "fmha/Version.h"
#include "../common/AtomicOutput.h"
#include "../common/ToolMain.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

int main(int argc, char **argv) {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "fmha-mlir " << FMHA_VERSION << "\n";
  });
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  // Translations and ConvertToLLVM interfaces, so gpu-module-to-binary runs.
  mlir::fmha::registerAMDGPUTargetDependencies(registry);
  mlir::fmha::registerNVVMTargetDependencies(registry);
  mlir::registerAllPasses();
  mlir::fmha::registerFmhaPasses();
  mlir::fmha::registerFmhaConversionPasses();
  mlir::fmha::registerFmhaPipelines();
  mlir::fmha::registerFmhaTransformsPasses();
  mlir::fmha::registerGpuModuleToBinaryPass();
  registry.insert<mlir::fmha::FmhaDialect>();
  // The overview of --help: what every fmha pass does, with its sketch.
  static const char *passDocs =
#include "PassDocs.inc"
      ;
  std::string overview = std::string("fmha-mlir optimizer driver\n\n") +
                         "The fmha passes (full descriptions):\n\n" + passDocs;
  llvm::InitLLVM init(argc, argv);
  fmha_tools::setUpToolErrors("fmha-opt");
  auto [input, output] =
      mlir::registerAndParseCLIOptions(argc, argv, overview, registry);
  if (output == "-")
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));
  // -o FILE: the IR goes to a temporary beside FILE, renamed onto it only when
  // the run succeeded (AtomicOutput.h); a failed run leaves FILE as it was.
  fmha_tools::OutputSet set;
  std::string tmp;
  if (std::string err = set.add(output, "", 0, &tmp); !err.empty()) {
    llvm::errs() << "fmha-opt: " << err << "\n";
    return 3;
  }
  if (failed(mlir::MlirOptMain(argc, argv, input, tmp, registry)))
    return 1;
  if (std::string err = set.commit(); !err.empty()) {
    llvm::errs() << "fmha-opt: " << err << "\n";
    return 3;
  }
  return 0;
}
