// How the peer ranks of `nqueens check` and `nqueens count` deal a selection of rows (app/rank_share.h).
#include <gtest/gtest.h>
#include <map>
#include <random>
#include "app/rank_share.h"

using namespace nq;
using app::RowSpan;

namespace {

// rank_share of every rank, checked: each rank's spans increasing, disjoint and not touching,
// and together every row of the selection exactly once.
std::vector<std::vector<RowSpan>> shares(const std::vector<RowSpan>& selection, int ranks) {
  std::vector<std::vector<RowSpan>> all;
  std::map<std::uint64_t, int> owner;
  for (int r = 0; r < ranks; ++r) {
    all.push_back(app::rank_share(selection, r, ranks));
    for (std::size_t i = 0; i < all.back().size(); ++i) {
      const RowSpan& s = all.back()[i];
      EXPECT_LT(s.begin, s.end);
      if (i) {
        EXPECT_LT(all.back()[i - 1].end, s.begin) << "rank " << r << ": spans out of order or touching";
      }
      for (auto row = s.begin; row < s.end; ++row) EXPECT_TRUE(owner.emplace(row, r).second) << "row " << row << " twice";
    }
  }
  std::uint64_t selected = 0;
  for (const auto& s : selection)
    for (auto row = s.begin; row < s.end; ++row, ++selected) EXPECT_TRUE(owner.count(row)) << "row " << row << " dealt to none";
  EXPECT_EQ(owner.size(), selected);
  return all;
}

std::uint64_t rows(const std::vector<RowSpan>& spans) {
  std::uint64_t n = 0;
  for (const auto& s : spans) n += s.end - s.begin;
  return n;
}

}  // namespace

TEST(RankShare, OneRankChecksTheWholeSelection) {
  const std::vector<RowSpan> selection{{0, 5}, {9, 10}, {12, 4000}};
  EXPECT_EQ(app::rank_share(selection, 0, 1), selection);
}

TEST(RankShare, ASampleIsDealtRowByRowSoEveryRankGetsSome) {
  std::vector<RowSpan> sample;
  for (std::uint64_t row : {3, 17, 18, 40, 41, 42, 90, 1000, 5000, 5001, 77777})
    sample.push_back({row, row + 1});
  const auto all = shares(sample, 4);
  for (const auto& mine : all) EXPECT_GE(rows(mine), 2u);
  EXPECT_EQ(all[0], (std::vector<RowSpan>{{3, 4}, {41, 42}, {5000, 5001}}));   // the 1st, 5th and 9th rows
}

TEST(RankShare, EveryRowOfALargeSelectionOnceInBlocksSpreadOverTheRanks) {
  // Every unit of N = 27's plan is 1.6e8 rows; dealt in blocks of kDealBlock, the plan's heavy
  // first units (the first 2% here) go to every rank, and each rank reads runs of rows.
  const std::uint64_t total = 160'000'000;
  for (int ranks : {2, 3, 64}) {
    const auto mine = app::rank_share({{0, total}}, ranks - 1, ranks);
    EXPECT_NEAR(static_cast<double>(rows(mine)), static_cast<double>(total) / ranks, app::kDealBlock);
    EXPECT_EQ(mine.front().end - mine.front().begin, app::kDealBlock);
    std::uint64_t early = 0;
    for (const auto& s : mine) early += s.begin < total / 50 ? std::min(s.end, total / 50) - s.begin : 0;
    EXPECT_NEAR(static_cast<double>(early), total / 50.0 / ranks, 2.0 * app::kDealBlock) << ranks << " ranks";
  }
  // Random selections (ranges, touching and not, and single rows), checked row by row.
  std::mt19937_64 random(11);
  for (int round = 0; round < 40; ++round) {
    std::vector<RowSpan> selection;
    std::uint64_t row = random() % 5;
    for (int k = 0; k < 1 + static_cast<int>(random() % 30); ++k) {
      const std::uint64_t len = random() % 3 ? 1 + random() % 3 : 1 + random() % 5000;
      selection.push_back({row, row + len});
      row += len + 1 + random() % 50;
    }
    shares(selection, 1 + static_cast<int>(random() % 7));
  }
}
