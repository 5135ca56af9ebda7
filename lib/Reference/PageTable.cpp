//===- PageTable.cpp - Paged KV cache tables ------------------------------===//

#include "fmha/Reference/PageTable.h"
#include "fmha/Reference/Random.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace fmha::ref {

const char *tableFormName(TableForm f) {
  return f == TableForm::CSR ? "csr" : "block";
}

std::optional<TableForm> parseTableForm(std::string_view s) {
  std::string l;
  for (char c : s)
    l.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (l == "csr" || l == "sglang" || l == "flashinfer")
    return TableForm::CSR;
  if (l == "block" || l == "block_table" || l == "block-table" || l == "vllm")
    return TableForm::Block;
  return std::nullopt;
}

int64_t PageTable::seqLen(TableForm f, int64_t b) const {
  if (f == TableForm::Block)
    return kv_seqlen[b];
  int64_t n = kv_indptr[b + 1] - kv_indptr[b];
  return n == 0 ? 0 : (n - 1) * page_size + kv_last_page_len[b];
}

int64_t PageTable::numPages(TableForm f, int64_t b) const {
  if (f == TableForm::CSR)
    return kv_indptr[b + 1] - kv_indptr[b];
  return (kv_seqlen[b] + page_size - 1) / page_size;
}

const int32_t *PageTable::pages(TableForm f, int64_t b) const {
  if (f == TableForm::CSR)
    return kv_page_indices.data() + kv_indptr[b];
  return block_table.data() + b * max_pages;
}

int64_t pagesNeeded(const std::vector<int64_t> &kv_lens, int64_t page_size) {
  int64_t n = 0;
  for (int64_t l : kv_lens)
    n += (l + page_size - 1) / page_size;
  return n;
}

PageTable buildPageTable(const std::vector<int64_t> &kv_lens,
                         int64_t page_size, uint64_t seed, int64_t n_pages) {
  if (page_size < 1)
    throw std::invalid_argument("page size must be >= 1, got " +
                                std::to_string(page_size));
  for (size_t b = 0; b < kv_lens.size(); ++b)
    if (kv_lens[b] < 0)
      throw std::invalid_argument("kv length of sequence " + std::to_string(b) +
                                  " is negative");
  const int64_t B = static_cast<int64_t>(kv_lens.size());
  const int64_t needed = pagesNeeded(kv_lens, page_size);
  if (n_pages == 0)
    n_pages = 2 * needed + 3;
  if (n_pages < needed)
    throw std::invalid_argument("pool of " + std::to_string(n_pages) +
                                " pages is smaller than the " +
                                std::to_string(needed) + " needed");
  if (n_pages > INT32_MAX)
    throw std::invalid_argument("page ids must fit in i32");

  // Fisher-Yates over the pool; the first `needed` ids become the sequences'
  // pages in order.
  Rng rng(seed, /*stream=*/0x7061676573ull);
  std::vector<int32_t> perm(static_cast<size_t>(n_pages));
  std::iota(perm.begin(), perm.end(), 0);
  for (int64_t i = n_pages - 1; i > 0; --i)
    std::swap(perm[i], perm[rng.below(static_cast<uint64_t>(i) + 1)]);

  // Repair: no page may be followed by its successor id within a sequence.
  // Each violation swaps the later page with a random unused one that breaks
  // no adjacency; needs at least one unused page.
  std::vector<int64_t> first(B + 1, 0);
  for (int64_t b = 0; b < B; ++b)
    first[b + 1] = first[b] + (kv_lens[b] + page_size - 1) / page_size;
  const int64_t unused = n_pages - needed;
  for (int64_t b = 0; b < B && unused > 0; ++b) {
    for (int64_t k = first[b] + 1; k < first[b + 1]; ++k) {
      for (int tries = 0; tries < 1000 && perm[k] == perm[k - 1] + 1; ++tries) {
        int64_t u = needed + static_cast<int64_t>(rng.below(unused));
        int32_t c = perm[u];
        bool nextOk = k + 1 >= first[b + 1] || perm[k + 1] != c + 1;
        if (c != perm[k - 1] + 1 && nextOk)
          std::swap(perm[k], perm[u]);
      }
    }
  }

  PageTable t;
  t.page_size = page_size;
  t.n_pages = n_pages;
  t.kv_indptr.resize(B + 1);
  t.kv_last_page_len.resize(B);
  t.kv_seqlen.resize(B);
  t.max_pages = 1;
  for (int64_t b = 0; b < B; ++b) {
    t.kv_indptr[b + 1] = static_cast<int32_t>(first[b + 1]);
    int64_t n = first[b + 1] - first[b];
    t.kv_last_page_len[b] =
        n == 0 ? 0 : static_cast<int32_t>(kv_lens[b] - (n - 1) * page_size);
    t.kv_seqlen[b] = static_cast<int32_t>(kv_lens[b]);
    t.max_pages = std::max(t.max_pages, n);
  }
  t.kv_page_indices.assign(perm.begin(), perm.begin() + needed);
  t.block_table.assign(static_cast<size_t>(B * t.max_pages), kBlockTablePad);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t k = first[b]; k < first[b + 1]; ++k)
      t.block_table[b * t.max_pages + (k - first[b])] = perm[k];
  return t;
}

std::string validatePageTable(const PageTable &t, TableForm f) {
  std::ostringstream os;
  const int64_t P = t.page_size;
  if (P < 1) {
    os << "page size must be >= 1, got " << P;
    return os.str();
  }
  if (t.n_pages < 0) {
    os << "n_pages must be >= 0, got " << t.n_pages;
    return os.str();
  }
  auto checkId = [&](const char *name, int64_t at, int64_t b, int64_t k,
                     int64_t id) {
    if (id >= 0 && id < t.n_pages)
      return true;
    os << name << "[" << at << "] = " << id << " (sequence " << b << ", page "
       << k << ") is not a page id in [0, " << t.n_pages << ")";
    return false;
  };
  if (f == TableForm::CSR) {
    const int64_t B = static_cast<int64_t>(t.kv_indptr.size()) - 1;
    if (B < 0) {
      os << "kv_indptr must have B+1 >= 1 entries";
      return os.str();
    }
    if (static_cast<int64_t>(t.kv_last_page_len.size()) != B) {
      os << "kv_last_page_len has " << t.kv_last_page_len.size()
         << " entries, expected B = " << B;
      return os.str();
    }
    if (t.kv_indptr[0] != 0) {
      os << "kv_indptr[0] = " << t.kv_indptr[0] << ", expected 0";
      return os.str();
    }
    for (int64_t b = 0; b < B; ++b) {
      if (t.kv_indptr[b + 1] < t.kv_indptr[b]) {
        os << "kv_indptr decreases at " << b + 1 << " (" << t.kv_indptr[b]
           << " -> " << t.kv_indptr[b + 1] << ")";
        return os.str();
      }
    }
    if (static_cast<int64_t>(t.kv_page_indices.size()) < t.kv_indptr[B]) {
      os << "kv_page_indices has " << t.kv_page_indices.size()
         << " entries, kv_indptr[B] = " << t.kv_indptr[B];
      return os.str();
    }
    for (int64_t b = 0; b < B; ++b) {
      int64_t n = t.kv_indptr[b + 1] - t.kv_indptr[b];
      int64_t lpl = t.kv_last_page_len[b];
      if (n > 0 && (lpl < 1 || lpl > P)) {
        os << "kv_last_page_len[" << b << "] = " << lpl << " not in [1, " << P
           << "] for a sequence with " << n << " pages";
        return os.str();
      }
      if (n == 0 && (lpl < 0 || lpl > P)) {
        os << "kv_last_page_len[" << b << "] = " << lpl << " not in [0, " << P
           << "]";
        return os.str();
      }
      for (int64_t k = 0; k < n; ++k)
        if (!checkId("kv_page_indices", t.kv_indptr[b] + k, b, k,
                     t.kv_page_indices[t.kv_indptr[b] + k]))
          return os.str();
    }
    return "";
  }
  const int64_t B = static_cast<int64_t>(t.kv_seqlen.size());
  if (t.max_pages < 0 ||
      static_cast<int64_t>(t.block_table.size()) != B * t.max_pages) {
    os << "block_table has " << t.block_table.size() << " entries, expected B x "
       << "max_pages = " << B << " x " << t.max_pages;
    return os.str();
  }
  for (int64_t b = 0; b < B; ++b) {
    int64_t sk = t.kv_seqlen[b];
    if (sk < 0) {
      os << "kv_seqlen[" << b << "] = " << sk << " is negative";
      return os.str();
    }
    int64_t n = (sk + P - 1) / P;
    if (n > t.max_pages) {
      os << "kv_seqlen[" << b << "] = " << sk << " needs " << n
         << " pages, block_table has " << t.max_pages << " columns";
      return os.str();
    }
    for (int64_t k = 0; k < n; ++k)
      if (!checkId("block_table", b * t.max_pages + k, b, k,
                   t.block_table[b * t.max_pages + k]))
        return os.str();
  }
  return "";
}

std::string checkFormsAgree(const PageTable &t) {
  const int64_t B = t.batch();
  if (static_cast<int64_t>(t.kv_indptr.size()) != B + 1)
    return "kv_indptr and kv_seqlen disagree on B";
  for (int64_t b = 0; b < B; ++b) {
    int64_t lc = t.seqLen(TableForm::CSR, b), lb = t.seqLen(TableForm::Block, b);
    if (lc != lb)
      return "sequence " + std::to_string(b) + ": CSR length " +
             std::to_string(lc) + " != block-table length " +
             std::to_string(lb);
    int64_t n = t.numPages(TableForm::CSR, b);
    if (n != t.numPages(TableForm::Block, b))
      return "sequence " + std::to_string(b) + ": page counts differ";
    for (int64_t k = 0; k < n; ++k)
      if (t.pages(TableForm::CSR, b)[k] != t.pages(TableForm::Block, b)[k])
        return "sequence " + std::to_string(b) + " page " + std::to_string(k) +
               " differs between forms";
  }
  return "";
}

} // namespace fmha::ref
