#include <gtest/gtest.h>
#include "core/known_counts.h"

using namespace nq::core;

TEST(KnownCounts, TableCoversOneToTwentySevenAndSatisfiesBurnside) {
  EXPECT_EQ(largest_known_n(), 27);
  for (int n = 1; n <= 27; ++n) {
    const auto k = known_counts(n);
    ASSERT_TRUE(k) << n;
    if (n >= 2) {
      EXPECT_EQ(8 * k->unique, k->total + k->rot180_fixed + 2 * k->rot90_fixed) << n;
    }
  }
  EXPECT_EQ(known_counts(27)->total, 234907967154122528ULL);
  EXPECT_FALSE(known_counts(28));
  EXPECT_FALSE(known_counts(0));
}
