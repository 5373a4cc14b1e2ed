// The search kernel: counts (or visits) the completions of a partial placement of the first
// rows. Called by units.cpp for every work unit. Allocation-free and exception-free; thread-safe
// (no shared state).
#pragma once
#include <functional>
#include <optional>
#include <span>
#include "core/board.h"
#include "core/types.h"

namespace nq::core {

// The state after queens were placed in rows 0..row-1 (bit c = column c).
// Invariants: 1 <= n <= kMaxN; 0 <= row <= n; popcount(cols) == row; all masks within n bits
// after masking with full_mask(n) (diag_l / diag_r may hold bits shifted past the board).
struct Partial {
  int n = 0;
  int row = 0;
  Mask cols = 0;     // columns taken
  Mask diag_l = 0;   // squares of row `row` attacked along down-left diagonals
  Mask diag_r = 0;   // squares of row `row` attacked along down-right diagonals
};

// The partial placement of `prefix` (columns of rows 0..k-1) on an n-board, or nullopt if the
// queens attack each other or a column is off the board.
std::optional<Partial> place_prefix(int n, std::span<const Column> prefix);

// Places one more queen in column `c` of row p.row (caller guarantees it is free).
constexpr Partial place(const Partial& p, int c) {
  const Mask bit = Mask{1} << c;
  return {p.n, p.row + 1, p.cols | bit, (p.diag_l | bit) << 1, (p.diag_r | bit) >> 1};
}
constexpr Mask free_columns(const Partial& p) {
  return full_mask(p.n) & ~(p.cols | p.diag_l | p.diag_r);
}

// Number of ways to complete `p` to a full solution, and the nodes visited. Iterative.
SearchStats count_completions(const Partial& p);

// Calls f(board) for every completion of `p`, in lexicographic order of the board, until f
// returns false. The first p.row entries of the board are taken from `prefix`.
using BoardFn = std::function<bool(BoardView)>;
SearchStats visit_completions(const Partial& p, std::span<const Column> prefix, const BoardFn& f);

// The plain mirror-only recursive reference solver (Somers-style bitmasks): an independent
// check in tests and the baseline of bench/. Deliberately simple; do not optimise it.
Count reference_total(int n);

}  // namespace nq::core
