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
#include "llvm/Support/raw_ostream.h"

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

} // namespace fmha_tools

#endif // FMHA_TOOLS_COMMON_TOOLMAIN_H
