// The compute a planned run needs, for `run --dry-run`: the plan's search nodes (sampled per N,
// core::sampled_plan_nodes) at the time a node takes on this machine, timed there and then.
// Core-hours are what a large-N job costs, and the dry run is where it is planned.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>
#include "core/job_params.h"
#include "store/unit_record.h"

namespace nq::app {

// The time a node of the search takes here: one thread, the kernel a run uses, whole units of a
// fixed plan (kTimedN's border plan, every kTimedStride-th unit, until kTimedSeconds have passed;
// ~0.2 s on an AVX-512 core), searched in up to kTimedPasses passes, the fastest kept (a first
// pass after a minute idle took 0.40 s here, the next two 0.36 and 0.29). Per node, sampled units of N = 20-26
// took 0.7-1.2x the time of N = 18's on the same core, as much as the host's own noise
// (docs/usage.md).
inline constexpr int kTimedN = 18;
inline constexpr int kTimedStride = 24;
inline constexpr double kTimedSeconds = 1.0;
inline constexpr int kTimedPasses = 3;
inline constexpr double kTimedBudget = 1.5;   // seconds all passes may take: a pass more only within it
struct NodeTime {
  std::uint64_t units = 0;   // timed
  double nodes = 0;          // their search's
  double seconds = 0;        // it took (the fastest pass)
  int passes = 1;            // over those units
  double seconds_per_node() const { return seconds / nodes; }
};
NodeTime time_nodes_here();
// The passes after the first (`first`, its units, nodes and seconds): `pass()` searches the same
// units again and returns its seconds; passes go on while fewer than kTimedPasses and while the
// time spent plus the fastest pass so far stays within kTimedBudget. Keeps the fastest.
NodeTime keep_fastest_pass(NodeTime first, const std::function<double()>& pass);

// The units a resumed run skips (its journal's records, or a partial count file's units) and the
// nodes their search took, each unit counted once (a unit recomputed after a crash may be
// journaled twice; the run keeps one).
class DoneWork {
 public:
  DoneWork(std::uint64_t plan_units, std::string source) : seen_(plan_units), source_(std::move(source)) {}
  void add(const store::UnitRecord& r);   // a record of an id outside the plan is not counted
  std::uint64_t units() const { return units_; }
  double nodes() const { return nodes_; }
  const std::string& source() const { return source_; }   // where they were read: "the journal", "r.h5's units"

 private:
  std::vector<bool> seen_;   // by unit id: a bit a unit of the plan (20 MB at N = 27's 164 M)
  std::uint64_t units_ = 0;
  double nodes_ = 0;
  std::string source_;
};

// One line, "compute  ...": the nodes of the job's units (its shard's) and the core-hours they
// take at `timer()`'s pace, with the sample's standard error; and, for a run that resumes
// (`done`), what is left once the done units' nodes are taken off. Or why there is no estimate
// (plan_nodes_unknown). `timer` is called only where there is an estimate to make.
void print_compute_need(std::ostream& os, const core::JobParams& p, std::uint64_t units,
                        const std::function<NodeTime()>& timer, const std::optional<DoneWork>& done = {});

// Before a `count` that takes long (over kLongCount on its `threads` threads, at `timer()`'s
// pace): one line saying its core time, and that a count keeps nothing if stopped while `run`
// journals every unit and resumes. Nothing for a plan without an estimate (plan_nodes_unknown)
// or one that surely takes less (at kFastestNodeSeconds a node: then `timer` is not called).
// Until session 46 `count 24` (days here) started straight away with "ETA -" for its first seconds.
inline constexpr double kLongCount = 300;             // seconds of the count's wall time
inline constexpr double kFastestNodeSeconds = 0.2e-9;  // faster than any core measured (0.3-1.5 ns)
void note_long_count(std::ostream& os, const core::JobParams& p, std::uint64_t units, std::uint64_t threads,
                     const std::function<NodeTime()>& timer);

}  // namespace nq::app
