// How a node's ranks share its CPUs (cluster/layout.h): the bindings Open MPI and Slurm make.
#include <gtest/gtest.h>
#include "cluster/layout.h"

using namespace nq::cluster;

namespace {
CpuSet cpus(std::initializer_list<int> list) {
  CpuSet s;
  for (int c : list) s.set(c);
  return s;
}
CpuSet range(int from, int to) {
  CpuSet s;
  for (int c = from; c < to; ++c) s.set(c);
  return s;
}
}  // namespace

TEST(Layout, MpirunTwoRanksBoundToACoreEachGivesTheWorkerBothCores) {
  // Open MPI's default for 2 ranks: rank 0 on core 0, rank 1 on core 1.
  const auto l = plan_node({{cpus({0}), true}, {cpus({1}), false}}, 2);
  EXPECT_EQ(l.threads[1], 2);
  EXPECT_EQ(l.masks[1], cpus({0, 1}));
  EXPECT_EQ(l.threads[0], 0);   // the master does not compute
  EXPECT_EQ(l.masks[0], cpus({0, 1}));   // but writes the result file on both cores
  EXPECT_FALSE(l.warning);
}

TEST(Layout, UnboundRanksShareTheNodeAndTheMasterLeavesItsShare) {
  const auto l = plan_node({{range(0, 64), true}, {range(0, 64), false}, {range(0, 64), false}}, 64);
  EXPECT_EQ(l.threads[1], 32);
  EXPECT_EQ(l.threads[2], 32);
  EXPECT_FALSE(l.warning);
}

TEST(Layout, RanksBoundToFewCpusOfABigNodeWarnWithTheFix) {
  // mpirun -n 2 on a 64-core node: 2 cores used, 62 idle.
  const auto l = plan_node({{cpus({0}), true}, {cpus({1}), false}}, 64);
  EXPECT_EQ(l.threads[1], 2);
  EXPECT_EQ(l.pool, 2);
  ASSERT_TRUE(l.warning);
  EXPECT_NE(l.warning->find("only 2 of the node's 64 CPUs"), std::string::npos) << *l.warning;
  EXPECT_NE(l.warning->find("--bind-to none"), std::string::npos);
  EXPECT_NE(l.warning->find("PE="), std::string::npos);
  EXPECT_NE(l.warning->find("--cpus-per-task"), std::string::npos);
}

TEST(Layout, OneRankPerCoreKeepsOneThreadEach) {
  std::vector<RankCpus> ranks;
  for (int r = 0; r < 8; ++r) ranks.push_back({cpus({r}), r == 0});
  const auto l = plan_node(ranks, 8);
  for (int r = 1; r < 8; ++r) EXPECT_EQ(l.threads[r], r == 1 ? 2 : 1) << r;   // rank 1 also gets core 0
  EXPECT_FALSE(l.warning);
}

TEST(Layout, SlurmCpusPerTaskGivesEachRankItsOwnCpus) {
  // srun -n 2 --cpus-per-task=4 on a node where the job was allocated 8 CPUs
  const auto l = plan_node({{range(0, 4), true}, {range(4, 8), false}}, 8);
  EXPECT_EQ(l.threads[1], 8);
  EXPECT_FALSE(l.warning);
  // a node without the master: nothing to hand over
  const auto w = plan_node({{range(0, 4), false}, {range(4, 8), false}}, 8);
  EXPECT_EQ(w.threads[0], 4);
  EXPECT_EQ(w.threads[1], 4);
  EXPECT_EQ(w.masks[0], range(0, 4));
}

TEST(Layout, ASingleProcessComputesWithItsMask) {
  const auto l = plan_node({{cpus({2, 3, 5}), true}}, 8);
  EXPECT_EQ(l.threads[0], 3);
  EXPECT_TRUE(l.warning);   // taskset-limited: 5 CPUs of the node stay idle
}

TEST(Layout, MoreThreadsThanTheNodesCpusWarnWithTheFix) {
  EXPECT_FALSE(oversubscription_warning(1, 2, 2));    // one thread a CPU
  EXPECT_FALSE(oversubscription_warning(3, 2, 64));
  EXPECT_FALSE(oversubscription_warning(0, 8, 2));    // no computing rank here
  const auto one = oversubscription_warning(1, 1000, 2);   // `count 17 --threads 1000` on 2 CPUs
  ASSERT_TRUE(one);
  EXPECT_EQ(one->rfind("1000 compute threads (--threads 1000) on the 2 CPU(s)", 0), 0u) << *one;
  EXPECT_NE(one->find("Leave --threads out"), std::string::npos) << *one;
  const auto many = oversubscription_warning(3, 2, 4);   // 3 workers x 2 threads on 4 CPUs
  ASSERT_TRUE(many);
  EXPECT_EQ(many->rfind("6 compute threads (--threads 2 on each of 3 computing ranks) on the 4 CPU(s)", 0), 0u) << *many;
  EXPECT_NE(many->find("Leave --threads out"), std::string::npos) << *many;
  // More ranks than CPUs: the default (one thread a rank at least) cannot help; fewer ranks can.
  const auto ranks = oversubscription_warning(3, 1, 2);
  ASSERT_TRUE(ranks);
  EXPECT_NE(ranks->find("Start at most 2 computing rank(s) here, with --threads 1"), std::string::npos) << *ranks;
  EXPECT_EQ(oversubscription_warning(2, 1 << 30, 1)->rfind("2147483648 compute threads", 0), 0u);   // no int overflow
}
