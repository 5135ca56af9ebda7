//===- Types.h - Element types of the reference library ---------*- C++ -*-===//
//
// The element types an attention request can name, with their storage size,
// printable names (MLIR spelling) and the properties the oracle needs.
// No MLIR or LLVM dependency: GPU runners and benchmarks include this alone.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_REFERENCE_TYPES_H
#define FMHA_REFERENCE_TYPES_H

#include <cstddef>
#include <optional>
#include <string_view>

namespace fmha::ref {

/// Storage element types. The fp8 names follow MLIR/LLVM (APFloat) spelling.
enum class DType {
  F32,
  BF16,
  F16,
  F8E4M3FN,   ///< OCP e4m3: bias 7, max 448, no inf, NaN = 0x7F/0xFF.
  F8E4M3FNUZ, ///< AMD gfx942 e4m3: bias 8, max 240, no inf, no -0, NaN = 0x80.
  F8E5M2,     ///< OCP e5m2 (IEEE-like): bias 15, max 57344, has inf and NaNs.
  F8E5M2FNUZ, ///< AMD gfx942 e5m2: bias 16, max 57344, no inf, no -0, NaN = 0x80.
};

/// Every DType, in enum order (for loops in tests and tools).
inline constexpr DType kAllDTypes[] = {
    DType::F32,      DType::BF16,       DType::F16,       DType::F8E4M3FN,
    DType::F8E4M3FNUZ, DType::F8E5M2, DType::F8E5M2FNUZ};
inline constexpr DType kFp8DTypes[] = {DType::F8E4M3FN, DType::F8E4M3FNUZ,
                                       DType::F8E5M2, DType::F8E5M2FNUZ};

/// Memory layout of a paged K or V cache (SPEC section 1):
///   NHD: [N_pages, P, Hkv, D]   HND: [N_pages, Hkv, P, D]
enum class KVLayout { NHD, HND };
const char *layoutName(KVLayout l); ///< "NHD" / "HND"
std::optional<KVLayout> parseLayout(std::string_view s); ///< case-insensitive

/// MLIR spelling: "f32", "bf16", "f16", "f8E4M3FN", "f8E4M3FNUZ", "f8E5M2",
/// "f8E5M2FNUZ".
const char *dtypeName(DType t);

/// Parses a DType. Accepts the MLIR spelling (case-insensitive) and the short
/// aliases "fp32", "float32", "bfloat16", "fp16", "half", "float16", "e4m3fn",
/// "e4m3fnuz", "e5m2", "e5m2fnuz" (also with an "fp8_" prefix).
std::optional<DType> parseDType(std::string_view s);

/// Bytes per element: 4, 2 or 1.
size_t dtypeSize(DType t);

bool isFp8(DType t);
inline bool is16Bit(DType t) { return t == DType::BF16 || t == DType::F16; }

/// Largest finite value of the type (448, 240, 57344, 65504, ...).
double dtypeMaxFinite(DType t);

/// The exp2 shift SPEC section 4 picks for a P element type: the largest s with
/// 2^s below the type's max, as used by the kernels: 8 for f8E4M3FN (256 <
/// 448), 7 for f8E4M3FNUZ (128 < 240), 15 for both e5m2 types (32768 < 57344),
/// 0 for 16- and 32-bit P (no shift needed).
int defaultExp2Shift(DType pType);

} // namespace fmha::ref

#endif // FMHA_REFERENCE_TYPES_H
