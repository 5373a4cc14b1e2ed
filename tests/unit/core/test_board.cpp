#include <gtest/gtest.h>
#include <cstdlib>
#include "core/board.h"

using namespace nq::core;

TEST(Board, ValidatorAcceptsSolutionsAndRejectsAttacks) {
  EXPECT_TRUE(is_solution(Board{2, 0, 3, 1}));
  EXPECT_TRUE(is_solution(Board{0}));
  EXPECT_FALSE(is_solution(Board{0, 1, 2, 3}));   // diagonal
  EXPECT_FALSE(is_solution(Board{1, 3, 1, 2}));   // column
  EXPECT_FALSE(is_solution(Board{1, 3, 0, 4}));   // off the board
  EXPECT_FALSE(is_solution(Board{}));
}

TEST(Board, ValidatorAgreesWithPairwiseChecksOnEveryBoardOfSix) {
  // Every board of 6 rows with columns 0..6 (6 is off the board): 7^6 of them.
  const int n = 6;
  Board b(n, 0);
  std::size_t solutions = 0;
  for (int code = 0; code < 117649; ++code) {
    for (int r = 0, x = code; r < n; ++r, x /= 7) b[r] = static_cast<Column>(x % 7);
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      ok = ok && b[i] < n;
      for (int j = i + 1; j < n; ++j)
        ok = ok && b[i] != b[j] && std::abs(b[i] - b[j]) != j - i;
    }
    ASSERT_EQ(is_solution(b), ok) << to_columns(b);
    solutions += ok;
  }
  EXPECT_EQ(solutions, 4u);
}

TEST(Board, EightSymmetriesMapSolutionsToSolutionsAndFormAGroup) {
  const Board b{0, 4, 7, 5, 2, 6, 1, 3};
  ASSERT_TRUE(is_solution(b));
  for (int k = 0; k < kSymmetries; ++k) EXPECT_TRUE(is_solution(transform(b, k))) << k;
  EXPECT_EQ(transform(transform(transform(transform(b, 1), 1), 1), 1), b);
  EXPECT_EQ(mirror(mirror(b)), b);
  EXPECT_EQ(transpose(transpose(b)), b);
  EXPECT_EQ(transform(b, 4), mirror(b));
}

TEST(Board, TransformMovesEveryQueenAsMapSquareSays) {
  const Board b{0, 4, 7, 5, 2, 6, 1, 3};
  const int n = static_cast<int>(b.size());
  for (int k = 0; k < kSymmetries; ++k) {
    Board expected(b.size(), 0xFF);
    for (int r = 0; r < n; ++r) {
      int rr = r, cc = b[r];
      map_square(n, k, rr, cc);
      expected[rr] = static_cast<Column>(cc);
    }
    EXPECT_EQ(transform(b, k), expected) << k;
  }
  EXPECT_EQ(transform(b, 1), (Board{7, 1, 3, 0, 6, 4, 2, 5}));   // by hand: row c holds 7 - r
}

TEST(Board, ClassSizeAndCanonicalForm) {
  EXPECT_EQ(class_size(Board{2, 0, 3, 1}), 2);       // N = 4: symmetric under the quarter turn
  EXPECT_EQ(canonical(Board{2, 0, 3, 1}), (Board{1, 3, 0, 2}));
  EXPECT_EQ(class_size(Board{0}), 1);
  EXPECT_EQ(class_size(Board{0, 4, 7, 5, 2, 6, 1, 3}), 8);
}

TEST(Board, MatrixFormatForFour) {
  EXPECT_EQ(to_matrix(Board{2, 0, 3, 1}), "0 0 1 0\n1 0 0 0\n0 0 0 1\n0 1 0 0\n");
  EXPECT_EQ(to_columns(Board{2, 0, 3, 1}), "[2, 0, 3, 1]");
}
