// How the peer ranks of `nqueens check` and of `nqueens count` divide their work: a selection
// of rows (a result file's /units rows, or a plan's units by id) dealt to the ranks in turn.
// Plain values, no MPI: every rank computes its own share from the same selection.
#pragma once
#include <cstdint>
#include <vector>

namespace nq::app {

// Rows [begin, end): of a result file's /units, or ids of a plan's units.
struct RowSpan {
  std::uint64_t begin = 0, end = 0;
  bool operator==(const RowSpan&) const = default;
};

std::uint64_t rows_in(const std::vector<RowSpan>& spans);

// The rows of `spans` (increasing and disjoint: a selection) that rank `rank` of `ranks` takes.
// The selection's rows are dealt to the ranks in turn, a block of consecutive rows at a time: 1
// for a small selection, so that every rank gets some of a sample, up to kDealBlock for a large
// one, so that each rank reads runs of rows. A plan's first units are its heaviest (N = 24's
// ~20x the mean), and dealing spreads them over the ranks.
inline constexpr std::uint64_t kDealBlock = 256;
std::vector<RowSpan> rank_share(const std::vector<RowSpan>& spans, int rank, int ranks);

}  // namespace nq::app
