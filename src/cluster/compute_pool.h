// Compute threads of one rank: they take units of submitted batches, run the core solver and
// hand back whole ResultBatches. No MPI: the rank's main thread moves batches in and out.
// The threads are a core::ThreadPool (one task per unit), started by the constructor: they
// inherit the rank's affinity mask as it is then (runtime.cpp sets it first).
// `threads` >= 1 (0 counts as 1). submit/take_completed/failure/stop are thread-safe. A unit
// that throws stops the pool: its threads take no more units and failure() says which unit
// failed and why. So does a thread that makes no progress on its unit for `hung_seconds` (see
// hung()).
#pragma once
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
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
  ComputePool(const core::UnitPlan& plan, const proto::JobSpec& job, int rank, int threads, double hung_seconds);
  ~ComputePool();   // stops and joins (a thread still in a unit cannot be joined: see release_unless_idle, runtime.cpp)
  void submit(const proto::WorkBatch& batch);
  // Batches whose every unit is finished, in completion order.
  std::vector<proto::ResultBatch> take_completed();
  // Waits until a batch is completed (take_completed has something), the pool stopped, or
  // `timeout` passed.
  void wait_completed(std::chrono::microseconds timeout) const;
  std::size_t batches_pending() const;   // submitted and not yet taken
  int threads() const { return threads_.size(); }
  // "unit U: what" once a unit's computation threw (the first one; the pool then stops), or
  // what hung() says.
  std::optional<std::string> failure() const;
  // "unit U: compute thread T has made no progress for S s ...", while a thread has been on
  // one unit for more than `hung_seconds` since its search last checked in (core::Heartbeat:
  // counted units check in at least every search of kCancelSplitLevels levels, milliseconds at
  // large N; a boards unit, which is short, only at its start). A long unit keeps checking
  // in; a thread that is stuck (a bug; a faulty core looping) does not, and the rank's main
  // thread, which still answers, would otherwise hide it from the master.
  std::optional<std::string> hung() const;
  // Queued units are dropped, and the threads exit. A count unit being computed is cancelled
  // (core::count_completions with a CancelFlag: its result is no longer wanted, and one unit of
  // large N takes minutes); a boards unit is finished (boards mode is for small N, whose units
  // are short).
  void stop();
  // Waits until no thread is in a unit (after stop(): cancelled counts end within a check),
  // at most `timeout`; whether none is.
  bool wait_idle(std::chrono::milliseconds timeout) const;

 private:
  void run(std::uint64_t batch_id, const core::WorkUnit& unit, int thread);
  proto::UnitResult run_unit(const core::WorkUnit& u, int thread);

  const core::UnitPlan& plan_;
  proto::JobSpec job_;
  int rank_;
  double hung_seconds_;
  // Each thread's unit, whether it is on one, and when its search last checked in.
  struct Beat {
    core::Heartbeat at{0};
    std::atomic<std::uint64_t> unit{0};
    std::atomic<bool> busy{false};
  };
  std::unique_ptr<Beat[]> beats_;
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
