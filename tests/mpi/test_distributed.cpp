// The master/worker runtime under mpiexec (2, 3, 4 ranks): every unit counted once, totals and
// board sets equal to the core solver's. Each TEST is collective: rank 0 is the master. Inside
// a loop of collective runs no rank may leave early (an ASSERT_* on rank 0 would leave the
// others waiting in the next run): checks there are EXPECT_* and skip what they guard. An
// exception out of a run (which gtest would catch on that rank alone) ends every rank at once.
#include <gtest/gtest.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include "core/boards.h"
#include "core/known_counts.h"
#include "core/total.h"
#include "mpi_support.h"

using namespace nq;

namespace {

struct Collect : cluster::MasterHooks {
  std::map<std::uint64_t, proto::UnitResult> results;
  std::map<std::uint64_t, core::WorkUnit> units;
  int duplicates = 0;
  void on_results(const proto::ResultBatch& rb, const std::vector<core::WorkUnit>& us) override {
    for (std::size_t i = 0; i < us.size(); ++i) {
      duplicates += !results.emplace(rb.results[i].id, rb.results[i]).second;
      units.emplace(us[i].id, us[i]);
    }
  }
  void on_rejected(int, const std::string& why) override { ADD_FAILURE() << why; }
  void on_progress(const cluster::MasterProgress&) override {}
  bool stop_requested() override { return false; }
  void on_finished(const cluster::JobOutcome&) override {}
};

proto::JobSpec job_for(int n, int depth, bool boards = false, core::BoardSet set = core::BoardSet::all) {
  proto::JobSpec job;
  job.params.n = n;
  job.params.depth = depth;
  job.params.symmetry = core::Symmetry::mirror;
  job.params.mode = boards ? core::Mode::boards : core::Mode::count;
  job.params.boards = set;
  job.threads_per_worker = 2;
  return job;
}

// Runs one job on all ranks; rank 0 gets the collected results.
template <class Hooks = Collect>
Hooks run(const proto::JobSpec& job, const cluster::Scheduler::Skip& skip = [](std::uint64_t) { return false; }) {
  Hooks c;
  const auto& mpi = test::mpi();
  try {
    if (mpi.rank() == 0) {
      const core::UnitPlan plan(job.params.n, job.params.depth, job.params.symmetry);
      std::uint64_t to_do = 0;
      for (const auto& u : plan.units()) to_do += !skip(u.id);
      cluster::run_master(mpi, job, skip, to_do, c, 3600);
    } else if (const auto why = cluster::run_worker(mpi)) {
      throw std::runtime_error(*why);
    }
  } catch (const std::exception& e) {
    // The other ranks are inside this job's messages and collectives: a failure here must end
    // them now (a failed test), not leave them waiting until ctest's timeout.
    std::fprintf(stderr, "rank %d: the job threw: %s\n", mpi.rank(), e.what());
    mpi.abort(1);
  }
  return c;
}

}  // namespace

TEST(Distributed, CountsEqualCoreSolverForEveryUnitUpToFourteen) {
  for (int n = 1; n <= 14; ++n) {
    const int depth = std::min(n, n <= 10 ? 2 : 3);
    const auto c = run(job_for(n, depth));
    if (test::mpi().rank() != 0) continue;
    const core::UnitPlan plan(n, depth);
    EXPECT_EQ(c.results.size(), plan.size()) << n;
    EXPECT_EQ(c.duplicates, 0);
    core::Count total = 0;
    for (const auto& u : plan.units()) {
      if (!c.results.count(u.id)) {
        ADD_FAILURE() << "unit " << u.id << " missing, n=" << n;
        continue;
      }
      EXPECT_EQ(c.results.at(u.id).solutions, plan.count(u).solutions) << "unit " << u.id;
      total += u.multiplicity * c.results.at(u.id).solutions;
    }
    EXPECT_EQ(total, core::known_counts(n)->total) << n;
  }
}

TEST(Distributed, BoardsModeSetEqualsCoreBoardsForAllAndClassSets) {
  for (auto set : {core::BoardSet::all, core::BoardSet::classes}) {
    for (int n : {6, 8, 10}) {
      const auto c = run(job_for(n, 2, true, set));
      if (test::mpi().rank() != 0) continue;
      // The boards as the master stores them: all mode, each completion sent with its images.
      const core::UnitPlan plan(n, 2);
      std::multiset<core::Board> got;
      for (const auto& u : plan.units()) {
        if (!c.results.count(u.id)) continue;   // counted as missing below
        const auto& sent = c.results.at(u.id).boards;
        std::vector<core::Column> stored;
        if (set == core::BoardSet::all) core::append_unit_images(plan, u, sent, stored);
        else stored = sent;
        for (std::size_t b = 0; b < stored.size(); b += n) got.emplace(stored.begin() + b, stored.begin() + b + n);
      }
      std::multiset<core::Board> expected;
      core::visit_plan_boards(plan, set, [&](core::BoardView b, int) { expected.emplace(b.begin(), b.end()); });
      EXPECT_EQ(got, expected) << "n=" << n << " set=" << core::to_string(set);
      EXPECT_EQ(got.size(), set == core::BoardSet::all ? core::known_counts(n)->total : core::known_counts(n)->unique);
    }
  }
}

TEST(Distributed, MoreWorkersThanUnitsTerminates) {
  const auto c = run(job_for(4, 1));   // 2 units for up to 3 workers x 2 threads
  if (test::mpi().rank() == 0) {
    EXPECT_EQ(c.results.size(), 2u);
  }
}

TEST(Distributed, SkippedUnitsAreNotComputedAndTheRestAre) {
  const auto skip = [](std::uint64_t id) { return id % 3 == 0; };
  const auto c = run(job_for(11, 3), skip);
  if (test::mpi().rank() != 0) return;
  const core::UnitPlan plan(11, 3);
  for (const auto& u : plan.units()) EXPECT_EQ(c.results.count(u.id), skip(u.id) ? 0u : 1u) << u.id;
}

// A worker that confirmed the stop leaves run_worker, for MPI_Finalize, only once the master
// released it, after every worker confirmed: an MPI_Abort that finds some ranks in MPI_Finalize
// and one that never got there can hang Open MPI 4.1's mpirun (docs/faults.md). The master
// takes 300 ms over on_workers_stopped; a worker that left as it confirmed would be out before
// that began. The ranks share a host, so one steady clock.
TEST(Distributed, WorkersLeaveOnlyOnceTheMasterReleasesThem) {
  using Clock = std::chrono::steady_clock;
  struct SlowRelease : Collect {
    Clock::time_point released{};
    void on_workers_stopped() override {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      released = Clock::now();
    }
  };
  const auto c = run<SlowRelease>(job_for(8, 2));
  const auto left = Clock::now().time_since_epoch().count();   // a worker's: run_worker returned
  const auto& mpi = test::mpi();
  const auto times = mpi.gather_text(std::to_string(left));
  if (mpi.rank() != 0) return;
  ASSERT_NE(c.released, Clock::time_point{}) << "on_workers_stopped was not called";
  for (int w = 1; w < mpi.size(); ++w) {
    const Clock::time_point t{Clock::duration{std::stoll(times[w])}};
    EXPECT_TRUE(t >= c.released) << "worker " << w << " left "
                                 << std::chrono::duration<double, std::milli>(c.released - t).count()
                                 << " ms before the master released it";
  }
}

// The collectives `nqueens check` agrees through: sums of 64-bit counts past 2^32, rank 0's
// value everywhere, and texts of any length (none, and longer than one message's usual size)
// gathered on rank 0 in rank order.
TEST(MpiSession, SumsExactlyBroadcastsAndGathersTextsOfAnyLength) {
  const auto& mpi = test::mpi();
  const auto r = static_cast<std::uint64_t>(mpi.rank()), n = static_cast<std::uint64_t>(mpi.size());
  EXPECT_EQ(mpi.sum_over_ranks({r, 1, r << 40}), (std::vector<std::uint64_t>{n * (n - 1) / 2, n, (n * (n - 1) / 2) << 40}));
  EXPECT_EQ(mpi.from_rank0(r == 0 ? 0xFEDCBA9876543210ULL : r), 0xFEDCBA9876543210ULL);
  // 128-bit sums, exact: sums whose 32-bit limbs carry, up to just below 2^128.
  const core::Total top = ~core::Total{0} / n, big = core::from_halves(0xFFFFFFFFFFFFFFFFULL, 0xFFFFFFFF00000000ULL) >> 1;
  EXPECT_EQ(mpi.sum_totals_over_ranks({top - r, core::Total{r} << 64 | 0xFFFFFFFFFFFFFFFFULL, big >> 4}),
            (std::vector<core::Total>{top * n - n * (n - 1) / 2, (core::Total{n * (n - 1) / 2} << 64) + core::Total{n} * 0xFFFFFFFFFFFFFFFFULL,
                                      (big >> 4) * n}));
  if (n > 1) {   // past 2^128 every rank throws alike
    EXPECT_THROW(mpi.sum_totals_over_ranks({core::Total{1} << 127}), std::overflow_error);
  }
  const auto text_of = [](std::uint64_t rank) { return std::string(rank * 100000, static_cast<char>('a' + rank)); };
  const auto texts = mpi.gather_text(text_of(r));
  if (mpi.rank() != 0) {
    EXPECT_TRUE(texts.empty());
    return;
  }
  ASSERT_EQ(texts.size(), n);
  for (std::uint64_t k = 0; k < n; ++k) EXPECT_EQ(texts[k], text_of(k)) << "rank " << k;
}

// `count` joins MPI only where a launcher says it started several ranks: under mpirun its
// variable gives this job's size; srun's and PMI's are read too, and a value that is no number
// above 1 means alone.
TEST(MpiSession, LaunchedRanksAreReadFromTheLaunchersEnvironment) {
  const auto& mpi = test::mpi();
  EXPECT_EQ(cluster::launched_ranks(), mpi.size());
  const char* names[] = {"OMPI_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS", "PMI_SIZE"};
  std::map<std::string, std::string> saved;
  for (const char* name : names)
    if (const char* v = std::getenv(name)) saved[name] = v;
  for (const char* name : names) unsetenv(name);
  EXPECT_EQ(cluster::launched_ranks(), 1);
  for (const char* name : names) {
    setenv(name, "12", 1);
    EXPECT_EQ(cluster::launched_ranks(), 12) << name;
    for (const char* v : {"1", "0", "-3", "4x", ""}) {
      setenv(name, v, 1);
      EXPECT_EQ(cluster::launched_ranks(), 1) << name << "=" << v;
    }
    unsetenv(name);
  }
  for (const auto& [name, value] : saved) setenv(name.c_str(), value.c_str(), 1);
}
