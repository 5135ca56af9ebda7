//===- PageTableTest.cpp - CSR and block-table page tables ----------------===//

#include "fmha/Reference/PageTable.h"

#include <gtest/gtest.h>

#include <set>

using namespace fmha::ref;

namespace {
void checkTable(const PageTable &t, const std::vector<int64_t> &lens,
                int64_t P) {
  const int64_t B = static_cast<int64_t>(lens.size());
  ASSERT_EQ(t.batch(), B);
  EXPECT_EQ(validatePageTable(t, TableForm::CSR), "");
  EXPECT_EQ(validatePageTable(t, TableForm::Block), "");
  EXPECT_EQ(checkFormsAgree(t), "");
  const int64_t needed = pagesNeeded(lens, P);
  EXPECT_EQ(t.n_pages, 2 * needed + 3);
  EXPECT_EQ(static_cast<int64_t>(t.kv_page_indices.size()), needed);
  std::set<int32_t> seen;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t n = (lens[b] + P - 1) / P;
    for (TableForm f : {TableForm::CSR, TableForm::Block}) {
      EXPECT_EQ(t.seqLen(f, b), lens[b]);
      EXPECT_EQ(t.numPages(f, b), n);
    }
    EXPECT_EQ(t.kv_indptr[b + 1] - t.kv_indptr[b], n);
    EXPECT_EQ(t.kv_seqlen[b], lens[b]);
    if (n == 0) {
      EXPECT_EQ(t.kv_last_page_len[b], 0);
    } else {
      EXPECT_GE(t.kv_last_page_len[b], 1);
      EXPECT_LE(t.kv_last_page_len[b], P);
      EXPECT_EQ((n - 1) * P + t.kv_last_page_len[b], lens[b]);
    }
    const int32_t *pages = t.pages(TableForm::CSR, b);
    for (int64_t k = 0; k < n; ++k) {
      EXPECT_TRUE(seen.insert(pages[k]).second) << "page reused";
      if (k > 0)
        EXPECT_NE(pages[k], pages[k - 1] + 1) << "contiguous pages, seq " << b;
      EXPECT_EQ(t.block_table[b * t.max_pages + k], pages[k]);
    }
    for (int64_t k = n; k < t.max_pages; ++k)
      EXPECT_EQ(t.block_table[b * t.max_pages + k], kBlockTablePad);
    for (int64_t j = 0; j < lens[b]; ++j)
      ASSERT_EQ(t.pageOf(TableForm::Block, b, j), pages[j / P]);
  }
}
} // namespace

TEST(PageTable, RaggedLengthsManyPageSizes) {
  const std::vector<int64_t> lens = {0, 1, 48, 49, 1000, 95, 0, 2048};
  for (int64_t P : {1, 2, 7, 16, 48, 64, 1024}) {
    SCOPED_TRACE(P);
    checkTable(buildPageTable(lens, P, 123), lens, P);
  }
}

TEST(PageTable, PageSizeOneIsNeverContiguous) {
  // Long sequences of one-token pages: the repair pass must break every
  // x, x+1 run the permutation happens to draw.
  for (uint64_t seed = 0; seed < 8; ++seed) {
    PageTable t = buildPageTable({3000, 1, 777}, 1, seed);
    checkTable(t, {3000, 1, 777}, 1);
  }
}

TEST(PageTable, PartlyFilledLastPage) {
  PageTable t = buildPageTable({1100, 1024, 1025}, 1024, 5);
  EXPECT_EQ(t.kv_last_page_len[0], 76);
  EXPECT_EQ(t.kv_last_page_len[1], 1024);
  EXPECT_EQ(t.kv_last_page_len[2], 1);
  EXPECT_EQ(t.max_pages, 2);
}

TEST(PageTable, DeterministicInSeedAndCustomPool) {
  const std::vector<int64_t> lens = {100, 37};
  EXPECT_EQ(buildPageTable(lens, 16, 1).kv_page_indices,
            buildPageTable(lens, 16, 1).kv_page_indices);
  EXPECT_NE(buildPageTable(lens, 16, 1).kv_page_indices,
            buildPageTable(lens, 16, 2).kv_page_indices);
  PageTable big = buildPageTable(lens, 16, 1, 1000);
  EXPECT_EQ(big.n_pages, 1000);
  EXPECT_EQ(validatePageTable(big, TableForm::CSR), "");
  EXPECT_THROW(buildPageTable(lens, 16, 1, 5), std::invalid_argument);
  EXPECT_THROW(buildPageTable(lens, 0, 1), std::invalid_argument);
  EXPECT_THROW(buildPageTable({-1}, 16, 1), std::invalid_argument);
}

TEST(PageTable, CheckerRejectsBadIds) {
  const std::vector<int64_t> lens = {40, 17};
  const PageTable good = buildPageTable(lens, 16, 3);

  PageTable t = good;
  t.kv_page_indices[1] = static_cast<int32_t>(t.n_pages);
  std::string msg = validatePageTable(t, TableForm::CSR);
  EXPECT_NE(msg.find("kv_page_indices[1]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[0, " + std::to_string(t.n_pages) + ")"), std::string::npos);

  t = good;
  t.kv_page_indices[3] = -1;
  EXPECT_NE(validatePageTable(t, TableForm::CSR), "");

  t = good;
  t.block_table[t.max_pages + 1] = static_cast<int32_t>(t.n_pages + 7);
  msg = validatePageTable(t, TableForm::Block);
  EXPECT_NE(msg.find("block_table[" + std::to_string(t.max_pages + 1) + "]"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("sequence 1"), std::string::npos) << msg;

  // Padding past a sequence's pages is never read, so it is not checked.
  t = good;
  t.block_table[t.max_pages + 2] = -5; // sequence 1 has 2 pages of 3
  EXPECT_EQ(validatePageTable(t, TableForm::Block), "");

  t = good;
  t.kv_last_page_len[0] = 0;
  EXPECT_NE(validatePageTable(t, TableForm::CSR).find("kv_last_page_len[0]"),
            std::string::npos);
  t = good;
  t.kv_last_page_len[0] = 17;
  EXPECT_NE(validatePageTable(t, TableForm::CSR), "");

  t = good;
  t.kv_indptr[1] = 4;
  t.kv_indptr[2] = 3;
  EXPECT_NE(validatePageTable(t, TableForm::CSR).find("decreases"),
            std::string::npos);

  t = good;
  t.kv_seqlen[1] = static_cast<int32_t>(16 * t.max_pages + 1);
  EXPECT_NE(validatePageTable(t, TableForm::Block).find("kv_seqlen[1]"),
            std::string::npos);
  t.kv_seqlen[1] = -1;
  EXPECT_NE(validatePageTable(t, TableForm::Block), "");
}

TEST(PageTable, FormNames) {
  EXPECT_EQ(parseTableForm("csr"), TableForm::CSR);
  EXPECT_EQ(parseTableForm("SGLang"), TableForm::CSR);
  EXPECT_EQ(parseTableForm("vllm"), TableForm::Block);
  EXPECT_EQ(parseTableForm("block"), TableForm::Block);
  EXPECT_FALSE(parseTableForm("paged").has_value());
  EXPECT_STREQ(tableFormName(TableForm::Block), "block");
}
