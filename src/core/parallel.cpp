#include "core/parallel.h"
#include <sched.h>
#include <algorithm>
#include <atomic>

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

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = usable_cpus();
  threads_.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) threads_.emplace_back([this, t] { work(t); });
}

ThreadPool::~ThreadPool() {
  stop();
  threads_.clear();   // joins
}

void ThreadPool::submit(Task task) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_) return;
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPool::submit(std::vector<Task> tasks) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_) return;
    for (auto& t : tasks) queue_.push_back(std::move(t));
  }
  // One waiting thread woken a task, not all of them: with --threads 4096 (two cores), a
  // notify_all a batch woke 4096 threads to fight for the lock, thousands of times, and the
  // job made no progress and answered no signal.
  if (tasks.size() >= threads_.size()) {
    cv_.notify_all();
  } else {
    for (std::size_t i = 0; i < tasks.size(); ++i) cv_.notify_one();
  }
}

void ThreadPool::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
    if (running_ == 0) idle_cv_.notify_all();
  }
  cv_.notify_all();
}

void ThreadPool::wait_idle() {
  std::unique_lock lock(mutex_);
  idle_cv_.wait(lock, [&] { return queue_.empty() && running_ == 0; });
}

std::exception_ptr ThreadPool::failure() const {
  const std::lock_guard lock(mutex_);
  return failure_;
}

void ThreadPool::work(int thread) {
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Task task = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    std::exception_ptr thrown;
    try {
      task(thread);
    } catch (...) {
      thrown = std::current_exception();
    }
    task = nullptr;   // its captures go before the lock is taken again
    lock.lock();
    --running_;
    if (thrown) {
      if (!failure_) failure_ = thrown;
      stopping_ = true;
      queue_.clear();
      cv_.notify_all();
    }
    if (running_ == 0 && queue_.empty()) idle_cv_.notify_all();
  }
}

void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& f) {
  if (count == 0) return;
  if (threads <= 0) threads = usable_cpus();
  ThreadPool pool(static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), count)));
  std::atomic<std::size_t> next{0};
  for (int t = 0; t < pool.size(); ++t)
    pool.submit([&](int) {
      for (std::size_t i; !pool.stopped() && (i = next.fetch_add(1)) < count;) f(i);
    });
  pool.wait_idle();
  if (const auto failure = pool.failure()) std::rethrow_exception(failure);
}

PlanTotals count_plan(const UnitPlan& plan, int threads, const ProgressFn& progress,
                      std::chrono::milliseconds interval) {
  return count_units(plan, plan.units(), threads, progress, interval);
}

PlanTotals count_units(const UnitPlan& plan, const std::vector<WorkUnit>& units, int threads,
                       const ProgressFn& progress, std::chrono::milliseconds interval) {
  std::atomic<std::size_t> next{0}, done{0};
  Total total = 0, nodes = 0;   // 128 bits: no std::atomic for them, so a mutex (one short lock per unit)
  double busy = 0;
  std::mutex total_mutex;
  const auto start = std::chrono::steady_clock::now();

  ThreadPool pool(threads);
  for (int t = 0; t < pool.size(); ++t)
    pool.submit([&](int) {
      for (std::size_t i; !pool.stopped() && (i = next.fetch_add(1)) < units.size();) {
        const auto t0 = std::chrono::steady_clock::now();
        const SearchStats s = plan.count(units[i]);
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
        {
          const std::lock_guard lock(total_mutex);
          add_product(total, units[i].multiplicity, s.solutions);   // below 2^128 for < 2^32 units
          nodes += s.nodes;
          busy += took.count();
        }
        ++done;
      }
    });

  auto snapshot = [&] {
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - start;
    const std::lock_guard lock(total_mutex);
    return Progress{.units_done = done.load(), .units_total = units.size(), .solutions = total, .nodes = nodes,
                    .seconds = dt.count(), .busy_seconds = busy, .threads = pool.size()};
  };
  if (progress) {
    auto next_report = start + interval;
    while (done.load() < units.size() && !pool.stopped()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (std::chrono::steady_clock::now() < next_report) continue;
      progress(snapshot());
      next_report += interval;
    }
  }
  pool.wait_idle();
  if (const auto failure = pool.failure()) std::rethrow_exception(failure);
  return {total, nodes};
}

}  // namespace nq::core
