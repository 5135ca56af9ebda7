//===- ModuleToBinary.cpp - gpu.module to gpu.binary, failing cleanly -----===//
#include "fmha/Target/ModuleToBinary.h"
#include "fmha/Target/AMDGPU.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace mlir;
using namespace mlir::fmha;

//===----------------------------------------------------------------------===//
// The HSACO link
//===----------------------------------------------------------------------===//

namespace {
/// A temporary file, removed when this goes.
struct TempFile {
  SmallString<128> path;
  std::optional<llvm::FileRemover> remover;
  std::error_code create(StringRef prefix, StringRef suffix) {
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile(prefix, suffix, path))
      return ec;
    remover.emplace(path);
    return {};
  }
};

/// The last lines of a linker log, for an error message.
std::string logTail(StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return "";
  StringRef text = (*buf)->getBuffer().trim();
  constexpr size_t kMax = 2000;
  if (text.size() > kMax)
    text = text.take_back(kMax);
  return text.str();
}
} // namespace

FailureOr<SmallVector<char, 0>>
mlir::fmha::linkHsaco(ArrayRef<char> object, StringRef toolkit,
                      unsigned seconds, std::string &error) {
  SmallString<128> lld(toolkit);
  llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
  if (!toolkitHasLld(toolkit)) {
    error = "linking the code object needs ld.lld at '" + lld.str().str() +
            "' (the toolkit folder's llvm/bin/ld.lld)";
    return failure();
  }
  TempFile in, out, log;
  if (std::error_code ec = in.create("fmha-kernel", "o");
      ec || (ec = out.create("fmha-kernel", "hsaco")) ||
      (ec = log.create("fmha-lld", "log"))) {
    error = "cannot create a temporary file for the link: " + ec.message();
    return failure();
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in.path, ec, llvm::sys::fs::OF_None);
    if (!ec) {
      os.write(object.data(), object.size());
      os.close();
      if (os.has_error()) {
        ec = os.error();
        os.clear_error();
      }
    }
    if (ec) {
      error = "cannot write the object to link (" + in.path.str().str() +
              "): " + ec.message();
      return failure();
    }
  }
  // Upstream's link (mlir::ROCDL::linkObjectCode): ld.lld -shared IN -o OUT.
  std::string lldPath = lld.str().str(), inPath = in.path.str().str(),
              outPath = out.path.str().str();
  StringRef args[] = {"ld.lld", "-shared", inPath, "-o", outPath};
  std::optional<StringRef> redirects[] = {std::nullopt, log.path, log.path};
  std::string msg;
  bool execFailed = false;
  int rc = llvm::sys::ExecuteAndWait(lldPath, args, std::nullopt, redirects,
                                     seconds, 0, &msg, &execFailed);
  if (rc != 0) {
    std::string tail = logTail(log.path);
    if (execFailed)
      error = "cannot run " + lldPath + ": " + msg;
    else if (StringRef(msg).contains("timed out"))
      error = lldPath + " timed out after " + std::to_string(seconds) +
              " s and was killed";
    else
      error = lldPath + " failed (" +
              (msg.empty() ? "exit " + std::to_string(rc) : msg) + ")";
    if (!tail.empty())
      error += ": " + tail;
    return failure();
  }
  auto buf = llvm::MemoryBuffer::getFile(out.path, /*IsText=*/false);
  if (!buf) {
    error = "cannot read the linked code object: " + buf.getError().message();
    return failure();
  }
  StringRef bytes = (*buf)->getBuffer();
  if (bytes.empty()) {
    error = lldPath + " wrote an empty code object";
    return failure();
  }
  return SmallVector<char, 0>(bytes.begin(), bytes.end());
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
/// LLVM's diagnostics of one serialization, kept until it returns.
struct LLVMDiagnostics {
  SmallVector<std::string> errors, warnings;

  static void handle(const llvm::DiagnosticInfo *diag, void *self) {
    const llvm::DiagnosticInfo &info = *diag;
    auto *d = static_cast<LLVMDiagnostics *>(self);
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    // Diagnostics without a debug location print one that says nothing.
    if (StringRef(text).starts_with("<unknown>:0:0: "))
      text = text.substr(15);
    switch (info.getSeverity()) {
    case llvm::DS_Error:
      d->errors.push_back(text);
      break;
    case llvm::DS_Warning:
      d->warnings.push_back(text);
      break;
    default: // remarks and notes: upstream's default handler drops them too
      break;
    }
  }
};

/// Upstream's ROCDL serializer (mlir/Target/LLVM/ROCDL/Utils.h) with two
/// changes: the LLVM context reports to `diags` (upstream's leaves LLVM's
/// default handler, which exits, and does not forward TargetOptions'
/// callbacks), and the HSACO link is linkHsaco's.
class ROCDLSerializer : public ROCDL::SerializeGPUModuleBase {
public:
  ROCDLSerializer(Operation &module, ROCDL::ROCDLTargetAttr target,
                  const gpu::TargetOptions &options, unsigned linkSeconds,
                  LLVMDiagnostics &diags)
      : SerializeGPUModuleBase(module, target, options), options(options),
        linkSeconds(linkSeconds), diags(diags) {}

protected:
  void handleModulePreLink(llvm::Module &module) override {
    module.getContext().setDiagnosticHandlerCallBack(&LLVMDiagnostics::handle,
                                                     &diags);
    SerializeGPUModuleBase::handleModulePreLink(module);
  }
  FailureOr<SmallVector<char, 0>>
  moduleToObject(llvm::Module &module) override {
    return moduleToObjectImpl(options, module);
  }
  FailureOr<SmallVector<char, 0>>
  compileToBinary(StringRef isa) override {
    FailureOr<SmallVector<char, 0>> object = ROCDL::assembleIsa(
        isa, triple, chip, features, [&] { return getOperation().emitError(); });
    if (failed(object))
      return failure();
    std::string error;
    FailureOr<SmallVector<char, 0>> hsaco =
        linkHsaco(*object, getToolkitPath(), linkSeconds, error);
    if (failed(hsaco))
      return getOperation().emitError() << error, failure();
    return hsaco;
  }

private:
  gpu::TargetOptions options;
  unsigned linkSeconds;
  LLVMDiagnostics &diags;
};

std::optional<gpu::CompilationTarget> parseFormat(StringRef format) {
  return llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(format)
      .Cases({"offloading", "llvm"}, gpu::CompilationTarget::Offload)
      .Cases({"assembly", "isa"}, gpu::CompilationTarget::Assembly)
      .Cases({"binary", "bin"}, gpu::CompilationTarget::Binary)
      .Case("fatbin", gpu::CompilationTarget::Fatbin)
      .Default(std::nullopt);
}

struct GpuModuleToBinaryPass
    : PassWrapper<GpuModuleToBinaryPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GpuModuleToBinaryPass)

  GpuModuleToBinaryPass() = default;
  GpuModuleToBinaryPass(const GpuModuleToBinaryPass &other)
      : PassWrapper(other) {}
  explicit GpuModuleToBinaryPass(const ModuleToBinaryOptions &o) {
    format = o.format;
    toolkit = o.toolkit;
    linkSeconds = o.linkSeconds;
  }

  StringRef getArgument() const override { return "fmha-gpu-module-to-binary"; }
  StringRef getDescription() const override {
    return "gpu-module-to-binary whose LLVM errors are diagnostics and whose "
           "HSACO link has a time limit";
  }

  Option<std::string> format{*this, "format",
                             llvm::cl::desc("bin | isa | llvm"),
                             llvm::cl::init("bin")};
  Option<std::string> toolkit{
      *this, "toolkit", llvm::cl::desc("folder with llvm/bin/ld.lld"),
      llvm::cl::init("")};
  Option<unsigned> linkSeconds{
      *this, "link-timeout",
      llvm::cl::desc("seconds before ld.lld is killed (0: no limit)"),
      llvm::cl::init(kDefaultLinkSeconds)};

  LogicalResult serializeOne(gpu::GPUModuleOp module, Attribute attr,
                             gpu::CompilationTarget target,
                             SmallVectorImpl<Attribute> &objects) {
    auto iface = dyn_cast<gpu::TargetAttrInterface>(attr);
    if (!iface)
      return module.emitError()
             << "target " << attr << " cannot serialize a gpu.module";
    std::optional<SymbolTable> table;
    auto lazyTable = [&]() -> SymbolTable * {
      if (!table)
        table.emplace(getOperation());
      return &*table;
    };
    LLVMDiagnostics diags;
    auto watch = [&](llvm::Module &m) {
      m.getContext().setDiagnosticHandlerCallBack(&LLVMDiagnostics::handle,
                                                  &diags);
    };
    gpu::TargetOptions options(toolkit, {}, "", "", target, lazyTable, watch);
    std::optional<SmallVector<char, 0>> bytes;
    if (auto rocdl = dyn_cast<ROCDL::ROCDLTargetAttr>(attr)) {
      ROCDLSerializer serializer(*module, rocdl, options, linkSeconds, diags);
      ROCDL::SerializeGPUModuleBase::init();
      bytes = serializer.run();
    } else {
      // NVVM's serializer hands the callback the LLVM module it compiles.
      bytes = iface.serializeToObject(module, options);
    }
    for (const std::string &w : diags.warnings)
      module.emitWarning() << "LLVM: " << w;
    if (!diags.errors.empty()) {
      InFlightDiagnostic d = module.emitError() << "LLVM: " << diags.errors[0];
      for (size_t i = 1; i < diags.errors.size(); ++i)
        d.attachNote() << "LLVM: " << diags.errors[i];
      return failure();
    }
    if (!bytes)
      return module.emitError() << "failed to serialize to " << format;
    gpu::TargetOptions objectOptions(toolkit, {}, "", "", target, lazyTable);
    Attribute object = iface.createObject(module, *bytes, objectOptions);
    if (!object)
      return module.emitError() << "failed to create the object for " << attr;
    objects.push_back(object);
    return success();
  }

  void runOnOperation() override {
    std::optional<gpu::CompilationTarget> target = parseFormat(format);
    if (!target) {
      getOperation()->emitError()
          << "fmha-gpu-module-to-binary: format must be bin, isa or llvm, not '"
          << format << "'";
      return signalPassFailure();
    }
    SmallVector<gpu::GPUModuleOp> modules;
    for (Region &region : getOperation()->getRegions())
      for (Block &block : region)
        for (auto m : block.getOps<gpu::GPUModuleOp>())
          modules.push_back(m);
    for (gpu::GPUModuleOp module : modules) {
      ArrayAttr targets = module.getTargetsAttr();
      if (!targets || targets.empty()) {
        module.emitError() << "the gpu.module has no target attribute";
        return signalPassFailure();
      }
      SmallVector<Attribute> objects;
      for (Attribute attr : targets)
        if (failed(serializeOne(module, attr, *target, objects)))
          return signalPassFailure();
      OpBuilder builder(module);
      gpu::BinaryOp::create(builder, module.getLoc(), module.getName(),
                            /*offloadingHandler=*/nullptr,
                            builder.getArrayAttr(objects));
      module->erase();
    }
  }
};
} // namespace

std::unique_ptr<Pass>
mlir::fmha::createGpuModuleToBinaryPass(const ModuleToBinaryOptions &options) {
  return std::make_unique<GpuModuleToBinaryPass>(options);
}

void mlir::fmha::registerGpuModuleToBinaryPass() {
  PassRegistration<GpuModuleToBinaryPass>();
}
