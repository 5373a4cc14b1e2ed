// Boards: N column indices (entry r = column of the queen in row r), the one validator,
// and the eight symmetries of the square. Pure functions; thread-safe.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>
#include "core/types.h"

namespace nq::core {

using Column = std::uint8_t;
using Board = std::vector<Column>;
using BoardView = std::span<const Column>;

// True if `b` places one queen per row, none sharing a column or a diagonal. The only
// validator in the project (brute force, tests and the store's checks all call it).
bool is_solution(BoardView b);

// The eight symmetries of the square, as maps of a board to a board.
//   k = 0..3: rotation by k quarter turns clockwise; k = 4..7: rotation k-4 after a mirror.
inline constexpr int kSymmetries = 8;

// Square (r, c) of an n x n board under symmetry k: the one formula of the project (a quarter
// turn clockwise takes (r, c) to (c, n-1-r); the mirror takes c to n-1-c).
constexpr void map_square(int n, int k, int& r, int& c) {
  if (k >= 4) c = n - 1 - c;
  const int r0 = r, c0 = c;
  switch (k % 4) {
    case 1: r = c0; c = n - 1 - r0; break;
    case 2: r = n - 1 - r0; c = n - 1 - c0; break;
    case 3: r = n - 1 - c0; c = r0; break;
    default: break;
  }
}

// The image of `b` under symmetry k, written to out[0..b.size()) (no allocation; out must not
// overlap b).
void transform_into(BoardView b, int k, Column* out);
Board transform(BoardView b, int k);
Board mirror(BoardView b);      // c -> N-1-c  (== transform(b, 4))
Board transpose(BoardView b);   // (r, c) -> (c, r); a solution maps to a solution

// The lexicographically smallest of the eight images: the class representative.
Board canonical(BoardView b);
void canonical_into(BoardView b, Column* out);   // the same into out[0..b.size()), no allocation
// How many distinct boards the class of `b` has: 8, 4 or 2 (1 for N = 1).
int class_size(BoardView b);
// The same for a solution, faster: no reflection fixes a solution of N >= 2 (the mirror would
// need every queen in the middle column, a diagonal reflection a permutation that is its own
// inverse, whose pairs (r, c), (c, r) share an anti-diagonal), so only the half and quarter
// turns are tried. `b` must be a solution.
int solution_class_size(BoardView b);

// "0 0 1 0\n1 0 0 0\n..." (row by row, 1 where the queen stands).
std::string to_matrix(BoardView b);
// "[2, 0, 3, 1]"
std::string to_columns(BoardView b);

}  // namespace nq::core
