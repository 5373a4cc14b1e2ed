#include <gtest/gtest.h>
#include <set>
#include "core/known_counts.h"
#include "core/units.h"
#include "support/brute_force.h"

using namespace nq::core;

namespace {
Count weighted_total(const UnitPlan& plan) {
  Count total = 0;
  for (const auto& u : plan.units()) total += u.multiplicity * plan.count(u).solutions;
  return total;
}
}  // namespace

TEST(Units, WeightedSumEqualsTotalForEveryDepthAndSymmetry) {
  for (int n = 1; n <= 12; ++n)
    for (int depth = 1; depth <= std::min(n, 5); ++depth)
      for (Symmetry s : {Symmetry::none, Symmetry::mirror})
        EXPECT_EQ(weighted_total(UnitPlan(n, depth, s)), known_counts(n)->total)
            << "n=" << n << " depth=" << depth << " symmetry=" << to_string(s);
}

TEST(Units, TotalsUpToSixteenEqualPublishedTable) {
  for (int n = 13; n <= 16; ++n)
    EXPECT_EQ(weighted_total(UnitPlan(n, 3)), known_counts(n)->total) << n;
}

TEST(Units, IdsAreStableConsecutiveAndPrefixesDistinct) {
  const UnitPlan plan(11, 3);
  const auto a = plan.units(), b = plan.units();
  ASSERT_EQ(a.size(), plan.size());
  std::set<std::array<Column, kMaxN>> seen;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, i);
    EXPECT_EQ(a[i].placement, b[i].placement);
    EXPECT_TRUE(seen.insert(a[i].placement).second);
    EXPECT_EQ(plan.multiplicity_of(a[i].placement), a[i].multiplicity);
  }
}

TEST(Units, MirrorHalvesTheUnitsAndOddMiddleColumnIsHandled) {
  EXPECT_EQ(UnitPlan(8, 1, Symmetry::mirror).size(), 4u);
  EXPECT_EQ(UnitPlan(8, 1, Symmetry::none).size(), 8u);
  const auto odd = UnitPlan(9, 1).units();   // columns 0..4, the middle one counted once
  ASSERT_EQ(odd.size(), 5u);
  EXPECT_EQ(odd[4].multiplicity, 1u);
  EXPECT_EQ(odd[0].multiplicity, 2u);
}

TEST(Units, BoardsOfAllUnitsAreExactlyTheSolutions) {
  for (int n : {5, 6, 8, 9}) {
    for (Symmetry s : {Symmetry::none, Symmetry::mirror}) {
      const UnitPlan plan(n, 2, s);
      std::multiset<Board> got;
      for (const auto& u : plan.units()) {
        Count boards = 0;
        const auto st = plan.visit_boards(u, [&](BoardView b) {
          got.emplace(b.begin(), b.end());
          ++boards;
          return true;
        });
        EXPECT_EQ(boards, u.multiplicity * st.solutions);
      }
      const auto expected = nq::test::brute_force_solutions(n);
      EXPECT_EQ(got, std::multiset<Board>(expected.begin(), expected.end())) << n;
    }
  }
}

TEST(Units, ForeignUnitsAreRejected) {
  const UnitPlan plan(8, 2);
  WorkUnit u;
  u.placement[0] = 0;
  u.placement[1] = 1;   // attacks
  EXPECT_THROW(plan.count(u), std::invalid_argument);
  u.placement[1] = 2;
  u.multiplicity = 2;
  EXPECT_NO_THROW(plan.count(u));
  u.placement[0] = 7;   // mirror image the plan leaves out
  u.placement[1] = 5;
  EXPECT_THROW(plan.count(u), std::invalid_argument);
  EXPECT_THROW(UnitPlan(8, 9), std::invalid_argument);
  EXPECT_THROW(UnitPlan(0, 1), std::invalid_argument);
  EXPECT_THROW(UnitPlan(33, 1), std::invalid_argument);
}

TEST(Units, DefaultDepthGivesEnoughUnits) {
  EXPECT_GE(UnitPlan(16, default_depth(16, 500)).size(), 500u);
  EXPECT_EQ(default_depth(4, 1000000), 4);
}
