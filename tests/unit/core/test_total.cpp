// 128-bit totals: decimal text both ways, the halves, and sums that pass 2^64.
#include <gtest/gtest.h>
#include <limits>
#include "core/total.h"

using namespace nq::core;

namespace {
constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();
const Total kTwoTo64 = Total{1} << 64;
}  // namespace

TEST(Total, DecimalTextRoundTripsAtTheEdges) {
  EXPECT_EQ(to_decimal(0), "0");
  EXPECT_EQ(to_decimal(kMax64), "18446744073709551615");
  EXPECT_EQ(to_decimal(kTwoTo64), "18446744073709551616");
  EXPECT_EQ(to_decimal(~Total{0}), "340282366920938463463374607431768211455");
  for (const Total v : {Total{0}, Total{7}, Total{kMax64}, kTwoTo64 + 1, ~Total{0}, from_halves(1, 42)})
    EXPECT_EQ(parse_decimal(to_decimal(v)), v) << to_decimal(v);
}

TEST(Total, ParseRefusesWhatIsNotAPlainNumberBelow2To128) {
  for (const char* bad : {"", "-1", "+1", "1e9", " 1", "1 ", "0x10", "12a",
                          "340282366920938463463374607431768211456",      // 2^128
                          "1000000000000000000000000000000000000000"})   // 40 digits
    EXPECT_FALSE(parse_decimal(bad).has_value()) << bad;
}

TEST(Total, HalvesSplitAndJoinTheValue) {
  const Total v = from_halves(3, 5);
  EXPECT_EQ(high_half(v), 3u);
  EXPECT_EQ(low_half(v), 5u);
  EXPECT_EQ(to_decimal(v), "55340232221128654853");   // 3 * 2^64 + 5
  EXPECT_TRUE(fits_u64(kMax64));
  EXPECT_FALSE(fits_u64(kTwoTo64));
}

TEST(Total, SumOfUnitCountsPastTwoTo64IsExact) {
  // Eight units of multiplicity 8 with 2^61 + 1 completions each: 2^67 + 64.
  Total sum = 0;
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(add_product(sum, 8, (std::uint64_t{1} << 61) + 1));
  EXPECT_EQ(to_decimal(sum), "147573952589676412992");
  // Just above 2^64: 2^64 - 1 plus 2 x 1.
  Total edge = kMax64;
  ASSERT_TRUE(add_product(edge, 2, 1));
  EXPECT_EQ(to_decimal(edge), "18446744073709551617");
  EXPECT_EQ(high_half(edge), 1u);
  EXPECT_EQ(low_half(edge), 1u);
}

TEST(Total, AddProductRefusesA128BitOverflowAndLeavesTheSum) {
  Total sum = ~Total{0} - 5;
  EXPECT_FALSE(add_product(sum, 2, 3));
  EXPECT_EQ(sum, ~Total{0} - 5);
  EXPECT_TRUE(add_product(sum, 1, 5));
  EXPECT_EQ(sum, ~Total{0});
}
