// The dry run's compute line (app/compute_need.h): the plan's sampled nodes at the time a node
// takes, in core time; the reason where there is no estimate; and the timer, which times real
// units of N = 18.
#include <gtest/gtest.h>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include "app/compute_need.h"
#include "app/plan_limits.h"
#include "core/known_counts.h"
#include "core/units.h"

using namespace nq;

namespace {
core::JobParams params(int n, core::Symmetry symmetry = core::Symmetry::full, core::Mode mode = core::Mode::count) {
  core::JobParams p;
  p.n = n;
  p.depth = 4;
  p.symmetry = symmetry;
  p.mode = mode;
  return p;
}

// The line for `p`, its timer counting its calls and taking 1 ns a node.
std::string line_of(const core::JobParams& p, std::uint64_t units, int* calls = nullptr,
                    const std::optional<app::DoneWork>& done = {}) {
  std::ostringstream os;
  app::print_compute_need(
      os, p, units,
      [calls] {
        if (calls) ++*calls;
        return app::NodeTime{.units = 10, .nodes = 2e9, .seconds = 2};
      },
      done);
  return os.str();
}

store::UnitRecord record(std::uint64_t id, std::uint64_t nodes) {
  store::UnitRecord r;
  r.id = id;
  r.nodes = nodes;
  return r;
}
}  // namespace

TEST(ComputeNeed, TheSampledNodesAtTheTimedPaceInCoreHoursAndAShardsShare) {
  const std::uint64_t units = 164432215;   // N = 27, depth 4
  const auto sampled = core::sampled_plan_nodes(27, units);
  ASSERT_TRUE(sampled);
  char nodes[64], hours[32];
  std::snprintf(nodes, sizeof nodes, "about %.3g search nodes (sampled, +-%.0f %%)", sampled->nodes, 100 * sampled->rel_se);
  // ~3.8e18 nodes at 1 ns a node, in core-hours with two significant digits (1,100,000 now).
  std::snprintf(hours, sizeof hours, "%.2g", sampled->nodes * 1e-9 / 3600);
  EXPECT_EQ(line_of(params(27), units),
            std::string("compute  ") + nodes + ": about " +
                app::with_commas(static_cast<std::uint64_t>(std::stod(hours))) + " core-hours at 1.00 ns a node, as timed here (" +
                core::kernel_name() + " kernel, one thread: 10 units of N = 18, 2e+09 nodes in 2.00 s, one pass)\n");
  core::JobParams shard = params(27);
  shard.shard = core::parse_shard("1/4");
  const std::string line = line_of(shard, units);
  EXPECT_NE(line.find("; shard 1/4: about 260,000 core-hours\n"), std::string::npos) << line;
  // Smaller jobs in core-minutes and core-seconds (N = 20: 5.3e11 nodes, N = 19: 6.4e10).
  EXPECT_NE(line_of(params(20), 117330).find(": about 9 core-minutes at"), std::string::npos) << line_of(params(20), 117330);
  EXPECT_NE(line_of(params(19), 84270).find(": about 1 core-minute at"), std::string::npos) << line_of(params(19), 84270);
  shard = params(19);
  shard.shard = core::parse_shard("0/4");
  EXPECT_NE(line_of(shard, 84270).find("; shard 0/4: about 16 core-seconds\n"), std::string::npos) << line_of(shard, 84270);
}

TEST(ComputeNeed, AResumeHasLeftTheEstimateLessTheDoneUnitsNodesEachUnitOnce) {
  // N = 19's 84,270 units, a shard of half: its share of ~6.4e10 nodes, less 2e10 done.
  core::JobParams p = params(19);
  p.shard = core::parse_shard("1/2");
  const auto share = core::sampled_plan_nodes(19, 84270)->nodes / 2;
  app::DoneWork done(84270, "the journal");
  done.add(record(1, 12'000'000'000));
  done.add(record(3, 8'000'000'000));
  done.add(record(3, 8'000'000'000));    // journaled twice (recomputed after a crash): once
  done.add(record(84270, 5'000'000'000));   // not a unit of the plan: not counted
  EXPECT_EQ(done.units(), 2u);
  EXPECT_EQ(done.nodes(), 2e10);
  const std::string line = line_of(p, 84270, nullptr, done);
  const auto left = static_cast<long long>(std::llround((share - 2e10) * 1e-9));   // at 1 ns a node, < 100 s
  EXPECT_NE(line.find("; shard 1/2: about " + std::to_string(static_cast<long long>(std::llround(share * 1e-9))) +
                      " core-seconds; left after the 2 units done (2e+10 nodes, in the journal): about " +
                      std::to_string(left) + " core-seconds\n"),
            std::string::npos)
      << line;
  // Done units whose nodes reach the estimate (its sampling error): no negative time.
  app::DoneWork all(84270, "the journal");
  all.add(record(0, 70'000'000'000));
  EXPECT_NE(line_of(p, 84270, nullptr, all)
                .find("; left after the 1 unit done (7e+10 nodes, in the journal): less than the sample's error"),
            std::string::npos);
  // Nothing done (an empty journal): the line as without one.
  EXPECT_EQ(line_of(p, 84270, nullptr, app::DoneWork(84270, "the journal")), line_of(p, 84270));
}

TEST(ComputeNeed, WithoutSampledNodesItSaysWhyAndTimesNothing) {
  int calls = 0;
  EXPECT_EQ(line_of(params(18), 448259, &calls),
            "compute  not estimated: the search nodes are sampled from N = 19 on; N = 18 takes core-minutes at most\n");
  EXPECT_EQ(line_of(params(20, core::Symmetry::mirror), 1000, &calls),
            "compute  not estimated: the search nodes are sampled for plans of symmetry full only (the default, and the "
            "fastest)\n");
  EXPECT_EQ(line_of(params(19, core::Symmetry::full, core::Mode::boards), 1000, &calls),
            "compute  not estimated: in boards mode, storing the boards takes most of the time, not the search\n");
  EXPECT_EQ(line_of(params(30), 1000, &calls),
            "compute  not estimated: the search nodes of N = 30 were not sampled (bench/engines.sh, "
            "bench/sampled-nodes.txt)\n");
  EXPECT_EQ(calls, 0);
}

TEST(ComputeNeed, TheTimerTimesEveryStridethUnitOfN18AndTheirNodesAreTheirSearches) {
  const app::NodeTime t = app::time_nodes_here();
  // Every kTimedStride-th unit of the plan, until a second has passed: the nodes of those units.
  const core::UnitPlan plan(app::kTimedN, 1, core::Symmetry::full);
  const auto all = plan.units();
  ASSERT_GE(t.units, 1u);
  ASSERT_LE(t.units, (all.size() + app::kTimedStride - 1) / app::kTimedStride);
  double nodes = 0;
  for (std::uint64_t i = 0; i < t.units; ++i) nodes += static_cast<double>(plan.count(all[i * app::kTimedStride]).nodes);
  EXPECT_EQ(t.nodes, nodes);
  EXPECT_GT(t.seconds, 0);
  EXPECT_DOUBLE_EQ(t.seconds_per_node(), t.seconds / t.nodes);
  EXPECT_GE(t.passes, 1);
  EXPECT_LE(t.passes, app::kTimedPasses);
}

TEST(ComputeNeed, TheTimerKeepsTheFastestOfItsPassesWithinItsBudget) {
  // The passes' seconds, as a fake pass returns them one after the other.
  const auto timed = [](double first, std::vector<double> next) {
    std::size_t calls = 0;
    const app::NodeTime t = app::keep_fastest_pass(app::NodeTime{.units = 239, .nodes = 3.6e8, .seconds = first},
                                                   [&] { return next.at(calls++); });
    EXPECT_EQ(calls, static_cast<std::size_t>(t.passes - 1));
    EXPECT_EQ(t.units, 239u);
    EXPECT_EQ(t.nodes, 3.6e8);
    return std::pair{t.seconds, t.passes};
  };
  // A slow first pass (a cold CPU) and two faster ones: the fastest is kept, whichever it is.
  EXPECT_EQ(timed(0.5, {0.2, 0.25}), std::pair(0.2, 3));
  EXPECT_EQ(timed(0.5, {0.3, 0.21}), std::pair(0.21, 3));
  EXPECT_EQ(timed(0.2, {0.3, 0.4}), std::pair(0.2, 3));
  // No more than kTimedPasses, and a pass more only where the time spent and the fastest pass
  // so far stay within kTimedBudget (1.5 s): 0.9 s leaves no room for another of 0.9 s, 0.7 s does
  // for one, after which 0.7 + 0.4 + 0.4 fits and a third is run.
  static_assert(app::kTimedPasses == 3 && app::kTimedBudget == 1.5);
  EXPECT_EQ(timed(0.9, {}), std::pair(0.9, 1));
  EXPECT_EQ(timed(0.7, {0.4, 0.35}), std::pair(0.35, 3));
  EXPECT_EQ(timed(0.7, {0.75}), std::pair(0.7, 2));
  EXPECT_EQ(timed(1.0, {}), std::pair(1.0, 1));   // a slow kernel's first pass, cut at kTimedSeconds
}
