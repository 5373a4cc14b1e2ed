#include <gtest/gtest.h>
#include <map>
#include <set>
#include "core/boards.h"
#include "core/known_counts.h"
#include "support/brute_force.h"

using namespace nq::core;

TEST(Boards, AllModeVisitsEverySolutionOnceWithItsClassSize) {
  for (int n = 1; n <= 10; ++n) {
    std::set<Board> got;
    Count visits = 0;
    visit_plan_boards(UnitPlan(n, std::min(n, 2)), BoardSet::all, [&](BoardView b, int size) {
      EXPECT_TRUE(is_solution(b));
      EXPECT_EQ(size, class_size(b));
      got.emplace(b.begin(), b.end());
      ++visits;
    });
    const auto expected = nq::test::brute_force_solutions(n);
    EXPECT_EQ(visits, expected.size()) << n;   // distinct: no board visited twice
    EXPECT_EQ(got, std::set<Board>(expected.begin(), expected.end())) << n;
  }
}

TEST(Boards, ClassModeVisitsOneCanonicalBoardPerClassAndSizesAddUp) {
  for (int n = 1; n <= 12; ++n) {
    std::set<Board> reps;
    Count size_sum = 0;
    visit_plan_boards(UnitPlan(n, std::min(n, 3)), BoardSet::classes, [&](BoardView b, int size) {
      EXPECT_EQ(Board(b.begin(), b.end()), canonical(b));
      EXPECT_TRUE(reps.emplace(b.begin(), b.end()).second);
      size_sum += static_cast<Count>(size);
    });
    EXPECT_EQ(reps.size(), known_counts(n)->unique) << n;
    EXPECT_EQ(size_sum, known_counts(n)->total) << n;
  }
}

TEST(Boards, OrderIsDeterministic) {
  std::vector<Board> a, b;
  visit_plan_boards(UnitPlan(8, 2), BoardSet::all, [&](BoardView x, int) { a.emplace_back(x.begin(), x.end()); });
  visit_plan_boards(UnitPlan(8, 2), BoardSet::all, [&](BoardView x, int) { b.emplace_back(x.begin(), x.end()); });
  EXPECT_EQ(a, b);
}

TEST(Boards, FullSymmetryPlansGiveEverySolutionOnceAndEveryClassOnce) {
  for (int n = 1; n <= 10; ++n) {
    std::set<Board> got;
    Count visits = 0;
    visit_plan_boards(UnitPlan(n, 1, Symmetry::full), BoardSet::all, [&](BoardView b, int size) {
      EXPECT_EQ(size, class_size(b));
      got.emplace(b.begin(), b.end());
      ++visits;
    });
    const auto expected = nq::test::brute_force_solutions(n);
    EXPECT_EQ(visits, expected.size()) << n;
    EXPECT_EQ(got, std::set<Board>(expected.begin(), expected.end())) << n;
  }
  for (int n = 1; n <= 12; ++n) {
    std::set<Board> reps;
    Count size_sum = 0;
    visit_plan_boards(UnitPlan(n, std::min(n, 2), Symmetry::full), BoardSet::classes,
                      [&](BoardView b, int size) {
                        EXPECT_EQ(Board(b.begin(), b.end()), canonical(b));
                        EXPECT_TRUE(reps.emplace(b.begin(), b.end()).second);
                        size_sum += static_cast<Count>(size);
                      });
    EXPECT_EQ(reps.size(), known_counts(n)->unique) << n;
    EXPECT_EQ(size_sum, known_counts(n)->total) << n;
  }
}
