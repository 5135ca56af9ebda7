//===- ElfManifestFuzzer.cpp - fmha-elf-manifest's code-object reader -----===//
//
// Bytes as an AMDGPU code object: readAmdgpuManifestOrError (the ELF
// headers, the NT_AMDGPU_METADATA note, its msgpack, the kernels' fields) and
// the JSON printer, as fmha-elf-manifest and fmha-compile run them. Must
// never crash: malformed metadata is an llvm::Error, rejected before
// upstream's msgpack reader sees what it cannot take.
//
//===----------------------------------------------------------------------===//
#include "fmha/Target/AMDGPU.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::ArrayRef<char> elf(reinterpret_cast<const char *>(data), size);
  llvm::Expected<mlir::fmha::KernelManifest> m =
      mlir::fmha::readAmdgpuManifestOrError(elf);
  if (!m) {
    std::string msg = llvm::toString(m.takeError());
    if (msg.empty())
      __builtin_trap(); // a refusal names its rule
    return 0;
  }
  (void)mlir::fmha::toJson(*m);
  return 0;
}
