//===- FmhaIRFuzzer.cpp - the fmha op parser, verifier and passes ---------===//
//
// The input is a pass schedule and an MLIR module: its first line
// ("// schedule: 3 1 4", numbers taken modulo the list below) picks up to
// eight passes in order, the rest is parsed with the fmha dialect and what
// the pipelines need, verified, and run through the schedule with the
// verifier after each pass (fmha-opt's default). Seeds are the dialect's
// lit tests; mutation changes attributes, shapes, element types and the
// schedule. Contract: the parser, the verifier and every pass either
// succeed or report an error; none crashes or leaves IR that fails to
// verify.
//
//===----------------------------------------------------------------------===//
#include "fmha/API/Stages.h"
#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/Fmha/IR/FmhaDialect.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"
#include "fmha/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

using namespace mlir;

namespace {
/// The passes a schedule picks from (fmha-opt pipeline syntax).
constexpr const char *kPasses[] = {
    "fmha-select-config{chip=gfx942}",
    "fmha-select-config{chip=gfx950}",
    "fmha-select-config{chip=sm_90}",
    "fmha-select-config{chip=sm_90a}",
    "fmha-select-config{chip=host}",
    "fmha-tile",
    "fmha-fold-descales",
    "fmha-fold-exp2-shift",
    "fmha-fold-vd-rescale",
    "fmha-prefetch-page-ids",
    "fmha-prefetch-page-ids{per-token=false}",
    "fmha-outline-kernel",
    "convert-fmha-to-gpu",
    "canonicalize",
    "cse",
};
constexpr unsigned kNumPasses = sizeof(kPasses) / sizeof(kPasses[0]);
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::fmha::registerFmhaPasses();
    mlir::fmha::registerFmhaConversionPasses();
    mlir::fmha::registerFmhaPipelines();
  });
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto [first, body] = text.split('\n');
  std::string pipeline;
  if (first.consume_front("// schedule:")) {
    llvm::SmallVector<llvm::StringRef> picks;
    first.split(picks, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    for (size_t i = 0; i < picks.size() && i < 8; ++i) {
      unsigned k;
      if (picks[i].getAsInteger(10, k))
        continue;
      pipeline += (pipeline.empty() ? "" : ",") +
                  std::string(kPasses[k % kNumPasses]);
    }
  } else {
    body = text;
  }
  // No newline after the schedule: split gives a null StringRef, which
  // parseSourceString dereferences (a false finding of the first long run).
  if (!body.data())
    body = "";

  DialectRegistry registry;
  ::fmha::api::registerDialects(registry);
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  // The parser's lexer reads up to a null character (a MemoryBuffer has
  // one): parse a null-terminated copy, not the fuzzer's bytes in place
  // (ASan: a heap overflow in the lexer's search past the input's end).
  std::string source = body.str();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  if (!module || pipeline.empty())
    return 0;
  PassManager pm(&ctx);
  if (failed(parsePassPipeline("builtin.module(" + pipeline + ")", pm)))
    return 0;
  if (succeeded(pm.run(*module)) && failed(verify(*module)))
    __builtin_trap(); // a pass that succeeded left invalid IR
  return 0;
}
