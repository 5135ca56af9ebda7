//===- AMDGPU.h - gpu.module to HSACO, and the kernel manifest -*- C++ -*-===//
//
// The back end the AMDGPU pipeline ends in (docs/GPU_LOWERING.md, "The vendor
// back ends"):
//
//   * serializeToHsaco / serializeToIsa run the checked back half on a clone
//     of a module holding one gpu.module of ROCDL-ready IR (gpu, amdgpu, rocdl,
//     llvm, arith, vector, memref, scf, cf ops) and return the code object or
//     its AMDGCN assembly;
//   * readAmdgpuManifest reads the kernel ABI and resource usage back from the
//     code object's NT_AMDGPU_METADATA note, and toJson writes it as the JSON
//     manifest `fmha-compile` emits next to NAME.hsaco.
//
// No ROCm install is needed: the only external program is `ld.lld`, found as
// TOOLKIT/llvm/bin/ld.lld (the build tree's toolkit folder is
// FMHA_DEFAULT_ROCM_TOOLKIT in fmha/Target/ToolkitConfig.h). The IR must not
// call ROCm device libraries (__ocml_*, __ockl_*), which are not linked: use
// rocdl.exp2 (math.exp2 becomes an __ocml call), compile-time block sizes
// (gpu.block_dim / gpu.grid_dim become __ockl calls), rocdl.cvt.* for fp8.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_TARGET_AMDGPU_H
#define FMHA_TARGET_AMDGPU_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class OpPassManager;

namespace fmha {

//===----------------------------------------------------------------------===//
// Serialization
//===----------------------------------------------------------------------===//

/// What the back half needs to know about the target.
struct AMDGPUTargetOptions {
  /// The chip: both the `#rocdl.target` chip and the conversions' chipset.
  std::string chip = "gfx942";
  /// LLVM target features, e.g. "+sramecc,-xnack" (empty: xnack/sramecc "any").
  std::string features;
  /// LLVM optimisation level of the ROCDL target (the `O` of #rocdl.target).
  unsigned optLevel = 2;
  /// use-bare-ptr-memref-call-conv of convert-gpu-to-rocdl (static shapes).
  bool useBarePtrCallConv = false;
};

/// Adds everything the back half needs to `registry`: the shared dialects,
/// interfaces and translations of registerGPUTargetDependencies
/// (fmha/Target/GPUTarget.h), the amdgpu and rocdl dialects, the ROCDL target
/// attribute model and the rocdl translation to LLVM IR. A caller that
/// builds its own context appends this registry; serializeToHsaco and
/// serializeToIsa also append it to the module's context themselves (appending
/// is idempotent), so they work on any context that can parse the input. They
/// must therefore not be called from inside a running pass (MLIR forbids
/// changing the registry during multi-threaded execution); a pass pipeline
/// uses the build*PassPipeline functions, and its tool registers their
/// dependencies with this function.
void registerAMDGPUTargetDependencies(DialectRegistry &registry);

/// Attaches `#rocdl.target<chip, features, O>` to each gpu.module that has no
/// target. A gpu.module that already has targets must have exactly one, a
/// #rocdl.target of `options.chip` (else an error on that gpu.module); its
/// features and O are kept. Loads the ROCDL dialect into the context.
LogicalResult attachROCDLTarget(ModuleOp module,
                                const AMDGPUTargetOptions &options);

/// Appends the lowering of the gpu.modules to LLVM+ROCDL to `pm` (anchored on
/// builtin.module):
///   gpu.module(canonicalize, cse, convert-scf-to-cf,
///              convert-amdgpu-to-rocdl{chipset=CHIP},
///              convert-gpu-to-rocdl{chipset=CHIP}, canonicalize, cse),
///   reconcile-unrealized-casts
void buildAMDGPUToROCDLPassPipeline(OpPassManager &pm,
                                    const AMDGPUTargetOptions &options);

/// Runs attachROCDLTarget, buildAMDGPUToROCDLPassPipeline and
/// gpu-module-to-binary{format=bin toolkit=TOOLKIT} on a clone of `module` (the
/// caller's module is left as it was) and returns the ELF bytes of the one
/// gpu.binary object. Equivalent command line:
///   fmha-opt --pass-pipeline='builtin.module(gpu.module(canonicalize, cse,
///     convert-scf-to-cf, convert-amdgpu-to-rocdl{chipset=gfx942},
///     convert-gpu-to-rocdl{chipset=gfx942}, canonicalize, cse),
///     reconcile-unrealized-casts,
///     gpu-module-to-binary{format=bin toolkit=TOOLKIT})'
/// after `#rocdl.target<chip = "gfx942">` was put on the gpu.module.
/// Failures (no or several gpu.modules/objects, a target of another chip, a
/// conversion error, no TOOLKIT/llvm/bin/ld.lld, a link error) are reported as
/// diagnostics on the module's context; IR errors come before linker errors.
/// Whether `toolkit`/llvm/bin/ld.lld exists and is executable (what
/// gpu-module-to-binary{format=bin} runs).
bool toolkitHasLld(StringRef toolkit);

FailureOr<SmallVector<char>>
serializeToHsaco(ModuleOp module, StringRef toolkit,
                 const AMDGPUTargetOptions &options = {});

/// The same pipeline with format=isa: the AMDGCN assembly text.
FailureOr<std::string> serializeToIsa(ModuleOp module,
                                      const AMDGPUTargetOptions &options = {});

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

/// One kernel argument (an entry of `.args`), in kernarg-segment order.
/// MLIR does not name LLVM arguments, so `name` is usually empty: compare
/// arguments by position.
struct KernelArg {
  uint64_t offset = 0;
  uint64_t size = 0;
  std::optional<uint64_t> align; ///< `.align` (absent for most args)
  std::string name;              ///< `.name`, "" when absent
  std::string valueKind;         ///< global_buffer, by_value, hidden_*, ...
  std::string addressSpace;      ///< global, constant, ...; "" when absent
  std::string actualAccess;      ///< read_only, write_only, ...; "" if absent
};

/// One entry of `amdhsa.kernels`.
struct KernelInfo {
  std::string name;
  std::string symbol; ///< the kernel descriptor symbol, NAME.kd
  SmallVector<KernelArg> args;
  uint64_t kernargSegmentSize = 0;
  uint64_t kernargSegmentAlign = 0;
  uint64_t groupSegmentFixedSize = 0;   ///< LDS bytes
  uint64_t privateSegmentFixedSize = 0; ///< scratch bytes per lane
  uint64_t sgprCount = 0;
  uint64_t vgprCount = 0; ///< on gfx90a+: VGPRs + AGPRs (unified file)
  uint64_t agprCount = 0;
  uint64_t sgprSpillCount = 0;
  uint64_t vgprSpillCount = 0;
  uint64_t wavefrontSize = 0;
  uint64_t maxFlatWorkgroupSize = 0;
  std::optional<std::array<uint64_t, 3>> reqdWorkgroupSize;
};

/// The kernel ABI and resource usage of one code object.
struct KernelManifest {
  std::string target; ///< amdhsa.target, e.g. amdgcn-amd-amdhsa--gfx942
  SmallVector<uint64_t, 2> version; ///< amdhsa.version
  std::vector<KernelInfo> kernels;
};

/// Reads the manifest from an AMDGPU code object (ELF64LE, EM_AMDGPU) through
/// its NT_AMDGPU_METADATA note (msgpack, code object v3+). The error says what
/// is wrong with the input (not ELF, not AMDGPU, no note, a missing key).
llvm::Expected<KernelManifest> readAmdgpuManifestOrError(ArrayRef<char> elf);

/// readAmdgpuManifestOrError with the error printed to llvm::errs().
FailureOr<KernelManifest> readAmdgpuManifest(ArrayRef<char> elf);

/// The chip of an amdhsa.target string ("gfx942" from
/// "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"); "" when there is none.
StringRef chipFromTargetId(StringRef targetId);

/// DERIVED, not read from the note: waves per SIMD that the VGPR budget
/// allows on gfx90a/gfx942/gfx950 (wave64, one unified VGPR+AGPR file of 512
/// registers per lane per SIMD, allocated in granules of 8, at most 8 waves;
/// the rule is the chip table's, lookupVgprOccupancy in fmha/Support/Chips.h):
///   waves = min(8, floor(512 / alignTo(max(vgpr_count, 1), 8)))
/// e.g. 64 -> 8, 128 -> 4, 242 -> 2, 257 -> 1. SGPRs and LDS may limit
/// occupancy further; they are not counted here. std::nullopt for other chips.
std::optional<unsigned> wavesPerSimdByVgprs(StringRef chip, uint64_t vgprCount);

/// The manifest as JSON, keys in a fixed order (top level: target, version,
/// kernels; per kernel the fields of KernelInfo in declaration order, keys
/// named as in the note without the leading '.'). Args always carry offset,
/// size, value_kind; align, name, address_space and actual_access only when
/// present. Values computed rather than read from the note sit in a separate
/// per-kernel "derived" object: {"waves_per_simd_by_vgprs": N, "rule": "..."}
/// (only for the chips wavesPerSimdByVgprs knows).
std::string toJson(const KernelManifest &manifest);

} // namespace fmha
} // namespace mlir

#endif // FMHA_TARGET_AMDGPU_H
