// ComputePool without MPI: whole batches back with every unit's exact count, a throwing unit
// reported with its id (the injected fault `throw`), a hung thread told from a long unit,
// stop() ending the work.
#include <gtest/gtest.h>
#include <cstdlib>
#include <map>
#include <thread>
#include "cluster/compute_pool.h"

using namespace nq;

namespace {
// The fault hooks read NQUEENS_INJECT_FAULT once per process, at their first call: it is set
// before main, for unit 5 on rank 77 (the throwing test's pool) and unit 3 on rank 78 (the hung
// thread's) only; no other pool is affected.
const bool kFaultSet = [] { return ::setenv("NQUEENS_INJECT_FAULT", "throw:5@77,freeze:3@78", 1) == 0; }();
constexpr double kHung = 600;   // the default: no unit here comes near it

proto::JobSpec job(int n, int depth) {
  proto::JobSpec j;
  j.params.n = n;
  j.params.depth = depth;
  return j;
}

// Takes completed batches until `count` are in or the pool failed.
std::vector<proto::ResultBatch> take(cluster::ComputePool& pool, std::size_t count) {
  std::vector<proto::ResultBatch> got;
  while (got.size() < count && !pool.failure()) {
    pool.wait_completed(std::chrono::milliseconds(100));
    for (auto& b : pool.take_completed()) got.push_back(std::move(b));
  }
  return got;
}
}  // namespace

TEST(ComputePool, EveryBatchComesBackWholeWithTheCoreSolversCounts) {
  const core::UnitPlan plan(10, 3);
  cluster::ComputePool pool(plan, job(10, 3), 4, 3, kHung);
  EXPECT_EQ(pool.threads(), 3);
  const auto units = plan.units();
  std::map<std::uint64_t, std::size_t> sizes;   // batch id -> units
  for (std::size_t i = 0, id = 1; i < units.size(); i += 7, ++id) {
    proto::WorkBatch b{id, {units.begin() + static_cast<std::ptrdiff_t>(i),
                            units.begin() + static_cast<std::ptrdiff_t>(std::min(i + 7, units.size()))}};
    sizes[id] = b.units.size();
    pool.submit(b);
  }
  const auto got = take(pool, sizes.size());
  ASSERT_FALSE(pool.failure()) << *pool.failure();
  ASSERT_EQ(got.size(), sizes.size());
  EXPECT_EQ(pool.batches_pending(), 0u);
  std::map<std::uint64_t, int> seen;
  for (const auto& b : got) {
    EXPECT_EQ(b.results.size(), sizes.at(b.batch_id)) << "batch " << b.batch_id;
    for (const auto& r : b.results) {
      ++seen[r.id];
      EXPECT_EQ(r.solutions, plan.count(units[r.id]).solutions) << "unit " << r.id;
      EXPECT_EQ(r.rank, 4);
      EXPECT_TRUE(r.thread >= 0 && r.thread < 3) << r.thread;
      EXPECT_EQ(r.check, proto::result_check(r));
    }
  }
  EXPECT_EQ(seen.size(), units.size());
  for (const auto& [id, n] : seen) EXPECT_EQ(n, 1) << "unit " << id;
}

TEST(ComputePool, AThrowingUnitIsReportedWithItsIdAndStopsThePool) {
  const core::UnitPlan plan(9, 2);
  const auto units = plan.units();
  ASSERT_GT(units.size(), 10u);
  ASSERT_TRUE(kFaultSet);
  cluster::ComputePool pool(plan, job(9, 2), 77, 2, kHung);
  pool.submit(proto::WorkBatch{1, units});
  take(pool, 1);
  ASSERT_TRUE(pool.failure());
  EXPECT_EQ(*pool.failure(), "unit 5: injected fault: NQUEENS_INJECT_FAULT=throw:5");
  EXPECT_TRUE(pool.take_completed().empty());   // the batch of the failed unit never completes
  pool.submit(proto::WorkBatch{2, units});      // a stopped pool takes no more work
  pool.wait_completed(std::chrono::milliseconds(50));
  EXPECT_TRUE(pool.take_completed().empty());
}

TEST(ComputePool, StopDropsQueuedUnitsAndWakesTheWaiter) {
  const core::UnitPlan plan(14, 2);   // a few units of tens of milliseconds each
  cluster::ComputePool pool(plan, job(14, 2), 1, 1, kHung);
  pool.submit(proto::WorkBatch{1, plan.units()});
  pool.stop();
  const auto t0 = std::chrono::steady_clock::now();
  pool.wait_completed(std::chrono::seconds(60));   // returns at once: the pool is stopped
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  EXPECT_TRUE(pool.take_completed().empty());
  EXPECT_FALSE(pool.failure());
}

TEST(ComputePool, AThreadStuckInAUnitIsReportedAsHungWithItsUnit) {
  // Unit 3 on rank 78 sleeps for ever (`freeze`): past the 0.5 s limit the pool says so.
  static const core::UnitPlan plan(9, 2);
  const auto units = plan.units();
  ASSERT_TRUE(kFaultSet);
  // Never destroyed: its stuck thread cannot be joined (as in release_unless_idle, runtime.cpp;
  // reachable from a static, so not a leak to LeakSanitizer).
  static auto* const stuck = new cluster::ComputePool(plan, job(9, 2), 78, 2, 0.5);
  auto& pool = *stuck;
  pool.submit(proto::WorkBatch{1, units});
  const auto t0 = std::chrono::steady_clock::now();
  while (!pool.hung() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(pool.hung());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(500));
  // Reported as the pool's failure too. (Each call says how long the thread has been quiet by
  // then, so two calls may differ in that figure: compared without it, not with each other.)
  for (const auto& said : {pool.hung(), pool.failure()}) {
    ASSERT_TRUE(said);
    EXPECT_EQ(said->rfind("unit 3: compute thread ", 0), 0u) << *said;
    EXPECT_NE(said->find("has made no progress for"), std::string::npos) << *said;
    EXPECT_NE(said->find(" s (limit 0.5 s): it hangs"), std::string::npos) << *said;
  }
  pool.stop();
}

TEST(ComputePool, AUnitLongerThanTheHungLimitIsNotHungWhileItsSearchChecksIn) {
  // N = 27 with 2 pre-placed rows: a unit takes hours, in searches of kCancelSplitLevels levels
  // of milliseconds each, and each checks in. With a limit of 0.5 s, 3 s of it are not hung.
  const core::UnitPlan plan(27, 2);
  cluster::ComputePool pool(plan, job(27, 2), 1, 1, 0.5);
  pool.submit(proto::WorkBatch{1, {plan.units().front()}});
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3)) {
    EXPECT_FALSE(pool.hung()) << *pool.hung();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(pool.batches_pending(), 1u);   // still computing: the unit is long
  pool.stop();                             // cancels it
}
