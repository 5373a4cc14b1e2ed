#include "core/parallel.h"
#include <sched.h>
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace nq::core {

int usable_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
#endif
  const unsigned h = std::thread::hardware_concurrency();
  return h ? static_cast<int>(h) : 1;
}

void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& f) {
  if (threads <= 0) threads = usable_cpus();
  const auto helpers = static_cast<std::size_t>(std::max(0, threads - 1));
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < count;) f(i);
    } catch (...) {
      const std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = count;
    }
  };
  {
    std::vector<std::jthread> pool;
    for (std::size_t t = 0; t < helpers && t + 1 < count; ++t) pool.emplace_back(work);
    work();
  }   // joins
  if (failure) std::rethrow_exception(failure);
}

PlanTotals count_plan(const UnitPlan& plan, int threads, const ProgressFn& progress,
                      std::chrono::milliseconds interval) {
  const std::vector<WorkUnit> units = plan.units();
  if (threads <= 0) threads = usable_cpus();
  std::atomic<std::size_t> next{0}, done{0};
  std::atomic<Count> nodes{0};
  Total total = 0;   // 128 bits: no std::atomic for it, so a mutex (one short lock per unit)
  std::mutex total_mutex;
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto start = std::chrono::steady_clock::now();

  auto work = [&] {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < units.size();) {
        const SearchStats s = plan.count(units[i]);
        {
          const std::lock_guard lock(total_mutex);
          add_product(total, units[i].multiplicity, s.solutions);   // below 2^128 for < 2^32 units
        }
        nodes += s.nodes;
        ++done;
      }
    } catch (...) {
      const std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      failed = true;
      next = units.size();
    }
  };
  std::vector<std::jthread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work);

  auto snapshot = [&] {
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - start;
    const std::lock_guard lock(total_mutex);
    return Progress{done.load(), units.size(), total, dt.count()};
  };
  if (progress) {
    auto next_report = start + interval;
    while (done.load() < units.size() && !failed.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (std::chrono::steady_clock::now() < next_report) continue;
      progress(snapshot());
      next_report += interval;
    }
  }
  pool.clear();   // joins
  if (failure) std::rethrow_exception(failure);
  return {total, nodes.load()};
}

}  // namespace nq::core
