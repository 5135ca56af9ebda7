//===- ToolMain.h - the command line every fmha tool shares -----*- C++ -*-===//
//
// The tools' option categories (--help lists only the tool's own options and
// the request flags; LLVM's stay under --help-hidden) and --version (the
// project's version and LLVM's).
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_TOOLS_COMMON_TOOLMAIN_H
#define FMHA_TOOLS_COMMON_TOOLMAIN_H

#include "fmha/Version.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>

namespace fmha_tools {
namespace cl = llvm::cl;

/// The tools' own options and the request flags, the only ones --help
/// lists (LLVM's are under --help-hidden).
inline cl::OptionCategory kToolCategory("Options");
inline cl::OptionCategory kRequestCategory("Request options");

/// Parses a tool's command line: --help lists only the tool's options and the
/// request flags, --version names fmha-mlir's version; false on a usage
/// error (the tools exit 2).
inline bool parseToolCommandLine(int argc, char **argv, const char *overview) {
  // LLVM's options stay reachable under --help-hidden.
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *o = entry.second;
    if (!llvm::is_contained(o->Categories, &kToolCategory) &&
        !llvm::is_contained(o->Categories, &kRequestCategory) &&
        o->getOptionHiddenFlag() == cl::NotHidden && entry.first != "help" &&
        entry.first != "version" && entry.first != "help-list")
      o->setHiddenFlag(cl::Hidden);
  }
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "fmha-mlir " << FMHA_VERSION << " (LLVM " << LLVM_VERSION_STRING
       << ")\n";
  });
  return cl::ParseCommandLineOptions(argc, argv, overview, &llvm::errs());
}

/// How a tool fails (call after llvm::InitLLVM):
///  - a fatal LLVM error (an output stream that failed, an upstream
///    report_fatal_error) ends the tool with "TOOL: error: MESSAGE" and exit
///    3, a tool error, instead of "LLVM ERROR" and exit 1 (which fmha-run
///    documents as "numerics failed"); files registered for removal on a
///    signal (an upstream ToolOutputFile's) are removed first;
///  - a write past the file-size limit (ulimit -f) is a write error (EFBIG),
///    reported like a full disk, not a death by SIGXFSZ (which InitLLVM's
///    handlers would otherwise turn into a stack dump).
inline void setUpToolErrors(const char *tool) {
  std::signal(SIGXFSZ, SIG_IGN);
  llvm::install_fatal_error_handler(
      [](void *name, const char *reason, bool) {
        llvm::errs() << static_cast<const char *>(name) << ": error: " << reason
                     << "\n";
        llvm::errs().flush();
        llvm::sys::RunInterruptHandlers();
        llvm::sys::Process::Exit(3, /*NoCleanup=*/true);
      },
      const_cast<char *>(tool));
}

/// Flushes llvm::outs() and reports a failed write to it (a full disk, a
/// closed pipe, /dev/full) once, as a tool error: "" or the message. Without
/// this, raw_fd_ostream's destructor ends the process with "LLVM ERROR: IO
/// failure on output stream".
inline std::string stdoutError() {
  llvm::outs().flush();
  if (!llvm::outs().has_error())
    return "";
  std::string msg = "cannot write the standard output: " +
                    llvm::outs().error().message();
  llvm::outs().clear_error();
  return msg;
}

} // namespace fmha_tools

#endif // FMHA_TOOLS_COMMON_TOOLMAIN_H
