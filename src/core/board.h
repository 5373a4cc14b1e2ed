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
Board transform(BoardView b, int k);
Board mirror(BoardView b);      // c -> N-1-c  (== transform(b, 4))
Board transpose(BoardView b);   // (r, c) -> (c, r); a solution maps to a solution

// The lexicographically smallest of the eight images: the class representative.
Board canonical(BoardView b);
// How many distinct boards the class of `b` has: 8, 4 or 2 (1 for N = 1).
int class_size(BoardView b);

// "0 0 1 0\n1 0 0 0\n..." (row by row, 1 where the queen stands).
std::string to_matrix(BoardView b);
// "[2, 0, 3, 1]"
std::string to_columns(BoardView b);

}  // namespace nq::core
