// The dry run's compute line (app/compute_need.h): the plan's sampled nodes at the time a node
// takes, in core time; the reason where there is no estimate; and the timer, which times real
// units of N = 18.
#include <gtest/gtest.h>
#include <cstdio>
#include <sstream>
#include <string>
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
std::string line_of(const core::JobParams& p, std::uint64_t units, int* calls = nullptr) {
  std::ostringstream os;
  app::print_compute_need(os, p, units, [calls] {
    if (calls) ++*calls;
    return app::NodeTime{.units = 10, .nodes = 2e9, .seconds = 2};
  });
  return os.str();
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
                core::kernel_name() + " kernel, one thread: 10 units of N = 18, 2e+09 nodes in 2.00 s)\n");
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
}
