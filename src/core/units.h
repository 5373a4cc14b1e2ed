// Work units: a deterministic enumeration of partial boards (pre-placements), each standing for
// `multiplicity` images of itself under the symmetries of the square, so that
//   total = sum over units of multiplicity * completions(unit).
// The master enumerates units with a UnitCursor; workers call UnitPlan::count / visit_boards.
// A UnitPlan is immutable after construction and safe to share between threads.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>
#include "core/board.h"
#include "core/kernel.h"
#include "core/names.h"
#include "core/stop.h"
#include "core/types.h"

namespace nq::core {

// How the units use the symmetries of the square. Callers only see multiplicities.
//   none:   the valid placements of rows 0..depth-1, multiplicity 1
//   mirror: the same with the first queen in the left half (x2); for odd N with the first queen
//           in the middle column, the second queen in the left half (x2); depth 1 keeps that
//           unit at x1
//   full:   the whole group of 8 rotations and reflections, by pre-placing the border:
//           1. every solution has exactly one border: the queens of row 0, row N-1, column 0
//              and column N-1 (3 queens when one stands in a corner, else 4); a symmetry maps
//              borders to borders, so the solutions with border B and those with border g(B)
//              correspond one to one;
//           2. of each class of borders only one, the representative, becomes units; their
//              multiplicity is the number of distinct images of the border (8, 4 or 2), and a
//              completion stands for itself and its images under one symmetry per distinct
//              image of the border (no special case for symmetric borders or boards);
//           3. `depth` d pre-places, besides the border, the queens of rows 1..d-1: a unit fills
//              rows 0..d-1, row N-1 and the rows of the queens in columns 0 and N-1, and the
//              search fills the rest. Depth 1 is the border alone (N = 16: 3206 units,
//              N = 18: 5728); each further row multiplies the units by roughly N/2 (N = 18:
//              5728, 59390, 448259, 2600476 at depths 1..4); depth N leaves nothing to search;
//           4. for N <= 3 (N = 2, 3 have no valid border) it is the mirror scheme, so that a
//              plan always has units.
//           The search walks about 0.37x the nodes of the mirror scheme.
enum class Symmetry : std::uint8_t { none = 0, mirror = 1, full = 2 };
template <>
struct EnumNames<Symmetry> {
  static constexpr std::string_view what = "symmetry";
  static constexpr std::array table{std::pair{Symmetry::none, std::string_view("none")},
                                    std::pair{Symmetry::mirror, std::string_view("mirror")},
                                    std::pair{Symmetry::full, std::string_view("full")}};
};

// The multiplicity of most units of a plan: every unit's under none (1) and mirror (2, but 1 for
// the middle column at depth 1 of odd N), all but those on a symmetric border under full (8;
// those 4 or 2).
constexpr int usual_multiplicity(Symmetry s) { return s == Symmetry::full ? 8 : s == Symmetry::mirror ? 2 : 1; }

// A work unit is a partial board: some rows hold a pre-placed queen, the others are left to
// the search. none/mirror plans pre-place rows 0..depth-1; full plans also the border rows.
struct WorkUnit {
  std::uint64_t id = 0;            // position in the enumeration: 0, 1, 2, ...
  std::uint32_t multiplicity = 1;  // solutions of the whole board this unit's solutions stand for
  Placement placement = empty_placement();   // column per row, or kEmptyRow

  static constexpr Placement empty_placement() {
    Placement a{};
    a.fill(kEmptyRow);
    return a;
  }
  // The first rows up to the first empty one (the whole pre-placement for first-row plans).
  std::span<const Column> leading_rows(int n) const;
};

class UnitPlan {
 public:
  // Throws std::invalid_argument unless 1 <= n <= kMaxN and 1 <= depth <= n.
  UnitPlan(int n, int depth, Symmetry symmetry = Symmetry::mirror);

  int n() const { return n_; }
  int depth() const { return depth_; }
  Symmetry symmetry() const { return symmetry_; }

  // Number of units, counted exactly: the walk of UnitCursor, with the last row's fillings
  // counted by popcount instead of one by one. Polls `stop` (Interrupted, see core/stop.h).
  std::uint64_t size(const StopFn& stop = {}) const;
  // min(size(), cap), stopping the walk as soon as `cap` units were counted.
  std::uint64_t count_up_to(std::uint64_t cap, const StopFn& stop = {}) const;
  // All units in id order (for local runs; the master streams them with UnitCursor instead).
  std::vector<WorkUnit> units() const;

  // Completions of the unit's pre-placement (not multiplied). Throws std::invalid_argument if
  // the unit does not belong to this plan (wrong rows filled, attacking queens, an image the
  // plan leaves out, wrong multiplicity).
  SearchStats count(const WorkUnit& u) const;
  // The same, ended early by another thread: Interrupted once `cancel` is set; `beat` says
  // when the search last checked it (count_completions).
  SearchStats count(const WorkUnit& u, const CancelFlag& cancel, Heartbeat* beat = nullptr) const;
  // Every full board this unit stands for: each completion followed by its images under the
  // symmetries the multiplicity covers (mirror: the mirror image; full: one image per distinct
  // image of the border), multiplicity * count(u) boards in all, distinct across units.
  SearchStats visit_boards(const WorkUnit& u, const BoardFn& f) const;
  // The symmetries (core/board.h numbering) that visit_boards applies to each completion of
  // `u`, the identity first: {0} for multiplicity 1, {0, 4} (the mirror) under mirror, one per
  // distinct image of the border under full, in the order that compresses best (units.cpp);
  // `count` == u.multiplicity. Throws as count() does.
  struct Images {
    int count = 1;
    std::array<int, kSymmetries> symmetries{};
  };
  Images image_symmetries(const WorkUnit& u) const;
  // The unit's pre-placement compiled for the search (what count and visit_boards search).
  // Throws std::invalid_argument if the unit does not belong to this plan.
  RowSearch checked_search(const WorkUnit& u) const;

  // The multiplicity the plan gives a pre-placement; 0 if it is not one of the plan's units
  // (wrong rows filled, attacking queens, or an image the symmetry reduction leaves out).
  std::uint32_t multiplicity_of(const Placement& placement) const;

 private:
  friend class UnitCursor;
  static constexpr int kMinBorderN = 4;   // smaller boards use the mirror scheme under `full`
  bool border_scheme() const;
  // Columns allowed in `row` given the columns of rows 0..row-1 (none/mirror restriction).
  Mask allowed(int row, std::span<const Column> placed) const;
  int n_;
  int depth_;
  Symmetry symmetry_;
};

// The number of units of a plan, before enumerating it: exact where the levels were walked,
// else estimated (relative error a few percent where it matters, near 1e8-1e9 units; a
// factor of a few for plans of 1e15 units and more, which no limit lets through anyway).
struct SizeEstimate {
  double units = 0;
  bool exact = false;
  double relative_error = 0;   // estimated standard error / units (rough, see units.cpp); 0 if exact
};
// Estimates for the depths 1..plan.depth() of the plan's N and symmetry (element d-1: depth
// d), in one pass: the levels are walked breadth-first while they hold at most 65,536 nodes,
// the next level is counted exactly by popcount, and the deeper ones are estimated by Knuth's
// random probes (65,536 of them, from every node of the last walked level; a fixed seed, so
// the same plan always gets the same estimate). Takes well under 0.1 s for any N <= 32 and
// depth <= N. Thread-safe.
std::vector<SizeEstimate> estimate_sizes(const UnitPlan& plan);

// Streams a plan's units in id order without storing them: for each base placement (none /
// mirror: the empty board; full: each border representative, in lexicographic order of the
// columns of its top and bottom queens and the rows of its left and right queens), the valid
// fillings of the base's empty rows among 0..depth-1, in lexicographic order.
class UnitCursor {
 public:
  explicit UnitCursor(const UnitPlan& plan);
  // Fills `out` with the next unit; false when the enumeration is exhausted.
  bool next(WorkUnit& out);
  // Counts the units next() would still return, up to `cap`, without returning them (the last
  // row's fillings by popcount); the cursor is exhausted afterwards. Polls `stop`.
  std::uint64_t count_rest(std::uint64_t cap, const StopFn& stop = {});

 private:
  friend std::vector<SizeEstimate> estimate_sizes(const UnitPlan& plan);
  template <class Visitor>
  bool walk(Visitor& v);   // the walk of next() and count_rest() (units.cpp)
  bool next_base();   // advances to the next base placement; false when there is none
  Mask free_in(int level) const;   // the squares of rows_[level] the placement leaves free
  const UnitPlan& plan_;
  bool first_base_ = true;
  bool done_ = false;
  bool in_base_ = false;   // the fillings of the current base are being enumerated
  std::uint64_t next_id_ = 0;
  std::array<int, 4> border_{0, 0, 0, -1};   // full: the last border tried (top, bottom, left, right)
  std::uint32_t base_multiplicity_ = 1;
  Placement placement_ = WorkUnit::empty_placement();
  int rows_[kMaxN] = {};   // the rows the cursor fills under the base, top to bottom
  int levels_ = 0;
  int d_ = 0;
  Mask avail_[kMaxN + 1] = {};
};

// Smallest depth giving at least `min_units` units (capped at n), for a plan with `symmetry`.
// Counts at most min_units units per depth tried; polls `stop`.
int default_depth(int n, std::uint64_t min_units, Symmetry symmetry = Symmetry::mirror,
                  const StopFn& stop = {});

// The distributed job's default plan (`nqueens run` without a depth): at least
// default_run_min_units(n) units, at most n - 4 pre-placed rows. It depends on N and the
// symmetry only, so a rerun on another number of ranks resumes the same plan.
std::uint64_t default_run_min_units(int n);
int default_run_depth(int n, Symmetry symmetry, const StopFn& stop = {});

}  // namespace nq::core
