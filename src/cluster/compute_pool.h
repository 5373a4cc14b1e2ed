// Compute threads of one rank: they take units of submitted batches, run the core solver and
// hand back whole ResultBatches. No MPI: the rank's main thread moves batches in and out.
// submit/take_completed/failure/stop are thread-safe. A unit that throws stops the pool: its
// threads take no more units and failure() says which unit failed and why.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>
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
  // Waits until a batch is completed (take_completed has something) or `timeout` passed.
  void wait_completed(std::chrono::microseconds timeout) const;
  std::size_t batches_pending() const;   // submitted and not yet taken
  int threads() const { return static_cast<int>(threads_.size()); }
  // "unit U: what" once a unit's computation threw (the first one); the pool then stops.
  std::optional<std::string> failure() const;
  // Threads finish their current unit and exit; queued units are dropped.
  void stop();

 private:
  void work(int thread);
  proto::UnitResult run_unit(const core::WorkUnit& u, int thread) const;

  const core::UnitPlan& plan_;
  proto::JobSpec job_;
  int rank_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  mutable std::condition_variable completed_cv_;
  struct Item {
    std::uint64_t batch_id;
    core::WorkUnit unit;
  };
  std::deque<Item> queue_;
  struct Partial {
    std::size_t expected = 0;
    proto::ResultBatch results;
  };
  std::map<std::uint64_t, Partial> open_;
  std::vector<proto::ResultBatch> completed_;
  bool stopping_ = false;
  std::optional<std::string> failure_;
  std::vector<std::thread> threads_;
};

double unix_now();

}  // namespace nq::cluster
