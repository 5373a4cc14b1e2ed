// The master's bookkeeping without MPI: batches, in-flight tracking and the checks on results.
#include <gtest/gtest.h>
#include <set>
#include "dist/scheduler.h"

using namespace nq;
using dist::Scheduler;

namespace {
proto::ResultBatch answer(const core::UnitPlan& plan, const proto::WorkBatch& batch) {
  proto::ResultBatch rb{batch.batch_id, {}};
  for (const auto& u : batch.units) {
    proto::UnitResult r;
    r.id = u.id;
    r.solutions = plan.count(u).solutions;
    r.check = proto::result_check(r);
    rb.results.push_back(r);
  }
  return rb;
}
const auto kNoSkip = [](std::uint64_t) { return false; };
}  // namespace

TEST(Scheduler, HandsOutEveryUnitOnceAndFinishes) {
  const core::UnitPlan plan(10, 3);
  Scheduler sched(plan, proto::JobSpec{10, 3}, kNoSkip, plan.size(), 4);
  std::set<std::uint64_t> seen;
  core::Count total = 0;
  while (auto b = sched.next_batch(1)) {
    for (const auto& u : b->units) EXPECT_TRUE(seen.insert(u.id).second);
    const auto rb = answer(plan, *b);
    const auto units = sched.accept(1, rb);
    for (std::size_t i = 0; i < units.size(); ++i) total += units[i].multiplicity * rb.results[i].solutions;
  }
  EXPECT_TRUE(sched.all_done());
  EXPECT_EQ(seen.size(), plan.size());
  EXPECT_EQ(total, 724u);
}

TEST(Scheduler, BatchesShrinkTowardsTheEnd) {
  const core::UnitPlan plan(12, 4);
  Scheduler sched(plan, proto::JobSpec{12, 4}, kNoSkip, plan.size(), 2);
  std::vector<std::size_t> sizes;
  while (auto b = sched.next_batch(1)) {
    sizes.push_back(b->units.size());
    sched.accept(1, answer(plan, *b));
  }
  EXPECT_GT(sizes.front(), 1u);
  EXPECT_EQ(sizes.back(), 1u);
}

TEST(Scheduler, SkipsDoneUnits) {
  const core::UnitPlan plan(9, 2);
  Scheduler sched(plan, proto::JobSpec{9, 2}, [](std::uint64_t id) { return id % 2 == 0; }, plan.size() / 2, 1);
  while (auto b = sched.next_batch(1)) {
    for (const auto& u : b->units) EXPECT_EQ(u.id % 2, 1u);
    sched.accept(1, answer(plan, *b));
  }
  EXPECT_TRUE(sched.all_done());
}

TEST(Scheduler, RejectsDuplicatesMissingForeignGarbledAndStrayResultsAndRequeues) {
  const core::UnitPlan plan(8, 2);
  Scheduler sched(plan, proto::JobSpec{8, 2}, kNoSkip, plan.size(), 1, 4);
  auto b = *sched.next_batch(1);
  ASSERT_GE(b.units.size(), 2u);
  auto good = answer(plan, b);

  auto dup = good;
  dup.results.back() = dup.results.front();
  EXPECT_THROW(sched.accept(1, dup), dist::ResultError);   // requeued
  EXPECT_THROW(sched.accept(1, good), dist::ResultError);  // no longer in flight: stray

  auto again = *sched.next_batch(1);   // the same units come back
  EXPECT_EQ(again.units.front().id, b.units.front().id);
  auto garbled = answer(plan, again);
  garbled.results[0].solutions += 1;   // checksum no longer matches
  EXPECT_THROW(sched.accept(1, garbled), dist::ResultError);

  auto third = *sched.next_batch(1);
  auto missing = answer(plan, third);
  missing.results.pop_back();
  EXPECT_THROW(sched.accept(2, answer(plan, third)), dist::ResultError);   // wrong worker
  EXPECT_EQ(sched.rejected_batches(), 4u);
  EXPECT_THROW(sched.accept(1, missing), dist::ResultError);
  auto fourth = *sched.next_batch(1);
  auto foreign = answer(plan, fourth);
  foreign.results[0].id = 9999;
  foreign.results[0].check = proto::result_check(foreign.results[0]);
  EXPECT_THROW(sched.accept(1, foreign), dist::ResultError);
}

TEST(Scheduler, BoardsThatDoNotMatchTheCountOrAreInvalidAreRejected) {
  const core::UnitPlan plan(6, 1);
  proto::JobSpec job{6, 1};
  job.boards = true;
  Scheduler sched(plan, job, kNoSkip, plan.size(), 1, 1);
  std::set<std::uint64_t> rejected_once;
  while (auto b = sched.next_batch(1)) {
    proto::ResultBatch rb{b->batch_id, {}};
    proto::UnitResult r;
    r.id = b->units[0].id;
    plan.visit_boards(b->units[0], [&](core::BoardView x) {
      r.boards.insert(r.boards.end(), x.begin(), x.end());
      return true;
    });
    r.solutions = r.boards.size() / 6 / b->units[0].multiplicity;
    if (!r.boards.empty() && rejected_once.insert(r.id).second) {
      auto bad = r;
      bad.boards[0] = bad.boards[1];   // two queens in one column
      bad.check = proto::result_check(bad);
      EXPECT_THROW(sched.accept(1, {b->batch_id, {bad}}), dist::ResultError);
      continue;   // requeued; answered properly next time round
    }
    if (!r.boards.empty()) {
      auto short_by_one = r;   // boards do not add up to multiplicity * solutions
      short_by_one.boards.resize(r.boards.size() - 6);
      short_by_one.check = proto::result_check(short_by_one);
      EXPECT_THROW(sched.accept(1, {b->batch_id, {short_by_one}}), dist::ResultError);
      b = sched.next_batch(1);
      ASSERT_TRUE(b);
    }
    r.check = proto::result_check(r);
    sched.accept(1, {b->batch_id, {r}});
  }
  EXPECT_TRUE(sched.all_done());
  EXPECT_EQ(sched.rejected_batches(), 2 * rejected_once.size());
  EXPECT_GT(rejected_once.size(), 0u);
}

TEST(Scheduler, LostWorkersUnitsAreHandedOutAgain) {
  const core::UnitPlan plan(8, 2);
  Scheduler sched(plan, proto::JobSpec{8, 2}, kNoSkip, plan.size(), 2, 2);
  const auto lost = *sched.next_batch(1);
  sched.worker_lost(1);
  const auto again = *sched.next_batch(2);
  EXPECT_EQ(again.units.front().id, lost.units.front().id);
}
