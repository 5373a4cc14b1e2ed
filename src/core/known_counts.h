// The published N-Queens counts (OEIS A000170, A002562, A033148, A032522) for N = 1..27.
// Generated at build time from data/known-counts.tsv, the project's single copy of the table.
#pragma once
#include <optional>
#include "core/names.h"
#include "core/total.h"
#include "core/types.h"

namespace nq::core {

struct KnownCounts {
  int n;
  Count total;
  Count unique;
  Count rot90_fixed;    // R: solutions unchanged by a quarter turn
  Count rot180_fixed;   // P: solutions unchanged by a half turn (includes R)
};

// The published row for n, or nullopt where nothing is published (n > 27).
std::optional<KnownCounts> known_counts(int n);
int largest_known_n();
// The number of solutions to expect for n, for estimates such as a progress line's ETA: the
// published total, else extrapolated_total(n, largest_known_n()). nullopt where the count is 0
// or no estimate is made (n < 1 or n > kMaxN).
std::optional<double> expected_total(int n);
// Q(n) estimated from the published totals up to `last` (last < n <= kMaxN, 4 <= last): the
// ratio Q(k) / Q(k - 1) continued in a straight line from its values at last - 1 and last. One
// step ahead that was within 1.3 % of the published count at N = 23-27 (3.4 % at N = 19-22), two
// steps ahead within 2.7 % at N = 23-27. nullopt outside that range.
std::optional<double> extrapolated_total(int n, int last);

// The search nodes of a default plan (symmetry full) as sampled by bench/engines.sh
// (bench/sampled-nodes.txt: N = 19-28, the last estimate for each), and the estimate's relative
// standard error (1.4-3 % at N = 19-25, 5-10 % at 26-27, 29 % at 28). nullopt for a plan not
// sampled: one is known by its N, depth and units.
struct SampledNodes {
  double nodes, rel_se;
};
std::optional<SampledNodes> sampled_plan_nodes(int n, int depth, std::uint64_t units);

// How a count compares with the published row ("matches_known" in result files).
enum class KnownMatch : std::uint8_t { match, mismatch, unknown };
template <>
struct EnumNames<KnownMatch> {
  static constexpr std::string_view what = "matches_known";
  static constexpr std::array table{std::pair{KnownMatch::match, std::string_view("yes")},
                                    std::pair{KnownMatch::mismatch, std::string_view("no")},
                                    std::pair{KnownMatch::unknown, std::string_view("unknown")}};
};
KnownMatch known_match(int n, Total total, Total unique);

}  // namespace nq::core
