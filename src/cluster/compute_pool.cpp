#include "cluster/compute_pool.h"
#include <chrono>
#include <exception>
#include <iomanip>
#include <sstream>
#include <thread>
#include <utility>
#include "core/boards.h"
#include "cluster/fault_injection.h"

namespace nq::cluster {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

ComputePool::ComputePool(const core::UnitPlan& plan, const proto::JobSpec& job, int rank, int threads,
                         double hung_seconds)
    : plan_(plan), job_(job), rank_(rank), hung_seconds_(hung_seconds),
      beats_(std::make_unique<Beat[]>(static_cast<std::size_t>(std::max(1, threads)))),
      threads_(std::max(1, threads)) {}

ComputePool::~ComputePool() { stop(); }

void ComputePool::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cancel_.store(true, std::memory_order_relaxed);
  threads_.stop();
  completed_cv_.notify_all();
}

void ComputePool::submit(const proto::WorkBatch& batch) {
  {
    const std::lock_guard lock(mutex_);
    auto& b = open_[batch.batch_id];
    b.expected = batch.units.size();
    b.results.batch_id = batch.batch_id;
  }
  std::vector<core::ThreadPool::Task> tasks;
  tasks.reserve(batch.units.size());
  for (const auto& u : batch.units)
    tasks.emplace_back([this, id = batch.batch_id, u](int thread) { run(id, u, thread); });
  threads_.submit(std::move(tasks));
}

std::vector<proto::ResultBatch> ComputePool::take_completed() {
  std::vector<proto::ResultBatch> done;
  {
    const std::lock_guard lock(mutex_);
    done = std::exchange(completed_, {});
  }
  for (auto& b : done) inject_batch_fault(b, job_.params.n);
  return done;
}

void ComputePool::wait_completed(std::chrono::microseconds timeout) const {
  std::unique_lock lock(mutex_);
  completed_cv_.wait_for(lock, timeout, [&] { return stopping_ || !completed_.empty(); });
}

std::optional<std::string> ComputePool::failure() const {
  {
    const std::lock_guard lock(mutex_);
    if (failure_) return failure_;
  }
  return hung();
}

bool ComputePool::wait_idle(std::chrono::milliseconds timeout) const {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    bool idle = true;
    for (int t = 0; t < threads(); ++t) idle = idle && !beats_[static_cast<std::size_t>(t)].busy.load(std::memory_order_acquire);
    if (idle) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::optional<std::string> ComputePool::hung() const {
  const std::int64_t now = core::steady_nanoseconds();
  for (int t = 0; t < threads(); ++t) {
    const Beat& b = beats_[static_cast<std::size_t>(t)];
    if (!b.busy.load(std::memory_order_acquire)) continue;
    const double quiet = static_cast<double>(now - b.at.load(std::memory_order_relaxed)) * 1e-9;
    if (quiet > hung_seconds_) {
      std::ostringstream what;
      what << std::setprecision(3) << "unit " << b.unit.load(std::memory_order_relaxed) << ": compute thread " << t
           << " has made no progress for " << quiet << " s (limit " << hung_seconds_
           << " s): it hangs (a bug, or a faulty node)";
      return what.str();
    }
  }
  return std::nullopt;
}

std::size_t ComputePool::batches_pending() const {
  const std::lock_guard lock(mutex_);
  return open_.size() + completed_.size();
}

proto::UnitResult ComputePool::run_unit(const core::WorkUnit& u, int thread) {
  proto::UnitResult r;
  r.id = u.id;
  r.rank = rank_;
  r.thread = thread;
  r.started = unix_now();
  Beat& beat = beats_[static_cast<std::size_t>(thread)];
  beat.at.store(core::steady_nanoseconds(), std::memory_order_relaxed);
  beat.unit.store(u.id, std::memory_order_relaxed);
  beat.busy.store(true, std::memory_order_release);
  struct Idle {   // off the unit however it ends (a throw, a cancel)
    Beat& b;
    ~Idle() { b.busy.store(false, std::memory_order_release); }
  } idle{beat};
  inject_unit_fault(u.id, rank_);
  const auto t0 = std::chrono::steady_clock::now();
  core::SearchStats st;
  if (job_.params.boards_mode()) {
    st = core::append_unit_results(plan_, u, job_.params.boards, r.boards, r.class_sizes);
  } else {
    st = plan_.count(u, cancel_, &beat.at);
  }
  r.solutions = st.solutions;
  r.nodes = st.nodes;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.check = proto::result_check(r);
  return r;
}

// One unit, on a pool thread. Its exception is caught here (not by the ThreadPool) so that the
// failure names the unit and the rank's main thread, waiting in wait_completed, is woken.
void ComputePool::run(std::uint64_t batch_id, const core::WorkUnit& unit, int thread) {
  proto::UnitResult r;
  try {
    r = run_unit(unit, thread);
  } catch (const core::Interrupted&) {   // cancelled by stop(): nobody waits for this unit
    return;
  } catch (...) {
    std::string what = "an exception of unknown type";
    try {
      throw;
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    {
      const std::lock_guard lock(mutex_);
      if (!failure_) failure_ = "unit " + std::to_string(unit.id) + ": " + what;
      stopping_ = true;
    }
    threads_.stop();
    completed_cv_.notify_all();
    return;
  }
  const std::lock_guard lock(mutex_);
  if (stopping_) return;
  auto it = open_.find(batch_id);
  it->second.results.results.push_back(std::move(r));
  if (it->second.results.results.size() == it->second.expected) {
    completed_.push_back(std::move(it->second.results));
    open_.erase(it);
    completed_cv_.notify_all();
  }
}

}  // namespace nq::cluster
