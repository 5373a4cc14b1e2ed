#include <gtest/gtest.h>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include "core/known_counts.h"
#include "core/parallel.h"

using namespace nq::core;

TEST(ThreadPool, RunsEveryTaskOnceOnThreadsNumberedFromZero) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.size(), 3);
  std::mutex m;
  std::multiset<int> ran;
  std::set<int> thread_ids;
  for (int i = 0; i < 1000; ++i)
    pool.submit([&, i](int thread) {
      const std::lock_guard lock(m);
      ran.insert(i);
      thread_ids.insert(thread);
    });
  pool.wait_idle();
  ASSERT_EQ(ran.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(ran.count(i), 1u) << i;
  for (const int t : thread_ids) EXPECT_TRUE(t >= 0 && t < 3) << t;
  EXPECT_FALSE(pool.failure());
  EXPECT_FALSE(pool.stopped());
}

TEST(ThreadPool, ZeroThreadsMeansEveryUsableCpu) {
  EXPECT_EQ(ThreadPool(0).size(), usable_cpus());
}

TEST(ThreadPool, AThrowingTaskStopsThePoolDropsTheQueueAndIsKept) {
  ThreadPool pool(1);   // one thread: the order of the tasks is the order of submission
  std::atomic<int> after{0};
  std::atomic<bool> release{false};
  pool.submit([&](int) {
    while (!release) std::this_thread::yield();   // holds the thread until the queue is full
    throw std::runtime_error("unit 7 failed");
  });
  for (int i = 0; i < 100; ++i) pool.submit([&](int) { ++after; });
  release = true;
  pool.wait_idle();
  EXPECT_TRUE(pool.stopped());
  EXPECT_EQ(after.load(), 0);   // the queued tasks were dropped, none ran after the failure
  ASSERT_TRUE(pool.failure());
  try {
    std::rethrow_exception(pool.failure());
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "unit 7 failed");
  }
  pool.submit([&](int) { ++after; });   // dropped after stop
  pool.wait_idle();
  EXPECT_EQ(after.load(), 0);
}

TEST(ThreadPool, StopLetsTheRunningTaskFinishAndDropsTheRest) {
  ThreadPool pool(1);
  std::atomic<bool> started{false}, release{false}, finished{false};
  std::atomic<int> later{0};
  pool.submit([&](int) {
    started = true;
    while (!release) std::this_thread::yield();
    finished = true;
  });
  for (int i = 0; i < 10; ++i) pool.submit([&](int) { ++later; });
  while (!started) std::this_thread::yield();
  pool.stop();
  release = true;
  pool.wait_idle();
  EXPECT_TRUE(finished.load());
  EXPECT_EQ(later.load(), 0);
  EXPECT_FALSE(pool.failure());
}

TEST(ParallelFor, CallsEveryIndexOnceAndRethrowsTheFirstFailure) {
  std::vector<std::atomic<int>> hits(5000);
  parallel_for(hits.size(), 4, [&](std::size_t i) { ++hits[i]; });
  for (std::size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].load(), 1) << i;
  parallel_for(0, 4, [](std::size_t) { FAIL() << "no index to call"; });
  EXPECT_THROW(parallel_for(100, 3, [](std::size_t i) {
                 if (i == 42) throw std::invalid_argument("index 42");
               }),
               std::invalid_argument);
}

TEST(CountPlan, TotalsEqualThePublishedCountsOnOneAndSeveralThreadsWithProgress) {
  for (const int threads : {1, 3}) {
    const UnitPlan plan(12, 3);
    int reports = 0;
    Progress last;
    const auto t = count_plan(plan, threads, [&](const Progress& p) {
      ++reports;
      last = p;
    }, std::chrono::milliseconds(1));
    EXPECT_TRUE(t.total == Total{known_counts(12)->total}) << threads;
    EXPECT_GT(t.nodes, 0u);
    if (reports) {   // a report is made only while units are left: never past the end
      EXPECT_LE(last.units_done, plan.size());
      EXPECT_EQ(last.units_total, plan.size());
      // The done units' searches, summed: no more than the threads' time so far.
      EXPECT_EQ(last.threads, threads);
      EXPECT_GE(last.busy_seconds, 0);
      EXPECT_LE(last.busy_seconds, threads * last.seconds);
    }
  }
}

TEST(CountPlan, APlansNodesFollowFromAnotherDepthsNodesAndTheUnitsOfBoth) {
  // What a progress line's ETA relies on at any depth (core::sampled_plan_nodes): whole counts of
  // N = 16 at depths 2-5 (up to 2.16 M units, 1.3 % of the nodes) against nodes_for_units from
  // depth 1's count. Without the units' term depth 5 is 1.7 % off.
  const UnitPlan base(16, 1, Symmetry::full);
  const double base_nodes = static_cast<double>(count_plan(base, 2).nodes);
  for (int depth = 2; depth <= 5; ++depth) {
    const UnitPlan plan(16, depth, Symmetry::full);
    const double walked = static_cast<double>(count_plan(plan, 2).nodes);
    EXPECT_NEAR(nodes_for_units(base_nodes, base.size(), plan.size()) / walked, 1.0, 0.005) << depth;
  }
}
