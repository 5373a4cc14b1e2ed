// The settings of one `nqueens run`: read from a TOML job file (jobs/*.toml), then overridden
// by command-line flags. Every value is checked here, once, at the boundary.
#pragma once
#include <optional>
#include <set>
#include <string>
#include "core/job_params.h"

namespace nq::app {

inline constexpr double kMaxLockWait = 86400;   // seconds: a day
inline constexpr int kMaxThreads = 4096;        // compute threads a rank (--threads, key threads)

struct JobConfig {
  // n is required; depth 0: chosen from N (see default_run_depth); symmetry defaults to full
  // (the whole symmetry group, ~1/8 of the tree); boards (all | class) matters in boards mode only.
  core::JobParams params;
  std::string out;                  // default: results/nqueens-n<N>-<mode>.h5
  int threads = 0;                  // per worker rank; 0: the node's cores shared by its ranks
  double progress_interval = 5.0;   // seconds between progress lines
  double checkpoint_interval = 2.0; // seconds between journal syncs (fsync): work lost to a crash
  double audit = 1.0 / 64;          // share of units computed twice, on two workers (0..1)
  bool force = false;               // overwrite a complete result
  bool skip_complete = false;       // a complete result of this same job at `out` is done: exit 0
  double lock_wait = 0;             // seconds to wait for a journal another process holds (--lock-wait)
  std::string time_limit;           // for slurm/submit only
  std::string job_file;             // the file these settings came from, if any
  std::set<std::string> file_keys;  // the keys whose values are the job file's (no flag over them)
  std::set<std::string> flag_keys;  // the keys given as flags (over the file's, if any)
  std::optional<std::string> status_file;   // run --status-file: where rank 0 records the end
};

// Parses a job file; throws ExitError(kUsage) naming the file, the key and what is wrong
// (unknown key, wrong type, value out of range, TOML syntax error with line).
JobConfig read_job_file(const std::string& path);

// Checks the merged configuration and fills in defaults (the board set is `all` in count mode,
// so equal jobs have equal parameters); throws ExitError(kUsage), naming each setting where it
// was given: the flag, or the job file's key (file_keys).
void finalize_config(JobConfig& c);

// "i/n" with 0 <= i < n; throws ExitError(kUsage) starting with `what` (the flag or the key).
core::Shard parse_shard(const std::string& s, const std::string& what);

}  // namespace nq::app
