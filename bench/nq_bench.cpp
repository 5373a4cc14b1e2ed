// nq_bench: times the project's counting path (UnitPlan + count_plan over all units, what
// `nqueens count` runs) against the plain mirror-only recursive reference kernel
// (core::reference_total) on the same N in the same process, and checks both totals against
// the published table. Machines are shared and noisy: always read the ratio, not the seconds.
//
//   nq_bench --n 16,17 [--threads 1,2] [--reps 3] [--symmetry full|mirror|none] [--depth D]
//            [--kernel auto|scalar] [--ref-nodes]
//
// Exit codes: 0 all totals match the table, 1 a total differs, 2 bad usage.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>
#include "core/kernel.h"
#include "core/known_counts.h"
#include "core/parallel.h"
#include "core/units.h"
#include "command_line.h"

namespace core = nq::core;

namespace {

struct Options {
  std::vector<int> sizes{16};
  std::vector<int> threads;   // default: 1 and all hardware threads
  int reps = 3;
  core::Symmetry symmetry = core::Symmetry::full;
  int depth = 0;              // 0: core::default_depth(n, 64 * threads, symmetry), as `nqueens count`
  bool ref_nodes = false;
  bool scalar = false;        // --kernel scalar: our counting path without the vector kernel
  bool plans = false;         // --plans: print the default `nqueens run` plans, time nothing
};

// The command line (CLI11, as `nqueens`): the options write into `o`, and the two names
// (`symmetry`, `kernel`) that finish_options turns into values once parsed.
struct CommandLine {
  Options o;
  std::string symmetry = "full", kernel = "auto";
  CLI::App app{
      "Times UnitPlan + count_plan (the `nqueens count` path) against the plain mirror-only\n"
      "recursive reference kernel on the same N; prints median seconds, nodes and the ratio\n"
      "ours/reference, and checks both totals against the published table.",
      "nq_bench"};

  CommandLine() {
    app.footer("Also: nq_bench --plans --n 18,19,20 [--symmetry full]\n"
               "Exit codes: 0 all totals match the table, 1 a total differs, 2 bad usage.");
    app.add_option("--n", o.sizes, "board sizes, comma-separated (default 16)")
        ->delimiter(',')
        ->check(CLI::Range(1, core::kMaxN));
    app.add_option("--threads", o.threads, "thread counts, comma-separated (default: 1 and every usable CPU)")
        ->delimiter(',')
        ->check(CLI::PositiveNumber);
    app.add_option("--reps", o.reps, "repetitions per row, the median is printed (default 3)")
        ->check(CLI::PositiveNumber);
    app.add_option("--symmetry", symmetry, "the plan's symmetry (default full)")
        ->check(CLI::IsMember({"full", "mirror", "none"}));
    app.add_option("--depth", o.depth, "rows per work unit (default: as `nqueens count` chooses)")
        ->check(CLI::PositiveNumber);
    app.add_option("--kernel", kernel, "auto: the vector kernel the CPU allows (AVX-512, else AVX2); scalar: never")
        ->check(CLI::IsMember({"auto", "scalar"}));
    app.add_flag("--ref-nodes", o.ref_nodes, "also count the reference's nodes (one extra, untimed reference run)");
    app.add_flag("--plans", o.plans,
                 "only print the default plan of `nqueens run` per N (depth, units); used by bench/capacity.py");
  }

  // After app.parse: the names turned into values, the default thread counts filled in.
  Options finish() {
    o.symmetry = core::from_string<core::Symmetry>(symmetry);
    o.scalar = kernel == "scalar";
    if (o.threads.empty()) {
      o.threads = {1};
      if (core::usable_cpus() > 1) o.threads.push_back(core::usable_cpus());
    }
    return o;
  }
};

// The reference kernel on `threads` threads: its first-row loop (the columns of the left half,
// and the middle one for odd n) is split dynamically over the threads, middle columns (the
// largest parts) first. The single place where the reference is parallelised; threads == 1
// runs the same loop on the calling thread.
core::SearchStats reference_on_threads(int n, int threads, bool count_nodes) {
  const int columns = (n + 1) / 2;
  std::atomic<core::Count> total{0}, nodes{0};
  auto column = [&](std::size_t i) {
    const int c = columns - 1 - static_cast<int>(i);
    const core::Count weight = (n % 2 && c == n / 2) ? 1 : 2;
    core::SearchStats part;
    if (count_nodes)
      part = core::reference_first_row_nodes(n, c);
    else
      part.solutions = core::reference_first_row(n, c);
    total += weight * part.solutions;
    nodes += part.nodes;
  };
  if (threads <= 1) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(columns); ++i) column(i);
  } else {
    core::parallel_for(static_cast<std::size_t>(columns), threads, column);
  }
  return {total.load(), nodes.load()};
}

template <class F>
double seconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : (v[k - 1] + v[k]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  CommandLine cli;
  if (const auto code = nq::bench::parse_command_line(cli.app, argc, argv)) return *code;
  const Options o = cli.finish();
  if (o.plans) {
    std::printf("%3s %-8s %5s %12s\n", "N", "symmetry", "depth", "units");
    for (int n : o.sizes) {
      const int depth = core::default_run_depth(n, o.symmetry);
      std::printf("%3d %-8s %5d %12llu\n", n, core::to_string(o.symmetry).c_str(), depth,
                  static_cast<unsigned long long>(core::UnitPlan(n, depth, o.symmetry).size()));
    }
    return 0;
  }
#if defined(__clang__)
  std::string compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
  std::string compiler = "gcc " __VERSION__;
#else
  std::string compiler = "unknown compiler";
#endif
  while (!compiler.empty() && compiler.back() == ' ') compiler.pop_back();
  core::choose_kernel(o.scalar ? core::KernelChoice::scalar : core::KernelChoice::fastest);
  std::printf("nq_bench: %s; kernel %s; %d hardware threads; %d reps, median\n", compiler.c_str(),
              o.scalar ? "scalar (--kernel scalar)" : core::kernel_name(),
              core::usable_cpus(), o.reps);
  std::printf("%3s %3s %-8s %5s %7s %9s %9s %7s %14s %14s %14s %s\n", "N", "thr", "symmetry",
              "depth", "units", "ours[s]", "ref[s]", "ratio", "ours nodes", "ref nodes", "total",
              "check");
  bool all_ok = true;
  for (int n : o.sizes) {
    const auto known = core::known_counts(n);
    for (int t : o.threads) {
      const int depth = o.depth ? std::min(o.depth, n)
                                : core::default_depth(n, 64ULL * static_cast<unsigned>(t), o.symmetry);
      const core::UnitPlan plan(n, depth, o.symmetry);
      std::vector<double> ours_s, ref_s;
      core::PlanTotals ours{};
      core::Count ref_total = 0;
      for (int r = 0; r < o.reps; ++r) {   // alternate, so drifting load hits both alike
        ours_s.push_back(seconds([&] { ours = core::count_plan(plan, t); }));
        ref_s.push_back(seconds([&] { ref_total = reference_on_threads(n, t, false).solutions; }));
      }
      std::string ref_nodes = "-";
      if (o.ref_nodes) {
        const auto counted = reference_on_threads(n, t, true);
        ref_nodes = std::to_string(counted.nodes);
        if (counted.solutions != ref_total) ref_total = ~core::Count{0};   // cannot happen
      }
      const bool ok = known && ours.total == known->total && ref_total == known->total;
      all_ok = all_ok && ok;
      const double ours_m = median(ours_s), ref_m = median(ref_s);
      std::printf("%3d %3d %-8s %5d %7llu %9.3f %9.3f %7.3f %14s %14s %14llu %s\n", n, t,
                  core::to_string(o.symmetry).c_str(), depth,
                  static_cast<unsigned long long>(plan.size()), ours_m, ref_m, ours_m / ref_m,
                  core::to_decimal(ours.nodes).c_str(), ref_nodes.c_str(),
                  static_cast<unsigned long long>(ours.total),
                  ok ? "ok" : (known ? "MISMATCH (published " + std::to_string(known->total) +
                                           ", reference " + std::to_string(ref_total) + ")"
                                     : std::string("no published count"))
                               .c_str());
      std::fflush(stdout);
    }
  }
  return all_ok ? 0 : 1;
}
