#include "core/boards.h"
#include <algorithm>

namespace nq::core {

std::string to_string(BoardSet s) { return s == BoardSet::all ? "all" : "class"; }

BoardSet board_set_from_string(const std::string& s) {
  if (s == "all") return BoardSet::all;
  if (s == "class") return BoardSet::classes;
  throw std::invalid_argument("unknown board set '" + s + "' (expected all or class)");
}

bool is_canonical(BoardView b) {
  Column image[kMaxN];
  const BoardView view(image, b.size());
  for (int k = 1; k < kSymmetries; ++k) {
    transform_into(b, k, image);
    if (std::ranges::lexicographical_compare(view, b)) return false;
  }
  return true;
}

SearchStats visit_unit_boards(const UnitPlan& plan, const WorkUnit& u, BoardSet set,
                              const ClassBoardFn& f) {
  return plan.visit_boards(u, [&](BoardView b) {
    if (set == BoardSet::all || is_canonical(b)) f(b, solution_class_size(b));
    return true;
  });
}

void visit_plan_boards(const UnitPlan& plan, BoardSet set, const ClassBoardFn& f) {
  UnitCursor cursor(plan);
  WorkUnit u;
  while (cursor.next(u)) visit_unit_boards(plan, u, set, f);
}

}  // namespace nq::core
