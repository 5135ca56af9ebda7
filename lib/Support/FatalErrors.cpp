//===- FatalErrors.cpp - LLVM's fatal errors end a call, not the process --===//
#include "fmha/Support/FatalErrors.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <mutex>

using namespace mlir;

namespace {
/// The message of the fatal error that abandoned this thread's call.
thread_local std::string *pendingMessage = nullptr;

void onFatalError(void *, const char *reason, bool) {
  if (llvm::CrashRecoveryContext *crc =
          llvm::CrashRecoveryContext::GetCurrent();
      crc && pendingMessage) {
    *pendingMessage = std::string("LLVM ERROR: ") + reason;
    crc->HandleExit(1); // unwinds to runRecovering's RunSafely
  }
  // Outside runRecovering: LLVM's default (report_fatal_error then ends the
  // process).
  llvm::errs() << "LLVM ERROR: " << reason << "\n";
}
} // namespace

bool fmha::runRecovering(llvm::function_ref<void()> fn, std::string &message) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::install_fatal_error_handler(onFatalError, nullptr);
    llvm::CrashRecoveryContext::Enable();
  });
  std::string pending;
  std::string *outer = pendingMessage;
  pendingMessage = &pending;
  llvm::CrashRecoveryContext crc;
  bool ok = crc.RunSafely(fn);
  pendingMessage = outer;
  if (ok)
    return true;
  message = !pending.empty() ? pending
            : crc.RetCode > 128
                ? "crashed (signal " + std::to_string(crc.RetCode - 128) + ")"
                : "crashed (code " + std::to_string(crc.RetCode) + ")";
  return false;
}
