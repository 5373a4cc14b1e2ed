#include "app/progress.h"
#include "core/known_counts.h"
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace nq::app {

std::string format_duration(double s) {
  char buf[64];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%d min %02d s", int(s / 60), int(s) % 60);
  else if (s < 86400 * 3) std::snprintf(buf, sizeof buf, "%d h %02d min", int(s / 3600), int(s / 60) % 60);
  else std::snprintf(buf, sizeof buf, "%.1f d", s / 86400);
  return buf;
}

ProgressLine::ProgressLine(std::string label) : label_(std::move(label)), live_(isatty(2)) {}

ProgressLine::~ProgressLine() {
  if (live_ && shown_) std::fputs("\n", stderr);
}

std::optional<double> seconds_left(const ProgressState& s) {
  if (s.units_done >= s.units_total) return std::nullopt;
  // This run's pace: a resumed run used to divide its own seconds by the whole job's share
  // done, and gave an ETA of 3 s for 40 s of work left (N = 20 resumed at 60 %).
  const core::Total walked = s.nodes - s.nodes_before;
  if (s.nodes_expected > static_cast<double>(s.nodes) && walked > 0) {
    // The pace of the done units' own searches over the job's threads where known: the elapsed
    // time also holds the units still being searched, which at N = 27 (units of minutes to
    // hours) made the ETA after a shard's first unit 2.1x too long.
    const double busy = s.busy_seconds - s.busy_before;
    const double spent = busy > 0 && s.threads > 0 ? busy / s.threads : s.seconds;
    return spent * (s.nodes_expected - static_cast<double>(s.nodes)) / static_cast<double>(walked);
  }
  const core::Total found = s.solutions - s.solutions_before;
  if (s.solutions_expected > s.solutions && found > 0)
    return s.seconds * static_cast<double>(s.solutions_expected - s.solutions) / static_cast<double>(found);
  if (s.units_done > s.units_before)
    return s.seconds * static_cast<double>(s.units_total - s.units_done) /
           static_cast<double>(s.units_done - s.units_before);
  return std::nullopt;
}

namespace {
// The smallest and the largest N whose plan nodes were sampled (bench/sampled-nodes.txt); kMaxN + 1
// and 0 if none.
std::pair<int, int> sampled_n_range() {
  static const std::pair<int, int> range = [] {
    std::pair<int, int> r{core::kMaxN + 1, 0};
    for (int n = 1; n <= core::kMaxN; ++n)
      if (core::sampled_plan_nodes(n, 1)) r = {std::min(r.first, n), n};
    return r;
  }();
  return range;
}
int smallest_sampled_n() { return sampled_n_range().first; }
}  // namespace

int largest_sampled_n() { return sampled_n_range().second; }

std::optional<std::string> plan_nodes_unknown(const core::JobParams& p) {
  // Boards mode: N = 19 class, the nodes ETA was 0.72-0.88x the time left, the solutions' 1.03-1.19x.
  if (p.boards_mode()) return "in boards mode, storing the boards takes most of the time, not the search";
  if (p.symmetry != core::Symmetry::full)
    return "the search nodes are sampled for plans of symmetry full only (the default, and the fastest)";
  if (p.n < smallest_sampled_n())
    return "the search nodes are sampled from N = " + std::to_string(smallest_sampled_n()) + " on; N = " +
           std::to_string(p.n) + " takes core-minutes at most";
  if (!core::sampled_plan_nodes(p.n, 1))
    return "the search nodes of N = " + std::to_string(p.n) + " were not sampled (bench/engines.sh, bench/sampled-nodes.txt)";
  return std::nullopt;
}

std::optional<core::SampledNodes> expected_plan_nodes(const core::JobParams& p, std::uint64_t plan_units) {
  if (plan_nodes_unknown(p)) return std::nullopt;
  return core::sampled_plan_nodes(p.n, plan_units);
}

void expect_totals(ProgressState& s, const core::JobParams& p, std::uint64_t plan_units, double share) {
  if (const auto expected = core::expected_total(p.n)) s.solutions_expected = static_cast<core::Total>(*expected * share);
  if (const auto nodes = expected_plan_nodes(p, plan_units)) s.nodes_expected = nodes->nodes * share;   // else the solutions say it
}

void ProgressLine::report(const ProgressState& s) {
  const std::uint64_t done = s.units_done, total = s.units_total;
  const double frac = total ? double(done) / double(total) : 0;
  const auto left = seconds_left(s);
  const std::string eta = left ? format_duration(*left) : "-";
  const double seconds = s.seconds;
  const double rate = seconds > 0 ? static_cast<double>(s.solutions - s.solutions_before) / seconds : 0.0;
  std::string bar;
  if (live_) {   // a 20-cell bar on a terminal
    const int filled = std::clamp(static_cast<int>(frac * 20), 0, 20);   // done may pass total
    bar.append("|").append(filled, '#').append(20 - filled, '.').append("| ");
  }
  std::fprintf(stderr, "%s[%s] %s%5.1f%%  units %llu/%llu  solutions %s  %.3g sol/s  elapsed %s  ETA %s%s",
               live_ ? "\r" : "", label_.c_str(), bar.c_str(), 100 * frac, (unsigned long long)done,
               (unsigned long long)total, core::to_decimal(s.solutions).c_str(),
               rate, format_duration(seconds).c_str(),
               eta.c_str(), live_ ? "\x1b[K" : "\n");
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace nq::app
