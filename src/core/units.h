// Work units: a deterministic enumeration of the valid placements of the first `depth` rows,
// each standing for `multiplicity` mirror images, so that
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
#include "core/types.h"

namespace nq::core {

// How the units use the symmetries of the square. Callers only see multiplicities, so a
// stronger reduction can replace `mirror` without touching them.
//   none:   every prefix, multiplicity 1
//   mirror: first queen in the left half (x2); for odd N with the first queen in the middle
//           column, the second queen in the left half (x2); depth 1 keeps that unit at x1
enum class Symmetry : std::uint8_t { none = 0, mirror = 1 };
std::string to_string(Symmetry s);
Symmetry symmetry_from_string(const std::string& s);   // throws std::invalid_argument

// A work unit is a partial board: some rows hold a pre-placed queen, the others are left to
// the search. Plans that pre-place the first rows use rows 0..depth-1; other plans may
// pre-place any rows (e.g. the border of the board).
inline constexpr Column kEmptyRow = 0xFF;
struct WorkUnit {
  std::uint64_t id = 0;            // position in the enumeration: 0, 1, 2, ...
  std::uint32_t multiplicity = 1;  // solutions of the whole board this unit's solutions stand for
  std::array<Column, kMaxN> placement = empty_placement();   // column per row, or kEmptyRow

  static constexpr std::array<Column, kMaxN> empty_placement() {
    std::array<Column, kMaxN> a{};
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

  // Number of units (enumerates them once; cheap next to counting them).
  std::uint64_t size() const;
  // All units in id order (for local runs; the master streams them with UnitCursor instead).
  std::vector<WorkUnit> units() const;

  // Completions of the unit's prefix (not multiplied). Throws std::invalid_argument if the
  // unit does not belong to this plan (bad depth, attacking queens).
  SearchStats count(const WorkUnit& u) const;
  // Every full board this unit stands for (its completions and, for multiplicity 2, their
  // mirror images right after each), multiplicity * count(u) boards in all.
  SearchStats visit_boards(const WorkUnit& u, const BoardFn& f) const;

  // The multiplicity the plan gives a pre-placement; 0 if it is not one of the plan's units
  // (wrong rows filled, attacking queens, or an image the symmetry reduction leaves out).
  std::uint32_t multiplicity_of(const std::array<Column, kMaxN>& placement) const;

 private:
  friend class UnitCursor;
  Partial checked_partial(const WorkUnit& u) const;
  // Columns allowed in `row` given the columns already placed (the symmetry restriction).
  Mask allowed(int row, std::span<const Column> placed) const;
  int n_;
  int depth_;
  Symmetry symmetry_;
};

// Streams a plan's units in id order without storing them.
class UnitCursor {
 public:
  explicit UnitCursor(const UnitPlan& plan);
  // Fills `out` with the next unit; false when the enumeration is exhausted.
  bool next(WorkUnit& out);

 private:
  const UnitPlan& plan_;
  int d_ = 0;
  bool done_ = false;
  std::uint64_t next_id_ = 0;
  Partial state_[kMaxN + 1];
  Mask avail_[kMaxN + 1];
  std::array<Column, kMaxN> prefix_{};
};

// Smallest depth giving at least `min_units` units (capped at n), for a plan with `symmetry`.
int default_depth(int n, std::uint64_t min_units, Symmetry symmetry = Symmetry::mirror);

}  // namespace nq::core
