//===- fmha-compile.cpp - a request to a GPU code object and its manifest -===//
//
// Takes the request flags of fmha-run plus --chip and -o NAME, and writes
// NAME.hsaco (the AMDGPU code object; NAME.ptx for sm_90) and NAME.json (the manifest: kernel
// symbol, every argument with offset/size/alignment, workgroup, grid formula,
// LDS, registers, scratch, waves per SIMD). --emit=mlir|llvm|isa stops early
// and writes NAME.mlir / NAME.ll / NAME.s instead.
// Exit: 0 written, 2 invalid request or options (nothing written), 3 tool
// error (nothing written).
//
//===----------------------------------------------------------------------===//
#include "fmha/Compile/Compile.h"
#include "fmha/Dialect/Fmha/IR/FmhaDialect.h"
#include "fmha/Support/Chips.h"
#include "../common/AtomicOutput.h"
#include "../common/KernelFlags.h"
#include "../common/RequestFlags.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace fmha_tools;

// The chips of the chip table fmha-compile compiles for (fmha/Support/Chips.h).
static const std::string kChipDesc =
    mlir::fmha::expectedChipsText(mlir::fmha::kGPUChips);
static cl::opt<std::string> optChip("chip", cl::desc(kChipDesc),
                                    cl::init("gfx942"), cl::cat(kToolCategory));
static cl::opt<std::string> optOut("o", cl::desc("output: NAME writes NAME.hsaco (sm_90: NAME.ptx) and NAME.json; a path ending in the payload's extension is taken as given (the manifest beside it, .json); - writes a text form (--emit isa, llvm, mlir) to stdout"),
                                   cl::value_desc("NAME"), cl::Required, cl::cat(kToolCategory));
static cl::opt<std::string> optEmit("emit", cl::desc("bin | isa | llvm | mlir"),
                                    cl::init("bin"), cl::cat(kToolCategory));
static cl::opt<std::string> optToolkit(
    "toolkit", cl::desc("folder with llvm/bin/ld.lld (default: the build's)"),
    cl::init(""), cl::cat(kToolCategory));
static cl::opt<unsigned> optLinkTimeout(
    "link-timeout",
    cl::desc("seconds before ld.lld (the HSACO link) is killed; 0: never"),
    cl::init(mlir::fmha::kDefaultLinkSeconds), cl::cat(kToolCategory));
static cl::opt<bool> optCubin(
    "cubin", cl::desc("sm_90: also write NAME.cubin with ptxas (from PATH or "
                      "/usr/local/cuda/bin); exit 3 without it"),
    cl::init(false), cl::cat(kToolCategory));

/// ptxas's time limit: a hung ptxas is a tool error, not a hung compile.
static constexpr unsigned kPtxasSeconds = 300;

static int fail(int code, const llvm::Twine &msg) {
  llvm::errs() << "fmha-compile: " << msg << "\n";
  return code;
}

/// Writes all files or none (AtomicOutput.h): each goes to a temporary
/// beside its target, renamed only when every one was written.
static int writeAll(ArrayRef<std::pair<std::string, const std::string *>> files) {
  OutputSet set;
  for (auto &[path, text] : files)
    if (std::string err = set.add(path, *text); !err.empty())
      return fail(3, err);
  if (std::string err = set.commit(); !err.empty())
    return fail(3, err);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  fmha_tools::setUpToolErrors("fmha-compile");
  // Usage errors exit 2, an invalid request's code (cl's default exit is 1).
  if (!parseToolCommandLine(
          argc, argv, "fmha-compile: a request to an AMDGPU code object (NAME.hsaco) "
                      "or PTX (NAME.ptx) and its manifest (NAME.json)\n"))
    return 2;
  // "fp8": the chip's e4m3 flavour. Unless given, Q and the cache use it.
  optQType = chipDType(optQType, mlir::fmha::chipUsesFnuz(optChip));
  optKvType = chipDType(optKvType, mlir::fmha::chipUsesFnuz(optChip));
  if (!optQType.getNumOccurrences())
    optQType = mlir::fmha::chipUsesFnuz(optChip) ? "f8E4M3FNUZ" : "f8E4M3FN";
  if (!optKvType.getNumOccurrences())
    optKvType = mlir::fmha::chipUsesFnuz(optChip) ? "f8E4M3FNUZ" : "f8E4M3FN";
  ref::Request req;
  if (std::string err = readRequest(req); !err.empty())
    return fail(2, err);

  MLIRContext ctx;
  ctx.loadDialect<mlir::fmha::FmhaDialect>();
  std::string diag;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      diag += (diag.empty() ? "" : "\n") + d.str();
    return success();
  });
  mlir::fmha::CompileOptions opts;
  opts.chip = optChip;
  opts.emit = optEmit;
  opts.toolkit = optToolkit;
  applyKernelFlags(opts);
  opts.linkSeconds = optLinkTimeout;
  bool bad = false;
  FailureOr<mlir::fmha::CompileResult> res =
      mlir::fmha::compileRequest(ctx, req, opts, &bad);
  if (failed(res))
    return fail(bad ? 2 : 3, diag.empty() ? "compilation failed" : diag);

  const mlir::fmha::ChipInfo *chip = mlir::fmha::lookupChip(optChip);
  bool nvidia = chip && chip->vendor == mlir::fmha::ChipVendor::NVIDIA;
  // The payload's extension; -o NAME or -o NAME.EXT (the path as given).
  std::string ext = optEmit == "bin"    ? (nvidia ? ".ptx" : ".hsaco")
                    : optEmit == "isa"  ? (nvidia ? ".ptx" : ".s")
                    : optEmit == "llvm" ? ".ll"
                                        : ".mlir";
  std::string name = optOut;
  if (name == "-") {
    if (optEmit == "bin")
      return fail(2, "-o - writes a text form to stdout (--emit isa, llvm or "
                     "mlir); --emit bin writes NAME" + ext + " and NAME.json");
    llvm::outs() << res->payload;
    if (std::string err = stdoutError(); !err.empty())
      return fail(3, err);
    return 0;
  }
  if (StringRef(name).ends_with(ext) && name.size() > ext.size())
    name.resize(name.size() - ext.size());
  if (optEmit == "bin") {
    if (optCubin && !nvidia)
      return fail(2, "--cubin is for an NVIDIA chip (" +
                         mlir::fmha::expectedChipsText(
                             mlir::fmha::kNVIDIAChips) +
                         ")");
    if (!optCubin)
      return writeAll({{name + ext, &res->payload},
                       {name + ".json", &res->manifest}});
    // --cubin: the PTX, the manifest and ptxas's cubin, all or none.
    auto ptxas = llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
    if (!ptxas)
      return fail(3, "--cubin: ptxas not found (PATH, /usr/local/cuda/bin); "
                     "nothing was written");
    // A temporary for the cubin that ptxas writes; it reads the PTX's.
    OutputSet set;
    std::string ptxTmp, cubinTmp;
    if (std::string err = set.add(name + ext, res->payload, &ptxTmp);
        !err.empty())
      return fail(3, err);
    if (std::string err = set.add(name + ".cubin", "", &cubinTmp); !err.empty())
      return fail(3, err);
    std::string arch = "-arch=" + optChip;
    StringRef args[] = {*ptxas, arch, ptxTmp, "-o", cubinTmp};
    std::string err;
    int rc = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, {},
                                       kPtxasSeconds, 0, &err);
    if (rc != 0)
      return fail(3, "--cubin: ptxas failed" + (err.empty() ? "" : ": " + err) +
                         "; nothing was written");
    if (std::string e = set.add(name + ".json", res->manifest); !e.empty())
      return fail(3, e);
    if (std::string e = set.commit(); !e.empty())
      return fail(3, e);
    return 0;
  }
  return writeAll({{name + ext, &res->payload}});
}
