//===- fmha-elf-manifest.cpp - print the kernel manifest of an HSACO ------===//
//
// fmha-elf-manifest FILE.hsaco
//   prints the JSON manifest (fmha/Target/AMDGPU.h, toJson) read from the
//   code object's NT_AMDGPU_METADATA note.
// fmha-elf-manifest --from-mlir FILE.mlir --chip gfx942 -o OUT.hsaco
//   serializes the one gpu.module of FILE.mlir with serializeToHsaco, writes
//   the code object, and prints its manifest; --isa-out also writes the
//   AMDGCN assembly of the same pipeline (serializeToIsa).
// The MLIR context holds only what registerAMDGPUTargetDependencies adds, so
// this tool also checks that the library's documented registry suffices.
// Exit: 0 success, 1 invalid input or failed compilation, 2 usage error,
// 3 an output that could not be written (nothing is written then).
//
//===----------------------------------------------------------------------===//
#include "fmha/Target/AMDGPU.h"
#include "../common/AtomicOutput.h"
#include "../common/ToolMain.h"
#include "fmha/Version.h"
#include "llvm/Config/llvm-config.h"
#include "fmha/Target/ToolkitConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("fmha-elf-manifest options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<FILE.hsaco>"),
                                      cl::cat(category));
static cl::opt<std::string>
    fromMlir("from-mlir",
             cl::desc("Serialize the gpu.module of this MLIR file first"),
             cl::value_desc("FILE.mlir"), cl::cat(category));
static cl::opt<std::string> chip("chip", cl::desc("AMDGPU chip (--from-mlir)"),
                                 cl::init("gfx942"), cl::cat(category));
static cl::opt<std::string>
    features("features", cl::desc("Target features, e.g. +sramecc,-xnack"),
             cl::init(""), cl::cat(category));
static cl::opt<std::string> toolkit(
    "toolkit",
    cl::desc("Folder holding llvm/bin/ld.lld (default: the build tree's)"),
    cl::init(FMHA_DEFAULT_ROCM_TOOLKIT), cl::cat(category));
static cl::opt<std::string>
    outputFile("o", cl::desc("Write the code object here (--from-mlir)"),
               cl::value_desc("OUT.hsaco"), cl::cat(category));
static cl::opt<std::string>
    isaFile("isa-out", cl::desc("Also write the AMDGCN assembly (--from-mlir)"),
            cl::value_desc("OUT.s"), cl::cat(category));

static int usageError(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "fmha-elf-manifest") << message << "\n";
  return 2;
}

static int inputError(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "fmha-elf-manifest") << message << "\n";
  return 1;
}

/// A write that failed: exit 3 (a tool error, not bad input).
static int writeError(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "fmha-elf-manifest") << message << "\n";
  return 3;
}

/// Serializes the gpu.module of `path`; returns the code object bytes.
static FailureOr<SmallVector<char>> compile(StringRef path,
                                             std::string *isaText) {
  DialectRegistry registry;
  fmha::registerAMDGPUTargetDependencies(registry);
  MLIRContext context(registry);
  // The errors point into FILE.mlir; the lowered op dumps would drown them.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(path, sourceMgr, &context);
  if (!module)
    return failure();

  fmha::AMDGPUTargetOptions options;
  options.chip = chip;
  options.features = features;
  if (!isaFile.empty()) {
    FailureOr<std::string> isa = fmha::serializeToIsa(*module, options);
    if (failed(isa))
      return failure();
    *isaText = std::move(*isa);
  }
  return fmha::serializeToHsaco(*module, toolkit, options);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  fmha_tools::setUpToolErrors("fmha-elf-manifest");
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "fmha-mlir " << FMHA_VERSION << " (LLVM " << LLVM_VERSION_STRING << ")\n";
  });
  // Usage errors exit 2 (cl's default, 1, means "fail" elsewhere).
  if (!cl::ParseCommandLineOptions(
          argc, argv, "Print the JSON kernel manifest of an AMDGPU code object\n",
          &llvm::errs()))
    return 2;

  if (fromMlir.empty() == inputFile.empty())
    return usageError("give either FILE.hsaco or --from-mlir FILE.mlir");
  if (fromMlir.empty() && (!outputFile.empty() || !isaFile.empty()))
    return usageError("-o and --isa-out need --from-mlir");

  SmallVector<char> elf;
  if (!fromMlir.empty()) {
    std::string isa;
    FailureOr<SmallVector<char>> bytes = compile(fromMlir, &isa);
    if (failed(bytes))
      return 1;
    elf = std::move(*bytes);
    // -o and --isa-out: both or neither (AtomicOutput.h).
    fmha_tools::OutputSet set;
    std::string err;
    if (!outputFile.empty())
      err = set.add(outputFile, elf.data(), elf.size());
    if (err.empty() && !isaFile.empty())
      err = set.add(isaFile, isa);
    if (err.empty())
      err = set.commit();
    if (!err.empty())
      return writeError(err);
  } else {
    auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
    if (!buffer)
      return inputError("cannot read '" + inputFile +
                        "': " + buffer.getError().message());
    StringRef bytes = (*buffer)->getBuffer();
    elf.assign(bytes.begin(), bytes.end());
  }

  llvm::Expected<fmha::KernelManifest> manifest =
      fmha::readAmdgpuManifestOrError(elf);
  if (!manifest)
    return inputError("'" + (fromMlir.empty() ? inputFile : fromMlir) +
                      "': " + llvm::toString(manifest.takeError()));
  llvm::outs() << fmha::toJson(*manifest);
  if (std::string err = fmha_tools::stdoutError(); !err.empty())
    return writeError(err);
  return 0;
}
