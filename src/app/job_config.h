// The settings of one `nqueens run`: read from a TOML job file (jobs/*.toml), then overridden
// by command-line flags. Every value is checked here, once, at the boundary.
#pragma once
#include <optional>
#include <string>

namespace nq::app {

struct JobConfig {
  int n = 0;                        // required
  std::string mode = "count";       // count | boards
  std::string out;                  // default: results/nqueens-n<N>-<mode>.h5
  int depth = 0;                    // 0: chosen from N (see default_run_depth)
  int threads = 0;                  // per worker rank; 0: the node's cores shared by its ranks
  std::string boards = "all";       // boards mode: all | class
  std::string symmetry;             // none | mirror | full; "": full (the whole symmetry group, ~1/8 of the tree)
  double progress_interval = 5.0;   // seconds between progress lines
  double checkpoint_interval = 2.0; // seconds between journal syncs (fsync): work lost to a crash
  double audit = 1.0 / 64;          // share of units computed twice, on two workers (0..1)
  int shard_index = 0, shard_count = 1;
  bool force = false;               // overwrite a complete result
  std::string time_limit;           // for slurm/submit only
};

// Parses a job file; throws Failure(kUsage) naming the file, the key and what is wrong
// (unknown key, wrong type, value out of range, TOML syntax error with line).
JobConfig read_job_file(const std::string& path);

// Checks the merged configuration and fills in defaults; throws Failure(kUsage).
void finalize_config(JobConfig& c);

// What the result file stores: "none" in count mode, else the `boards` setting.
inline std::string boards_stored(const JobConfig& c) { return c.mode == "boards" ? c.boards : "none"; }

// "i/n" -> (i, n) with 0 <= i < n; throws Failure(kUsage).
std::pair<int, int> parse_shard(const std::string& s);

}  // namespace nq::app
