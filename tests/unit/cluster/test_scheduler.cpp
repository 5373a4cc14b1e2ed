// The master's bookkeeping without MPI: batches, in-flight tracking and the checks on results.
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include "core/boards.h"
#include "cluster/scheduler.h"

using namespace nq;
using cluster::Scheduler;

namespace {
// The job message of a plan (n, depth, mirror symmetry), counting.
proto::JobSpec spec(int n, int depth) {
  proto::JobSpec job;
  job.params.n = n;
  job.params.depth = depth;
  job.params.symmetry = core::Symmetry::mirror;
  return job;
}
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
// A unit's result in boards mode, as a worker makes it.
proto::UnitResult boards_result(const core::UnitPlan& plan, const core::WorkUnit& u, core::BoardSet set) {
  proto::UnitResult r;
  r.id = u.id;
  r.solutions = core::append_unit_results(plan, u, set, r.boards, r.class_sizes).solutions;
  r.check = proto::result_check(r);
  return r;
}
// answer() in boards mode (every board: the completions a worker sends).
proto::ResultBatch boards_answer(const core::UnitPlan& plan, const proto::WorkBatch& batch) {
  proto::ResultBatch rb{batch.batch_id, {}};
  for (const auto& u : batch.units) rb.results.push_back(boards_result(plan, u, core::BoardSet::all));
  return rb;
}
const auto kNoSkip = [](std::uint64_t) { return false; };
// accept() takes the batch by reference (it keeps only the results accepted now); a copy here.
std::vector<core::WorkUnit> give(Scheduler& s, int worker, proto::ResultBatch rb) { return s.accept(worker, rb); }
}  // namespace

TEST(Scheduler, HandsOutEveryUnitOnceAndFinishes) {
  const core::UnitPlan plan(10, 3);
  Scheduler sched(plan, spec(10, 3), kNoSkip, plan.size(), 4);
  std::set<std::uint64_t> seen;
  core::Count total = 0;
  while (auto b = sched.next_batch(1)) {
    for (const auto& u : b->units) EXPECT_TRUE(seen.insert(u.id).second);
    const auto rb = answer(plan, *b);
    const auto units = give(sched, 1, rb);
    for (std::size_t i = 0; i < units.size(); ++i) total += units[i].multiplicity * rb.results[i].solutions;
  }
  EXPECT_TRUE(sched.all_done());
  EXPECT_EQ(seen.size(), plan.size());
  EXPECT_EQ(total, 724u);
}

TEST(Scheduler, BatchesShrinkTowardsTheEnd) {
  const core::UnitPlan plan(12, 4);
  const int threads = 2;
  Scheduler sched(plan, spec(12, 4), kNoSkip, plan.size(), threads);
  std::vector<std::size_t> sizes;
  std::uint64_t issued = 0;
  while (auto b = sched.next_batch(1)) {
    // About a quarter of each thread's remaining share, between 1 and the cap of 256 (the
    // units take no time); the first batch a unit, as nothing is known of their time yet.
    const std::uint64_t remaining = plan.size() - issued;
    if (issued)
      EXPECT_EQ(b->units.size(), std::clamp<std::uint64_t>(remaining / (4 * threads), 1, 256)) << sizes.size();
    else
      EXPECT_EQ(b->units.size(), 1u);
    sizes.push_back(b->units.size());
    issued += b->units.size();
    give(sched, 1, answer(plan, *b));
  }
  EXPECT_EQ(issued, plan.size());
  EXPECT_TRUE(std::is_sorted(sizes.rbegin(), sizes.rend() - 1));   // never grows again after the second
  EXPECT_EQ(sizes[1], std::min<std::uint64_t>(256, (plan.size() - 1) / (4 * threads)));
  EXPECT_EQ(sizes.back(), 1u);
  EXPECT_GT(std::count(sizes.begin(), sizes.end(), 1u), threads * 2);      // the tail spreads over every thread
}

TEST(Scheduler, CountBatchesHoldAtMostBatchSecondsOfTheirWorkersThreadsWork) {
  // A batch's results come back when its last unit is done: 48 units of seconds each kept a
  // worker silent for minutes (and taken for stalled). One unit until a result says how long
  // units take, then kBatchSeconds per thread of the worker, between 1 unit and the cap.
  const core::UnitPlan plan(14, 3);
  ASSERT_GT(plan.size(), 4u * 2 * 48 + 2);   // a quarter of each thread's share is more than 48
  for (const double seconds : {1e-6, 0.5, 1.0, 3.0, 100.0}) {
    SCOPED_TRACE(seconds);
    Scheduler sched(plan, spec(14, 3), kNoSkip, plan.size(), 2, 48);   // far from the end: 48 a batch at most
    sched.set_threads(1, 4);
    sched.set_threads(2, 1);
    const auto first = *sched.next_batch(1);
    EXPECT_EQ(first.units.size(), 1u);   // nothing known yet
    EXPECT_EQ(sched.next_batch(2)->units.size(), 1u);
    auto rb = answer(plan, first);
    rb.results[0].seconds = seconds;
    ASSERT_EQ(give(sched, 1, rb).size(), 1u);
    for (const int worker : {1, 2}) {
      const double threads = worker == 1 ? 4 : 1;
      const auto want = static_cast<std::size_t>(std::clamp(cluster::kBatchSeconds * threads / seconds, 1.0, 48.0));
      EXPECT_EQ(sched.next_batch(worker)->units.size(), want) << worker;
    }
  }
}

TEST(Scheduler, SkipsDoneUnits) {
  const core::UnitPlan plan(9, 2);
  Scheduler sched(plan, spec(9, 2), [](std::uint64_t id) { return id % 2 == 0; }, plan.size() / 2, 1);
  while (auto b = sched.next_batch(1)) {
    for (const auto& u : b->units) EXPECT_EQ(u.id % 2, 1u);
    give(sched, 1, answer(plan, *b));
  }
  EXPECT_TRUE(sched.all_done());
}

TEST(Scheduler, RejectsDuplicatesMissingForeignGarbledAndStrayResultsAndRequeues) {
  const core::UnitPlan plan(8, 2);
  Scheduler sched(plan, spec(8, 2), kNoSkip, plan.size(), 1, 4);
  give(sched, 1, answer(plan, *sched.next_batch(1)));   // a unit timed (at no time): batches of 4 from now on
  auto b = *sched.next_batch(1);
  ASSERT_GE(b.units.size(), 2u);
  auto good = answer(plan, b);

  auto dup = good;
  dup.results.back() = dup.results.front();
  EXPECT_THROW(give(sched, 1, dup), cluster::ResultError);   // requeued
  EXPECT_THROW(give(sched, 1, good), cluster::ResultError);  // no longer in flight: stray

  auto again = *sched.next_batch(1);   // the same units come back
  EXPECT_EQ(again.units.front().id, b.units.front().id);
  auto garbled = answer(plan, again);
  garbled.results[0].solutions += 1;   // checksum no longer matches
  EXPECT_THROW(give(sched, 1, garbled), cluster::ResultError);

  auto third = *sched.next_batch(1);
  auto missing = answer(plan, third);
  missing.results.pop_back();
  EXPECT_THROW(give(sched, 2, answer(plan, third)), cluster::ResultError);   // wrong worker
  EXPECT_EQ(sched.rejected_batches(), 4u);
  EXPECT_THROW(give(sched, 1, missing), cluster::ResultError);
  auto fourth = *sched.next_batch(1);
  auto foreign = answer(plan, fourth);
  foreign.results[0].id = 9999;
  foreign.results[0].check = proto::result_check(foreign.results[0]);
  EXPECT_THROW(give(sched, 1, foreign), cluster::ResultError);
}

TEST(Scheduler, BoardsThatDoNotMatchTheCountOrAreInvalidAreRejected) {
  const core::UnitPlan plan(6, 1);
  proto::JobSpec job = spec(6, 1);
  job.params.mode = core::Mode::boards;
  Scheduler sched(plan, job, kNoSkip, plan.size(), 1, 1);
  std::set<std::uint64_t> rejected_once;
  while (auto b = sched.next_batch(1)) {
    proto::ResultBatch rb{b->batch_id, {}};
    proto::UnitResult r = boards_result(plan, b->units[0], core::BoardSet::all);
    if (!r.boards.empty() && rejected_once.insert(r.id).second) {
      auto bad = r;
      bad.boards[0] = bad.boards[1];   // two queens in one column
      bad.check = proto::result_check(bad);
      EXPECT_THROW(give(sched, 1, {b->batch_id, {bad}}), cluster::ResultError);
      continue;   // requeued; answered properly next time round
    }
    if (!r.boards.empty()) {
      auto short_by_one = r;   // boards do not add up to the solutions
      short_by_one.boards.resize(r.boards.size() - 6);
      short_by_one.check = proto::result_check(short_by_one);
      EXPECT_THROW(give(sched, 1, {b->batch_id, {short_by_one}}), cluster::ResultError);
      b = sched.next_batch(1);
      ASSERT_TRUE(b);
    }
    r.check = proto::result_check(r);
    give(sched, 1, {b->batch_id, {r}});
  }
  EXPECT_TRUE(sched.all_done());
  EXPECT_EQ(sched.rejected_batches(), 2 * rejected_once.size());
  EXPECT_GT(rejected_once.size(), 0u);
}

TEST(Scheduler, LostWorkersUnitsAreHandedOutAgain) {
  const core::UnitPlan plan(8, 2);
  Scheduler sched(plan, spec(8, 2), kNoSkip, plan.size(), 2, 2);
  const auto lost = *sched.next_batch(1);
  sched.worker_lost(1);
  const auto again = *sched.next_batch(2);
  EXPECT_EQ(again.units.front().id, lost.units.front().id);
}

TEST(Scheduler, EstimatesTheWorkInFlightPerWorkerFromTheResultsSeconds) {
  const core::UnitPlan plan(10, 3);
  Scheduler sched(plan, spec(10, 3), kNoSkip, plan.size(), 2, 4);
  const auto a = *sched.next_batch(1), b = *sched.next_batch(1), c = *sched.next_batch(2);
  EXPECT_TRUE(std::isinf(sched.seconds_in_flight(1)));   // no result yet: unknown
  auto rb = answer(plan, a);
  for (auto& r : rb.results) r.seconds = 0.5;    // seconds are not in the checksum
  give(sched, 1, rb);
  // 0.5 s per unit so far; worker 1 still holds b, worker 2 holds c, worker 3 nothing.
  EXPECT_DOUBLE_EQ(sched.seconds_in_flight(1), 0.5 * static_cast<double>(b.units.size()));
  EXPECT_DOUBLE_EQ(sched.seconds_in_flight(2), 0.5 * static_cast<double>(c.units.size()));
  EXPECT_EQ(sched.seconds_in_flight(3), 0.0);
  sched.worker_lost(2);
  EXPECT_EQ(sched.seconds_in_flight(2), 0.0);
}

TEST(Scheduler, AWorkerKeepsThreadsPlusOneBatchesAndInCountModeMoreWhileUnitsAreCheap) {
  for (const core::Mode mode : {core::Mode::count, core::Mode::boards}) {
    SCOPED_TRACE(mode == core::Mode::count ? "count" : "boards");
    const core::UnitPlan plan(12, 3);
    proto::JobSpec job = spec(12, 3);
    job.params.mode = mode;
    Scheduler sched(plan, job, kNoSkip, plan.size(), 2, 1);   // a unit a batch
    ASSERT_GT(plan.size(), 200u);
    sched.set_threads(1, 2);
    std::vector<proto::WorkBatch> sent;
    while (sched.wants_batch(1)) sent.push_back(*sched.next_batch(1));
    EXPECT_EQ(sent.size(), 3u);   // no estimate yet: threads + 1
    // One result that took no time: count mode tops the worker up by the estimate (up to 64
    // batches a thread); boards mode only back to threads + 1, whatever the estimate says.
    auto rb = mode == core::Mode::boards ? boards_answer(plan, sent[0]) : answer(plan, sent[0]);
    for (auto& r : rb.results) r.seconds = 1e-9;
    ASSERT_EQ(give(sched, 1, rb).size(), 1u);
    std::size_t more = 0;
    while (sched.wants_batch(1) && sched.next_batch(1)) ++more;
    EXPECT_EQ(sched.batches_in_flight(1), mode == core::Mode::boards ? 3u : 128u);
    EXPECT_EQ(more, sched.batches_in_flight(1) - 2);
  }
}

TEST(Scheduler, ASilentWorkerIsStalledItsBatchesGoElsewhereAndItsLateResultsAreDropped) {
  const core::UnitPlan plan(10, 3);
  Scheduler sched(plan, spec(10, 3), kNoSkip, plan.size(), 2, 8);
  sched.set_threads(1, 1);
  sched.set_threads(2, 1);
  const auto slow = *sched.next_batch(1, false, 0.0);
  auto first = answer(plan, *sched.next_batch(2, false, 0.0));
  for (auto& r : first.results) r.seconds = 0.001;
  sched.heard_from(2, 0.5);
  give(sched, 2, first);
  EXPECT_TRUE(sched.stalled(2.0, 3, 10).empty());                 // not silent long enough
  EXPECT_EQ(sched.stalled(5.0, 3, 10), std::vector<int>{1});      // 5 s silent, batch ~10 ms
  sched.worker_lost(1);
  EXPECT_TRUE(sched.lost(1));
  EXPECT_FALSE(sched.next_batch(1, false, 5.0));                  // no more work for it
  std::set<std::uint64_t> handed_again;
  core::Count total = 0;
  for (std::size_t i = 0; i < first.results.size(); ++i)
    total += plan.units()[first.results[i].id].multiplicity * first.results[i].solutions;
  while (auto b = sched.next_batch(2, false, 6.0)) {
    for (const auto& u : b->units) handed_again.insert(u.id);
    const auto rb = answer(plan, *b);
    const auto units = give(sched, 2, rb);
    for (std::size_t i = 0; i < units.size(); ++i) total += units[i].multiplicity * rb.results[i].solutions;
  }
  for (const auto& u : slow.units) EXPECT_TRUE(handed_again.count(u.id)) << u.id;
  EXPECT_TRUE(sched.all_done());
  // The stalled worker wakes up: its late batch counts nothing twice and is not an error.
  proto::ResultBatch late = answer(plan, slow);
  EXPECT_TRUE(sched.accept(1, late).empty());
  EXPECT_TRUE(late.results.empty());
  EXPECT_EQ(sched.rejected_batches(), 0u);
  EXPECT_EQ(sched.units_done(), plan.size());
  EXPECT_EQ(total, 724u);
  sched.heard_from(1, 7.0);   // and it is back in the job
  EXPECT_FALSE(sched.lost(1));
}

TEST(Scheduler, AWorkerThatKeepsAnsweringIsNotStalledByOneLongBatch) {
  const core::UnitPlan plan(10, 3);
  Scheduler sched(plan, spec(10, 3), kNoSkip, plan.size(), 2, 4);
  sched.next_batch(1, false, 0.0);                       // a long one, still running at t = 20
  for (double t = 1; t <= 20; t += 1) {
    auto rb = answer(plan, *sched.next_batch(1, false, t - 1));
    sched.heard_from(1, t);
    give(sched, 1, rb);
    EXPECT_TRUE(sched.stalled(t + 0.5, 3, 10).empty()) << t;
  }
  EXPECT_EQ(sched.stalled(24.0, 3, 10), std::vector<int>{1});   // then silence
}

TEST(Scheduler, BeforeAnyResultAWorkerIsStalledAfterMinTimesFactor) {
  const core::UnitPlan plan(10, 3);
  Scheduler sched(plan, spec(10, 3), kNoSkip, plan.size(), 1, 4);
  sched.next_batch(1, false, 0.0);
  EXPECT_TRUE(sched.stalled(29.0, 3, 10).empty());
  EXPECT_EQ(sched.stalled(31.0, 3, 10), std::vector<int>{1});
}

TEST(Scheduler, ARejectedUndecodableBatchIsHandedOutAgain) {
  const core::UnitPlan plan(8, 2);
  Scheduler sched(plan, spec(8, 2), kNoSkip, plan.size(), 2, 2);
  const auto b = *sched.next_batch(1);
  EXPECT_FALSE(sched.reject(2, b.batch_id));   // not that worker's
  EXPECT_TRUE(sched.reject(1, b.batch_id));
  EXPECT_FALSE(sched.reject(1, b.batch_id));   // only once
  EXPECT_EQ(sched.next_batch(2)->units.front().id, b.units.front().id);
  EXPECT_EQ(sched.rejected_batches(), 1u);
}

TEST(Scheduler, BoardsBatchesAreSizedByTheBytesTheirResultsWillHold) {
  const core::UnitPlan plan(10, 2, core::Symmetry::full);
  proto::JobSpec job = spec(10, 2);
  job.params.symmetry = core::Symmetry::full;
  job.params.mode = core::Mode::boards;
  const std::uint64_t cap = 40;   // bytes of results per batch: a few units' completions
  Scheduler sched(plan, job, kNoSkip, plan.size(), 1, 256, {}, cap);
  auto with_boards = [&](const proto::WorkBatch& b) {
    proto::ResultBatch rb{b.batch_id, {}};
    for (const auto& u : b.units) rb.results.push_back(boards_result(plan, u, core::BoardSet::all));
    return rb;
  };
  std::uint64_t bytes = 0, units = 0;
  int batches = 0;
  for (int i = 0; auto b = sched.next_batch(1); ++i, ++batches) {
    if (i == 0) {
      EXPECT_EQ(b->units.size(), 1u);   // nothing known yet
    } else if (bytes) {
      EXPECT_LE(b->units.size(), std::max<std::uint64_t>(1, cap * units / bytes)) << i;
    }
    const auto rb = with_boards(*b);
    for (const auto& r : rb.results) bytes += r.boards.size();
    units += rb.results.size();
    EXPECT_EQ(give(sched, 1, rb).size(), b->units.size());
  }
  EXPECT_TRUE(sched.all_done());
  std::uint64_t completions = 0;   // what the workers send: every completion of the plan once
  for (const auto& u : plan.units()) completions += plan.count(u).solutions;
  EXPECT_EQ(bytes, completions * 10);
  Scheduler uncapped(plan, job, kNoSkip, plan.size(), 1, 256, {}, ~0ULL);
  int uncapped_batches = 0;
  for (; auto b = uncapped.next_batch(1); ++uncapped_batches) give(uncapped, 1, with_boards(*b));
  EXPECT_GT(batches, uncapped_batches + 2);
}

// ------------------------------------------------------------------------------------ audit --

namespace {
// Drives a scheduler with `workers` answering round-robin; lie(worker, id, round) -> extra
// solutions that worker reports (0: the truth), with a valid checksum. Returns the accepted
// results by unit id (a unit accepted twice fails the test).
struct Delivered {
  core::Count solutions;
  int worker;
};
std::map<std::uint64_t, Delivered> drive(Scheduler& sched, const core::UnitPlan& plan, std::vector<int> workers,
                                         const std::function<core::Count(int, std::uint64_t)>& lie,
                                         std::map<std::uint64_t, std::vector<int>>* computed_by = nullptr) {
  std::map<std::uint64_t, Delivered> accepted;
  for (int idle = 0; !sched.all_done() && !sched.failure() && idle < 10;) {
    bool any = false;
    for (int w : workers) {
      auto b = sched.next_batch(w);
      if (!b) continue;
      any = true;
      auto rb = answer(plan, *b);
      for (auto& r : rb.results) {
        if (computed_by) (*computed_by)[r.id].push_back(w);
        if (const auto extra = lie(w, r.id)) {
          r.solutions += extra;
          r.check = proto::result_check(r);
        }
      }
      const auto units = sched.accept(w, rb);
      EXPECT_EQ(units.size(), rb.results.size());
      for (std::size_t i = 0; i < units.size(); ++i) {
        EXPECT_EQ(units[i].id, rb.results[i].id);
        EXPECT_TRUE(accepted.emplace(units[i].id, Delivered{rb.results[i].solutions, w}).second)
            << "unit " << units[i].id << " accepted twice";
      }
    }
    idle = any ? 0 : idle + 1;
  }
  return accepted;
}
core::Count weighted_total(const core::UnitPlan& plan, const std::map<std::uint64_t, Delivered>& accepted) {
  core::Count total = 0;
  for (const auto& u : plan.units())
    if (accepted.count(u.id)) total += u.multiplicity * accepted.at(u.id).solutions;
  return total;
}
const auto kHonest = [](int, std::uint64_t) -> core::Count { return 0; };
}  // namespace

TEST(Audit, SampleIsDeterministicNestedAndOfTheRequestedSize) {
  std::uint64_t in64 = 0;
  for (std::uint64_t id = 0; id < 64000; ++id) {
    const bool a = cluster::in_audit_sample(id, 1.0 / 64);
    EXPECT_EQ(a, cluster::in_audit_sample(id, 1.0 / 64));
    if (a) {
      EXPECT_TRUE(cluster::in_audit_sample(id, 1.0 / 8)) << id;   // a larger fraction contains it
    }
    EXPECT_FALSE(cluster::in_audit_sample(id, 0));
    EXPECT_TRUE(cluster::in_audit_sample(id, 1));
    in64 += a;
  }
  EXPECT_GT(in64, 800u);    // 1000 expected
  EXPECT_LT(in64, 1200u);
}

TEST(Audit, EveryAuditedUnitIsComputedByTwoDifferentWorkersBeforeItCounts) {
  const core::UnitPlan plan(10, 3);
  Scheduler sched(plan, spec(10, 3), kNoSkip, plan.size(), 4, 256, {1.0, 2, 3});
  std::map<std::uint64_t, std::vector<int>> computed_by;
  const auto accepted = drive(sched, plan, {1, 2}, kHonest, &computed_by);
  EXPECT_TRUE(sched.all_done());
  EXPECT_FALSE(sched.failure());
  EXPECT_EQ(accepted.size(), plan.size());
  EXPECT_EQ(weighted_total(plan, accepted), 724u);
  EXPECT_EQ(sched.audited_units(), plan.size());
  EXPECT_EQ(sched.units_done(), plan.size());
  for (const auto& [id, by] : computed_by) {
    ASSERT_EQ(by.size(), 2u) << id;
    EXPECT_NE(by[0], by[1]) << "unit " << id << " audited by the worker that computed it";
    EXPECT_EQ(accepted.at(id).worker, by[1]);
  }
}

TEST(Audit, OnlyTheSampleIsComputedTwice) {
  const core::UnitPlan plan(12, 4);
  Scheduler sched(plan, spec(12, 4), kNoSkip, plan.size(), 4, 256, {1.0 / 16, 3, 3});
  std::map<std::uint64_t, std::vector<int>> computed_by;
  const auto accepted = drive(sched, plan, {1, 2, 3}, kHonest, &computed_by);
  EXPECT_EQ(weighted_total(plan, accepted), 14200u);
  std::uint64_t sampled = 0;
  for (const auto& [id, by] : computed_by) {
    const bool in = cluster::in_audit_sample(id, 1.0 / 16);
    sampled += in;
    EXPECT_EQ(by.size(), in ? 2u : 1u) << id;
  }
  EXPECT_EQ(sched.audited_units(), sampled);
  EXPECT_GT(sampled, 0u);
}

TEST(Audit, ALieIsCaughtBothResultsAreDiscardedAndTheUnitIsRecomputed) {
  const core::UnitPlan plan(10, 3);
  Scheduler sched(plan, spec(10, 3), kNoSkip, plan.size(), 4, 256, {1.0, 2, 3});
  const std::uint64_t liar_unit = 7;
  int lies = 0;
  const auto accepted = drive(sched, plan, {1, 2}, [&](int w, std::uint64_t id) -> core::Count {
    return w == 1 && id == liar_unit && lies++ == 0 ? 1 : 0;   // worker 1 lies once
  });
  EXPECT_EQ(lies, 2);   // asked again after the mismatch: the unit went round once more
  EXPECT_TRUE(sched.all_done());
  EXPECT_EQ(sched.audit_mismatches(), 1u);
  const auto reports = sched.take_audit_reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_NE(reports[0].find("unit 7:"), std::string::npos) << reports[0];
  EXPECT_NE(reports[0].find("both results discarded"), std::string::npos) << reports[0];
  EXPECT_EQ(accepted.at(liar_unit).solutions, plan.count(plan.units()[liar_unit]).solutions);
  EXPECT_EQ(weighted_total(plan, accepted), 724u);
}

TEST(Audit, APersistentLiarFailsTheJobAfterMaxRounds) {
  const core::UnitPlan plan(10, 3);
  Scheduler sched(plan, spec(10, 3), kNoSkip, plan.size(), 4, 256, {1.0, 2, 3});
  const auto accepted = drive(sched, plan, {1, 2}, [](int w, std::uint64_t id) -> core::Count {
    return w == 1 && id == 5 ? 3 : 0;
  });
  ASSERT_TRUE(sched.failure());
  EXPECT_NE(sched.failure()->find("unit 5:"), std::string::npos) << *sched.failure();
  EXPECT_NE(sched.failure()->find("3 rounds"), std::string::npos) << *sched.failure();
  EXPECT_EQ(sched.audit_mismatches(), 3u);
  EXPECT_EQ(sched.take_audit_reports().size(), 2u);   // the third is the failure itself
  EXPECT_FALSE(accepted.count(5));                     // never counted
  EXPECT_FALSE(sched.next_batch(2));                   // nothing more is handed out
}

TEST(Audit, WithASingleWorkerTheSameWorkerRecomputes) {
  const core::UnitPlan plan(8, 2);
  Scheduler sched(plan, spec(8, 2), kNoSkip, plan.size(), 1, 256, {1.0, 1, 3});
  std::map<std::uint64_t, std::vector<int>> computed_by;
  const auto accepted = drive(sched, plan, {1}, kHonest, &computed_by);
  EXPECT_TRUE(sched.all_done());
  EXPECT_EQ(weighted_total(plan, accepted), 92u);
  for (const auto& [id, by] : computed_by) EXPECT_EQ(by, (std::vector<int>{1, 1})) << id;
}

TEST(Audit, AuditCopiesWaitForAnotherWorkerAndSurviveARejectedBatch) {
  const core::UnitPlan plan(8, 2);
  Scheduler sched(plan, spec(8, 2), kNoSkip, plan.size(), 1, 4, {1.0, 2, 3});
  auto first = *sched.next_batch(1);
  auto rb = answer(plan, first);
  EXPECT_TRUE(sched.accept(1, rb).empty());   // all held back for their audit
  EXPECT_TRUE(rb.results.empty());
  EXPECT_EQ(sched.units_done(), 0u);
  for (auto b = sched.next_batch(1, true); b; b = sched.next_batch(1, true)) FAIL() << "worker 1 got its own audit copy";
  auto copy = *sched.next_batch(2, true);
  EXPECT_EQ(copy.units.front().id, first.units.front().id);
  auto garbled = answer(plan, copy);
  garbled.results[0].solutions ^= 1;   // bad checksum: the batch is rejected and requeued
  EXPECT_THROW(sched.accept(2, garbled), cluster::ResultError);
  EXPECT_FALSE(sched.next_batch(1, true));   // still an audit copy: not for worker 1
  auto again = *sched.next_batch(3, true);
  EXPECT_EQ(again.units.front().id, first.units.front().id);
  auto good = answer(plan, again);
  const auto units = sched.accept(3, good);
  EXPECT_EQ(units.size(), again.units.size());
  EXPECT_EQ(sched.audited_units(), again.units.size());
}

TEST(Audit, WhenTheOtherWorkerIsLostTheRemainingOneAuditsItsOwnUnits) {
  const core::UnitPlan plan(9, 2);
  cluster::AuditPolicy policy{1.0, 2, 3};
  Scheduler sched(plan, spec(9, 2), kNoSkip, plan.size(), 2, 4, policy);
  sched.next_batch(1);     // worker 1 takes a batch and is never heard of again
  sched.worker_lost(1);
  const auto accepted = drive(sched, plan, {2}, kHonest);
  EXPECT_TRUE(sched.all_done());
  EXPECT_EQ(accepted.size(), plan.size());
  EXPECT_EQ(weighted_total(plan, accepted), 352u);
}

TEST(Audit, DifferentBoardsWithTheSameCountAreAMismatch) {
  // The master's check cannot see a class-mode copy that leaves out a canonical board (every
  // board it sends is right, the completions it counted too): the audit does.
  const core::UnitPlan plan(8, 1);
  proto::JobSpec job = spec(8, 1);
  job.params.mode = core::Mode::boards;
  job.params.boards = core::BoardSet::classes;
  Scheduler sched(plan, job, kNoSkip, plan.size(), 1, 1, {1.0, 2, 3});
  // Find a unit with at least two boards; answer it from worker 1, then worker 2 drops one.
  for (auto b = sched.next_batch(1); b; b = sched.next_batch(1)) {
    auto r = boards_result(plan, b->units[0], core::BoardSet::classes);
    proto::ResultBatch rb{b->batch_id, {r}};
    sched.accept(1, rb);
    auto copy = *sched.next_batch(2, true);
    ASSERT_EQ(copy.units[0].id, r.id);
    if (r.class_sizes.size() < 2) {   // nothing to leave out but everything: the honest copy is accepted
      proto::ResultBatch same{copy.batch_id, {r}};
      EXPECT_EQ(sched.accept(2, same).size(), 1u);
      continue;
    }
    r.boards.resize(r.boards.size() - 8);
    r.class_sizes.pop_back();
    r.check = proto::result_check(r);
    proto::ResultBatch short_copy{copy.batch_id, {r}};
    EXPECT_TRUE(sched.accept(2, short_copy).empty());
    EXPECT_EQ(sched.audit_mismatches(), 1u);
    const auto reports = sched.take_audit_reports();
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].find("different boards"), std::string::npos) << reports[0];
    return;
  }
  FAIL() << "no unit with two boards";
}
