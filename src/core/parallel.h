// Local multi-threaded counting over a plan's units (the `nqueens count` engine): threads take
// units dynamically from a shared index. Progress is reported through a callback run on the
// calling thread; the core itself prints nothing.
#pragma once
#include <chrono>
#include <functional>
#include "core/total.h"
#include "core/units.h"

namespace nq::core {

struct Progress {
  std::uint64_t units_done = 0;
  std::uint64_t units_total = 0;
  Total solutions = 0;   // weighted, so far
  double seconds = 0;
};
using ProgressFn = std::function<void(const Progress&)>;

struct PlanTotals {
  Total total = 0;   // sum of multiplicity * completions (past 2^64 from N = 29)
  Count nodes = 0;
};

// Counts every unit of `plan` on `threads` threads (0 = usable_cpus()). Calls
// `progress` every `interval` while running (if set). Rethrows a worker's exception.
PlanTotals count_plan(const UnitPlan& plan, int threads, const ProgressFn& progress = {},
                      std::chrono::milliseconds interval = std::chrono::seconds(2));

// The CPUs this process may run on: its affinity mask (sched_getaffinity), which a launcher
// (mpirun's binding, srun --cpus-per-task, taskset) may make smaller than the machine.
int usable_cpus();

// Calls f(i) for every i in [0, count) on up to `threads` threads (0 = usable_cpus()), the
// calling thread among them; returns when all are done and rethrows the first exception.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& f);

}  // namespace nq::core
