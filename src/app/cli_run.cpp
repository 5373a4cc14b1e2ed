// `nqueens run` (the distributed job), `nqueens merge` (shard files) and `nqueens info`.
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include "app/check.h"
#include "app/commands.h"
#include "app/exit_codes.h"
#include "app/job_config.h"
#include "app/merge.h"
#include "app/result_files.h"
#include "app/run_job.h"
#include "app/signals.h"
#include "core/known_counts.h"
#include "core/symmetry.h"
#include "core/types.h"

namespace nq::app {

void add_run_command(CLI::App& cli, Runner& run) {
  struct Opts {
    std::string job_file;
    std::optional<int> n, depth, threads;
    std::optional<std::string> mode, out, boards, symmetry, shard, status_file;
    std::optional<double> progress, checkpoint, audit;
    double lock_wait = 0;
    bool force = false, skip_complete = false, dry_run = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = cli.add_subcommand("run", "Run the distributed job (under mpirun/srun, or as one process)");
  cmd->add_option("JOB", o->job_file, "job file (TOML, see jobs/); flags override its values")->check(file_path("JOB"));
  cmd->add_option("--n", o->n, "board size, 1..32")->check(board_size());
  cmd->add_option("--mode", o->mode, "count (totals) or boards (store every solution)")
      ->check(CLI::IsMember(core::names_of<core::Mode>()));
  cmd->add_option("--out", o->out, "result file (HDF5); default results/nqueens-n<N>-<mode>.h5")->check(file_path("--out"));
  cmd->add_option("--depth", o->depth, "rows pre-placed per work unit (default: from N)")
      ->check(whole_number("--depth", 1, core::kMaxN));
  cmd->add_option("--threads", o->threads, "compute threads per worker rank (default: its share of the CPUs the node's ranks may run on)")
      ->check(whole_number("--threads", 1, kMaxThreads));
  cmd->add_option("--boards", o->boards, "boards mode: all, or class (one per symmetry class)")
      ->check(CLI::IsMember(core::names_of<core::BoardSet>()));
  cmd->add_option("--symmetry", o->symmetry, "work-unit symmetry reduction: none, mirror or full")
      ->check(CLI::IsMember(core::names_of<core::Symmetry>()));
  cmd->add_option("--shard", o->shard, "run only shard i of n (units with id % n == i), e.g. 0/4");
  cmd->add_option("--progress-interval", o->progress, "seconds between progress lines")
      ->check(number("--progress-interval"));
  cmd->add_option("--checkpoint-interval", o->checkpoint,
                  "seconds between journal syncs (default 2): at most this much work is lost to a crash")
      ->check(number("--checkpoint-interval"));
  cmd->add_option("--audit", o->audit,
                  "share of units (0..1, default 1/64) computed a second time by another worker and compared")
      ->check(number("--audit"));
  cmd->add_flag("--force", o->force, "recompute the result and replace the result file at --out: a complete one, or a partial one "
                "that the run would not resume (other parameters, or a boards job's whose journal is gone); "
                "another job's journal is discarded, this job's (a stopped --force run's) resumed: remove it to "
                "recompute those units too");
  cmd->add_flag("--skip-complete", o->skip_complete,
                "a complete result of this same job already at --out counts as done: exit 0 without running "
                "(of other parameters: refused, exit 5); slurm/shard.sbatch passes it");
  cmd->add_option("--lock-wait", o->lock_wait,
                  "seconds to wait for the journal when another process holds its lock (default 0: refuse at once); "
                  "a file server keeps the lock of a node that died until its lease ends (NFSv4: ~90 s)")
      ->check(number("--lock-wait"));
  cmd->add_option("--status-file", o->status_file,
                  "rank 0 writes the run's exit code and the units it journaled (one line: CODE UNITS) to this file "
                  "as the run ends: a batch script that finds no code there knows the run never got that far "
                  "(e.g. srun reported a failed launch as success); an existing file there must be one such line (never another file replaced)")
      ->check(file_path("--status-file"));
  cmd->add_flag("--dry-run", o->dry_run,
                "check the job and count its plan's work units, then print what a run needs (the memory of its master "
                "and of a sharded job's merge, the disk beside --out, the core-hours of its search at the pace timed "
                "here) and exit 0: nothing is run or written, no MPI "
                "is started; slurm/submit runs it before it queues a job");
  cmd->callback([o, &run] {
    run = [o] {
      // The job: its file with the flags over it. Only rank 0 (the master) reads it; the workers
      // take the job from the master, so the file need only be readable where rank 0 runs, and an
      // error in it is said once, by rank 0, which ends the job (run_job).
      const auto job = [o] {
        JobConfig c = o->job_file.empty() ? JobConfig{} : read_job_file(o->job_file);
        core::JobParams& p = c.params;
        // A flag's value is no longer the file's (finalize_config names each where it was given).
        const auto flag = [&c](const auto& given, const char* key, auto&& set) {
          if (!given) return;
          set(*given);
          c.file_keys.erase(key);
          c.flag_keys.insert(key);
        };
        flag(o->n, "n", [&](int v) { p.n = v; });
        flag(o->mode, "mode", [&](const std::string& v) { p.mode = core::from_string<core::Mode>(v); });   // names checked by CLI11 above
        flag(o->out, "out", [&](const std::string& v) { c.out = v; });
        flag(o->depth, "depth", [&](int v) { p.depth = v; });
        flag(o->threads, "threads", [&](int v) { c.threads = v; });
        flag(o->boards, "boards", [&](const std::string& v) { p.boards = core::from_string<core::BoardSet>(v); });
        flag(o->symmetry, "symmetry", [&](const std::string& v) { p.symmetry = core::from_string<core::Symmetry>(v); });
        flag(o->shard, "shard", [&](const std::string& v) { p.shard = parse_shard(v, "--shard"); });
        if (o->status_file) c.status_file = *o->status_file;   // checked in finalize_config
        flag(o->progress, "progress_interval", [&](double v) { c.progress_interval = v; });
        flag(o->checkpoint, "checkpoint_interval", [&](double v) { c.checkpoint_interval = v; });
        flag(o->audit, "audit", [&](double v) { c.audit = v; });
        c.force = o->force;
        c.skip_complete = o->skip_complete;
        c.lock_wait = o->lock_wait;
        return c;
      };
      if (o->dry_run) {   // every rank runs it under a launcher: the first reads the job and speaks for all
        if (cluster::launched_rank() != 0) return int(kOk);
        return dry_run(job());
      }
      // A stop signal during MPI start-up must not kill the master: catch it from here on (the
      // flag is checked once the job runs; workers switch to ignoring it in run_job).
      install_master_signals();
      ignore_lost_readers();   // (every rank: a worker's stderr can be a pipe too)
      const cluster::MpiSession mpi;
      RunEnd end;
      try {
        end = run_job(job, mpi);
      } catch (...) {
        // The other ranks wait for this one: end them all, or the job hangs until its limit.
        if (mpi.size() > 1)
          mpi.abort(report_current_exception(mpi.where()));
        end.code = report_current_exception();
      }
      if (end.abort_job) mpi.abort(end.code);   // (the end is recorded: run_job)
      return end.code;
    };
  });
}

void add_info_command(CLI::App& cli, Runner& run) {
  auto file = std::make_shared<std::string>();
  auto* cmd = cli.add_subcommand("info", "Print the provenance and totals of a result file");
  cmd->add_option("FILE", *file, "an nqueens result file (.h5)")->required()->check(file_path("FILE"));
  cmd->callback([file, &run] {
    run = [file] {
      store::RunInfo i;
      try {
        i = store::ResultReader(*file).info();
      } catch (const store::NotAResultFile& e) {
        throw ExitError(kBadInput, e.what());
      }
      const auto row = [](const char* k, const auto& v) { std::cout << std::left << std::setw(16) << k << v << "\n"; };
      row("file", *file);
      const core::JobParams& p = i.params;
      row("status", core::to_string(i.status));
      row("N", p.n);
      row("mode", core::to_string(p.mode) + (p.boards_mode() ? " (" + core::boards_stored(p) + ")" : ""));
      row("total", core::to_decimal(i.total));
      const bool whole_result = i.status == store::Status::complete && p.shard.whole();
      const CountsNow now = counts_now(i);   // the file may be edited: unique and matches said again
      std::string unique = whole_result ? core::to_decimal(i.unique) : "-";
      if (!now.burnside.empty()) unique += " (" + now.burnside + ": the file was changed after it was written)";
      row("unique", unique);
      row("P, R", std::to_string(i.rot180_fixed) + ", " + std::to_string(i.rot90_fixed));
      row("published", i.known_total >= 0 ? std::to_string(i.known_total) + " / " + std::to_string(i.known_unique) : "none");
      std::string matches = core::to_string(i.matches_known);
      if (now.matches != i.matches_known)
        matches = core::to_string(now.matches) + " (the file says " + matches + ": it was changed after it was written)";
      row("matches", matches);
      row("units", std::to_string(i.units_done) + " of " + std::to_string(i.units_total) +
                       (p.shard.whole() ? "" : " (shard " + core::to_string(p.shard) + ")"));
      row("work units", "depth " + std::to_string(p.depth) + ", symmetry " + core::to_string(p.symmetry));
      // `threads` is per worker rank: with several ranks the master hands out the units and computes none.
      const std::string threads = std::to_string(i.threads) + " compute thread(s)";
      row("layout", (i.ranks > 1 ? std::to_string(i.ranks) + " ranks: a master and " + std::to_string(i.ranks - 1) +
                                       " worker(s) x " + threads
                                 : "1 process x " + threads) +
                        " on " + i.hosts);
      row("time", i.start_time + " .. " + i.end_time + " (" + std::to_string(i.wall_seconds) + " s wall)");
      row("program", i.program_version + " (" + i.git_commit + ")");
      return int(kOk);
    };
  });
}

void add_merge_command(CLI::App& cli, Runner& run) {
  struct Opts {
    std::string out;
    std::vector<std::string> shards;
    bool force = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = cli.add_subcommand("merge", "Combine the shard files of one job into one result file");
  cmd->add_option("OUT", o->out, "merged result file")->required()->check(file_path("OUT"));
  cmd->add_option("SHARDS", o->shards, "shard result files (from run --shard i/n)")->required()->check(file_path("SHARD"));
  cmd->add_flag("--force", o->force, "overwrite a complete result file at OUT");
  cmd->callback([o, &run] { run = [o] { return merge_shards(o->out, o->shards, o->force); }; });
}

void add_check_command(CLI::App& cli, Runner& run) {
  struct Opts {
    CheckOptions check;
    std::string units, kernel = "other";
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = cli.add_subcommand("check", "Recount units of a result file with an independent kernel and compare");
  cmd->add_option("FILE", o->check.file, "an nqueens result file (.h5)")->required()->check(file_path("FILE"));
  auto* sample = cmd->add_option("--sample", o->check.sample, "recount this many units drawn at random (default 16)")
                     ->check(whole_number("--sample", 1, 1LL << 40));
  // Checked while parsing, so that a malformed list is a usage error said once under a launcher.
  auto* units = cmd->add_option("--units", o->units, "recount these unit ids, e.g. 12,40-49")
                    ->check(CLI::Validator(
                        [](std::string& s) {
                          try {
                            parse_unit_ranges(s);
                          } catch (const ExitError& e) {
                            return std::string(e.what());
                          }
                          return std::string();
                        },
                        "LIST"));
  auto* all = cmd->add_flag("--all", o->check.all, "recount every unit of the file");
  sample->excludes(units)->excludes(all);
  units->excludes(all);
  // Checked as a whole number: CLI11 took -1 and 99999999999999999999999 as 2^64-1.
  cmd->add_option("--seed", o->check.seed, "seed of --sample's draw (default: random, and printed)")
      ->check(whole_number("--seed", 0, std::numeric_limits<long long>::max()))
      ->excludes(units)   // (it draws nothing there: it was ignored)
      ->excludes(all);
  // other: none given, check_units picks another than the one runs use here.
  static const std::map<std::string, std::optional<core::KernelChoice>> kKernels{
      {"other", std::nullopt},
      {"scalar", core::KernelChoice::scalar},
      {"avx2", core::KernelChoice::avx2},
      {"fastest", core::KernelChoice::fastest}};
  cmd->add_option("--kernel", o->kernel,
                  "other (default): another than runs use here (AVX2 where the CPU has AVX-512, else scalar); "
                  "scalar: the plain search; avx2; fastest: the one runs use")
      ->check(CLI::IsMember(kKernels));
  cmd->add_option("--threads", o->check.threads, "threads (default: the CPUs this process may run on)")
      ->check(whole_number("--threads", 1, kMaxThreads));
  cmd->add_flag("--quiet", o->check.quiet, "no progress line on stderr (every 2 s otherwise)");
  cmd->callback([o, &run] {
    run = [o] {
      CheckOptions c = o->check;
      if (!o->units.empty()) c.ranges = parse_unit_ranges(o->units);   // (checked above)
      c.kernel = kKernels.at(o->kernel);
      const cluster::MpiSession mpi(cluster::MpiSession::Ranks::peers);   // under mpirun/srun the ranks share the units
      return check_units(c, mpi);
    };
  });
}

}  // namespace nq::app
