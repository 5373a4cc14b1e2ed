#include "core/known_counts.h"
#include <array>

namespace nq::core {
namespace {
constexpr KnownCounts kTable[] = {
#include "known_counts_table.inc"
};
struct SampledPlan {
  int n, depth;
  std::uint64_t units;
  double nodes, rel_se;
};
constexpr SampledPlan kSampled[] = {
#include "sampled_nodes_table.inc"
};
}  // namespace

std::optional<KnownCounts> known_counts(int n) {
  for (const auto& row : kTable)
    if (row.n == n) return row;
  return std::nullopt;
}

KnownMatch known_match(int n, Total total, Total unique) {
  const auto known = known_counts(n);
  if (!known) return KnownMatch::unknown;
  return known->total == total && known->unique == unique ? KnownMatch::match : KnownMatch::mismatch;
}

int largest_known_n() {
  int best = 0;
  for (const auto& row : kTable) best = row.n > best ? row.n : best;
  return best;
}

std::optional<double> expected_total(int n) {
  if (const auto known = known_counts(n))
    return known->total ? std::optional<double>(static_cast<double>(known->total)) : std::nullopt;
  return extrapolated_total(n, largest_known_n());
}

std::optional<SampledNodes> sampled_plan_nodes(int n, std::uint64_t units) {
  std::optional<SampledNodes> last;
  for (const auto& row : kSampled)
    if (row.n == n) last = SampledNodes{nodes_for_units(row.nodes, row.units, units), row.rel_se};
  return last;
}

double nodes_for_units(double nodes, std::uint64_t its_units, std::uint64_t units) {
  return nodes + static_cast<double>(its_units) - static_cast<double>(units);
}

std::optional<double> extrapolated_total(int n, int last) {
  if (last < 4 || last > largest_known_n() || n <= last || n > kMaxN) return std::nullopt;
  const auto q = [](int k) { return static_cast<double>(known_counts(k)->total); };
  const double ratio = q(last) / q(last - 1), step = ratio - q(last - 1) / q(last - 2);
  double total = q(last);
  for (int k = last + 1; k <= n; ++k) total *= ratio + step * (k - last);
  return total;
}

}  // namespace nq::core
