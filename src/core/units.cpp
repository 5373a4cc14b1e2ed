#include "core/units.h"
#include <algorithm>
#include <bit>

namespace nq::core {

std::string to_string(Symmetry s) { return s == Symmetry::none ? "none" : "mirror"; }

Symmetry symmetry_from_string(const std::string& s) {
  if (s == "none") return Symmetry::none;
  if (s == "mirror") return Symmetry::mirror;
  throw std::invalid_argument("unknown symmetry '" + s + "' (expected none or mirror)");
}

std::span<const Column> WorkUnit::leading_rows(int n) const {
  std::size_t k = 0;
  while (k < static_cast<std::size_t>(n) && placement[k] != kEmptyRow) ++k;
  return {placement.data(), k};
}

UnitPlan::UnitPlan(int n, int depth, Symmetry symmetry) : n_(n), depth_(depth), symmetry_(symmetry) {
  if (n < 1 || n > kMaxN)
    throw std::invalid_argument("board size " + std::to_string(n) + " is outside 1.." +
                                std::to_string(kMaxN));
  if (depth < 1 || depth > n)
    throw std::invalid_argument("depth " + std::to_string(depth) + " is outside 1.." +
                                std::to_string(n));
}

Mask UnitPlan::allowed(int row, std::span<const Column> placed) const {
  const Mask full = full_mask(n_);
  if (symmetry_ == Symmetry::none) return full;
  const Mask left_half = full_mask(n_ / 2);   // columns 0 .. n/2 - 1
  if (row == 0) return n_ % 2 ? left_half | (Mask{1} << (n_ / 2)) : left_half;
  if (row == 1 && n_ % 2 && placed[0] == n_ / 2) return left_half;
  return full;
}

std::uint32_t UnitPlan::multiplicity_of(const std::array<Column, kMaxN>& placement) const {
  for (int r = depth_; r < kMaxN; ++r)
    if (placement[r] != kEmptyRow) return 0;
  const std::span<const Column> prefix(placement.data(), depth_);
  if (!place_prefix(n_, prefix)) return 0;
  for (int r = 0; r < depth_; ++r)
    if (!(allowed(r, prefix) & (Mask{1} << prefix[r]))) return 0;
  if (symmetry_ == Symmetry::none) return 1;
  const bool middle_first = n_ % 2 && prefix[0] == n_ / 2;
  return middle_first && depth_ == 1 ? 1 : 2;
}

Partial UnitPlan::checked_partial(const WorkUnit& u) const {
  const auto p = place_prefix(n_, u.leading_rows(n_));
  if (!p || multiplicity_of(u.placement) != u.multiplicity)
    throw std::invalid_argument("work unit " + std::to_string(u.id) + " " +
                                to_columns(u.leading_rows(n_)) + " does not belong to the plan n=" +
                                std::to_string(n_) + " depth=" + std::to_string(depth_));
  return *p;
}

SearchStats UnitPlan::count(const WorkUnit& u) const { return count_completions(checked_partial(u)); }

SearchStats UnitPlan::visit_boards(const WorkUnit& u, const BoardFn& f) const {
  const Partial p = checked_partial(u);
  if (u.multiplicity == 1) return visit_completions(p, u.leading_rows(n_), f);
  return visit_completions(p, u.leading_rows(n_), [&](BoardView b) {
    const Board m = mirror(b);
    return f(b) && f(m);
  });
}

std::uint64_t UnitPlan::size() const {
  UnitCursor cursor(*this);
  WorkUnit u;
  std::uint64_t count = 0;
  while (cursor.next(u)) ++count;
  return count;
}

std::vector<WorkUnit> UnitPlan::units() const {
  std::vector<WorkUnit> out;
  UnitCursor cursor(*this);
  WorkUnit u;
  while (cursor.next(u)) out.push_back(u);
  return out;
}

UnitCursor::UnitCursor(const UnitPlan& plan) : plan_(plan) {
  state_[0] = Partial{plan.n(), 0, 0, 0, 0};
  avail_[0] = free_columns(state_[0]) & plan.allowed(0, {});
}

bool UnitCursor::next(WorkUnit& out) {
  const int depth = plan_.depth();
  while (!done_) {
    if (!avail_[d_]) {
      if (d_ == 0) {
        done_ = true;
        break;
      }
      --d_;
      continue;
    }
    const int c = std::countr_zero(avail_[d_]);
    avail_[d_] &= avail_[d_] - 1;
    prefix_[d_] = static_cast<Column>(c);
    state_[d_ + 1] = place(state_[d_], c);
    if (d_ + 1 == depth) {
      out.id = next_id_++;
      out.placement = WorkUnit::empty_placement();
      std::copy_n(prefix_.begin(), depth, out.placement.begin());
      out.multiplicity = plan_.multiplicity_of(out.placement);
      return true;
    }
    ++d_;
    avail_[d_] = free_columns(state_[d_]) & plan_.allowed(d_, {prefix_.data(), std::size_t(d_)});
  }
  return false;
}

int default_depth(int n, std::uint64_t min_units, Symmetry symmetry) {
  for (int k = 1; k < n; ++k)
    if (UnitPlan(n, k, symmetry).size() >= min_units) return k;
  return n;
}

}  // namespace nq::core
