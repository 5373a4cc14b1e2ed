// Board enumeration for boards mode: every solution, or one representative (the canonical,
// lexicographically smallest image) per symmetry class with its class size. Deterministic
// order: units in id order, boards within a unit as UnitPlan::visit_boards gives them (each
// completion, in lexicographic order, followed by its images; class: the canonical images of
// the completions, grouped by the symmetry that gives them, in the completions' order).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>
#include "core/names.h"
#include "core/units.h"

namespace nq::core {

enum class BoardSet : std::uint8_t { all = 0, classes = 1 };
template <>
struct EnumNames<BoardSet> {
  static constexpr std::string_view what = "board set";
  static constexpr std::array table{std::pair{BoardSet::all, std::string_view("all")},
                                    std::pair{BoardSet::classes, std::string_view("class")}};
};

// f(board, class_size): class_size is the size of the board's symmetry class (8, 4, 2; 1 for
// N = 1), given in both modes.
using ClassBoardFn = std::function<void(BoardView, int)>;

// The boards unit `u` contributes under `set`. Returns the search stats of the unit.
SearchStats visit_unit_boards(const UnitPlan& plan, const WorkUnit& u, BoardSet set,
                              const ClassBoardFn& f);

// The boards of unit `u` under `set`, appended to `boards` (n columns a board) and, in class
// mode, their class sizes to `class_sizes` (left alone in all mode): the boards, order and stats
// of visit_unit_boards, made for throughput (no call per board). Equal to append_unit_results
// followed, in all mode, by append_unit_images. Throws std::invalid_argument as UnitPlan::count
// does.
SearchStats append_unit_boards(const UnitPlan& plan, const WorkUnit& u, BoardSet set,
                               std::vector<Column>& boards, std::vector<std::uint8_t>& class_sizes);

// What a worker computes for unit `u`, sends, and the master journals: the unit's boards in the
// form the master checks (check_unit_boards).
//   all:   the unit's completions, in lexicographic order (append_completions): its boards are
//          each completion followed by its images under image_symmetries(u), which the master
//          makes where it stores them (append_unit_images), so a result carries
//          1/multiplicity of the unit's board bytes;
//   class: the unit's boards as stored, with their class sizes: the canonical image found from
//          the unit's border (see boards.cpp); units that hold no canonical board only counted.
// Throws std::invalid_argument as UnitPlan::count does.
SearchStats append_unit_results(const UnitPlan& plan, const WorkUnit& u, BoardSet set,
                                std::vector<Column>& boards, std::vector<std::uint8_t>& class_sizes);

// All mode: the stored boards of completions of unit `u` (n columns each, as append_unit_results
// gives them, or any run of them), appended to `out`: each completion followed by its images
// under image_symmetries(u), by one loop per symmetry. Throws std::invalid_argument as
// UnitPlan::count does.
void append_unit_images(const UnitPlan& plan, const WorkUnit& u, std::span<const Column> completions,
                        std::vector<Column>& out);

// The master's check of the results a worker sent for unit `u` (append_unit_results' form,
// claiming `solutions` completions), as far as it can be seen without searching:
//   all:   `solutions` boards, each a solution completing the unit's pre-placement, later than
//          the previous one in lexicographic order (the images are the master's own);
//   class: a class size per board; each board a solution of the given class size, canonical
//          (is_canonical), and g(c) for a completion c of the unit and a symmetry g of
//          image_symmetries(u), in strictly increasing order of (g, c) (append_unit_boards'
//          order: g the smallest symmetry number of G with g(c) the board, c lexicographic).
// Then the boards are solutions, distinct within the unit, and distinct across units: every
// board of the plan is in exactly one unit's group (a completion and its images), and a board
// that passes lies in this unit's. Returns nullopt, or what is wrong (for an error message).
// Throws std::invalid_argument if `u` is not one of the plan's units.
std::optional<std::string> check_unit_boards(const UnitPlan& plan, const WorkUnit& u, BoardSet set,
                                             std::uint64_t solutions, std::span<const Column> boards,
                                             std::span<const std::uint8_t> class_sizes);

// The completions of `s` appended to `out` (s.n columns each), in the order of
// visit_completions (lexicographic) and with its stats: the vector traversal where the CPU has
// AVX-512 or AVX2 (the same walkers as count_completions), else the scalar visit.
SearchStats append_completions(const RowSearch& s, std::vector<Column>& out);
// The vector traversal only, or nullopt without AVX-512 or AVX2 (tests compare it with the
// scalar visit).
// It walks the tree as the vector counting kernel does (lanes are nodes, each carrying the
// columns of its last few levels, the levels above coming from a scalar walk that hands the
// vector walk `seed_batch` nodes at a time) and sorts the completions of each batch into
// lexicographic order. Memory: the completions under one batch of nodes.
inline constexpr std::size_t kSeedBatch = 4096;
std::optional<SearchStats> append_completions_vector(const RowSearch& s, std::vector<Column>& out,
                                                     std::size_t seed_batch = kSeedBatch);

// All boards of the plan, unit by unit (a convenience over visit_unit_boards).
void visit_plan_boards(const UnitPlan& plan, BoardSet set, const ClassBoardFn& f);

// True if `b` is the lexicographically smallest of its eight images.
bool is_canonical(BoardView b);

}  // namespace nq::core
