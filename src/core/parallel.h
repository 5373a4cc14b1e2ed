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

// Counts every unit of `plan` on `threads` threads (0 = all hardware threads). Calls
// `progress` every `interval` while running (if set). Rethrows a worker's exception.
PlanTotals count_plan(const UnitPlan& plan, int threads, const ProgressFn& progress = {},
                      std::chrono::milliseconds interval = std::chrono::seconds(2));

int hardware_threads();

}  // namespace nq::core
