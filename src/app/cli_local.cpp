// `nqueens solve` (the classic behaviour) and `nqueens count` (threaded count; the ranks share it
// under a launcher).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include "app/commands.h"
#include "app/compute_need.h"
#include "app/exit_codes.h"
#include "app/job_config.h"
#include "app/plan_limits.h"
#include "app/progress.h"
#include "app/rank_share.h"
#include "app/report.h"
#include "cluster/layout.h"
#include "cluster/runtime.h"
#include "core/known_counts.h"
#include "core/parallel.h"
#include "core/solve.h"
#include "core/symmetry.h"

namespace nq::app {
namespace {

void print_board(core::BoardView b, const std::string& format, bool first) {
  if (format == "columns") {
    std::cout << core::to_columns(b) << "\n";
  } else if (format == "json") {
    std::cout << (first ? "" : ",\n") << "  " << core::to_columns(b);
  } else {
    std::cout << (first ? "" : "\n") << core::to_matrix(b);
  }
}

}  // namespace

void add_solve_command(CLI::App& cli, Runner& run) {
  struct Opts {
    int n = 0;
    bool all = false;
    std::string format = "matrix";
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = cli.add_subcommand("solve", "Print the first solution (or all) for an N x N board");
  cmd->add_option("N", o->n, "board size, 1..32")->required()->check(board_size());
  cmd->add_flag("--all", o->all, "print every solution, in column-by-column order");
  cmd->add_option("--format", o->format, "matrix (0/1 rows), columns ([c0, c1, ...]) or json")
      ->check(CLI::IsMember({"matrix", "columns", "json"}));
  cmd->callback([o, &run] {
    run = [o] {
      const bool json = o->format == "json";
      if (json) std::cout << "{\"n\": " << o->n << ", \"solutions\": [\n";
      bool first = true;
      const core::Count printed = core::for_each_solution(o->n, [&](core::BoardView b) {
        print_board(b, o->format, first);
        first = false;
        return o->all && stdout_good();   // a write failed: nobody reads the rest
      });
      if (json) std::cout << (printed ? "\n" : "") << "]}\n";
      // The matrix's closing line is on stdout (the classic output); the columns' on stderr, so
      // that stdout holds only boards, one a line, for a program to read.
      std::ostream& note = o->format == "columns" ? std::cerr : std::cout;
      if (printed == 0 && !json) note << "No solution exists for N = " << o->n << ".\n";
      else if (o->all && !json) note << (o->format == "matrix" ? "\n" : "") << printed
                                     << (printed == 1 ? " solution" : " solutions") << " for N = " << o->n << ".\n";
      return int(kOk);
    };
  });
}

namespace {

struct CountOptions {
  int n = 0;
  int threads = 0;
  int depth = 0;
  bool quiet = false;
};

// The units of `plan` (of `units_total`) that rank `rank` of `ranks` counts: all of them on one
// rank. Streamed from the plan into a vector of their exact number, so that a rank holds only its
// share, and only the bytes the plan's memory check counted (48 a unit). Until session 46 one
// process grew the vector unit by unit (plan.units()): up to 3x those bytes while it doubled,
// and a plan the check let through died of std::bad_alloc or the OOM killer.
std::vector<core::WorkUnit> units_of_rank(const core::UnitPlan& plan, std::uint64_t units_total, int rank, int ranks) {
  const std::vector<RowSpan> share = rank_share({{0, units_total}}, rank, ranks);
  std::vector<core::WorkUnit> mine;
  mine.reserve(rows_in(share));
  core::UnitCursor cursor(plan);
  core::WorkUnit u;
  for (auto span = share.begin(); span != share.end() && cursor.next(u);) {   // ids 0, 1, 2, ...
    if (u.id >= span->end && ++span == share.end()) break;
    if (u.id >= span->begin) mine.push_back(u);
  }
  return mine;
}

// The parameters of a count of `plan` (count mode), for the estimates that go by a job's.
core::JobParams count_job(const core::UnitPlan& plan) {
  core::JobParams params;
  params.n = plan.n();
  params.depth = plan.depth();
  params.symmetry = plan.symmetry();
  return params;
}

// Counts `units` of `plan` (a plan of `units_total`) on `threads` threads; a progress line on
// stderr every 2 s when `label` is set.
core::PlanTotals count_with_progress(const core::UnitPlan& plan, const std::vector<core::WorkUnit>& units,
                                     std::uint64_t units_total, int threads, const std::optional<std::string>& label) {
  const core::JobParams params = count_job(plan);
  ProgressState state;
  const double share = static_cast<double>(units.size()) / static_cast<double>(std::max<std::uint64_t>(units_total, 1));
  expect_totals(state, params, units_total, share);
  std::unique_ptr<ProgressLine> line;
  return core::count_units(plan, units, threads, [&](const core::Progress& p) {
    if (!label) return;
    if (!line) line = std::make_unique<ProgressLine>(*label);
    state.units_done = p.units_done;
    state.units_total = p.units_total;
    state.solutions = p.solutions;
    state.nodes = p.nodes;
    state.seconds = p.seconds;
    state.busy_seconds = p.busy_seconds;
    state.threads = p.threads;
    line->report(state);
  });
}

// One process counts the plan on its threads. Under a launcher with several ranks (mpirun, srun)
// every rank makes the same plan and counts its rank_share of the units, and rank 0 adds up the
// ranks' counts and prints them (until session 33 every rank counted the whole plan, and printed it).
int count_units_here(const CountOptions& o) {
  std::optional<cluster::MpiSession> mpi;
  if (cluster::launched_ranks() > 1) mpi.emplace(cluster::MpiSession::Ranks::peers);
  const int rank = mpi ? mpi->rank() : 0, ranks = mpi ? mpi->size() : 1;
  const int threads = o.threads ? o.threads : mpi ? mpi->default_threads() : core::usable_cpus();
  // The plan's default depth goes by the job's threads, so that every rank makes the same plan.
  const std::uint64_t all_threads =
      mpi ? mpi->sum_over_ranks({static_cast<std::uint64_t>(threads)})[0] : static_cast<std::uint64_t>(threads);
  // The plan, from the arguments alone: the same on every rank, so only rank 0 says what is wrong
  // with it, and every rank ends with the code. Rank 0 says it here, before `mpi` ends: MPI_Finalize
  // waits for every rank, and mpirun kills the job once one rank has left with a non-zero code
  // (rethrown, the message came after the finalize, and 1 run in 10 lost it).
  std::optional<core::UnitPlan> plan;
  std::uint64_t units_total = 0;
  try {
    if (o.depth > o.n)
      throw ExitError(kUsage, "--depth " + std::to_string(o.depth) + " exceeds N = " + std::to_string(o.n));
    constexpr auto kSymmetry = core::Symmetry::full;   // the fastest exact plan (see core/units.h)
    plan.emplace(o.n, o.depth ? o.depth : core::default_depth(o.n, 64 * all_threads, kSymmetry), kSymmetry);
    units_total = checked_plan_size(*plan, count_cost(), {}, rank == 0 && !o.quiet);
  } catch (...) {
    return rank == 0 ? report_current_exception() : describe_current_exception().code;
  }
  if (rank == 0 && o.threads)
    if (const auto w = mpi ? mpi->threads_warning(o.threads) : cluster::oversubscription_warning(1, o.threads, core::usable_cpus()))
      std::cerr << "nqueens: warning: " << *w << "\n";
  int code = kOk;
  try {   // an error from here on, on one of several ranks, ends all of them: the others would wait
    const auto start = std::chrono::steady_clock::now();
    // Rank 0's progress stands for the job's (the shares are dealt alike).
    const auto label = o.quiet || rank != 0 ? std::nullopt
                                            : std::optional<std::string>(ranks > 1 ? "count, rank 0's share" : "count");
    if (rank == 0 && !o.quiet) note_long_count(std::cerr, count_job(*plan), units_total, all_threads, time_nodes_here);
    const auto units = units_of_rank(*plan, units_total, rank, ranks);
    core::PlanTotals totals = count_with_progress(*plan, units, units_total, threads, label);
    if (mpi) {
      const auto sums = mpi->sum_totals_over_ranks({totals.total, totals.nodes});
      totals = {sums[0], sums[1]};
    }
    if (rank == 0) {
      const auto fixed = core::count_rotation_fixed(o.n, {}, threads);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const CountReport r{o.n, totals.total, core::unique_from_burnside(o.n, totals.total, fixed), fixed, seconds,
                          totals.nodes, static_cast<int>(all_threads), units_total, plan->depth()};
      print_count_report(std::cout, r);
      if (ranks > 1)   // as `run` says it
        std::cout << "layout   " << ranks << " rank(s), " << all_threads << " compute thread(s) on " << mpi->host_list() << "\n";
      if (known_match(r) == core::KnownMatch::mismatch) code = kVerifyFailed;
      code = checked_stdout(code);   // out before the session ends, and its code every rank's
    }
  } catch (...) {
    if (ranks > 1) mpi->abort(report_current_exception(mpi->where()));
    throw;
  }
  return mpi ? static_cast<int>(mpi->from_rank0(static_cast<std::uint64_t>(code))) : code;
}

}  // namespace

void add_count_command(CLI::App& cli, Runner& run) {
  auto o = std::make_shared<CountOptions>();
  auto* cmd = cli.add_subcommand("count", "Count all and unique solutions (threads; under mpirun or srun, "
                                          "the ranks share the units)");
  cmd->add_option("N", o->n, "board size, 1..32")->required()->check(board_size());
  cmd->add_option("--threads", o->threads, "worker threads (default: the CPUs this process may run on, its affinity mask; "
                                           "under a launcher, its share of its node's)")
      ->check(whole_number("--threads", 1, kMaxThreads));
  cmd->add_option("--depth", o->depth, "rows per work unit (default: chosen from N and threads)")
      ->check(whole_number("--depth", 1, core::kMaxN));
  cmd->add_flag("--quiet", o->quiet, "no progress line");
  cmd->callback([o, &run] { run = [o] { return count_units_here(*o); }; });
}

}  // namespace nq::app
