// The finished units of a job, as `run`'s master and `merge` keep them until they write the
// result file, and the one way the file's /units rows are read out of them (UnitSource).
// Not thread-safe: the master's session and merge use a table from one thread.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#include "core/job_params.h"
#include "core/total.h"
#include "core/units.h"
#include "store/unit_record.h"

namespace nq::app {

// Finished units visited whole, each once, in strictly increasing id order.
using UnitVisitor = std::function<void(const store::UnitRecord&)>;
struct UnitSource {
  std::uint64_t count = 0;                           // the units for_each visits
  std::function<void(const UnitVisitor&)> for_each;
};

// A unit's whole record: id, placement and multiplicity from the plan's unit `u`, the rest from
// what its result said (`r`: a UnitTable::Outcome or a proto::UnitResult, the same field names).
template <class Result>
store::UnitRecord unit_record(const core::WorkUnit& u, const Result& r) {
  store::UnitRecord rec;
  rec.id = u.id;
  rec.placement = u.placement;
  rec.multiplicity = u.multiplicity;
  rec.solutions = r.solutions;
  rec.nodes = r.nodes;
  rec.seconds = r.seconds;
  rec.started = r.started;
  rec.rank = r.rank;
  rec.thread = r.thread;
  return rec;
}

// A digest of units' ids, placements and multiplicities that does not depend on their order.
// merge compares the one of the shards' stored units with the one of the plan that it writes
// them with: the file's placements and multiplicities are the plan's, made again by the merging
// nqueens, and a plan that differs from the one the shards ran (another version) would put
// their counts beside other units.
// run compares the one of a resumed journal's units the same way (a journal's key names the
// program's version, not its commit).
class UnitDigest {
 public:
  void add(const store::UnitRecord& r);
  bool operator==(const UnitDigest&) const = default;

 private:
  std::uint64_t sum_ = 0;
};
// The digest of the units a source visits, their placements and multiplicities the plan's.
UnitDigest digest_of(const UnitSource& units);
// "the plan that this nqueens (VERSION, commit C) makes for N = n, depth d, symmetry s", for the
// refusals of stored units that digest differently.
std::string this_programs_plan(const core::UnitPlan& plan);

// The units of one shard of a plan, by their place in the shard (id / shard count), a done bit
// and what the unit's result said (Outcome, 40 bytes) each. A unit's placement and multiplicity
// are not kept: they are the plan's, made again by its cursor (core::UnitCursor, deterministic:
// the master numbers the units it sends with it) when the table is read back in id order. A
// store::UnitRecord is 88 bytes: jobs/count-n27.toml's 164,432,215 units took 14.5 GB on the
// master, now 6.6 GB.
class UnitTable {
 public:
  struct Outcome {   // a store::UnitRecord less its id, placement and multiplicity
    std::uint64_t solutions;
    std::uint64_t nodes;
    double seconds;
    double started;
    std::int32_t rank;
    std::int32_t thread;
  };

  // The whole table at once (std::bad_alloc if the machine cannot give it); its pages are only
  // used as it fills.
  UnitTable(core::Shard shard, std::uint64_t units_total);

  std::uint64_t units_in_shard() const { return done_.size(); }
  std::uint64_t size() const { return size_; }   // units done
  // Whether unit `id` (of the shard, < units_total) is done.
  bool done(std::uint64_t id) const { return done_[slot(id)]; }
  // Keeps what `r` says of its unit; false, and nothing changed, if the unit was done already.
  // std::out_of_range if r.id is past the plan or outside the shard.
  bool add(const store::UnitRecord& r);
  core::Total nodes() const { return nodes_; }   // searched by the done units
  double seconds() const { return seconds_; }    // the done units' compute seconds, summed
  // The solutions of the board the done units stand for (multiplicity x solutions, as added).
  core::Total solutions() const { return solutions_; }
  // The done units, their placement and multiplicity from `plan` (the table's plan: a plan of
  // fewer units, as an edited file's depth gives `merge`, is PlanTooShort when visited).
  UnitSource units(const core::UnitPlan& plan) const;
  class PlanTooShort : public std::runtime_error {
   public:
    using std::runtime_error::runtime_error;
  };

 private:
  std::uint64_t slot(std::uint64_t id) const { return id / static_cast<std::uint64_t>(shard_.count); }
  core::Shard shard_;
  std::uint64_t units_total_;
  std::uint64_t size_ = 0;
  core::Total nodes_ = 0, solutions_ = 0;
  double seconds_ = 0;
  std::vector<bool> done_;
  std::unique_ptr<Outcome[]> outcomes_;   // set where done_ is
};

}  // namespace nq::app
