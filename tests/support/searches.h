// Searches built for tests of the kernels' edge cases.
#pragma once
#include <algorithm>
#include <cstdlib>
#include <optional>
#include "core/board.h"
#include "core/kernel.h"
#include "core/solve.h"

namespace nq::test {

// A search of 32 levels (a whole board of N = 32) with exactly one solution, whose last queen
// would also be free in a 33rd row (nullopt if no such solution was found). A node looks up the
// level tables two levels past its own, so a child in the last row looks past them, at index
// 32, which wraps around to level 0's entry (core/vector_step.h); here that entry leaves the
// last queen's column open, so a step that kept such a child would walk one node more than the
// scalar search.
// The solution: the first completion, in lexicographic order, of the first solution's top 12
// rows with that property. The first row is open at its own square and at the last queen's
// column, every other row only at its own square.
inline std::optional<core::RowSearch> wrapping_lookahead_search() {
  using namespace core;
  constexpr int n = 32;
  const auto first = first_solution(n);
  Placement top;
  top.fill(kEmptyRow);
  std::copy_n(first->begin(), 12, top.begin());
  Board board;
  visit_completions(*prepare_search(n, top), [&](BoardView b) {
    for (int r = 0; r + 1 < n; ++r)
      if (std::abs(int{b[r]} - int{b[n - 1]}) == n - r) return true;   // attacked there: the next one
    board.assign(b.begin(), b.end());
    return false;
  });
  if (board.size() != static_cast<std::size_t>(n)) return std::nullopt;
  RowSearch s = prepare_search(*place_prefix(n, {}));
  for (int r = 0; r < n; ++r) s.blocked[static_cast<std::size_t>(r)] = ~(Mask{1} << board[static_cast<std::size_t>(r)]);
  s.blocked[0] &= ~(Mask{1} << board[n - 1]);
  return s;
}

}  // namespace nq::test
