//===- Mutate.cpp - Descales as a kernel with a descale bug reads them ----===//

#include "fmha/Reference/Mutate.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace fmha::ref {

namespace {
constexpr std::pair<DescaleMutation, const char *> kNames[] = {
    {DescaleMutation::None, "none"},
    {DescaleMutation::SwapKV, "swap-kv"},
    {DescaleMutation::LogicalPage, "logical-page"},
    {DescaleMutation::WrongHead, "wrong-head"},
    {DescaleMutation::PerTile, "per-tile"},
    {DescaleMutation::Global, "global"},
};
} // namespace

const char *descaleMutationName(DescaleMutation m) {
  for (auto &[k, name] : kNames)
    if (k == m)
      return name;
  return "?";
}

std::optional<DescaleMutation> parseDescaleMutation(std::string_view s) {
  std::string l;
  for (char c : s)
    l.push_back(c == '_' ? '-'
                         : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (auto &[k, name] : kNames)
    if (l == name)
      return k;
  return std::nullopt;
}

std::string mutatedDescales(const Inputs &in, DescaleMutation kind,
                            int64_t blockN, std::vector<float> &result,
                            std::string *note) {
  const Request &req = in.req;
  const int64_t H = req.num_kv_heads, N = in.nPages(), P = req.page_size;
  const bool perPage = req.quant == QuantMode::KVBlockscale;
  const float *src = in.kv_descale.data();
  std::vector<float> out = in.kv_descale;
  const DescaleLayout *lay[2] = {&in.k_descale, &in.v_descale};
  auto get = [&](int t, int64_t page, int64_t head) {
    return lay[t]->at(src, page, head);
  };
  auto set = [&](int t, int64_t page, int64_t head, float v) {
    out[static_cast<size_t>(lay[t]->index(page, head))] = v;
  };
  if (kind == DescaleMutation::PerTile && blockN < 1)
    return "per-tile descale mutation needs block_n >= 1, got " +
           std::to_string(blockN);

  // The pages the kernel reads, sequence by sequence, in the form it reads;
  // each physical page at most once, so a per-page rewrite is one kernel's
  // view.
  const TableForm form = req.table;
  const PageTable &pt = in.table;
  if (perPage) {
    std::vector<int> uses(static_cast<size_t>(N), 0);
    for (int64_t b = 0; b < pt.batch(); ++b) {
      const int32_t *pages = pt.pages(form, b);
      for (int64_t j = 0; j < pt.numPages(form, b); ++j) {
        if (pages[j] < 0 || pages[j] >= N)
          return "descale mutation: sequence " + std::to_string(b) + " page " +
                 std::to_string(j) + " is " + std::to_string(pages[j]) +
                 ", not a page id in [0, " + std::to_string(N) + ")";
        if (++uses[static_cast<size_t>(pages[j])] > 1)
          return "descale mutation: physical page " + std::to_string(pages[j]) +
                 " is used twice; the per-page rewrite needs each page in "
                 "one place of one sequence";
      }
    }
  }

  const int64_t pagesAll = perPage ? N : 1, headsAll = perPage ? H : 1;
  bool exact = true;
  switch (kind) {
  case DescaleMutation::None:
    break;
  case DescaleMutation::SwapKV:
    for (int64_t pg = 0; pg < pagesAll; ++pg)
      for (int64_t g = 0; g < headsAll; ++g) {
        set(0, pg, g, get(1, pg, g));
        set(1, pg, g, get(0, pg, g));
      }
    break;
  case DescaleMutation::WrongHead:
    if (perPage)
      for (int t = 0; t < 2; ++t)
        for (int64_t pg = 0; pg < N; ++pg)
          for (int64_t g = 0; g < H; ++g)
            set(t, pg, g, get(t, pg, (g + 1) % H));
    break;
  case DescaleMutation::LogicalPage:
    if (perPage)
      for (int64_t b = 0; b < pt.batch(); ++b) {
        const int32_t *pages = pt.pages(form, b);
        for (int64_t j = 0; j < pt.numPages(form, b); ++j)
          for (int t = 0; t < 2; ++t)
            for (int64_t g = 0; g < H; ++g)
              set(t, pages[j], g, get(t, j, g));
      }
    break;
  case DescaleMutation::PerTile:
    exact = blockN % P == 0 || P % blockN == 0;
    if (perPage)
      for (int64_t b = 0; b < pt.batch(); ++b) {
        const int32_t *pages = pt.pages(form, b);
        for (int64_t j = 0; j < pt.numPages(form, b); ++j) {
          // The tile of the page's first token, and that tile's first page.
          const int64_t tile = j * P / blockN;
          const int64_t first = tile * blockN / P;
          for (int t = 0; t < 2; ++t)
            for (int64_t g = 0; g < H; ++g)
              set(t, pages[j], g, get(t, pages[first], g));
        }
      }
    break;
  case DescaleMutation::Global:
    if (perPage) {
      // Page 0 of sequence 0 (of the first sequence with a page; physical
      // page 0 when no sequence has one).
      int64_t p0 = 0;
      for (int64_t b = 0; b < pt.batch(); ++b)
        if (pt.numPages(form, b) > 0) {
          p0 = pt.pages(form, b)[0];
          break;
        }
      for (int t = 0; t < 2; ++t) {
        const float v = get(t, p0, 0);
        for (int64_t pg = 0; pg < N; ++pg)
          for (int64_t g = 0; g < H; ++g)
            set(t, pg, g, v);
      }
    }
    break;
  }

  if (note) {
    int64_t changed = 0;
    for (size_t i = 0; i < out.size(); ++i)
      changed += std::memcmp(&out[i], &in.kv_descale[i], sizeof(float)) != 0;
    std::string s = descaleMutationName(kind);
    if (kind == DescaleMutation::PerTile)
      s += " (block_n " + std::to_string(blockN) + ")";
    s += ": " + std::to_string(changed) + " of " + std::to_string(out.size()) +
         " descales changed";
    if (!exact)
      s += "; approximate: pages straddle tiles (neither of P = " +
           std::to_string(P) + " and block_n divides the other)";
    *note = s;
  }
  result = std::move(out);
  return "";
}

std::string mutateDescales(Inputs &in, DescaleMutation kind, int64_t blockN,
                           std::string *note) {
  std::vector<float> d;
  if (std::string err = mutatedDescales(in, kind, blockN, d, note); !err.empty())
    return err;
  in.kv_descale = std::move(d);
  return "";
}

} // namespace fmha::ref
