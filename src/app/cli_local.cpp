// `nqueens solve` (the classic behaviour) and `nqueens count` (local threaded count).
#include <chrono>
#include <iostream>
#include <memory>
#include "app/commands.h"
#include "app/exit_codes.h"
#include "app/plan_limits.h"
#include "app/progress.h"
#include "app/report.h"
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
        return o->all && std::cout.good();   // a write failed: nobody reads the rest
      });
      if (json) std::cout << (printed ? "\n" : "") << "]}\n";
      if (printed == 0 && !json) std::cout << "No solution exists for N = " << o->n << ".\n";
      else if (o->all && !json) std::cout << (o->format == "matrix" ? "\n" : "") << printed
                                          << " solutions for N = " << o->n << ".\n";
      return int(kOk);
    };
  });
}

void add_count_command(CLI::App& cli, Runner& run) {
  struct Opts {
    int n = 0;
    int threads = 0;
    int depth = 0;
    bool quiet = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = cli.add_subcommand("count", "Count all and unique solutions on this machine (threads)");
  cmd->add_option("N", o->n, "board size, 1..32")->required()->check(board_size());
  cmd->add_option("--threads", o->threads, "worker threads (default: the CPUs this process may run on, its affinity mask)")
      ->check(whole_number("--threads", 1, 4096));
  cmd->add_option("--depth", o->depth, "rows per work unit (default: chosen from N and threads)")
      ->check(whole_number("--depth", 1, core::kMaxN));
  cmd->add_flag("--quiet", o->quiet, "no progress line");
  cmd->callback([o, &run] {
    run = [o] {
      const int threads = o->threads ? o->threads : core::usable_cpus();
      if (o->depth > o->n)
        throw ExitError(kUsage, "--depth " + std::to_string(o->depth) + " exceeds N = " +
                                    std::to_string(o->n));
      // The full rotation/reflection reduction: the fastest exact plan (see core/units.h).
      constexpr auto kSymmetry = core::Symmetry::full;
      const int depth = o->depth ? o->depth : core::default_depth(o->n, 64ULL * threads, kSymmetry);
      const core::UnitPlan plan(o->n, depth, kSymmetry);
      const std::uint64_t units = checked_plan_size(plan, count_cost(), {});
      const auto start = std::chrono::steady_clock::now();
      std::unique_ptr<ProgressLine> line;
      core::JobParams params;   // count mode
      params.n = o->n;
      params.depth = depth;
      params.symmetry = kSymmetry;
      ProgressState state;
      expect_totals(state, params, units);
      const auto totals = core::count_plan(plan, threads, [&](const core::Progress& p) {
        if (o->quiet) return;
        if (!line) line = std::make_unique<ProgressLine>("count");
        state.units_done = p.units_done;
        state.units_total = p.units_total;
        state.solutions = p.solutions;
        state.nodes = p.nodes;
        state.seconds = p.seconds;
        state.busy_seconds = p.busy_seconds;
        state.threads = p.threads;
        line->report(state);
      });
      line.reset();
      const auto fixed = core::count_rotation_fixed(o->n, {}, threads);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      CountReport r{o->n, totals.total, core::unique_from_burnside(o->n, totals.total, fixed),
                    fixed, seconds, totals.nodes, threads, units, depth};
      print_count_report(std::cout, r);
      return known_match(r) == core::KnownMatch::mismatch ? int(kVerifyFailed) : int(kOk);
    };
  });
}

}  // namespace nq::app
