#include <gtest/gtest.h>
#include <set>
#include "core/boards.h"
#include "core/known_counts.h"
#include "core/symmetry.h"
#include "support/brute_force.h"

using namespace nq::core;

TEST(Symmetry, RotationFixedCountsEqualPublishedUpToTwenty) {
  for (int n = 1; n <= 20; ++n) {
    const auto f = count_rotation_fixed(n);
    EXPECT_EQ(f.rot180, known_counts(n)->rot180_fixed) << n;
    EXPECT_EQ(f.rot90, known_counts(n)->rot90_fixed) << n;
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
