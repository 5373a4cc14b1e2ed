#include <gtest/gtest.h>
#include <atomic>
#include <set>
#include "core/boards.h"
#include "core/known_counts.h"
#include "core/symmetry.h"
#include "support/brute_force.h"

using namespace nq::core;

TEST(Symmetry, RotationFixedCountsEqualPublishedUpToTwentyThree) {
  for (int n = 1; n <= 23; ++n) {
    const auto f = count_rotation_fixed(n, {}, 0);
    EXPECT_EQ(f.rot180, known_counts(n)->rot180_fixed) << n;
    EXPECT_EQ(f.rot90, known_counts(n)->rot90_fixed) << n;
  }
}

TEST(Symmetry, RotationFixedCountsEqualTheBruteForceSolutionsATurnMapsOntoThemselves) {
  // Independent method: every solution, turned (core/board.h's map_square, not the search's).
  for (int n = 1; n <= 11; ++n) {
    Count half = 0, quarter = 0;
    for (const auto& b : nq::test::brute_force_solutions(n)) {
      half += transform(b, 2) == b;
      quarter += transform(b, 1) == b;
    }
    const auto f = count_rotation_fixed(n);
    EXPECT_EQ(f.rot180, half) << n;
    EXPECT_EQ(f.rot90, quarter) << n;
  }
}

TEST(Symmetry, RotationFixedCountsDoNotDependOnTheThreads) {
  for (int n = 14; n <= 20; ++n) {
    const auto one = count_rotation_fixed(n, {}, 1);
    for (const int threads : {2, 3, 7}) {
      const auto many = count_rotation_fixed(n, {}, threads);
      EXPECT_EQ(many.rot180, one.rot180) << n << " " << threads;
      EXPECT_EQ(many.rot90, one.rot90) << n << " " << threads;
    }
  }
}

TEST(Symmetry, UniqueByBurnsideEqualsPublishedUpToFifteen) {
  for (int n = 1; n <= 15; ++n)
    EXPECT_EQ(unique_from_burnside(n, known_counts(n)->total, count_rotation_fixed(n)),
              known_counts(n)->unique) << n;
}

TEST(Symmetry, UniqueByBurnsideEqualsClassCountFromBruteForce) {
  // Independent method: canonical forms of every brute-force solution.
  for (int n = 1; n <= 10; ++n) {
    std::set<Board> classes;
    const auto all = nq::test::brute_force_solutions(n);
    for (const auto& b : all) classes.insert(canonical(b));
    EXPECT_EQ(unique_from_burnside(n, all.size(), count_rotation_fixed(n)), classes.size()) << n;
  }
}

TEST(Symmetry, WrongTotalFailsTheBurnsideCheck) {
  EXPECT_THROW(unique_from_burnside(8, 93, count_rotation_fixed(8)), IntegrityError);
}

TEST(Symmetry, BurnsideIsExactForTotalsPastTwoTo64) {
  // Q(29) ~ 2.7e19 is not published: a synthetic total past 2^64 with N = 8's P and R, whose
  // (total + P + 2R) / 8 must be the exact 128-bit quotient.
  const RotationFixed fixed = count_rotation_fixed(8);   // P = 4, R = 0
  const Total total = (Total{1} << 64) * 8 + 92;          // 8 * 2^64 + 92: + 4 is a multiple of 8
  EXPECT_EQ(to_decimal(unique_from_burnside(8, total, fixed)), "18446744073709551628");   // 2^64 + 12
  EXPECT_THROW(unique_from_burnside(8, total + 1, fixed), IntegrityError);
  EXPECT_THROW(unique_from_burnside(8, ~Total{0}, fixed), IntegrityError);   // the sum passes 2^128
}

TEST(Symmetry, TheBurnsideSearchStopsWhenAsked) {
  int polls = 0;   // one thread (the default): the predicate is called from one thread at a time
  const StopFn stop_at_third_poll = [&] { return ++polls == 3; };
  EXPECT_THROW(count_rotation_fixed(16, stop_at_third_poll), Interrupted);
  EXPECT_EQ(polls, 3);
  try {
    count_rotation_fixed(16, [] { return true; });
    FAIL() << "not interrupted";
  } catch (const Interrupted& e) {
    EXPECT_EQ(e.phase(), "the Burnside search");
  }
  const StopFn never = [] { return false; };
  EXPECT_EQ(count_rotation_fixed(16, never).rot180, known_counts(16)->rot180_fixed);
  std::atomic<int> calls{0};   // from every thread, each stopping at its next poll
  EXPECT_THROW(count_rotation_fixed(22, [&] { return ++calls > 2; }, 3), Interrupted);
}
