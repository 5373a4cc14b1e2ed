// Compute threads of one rank: they take units of submitted batches, run the core solver and
// hand back whole ResultBatches. No MPI: the rank's main thread moves batches in and out.
// The threads are a core::ThreadPool (one task per unit), started by the constructor: they
// inherit the rank's affinity mask as it is then (runtime.cpp sets it first).
// `threads` >= 1 (0 counts as 1). submit/take_completed/failure/stop are thread-safe. A unit
// that throws stops the pool: its threads take no more units and failure() says which unit
// failed and why.
#pragma once
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>
#include "core/parallel.h"
#include "core/stop.h"
#include "core/units.h"
#include "proto/messages.h"

namespace nq::cluster {

class ComputePool {
 public:
  ComputePool(const core::UnitPlan& plan, const proto::JobSpec& job, int rank, int threads);
  ~ComputePool();   // stops and joins
  void submit(const proto::WorkBatch& batch);
  // Batches whose every unit is finished, in completion order.
  std::vector<proto::ResultBatch> take_completed();
  // Waits until a batch is completed (take_completed has something), the pool stopped, or
  // `timeout` passed.
  void wait_completed(std::chrono::microseconds timeout) const;
  std::size_t batches_pending() const;   // submitted and not yet taken
  int threads() const { return threads_.size(); }
  // "unit U: what" once a unit's computation threw (the first one); the pool then stops.
  std::optional<std::string> failure() const;
  // Queued units are dropped, and the threads exit. A count unit being computed is cancelled
  // (core::count_completions with a CancelFlag: its result is no longer wanted, and one unit of
  // large N takes minutes); a boards unit is finished (boards mode is for small N, whose units
  // are short).
  void stop();

 private:
  void run(std::uint64_t batch_id, const core::WorkUnit& unit, int thread);
  proto::UnitResult run_unit(const core::WorkUnit& u, int thread) const;

  const core::UnitPlan& plan_;
  proto::JobSpec job_;
  int rank_;
  mutable std::mutex mutex_;
  mutable std::condition_variable completed_cv_;
  // A submitted batch whose results are still coming in.
  struct OpenBatch {
    std::size_t expected = 0;
    proto::ResultBatch results;
  };
  std::map<std::uint64_t, OpenBatch> open_;
  std::vector<proto::ResultBatch> completed_;
  bool stopping_ = false;
  core::CancelFlag cancel_{false};   // set by stop(): the units being counted end
  std::optional<std::string> failure_;
  core::ThreadPool threads_;   // last: destroyed (joined) first, while the members above exist
};

double unix_now();

}  // namespace nq::cluster
