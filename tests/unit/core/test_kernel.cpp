#include <gtest/gtest.h>
#include "core/kernel.h"
#include "core/known_counts.h"
#include "support/brute_force.h"

using namespace nq::core;

TEST(Kernel, FullSearchEqualsPublishedTotalsUpToFourteen) {
  for (int n = 1; n <= 14; ++n)
    EXPECT_EQ(count_completions(*place_prefix(n, {})).solutions, known_counts(n)->total) << n;
}

TEST(Kernel, ReferenceKernelEqualsPublishedTotalsUpToFourteen) {
  for (int n = 1; n <= 14; ++n) EXPECT_EQ(reference_total(n), known_counts(n)->total) << n;
}

TEST(Kernel, VisitedBoardsEqualBruteForceInOrder) {
  for (int n = 1; n <= 9; ++n) {
    std::vector<Board> got;
    const auto st = visit_completions(*place_prefix(n, {}), {}, [&](BoardView b) {
      got.emplace_back(b.begin(), b.end());
      return true;
    });
    EXPECT_EQ(got, nq::test::brute_force_solutions(n)) << n;
    EXPECT_EQ(st.solutions, got.size());
  }
}

TEST(Kernel, CountingAndVisitingAgreeOnNodesAndSolutionsFromAPrefix) {
  const Column prefix[] = {1, 3};
  const auto p = place_prefix(10, prefix);
  ASSERT_TRUE(p);
  const auto counted = count_completions(*p);
  Count visited = 0;
  const auto st = visit_completions(*p, prefix, [&](BoardView b) {
    EXPECT_TRUE(is_solution(b));
    EXPECT_EQ(b[0], 1);
    EXPECT_EQ(b[1], 3);
    ++visited;
    return true;
  });
  EXPECT_EQ(counted.solutions, visited);
  EXPECT_EQ(counted.nodes, st.nodes);
  EXPECT_GT(visited, 0u);
}

TEST(Kernel, PlacePrefixRejectsAttacksAndOffBoardColumns) {
  const Column attack[] = {0, 1};
  const Column column[] = {2, 2};
  const Column off[] = {9};
  EXPECT_FALSE(place_prefix(8, attack));
  EXPECT_FALSE(place_prefix(8, column));
  EXPECT_FALSE(place_prefix(8, off));
  EXPECT_FALSE(place_prefix(33, {}));
  EXPECT_TRUE(place_prefix(32, {}));
}

TEST(Kernel, VisitStopsWhenAskedTo) {
  int seen = 0;
  visit_completions(*place_prefix(8, {}), {}, [&](BoardView) { return ++seen < 3; });
  EXPECT_EQ(seen, 3);
}
