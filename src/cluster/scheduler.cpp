#include "cluster/scheduler.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace nq::cluster {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// What two computations of one unit must agree on: the boards (and class sizes), in order.
// The count is compared separately; search nodes are not compared (a faster kernel on another
// node may visit a different number).
std::uint64_t boards_digest(const proto::UnitResult& r) {
  std::uint64_t h = proto::kFnvBasis;
  constexpr std::uint8_t kSeparator = 0xFF;
  for (const auto* v : {&r.boards, &r.class_sizes}) {
    h = proto::fnv1a(v->data(), v->size(), h);
    h = proto::fnv1a(&kSeparator, 1, h);
  }
  return h;
}

}  // namespace

bool in_audit_sample(std::uint64_t id, double fraction) {
  if (!(fraction > 0)) return false;
  if (fraction >= 1) return true;
  // fraction * 2^64, exact for fractions that are powers of two such as the default 1/64.
  const auto threshold = static_cast<std::uint64_t>(std::ldexp(fraction, 64));
  return splitmix64(id) < threshold;
}

Scheduler::Scheduler(const core::UnitPlan& plan, const proto::JobSpec& job, Skip skip,
                     std::uint64_t units_to_do, int total_threads, std::uint32_t max_batch,
                     AuditPolicy audit, std::uint64_t max_result_bytes)
    : plan_(plan),
      job_(job),
      skip_(std::move(skip)),
      cursor_(plan),
      units_to_do_(units_to_do),
      total_threads_(std::max(1, total_threads)),
      max_batch_(std::max<std::uint32_t>(1, max_batch)),
      policy_(audit),
      max_result_bytes_(std::max<std::uint64_t>(1, max_result_bytes)) {
  policy_.workers = std::max(1, policy_.workers);
  policy_.max_rounds = std::max(1, policy_.max_rounds);
}

void Scheduler::requeue(const core::WorkUnit& u) {
  const auto a = audits_.find(u.id);
  if (a != audits_.end() && a->second.have_first) audit_queue_.push_back(u.id);   // an audit copy
  else retry_.push_back(u);
}

bool Scheduler::take_unit(core::WorkUnit& u) {
  if (!retry_.empty()) {
    u = retry_.front();
    retry_.pop_front();
    return true;
  }
  while (!exhausted_) {
    if (!cursor_.next(u)) {
      exhausted_ = true;
      break;
    }
    if (!skip_(u.id)) {
      ++units_issued_;
      return true;
    }
  }
  return false;
}

std::optional<proto::WorkBatch> Scheduler::next_batch(int worker, bool audits_only, double now) {
  if (failure_ || lost(worker)) return std::nullopt;
  // Batches shrink towards the end so the last units spread over all threads: about a
  // quarter of each thread's remaining share, at least one unit.
  const std::uint64_t remaining = units_to_do_ > units_issued_ ? units_to_do_ - units_issued_ : 0;
  std::uint64_t size = std::clamp<std::uint64_t>(
      remaining / (4 * static_cast<std::uint64_t>(total_threads_)), 1, max_batch_);
  // One unit until a result says what units hold and take. Then, boards mode: a batch's result
  // holds every board of its units, kept under max_result_bytes by the bytes per unit so far;
  // count mode: at most kBatchSeconds of the worker's threads' work by the mean unit time so far.
  if (!units_timed_)
    size = 1;
  else if (job_.params.boards_mode())
    size = std::clamp<std::uint64_t>(max_result_bytes_ * units_timed_ / std::max<std::uint64_t>(1, result_bytes_), 1,
                                     size);
  else
    size = static_cast<std::uint64_t>(std::clamp(
        kBatchSeconds * threads_of(worker) * static_cast<double>(units_timed_) / std::max(unit_seconds_, 1e-9),
        1.0, static_cast<double>(size)));
  proto::WorkBatch batch;
  batch.batch_id = next_batch_id_;
  // Audit copies first: each goes to a worker other than the one that computed the first copy.
  for (auto it = audit_queue_.begin(); it != audit_queue_.end() && batch.units.size() < size;) {
    const Audit& a = audits_.at(*it);
    if (a.first_worker == worker && live_workers() > 1) {
      ++it;
      continue;
    }
    batch.units.push_back(a.unit);
    it = audit_queue_.erase(it);
  }
  core::WorkUnit u;
  while (!audits_only && batch.units.size() < size && take_unit(u)) batch.units.push_back(u);
  if (batch.units.empty()) return std::nullopt;
  ++next_batch_id_;
  if (!batches_in_flight(worker)) last_heard_[worker] = std::max(last_heard_[worker], now);
  in_flight_.emplace(batch.batch_id, InFlight{worker, batch.units, now});
  units_out_[worker] += batch.units.size();
  ++batches_out_[worker];
  return batch;
}

void Scheduler::land(std::map<std::uint64_t, InFlight>::iterator it) {
  units_out_[it->second.worker] -= it->second.units.size();
  --batches_out_[it->second.worker];
  in_flight_.erase(it);
}

double Scheduler::seconds_in_flight(int worker) const {
  if (!units_timed_) return std::numeric_limits<double>::infinity();   // no estimate yet
  const auto it = units_out_.find(worker);
  if (it == units_out_.end()) return 0;
  return static_cast<double>(it->second) * unit_seconds_ / static_cast<double>(units_timed_);
}

void Scheduler::check(const InFlight& batch, const proto::ResultBatch& results,
                      std::vector<core::WorkUnit>& ordered) const {
  const std::string where = "batch " + std::to_string(results.batch_id);
  std::unordered_set<std::uint64_t> seen;
  for (const auto& r : results.results) {
    const auto it = std::ranges::find(batch.units, r.id, &core::WorkUnit::id);
    if (it == batch.units.end())
      throw ResultError(where + ": result for unit " + std::to_string(r.id) +
                        ", which is not in the batch");
    if (!seen.insert(r.id).second)
      throw ResultError(where + ": unit " + std::to_string(r.id) + " returned twice");
    if (r.check != proto::result_check(r))
      throw ResultError(where + ": unit " + std::to_string(r.id) + " fails its checksum");
    if (job_.params.boards_mode())
      if (const auto wrong = core::check_unit_boards(plan_, *it, job_.params.boards, r.solutions, r.boards,
                                                     r.class_sizes))
        throw ResultError(where + ": unit " + std::to_string(r.id) + ": " + *wrong);
    ordered.push_back(*it);
  }
  // Every result belongs to the batch and none came twice: a different count means some are missing.
  if (results.results.size() != batch.units.size())
    throw ResultError(where + ": " + std::to_string(results.results.size()) +
                      " results for " + std::to_string(batch.units.size()) + " units");
}

// A checked result of an audited unit: true when it is accepted now (the audit copy agrees).
bool Scheduler::audit(int worker, const proto::UnitResult& r, const core::WorkUnit& u) {
  const auto it = audits_.try_emplace(r.id, Audit{u}).first;
  Audit& a = it->second;
  if (!a.have_first) {   // the first copy: hold it back, queue the audit copy
    a.have_first = true;
    a.first_worker = worker;
    a.first_solutions = r.solutions;
    a.first_digest = boards_digest(r);
    audit_queue_.push_back(r.id);
    return false;
  }
  if (r.solutions == a.first_solutions && boards_digest(r) == a.first_digest) {
    audits_.erase(it);
    ++audited_;
    return true;
  }
  ++mismatches_;
  ++a.rounds;
  const std::string what = "unit " + std::to_string(r.id) + ": rank " + std::to_string(a.first_worker) +
                           " says " + std::to_string(a.first_solutions) + " solutions, rank " +
                           std::to_string(worker) + " says " + std::to_string(r.solutions) +
                           (r.solutions == a.first_solutions ? " with different boards" : "");
  if (a.rounds >= policy_.max_rounds) {
    failure_ = "audit: " + what + "; the results of this unit disagreed in " + std::to_string(a.rounds) +
               " rounds of recomputation: a worker computes wrong results (check the nodes), the job is stopped";
    return false;
  }
  reports_.push_back("audit mismatch: " + what + "; both results discarded, computing the unit again (round " +
                     std::to_string(a.rounds + 1) + " of at most " + std::to_string(policy_.max_rounds) + ")");
  a.have_first = false;
  retry_.push_back(a.unit);
  return false;
}

std::vector<core::WorkUnit> Scheduler::accept(int worker, proto::ResultBatch& results) {
  if (abandoned_.erase(results.batch_id)) {   // handed out again after its worker was lost
    results.results.clear();
    return {};
  }
  const auto it = in_flight_.find(results.batch_id);
  if (it == in_flight_.end() || it->second.worker != worker) {
    ++rejected_;
    throw ResultError("batch " + std::to_string(results.batch_id) + " from worker " +
                      std::to_string(worker) + " is not in flight there (duplicate or stray)");
  }
  std::vector<core::WorkUnit> ordered;
  try {
    check(it->second, results, ordered);
  } catch (const ResultError&) {
    ++rejected_;
    for (const auto& u : it->second.units) requeue(u);
    land(it);
    throw;
  }
  land(it);
  for (const auto& r : results.results) {
    unit_seconds_ += std::max(0.0, r.seconds);
    result_bytes_ += r.boards.size() + r.class_sizes.size();
  }
  units_timed_ += results.results.size();
  std::vector<core::WorkUnit> kept_units;
  std::vector<proto::UnitResult> kept;
  kept_units.reserve(ordered.size());
  kept.reserve(ordered.size());
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    auto& r = results.results[i];
    if (!in_audit_sample(r.id, policy_.fraction) || (!failure_ && audit(worker, r, ordered[i]))) {
      kept_units.push_back(ordered[i]);
      kept.push_back(std::move(r));
    }
  }
  results.results = std::move(kept);
  units_done_ += kept_units.size();
  return kept_units;
}

bool Scheduler::reject(int worker, std::uint64_t batch_id) {
  const auto it = in_flight_.find(batch_id);
  if (it == in_flight_.end() || it->second.worker != worker) return false;
  ++rejected_;
  for (const auto& u : it->second.units) requeue(u);
  land(it);
  return true;
}

void Scheduler::worker_lost(int worker) {
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    if (it->second.worker == worker) {
      for (const auto& u : it->second.units) requeue(u);
      abandoned_.insert(it->first);
      land(it++);
    } else {
      ++it;
    }
  }
  lost_.insert(worker);
}

void Scheduler::set_threads(int worker, int threads) { threads_[worker] = std::max(1, threads); }

int Scheduler::threads_of(int worker) const {
  const auto t = threads_.find(worker);
  return t == threads_.end() ? 1 : t->second;
}

void Scheduler::heard_from(int worker, double now) {
  last_heard_[worker] = std::max(last_heard_[worker], now);
  lost_.erase(worker);
}

std::size_t Scheduler::batches_in_flight(int worker) const {
  const auto it = batches_out_.find(worker);
  return it == batches_out_.end() ? 0 : it->second;
}

bool Scheduler::wants_batch(int worker) const {
  const auto threads = static_cast<std::size_t>(threads_of(worker));
  const std::size_t in_flight = batches_in_flight(worker);
  if (in_flight < threads + 1) return true;
  if (job_.params.boards_mode()) return false;
  return in_flight < static_cast<std::size_t>(kMaxBatchesPerThread) * threads &&
         seconds_in_flight(worker) < kQueuedSeconds * static_cast<double>(threads);
}

std::vector<int> Scheduler::stalled(double now, double min_seconds, double factor) const {
  const double mean = units_timed_ ? unit_seconds_ / static_cast<double>(units_timed_) : min_seconds;
  std::unordered_map<int, std::uint64_t> ahead;   // units queued at the worker up to this batch
  std::vector<int> out;
  for (const auto& [id, b] : in_flight_) {   // in id order: the order the worker queues them
    const std::uint64_t units = ahead[b.worker] += b.units.size();
    if (std::ranges::find(out, b.worker) != out.end()) continue;
    const double threads = threads_of(b.worker);
    const double expected = units_timed_ ? static_cast<double>(units) * mean / threads + mean : min_seconds;
    const auto heard = last_heard_.find(b.worker);
    const double silent = now - (heard == last_heard_.end() ? b.sent : heard->second);
    if (now - b.sent > std::max(min_seconds, factor * expected) && silent > min_seconds)
      out.push_back(b.worker);
  }
  return out;
}

}  // namespace nq::cluster
