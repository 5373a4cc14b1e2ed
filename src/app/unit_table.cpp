#include "app/unit_table.h"
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include "buildinfo/git_commit.h"
#include "core/version.h"

namespace nq::app {

// (Its size is checked where the limits count it: app/plan_limits.cpp.)
static_assert(std::is_trivially_default_constructible_v<UnitTable::Outcome>, "an Outcome table is not touched when made");

namespace {
std::uint64_t mix(std::uint64_t x) {   // splitmix64's finalizer
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

void UnitDigest::add(const store::UnitRecord& r) {
  static_assert(sizeof r.placement % sizeof(std::uint64_t) == 0);
  std::uint64_t h = mix(r.id + 0x9e3779b97f4a7c15ULL);
  for (std::size_t i = 0; i < r.placement.size(); i += sizeof(std::uint64_t)) {
    std::uint64_t word = 0;
    std::memcpy(&word, r.placement.data() + i, sizeof word);
    h = mix(h ^ word);
  }
  sum_ += mix(h ^ r.multiplicity);
}

UnitDigest digest_of(const UnitSource& units) {
  UnitDigest d;
  units.for_each([&](const store::UnitRecord& r) { d.add(r); });
  return d;
}

std::string this_programs_plan(const core::UnitPlan& plan) {
  return "the plan that this nqueens (" + std::string(kProgramVersion) + ", commit " + kGitCommit + ") makes for N = " +
         std::to_string(plan.n()) + ", depth " + std::to_string(plan.depth()) + ", symmetry " +
         core::to_string(plan.symmetry());
}

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
  seconds_ += r.seconds;
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
              throw PlanTooShort(std::to_string(left) + " done units are past the end of the plan (N = " +
                                 std::to_string(plan.n()) + ", depth " + std::to_string(plan.depth()) + ")");
          }};
}

}  // namespace nq::app
