#include "app/compute_need.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>
#include "app/plan_limits.h"
#include "app/progress.h"
#include "core/kernel.h"
#include "core/known_counts.h"
#include "core/units.h"

namespace nq::app {
namespace {

// Core time with two significant digits, in the unit that reads best: "41 core-seconds",
// "12 core-minutes", "840,000 core-hours".
std::string core_time(double seconds) {
  const auto two_digits = [](double v) {
    const double scale = v < 100 ? 1 : std::pow(10.0, std::floor(std::log10(v)) - 1);
    return with_commas(static_cast<std::uint64_t>(std::llround(v / scale) * static_cast<long long>(scale)));
  };
  const auto in = [&](double v, const char* unit) {
    const std::string digits = two_digits(std::max(v, 1.0));
    return digits + " core-" + unit + (digits == "1" ? "" : "s");
  };
  if (seconds < 60) return in(seconds, "second");
  if (seconds < 3600) return in(seconds / 60, "minute");
  return in(seconds / 3600, "hour");
}

}  // namespace

NodeTime keep_fastest_pass(NodeTime first, const std::function<double()>& pass) {
  NodeTime t = first;
  double spent = first.seconds;
  while (t.passes < kTimedPasses && spent + t.seconds <= kTimedBudget) {
    const double seconds = pass();
    spent += seconds;
    ++t.passes;
    t.seconds = std::min(t.seconds, seconds);
  }
  return t;
}

NodeTime time_nodes_here() {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const core::UnitPlan plan(kTimedN, 1, core::Symmetry::full);
  core::UnitCursor cursor(plan);
  core::WorkUnit u;
  std::vector<core::WorkUnit> timed;
  NodeTime first;
  for (std::uint64_t i = 0; first.seconds < kTimedSeconds && cursor.next(u); ++i) {
    if (i % kTimedStride) continue;
    const auto start = Clock::now();
    first.nodes += static_cast<double>(plan.count(u).nodes);
    first.seconds += since(start);
    ++first.units;
    timed.push_back(u);
  }
  return keep_fastest_pass(first, [&] {
    const auto start = Clock::now();
    double nodes = 0;
    for (const auto& unit : timed) nodes += static_cast<double>(plan.count(unit).nodes);
    const double seconds = since(start);
    if (nodes != first.nodes) throw std::logic_error("the timed units' nodes differ from one pass to the next");
    return seconds;
  });
}

void DoneWork::add(const store::UnitRecord& r) {
  if (r.id >= seen_.size() || seen_[r.id]) return;
  seen_[r.id] = true;
  ++units_;
  nodes_ += static_cast<double>(r.nodes);
}

void print_compute_need(std::ostream& os, const core::JobParams& p, std::uint64_t units,
                        const std::function<NodeTime()>& timer, const std::optional<DoneWork>& done) {
  os << "compute  ";
  if (const auto why = plan_nodes_unknown(p)) {
    os << "not estimated: " << *why << "\n";
    return;
  }
  const auto nodes = expected_plan_nodes(p, units);
  const NodeTime t = timer();
  const double seconds = nodes->nodes * t.seconds_per_node();
  char buf[200];
  std::snprintf(buf, sizeof buf, "about %.3g search nodes (sampled, +-%.0f %%)", nodes->nodes, 100 * nodes->rel_se);
  os << buf << ": about " << core_time(seconds);
  std::snprintf(buf, sizeof buf,
                " at %.2f ns a node, as timed here (%s kernel, one thread: %llu units of N = %d, %.3g nodes in %.2f s, %s)",
                1e9 * t.seconds_per_node(), core::kernel_name(), static_cast<unsigned long long>(t.units), kTimedN,
                t.nodes, t.seconds, t.passes == 1 ? "one pass" : ("the fastest of " + std::to_string(t.passes) + " passes").c_str());
  os << buf;
  const double share = static_cast<double>(p.shard.size(units)) / static_cast<double>(units);
  if (!p.shard.whole()) os << "; shard " << core::to_string(p.shard) << ": about " << core_time(seconds * share);
  if (done && done->units()) {
    // The sample's estimate less the nodes the done units took: a resume's search, at this pace.
    const double left = nodes->nodes * share - done->nodes();
    std::snprintf(buf, sizeof buf, "%.3g", done->nodes());
    os << "; left after the " << with_commas(done->units()) << (done->units() == 1 ? " unit" : " units") << " done ("
       << buf << " nodes, in " << done->source() << "): "
       << (left > 0 ? "about " + core_time(left * t.seconds_per_node())
                    : std::string("less than the sample's error (their nodes reach the estimate)"));
  }
  os << "\n";
}

void note_long_count(std::ostream& os, const core::JobParams& p, std::uint64_t units, std::uint64_t threads,
                     const std::function<NodeTime()>& timer) {
  auto nodes = expected_plan_nodes(p, units);
  // Past the sampled N (until session 47 those counts, the longest, started without a word): the
  // largest sampled N's nodes, a lower bound.
  const int below = largest_sampled_n();
  const bool past = !nodes && below && p.n > below;
  if (past) nodes = core::sampled_plan_nodes(below, 0);   // (its plan's own units: under 2 % of its nodes)
  const double workers = static_cast<double>(std::max<std::uint64_t>(threads, 1));
  if (!nodes || nodes->nodes * kFastestNodeSeconds / workers < kLongCount) return;
  const double seconds = nodes->nodes * timer().seconds_per_node();
  const double wall = seconds / workers;
  if (wall < kLongCount) return;
  char buf[64];
  if (wall < 2 * 3600) std::snprintf(buf, sizeof buf, "%.0f minutes", wall / 60);
  else if (wall < 3 * 86400) std::snprintf(buf, sizeof buf, "%.1f hours", wall / 3600);
  else if (wall < 3 * 365 * 86400) std::snprintf(buf, sizeof buf, "%.1f days", wall / 86400);
  else std::snprintf(buf, sizeof buf, "%.0f years", wall / (365.25 * 86400));
  const std::string n = std::to_string(p.n);
  const std::string about = past ? "more than " : "about ";
  os << "nqueens: note: this count takes " << (past ? "more than N = " + std::to_string(below) + "'s " : about)
     << core_time(seconds) << " (" << about << buf << " on its " << threads
     << " thread(s), at the pace timed here), and keeps nothing if it is stopped: `nqueens run --n " << n
     << "` journals every finished unit and resumes (`nqueens run --n " << n << " --dry-run` plans it)\n";
}

}  // namespace nq::app
