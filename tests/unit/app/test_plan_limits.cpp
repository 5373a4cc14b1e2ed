// The boards plan rule (app/plan_limits.h): a boards run's unit results hold at most
// kMaxMeanUnitBoardBytes on average, by the default depth or by a refusal that names a depth
// that passes; and the largest unit stays within the factor the rule assumes.
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include "app/exit_codes.h"
#include "app/plan_limits.h"
#include "core/known_counts.h"

using namespace nq;
using core::BoardSet;
using core::Symmetry;

namespace {

std::uint64_t units_of(int n, int depth, Symmetry s) { return core::UnitPlan(n, depth, s).size(); }

// Bytes of the largest unit's result storing every board (its completions x n; one per class
// is at most the completions), and the plan's mean, both counted unit by unit.
struct Sizes {
  double largest = 0, mean = 0;
};
Sizes unit_board_bytes(int n, int depth, Symmetry s) {
  const core::UnitPlan plan(n, depth, s);
  const auto units = plan.units();
  Sizes z;
  for (const auto& u : units) {
    const double bytes = static_cast<double>(plan.count(u).solutions) * n;
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

TEST(BoardsPlan, TheMeanIsThePublishedCountOfWhatTheResultsHoldTimesNBytesOverTheUnits) {
  const auto k20 = core::known_counts(20);
  // Every board: the completions, about the total over the usual multiplicity (8 in full plans).
  EXPECT_DOUBLE_EQ(app::mean_unit_board_bytes(20, BoardSet::all, Symmetry::full, 117330),
                   static_cast<double>(k20->total) / 8 * 20 / 117330);
  EXPECT_DOUBLE_EQ(app::mean_unit_board_bytes(20, BoardSet::all, Symmetry::none, 117330),
                   static_cast<double>(k20->total) * 20 / 117330);
  EXPECT_DOUBLE_EQ(app::mean_unit_board_bytes(20, BoardSet::classes, Symmetry::full, 117330),
                   static_cast<double>(k20->unique) * 20 / 117330);
  // The counted mean of a plan's completions is the estimate, exactly where every unit has the
  // usual multiplicity (none), within 3 % in full plans (the units on symmetric borders).
  EXPECT_DOUBLE_EQ(unit_board_bytes(11, 2, Symmetry::none).mean,
                   app::mean_unit_board_bytes(11, BoardSet::all, Symmetry::none, units_of(11, 2, Symmetry::none)));
  for (int n : {12, 14}) {
    const double counted = unit_board_bytes(n, 2, Symmetry::full).mean;
    const double estimate = app::mean_unit_board_bytes(n, BoardSet::all, Symmetry::full, units_of(n, 2, Symmetry::full));
    EXPECT_GE(counted, estimate) << n;
    EXPECT_LE(counted, 1.03 * estimate) << n;
  }
}

TEST(BoardsPlan, TheDefaultDepthIsTheRunDefaultWhereItsUnitsAreSmallAndDeeperWhereNot) {
  // Full plans: a unit's result holds ~1/8 of its boards, and the run default passes for every
  // N and both sets (N = 20 all at depth 2: 0.79 MiB a unit on average).
  for (int n = 4; n <= 20; ++n)
    for (const auto set : {BoardSet::all, BoardSet::classes})
      EXPECT_EQ(app::default_boards_depth(n, set, Symmetry::full, {}), core::default_run_depth(n, Symmetry::full)) << n;
  // Whatever the N, symmetry and set, the default's mean is within the limit and the depth
  // before it (if deeper than the run default) is not.
  for (int n = 4; n <= 20; ++n)
    for (const auto s : {Symmetry::none, Symmetry::mirror, Symmetry::full})
      for (const auto set : {BoardSet::all, BoardSet::classes}) {
        const int d = app::default_boards_depth(n, set, s, {});
        EXPECT_LE(app::mean_unit_board_bytes(n, set, s, units_of(n, d, s)), app::kMaxMeanUnitBoardBytes) << n;
        if (d > core::default_run_depth(n, s)) {
          EXPECT_GT(app::mean_unit_board_bytes(n, set, s, units_of(n, d - 1, s)), app::kMaxMeanUnitBoardBytes) << n;
        }
      }
}

TEST(BoardsPlan, AGivenDepthWhoseUnitsHoldMoreIsRefusedNamingTheDepthThatPasses) {
  const std::string m = refusal(20, 1, Symmetry::full, BoardSet::all);
  EXPECT_NE(m.find("(N = 20, depth 1, symmetry full) has 9,522 units"), std::string::npos) << m;
  EXPECT_NE(m.find("storing every board, a unit's result (its completions) holds 9.77 MiB on average, over the limit of 0.80 MiB"),
            std::string::npos) << m;
  EXPECT_NE(m.find("use --depth 2 (117,330 units)"), std::string::npos) << m;
  EXPECT_NE(refusal(15, 1, Symmetry::none, BoardSet::all).find("use --depth 2"), std::string::npos);
  EXPECT_NE(refusal(20, 1, Symmetry::full, BoardSet::classes).find("storing one board per class, a unit's result holds"),
            std::string::npos);
  // The depths that pass.
  EXPECT_EQ(refusal(20, 2, Symmetry::full, BoardSet::all), "");
  EXPECT_EQ(refusal(20, 2, Symmetry::full, BoardSet::classes), "");
  EXPECT_EQ(refusal(15, 2, Symmetry::none, BoardSet::all), "");
}

TEST(BoardsPlan, TheLargestUnitOfADefaultPlanIsWithinTheFactorTheLimitAssumes) {
  // The limit on the mean stands for ~80x it on the largest unit (full plans measured at
  // N = 18-20: 11-76x). Counted exactly here on every default boards plan of N = 10-16: the
  // largest unit's completions against the plan's counted mean and against the limit.
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

TEST(DiskNeed, TheJournalIsARecordAUnitPlusItsResultsAndTheFileTheBoardsAtTheMeasuredBytes) {
  core::JobParams p;
  p.n = 12;
  p.depth = 2;
  p.symmetry = Symmetry::full;
  const std::uint64_t units = units_of(12, 2, Symmetry::full);
  const app::DiskNeed count = app::disk_need(p, units, units);   // count mode: records only
  EXPECT_DOUBLE_EQ(count.journal, 104.0 * static_cast<double>(units));
  EXPECT_DOUBLE_EQ(count.file, 17.0 * static_cast<double>(units));
  p.mode = core::Mode::boards;
  p.boards = BoardSet::all;
  // Every board: the journal holds each unit's completions, counted here unit by unit.
  double journal = 104.0 * static_cast<double>(units);
  const core::UnitPlan plan(12, 2, Symmetry::full);
  for (const auto& u : plan.units()) journal += static_cast<double>(plan.count(u).solutions) * 12;
  const app::DiskNeed all = app::disk_need(p, units, units);
  EXPECT_GE(journal, all.journal);
  EXPECT_LE(journal, 1.03 * all.journal);
  EXPECT_DOUBLE_EQ(all.file, 17.0 * static_cast<double>(units) + 14200 * app::kFileBytesPerBoard[0]);
  p.boards = BoardSet::classes;   // one per class: its board and its class size
  const app::DiskNeed classes = app::disk_need(p, units, units);
  EXPECT_DOUBLE_EQ(classes.journal, 104.0 * static_cast<double>(units) + 1787.0 * 13);
  // A shard: its share of the units and of the boards.
  const app::DiskNeed shard = app::disk_need(p, units, units / 4);
  EXPECT_NEAR(shard.file, classes.file / 4, classes.file * 0.01);
}

TEST(DiskNeed, ARunThatWillNotFitIsWarnedOfWithWhatItNeedsAndWhatIsFree) {
  const app::DiskNeed need{50e9, 30e9};
  EXPECT_EQ(app::disk_shortfall(need, 0, 80e9, "/scratch"), std::nullopt);
  EXPECT_EQ(app::disk_shortfall(need, 20e9, 60e9, "/scratch"), std::nullopt);   // resuming: 20 GB journaled
  const auto w = app::disk_shortfall(need, 20e9, 59e9, "/scratch");
  ASSERT_TRUE(w);
  EXPECT_NE(w->find("this run needs about 60.0 GB more in /scratch (its journal, 50.0 GB when complete, stays until "
                    "the result file, 30.0 GB, is written), and it has 59.0 GB free"),
            std::string::npos) << *w;
  EXPECT_NE(w->find("the run stops (exit 4) with its finished units kept"), std::string::npos) << *w;
  const auto small = app::disk_shortfall({2e6, 1.5e6}, 0, 1e6, "/tmp");   // under a gigabyte: megabytes
  ASSERT_TRUE(small);
  EXPECT_NE(small->find("needs about 4 MB more in /tmp (its journal, 2 MB when complete"), std::string::npos) << *small;
}

namespace {
// memory_limit's sources as maps: environment variables, and files by path.
app::MemorySources sources(std::map<std::string, std::string> env, std::map<std::string, std::string> files) {
  const auto in = [](const std::map<std::string, std::string>& m) {
    return [m](const std::string& key) -> std::optional<std::string> {
      const auto it = m.find(key);
      return it == m.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  };
  return {in(std::move(env)), in(std::move(files))};
}
constexpr double kMiB = 1 << 20;
}  // namespace

TEST(MemoryLimit, SlurmsMemoryAndTheCgroupsLimitsTheSmallestWins) {
  // Nothing limits a process outside a job and a limited cgroup.
  EXPECT_FALSE(app::memory_limit(sources({}, {})));
  // sbatch --mem=4000: megabytes per node.
  auto m = app::memory_limit(sources({{"SLURM_MEM_PER_NODE", "4000"}}, {}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->bytes, 4000 * kMiB);
  EXPECT_EQ(m->source, "SLURM_MEM_PER_NODE");
  // --mem-per-cpu=300 -c 2; --mem=0 (the whole node) limits nothing.
  m = app::memory_limit(sources({{"SLURM_MEM_PER_CPU", "300"}, {"SLURM_CPUS_ON_NODE", "2"}}, {}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->bytes, 600 * kMiB);
  EXPECT_FALSE(app::memory_limit(sources({{"SLURM_MEM_PER_NODE", "0"}}, {})));
  EXPECT_FALSE(app::memory_limit(sources({{"SLURM_MEM_PER_NODE", "4G"}}, {})));   // not Slurm's form
  // cgroup v2: this process's group and its parents; "max" is none.
  const std::string v2 = "0::/slurm/job_7/step_0\n";
  m = app::memory_limit(sources({{"SLURM_MEM_PER_NODE", "4000"}},
                                {{"/proc/self/cgroup", v2},
                                 {"/sys/fs/cgroup/slurm/job_7/step_0/memory.max", "max\n"},
                                 {"/sys/fs/cgroup/slurm/job_7/memory.max", "2147483648\n"},
                                 {"/sys/fs/cgroup/slurm/memory.max", "max\n"}}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->bytes, 2147483648.0);
  EXPECT_EQ(m->source, "cgroup memory.max");
  // cgroup v1: the memory hierarchy's line; v1's "unlimited" is a number near 2^63.
  const std::string v1 = "5:cpuset:/x\n4:memory,foo:/docker/abc\n0::/\n";
  m = app::memory_limit(sources({}, {{"/proc/self/cgroup", v1},
                                     {"/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n"},
                                     {"/sys/fs/cgroup/memory/docker/memory.limit_in_bytes", "1073741824\n"},
                                     {"/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n"},
                                     {"/sys/fs/cgroup/memory.max", "1000\n"}}));   // not this v1 process's
  ASSERT_TRUE(m);
  EXPECT_EQ(m->bytes, 1073741824.0);
  EXPECT_EQ(m->source, "cgroup memory.limit_in_bytes");
}
