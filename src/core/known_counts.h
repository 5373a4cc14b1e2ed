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

// The search nodes of a plan of symmetry full at n, of `units` units (any depth), estimated from
// the plan sampled by bench/engines.sh (bench/sampled-nodes.txt: N = 19-28, the last estimate for
// each), with the estimate's relative standard error (1.4-3 % at N = 19-25, 5-10 % at 26-27,
// 29 % at 28). nullopt for an n not sampled. (Boards mode walks the same nodes.)
struct SampledNodes {
  double nodes, rel_se;
};
std::optional<SampledNodes> sampled_plan_nodes(int n, std::uint64_t units);
// The nodes of a plan of symmetry full of `units` units, from those of another plan of the same
// n: `nodes` over `its_units` units. Every plan of n walks the nodes below the rows it
// pre-places, so plans differ by the nodes of the levels that the deeper one pre-places: at least
// one for each of its units (1.3-1.6 measured at N = 15-18). N = 16 at depths 1-5 walks
// 173,577,526 to 170,753,997 nodes over 3,206 to 2,160,552 units; this gives each from depth 1's
// within 0.4 % (without the units 1.7 %). Plans of N >= 19 have under 2 % as many units as nodes
// (2^30 units at most, app/plan_limits.h).
double nodes_for_units(double nodes, std::uint64_t its_units, std::uint64_t units);

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
