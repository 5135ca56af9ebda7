//===- Compiler.h - fmha-mlir embedded in another program -------*- C++ -*-===//
//
// The public API: one call from a request and a target to the kernel's
// binary and its manifest, or a diagnostic. For inference servers and other
// compilers that JIT kernels in process (the third way fmha-mlir is used,
// besides fmha-opt and lit). This header needs no MLIR or LLVM headers;
// fmha/API/Stages.h has the pipeline stage builders for a host compiler's
// own pass manager.
//
// No global state and no command-line options: each call builds and drops
// its own MLIRContext, so calls from several threads are independent.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_API_COMPILER_H
#define FMHA_API_COMPILER_H

#include "fmha/Reference/Problem.h"

#include <optional>
#include <string>
#include <vector>

namespace fmha {
namespace api {

/// The request: the fields of fmha-compile's flags (lengths, heads, head
/// dims, page size and table, KV layout, quantization, element types, mask,
/// sm_scale, soft cap, lse, seed). Request::validate() gives the same rules
/// and messages fmha-compile prints.
using Request = ::fmha::ref::Request;

/// What a compile produces.
enum class Format {
  Binary,   ///< gfx942/gfx950: the HSACO code object; sm_90: PTX (+ manifest)
  Assembly, ///< AMDGPU assembly; PTX for sm_90
  LLVMIR,   ///< the kernel's LLVM IR (text)
  MLIR,     ///< the gpu-dialect kernel after convert-fmha-to-gpu (text)
};

struct Target {
  /// gfx942 | gfx950 | sm_90. The default, gfx950, takes the default
  /// Request's OCP fp8 (gfx942's MFMA takes FNUZ fp8 only): a Request with
  /// only its lengths set compiles with a default Target.
  std::string chip = "gfx950";
  Format format = Format::Binary;
  /// Folder whose llvm/bin/ld.lld links HSACO. Empty: the build tree's if
  /// it exists, else Debian's ld.lld through a private temporary folder.
  std::string toolkit;
  bool folds = true; ///< the seed's folds (exp2 shift, descales, vd rescale)
  /// sm_90a: a producer warpgroup stages K/V (and transposes V) for two
  /// consumer warpgroups (fmha-warp-specialize; docs/GPU_LOWERING.md);
  /// false: one warpgroup. Other chips ignore it.
  bool warpSpecialize = true;
  /// ld.lld (the HSACO link) is killed after this many seconds (0: never);
  /// the compile then fails with a diagnostic.
  unsigned linkSeconds = 120;
  // The lowering's other choices, as mlir::fmha::CompileOptions has them
  // (fmha-compile's flags of the same names; the defaults are the
  // compiler's):
  bool peel = true;      ///< fmha-peel-masked-tiles (false: every tile masked)
  bool pipeline = true;  ///< NVIDIA: K/V staged a tile ahead (cp.async)
  bool transposeV = true; ///< sm_90a warp roles: the producer transposes V
  bool pingPong = false;  ///< sm_90a warp roles: the consumers take turns at S
  /// sm_90a warp roles: per-key descales staged by the producer.
  std::optional<bool> stageDescales;
  int64_t kvStages = 2;   ///< NVIDIA with pipeline: stages of each K/V ring
  int64_t kvUnroll = -1;  ///< AMDGPU: the full tiles' loop unrolled (-1: auto)
  /// AMDGPU: K (and V on gfx950) by loads straight into LDS; unset: the
  /// chip's choice (gfx950 on, gfx942 off).
  std::optional<bool> ldsLoads;
  /// AMDGPU: the K and V tiles staged chunk-major in LDS (no bank
  /// conflicts on the operand reads); unset: the chip's choice.
  std::optional<bool> ldsSwizzle;
  /// sm_90a warp roles: K/V by TMA (the kernel then takes a tensor map a
  /// cache, docs/ABI.md); unset: the chip's choice.
  std::optional<bool> tma;
  /// The V-descale route (scalar, page_groups, scaled_p, exp2_bias); "":
  /// chosen. A route the request cannot take is a bad-input error.
  std::string vdRoute;
  /// AMDGPU: a workgroup's waves sharing each K/V tile (0: the chip's 4;
  /// 8: block_m 256, D <= 128).
  int64_t warps = 0;
  /// KV tokens a KV-loop iteration takes (0: the chip's); a tile the
  /// config rules or the chip refuse is a bad-input error.
  int64_t blockN = 0;
};

struct Kernel {
  std::string binary;   ///< code object bytes, or text for the text formats
  std::string manifest; ///< JSON (Format::Binary), docs/ABI.md
  std::string symbol;   ///< the kernel function's name
};

struct Result {
  std::optional<Kernel> kernel; ///< set on success
  /// On failure: every error diagnostic, one per line ("invalid request:
  /// Hq % Hkv != 0 (Hq=32, Hkv=5)", "'fmha.tile_mma' op ...").
  std::string diagnostic;
  bool badInput = false; ///< the request or target was at fault
  explicit operator bool() const { return kernel.has_value(); }
};

/// Compiles one kernel. Never aborts on bad input and never returns a
/// partial binary: a failure has no kernel and a diagnostic. LLVM's errors
/// are diagnostics, and a fatal LLVM error or a crash inside the compiler
/// ends this call, not the process ("internal compiler error, the compile
/// was abandoned: ..."; fmha/Support/FatalErrors.h: the first call installs
/// LLVM's fatal-error handler and crash recovery for the process).
Result compile(const Request &request, const Target &target);

/// The chips compile() takes.
std::vector<std::string> supportedChips();

} // namespace api
} // namespace fmha

#endif // FMHA_API_COMPILER_H
