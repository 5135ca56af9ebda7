//===- ModuleToBinary.h - gpu.module to gpu.binary, failing cleanly -*- C++ -*-===//
//
// fmha-gpu-module-to-binary: upstream's gpu-module-to-binary made safe to
// embed. Each gpu.module is serialized through its one target attribute
// (#rocdl.target / #nvvm.target) with upstream's serializer and the object
// built with the attribute's createObject, so the bytes are upstream's; what
// differs is how it fails:
//   - LLVM's diagnostics (an LDS or register budget the back end cannot meet,
//     "error in backend") become MLIR diagnostics on the gpu.module; upstream
//     leaves them to LLVM's default handler, which prints and calls exit(1),
//     ending a program that embeds the compiler;
//   - the HSACO link is ours (upstream's assembler, then TOOLKIT/llvm/bin/
//     ld.lld): checked temporary files, a time limit on the linker, and the
//     linker's own message in the error.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_TARGET_MODULETOBINARY_H
#define FMHA_TARGET_MODULETOBINARY_H

#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>

namespace mlir {
class Pass;
class OpPassManager;

namespace fmha {

/// The linker's default time limit, in seconds.
inline constexpr unsigned kDefaultLinkSeconds = 120;

struct ModuleToBinaryOptions {
  /// "bin" (AMDGPU: HSACO; NVVM: PTX, a cubin needs ptxas), "isa" (AMDGCN
  /// assembly / PTX), "llvm" (LLVM bitcode, "offload").
  std::string format = "bin";
  /// The folder whose llvm/bin/ld.lld links HSACO.
  std::string toolkit;
  /// ld.lld is killed after this many seconds (0: no limit).
  unsigned linkSeconds = kDefaultLinkSeconds;
};

/// The pass, on a module holding gpu.modules.
std::unique_ptr<Pass>
createGpuModuleToBinaryPass(const ModuleToBinaryOptions &options = {});

/// Registers fmha-gpu-module-to-binary{format= toolkit= link-timeout=} for
/// fmha-opt.
void registerGpuModuleToBinaryPass();

/// Links one AMDGPU relocatable object into a code object with
/// TOOLKIT/llvm/bin/ld.lld (-shared), killing it after `seconds` (0: no
/// limit). Returns the HSACO bytes or fills `error` ("ld.lld timed out after
/// 2 s", "ld.lld failed: ...its message...").
FailureOr<SmallVector<char, 0>> linkHsaco(ArrayRef<char> object,
                                          StringRef toolkit, unsigned seconds,
                                          std::string &error);

} // namespace fmha
} // namespace mlir

#endif // FMHA_TARGET_MODULETOBINARY_H
