#include <gtest/gtest.h>
#include <algorithm>
#include "core/solve.h"
#include "support/brute_force.h"

using namespace nq::core;

TEST(Solve, FirstSolutionForFourIsTheClassicMatrix) {
  const auto b = first_solution(4);
  ASSERT_TRUE(b);
  EXPECT_EQ(to_matrix(*b), "0 0 1 0\n1 0 0 0\n0 0 0 1\n0 1 0 0\n");
}

TEST(Solve, FirstSolutionForEightPlacesColumnByColumn) {
  // Column by column, rows tried top to bottom: column 0 -> row 0, column 1 -> row 4, ...
  const auto b = first_solution(8);
  ASSERT_TRUE(b);
  EXPECT_EQ(to_matrix(*b),
            "1 0 0 0 0 0 0 0\n"
            "0 0 0 0 0 0 1 0\n"
            "0 0 0 0 1 0 0 0\n"
            "0 0 0 0 0 0 0 1\n"
            "0 1 0 0 0 0 0 0\n"
            "0 0 0 1 0 0 0 0\n"
            "0 0 0 0 0 1 0 0\n"
            "0 0 1 0 0 0 0 0\n");
}

TEST(Solve, NoSolutionForTwoAndThree) {
  EXPECT_FALSE(first_solution(2));
  EXPECT_FALSE(first_solution(3));
  EXPECT_EQ(for_each_solution(3, [](BoardView) { return true; }), 0u);
}

TEST(Solve, AllSolutionsInColumnByColumnOrderMatchBruteForce) {
  for (int n = 1; n <= 9; ++n) {
    // Brute force gives boards in row-lexicographic order; column-by-column order sorts by
    // the transpose (row of the queen in each column).
    auto expected = nq::test::brute_force_solutions(n);
    std::ranges::sort(expected, {}, [](const Board& b) { return transpose(b); });
    std::vector<Board> got;
    for_each_solution(n, [&](BoardView b) {
      got.emplace_back(b.begin(), b.end());
      return true;
    });
    EXPECT_EQ(got, expected) << "n=" << n;
  }
}

TEST(Solve, RejectsSizesOutsideTheRange) {
  EXPECT_THROW(first_solution(0), std::invalid_argument);
  EXPECT_THROW(first_solution(33), std::invalid_argument);
}
