//===- CAPIRequestFuzzer.cpp - the C interface's request JSON -------------===//
//
// Bytes as the request JSON python/fmha_mlir hands to fmha_compile
// (fmha/API/CAPI.h), compiled for gfx950 to the gpu-dialect kernel (format
// "mlir": the front half, no LLVM back end). Contract: never a crash; a
// non-zero return carries a diagnostic and no kernel; 0 a kernel; no
// internal compiler error (a crash the API recovered from).
//
//===----------------------------------------------------------------------===//
#include "fmha/API/CAPI.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string json(reinterpret_cast<const char *>(data), size);
  fmha_kernel *kernel = nullptr;
  char *diag = nullptr;
  int rc = fmha_compile(json.c_str(), "gfx950", "mlir", &kernel, &diag);
  if (rc == 0 && (!kernel || diag))
    __builtin_trap();
  if (rc != 0 && (kernel || !diag || !*diag))
    __builtin_trap(); // a failure names its rule
  // The API turns a crash or a fatal LLVM error into this diagnostic
  // (fmha/Support/FatalErrors.h); for the fuzzer it is a finding.
  // The message starts with it (a user's value echoed later in a message may
  // contain the words: the fuzzer learned them from this very check).
  if (rc == 3 && diag &&
      std::string(diag).rfind("internal compiler error, the compile was abandoned", 0) == 0)
    __builtin_trap();
  fmha_kernel_free(kernel);
  fmha_free(diag);
  return 0;
}
