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
