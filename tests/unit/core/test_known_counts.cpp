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

TEST(KnownCounts, TheExpectedTotalIsThePublishedOneOrAnExtrapolationThatHeldOnTheTable) {
  EXPECT_EQ(*expected_total(27), 234907967154122528.0);
  EXPECT_FALSE(expected_total(3));   // no solution: nothing to expect
  EXPECT_FALSE(expected_total(kMaxN + 1));
  // Past the table: the extrapolation from all of it, between 10x and 12x N = 27's (its ratios
  // to N = 25, 26 and 27 were 9.7, 10.1 and 10.5).
  EXPECT_EQ(*expected_total(28), *extrapolated_total(28, 27));
  EXPECT_GT(*expected_total(28), 10 * *expected_total(27));
  EXPECT_LT(*expected_total(28), 12 * *expected_total(27));
  // The rule checked against the published counts: from the table up to `last`, one and two
  // sizes ahead.
  for (int last = 22; last <= 26; ++last) {
    const double next = static_cast<double>(known_counts(last + 1)->total);
    EXPECT_NEAR(*extrapolated_total(last + 1, last) / next, 1.0, 0.015) << last;
    if (last + 2 <= 27) {
      const double after = static_cast<double>(known_counts(last + 2)->total);
      EXPECT_NEAR(*extrapolated_total(last + 2, last) / after, 1.0, 0.03) << last;
    }
  }
  EXPECT_FALSE(extrapolated_total(27, 27));
  EXPECT_FALSE(extrapolated_total(29, 28));
}

TEST(KnownCounts, TheSampledNodesOfNAreItsLastEstimateAndHoldAgainstAWholeCount) {
  // N = 20's depth-2 plan (117,330 units), counted whole: 535,176,784,271 nodes (every unit,
  // `nqueens run --n 20`, the sum of the result file's units/nodes; session 12 got the same from
  // nq_engines). Its last sample (5.3304e11, +-1.53 %) is within two of its errors.
  const auto s = sampled_plan_nodes(20, 117330);
  ASSERT_TRUE(s);
  EXPECT_NEAR(s->nodes / 535176784271.0, 1.0, 2 * s->rel_se);
  EXPECT_DOUBLE_EQ(s->rel_se, 0.0153);   // the last of bench/sampled-nodes.txt's N = 20 rows
  // Another plan of N = 20 (depth 3: 1,102,761 units) walks fewer nodes.
  const auto deeper = sampled_plan_nodes(20, 1102761);
  ASSERT_TRUE(deeper);
  EXPECT_DOUBLE_EQ(deeper->nodes, nodes_for_units(s->nodes, 117330, 1102761));
  EXPECT_LT(deeper->nodes, s->nodes);
  // Past the published table too (N = 28: 231,455,486 units at depth 4).
  EXPECT_TRUE(sampled_plan_nodes(28, 231455486));
  EXPECT_FALSE(sampled_plan_nodes(18, 5728));   // N = 18 is not sampled
}
