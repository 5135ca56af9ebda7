//===- Compare.h - Checking kernel outputs against a reference --*- C++ -*-===//
//
// The verdict of SPEC section 6 for one output (and lse):
//  - oracle mode (reference = runOracle): max |O - O_ref| < 0.055 and
//    relative Frobenius error < 2e-2;
//  - emulation mode (reference = runEmulation's out): relative Frobenius
//    error < 2e-3;
//  - both: lse |d| < 1e-3 * max(1, |lse_ref|) (an lse_ref of -inf needs -inf),
//    no NaN/inf in O, and no element still holding the poison pattern.
//  - spread data (DataMode::Spread), oracle mode: O grows with the data, so
//    the absolute bar becomes a row-relative one: per row (one query token
//    and query head, over Dv) max |O - O_ref| < 0.07 * max(1, max |O_ref|
//    of the row), and the relative Frobenius error is reported, not judged
//    (the largest rows dominate it and carry the same fp8-P rounding; SPEC
//    section 6 judges spread data by the row bar and the emulation bar).
//    Emulation and lse bars do not change. (The shared design sets 0.055, docs/SPEC.md section 6
//    records 0.07 as the departure: a correct kernel with
//    an e4m3 P cannot always meet it: a row dominated by one key carries
//    that key's P rounding, up to 2^-4 = 0.0625 relative, plus the bf16/f16
//    output rounding. Measured: 4 of 30 correct H200 kernels at 0.056-0.060,
//    reproduced by the emulating reference, 0.004 with f32 P; the five
//    descale bugs give 0.97 to 60. docs/REFERENCE.md.)
// Outputs are poisoned before a launch (poisonFill) so an unwritten element is
// found: it still equals poisonBits(). Poisoned elements are counted apart
// from other non-finite values.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_REFERENCE_COMPARE_H
#define FMHA_REFERENCE_COMPARE_H

#include "fmha/Reference/Emulate.h"
#include "fmha/Reference/Oracle.h"
#include "fmha/Reference/Types.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace fmha::ref {

/// Poison pattern of a type: all bits set, a NaN in every output type
/// (bf16 0xFFFF, f16 0xFFFF, f32 0xFFFFFFFF). For fp8 it is 0xFF, a NaN in
/// e4m3fn/e5m2 but -max in the FNUZ types (fp8 is never an output type).
uint32_t poisonBits(DType t);
/// Writes n elements of poisonBits(t) into buf.
void poisonFill(DType t, void *buf, size_t n);

enum class CompareMode { Oracle, Emulation };
const char *compareModeName(CompareMode m); ///< "oracle" / "emulation"

/// The spread-data row-relative bar: 2^-4 (an e4m3 P's rounding, relative)
/// + 2^-8 (bf16 out) rounded up (see the header comment).
inline constexpr double kSpreadRowBar = 0.07;

struct Tolerances {
  double max_abs = 0.055; ///< checked only when check_max_abs
  double rel_fro = 2e-2;
  double lse_rel = 1e-3; ///< |d| < lse_rel * max(1, |ref|)
  /// Per row: max |d| < max_row_rel * max(1, max |ref| of the row); checked
  /// only when check_row_rel (and rows are given).
  double max_row_rel = kSpreadRowBar;
  bool check_max_abs = true;
  bool check_row_rel = false;
  bool check_rel_fro = true;
  /// SPEC section 6 values of a mode for the data the inputs were made from
  /// (spread data, oracle mode: the row-relative bar instead of max_abs).
  static Tolerances forMode(CompareMode m, DataMode d = DataMode::Uniform);
};

struct CompareResult {
  CompareMode mode = CompareMode::Oracle;
  int64_t n = 0;             ///< output elements compared
  double max_abs_err = 0;    ///< over finite, written elements
  int64_t max_abs_index = -1;
  double rel_fro_err = 0;    ///< ||O - O_ref||_F / ||O_ref||_F (finite part)
  int64_t nonfinite = 0;     ///< NaN/inf elements not equal to the poison
  int64_t poisoned = 0;      ///< elements still equal to the poison pattern
  /// Rows of row_len elements (0: not computed): the worst row's
  /// max |d| / max(1, max |ref| of the row), its row, and its two maxima.
  int64_t row_len = 0;
  double max_row_rel_err = 0;
  int64_t max_row_rel_index = -1;
  double max_row_rel_abs = 0, max_row_rel_ref = 0;
  bool lse_checked = false;
  int64_t lse_n = 0;
  double lse_max_err = 0;    ///< max |lse - lse_ref| over finite pairs
  double lse_max_scaled_err = 0; ///< max |d| / max(1, |ref|)
  int64_t lse_bad = 0;       ///< elements over tolerance or -inf mismatch
  int64_t lse_nonfinite = 0; ///< NaN, or inf where the reference is finite
  int64_t lse_poisoned = 0;
  Tolerances tol;
  bool pass = false;
  std::string reason; ///< "" when pass, else every failed rule

  /// One JSON object on one line (keys as the fields above plus "pass").
  std::string toJson() const;
  /// A short human line: "PASS oracle max_abs=... rel_fro=... ..."; with the
  /// row-relative bar "PASS oracle max_row_rel=... max_abs=... ...".
  std::string summary() const;
  /// The errors alone, no verdict: "max_row_rel=... max_abs=... rel_fro=...
  /// lse_max=... lse_rel=..." (what a reported-not-judged comparison prints).
  std::string errors() const;
};

/// Compares n output elements of type out_t (raw bytes) with ref_out, and
/// when lse and ref_lse are non-null n_lse lse values (f32 raw). tol defaults
/// to Tolerances::forMode(mode). row_len > 0 splits the output into rows of
/// that many elements for the row-relative error (n a multiple of it).
CompareResult compareOutputs(DType out_t, const void *out, const double *ref_out,
                             size_t n, const float *lse, const double *ref_lse,
                             size_t n_lse, CompareMode mode,
                             const Tolerances *tol = nullptr,
                             size_t row_len = 0);

/// Output (in in.req.out_dtype) and optional lse against the oracle; the bar
/// follows in.req.data (spread: row-relative). Rows are of Dv elements.
CompareResult compareWithOracle(const Inputs &in, const void *out,
                                const float *lse, const OracleResult &ref);
/// The oracle comparison a kernel is judged by: against the oracle of the Q
/// it multiplies (OracleOptions::q_tile_rows = q_tile_rows when it quantizes
/// a 16-bit Q per tile, else Q as stored). With q_tile_rows > 0 and
/// `exactQ` given, *exactQ is the same output against the oracle of the
/// exact Q: the error the quantization adds (SPEC section 6, reported, not
/// judged).
CompareResult judgeAgainstOracle(const Inputs &in, const void *out,
                                 const float *lse, int64_t q_tile_rows,
                                 CompareResult *exactQ = nullptr);
/// Output and optional lse against the emulation (its out-typed output and
/// its lse are the reference).
CompareResult compareWithEmulation(const Inputs &in, const void *out,
                                   const float *lse, const EmulateResult &ref);

} // namespace fmha::ref

#endif // FMHA_REFERENCE_COMPARE_H
