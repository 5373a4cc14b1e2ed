#include "core/solve.h"
#include <stdexcept>
#include <string>
#include "core/kernel.h"

namespace nq::core {

// Column-by-column placement with rows tried top to bottom yields the sequences
// s[c] = row of the queen in column c in lexicographic order. The constraints are symmetric in
// rows and columns, so the row-wise search yields the same sequences in the same order; the
// board in the row convention is then transpose(s).
Count for_each_solution(int n, const std::function<bool(BoardView)>& f) {
  const auto start = place_prefix(n, {});
  if (!start)
    throw std::invalid_argument("board size " + std::to_string(n) + " is outside 1.." +
                                std::to_string(kMaxN));
  Count seen = 0;
  visit_completions(*start, {}, [&](BoardView s) {
    ++seen;
    return f(transpose(s));
  });
  return seen;
}

std::optional<Board> first_solution(int n) {
  std::optional<Board> first;
  for_each_solution(n, [&](BoardView b) {
    first.emplace(b.begin(), b.end());
    return false;
  });
  return first;
}

}  // namespace nq::core
