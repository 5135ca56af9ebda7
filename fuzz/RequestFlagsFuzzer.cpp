//===- RequestFlagsFuzzer.cpp - the request flags, through the front half -===//
//
// The input is a command line, one flag per line ("--qo-len=7,300",
// "--mask=window:4,0", "--chip=gfx950"). Only the request flags and --chip
// are taken (LLVM's own options, --help and --version are dropped, as they
// would print and exit). The flags are read as fmha-compile reads them
// (tools/common/RequestFlags.h), the request validated, and a valid one
// compiled through the front half (fmha::compileRequest, --emit=mlir: the
// tiling passes, the folds and convert-fmha-to-gpu for the chip).
// Contract: never a crash, and a failed compile always carries an error.
//
//===----------------------------------------------------------------------===//
#include "../tools/common/RequestFlags.h"

#include "fmha/Compile/Compile.h"
#include "fmha/Dialect/Fmha/IR/FmhaDialect.h"
#include "fmha/Support/Chips.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using namespace fmha_tools;

static cl::opt<std::string> fuzzChip("chip", cl::init("gfx942"),
                                     cl::cat(kRequestCategory));

/// The flags of `text` that name a request option (or --chip).
static std::vector<std::string> requestFlags(llvm::StringRef text) {
  std::vector<std::string> out;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  auto &options = cl::getRegisteredOptions();
  for (llvm::StringRef line : lines) {
    llvm::StringRef flag = line.trim();
    if (!flag.consume_front("-"))
      continue;
    flag.consume_front("-");
    llvm::StringRef name = flag.split('=').first;
    auto it = options.find(name);
    if (it == options.end() ||
        !llvm::is_contained(it->second->Categories, &kRequestCategory))
      continue;
    out.push_back(("--" + flag).str());
    if (out.size() == 64)
      break;
  }
  return out;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::string> flags = requestFlags(
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
  std::vector<const char *> argv = {"fmha-compile"};
  for (const std::string &f : flags)
    argv.push_back(f.c_str());
  cl::ResetAllOptionOccurrences();
  if (!cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(),
                                   "", &llvm::nulls()))
    return 0;
  const mlir::fmha::ChipInfo *chip = mlir::fmha::lookupChip(fuzzChip);
  if (!chip || !chip->isGPU())
    return 0;
  bool fnuz = mlir::fmha::chipUsesFnuz(fuzzChip);
  optQType = chipDType(optQType, fnuz);
  optKvType = chipDType(optKvType, fnuz);
  ::fmha::ref::Request req;
  if (!readRequest(req).empty() || !req.validate().empty())
    return 0;

  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  ctx.loadDialect<mlir::fmha::FmhaDialect>();
  bool sawError = false;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    sawError |= d.getSeverity() == mlir::DiagnosticSeverity::Error;
    return mlir::success();
  });
  mlir::fmha::CompileOptions opts;
  opts.chip = fuzzChip;
  opts.emit = "mlir";
  if (failed(mlir::fmha::compileRequest(ctx, req, opts)) && !sawError)
    __builtin_trap(); // a failure without a message
  return 0;
}
