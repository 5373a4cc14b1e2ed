#include "core/board.h"
#include <algorithm>
#include <bit>

namespace nq::core {

// Branch-free (the master checks every board it stores): n queens in distinct columns and
// diagonals exactly when each of the three masks has n bits.
bool is_solution(BoardView b) {
  const std::size_t n = b.size();
  if (n == 0 || n > static_cast<std::size_t>(kMaxN)) return false;
  std::uint64_t cols = 0, d1 = 0, d2 = 0;   // d1: r + c, d2: r - c + n - 1 (both < 2n <= 64)
  bool off_board = false;
  for (std::size_t r = 0; r < n; ++r) {
    const std::size_t c = b[r];
    off_board |= c >= n;
    cols |= 1ULL << (c & 63);
    d1 |= 1ULL << ((r + c) & 63);
    d2 |= 1ULL << ((r + n - 1 - c) & 63);
  }
  const auto k = static_cast<int>(n);
  return !off_board && std::popcount(cols) == k && std::popcount(d1) == k && std::popcount(d2) == k;
}

Board mirror(BoardView b) {
  const auto n = static_cast<int>(b.size());
  Board out(b.size());
  for (int r = 0; r < n; ++r) out[r] = static_cast<Column>(n - 1 - b[r]);
  return out;
}

Board transpose(BoardView b) {
  Board out(b.size());
  for (std::size_t r = 0; r < b.size(); ++r) out[b[r]] = static_cast<Column>(r);
  return out;
}

// map_square's formula, one loop per symmetry (the boards of boards mode go through here).
void transform_into(BoardView b, int k, Column* out) {
  const auto n = static_cast<int>(b.size());
  const int e = n - 1;
  switch (k) {
    case 0: for (int r = 0; r < n; ++r) out[r] = b[r]; break;
    case 1: for (int r = 0; r < n; ++r) out[b[r]] = static_cast<Column>(e - r); break;
    case 2: for (int r = 0; r < n; ++r) out[e - r] = static_cast<Column>(e - b[r]); break;
    case 3: for (int r = 0; r < n; ++r) out[e - b[r]] = static_cast<Column>(r); break;
    case 4: for (int r = 0; r < n; ++r) out[r] = static_cast<Column>(e - b[r]); break;
    case 5: for (int r = 0; r < n; ++r) out[e - b[r]] = static_cast<Column>(e - r); break;
    case 6: for (int r = 0; r < n; ++r) out[e - r] = b[r]; break;
    default: for (int r = 0; r < n; ++r) out[b[r]] = static_cast<Column>(r); break;
  }
}

Board transform(BoardView b, int k) {
  Board out(b.size());
  transform_into(b, k, out.data());
  return out;
}

void canonical_into(BoardView b, Column* out) {
  Column image[kMaxN];
  const std::size_t n = b.size();
  std::copy(b.begin(), b.end(), out);
  for (int k = 1; k < kSymmetries; ++k) {
    transform_into(b, k, image);
    if (std::lexicographical_compare(image, image + n, out, out + n)) std::copy(image, image + n, out);
  }
}

Board canonical(BoardView b) {
  Board best(b.size());
  canonical_into(b, best.data());
  return best;
}

int class_size(BoardView b) {
  Column image[kMaxN];
  int fixed = 0;
  for (int k = 0; k < kSymmetries; ++k) {
    transform_into(b, k, image);
    fixed += std::ranges::equal(BoardView(image, b.size()), b);
  }
  return kSymmetries / fixed;
}

int solution_class_size(BoardView b) {
  const auto n = static_cast<int>(b.size());
  if (n <= 1) return 1;
  for (int r = 0; r < n; ++r)   // the half turn: row n-1-r holds column n-1-c
    if (b[n - 1 - r] != n - 1 - b[r]) return 8;
  for (int r = 0; r < n; ++r)   // the quarter turn: row c holds column n-1-r
    if (b[b[r]] != n - 1 - r) return 4;
  return 2;
}

std::string to_matrix(BoardView b) {
  std::string s;
  for (std::size_t r = 0; r < b.size(); ++r) {
    for (std::size_t c = 0; c < b.size(); ++c) {
      if (c) s += ' ';
      s += b[r] == c ? '1' : '0';
    }
    s += '\n';
  }
  return s;
}

std::string to_columns(BoardView b) {
  std::string s = "[";
  for (std::size_t r = 0; r < b.size(); ++r) {
    if (r) s += ", ";
    s += std::to_string(b[r]);
  }
  return s + "]";
}

}  // namespace nq::core
