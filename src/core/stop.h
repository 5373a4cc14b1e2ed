// Cooperative cancellation of the core's long loops (counting a plan's units, the Burnside
// search): the caller passes a predicate, which those loops poll every few thousand steps (well
// under a millisecond apart); once it returns true they throw Interrupted. The core never sees
// signals: `nqueens run` passes a predicate over its signal flag (app/signals.h).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace nq::core {

// A long loop was stopped because its stop predicate said so. what(): "<phase> interrupted".
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(const std::string& phase) : std::runtime_error(phase + " interrupted"), phase_(phase) {}
  const std::string& phase() const { return phase_; }   // "counting the work units", ...

 private:
  std::string phase_;
};

// true: stop now. An empty function never stops.
using StopFn = std::function<bool()>;

// Polls a StopFn every 2^12 calls of tick() (one call per loop step), so the predicate costs
// nothing measurable however cheap a step is.
class StopPoll {
 public:
  StopPoll(const StopFn& stop, std::string phase) : stop_(stop), phase_(std::move(phase)) {}
  void tick() {
    if ((++steps_ & kMask) == 0) check();
  }
  // Throws Interrupted if the predicate says stop.
  void check() const {
    if (stop_ && stop_()) throw Interrupted(phase_);
  }

 private:
  static constexpr std::uint32_t kMask = (1u << 12) - 1;
  const StopFn& stop_;
  std::string phase_;
  std::uint32_t steps_ = 0;
};

// Set by another thread once the counting searches given it are no longer wanted
// (cluster::ComputePool::stop: the job stops, and one unit of large N can take minutes): they
// throw Interrupted(kSearchPhase) at their next check (count_completions in kernel.h).
using CancelFlag = std::atomic<bool>;
inline constexpr const char* kSearchPhase = "the search of a unit";

// Where a cancellable count says that it still makes progress: the steady clock's nanoseconds
// (steady_nanoseconds()) at its last check, stored at each (count_completions in kernel.h), and
// read by another thread to tell a long unit from a hung thread (cluster::ComputePool).
using Heartbeat = std::atomic<std::int64_t>;
inline std::int64_t steady_nanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
[[noreturn]] inline void throw_cancelled() { throw Interrupted(kSearchPhase); }

}  // namespace nq::core
