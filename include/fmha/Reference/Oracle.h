//===- Oracle.h - Double-precision reference of SPEC section 3 --*- C++ -*-===//
//
// The oracle: attention computed in double precision from the dequantized
// inputs (x_real = stored * descale, descales indexed by physical page and kv
// head), reading the page table in one form through the KV layout, with every
// mask, soft cap and GQA ratio. A row with no visible key gives O = 0 and
// lse = -inf. lse is the natural log of the softmax denominator.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_REFERENCE_ORACLE_H
#define FMHA_REFERENCE_ORACLE_H

#include "fmha/Reference/Problem.h"

#include <optional>
#include <vector>

namespace fmha::ref {

struct OracleResult {
  std::vector<double> out; ///< [total_q, Hq, Dv]
  std::vector<double> lse; ///< [total_q, Hq], natural log; -inf: no visible key
};

struct OracleOptions {
  std::optional<TableForm> form; ///< page-table form to read; default req.table
  /// Worker threads over (sequence, kv head) items; <= 0: one per hardware
  /// thread. The result does not depend on it.
  int threads = 0;
  /// > 0: the Q the kernel multiplies when it quantizes a 16-bit Q per tile
  /// (config q_scale = per_tile): each tile of this many rows of one
  /// (sequence, query head) through quantizeQTile (Quantize.h) to
  /// qTileType(kv_dtype) (the cache family's e4m3), then dequantized in double (decoded value x descale). The rest
  /// is computed as always; 0: Q as stored.
  int64_t q_tile_rows = 0;
};

/// Runs the oracle. Throws std::invalid_argument when the page table fails
/// validatePageTable() in the form read.
OracleResult runOracle(const Inputs &in, const OracleOptions &opt = {});
/// Same, reading the page table in `form`.
OracleResult runOracle(const Inputs &in, TableForm form);

} // namespace fmha::ref

#endif // FMHA_REFERENCE_ORACLE_H
