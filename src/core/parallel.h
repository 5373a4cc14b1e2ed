// The project's one thread engine: ThreadPool (a fixed set of threads taking tasks from a FIFO
// queue; the first exception a task lets out stops the pool and is kept), with on top of it
// parallel_for and count_plan (the `nqueens count` engine). cluster::ComputePool (a rank's
// compute threads) is built on ThreadPool too. Progress is reported through a callback run on
// the calling thread; the core itself prints nothing.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>
#include "core/total.h"
#include "core/units.h"

namespace nq::core {

// The CPUs this process may run on: its affinity mask (sched_getaffinity), which a launcher
// (mpirun's binding, srun --cpus-per-task, taskset) may make smaller than the machine.
int usable_cpus();

// `threads` threads (0 = usable_cpus()), started by the constructor; they inherit the
// process's affinity mask at that moment. Tasks run in submission order, each on one thread,
// and get that thread's index (0..size()-1). All members are thread-safe (a task may submit or
// stop). Contract:
//   1. stop(): no further task starts; queued tasks are dropped, running ones finish.
//   2. A task that throws stops the pool (1.); the first such exception is kept (failure()).
//      A caller that wants to report and go on catches inside its task.
//   3. submit() after stop() drops the task.
//   4. The destructor stops the pool and joins its threads.
class ThreadPool {
 public:
  using Task = std::function<void(int thread)>;
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void submit(Task task);
  void submit(std::vector<Task> tasks);   // in order, under one lock (a batch of units)
  void stop();
  // Waits until no task is queued or running (every task submitted so far has finished or was
  // dropped).
  void wait_idle();
  bool stopped() const { return stopping_.load(std::memory_order_relaxed); }   // cheap: poll it per item
  std::exception_ptr failure() const;
  int size() const { return static_cast<int>(threads_.size()); }

 private:
  void work(int thread);

  mutable std::mutex mutex_;
  std::condition_variable cv_;        // a task queued, or stop
  std::condition_variable idle_cv_;   // the queue ran empty with nothing running
  std::deque<Task> queue_;
  int running_ = 0;
  std::atomic<bool> stopping_{false};   // written under mutex_, read without it by stopped()
  std::exception_ptr failure_;
  std::vector<std::jthread> threads_;   // last: started once the members above exist
};

// Calls f(i) for every i in [0, count) on up to `threads` threads of a ThreadPool (0 =
// usable_cpus()); returns when all are done and rethrows the first exception (the others then
// stop taking indices).
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& f);

struct Progress {
  std::uint64_t units_done = 0;
  std::uint64_t units_total = 0;
  Total solutions = 0;   // weighted, so far
  Total nodes = 0;       // searched so far
  double seconds = 0;
  double busy_seconds = 0;   // the done units' searches, summed over the threads
  int threads = 0;
};
using ProgressFn = std::function<void(const Progress&)>;

struct PlanTotals {
  Total total = 0;   // sum of multiplicity * completions (past 2^64 from N = 29)
  Total nodes = 0;   // past 2^64 from N = 28 (~5e19 nodes there)
};

// Counts `units` (of `plan`) on `threads` threads (0 = usable_cpus()). Calls `progress` every
// `interval` while running (if set). Rethrows a worker's exception.
PlanTotals count_units(const UnitPlan& plan, const std::vector<WorkUnit>& units, int threads,
                       const ProgressFn& progress = {}, std::chrono::milliseconds interval = std::chrono::seconds(2));
// The same for every unit of `plan`.
PlanTotals count_plan(const UnitPlan& plan, int threads, const ProgressFn& progress = {},
                      std::chrono::milliseconds interval = std::chrono::seconds(2));

}  // namespace nq::core
