// The boards plan rule (app/plan_limits.h): a boards run's units hold at most
// kMaxMeanUnitBoardBytes of boards on average, by the default depth or by a refusal that names
// a depth that passes; and the largest unit stays within the factor the rule assumes.
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdio>
#include <string>
#include "app/exit_codes.h"
#include "app/plan_limits.h"
#include "core/known_counts.h"

using namespace nq;
using core::BoardSet;
using core::Symmetry;

namespace {

std::uint64_t units_of(int n, int depth, Symmetry s) { return core::UnitPlan(n, depth, s).size(); }

// Bytes of the largest unit's boards (multiplicity x completions x n; one per class is at most
// the completions), and the plan's mean, both counted unit by unit.
struct Sizes {
  double largest = 0, mean = 0;
};
Sizes unit_board_bytes(int n, int depth, Symmetry s) {
  const core::UnitPlan plan(n, depth, s);
  const auto units = plan.units();
  Sizes z;
  for (const auto& u : units) {
    const double bytes = static_cast<double>(u.multiplicity) * static_cast<double>(plan.count(u).solutions) * n;
    z.largest = std::max(z.largest, bytes);
    z.mean += bytes;
  }
  z.mean /= static_cast<double>(units.size());
  return z;
}

std::string refusal(int n, int depth, Symmetry s, BoardSet set) {
  const core::UnitPlan plan(n, depth, s);
  try {
    app::check_boards_plan(plan, set, plan.size(), {});
  } catch (const app::ExitError& e) {
    EXPECT_EQ(e.code(), app::kUsage);
    return e.what();
  }
  return "";
}

}  // namespace

TEST(BoardsPlan, TheMeanIsThePublishedCountTimesNBytesOverTheUnits) {
  const auto k20 = core::known_counts(20);
  EXPECT_DOUBLE_EQ(app::mean_unit_board_bytes(20, BoardSet::all, 117330), static_cast<double>(k20->total) * 20 / 117330);
  EXPECT_DOUBLE_EQ(app::mean_unit_board_bytes(20, BoardSet::classes, 117330),
                   static_cast<double>(k20->unique) * 20 / 117330);
  // The counted mean of a plan is the published one (every board of the plan, N bytes each).
  EXPECT_DOUBLE_EQ(unit_board_bytes(11, 2, Symmetry::full).mean,
                   app::mean_unit_board_bytes(11, BoardSet::all, units_of(11, 2, Symmetry::full)));
}

TEST(BoardsPlan, TheDefaultDepthIsTheRunDefaultWhereItsUnitsAreSmallAndDeeperWhereNot) {
  // N = 16-17: the run default (depth 1) holds well under the limit.
  for (int n : {16, 17})
    for (const auto set : {BoardSet::all, BoardSet::classes})
      EXPECT_EQ(app::default_boards_depth(n, set, Symmetry::full, {}), core::default_run_depth(n, Symmetry::full));
  // N = 18 all: depth 1 holds 2.0 MiB a unit on average, depth 2 0.19; one per class: depth 1, 0.25.
  EXPECT_EQ(core::default_run_depth(18, Symmetry::full), 1);
  EXPECT_EQ(app::default_boards_depth(18, BoardSet::all, Symmetry::full, {}), 2);
  EXPECT_EQ(app::default_boards_depth(18, BoardSet::classes, Symmetry::full, {}), 1);
  // N = 20 all: depth 2 (the run default) holds 6.3 MiB a unit on average and its largest unit
  // 385 MB; depth 3 0.68 MiB.
  EXPECT_EQ(core::default_run_depth(20, Symmetry::full), 2);
  EXPECT_EQ(app::default_boards_depth(20, BoardSet::all, Symmetry::full, {}), 3);
  EXPECT_EQ(app::default_boards_depth(20, BoardSet::classes, Symmetry::full, {}), 2);
  // Whatever the N, symmetry and set, the default's mean is within the limit and the depth
  // before it (if deeper than the run default) is not.
  for (int n = 4; n <= 20; ++n)
    for (const auto s : {Symmetry::none, Symmetry::mirror, Symmetry::full})
      for (const auto set : {BoardSet::all, BoardSet::classes}) {
        const int d = app::default_boards_depth(n, set, s, {});
        EXPECT_LE(app::mean_unit_board_bytes(n, set, units_of(n, d, s)), app::kMaxMeanUnitBoardBytes) << n;
        if (d > core::default_run_depth(n, s)) {
          EXPECT_GT(app::mean_unit_board_bytes(n, set, units_of(n, d - 1, s)), app::kMaxMeanUnitBoardBytes) << n;
        }
      }
}

TEST(BoardsPlan, AGivenDepthWhoseUnitsHoldMoreIsRefusedNamingTheDepthThatPasses) {
  const std::string m = refusal(20, 2, Symmetry::full, BoardSet::all);
  EXPECT_NE(m.find("(N = 20, depth 2, symmetry full) has 117,330 units"), std::string::npos) << m;
  EXPECT_NE(m.find("6.34 MiB of boards on average, over the limit of 0.80 MiB"), std::string::npos) << m;
  EXPECT_NE(m.find("use --depth 3 (1,102,761 units)"), std::string::npos) << m;
  EXPECT_NE(refusal(15, 1, Symmetry::none, BoardSet::all).find("use --depth 2"), std::string::npos);
  // The depths that pass, and one per class where every board would not.
  EXPECT_EQ(refusal(20, 3, Symmetry::full, BoardSet::all), "");
  EXPECT_EQ(refusal(20, 2, Symmetry::full, BoardSet::classes), "");
  EXPECT_EQ(refusal(15, 2, Symmetry::none, BoardSet::all), "");
}

TEST(BoardsPlan, TheLargestUnitOfADefaultPlanIsWithinTheFactorTheLimitAssumes) {
  // The limit on the mean stands for ~80x it on the largest unit (full plans measured at
  // N = 18-20: 11-76x). Counted exactly here on every default boards plan of N = 10-16.
  for (int n = 10; n <= 16; ++n)
    for (const auto s : {Symmetry::none, Symmetry::mirror, Symmetry::full}) {
      const int d = app::default_boards_depth(n, BoardSet::all, s, {});
      const Sizes z = unit_board_bytes(n, d, s);
      std::printf("N = %d, %s, depth %d: largest unit %.0fx the mean\n", n, core::to_string(s).c_str(), d,
                  z.largest / z.mean);
      EXPECT_LE(z.largest, 80 * z.mean) << "N = " << n << ", depth " << d;
      EXPECT_LE(z.largest, 80 * app::kMaxMeanUnitBoardBytes) << "N = " << n;
    }
}
