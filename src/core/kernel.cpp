#include "core/kernel.h"
#include <bit>

namespace nq::core {

std::optional<Partial> place_prefix(int n, std::span<const Column> prefix) {
  if (n < 1 || n > kMaxN || prefix.size() > static_cast<std::size_t>(n)) return std::nullopt;
  Partial p{n, 0, 0, 0, 0};
  for (Column c : prefix) {
    if (c >= n || !(free_columns(p) & (Mask{1} << c))) return std::nullopt;
    p = place(p, c);
  }
  return p;
}

SearchStats count_completions(const Partial& p) {
  const int rows_left = p.n - p.row;
  if (rows_left <= 0) return {1, 0};
  const Mask full = full_mask(p.n);
  Mask avail = full & ~(p.cols | p.diag_l | p.diag_r);
  if (rows_left == 1) return {Count(std::popcount(avail)), Count(std::popcount(avail))};

  // Depth d counts rows below p.row; the row at depth `last` is the one before the final row,
  // whose single free square (if any) is checked inline instead of being pushed.
  struct Frame {
    Mask cols, dl, dr, avail;
  };
  Frame stack[kMaxN];
  const int last = rows_left - 2;
  int d = 0;
  Mask cols = p.cols, dl = p.diag_l, dr = p.diag_r;
  Count solutions = 0, nodes = 0;
  for (;;) {
    while (avail) {
      const Mask bit = avail & (0u - avail);
      avail ^= bit;
      ++nodes;
      const Mask nc = cols | bit, nl = (dl | bit) << 1, nr = (dr | bit) >> 1;
      const Mask next = full & ~(nc | nl | nr);
      if (d == last) {
        solutions += next != 0;   // the last row has exactly one free column left
        continue;
      }
      if (!next) continue;
      stack[d] = {cols, dl, dr, avail};
      ++d;
      cols = nc;
      dl = nl;
      dr = nr;
      avail = next;
    }
    if (d == 0) break;
    --d;
    cols = stack[d].cols;
    dl = stack[d].dl;
    dr = stack[d].dr;
    avail = stack[d].avail;
  }
  return {solutions, nodes + solutions};
}

SearchStats visit_completions(const Partial& p, std::span<const Column> prefix, const BoardFn& f) {
  Column board[kMaxN] = {};
  for (std::size_t r = 0; r < prefix.size() && r < static_cast<std::size_t>(p.row); ++r)
    board[r] = prefix[r];
  const BoardView view(board, static_cast<std::size_t>(p.n));
  if (p.row >= p.n) {
    f(view);
    return {1, 0};
  }
  Partial stack[kMaxN + 1];
  Mask avail[kMaxN + 1];
  int d = 0;
  stack[0] = p;
  avail[0] = free_columns(p);
  SearchStats st;
  for (;;) {
    if (!avail[d]) {
      if (d == 0) break;
      --d;
      continue;
    }
    const int c = std::countr_zero(avail[d]);
    avail[d] &= avail[d] - 1;
    ++st.nodes;
    board[stack[d].row] = static_cast<Column>(c);
    const Partial next = place(stack[d], c);
    if (next.row == p.n) {
      ++st.solutions;
      if (!f(view)) break;
      continue;
    }
    stack[d + 1] = next;
    avail[d + 1] = free_columns(next);
    ++d;
  }
  return st;
}

namespace {
void reference_search(Mask full, Mask cols, Mask dl, Mask dr, Count& solutions) {
  if (cols == full) {
    ++solutions;
    return;
  }
  Mask avail = full & ~(cols | dl | dr);
  while (avail) {
    const Mask bit = avail & (0u - avail);
    avail -= bit;
    reference_search(full, cols | bit, (dl | bit) << 1, (dr | bit) >> 1, solutions);
  }
}
}  // namespace

Count reference_total(int n) {
  const Mask full = full_mask(n);
  Count half = 0, middle = 0;
  for (int c = 0; c < n / 2; ++c) {
    const Mask bit = Mask{1} << c;
    reference_search(full, bit, bit << 1, bit >> 1, half);
  }
  if (n % 2) {
    const Mask bit = Mask{1} << (n / 2);
    reference_search(full, bit, bit << 1, bit >> 1, middle);
  }
  return 2 * half + middle;
}

}  // namespace nq::core
