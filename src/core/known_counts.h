// The published N-Queens counts (OEIS A000170, A002562, A033148, A032522) for N = 1..27.
// Generated at build time from data/known-counts.tsv, the project's single copy of the table.
#pragma once
#include <optional>
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

}  // namespace nq::core
