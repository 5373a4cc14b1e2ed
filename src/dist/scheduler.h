// The master's bookkeeping, without MPI: which units go to which worker in which batch, what is
// in flight, and the checks on every returned batch (each unit counted exactly once).
// Called only from the master's loop (src/dist/runtime.cpp); not thread-safe.
#pragma once
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_set>
#include <vector>
#include "core/units.h"
#include "proto/messages.h"

namespace nq::dist {

// A returned batch that cannot be accepted (unknown batch, wrong worker, missing, duplicated
// or foreign unit ids, a bad checksum, boards that do not match the count).
class ResultError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Scheduler {
 public:
  // skip(id): the unit is already done (journal) or belongs to another shard.
  // units_to_do: how many units the plan has that skip() keeps (for batch sizing / progress).
  using Skip = std::function<bool(std::uint64_t)>;
  Scheduler(const core::UnitPlan& plan, const proto::JobSpec& job, Skip skip,
            std::uint64_t units_to_do, int total_threads, std::uint32_t max_batch = 256);

  // The next batch for `worker`, or nullopt when nothing is left to hand out.
  std::optional<proto::WorkBatch> next_batch(int worker);
  // Checks `results` (see ResultError); on success returns the batch's units (in the order of
  // results) and the batch leaves the in-flight set. On failure the batch's units are put back
  // for another worker and ResultError is thrown.
  std::vector<core::WorkUnit> accept(int worker, const proto::ResultBatch& results);
  // A worker is gone: its in-flight units are handed out again.
  void worker_lost(int worker);

  bool all_done() const { return exhausted_ && retry_.empty() && in_flight_.empty(); }
  std::uint64_t units_to_do() const { return units_to_do_; }
  std::uint64_t units_done() const { return units_done_; }
  std::uint64_t rejected_batches() const { return rejected_; }

 private:
  struct InFlight {
    int worker;
    std::vector<core::WorkUnit> units;
  };
  bool take_unit(core::WorkUnit& u);
  void check(const InFlight& batch, const proto::ResultBatch& results,
             std::vector<core::WorkUnit>& ordered) const;

  proto::JobSpec job_;
  Skip skip_;
  core::UnitCursor cursor_;
  bool exhausted_ = false;
  std::deque<core::WorkUnit> retry_;
  std::map<std::uint64_t, InFlight> in_flight_;
  std::uint64_t next_batch_id_ = 1;
  std::uint64_t units_to_do_;
  std::uint64_t units_issued_ = 0;
  std::uint64_t units_done_ = 0;
  std::uint64_t rejected_ = 0;
  int total_threads_;
  std::uint32_t max_batch_;
};

}  // namespace nq::dist
