// Progress lines on stderr: units done/total, solutions so far, rate, ETA. A live line
// (carriage return) when stderr is a terminal, otherwise one line per report.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include "core/job_params.h"
#include "core/known_counts.h"
#include "core/total.h"

namespace nq::app {

// What a progress line reports. Units and solutions are the whole job's (a shard's), seconds
// this run's; a resumed run says what was done before it, so that its rate and ETA are its own.
struct ProgressState {
  std::uint64_t units_done = 0, units_total = 0;
  core::Total solutions = 0;            // found by the done units, multiplicities applied
  double seconds = 0;
  std::uint64_t units_before = 0;       // done before this run
  core::Total solutions_before = 0;     // found by those
  core::Total solutions_expected = 0;   // once every unit is done (core::expected_total; 0: unknown)
  core::Total nodes = 0;                // searched by the done units
  core::Total nodes_before = 0;         // by those done before this run
  double nodes_expected = 0;            // once every unit is done (core::sampled_plan_nodes; 0: unknown)
  double busy_seconds = 0;              // the compute seconds of the done units, summed (0: unknown)
  double busy_before = 0;               // of those done before this run
  int threads = 0;                      // the job's compute threads (0: unknown)
};

// Seconds left at this run's pace, if it can tell, by the first of these that is known and not
// yet passed: the nodes still to search (the plan's sampled nodes: a unit's time follows its
// nodes), at the done units' compute seconds per node over the job's threads where both are
// known (else at this run's elapsed seconds per node), the solutions still to find (published, or extrapolated past the table:
// core::expected_total), the units left. The plan's first units are its heaviest (N = 24's take
// ~20x the mean, 5-16x its solutions), so the share of units done alone gave an ETA ~25x too
// long early in such a run; the solutions' share ~2.6x.
std::optional<double> seconds_left(const ProgressState& s);

// Why the search nodes of plan `p` are not known, in words for a user (the dry run prints it);
// nullopt where they are: count mode, symmetry full and a sampled N (core::sampled_plan_nodes:
// any depth). In boards mode a unit's time also grows with its boards, so its nodes do not say
// its time.
std::optional<std::string> plan_nodes_unknown(const core::JobParams& p);
// The largest N whose plan nodes were sampled (bench/sampled-nodes.txt), 0 if none: each N past
// it has more nodes than it (several times: 6-8x from one N to the next at N = 19-28).
int largest_sampled_n();
// The search nodes of plan `p` (of `plan_units` units, the whole plan's) where they are known
// (plan_nodes_unknown says when they are not).
std::optional<core::SampledNodes> expected_plan_nodes(const core::JobParams& p, std::uint64_t plan_units);

// Sets s's expected totals for a run of plan `p` (of `plan_units` units), `share` of them (a
// shard's part): the solutions (core::expected_total), and the nodes where `p` counts a plan of
// symmetry full at a sampled N (core::sampled_plan_nodes: any depth).
void expect_totals(ProgressState& s, const core::JobParams& p, std::uint64_t plan_units, double share = 1);

class ProgressLine {
 public:
  explicit ProgressLine(std::string label);
  ~ProgressLine();   // ends a live line
  void report(const ProgressState& s);

 private:
  std::string label_;
  bool live_;
  bool shown_ = false;
};

std::string format_duration(double seconds);   // "3.2 s", "4 min 10 s", "2 h 05 min", "3.1 d"

}  // namespace nq::app
