// How a run ends (app/run_end.h): the status and totals decided from the finished units, and
// the exit-code policy, without MPI, files or signals.
#include <gtest/gtest.h>
#include "app_test_util.h"
#include "core/known_counts.h"

using namespace nq;
using app::Ending;
using app::RunFacts;

namespace {

struct Decided {
  store::RunInfo info;
  app::Totals totals;
};

Decided decide(const core::JobParams& p, const std::vector<store::UnitRecord>& records, bool stop_requested = false,
               const core::StopFn& stop = {}) {
  Decided d;
  d.info.params = p;
  d.totals = app::decide_totals(d.info, app::test::source_of(records), p.shard.size(app::test::plan_size(p)), stop_requested, stop);
  return d;
}

}  // namespace

TEST(RunEnd, EveryUnitDoneIsACompleteResultCheckedAgainstThePublishedCounts) {
  for (const auto symmetry : {core::Symmetry::none, core::Symmetry::mirror, core::Symmetry::full}) {
    const auto p = app::test::count_job(10, 3, symmetry);
    const auto d = decide(p, app::test::finished_units(p));
    const auto known = core::known_counts(10);
    EXPECT_TRUE(d.totals.integrity_ok);
    EXPECT_EQ(d.info.status, store::Status::complete);
    EXPECT_EQ(d.info.total, known->total);
    EXPECT_EQ(d.info.unique, known->unique);
    EXPECT_EQ(d.info.rot180_fixed, known->rot180_fixed);
    EXPECT_EQ(d.info.rot90_fixed, known->rot90_fixed);
    EXPECT_EQ(d.info.known_total, 724);
    EXPECT_EQ(d.info.matches_known, core::KnownMatch::match);
    EXPECT_EQ(d.info.units_done, app::test::plan_size(p));
  }
}

TEST(RunEnd, AMissingUnitOrAStopLeavesAPartialResultWithoutUnique) {
  const auto p = app::test::count_job(10, 3);
  auto records = app::test::finished_units(p);
  const auto all = decide(p, records, /*stop_requested=*/true);   // a stop ends the job even with every unit done
  EXPECT_EQ(all.info.status, store::Status::partial);
  EXPECT_EQ(all.info.total, 724u);
  EXPECT_EQ(all.info.unique, 0u);
  EXPECT_EQ(all.info.matches_known, core::KnownMatch::unknown);
  records.pop_back();
  const auto some = decide(p, records);
  EXPECT_EQ(some.info.status, store::Status::partial);
  EXPECT_EQ(some.info.units_done, records.size());
  EXPECT_LT(some.info.total, 724u);
  EXPECT_EQ(some.info.matches_known, core::KnownMatch::unknown);
}

TEST(RunEnd, AStopDuringTheBurnsideSearchLeavesAPartialResult) {
  const auto p = app::test::count_job(15, 5);   // large enough for the search to poll
  int polls = 0;
  const auto d = decide(p, app::test::finished_units(p), false, [&] { return ++polls > 0; });
  EXPECT_GT(polls, 0);
  EXPECT_EQ(d.info.status, store::Status::partial);
  EXPECT_EQ(d.info.total, 2279184u);
  EXPECT_EQ(d.info.unique, 0u);
  EXPECT_TRUE(d.totals.integrity_ok);
}

TEST(RunEnd, ACompleteShardHasASubtotalAndNoVerdict) {
  auto p = app::test::count_job(10, 3);
  p.shard = {1, 3};
  const auto d = decide(p, app::test::finished_units(p));
  EXPECT_EQ(d.info.status, store::Status::complete);
  EXPECT_GT(d.info.total, 0u);
  EXPECT_LT(d.info.total, 724u);
  EXPECT_EQ(d.info.unique, 0u);
  EXPECT_EQ(d.info.matches_known, core::KnownMatch::unknown);
}

TEST(RunEnd, AWrongCountIsCaughtByThePublishedTableOrBurnside) {
  const auto p = app::test::count_job(10, 3);
  auto records = app::test::finished_units(p);
  records[1].solutions += 1;
  const auto d = decide(p, records);
  EXPECT_EQ(d.info.status, store::Status::complete);
  EXPECT_EQ(d.info.matches_known, core::KnownMatch::mismatch);
  EXPECT_FALSE(d.totals.integrity_ok && d.info.matches_known != core::KnownMatch::mismatch);
  RunFacts f;
  f.complete = true;
  f.integrity_ok = d.totals.integrity_ok;
  f.matches_known = d.info.matches_known;
  EXPECT_EQ(app::exit_code(app::decide_ending(f)), app::kVerifyFailed);
}

TEST(RunEnd, WithoutAJournalTheBoardsOfABoardsRunCannotBeWritten) {
  auto p = app::test::count_job(8, 2);
  for (const bool complete : {false, true}) {
    EXPECT_TRUE(app::can_write_result(p, false, complete, false));
    EXPECT_TRUE(app::can_write_result(p, true, complete, false));   // count mode: the units are in memory
  }
  p.mode = core::Mode::boards;
  EXPECT_TRUE(app::can_write_result(p, false, false, false));
  EXPECT_FALSE(app::can_write_result(p, true, false, false));
}

// --force over a complete result: a stopped or failed run leaves it in place (the journal keeps
// its finished units); only a complete result replaces it.
TEST(RunEnd, APartialResultNeverReplacesACompleteOne) {
  for (const auto mode : {core::Mode::count, core::Mode::boards}) {
    auto p = app::test::count_job(8, 2);
    p.mode = mode;
    EXPECT_FALSE(app::can_write_result(p, false, false, true));
    EXPECT_TRUE(app::can_write_result(p, false, true, true));
    EXPECT_TRUE(app::can_write_result(p, false, false, false));
  }
}

// The exit-code policy: every ending, and which one wins when several apply.
TEST(RunEnd, TheFirstEndingThatAppliesDecidesTheExitCode) {
  RunFacts ok;
  ok.complete = true;
  ok.matches_known = core::KnownMatch::match;
  EXPECT_EQ(app::decide_ending(ok), Ending::ok);
  ok.matches_known = core::KnownMatch::unknown;   // N > 27: nothing published
  EXPECT_EQ(app::decide_ending(ok), Ending::ok);

  auto with = [&](auto change) {
    RunFacts f = ok;
    change(f);
    return app::decide_ending(f);
  };
  EXPECT_EQ(with([](RunFacts& f) { f.matches_known = core::KnownMatch::mismatch; }), Ending::wrong_count);
  EXPECT_EQ(with([](RunFacts& f) { f.integrity_ok = false; }), Ending::wrong_count);
  EXPECT_EQ(with([](RunFacts& f) { f.complete = false; }), Ending::interrupted);
  EXPECT_EQ(with([](RunFacts& f) { f.complete = false, f.matches_known = core::KnownMatch::mismatch; }), Ending::interrupted);
  EXPECT_EQ(with([](RunFacts& f) { f.verify_failed = true, f.complete = false; }), Ending::verify_failed);
  EXPECT_EQ(with([](RunFacts& f) { f.rank_failed = f.verify_failed = true; }), Ending::rank_failed);
  EXPECT_EQ(with([](RunFacts& f) { f.file = app::FileWrite::failed, f.rank_failed = true; }), Ending::io_error);
  EXPECT_EQ(with([](RunFacts& f) { f.journal_failed = true, f.file = app::FileWrite::skipped; }), Ending::io_error);
  EXPECT_EQ(with([](RunFacts& f) { f.journal_failed = true; }), Ending::io_error);   // count mode: file written, still 4
  EXPECT_EQ(with([](RunFacts& f) { f.file = app::FileWrite::interrupted, f.journal_failed = true; }),
            Ending::write_interrupted);

  EXPECT_EQ(app::exit_code(Ending::ok), 0);
  EXPECT_EQ(app::exit_code(Ending::io_error), 4);
  EXPECT_EQ(app::exit_code(Ending::wrong_count), 6);
  EXPECT_EQ(app::exit_code(Ending::verify_failed), 6);
  EXPECT_EQ(app::exit_code(Ending::rank_failed), 7);
  EXPECT_EQ(app::exit_code(Ending::interrupted), 75);
  EXPECT_EQ(app::exit_code(Ending::write_interrupted), 75);
  EXPECT_TRUE(app::result_is_final(Ending::ok));
  EXPECT_TRUE(app::result_is_final(Ending::wrong_count));   // the file holds every unit: the journal goes
  EXPECT_FALSE(app::result_is_final(Ending::interrupted));
  EXPECT_FALSE(app::result_is_final(Ending::io_error));
}
