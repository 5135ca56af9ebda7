//===- Mutate.h - Descales as a kernel with a descale bug reads them -*- C++ -*-===//
//
// Proof that the inputs see descale bugs (SPEC section 6, spread data): the
// descales handed to a kernel are rewritten so that a correct kernel computes
// what a kernel with one of five descale bugs computes from the true ones.
// The references (oracle, emulation) keep the true descales, so a check that
// sees the bug fails. All five read the kv_blockscale descales ([N_pages,
// Hkv] each, by physical page and kv head):
//   swap-kv       K and V descales exchanged;
//   logical-page  the descale of physical page pages_b[j] is that of page
//                 index j (the logical page of the sequence, read as if it
//                 were a physical id);
//   wrong-head    kv head g reads kv head (g + 1) % Hkv (no change for
//                 Hkv = 1);
//   per-tile      one descale per KV tile of block_n tokens (tiles start at
//                 multiples of block_n in each sequence): that of the tile's
//                 first page (no change when P % block_n == 0, where a tile
//                 lies in one page and one descale per tile is right);
//   global        every (page, head) reads (the first page of the first
//                 sequence that has one, head 0; physical page 0 if none),
//                 K and V each their own.
// Per-page rewrites are exact only because each physical page belongs to at
// most one sequence and logical page (makeInputs' tables are permutations of
// the pool; checked, an error otherwise). per-tile is exact when
// block_n % P == 0 or P % block_n == 0; otherwise a page that straddles two
// tiles gets the descale its first token is read with (the note says so).
// With per_tensor or none quant the descales are {kd, vd}: only swap-kv
// changes them.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_REFERENCE_MUTATE_H
#define FMHA_REFERENCE_MUTATE_H

#include "fmha/Reference/Problem.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fmha::ref {

enum class DescaleMutation { None, SwapKV, LogicalPage, WrongHead, PerTile, Global };
/// "none", "swap-kv", "logical-page", "wrong-head", "per-tile", "global".
const char *descaleMutationName(DescaleMutation m);
/// The names above ('_' accepted for '-').
std::optional<DescaleMutation> parseDescaleMutation(std::string_view s);

/// Sets `out` to in.kv_descale rewritten by `kind` (same size and layout:
/// read it through in.k_descale / in.v_descale) and returns "", or returns
/// why it cannot (out untouched): block_n < 1 with per-tile, a page id
/// outside the pool or a physical page used twice. block_n is the kernel's
/// KV tile width (per-tile only). `note`, when given, gets one line: what
/// changed, e.g. "per-tile (block_n 32): 24 of 72 descales changed". No
/// exceptions, for tools built without them.
std::string mutatedDescales(const Inputs &in, DescaleMutation kind,
                            int64_t blockN, std::vector<float> &out,
                            std::string *note = nullptr);

/// In place: in.kv_descale rewritten as above; "" or why not.
std::string mutateDescales(Inputs &in, DescaleMutation kind, int64_t blockN,
                           std::string *note = nullptr);

} // namespace fmha::ref

#endif // FMHA_REFERENCE_MUTATE_H
