//===- FatalErrors.h - LLVM's fatal errors end a call, not the process -*- C++ -*-===//
//
// An upstream pass or LLVM's back end that gives up calls report_fatal_error,
// whose default prints "LLVM ERROR" and exits: in a server that embeds the
// compiler (fmha::api::compile) that would end the server. runRecovering
// abandons the call instead and returns the message.
//
// The first call installs, once per process, LLVM's fatal-error handler and
// crash recovery (llvm::CrashRecoveryContext::Enable): inside
// runRecovering a fatal error or a crash (SIGSEGV, SIGABRT, ...) unwinds to
// it; outside, the handler does what LLVM's default does (prints "LLVM
// ERROR: ..." and ends the process) and signals go to the handlers that
// were there before. What the abandoned call allocated is leaked, and the
// caller must not touch the state it was using (its MLIRContext) again.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_SUPPORT_FATALERRORS_H
#define FMHA_SUPPORT_FATALERRORS_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace mlir {
namespace fmha {

/// Runs `fn`. True when it returned; false when a fatal LLVM error or a crash
/// abandoned it, with `message` saying which ("LLVM ERROR: Cannot select:
/// ...", "crashed (signal 11)").
bool runRecovering(llvm::function_ref<void()> fn, std::string &message);

} // namespace fmha
} // namespace mlir

#endif // FMHA_SUPPORT_FATALERRORS_H
