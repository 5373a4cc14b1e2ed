// Board enumeration for boards mode: every solution, or one representative (the canonical,
// lexicographically smallest image) per symmetry class with its class size. Deterministic
// order: units in id order, boards within a unit as UnitPlan::visit_boards gives them.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
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

// All boards of the plan, unit by unit (a convenience over visit_unit_boards).
void visit_plan_boards(const UnitPlan& plan, BoardSet set, const ClassBoardFn& f);

// True if `b` is the lexicographically smallest of its eight images.
bool is_canonical(BoardView b);

}  // namespace nq::core
