// Independent reference for tests: every permutation of 0..n-1 checked by the project's one
// validator. Exponential; use for n <= 10.
#pragma once
#include <algorithm>
#include <numeric>
#include <vector>
#include "core/board.h"

namespace nq::test {

inline std::vector<core::Board> brute_force_solutions(int n) {
  core::Board b(static_cast<std::size_t>(n));
  std::iota(b.begin(), b.end(), core::Column{0});
  std::vector<core::Board> out;
  do {
    if (core::is_solution(b)) out.push_back(b);
  } while (std::next_permutation(b.begin(), b.end()));
  return out;   // in lexicographic order
}

}  // namespace nq::test
