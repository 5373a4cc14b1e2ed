#include "core/units.h"
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>

namespace nq::core {

std::span<const Column> WorkUnit::leading_rows(int n) const {
  std::size_t k = 0;
  while (k < static_cast<std::size_t>(n) && placement[k] != kEmptyRow) ++k;
  return {placement.data(), k};
}

namespace {

// The border of a full-symmetry unit: the columns of the queens of the top and bottom rows and
// the rows of the queens of the left and right columns. A corner queen appears twice.
struct Border {
  int top = 0, bottom = 0, left = 0, right = 0;
  friend bool operator==(const Border&, const Border&) = default;
};

Border image(int n, const Border& b, int k) {
  const int rs[4] = {0, n - 1, b.left, b.right};
  const int cs[4] = {b.top, b.bottom, 0, n - 1};
  Border out;
  for (int i = 0; i < 4; ++i) {
    int r = rs[i], c = cs[i];
    map_square(n, k, r, c);
    if (r == 0) out.top = c;
    if (r == n - 1) out.bottom = c;
    if (c == 0) out.left = r;
    if (c == n - 1) out.right = r;
  }
  return out;
}

// Which image of a border is its class representative: the one with the smallest key. Any
// fixed choice is correct; this one is fast. The search walks the interior top to bottom, so
// it pays to have the early rows constrained: a bottom queen near a corner has a long diagonal
// reaching the top rows, and a top queen near the middle blocks two squares in each row below
// it. Preferring those (then the lexicographic order of top, bottom, left, right) walks about
// 35 % fewer nodes than the plain lexicographic choice, within 10 % of the best image per class.
std::uint64_t representative_key(int n, const Border& b) {
  const auto u = static_cast<std::uint64_t>(n);
  auto off_centre = [&](int c) { return static_cast<std::uint64_t>(std::abs(2 * c - (n - 1))); };
  const std::uint64_t lex = ((static_cast<std::uint64_t>(b.top) * u +
                              static_cast<std::uint64_t>(b.bottom)) * u +
                             static_cast<std::uint64_t>(b.left)) * u +
                            static_cast<std::uint64_t>(b.right);
  const std::uint64_t shape = (u - off_centre(b.bottom)) * 2 * u + off_centre(b.top);
  return shape * u * u * u * u + lex;
}

// The symmetries that map the border to its distinct images (the first one is the identity),
// and whether the border is its class representative (if not, the rest is left incomplete).
struct Orbit {
  int size = 0;
  int symmetries[kSymmetries] = {};
  bool representative = true;
};

Orbit orbit_of(int n, const Border& b) {
  Orbit o;
  Border seen[kSymmetries];
  const std::uint64_t key = representative_key(n, b);
  for (int k = 0; k < kSymmetries; ++k) {
    const Border im = image(n, b, k);
    if (std::find(seen, seen + o.size, im) != seen + o.size) continue;
    if (representative_key(n, im) < key) {
      o.representative = false;
      return o;
    }
    seen[o.size] = im;
    o.symmetries[o.size++] = k;
  }
  return o;
}

// The border of a placement with rows 0 and n-1 filled and one queen in each of columns 0 and
// n-1, or nullopt.
std::optional<Border> border_of(int n, const Placement& p) {
  if (p[0] == kEmptyRow || p[n - 1] == kEmptyRow) return std::nullopt;
  Border b{p[0], p[n - 1], -1, -1};
  for (int r = 0; r < n; ++r) {
    if (p[r] == 0 && b.left < 0) b.left = r;
    if (p[r] == n - 1 && b.right < 0) b.right = r;
  }
  if (b.left < 0 || b.right < 0) return std::nullopt;
  return b;
}

// True if the border's queens (3 when one stands in a corner, else 4) do not attack each other.
bool border_is_valid(int n, const Border& b) {
  const int rs[4] = {0, n - 1, b.left, b.right};
  const int cs[4] = {b.top, b.bottom, 0, n - 1};
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) {
      if (rs[i] == rs[j] && cs[i] == cs[j]) continue;   // a corner queen, listed twice
      if (rs[i] == rs[j] || cs[i] == cs[j] || std::abs(rs[i] - rs[j]) == std::abs(cs[i] - cs[j]))
        return false;
    }
  return true;
}

// The border's queens as a placement, or nullopt if two of them share a row inconsistently.
std::optional<Placement> border_placement(int n, const Border& b) {
  Placement p = WorkUnit::empty_placement();
  const int rs[4] = {0, n - 1, b.left, b.right};
  const int cs[4] = {b.top, b.bottom, 0, n - 1};
  for (int i = 0; i < 4; ++i) {
    if (p[rs[i]] != kEmptyRow && p[rs[i]] != cs[i]) return std::nullopt;
    p[rs[i]] = static_cast<Column>(cs[i]);
  }
  return p;
}

}  // namespace

UnitPlan::UnitPlan(int n, int depth, Symmetry symmetry) : n_(n), depth_(depth), symmetry_(symmetry) {
  if (n < 1 || n > kMaxN)
    throw std::invalid_argument("board size " + std::to_string(n) + " is outside 1.." +
                                std::to_string(kMaxN));
  if (depth < 1 || depth > n)
    throw std::invalid_argument("depth " + std::to_string(depth) + " is outside 1.." +
                                std::to_string(n));
  if (symmetry != Symmetry::none && symmetry != Symmetry::mirror && symmetry != Symmetry::full)
    throw std::invalid_argument("unknown symmetry " + std::to_string(int(symmetry)));
}

bool UnitPlan::border_scheme() const { return symmetry_ == Symmetry::full && n_ >= kMinBorderN; }

Mask UnitPlan::allowed(int row, std::span<const Column> placed) const {
  const Mask full = full_mask(n_);
  if (symmetry_ == Symmetry::none || border_scheme()) return full;
  const Mask left_half = full_mask(n_ / 2);   // columns 0 .. n/2 - 1
  if (row == 0) return n_ % 2 ? left_half | (Mask{1} << (n_ / 2)) : left_half;
  if (row == 1 && n_ % 2 && placed[0] == n_ / 2) return left_half;
  return full;
}

std::uint32_t UnitPlan::multiplicity_of(const Placement& placement) const {
  if (border_scheme()) {
    // Rows 0..depth-1 and n-1 filled; any other filled row holds a side queen.
    for (int r = 0; r < kMaxN; ++r) {
      const bool filled = placement[r] != kEmptyRow;
      const bool required = r < depth_ || r == n_ - 1;
      if (r >= n_ ? filled : required ? !filled : filled && placement[r] != 0 && placement[r] != n_ - 1)
        return 0;
    }
    const auto border = border_of(n_, placement);
    if (!border || !prepare_search(n_, placement)) return 0;
    const Orbit o = orbit_of(n_, *border);
    return o.representative ? static_cast<std::uint32_t>(o.size) : 0;
  }
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

RowSearch UnitPlan::checked_search(const WorkUnit& u) const {
  const auto s = prepare_search(n_, u.placement);
  if (!s || u.multiplicity == 0 || multiplicity_of(u.placement) != u.multiplicity)
    throw std::invalid_argument("work unit " + std::to_string(u.id) + " " +
                                to_columns({u.placement.data(), std::size_t(n_)}) +
                                " does not belong to the plan n=" + std::to_string(n_) +
                                " depth=" + std::to_string(depth_) + " symmetry=" +
                                to_string(symmetry_));
  return *s;
}

SearchStats UnitPlan::count(const WorkUnit& u) const { return count_completions(checked_search(u)); }

SearchStats UnitPlan::count(const WorkUnit& u, const CancelFlag& cancel, Heartbeat* beat) const {
  return count_completions(checked_search(u), cancel, kCancelSplitLevels, beat);
}

UnitPlan::Images UnitPlan::image_symmetries(const WorkUnit& u) const {
  checked_search(u);
  Images im;
  if (u.multiplicity == 1) return im;
  if (!border_scheme()) {
    im.count = 2;
    im.symmetries[1] = 4;   // the mirror
    return im;
  }
  const Orbit o = orbit_of(n_, *border_of(n_, u.placement));
  // orbit_of's symmetries, in the order that stores best. The file keeps a column per row in
  // chunks of one column, so a group's images lie side by side in each column, and deflate
  // finds repeats where a run of them recurs in the next group. With each image next to its
  // mirror image (c -> n-1-c: the pairs 0 4, 5 3, 7 1, 2 6) runs recur most: N = 16 all,
  // 4.21 -> 3.21 bytes a board (the order found by a swap search on stored boards;
  // docs/performance.md). The identity stays first (check_unit_boards expects it).
  static constexpr int kStoreOrder[kSymmetries] = {0, 4, 5, 3, 7, 1, 2, 6};
  im.count = 0;
  for (const int k : kStoreOrder)
    if (std::find(o.symmetries, o.symmetries + o.size, k) != o.symmetries + o.size) im.symmetries[im.count++] = k;
  return im;
}

SearchStats UnitPlan::visit_boards(const WorkUnit& u, const BoardFn& f) const {
  const RowSearch s = checked_search(u);
  const Images im = image_symmetries(u);
  if (im.count == 1) return visit_completions(s, f);
  Column image[kMaxN];
  const BoardView image_view(image, static_cast<std::size_t>(n_));
  return visit_completions(s, [&](BoardView b) {
    if (!f(b)) return false;
    for (int i = 1; i < im.count; ++i) {
      transform_into(b, im.symmetries[i], image);
      if (!f(image_view)) return false;
    }
    return true;
  });
}

std::uint64_t UnitPlan::size(const StopFn& stop) const {
  return count_up_to(std::numeric_limits<std::uint64_t>::max(), stop);
}

std::uint64_t UnitPlan::count_up_to(std::uint64_t cap, const StopFn& stop) const {
  UnitCursor cursor(*this);
  return cursor.count_rest(cap, stop);
}

std::vector<WorkUnit> UnitPlan::units() const {
  std::vector<WorkUnit> out;
  UnitCursor cursor(*this);
  WorkUnit u;
  while (cursor.next(u)) out.push_back(u);
  return out;
}

UnitCursor::UnitCursor(const UnitPlan& plan) : plan_(plan) {}

bool UnitCursor::next_base() {
  const int n = plan_.n();
  if (!plan_.border_scheme()) {
    if (!first_base_) return false;   // the empty board is the only base
    first_base_ = false;
    placement_ = WorkUnit::empty_placement();
    levels_ = plan_.depth();
    for (int i = 0; i < levels_; ++i) rows_[i] = i;
    return true;
  }
  for (;;) {   // (top, bottom, left, right) in lexicographic order, right fastest
    int i = 3;
    while (i >= 0 && ++border_[i] == n) border_[i--] = 0;
    if (i < 0) return false;
    const Border b{border_[0], border_[1], border_[2], border_[3]};
    if (!border_is_valid(n, b)) continue;
    const Orbit o = orbit_of(n, b);
    if (!o.representative) continue;
    placement_ = *border_placement(n, b);
    base_multiplicity_ = static_cast<std::uint32_t>(o.size);
    levels_ = 0;
    for (int r = 1; r < plan_.depth(); ++r)
      if (placement_[r] == kEmptyRow) rows_[levels_++] = r;
    return true;
  }
}

Mask UnitCursor::free_in(int level) const {
  const int n = plan_.n();
  const int row = rows_[level];
  return full_mask(n) & ~attacked_squares(n, placement_, row) &
         plan_.allowed(row, {placement_.data(), std::size_t(row)});
}

// The depth-first walk behind next() and count_rest(), over the bases and, for each, the
// fillings of its levels. The visitor is told when the walk finds a base that is a unit by
// itself (base_unit), arrives at a level with that level's free squares in avail_[d_], which it
// may take all at once by clearing them (level), and fills the last level (leaf); each returns
// true to pause the walk, which the next call resumes.
template <class Visitor>
bool UnitCursor::walk(Visitor& v) {
  while (!done_) {
    if (!in_base_) {
      if (!next_base()) {
        done_ = true;
        break;
      }
      if (levels_ == 0) {
        if (v.base_unit()) return true;
        continue;
      }
      in_base_ = true;
      d_ = 0;
      avail_[0] = free_in(0);
      if (v.level()) return true;
    }
    if (!avail_[d_]) {
      placement_[rows_[d_]] = kEmptyRow;
      if (d_ == 0)
        in_base_ = false;
      else
        --d_;
      continue;
    }
    const int c = std::countr_zero(avail_[d_]);
    avail_[d_] &= avail_[d_] - 1;
    placement_[rows_[d_]] = static_cast<Column>(c);
    if (d_ + 1 == levels_) {
      if (v.leaf()) return true;
      continue;
    }
    ++d_;
    avail_[d_] = free_in(d_);
    if (v.level()) return true;
  }
  return false;
}

bool UnitCursor::next(WorkUnit& out) {
  struct Emit {
    UnitCursor& c;
    WorkUnit& out;
    bool base_unit() { return leaf(); }
    bool level() { return false; }
    bool leaf() {
      out.id = c.next_id_++;
      out.placement = c.placement_;
      out.multiplicity = c.plan_.border_scheme() ? c.base_multiplicity_ : c.plan_.multiplicity_of(c.placement_);
      return true;
    }
  } emit{*this, out};
  return walk(emit);
}

std::uint64_t UnitCursor::count_rest(std::uint64_t cap, const StopFn& stop) {
  // The walk of next(), except that the last two levels are counted without being walked: for
  // each free square c of the next-to-last row, the free squares of the last row (computed
  // once, without c) minus the three that c attacks. Only the mirror scheme's row 1 of an odd
  // board depends on row 0 otherwise (allowed()); there the last level alone is counted.
  struct Counter {
    UnitCursor& c;
    std::uint64_t cap;
    StopPoll poll;
    bool row1_depends;
    std::uint64_t units = 0;
    bool base_unit() { return ++units >= cap; }
    bool leaf() { return ++units >= cap; }   // not reached: level() takes the last levels
    bool level() {
      poll.tick();
      const int d = c.d_;
      if (d + 2 == c.levels_ && !(row1_depends && c.rows_[d + 1] == 1)) {
        const Mask last = c.free_in(d + 1);   // row rows_[d] is still empty here
        const int gap = c.rows_[d + 1] - c.rows_[d];
        for (Mask m = c.avail_[d]; m; m &= m - 1) {
          const int col = std::countr_zero(m);
          Mask hit = Mask{1} << col;
          if (col + gap < kMaxN) hit |= Mask{1} << (col + gap);
          if (col - gap >= 0) hit |= Mask{1} << (col - gap);
          units += static_cast<std::uint64_t>(std::popcount(last & ~hit));
        }
        c.avail_[d] = 0;
      } else if (d + 1 == c.levels_) {
        units += static_cast<std::uint64_t>(std::popcount(c.avail_[d]));
        c.avail_[d] = 0;
      }
      return units >= cap;
    }
  } counter{*this, cap, StopPoll(stop, "counting the work units"),
            !plan_.border_scheme() && plan_.symmetry() == Symmetry::mirror && plan_.n() % 2 == 1};
  if (cap > 0) walk(counter);
  done_ = true;
  return std::min(counter.units, cap);
}

std::vector<SizeEstimate> estimate_sizes(const UnitPlan& plan) {
  const int depth = plan.depth();
  constexpr std::size_t kMaxFrontier = 1 << 16;
  constexpr std::size_t kProbes = 1 << 16;
  // A base placement and, per level, the first depth whose units are the nodes of that level
  // (depth d needs the base's empty rows above row d: rows 1..d-1 for the border scheme, rows
  // 0..d-1 otherwise; a row filled by the base adds no level).
  struct Base {
    int levels = 0;
    int rows[kMaxN] = {};
    std::uint8_t first_depth[kMaxN + 2] = {};   // depths first_depth[l] .. first_depth[l+1]-1
  };
  struct Node {
    Placement placement;
    std::uint32_t base;
    Mask free;   // of its next level
  };
  std::vector<Base> bases;
  std::vector<Node> frontier;
  UnitCursor cursor(plan);
  while (cursor.next_base()) {
    Base b;
    b.levels = cursor.levels_;
    std::copy_n(cursor.rows_, b.levels, b.rows);
    // levels needed by depth d = rows of the base's list below row d
    int level = 0;
    for (int d = 1; d <= depth + 1; ++d) {
      const int need = d > depth ? b.levels + 1 : int(std::count_if(b.rows, b.rows + b.levels, [&](int r) { return r < d; }));
      while (level < need) b.first_depth[++level] = static_cast<std::uint8_t>(d);
    }
    b.first_depth[0] = 1;
    frontier.push_back({cursor.placement_, static_cast<std::uint32_t>(bases.size()), 0});
    bases.push_back(b);
  }
  std::vector<double> units(static_cast<std::size_t>(depth) + 1, 0.0);
  std::vector<bool> sampled(units.size(), false);
  // w more nodes at `level` of base b: they count for every depth whose units they are.
  auto add_to = [&](std::vector<double>& to, const Base& b, int level, double w) {
    for (int d = b.first_depth[level]; d < b.first_depth[level + 1]; ++d) to[static_cast<std::size_t>(d)] += w;
  };
  auto add = [&](const Base& b, int level, double w) { add_to(units, b, level, w); };
  auto free_at = [&](const Node& x, int level) {
    cursor.placement_ = x.placement;
    std::copy_n(bases[x.base].rows, bases[x.base].levels, cursor.rows_);
    return cursor.free_in(level);
  };
  for (const Node& x : frontier) add(bases[x.base], 0, 1.0);
  // Breadth-first while the next level is small: every node of `level` is in the frontier.
  int level = 0;
  for (;;) {
    std::erase_if(frontier, [&](const Node& x) { return bases[x.base].levels <= level; });
    if (frontier.empty()) break;
    std::uint64_t children = 0;
    for (Node& x : frontier) {
      x.free = free_at(x, level);
      children += static_cast<std::uint64_t>(std::popcount(x.free));
      add(bases[x.base], level + 1, std::popcount(x.free));   // the next level, exactly
    }
    if (children > kMaxFrontier) break;
    std::vector<Node> next;
    next.reserve(children);
    for (const Node& x : frontier) {
      const Base& b = bases[x.base];
      for (Mask m = x.free; m; m &= m - 1) {
        Node child = x;
        child.placement[b.rows[level]] = static_cast<Column>(std::countr_zero(m));
        next.push_back(child);
      }
    }
    frontier = std::move(next);
    ++level;
  }
  // Knuth's estimator below the frontier's children: a random descent multiplies the numbers
  // of free squares on its way; its product at a level estimates that level's nodes.
  // The error: the spread of the frontier nodes' estimates, treated as one random sample. Rough:
  // it overstates what stratifying by node removes and understates the probes' heavy tail
  // (measured: the actual error was within 2.5 of these standard errors).
  std::vector<double> sum(units.size(), 0.0), sum_sq(units.size(), 0.0), mine(units.size());
  if (!frontier.empty()) {
    std::mt19937_64 rng(std::uint64_t(plan.n()) << 16 | std::uint64_t(depth) << 8 |
                        static_cast<std::uint64_t>(plan.symmetry()));
    const std::size_t per_node = std::max<std::size_t>(1, kProbes / frontier.size());
    for (const Node& x : frontier) {
      const Base& b = bases[x.base];
      for (int d = b.first_depth[level + 2 > b.levels ? b.levels + 1 : level + 2]; d <= depth; ++d) sampled[d] = true;
      std::copy_n(b.rows, b.levels, cursor.rows_);
      std::fill(mine.begin(), mine.end(), 0.0);
      for (std::size_t p = 0; p < per_node; ++p) {
        cursor.placement_ = x.placement;
        double w = 1.0 / static_cast<double>(per_node);
        for (int l = level;; ++l) {
          const Mask m = l == level ? x.free : cursor.free_in(l);
          const int c = std::popcount(m);
          if (c == 0) break;
          w *= c;
          if (l > level) add_to(mine, b, l + 1, w);
          if (l + 1 == b.levels) break;
          Mask pick = m;
          for (auto k = rng() % static_cast<std::uint64_t>(c); k > 0; --k) pick &= pick - 1;
          cursor.placement_[b.rows[l]] = static_cast<Column>(std::countr_zero(pick));
        }
      }
      for (std::size_t d = 1; d < units.size(); ++d) {
        units[d] += mine[d];
        sum[d] += mine[d];
        sum_sq[d] += mine[d] * mine[d];
      }
    }
  }
  std::vector<SizeEstimate> out;
  const auto m = static_cast<double>(frontier.size());
  for (std::size_t d = 1; d < units.size(); ++d) {
    const double variance = m > 1 ? std::max(0.0, sum_sq[d] - sum[d] * sum[d] / m) * m / (m - 1) : 0.0;
    const double error = units[d] > 0 && sampled[d] ? std::sqrt(variance) / units[d] : 0.0;
    out.push_back({units[d], !sampled[d], sampled[d] && m == 1 ? 1.0 : error});
  }
  return out;
}

int default_depth(int n, std::uint64_t min_units, Symmetry symmetry, const StopFn& stop) {
  for (int k = 1; k < n; ++k)
    if (UnitPlan(n, k, symmetry).count_up_to(min_units, stop) >= min_units) return k;
  return n;
}

// 2000 units up to N = 17 (few units: each costs the master a message share, a journal record
// and a table row, which at N = 16-17 is measurable), then x2.5 per N, about a third of the
// tree's growth per N, so units get slowly longer: with the full plan ~1 ms of one core at
// N = 18, ~0.1 s at N = 22, ~20 s at N = 27 (README, capacity model).
std::uint64_t default_run_min_units(int n) {
  double units = 2000;
  for (int k = 18; k <= n; ++k) units *= 2.5;
  return static_cast<std::uint64_t>(std::min(units, 2e8));
}

int default_run_depth(int n, Symmetry symmetry, const StopFn& stop) {
  return std::min(default_depth(n, default_run_min_units(n), symmetry, stop), std::max(1, n - 4));
}

}  // namespace nq::core
