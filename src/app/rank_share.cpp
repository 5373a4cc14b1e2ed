// app/rank_share.h.
#include "app/rank_share.h"
#include <algorithm>

namespace nq::app {

std::uint64_t rows_in(const std::vector<RowSpan>& spans) {
  std::uint64_t n = 0;
  for (const auto& s : spans) n += s.end - s.begin;
  return n;
}

std::vector<RowSpan> rank_share(const std::vector<RowSpan>& spans, int rank, int ranks) {
  const auto r = static_cast<std::uint64_t>(rank), n = static_cast<std::uint64_t>(ranks);
  const std::uint64_t block = std::clamp<std::uint64_t>(rows_in(spans) / (n * 64), 1, kDealBlock);
  std::vector<RowSpan> mine;
  std::uint64_t position = 0;   // in the selection, of `row`
  for (const auto& s : spans)
    for (std::uint64_t row = s.begin; row < s.end;) {
      const std::uint64_t len = std::min(s.end - row, block - position % block);
      if ((position / block) % n == r) {
        if (!mine.empty() && mine.back().end == row) mine.back().end = row + len;
        else mine.push_back({row, row + len});
      }
      row += len;
      position += len;
    }
  return mine;
}

}  // namespace nq::app
