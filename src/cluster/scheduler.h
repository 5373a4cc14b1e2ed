// The master's bookkeeping, without MPI: which units go to which worker in which batch, what is
// in flight, the checks on every returned batch (each unit counted exactly once), and the audit
// (a deterministic sample of units computed twice, by two different workers, and compared).
// Called only from the master's loop (src/cluster/runtime.cpp); not thread-safe.
#pragma once
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>
#include "core/units.h"
#include "proto/messages.h"

namespace nq::cluster {

// A returned batch that cannot be accepted (unknown batch, wrong worker, missing, duplicated
// or foreign unit ids, a bad checksum, boards that do not match the count).
class ResultError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Boards mode: a batch is sized so that its result (every board of its units) stays under this
// many bytes, by the bytes per unit seen so far; memory per rank stays bounded at any N. The
// later units of a plan hold up to ~12x the running mean (N = 17), so a batch can reach ~10x
// this; at 4 MiB the worker's peak was 330 MB at N = 19 (docs/performance.md).
inline constexpr std::uint64_t kMaxBatchResultBytes = 1u << 20;

// The feed's look-ahead in count mode (Scheduler::wants_batch): estimated work queued per worker
// thread, and batches in flight per worker thread at most. With cheap units the round trip
// (polling loops on both sides, shared cores) takes milliseconds: 8 batches per thread capped
// N = 14 / depth 10 at 86k units/s, 64 reach 320k (bench/dispatch.sh).
inline constexpr double kQueuedSeconds = 0.02;
inline constexpr int kMaxBatchesPerThread = 64;
// Count mode: a batch holds at most this many seconds of work per thread of its worker (by the
// mean unit time so far; one unit before the first result). A batch's results come back, and
// are journaled, when its last unit is done, so its size is the work a stop or a crash loses
// and the wait for the first progress line. With units of seconds (N >= 23) the 48-unit batches
// kept a worker of 1-2 threads silent for minutes (N = 24's first units take 7-11 s each), and
// with every worker silent for 30 s the job was stopped as stalled. 4 s keeps the master's
// messages few at scale: N = 27 (units of ~16 core-s) on 10,000 nodes of 64 threads makes
// ~2,500 batches a second, a fifth of what the master sustains (bench/dispatch.sh).
inline constexpr double kBatchSeconds = 4;

// Default share of units that are audited (computed a second time and compared).
inline constexpr double kDefaultAuditFraction = 1.0 / 64;

// The audit: unit `id` is in the sample when splitmix64(id) < fraction * 2^64 (fraction 1: every
// unit, 0: none), so every run of a job audits the same units. An audited unit's first result is
// held back until a second worker (a different rank; the same one only when the job has a
// single worker) has computed it again. Equal (solutions and boards) -> accepted. Different ->
// both are discarded, the mismatch is reported, and the unit is computed again from scratch
// (first copy + audit copy); after `max_rounds` disagreeing rounds the job fails (failure()).
struct AuditPolicy {
  double fraction = 0;   // Scheduler default: no audit (the app passes kDefaultAuditFraction)
  int workers = 1;       // distinct workers (ranks that compute): 1 allows auditing on the same one
  int max_rounds = 3;
};

// True when unit `id` is in the audit sample of `fraction` (see AuditPolicy).
bool in_audit_sample(std::uint64_t id, double fraction);

class Scheduler {
 public:
  // skip(id): the unit is already done (journal) or belongs to another shard.
  // units_to_do: how many units the plan has that skip() keeps (for batch sizing / progress).
  using Skip = std::function<bool(std::uint64_t)>;
  Scheduler(const core::UnitPlan& plan, const proto::JobSpec& job, Skip skip,
            std::uint64_t units_to_do, int total_threads, std::uint32_t max_batch = 256,
            AuditPolicy audit = {}, std::uint64_t max_result_bytes = kMaxBatchResultBytes);

  // The next batch for `worker`, or nullopt when nothing is left to hand out. Audit copies the
  // worker may compute (it did not compute the first copy) come first. audits_only: nothing else
  // (the master's audit thread when the job has a single worker rank).
  // `now`: the caller's clock in seconds (for the stall check below).
  std::optional<proto::WorkBatch> next_batch(int worker, bool audits_only = false, double now = 0);
  // Checks `results` (see ResultError). On success the batch leaves the in-flight set, `results`
  // keeps only the results accepted now (an audited unit's first result is held back; its audit
  // copy's result is kept once both agree; a disagreeing one is dropped and reported by
  // take_audit_reports()), and the returned units are those of the kept results, in order.
  // On failure the batch's units are put back for another worker and ResultError is thrown.
  // A result of a batch that was handed out again after its worker was declared lost (see
  // stalled()) is dropped: accept returns no units and `results` is emptied.
  std::vector<core::WorkUnit> accept(int worker, proto::ResultBatch& results);
  // A batch whose result message could not be decoded: its units are handed out again. False
  // when `worker` has no such batch in flight (then nothing changes).
  bool reject(int worker, std::uint64_t batch_id);

  // Liveness. A worker is stalled when one of its batches has been in flight for longer than
  // max(min_seconds, factor x the batch's estimated time: the units queued at the worker up to
  // it, times the mean unit time so far, over the worker's threads) and nothing came from the
  // worker for min_seconds. Before the first result there is no estimate: min_seconds x factor.
  void set_threads(int worker, int threads);
  void heard_from(int worker, double now);   // any message from it; a lost worker is back
  std::vector<int> stalled(double now, double min_seconds, double factor) const;
  // A worker is gone or stalled: its in-flight units are handed out again, it gets no more work
  // until heard_from() is called for it, and the results it still sends for those batches are
  // dropped (the copies handed out again win).
  void worker_lost(int worker);
  bool lost(int worker) const { return lost_.contains(worker); }
  int live_workers() const { return policy_.workers - static_cast<int>(lost_.size()); }
  std::size_t batches_in_flight(int worker) const;
  // Whether `worker` (set_threads: T threads) should get another batch now. Every worker keeps
  // T + 1 batches in flight. In count mode more, up to kMaxBatchesPerThread * T, while they
  // hold less than kQueuedSeconds * T of estimated work (seconds_in_flight), so that no thread
  // waits for a round trip with cheap units. In boards mode no more: each batch in flight is
  // memory on the worker until the master takes its results (~kMaxBatchResultBytes, more where
  // units outgrow the running mean), and the estimate from a plan's cheap first units let ~10
  // batches queue there: a worker peaked at 310 MB at N = 18 all (docs/performance.md).
  bool wants_batch(int worker) const;

  bool all_done() const {
    return exhausted_ && retry_.empty() && in_flight_.empty() && audit_queue_.empty();
  }
  // The estimated compute time of the units in flight at `worker`: its unit count times the
  // mean seconds per unit of the results so far; infinite before the first result (unknown: a
  // caller topping up queues by this estimate must not flood the first worker it feeds).
  double seconds_in_flight(int worker) const;
  std::uint64_t units_to_do() const { return units_to_do_; }
  std::uint64_t units_done() const { return units_done_; }
  std::uint64_t rejected_batches() const { return rejected_; }
  std::uint64_t audited_units() const { return audited_; }       // audits that agreed
  std::uint64_t audit_mismatches() const { return mismatches_; }
  // One line per audit mismatch since the last call.
  std::vector<std::string> take_audit_reports() { return std::exchange(reports_, {}); }
  // Set when a unit's results disagreed in max_rounds rounds: the job cannot be trusted.
  const std::optional<std::string>& failure() const { return failure_; }

 private:
  struct InFlight {
    int worker;
    std::vector<core::WorkUnit> units;
    double sent = 0;
  };
  // An audited unit between its first result and the agreement of a second one.
  struct Audit {
    core::WorkUnit unit;
    bool have_first = false;   // false: the first copy is being (re)computed
    int first_worker = -1;
    core::Count first_solutions = 0;
    std::uint64_t first_digest = 0;
    int rounds = 0;            // disagreeing rounds so far
  };
  bool take_unit(core::WorkUnit& u);
  void land(std::map<std::uint64_t, InFlight>::iterator it);   // the batch leaves the in-flight set
  int threads_of(int worker) const;   // set_threads', 1 if never set
  void requeue(const core::WorkUnit& u);
  bool audit(int worker, const proto::UnitResult& r, const core::WorkUnit& u);
  void check(const InFlight& batch, const proto::ResultBatch& results,
             std::vector<core::WorkUnit>& ordered) const;

  const core::UnitPlan& plan_;   // the caller's, outlives the scheduler (as the cursor's)
  proto::JobSpec job_;
  Skip skip_;
  core::UnitCursor cursor_;
  bool exhausted_ = false;
  std::deque<core::WorkUnit> retry_;
  std::map<std::uint64_t, InFlight> in_flight_;
  std::unordered_map<int, std::uint64_t> units_out_;   // units in flight per worker
  std::unordered_map<int, std::size_t> batches_out_;   // batches in flight per worker (the feed's hot path)
  double unit_seconds_ = 0;                             // summed over checked results
  std::uint64_t result_bytes_ = 0;                      // boards + class sizes, summed likewise
  std::uint64_t units_timed_ = 0;
  std::uint64_t next_batch_id_ = 1;
  std::uint64_t units_to_do_;
  std::uint64_t units_issued_ = 0;
  std::uint64_t units_done_ = 0;
  std::uint64_t rejected_ = 0;
  int total_threads_;
  std::uint32_t max_batch_;
  AuditPolicy policy_;
  std::uint64_t max_result_bytes_;
  std::unordered_map<std::uint64_t, Audit> audits_;
  std::deque<std::uint64_t> audit_queue_;   // audit copies waiting for a worker
  std::uint64_t audited_ = 0, mismatches_ = 0;
  std::vector<std::string> reports_;
  std::optional<std::string> failure_;
  std::unordered_map<int, int> threads_;          // per worker (set_threads), default 1
  std::unordered_map<int, double> last_heard_;    // per worker: heard_from() or the first batch sent
  std::unordered_set<int> lost_;
  std::unordered_set<std::uint64_t> abandoned_;   // batches of lost workers, handed out again
};

}  // namespace nq::cluster
