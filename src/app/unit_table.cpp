#include "app/unit_table.h"
#include <stdexcept>
#include <string>
#include <type_traits>

namespace nq::app {

// (Its size is checked where the limits count it: app/plan_limits.cpp.)
static_assert(std::is_trivially_default_constructible_v<UnitTable::Outcome>, "an Outcome table is not touched when made");

UnitTable::UnitTable(core::Shard shard, std::uint64_t units_total)
    : shard_(shard),
      units_total_(units_total),
      done_(shard.size(units_total), false),
      outcomes_(std::make_unique_for_overwrite<Outcome[]>(done_.size())) {}

bool UnitTable::add(const store::UnitRecord& r) {
  if (r.id >= units_total_ || !shard_.contains(r.id))
    throw std::out_of_range("unit " + std::to_string(r.id) + " is not in shard " + core::to_string(shard_) +
                            " of a plan of " + std::to_string(units_total_) + " units");
  const std::uint64_t s = slot(r.id);
  if (done_[s]) return false;
  done_[s] = true;
  outcomes_[s] = Outcome{r.solutions, r.nodes, r.seconds, r.started, r.rank, r.thread};
  ++size_;
  nodes_ += r.nodes;
  solutions_ += core::Total{r.multiplicity} * r.solutions;
  return true;
}

UnitSource UnitTable::units(const core::UnitPlan& plan) const {
  return {size_, [this, &plan](const UnitVisitor& f) {
            core::UnitCursor cursor(plan);
            core::WorkUnit u;
            std::uint64_t left = size_;
            while (left && cursor.next(u)) {
              if (u.id >= units_total_) break;
              if (!shard_.contains(u.id) || !done_[slot(u.id)]) continue;
              f(unit_record(u, outcomes_[slot(u.id)]));
              --left;
            }
            if (left)
              throw std::logic_error("UnitTable: " + std::to_string(left) + " done units are past the end of the plan (N = " +
                                     std::to_string(plan.n()) + ", depth " + std::to_string(plan.depth()) + ")");
          }};
}

}  // namespace nq::app
