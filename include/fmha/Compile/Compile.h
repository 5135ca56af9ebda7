//===- Compile.h - request to GPU code object and manifest ------*- C++ -*-===//
//
// One call from a request to the kernel's binary and its manifest, the
// front end of fmha-compile (and of the embedding API): the request module,
// the tiling stages, convert-fmha-to-gpu, the ROCDL lowering and
// gpu-module-to-binary, then the manifest read back from the code object.
// Diagnostics go to the context's handler; on failure nothing is returned.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_COMPILE_COMPILE_H
#define FMHA_COMPILE_COMPILE_H

#include "fmha/Reference/Problem.h"
#include "fmha/Target/ModuleToBinary.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace fmha {
namespace ref = ::fmha::ref;

struct CompileOptions {
  std::string chip = "gfx942"; ///< gfx942 | gfx950 | sm_90 (PTX)
  /// bin (code object + manifest), isa (assembly), llvm (LLVM IR text of the
  /// kernel), mlir (the gpu-dialect kernel after convert-fmha-to-gpu).
  std::string emit = "bin";
  std::string toolkit; ///< folder with llvm/bin/ld.lld; "" = the build's
  bool folds = true;
  /// fmha-peel-masked-tiles (false masks every KV tile; for measurements).
  bool peel = true;
  /// NVIDIA (sm_90, sm_90a): fmha-pipeline-kv-stages (the full tiles' K/V staged one tile
  /// ahead by cp.async into a 2-stage ring). On by default: measured
  /// 1.15-1.39x on sm_90a and 1.00-1.06x on sm_90 on the H200 (bench/NOTES.md).
  bool pipeline = true;
  /// sm_90a with `pipeline`: fmha-overlap-score-mma (S = Q K^T started
  /// before V's wait and transpose). Off by default: measured 5-11 % slower
  /// on an H100 (bench/NOTES.md, 2026-12-05 fifth session).
  bool overlapScoreMma = false;
  /// sm_90a with warpSpecialize: fmha-overlap-softmax (the softmax of tile
  /// t + 1 while P V of tile t computes; off by default).
  bool overlapSoftmax = false;
  /// sm_90a with `pipeline`: fmha-warp-specialize (a producer warpgroup,
  /// two consumer warpgroups; a grid it cannot split keeps one warpgroup).
  /// On by default with transposeV (bench/NOTES.md, 2026-12-06: 1.14-1.17x
  /// at page 1024, 1.03-1.16x at page 64 on an H100, the full sm_90a matrix
  /// passing with it).
  bool warpSpecialize = true;
  /// With warpSpecialize: the producer transposes each V tile.
  bool transposeV = true;
  /// With warpSpecialize: the consumers take turns at S (fmha-ping-pong).
  bool pingPong = false;
  /// With `pipeline`: stages of each K/V ring (at least 2).
  int64_t kvStages = 2;
  /// AMDGPU: the loop of full KV tiles unrolled by this factor
  /// (fmha-unroll-kv-loop; -1: its auto rule, 2 where the loop gathers
  /// descales (kv_blockscale), else 1; 1: off).
  int64_t kvUnroll = -1;
  /// AMDGPU: K brought by loads straight into LDS (buffer_load ... lds; V
  /// too on gfx950), this tile's V and the next tile's K in flight behind
  /// the products (fmha-pipeline-kv-stages single-stage). Unset: the chip's
  /// choice (gfx950 on, gfx942 off); an NVIDIA chip ignores it.
  std::optional<bool> ldsLoads;
  /// AMDGPU: the K and V tiles the lanes stage in LDS chunk-major (16-byte
  /// column chunks of consecutive rows contiguous, so a wave's operand
  /// reads meet no bank conflict; V^T's k steps in pairs). Unset: the
  /// chip's choice; an NVIDIA chip ignores it.
  std::optional<bool> ldsSwizzle;
  /// sm_90a with warpSpecialize and transposeV: K/V tiles by TMA, the
  /// kernel taking a tensor map per cache (docs/ABI.md). Unset: the chip's
  /// choice; true: wherever a box of gcd(page, 128) rows is a multiple of
  /// 8; false: cp.async. Another chip ignores it.
  std::optional<bool> tma;
  /// sm_90a with warpSpecialize and transposeV: per-key descales staged by
  /// the producer in shared memory (tiles of whole pages of 8 keys or more).
  std::optional<bool> stageDescales;
  /// The V-descale route to state (scalar, page_groups, scaled_p, exp2_bias);
  /// "" or "auto": fmha-select-config chooses. A route the request cannot take
  /// is a bad-input error naming the rule (docs/REGIMES.md).
  std::string vdRoute;
  /// AMDGPU: the waves of a workgroup, sharing each K/V tile (0: the chip's
  /// 4; 8: block_m 256, where two waves a SIMD fit: D <= 128; an error names
  /// the rule otherwise). Another chip takes only its own count.
  int64_t warps = 0;
  /// KV tokens a KV-loop iteration takes (fmha-select-config's block-n; 0:
  /// the chip's). A tile the config rules or the chip's memory refuse is
  /// a bad-input error naming the rule.
  int64_t blockN = 0;
  /// ld.lld (the HSACO link) is killed after this many seconds; 0: never.
  unsigned linkSeconds = kDefaultLinkSeconds;
};

/// One kernel argument of the flat ABI.
struct AbiArg {
  /// From the kernel's fmha.abi record (KernelAbi.h, flatName): the operand
  /// name ("q", ...) for its pointer, NAME_dimN, NAME_offset, NAME_strideN.
  std::string name;
  std::string kind; ///< "pointer" (global, 8 bytes), "i64" or "tensormap"
  uint64_t offset = 0, size = 0, align = 0;
  /// "tensormap" (128 bytes, align 64; docs/ABI.md): the map's dimensions
  /// (the tensor's dims, innermost first), box (elements), element bytes
  /// and swizzle bytes.
  std::vector<int64_t> tmapDims, tmapBox;
  int64_t elementBytes = 0, swizzle = 0;
};

struct CompileResult {
  std::string payload;  ///< code object bytes or the text asked for
  std::string manifest; ///< JSON (emit=bin only)
  std::string kernel;   ///< kernel symbol name
  std::vector<AbiArg> args;
  std::array<int64_t, 3> workgroup{};
  std::array<int64_t, 3> grid{}; ///< for this request
  /// Query heads a workgroup takes (2 for a warp-specialized sm_90a
  /// kernel: grid y = num_qo_heads / 2).
  int64_t headsPerWorkgroup = 1;
  int64_t ldsBytes = 0;
};

/// The chip's default fp8 type family: gfx942 computes with FNUZ e4m3.
bool chipUsesFnuz(StringRef chip);

/// The request as the manifest states it (docs/ABI.md, "request"): a JSON
/// object with every field, the defaults resolved (head_dim_v, sm_scale).
std::string requestJson(const ref::Request &r);

/// On failure, `*badInput` (when given) says whether the request or options
/// were at fault (invalid, or not supported for the chip) rather than a later
/// stage (code generation, linking).
FailureOr<CompileResult> compileRequest(MLIRContext &ctx,
                                        const ref::Request &req,
                                        const CompileOptions &options,
                                        bool *badInput = nullptr);

} // namespace fmha
} // namespace mlir

#endif // FMHA_COMPILE_COMPILE_H
