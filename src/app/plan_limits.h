// The limits on a plan that `nqueens run` and `nqueens count` check before they enumerate it or
// touch a file: a plan that cannot run is refused up front (exit 2, naming a depth that works
// and, for `run`, a --shard count), not after minutes of enumeration or an out-of-memory kill.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include "core/boards.h"
#include "core/job_params.h"
#include "core/stop.h"
#include "core/units.h"

namespace nq::app {

// Units per plan: every master (each shard's too) walks the whole plan at every start, to count
// it and to stream its units; 2^30 units take a few seconds here and keep the plan-wide bit
// tables at 128 MB each.
inline constexpr std::uint64_t kMaxPlanUnits = std::uint64_t{1} << 30;
// Memory of the master's per-unit tables: 16 GiB fit beside a worker on any current cluster node
// and hold the largest shipped job unsharded (jobs/count-n27.toml: 164 M units, 6.6 GB);
// --shard i/n divides the per-unit part by n.
inline constexpr std::uint64_t kMaxMasterBytes = std::uint64_t{16} << 30;

// The memory this process may use where something limits it: the job's memory on this node
// under Slurm (SLURM_MEM_PER_NODE, else SLURM_MEM_PER_CPU x SLURM_CPUS_ON_NODE, in megabytes:
// what --mem / --mem-per-cpu asked for) and the memory cgroup's limit (v2 memory.max, v1
// memory.limit_in_bytes, of this process's cgroup and its parents), the smallest. Past it the
// OOM killer ends the master, days into a large run, and again at every resume once the
// journal's units refill the table. A cluster that does not enforce memory still passes --mem.
struct MemoryLimit {
  double bytes = 0;
  std::string source;   // "SLURM_MEM_PER_NODE", "cgroup memory.max", ...
};
// Where memory_limit looks: an environment variable, a file's contents (nullopt: unset, absent).
struct MemorySources {
  std::function<std::optional<std::string>(const std::string&)> env, file;
};
std::optional<MemoryLimit> memory_limit(const MemorySources& from);
// Whose memory limits a master's tables: this process's (Slurm's variables and the memory cgroup),
// or the job's alone (Slurm's variables: `run --dry-run` plans a job on another machine than
// the one it runs on, e.g. a login node, whose own limits say nothing of the job's).
enum class MemoryOf { this_process, the_job };
std::optional<MemoryLimit> memory_limit(MemoryOf whose = MemoryOf::this_process);   // the environment, /proc and /sys
// The share of that memory the master's per-unit tables may take: the rest is for the process
// itself, its HDF5 and journal buffers, and the worker ranks on its node.
inline constexpr double kMemoryShare = 0.75;

// What the command keeps per unit.
struct PlanCost {
  const char* command;               // "run" or "count": which remedies the message names
  std::uint64_t bytes_per_unit;      // per unit of this master's shard
  std::uint64_t bits_per_plan_unit;  // bit tables over the whole plan
  int shard_count = 1;
  MemoryOf memory = MemoryOf::this_process;   // whose memory limits the tables, below kMaxMasterBytes
};
// `run`'s master: a UnitTable::Outcome per unit of its shard (sizeof: 40 bytes), and at most 2
// bits per unit of the plan: the table's done bit (per unit of the shard) and another while it
// streams the journal's boards into the result file. `merge` keeps the same for the whole job.
PlanCost run_cost(int shard_count);
// `count`: the vector of core::WorkUnit it hands to its threads.
PlanCost count_cost();

// `run --dry-run`: run_cost within the job's memory (MemoryOf::the_job).
PlanCost planned_run_cost(int shard_count);

// The memory a process keeping `table_bytes` of per-unit tables should be given: the table is at
// most kMemoryShare of it, and it is at least kMinJobBytes (the process itself, its HDF5 and
// journal buffers: a master measured 48 MB at N = 19).
inline constexpr double kMinJobBytes = double(std::uint64_t{1} << 30);
double memory_to_ask(double table_bytes);
// What a process keeps for the units of a job of `units_total` units: `run`'s master of one of
// `shard_count` shards (run_cost), or `merge` (the whole job's table). `ask`: memory_to_ask.
struct TableMemory {
  double table = 0, ask = 0;
};
TableMemory master_memory(std::uint64_t units_total, int shard_count);
TableMemory merge_memory(std::uint64_t units_total);
// Slurm's spelling of that memory, in its megabytes (MiB), rounded up: "--mem=8400M".
std::string slurm_mem_option(double bytes);

// `merge` keeps merge_memory's table: throws ExitError(kUsage) where that of a job of `units`
// units takes more than kMemoryShare of memory_limit(), naming the memory that would do (not the
// kMaxMasterBytes cap: the shards' masters keep to it, the merge may pass it).
void check_merge_memory(std::uint64_t units);

// Boards mode: a worker builds each unit's result whole and the master checks it whole, so the
// largest unit of the plan bounds a rank's memory. A result holds N bytes a board it sends:
// storing every board, the unit's completions (the master makes their images as it writes the
// file: 1/8 of the boards in full plans); one per class, its class boards (the worker also holds
// the unit's completions, about as many in full plans). Largest units hold up to ~80x the
// plan's mean (exact per-unit counts of completions, full symmetry: N = 18 depth 1 11x, N = 19
// depth 2 53x, N = 20 depth 2 58x and depth 3 76x, N = 10-16 8-31x; mirror and none 2-21x), so
// a boards plan is kept to this mean of result bytes per unit: ~64 MiB for the largest unit.
// N = 20 all at depth 2 (the run default): a mean of 0.79 MiB and a largest unit of 48 MB.
inline constexpr double kMaxMeanUnitBoardBytes = 0.8 * (1 << 20);

// The mean bytes per unit of the results of a boards run of `set` at board size n over `units`
// units of a `symmetry` plan: the published count of the set (one per class: the unique count;
// every board: the completions, the total over core::usual_multiplicity) times n bytes, over the
// units; 0 where nothing is published (boards mode stops at N = 20, well inside the table).
double mean_unit_board_bytes(int n, core::BoardSet set, core::Symmetry symmetry, std::uint64_t units);

// The disk a run takes while it runs, estimated from the published counts (0 boards where
// none is published): the journal beside OUT (per unit a 104-byte record plus, in boards mode,
// its result: mean_unit_board_bytes, with a byte per class board for its size) and the result
// file written at the end (17 bytes a unit, and about kFileBytesPerBoard a board), the journal
// removed only after the file is in place. For the `units` of a shard.
struct DiskNeed {
  double journal = 0, file = 0;
  // What a run still adds where its journal already holds `journal_now` bytes.
  double still_to_add(double journal_now) const { return std::max(0.0, journal - journal_now) + file; }
};
// Bytes a board in result files, rounded up from the measured 3.2-3.4 (all) and 4.5-4.9 (class)
// at N = 16-19 (docs/performance.md).
inline constexpr double kFileBytesPerBoard[2] = {3.5, 5.0};   // by core::BoardSet
DiskNeed disk_need(const core::JobParams& params, std::uint64_t units_total, std::uint64_t units);
// The warning `run` prints at its start when `dir` (`available` bytes free) cannot take what the
// run still adds there (`need`, less the `journal_now` bytes its journal already holds), or
// nullopt. A warning, not a refusal: free space can be made while the run computes, and a full
// disk stops the run with its finished units kept (exit 4).
std::optional<std::string> disk_shortfall(const DiskNeed& need, double journal_now, double available,
                                          const std::string& dir);

// The default depth of a boards run: the first depth from core::default_run_depth on whose plan
// a unit holds at most kMaxMeanUnitBoardBytes on average. Depends on N, the set and the symmetry
// only, so a rerun resumes the same plan. Polls `stop`.
int default_boards_depth(int n, core::BoardSet set, core::Symmetry symmetry, const core::StopFn& stop);

// Throws ExitError(kUsage) if the boards run of `set` on `plan` (of `units` units) holds more than
// kMaxMeanUnitBoardBytes a unit on average, naming the mean, the limit and a depth that passes.
void check_boards_plan(const core::UnitPlan& plan, core::BoardSet set, std::uint64_t units, const core::StopFn& stop);

// The exact unit count of `plan`, after checking the plan against the limits: first on its
// estimate (core::estimate_sizes, well under a second), which refuses a plan that is clearly
// too big; then on the exact count, which stops as soon as it passes the limit. With `say`, a
// line on stderr says that the count runs, with the estimate, when it takes a noticeable time.
// Throws ExitError(kUsage) with a one-line message naming the plan, the limit and a depth (and
// --shard count) that works; core::Interrupted when `stop` says so.
std::uint64_t checked_plan_size(const core::UnitPlan& plan, const PlanCost& cost, const core::StopFn& stop,
                                bool say = false);

// The depth a run of `p` uses: p.depth, else the default of its mode (core::default_run_depth;
// boards: default_boards_depth). Polls `stop`.
int run_depth(const core::JobParams& p, const core::StopFn& stop);

// `run --dry-run`'s report on stdout: the plan of `p` (its depth chosen) and its `units`, then
// what a run needs: its master's memory (and its limit in the job: planned_run_cost) and, for a
// shard, the merge's (what to ask the scheduler for), and the disk beside `out`, where the
// journal the run resumes already holds `journal_now` bytes.
void print_run_needs(std::ostream& os, const core::JobParams& p, std::uint64_t units, const std::string& out,
                     double journal_now);

// How the limits' messages write sizes ("78.5 GB"; "420 MB" under a gigabyte, "66 kB" under a
// megabyte) and counts ("164,432,215").
std::string gigabytes(double bytes);
std::string with_commas(std::uint64_t v);

}  // namespace nq::app
