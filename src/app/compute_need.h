// The compute a planned run needs, for `run --dry-run`: the plan's search nodes (sampled per N,
// core::sampled_plan_nodes) at the time a node takes on this machine, timed there and then.
// Core-hours are what a large-N job costs, and the dry run is where it is planned.
#pragma once
#include <cstdint>
#include <functional>
#include <ostream>
#include "core/job_params.h"

namespace nq::app {

// The time a node of the search takes here: one thread, the kernel a run uses, whole units of a
// fixed plan (kTimedN's border plan, every kTimedStride-th unit, until kTimedSeconds have passed;
// ~0.2 s on an AVX-512 core). Per node, sampled units of N = 20-26 took 0.7-1.2x the time of
// N = 18's on the same core, as much as the host's own noise (docs/usage.md).
inline constexpr int kTimedN = 18;
inline constexpr int kTimedStride = 24;
inline constexpr double kTimedSeconds = 1.0;
struct NodeTime {
  std::uint64_t units = 0;   // timed
  double nodes = 0;          // their search's
  double seconds = 0;        // it took
  double seconds_per_node() const { return seconds / nodes; }
};
NodeTime time_nodes_here();

// One line, "compute  ...": the nodes of the job's units (its shard's) and the core-hours they
// take at `timer()`'s pace, with the sample's standard error; or why there is no estimate (a plan
// whose nodes were not sampled: N < 19, symmetry other than full; boards mode, whose time the
// storing of boards sets). `timer` is called only where there is an estimate to make.
void print_compute_need(std::ostream& os, const core::JobParams& p, std::uint64_t units,
                        const std::function<NodeTime()>& timer);

}  // namespace nq::app
