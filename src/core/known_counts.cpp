#include "core/known_counts.h"
#include <array>

namespace nq::core {
namespace {
constexpr KnownCounts kTable[] = {
#include "known_counts_table.inc"
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

}  // namespace nq::core
