// The classic behaviour: the first solution found by placing queens column by column, trying
// rows top to bottom, and all solutions in that order. Boards use the row convention
// (entry r = column of the queen in row r).
#pragma once
#include <functional>
#include <optional>
#include "core/board.h"

namespace nq::core {

// The first solution in column-by-column order, or nullopt (N = 2, 3).
std::optional<Board> first_solution(int n);

// Calls f for every solution in column-by-column order; stops when f returns false.
// Returns how many boards were passed to f.
Count for_each_solution(int n, const std::function<bool(BoardView)>& f);

}  // namespace nq::core
