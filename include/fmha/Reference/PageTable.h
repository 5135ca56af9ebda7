//===- PageTable.h - Paged KV cache tables (CSR and block table) -*- C++ -*-===//
//
// Builds the two page-table forms of SPEC section 1 for one cache from ragged
// KV lengths, reads them the way a kernel must (never past a sequence's own
// pages) and checks them on the host before launch (SPEC section 7).
//
//  CSR (FlashInfer/SGLang): kv_indptr [B+1], kv_page_indices [kv_indptr[B]],
//      kv_last_page_len [B]; Sk_b = (n_b-1)*P + kv_last_page_len[b], 0 when
//      n_b = 0 (then kv_last_page_len[b] is 0).
//  Block table (vLLM): block_table [B, max_pages] row-major, kv_seqlen [B];
//      entries past a sequence's ceil(Sk_b/P) pages hold kBlockTablePad.
//
// Pages are a random permutation of a pool larger than needed, repaired so
// that no sequence ever has page x followed by page x+1: a kernel that assumes
// contiguous pages fails loudly.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_REFERENCE_PAGETABLE_H
#define FMHA_REFERENCE_PAGETABLE_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fmha::ref {

enum class TableForm { CSR, Block };
const char *tableFormName(TableForm f); ///< "csr" / "block"
/// "csr" (also "sglang", "flashinfer") or "block" (also "block_table", "vllm").
std::optional<TableForm> parseTableForm(std::string_view s);

/// Padding of unused block-table entries: an id no pool has, chosen so that a
/// kernel that wrongly reads it computes an address far outside the pool
/// (a fault) rather than a neighbouring page (-1 would land just before it).
inline constexpr int32_t kBlockTablePad = 0x7FFFFFFF;

struct PageTable {
  int64_t page_size = 1;
  int64_t n_pages = 0; ///< pages in the pool; valid ids are [0, n_pages).
  // CSR form.
  std::vector<int32_t> kv_indptr;
  std::vector<int32_t> kv_page_indices;
  std::vector<int32_t> kv_last_page_len;
  // Block-table form.
  int64_t max_pages = 0; ///< columns of block_table (>= 1 when B > 0).
  std::vector<int32_t> block_table;
  std::vector<int32_t> kv_seqlen;

  int64_t batch() const { return static_cast<int64_t>(kv_seqlen.size()); }
  /// Sk_b as the given form states it (SPEC section 1).
  int64_t seqLen(TableForm f, int64_t b) const;
  /// Pages sequence b owns in the given form: ceil(Sk_b / P).
  int64_t numPages(TableForm f, int64_t b) const;
  /// The sequence's page ids (numPages(f, b) of them are meaningful).
  const int32_t *pages(TableForm f, int64_t b) const;
  /// Physical page of logical key j < seqLen(f, b).
  int32_t pageOf(TableForm f, int64_t b, int64_t j) const {
    return pages(f, b)[j / page_size];
  }
};

/// Pages the lengths need in total: sum of ceil(Sk_b / P).
int64_t pagesNeeded(const std::vector<int64_t> &kv_lens, int64_t page_size);

/// Builds both forms for the same cache. n_pages = 0 picks 2*needed + 3;
/// otherwise it must be >= needed. Throws std::invalid_argument on bad sizes.
PageTable buildPageTable(const std::vector<int64_t> &kv_lens,
                         int64_t page_size, uint64_t seed,
                         int64_t n_pages = 0);

/// Host-side checker of one form: shapes, monotone kv_indptr, last-page
/// lengths in [1, P] for non-empty sequences, kv_seqlen >= 0 and fitting
/// max_pages, and every page id a kernel will read in [0, n_pages).
/// Returns "" when valid, else a message naming the offending entry.
std::string validatePageTable(const PageTable &t, TableForm f);

/// "" when both forms give every sequence the same length and the same pages.
std::string checkFormsAgree(const PageTable &t);

} // namespace fmha::ref

#endif // FMHA_REFERENCE_PAGETABLE_H
