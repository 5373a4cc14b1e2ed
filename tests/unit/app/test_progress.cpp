// The progress line (app/progress.h): the whole job's share done, this run's pace, and an ETA
// from the solutions still to find where the total is known. Written to stderr, captured here
// (not a terminal: one line a report).
#include <gtest/gtest.h>
#include <string>
#include "app/progress.h"
#include "core/known_counts.h"

using namespace nq;
using app::ProgressState;

namespace {
std::string line_of(const ProgressState& s) {
  testing::internal::CaptureStderr();
  {
    app::ProgressLine line("run");
    line.report(s);
  }
  return testing::internal::GetCapturedStderr();
}
}  // namespace

TEST(ProgressLine, AFreshRunsEtaIsItsTimeOverItsShareOfUnitsDone) {
  const std::string s = line_of({.units_done = 25, .units_total = 100, .solutions = 250, .seconds = 10});
  EXPECT_NE(s.find("[run]  25.0%  units 25/100  solutions 250  25 sol/s  elapsed 10.0 s  ETA 30.0 s\n"), std::string::npos)
      << s;
}

TEST(ProgressLine, AResumedRunsEtaAndRateAreItsOwn) {
  // 50 units done before; this run did 10 more in 10 s, so the 40 left take 40 s. It said 6.7 s
  // (this run's seconds over the whole job's 60 % done), and the rate counted the resumed
  // solutions as this run's.
  const std::string s = line_of({.units_done = 60, .units_total = 100, .solutions = 600, .seconds = 10,
                                 .units_before = 50, .solutions_before = 500});
  EXPECT_NE(s.find("  60.0%  units 60/100  solutions 600  10 sol/s  elapsed 10.0 s  ETA 40.0 s\n"), std::string::npos)
      << s;
  // Nothing done yet by this run: no ETA.
  EXPECT_NE(line_of({.units_done = 50, .units_total = 100, .solutions = 500, .seconds = 3, .units_before = 50,
                     .solutions_before = 500})
                .find("ETA -\n"),
            std::string::npos);
}

TEST(ProgressLine, WhereTheTotalIsKnownTheEtaIsTheSolutionsLeftAtThisRunsPace) {
  // A plan's first units are its heaviest: 10 of 1000 units done in 100 s, but they found 20 %
  // of the solutions, so ~400 s are left, not 9,900.
  ProgressState s{.units_done = 10, .units_total = 1000, .solutions = 2000, .seconds = 100};
  EXPECT_DOUBLE_EQ(*app::seconds_left(s), 9900);
  s.solutions_expected = 10000;
  EXPECT_DOUBLE_EQ(*app::seconds_left(s), 400);
  // Resumed at 5,000 solutions: this run found 1,000 of the 6,000 in 100 s; 4,000 are left.
  s.solutions_before = 5000;
  s.solutions = 6000;
  EXPECT_DOUBLE_EQ(*app::seconds_left(s), 400);
  // A shard's share is an estimate: once passed, the units left say it.
  s.solutions = 10001;
  s.units_before = 0;
  EXPECT_DOUBLE_EQ(*app::seconds_left(s), 9900);
  s.units_done = 1000;   // every unit done: nothing is left
  EXPECT_FALSE(app::seconds_left(s));
}

TEST(ProgressLine, WhereThePlansNodesAreSampledTheEtaIsTheNodesLeftAtThisRunsPace) {
  // The first 10 of 1000 units took 100 s and walked 30 % of the plan's nodes (heavy units
  // first; a unit's time follows its nodes): ~233 s are left, where the solutions say 400.
  ProgressState s{.units_done = 10, .units_total = 1000, .solutions = 2000, .seconds = 100,
                  .solutions_expected = 10000, .nodes = 30000, .nodes_expected = 100000};
  EXPECT_NEAR(*app::seconds_left(s), 233.33, 0.01);
  // Resumed at 20,000 nodes: this run walked 10,000 of them in 100 s; 70,000 are left.
  s.nodes_before = 20000;
  EXPECT_DOUBLE_EQ(*app::seconds_left(s), 700);
  // A sample is an estimate: once the nodes pass it, the solutions left say it.
  s.nodes = 100001;
  s.nodes_before = 0;
  EXPECT_DOUBLE_EQ(*app::seconds_left(s), 400);
}

TEST(ProgressLine, TheNodesEtaTakesTheDoneUnitsOwnTimeOverTheJobsThreadsWhereKnown) {
  // 4 threads for 100 s: the units done took 40 of those 400 thread-seconds for 10,000 of the
  // plan's 1,000,000 nodes; the rest went to units still being searched (N = 27's take minutes
  // to hours). 990,000 nodes are left at 40 / 4 s per 10,000: 990 s, where the elapsed time said
  // 9,900.
  ProgressState s{.units_done = 10, .units_total = 1000, .seconds = 100, .nodes = 10000, .nodes_expected = 1e6,
                  .busy_seconds = 40, .threads = 4};
  EXPECT_DOUBLE_EQ(*app::seconds_left(s), 990);
  // Resumed at 5,000 nodes: this run's 5,000 took its 40 s, of the done units' 100.
  s.nodes_before = 5000;
  EXPECT_DOUBLE_EQ(*app::seconds_left(s), 1980);
  s.busy_seconds = 100;
  s.busy_before = 60;
  EXPECT_DOUBLE_EQ(*app::seconds_left(s), 1980);
  s.busy_seconds = 40;
  s.busy_before = 0;
  s.nodes_before = 0;
  s.threads = 0;   // not known: the elapsed time
  EXPECT_DOUBLE_EQ(*app::seconds_left(s), 9900);
}

TEST(ProgressLine, SolutionsPast64BitsArePrintedWhole) {
  const core::Total past = (core::Total{1} << 64) * 3 + 5;   // N = 29's total is ~1.5 x 2^64
  EXPECT_NE(line_of({.units_done = 1, .units_total = 2, .solutions = past, .seconds = 1})
                .find("solutions 55340232221128654853 "),
            std::string::npos);
}

TEST(ProgressLine, AJobExpectsThePublishedSolutionsAndTheSampledNodesOfItsPlanTimesItsShare) {
  const auto params = [](int depth, core::Mode mode, core::Symmetry symmetry) {
    core::JobParams p;
    p.n = 20;
    p.depth = depth;
    p.mode = mode;
    p.symmetry = symmetry;
    return p;
  };
  // N = 20's default plan (depth 2, 117,330 units) counted: both totals.
  const core::JobParams p = params(2, core::Mode::count, core::Symmetry::full);
  ProgressState s;
  app::expect_totals(s, p, 117330);
  EXPECT_EQ(s.solutions_expected, core::Total{39029188884});
  EXPECT_GT(s.nodes_expected, 5.2e11);
  EXPECT_LT(s.nodes_expected, 5.5e11);
  // A shard of 4 expects a quarter.
  ProgressState shard;
  app::expect_totals(shard, p, 117330, 0.25);
  EXPECT_EQ(shard.solutions_expected, core::Total{39029188884 / 4});
  EXPECT_DOUBLE_EQ(shard.nodes_expected, s.nodes_expected / 4);
  // Another depth: the nodes of its units.
  ProgressState deeper;
  app::expect_totals(deeper, params(3, core::Mode::count, core::Symmetry::full), 1102761);
  EXPECT_DOUBLE_EQ(deeper.nodes_expected, core::sampled_plan_nodes(20, 1102761)->nodes);
  // Another symmetry (the samples are of plans of symmetry full), or boards mode (a unit's time
  // grows with its boards too): no nodes.
  for (const auto& other : {params(2, core::Mode::count, core::Symmetry::mirror),
                            params(2, core::Mode::boards, core::Symmetry::full)}) {
    ProgressState o;
    app::expect_totals(o, other, 117330);
    EXPECT_EQ(o.nodes_expected, 0) << core::to_string(other.symmetry);
    EXPECT_EQ(o.solutions_expected, core::Total{39029188884});
  }
}
