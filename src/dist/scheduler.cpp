#include "dist/scheduler.h"
#include <algorithm>
#include <string>

namespace nq::dist {

Scheduler::Scheduler(const core::UnitPlan& plan, const proto::JobSpec& job, Skip skip,
                     std::uint64_t units_to_do, int total_threads, std::uint32_t max_batch)
    : job_(job),
      skip_(std::move(skip)),
      cursor_(plan),
      units_to_do_(units_to_do),
      total_threads_(std::max(1, total_threads)),
      max_batch_(std::max<std::uint32_t>(1, max_batch)) {}

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

std::optional<proto::WorkBatch> Scheduler::next_batch(int worker) {
  // Batches shrink towards the end so the last units spread over all threads: about a
  // quarter of each thread's remaining share, at least one unit.
  const std::uint64_t remaining = units_to_do_ > units_issued_ ? units_to_do_ - units_issued_ : 0;
  const std::uint64_t size = std::clamp<std::uint64_t>(
      remaining / (4 * static_cast<std::uint64_t>(total_threads_)), 1, max_batch_);
  proto::WorkBatch batch;
  batch.batch_id = next_batch_id_;
  core::WorkUnit u;
  while (batch.units.size() < size && take_unit(u)) batch.units.push_back(u);
  if (batch.units.empty()) return std::nullopt;
  ++next_batch_id_;
  in_flight_.emplace(batch.batch_id, InFlight{worker, batch.units});
  return batch;
}

void Scheduler::check(const InFlight& batch, const proto::ResultBatch& results,
                      std::vector<core::WorkUnit>& ordered) const {
  const std::string where = "batch " + std::to_string(results.batch_id);
  if (results.results.size() != batch.units.size())
    throw ResultError(where + ": " + std::to_string(results.results.size()) +
                      " results for " + std::to_string(batch.units.size()) + " units");
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
    if (job_.boards) {
      const auto n = static_cast<std::size_t>(job_.n);
      const std::size_t k = r.boards.size() / n;
      const bool all = job_.board_set == core::BoardSet::all;
      if (r.boards.size() % n || (all && k != it->multiplicity * r.solutions) ||
          (!all && r.class_sizes.size() != k))
        throw ResultError(where + ": unit " + std::to_string(r.id) + " reports " +
                          std::to_string(r.solutions) + " solutions but sends " +
                          std::to_string(k) + " boards");
      for (std::size_t b = 0; b < k; ++b) {
        const core::BoardView board(r.boards.data() + b * n, n);
        if (!core::is_solution(board))
          throw ResultError(where + ": unit " + std::to_string(r.id) + " sent an invalid board " +
                            core::to_columns(board));
      }
    }
    ordered.push_back(*it);
  }
}

std::vector<core::WorkUnit> Scheduler::accept(int worker, const proto::ResultBatch& results) {
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
    retry_.insert(retry_.end(), it->second.units.begin(), it->second.units.end());
    in_flight_.erase(it);
    throw;
  }
  units_done_ += ordered.size();
  in_flight_.erase(it);
  return ordered;
}

void Scheduler::worker_lost(int worker) {
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    if (it->second.worker == worker) {
      retry_.insert(retry_.end(), it->second.units.begin(), it->second.units.end());
      it = in_flight_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace nq::dist
