// The distributed job over MPI. Rank 0 is the master: it hands out batches of work units
// dynamically (several batches in flight per worker), checks every returned batch and passes
// it to MasterHooks (the app journals it). Every other rank is a worker with compute threads.
// The master waits with MPI_Iprobe and short sleeps, so it costs a few % of a core (about 10 µs
// a unit), not 100 %. With one rank, the master computes itself. runtime.cpp is the only place
// that includes <mpi.h>.
//
// Failures end the job, never hang it:
//   - a worker whose computation throws tells the master (rank, host, unit); the master stops
//     the job, and the app writes the partial file and exits with its code;
//   - a result message that cannot be decoded is rejected and its batch recomputed elsewhere;
//   - a worker that stops answering (Scheduler::stalled) gets no more work and its batches are
//     handed to the others; once every unit is done the master stops the workers, waits
//     kStopWaitSeconds, and reports those that did not answer (the app then calls abort());
//     the workers that confirmed wait outside MPI_Finalize until the master releases them (all
//     confirmed) or aborts: Open MPI 4.1.4's mpirun can hang in its own finalize after an
//     MPI_Abort that finds some ranks in MPI_Finalize (docs/faults.md);
//   - a master that sends nothing for kMasterSilentSeconds (stopped, hung, cut off) is taken
//     for hung by its workers: run_worker returns why, and the app ends the job with abort();
//   - both watches count only the time their own rank ran, so a suspended job (every process
//     stopped, then continued) is taken neither for a hung master nor for stalled workers;
//   - an exception that escapes on any rank of a job of several ranks ends with abort().
// MPI_COMM_WORLD keeps MPI_ERRORS_ARE_FATAL: an MPI error (a lost peer, a broken link) aborts
// the whole job through the MPI runtime; check_mpi() still checks every call's code.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include "cluster/scheduler.h"
#include "core/total.h"

namespace nq::cluster {

// The ranks a launcher started this process among, read from its environment without MPI:
// mpirun's OMPI_COMM_WORLD_SIZE, srun's SLURM_STEP_NUM_TASKS (not set in a batch script itself),
// PMI_SIZE (MPICH's launchers, srun --mpi=pmi2); 1 where none says more. `count` joins MPI only
// then (MPI_Init takes ~0.35 s of a process started alone, 10x a small count).
int launched_ranks();
// This process's rank among them, from the same launchers' environment (OMPI_COMM_WORLD_RANK,
// PMIX_RANK, PMI_RANK, SLURM_PROCID); 0 where none says. What one rank prints for all (a dry
// run, --help) is printed where it is 0.
int launched_rank();

// MPI_Init_thread (funneled) / MPI_Finalize; one per process.
class MpiSession {
 public:
  // Which ranks compute, for the node's CPU plan (cluster/layout.h): the workers of a job whose
  // rank 0 is its master (`run`), or every rank alike (`check`: rank 0 gets its own share).
  enum class Ranks { master_and_workers, peers };
  explicit MpiSession(Ranks ranks = Ranks::master_and_workers);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Worker threads this rank should use when not told: its share of the CPUs the node's ranks
  // are bound to (cluster/layout.h; the rank's affinity is widened to the CPUs only the master
  // had). A warning when those are fewer than the node's CPUs.
  int default_threads() const { return default_threads_; }
  const std::string& host() const { return host_; }
  // "rank R on host H: ", how every message of one rank of several names where it comes from.
  std::string where() const { return "rank " + std::to_string(rank_) + " on host " + host_ + ": "; }
  const std::string& host_of(int rank) const { return rank_hosts_.at(static_cast<std::size_t>(rank)); }
  // The layout warnings of all nodes, on rank 0 (collective: call on every rank).
  std::vector<std::string> gather_warnings() const;
  // On rank 0 (not collective): a warning, naming the host, when `threads` (a --threads given)
  // started by every computing rank of a node exceed the CPUs its ranks may use there
  // (cluster/layout.h rule 5); the first such node.
  std::optional<std::string> threads_warning(int threads) const;
  // Ends every rank of the job at once with `code` (MPI_Abort); for a job that cannot finish
  // cleanly (a rank that does not answer, an exception on one rank).
  [[noreturn]] void abort(int code) const;
  // Comma-separated distinct host names of all ranks (known on every rank since the start).
  std::string host_list() const;
  // The largest of `value` over all ranks (collective), e.g. the worst test result.
  int max_over_ranks(int value) const;
  // Element by element, the sums of `values` over all ranks, on every rank (collective; every
  // rank passes as many).
  std::vector<std::uint64_t> sum_over_ranks(const std::vector<std::uint64_t>& values) const;
  // The same for 128-bit totals, exact (std::overflow_error on every rank past 2^128).
  std::vector<core::Total> sum_totals_over_ranks(const std::vector<core::Total>& values) const;
  // Rank 0's `value`, on every rank (collective).
  std::uint64_t from_rank0(std::uint64_t value) const;
  // Every rank's text, in rank order: on rank 0 only, empty elsewhere (collective). Texts of
  // over 2 GiB together throw std::length_error on every rank.
  std::vector<std::string> gather_text(const std::string& mine) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  int default_threads_ = 1;
  std::string host_;
  std::vector<std::string> rank_hosts_;   // host of every rank
  std::vector<int> rank_pools_;           // on rank 0: the CPUs the ranks of each rank's node may use
  Ranks roles_ = Ranks::master_and_workers;
  std::string warning_;
};

struct MasterProgress {
  std::uint64_t units_done = 0;
  std::uint64_t units_to_do = 0;
  double seconds = 0;
  int threads = 1;   // the job's compute threads (JobOutcome::total_threads)
};

struct JobOutcome {
  bool interrupted = false;
  std::optional<std::string> failure;   // the audit failed (see AuditPolicy): the job is stopped
  // A rank failed ("rank R on host H: unit U: what") or no worker answered: the job is stopped.
  std::optional<std::string> rank_failure;
  std::vector<int> lost_workers;        // declared stalled during the run (batches handed out again)
  std::vector<int> unresponsive;        // did not confirm the stop within kStopWaitSeconds
  std::uint64_t rejected_batches = 0;
  std::uint64_t audited_units = 0, audit_mismatches = 0;
  // What the master moved (all 0 in a single process, which sends no messages): work batches
  // sent and result messages received (a batch is one message, or several past the size cap of
  // proto/frames.h), with their serialized sizes; units done by this run and
  // the seconds from the first batch to the last result.
  std::uint64_t batches_sent = 0, batches_received = 0, bytes_sent = 0, bytes_received = 0;
  std::uint64_t units_done = 0;
  double seconds = 0;
  int ranks = 1;
  int threads_per_rank = 1;   // compute threads of a worker rank (or of the master alone)
  int total_threads = 1;
  // Peak resident memory of each rank in KiB (peak_rss_kib()): a worker's as it confirmed the
  // stop (0 if it did not), the master's (index 0) as run_master returns. Filled after
  // MasterHooks::on_finished.
  std::vector<std::uint64_t> peak_rss_kib;
};

// This process's peak resident set size so far, in KiB (getrusage's ru_maxrss); 0 if unknown.
std::uint64_t peak_rss_kib();

class MasterHooks {
 public:
  virtual ~MasterHooks() = default;
  // A checked batch; units[i] is the unit of results.results[i].
  virtual void on_results(const proto::ResultBatch& results,
                          const std::vector<core::WorkUnit>& units) = 0;
  // A batch failed the checks; its units are being recomputed elsewhere.
  virtual void on_rejected(int worker, const std::string& why) = 0;
  // An audited unit's two results disagreed; both were discarded and it is computed again.
  virtual void on_audit_mismatch(const std::string& /*what*/) {}
  // A worker stopped answering; its batches are handed to the others.
  virtual void on_worker_lost(int /*worker*/, const std::string& /*why*/) {}
  virtual void on_progress(const MasterProgress& p) = 0;
  virtual bool stop_requested() = 0;   // e.g. SIGTERM / SIGUSR1 arrived
  // The compute phase is over (every unit done, a stop, or a failure), before the workers are
  // stopped: the app writes its result file here, so a rank that does not stop cannot keep
  // finished work from the disk.
  virtual void on_finished(const JobOutcome& outcome) = 0;
  // Every worker confirmed the stop. They wait until this returns, then the master releases
  // them to MPI_Finalize (not called when one did not confirm: the app ends the job with abort()).
  virtual void on_workers_stopped() {}
};


// How long the master waits for the workers to confirm the stop at the end: kStopWaitSeconds when
// every silent rank runs on the master's host, kRemoteStopWaitSeconds when one runs elsewhere.
// Open MPI 4.1's mpirun cannot finish an MPI_Abort while a node is unreachable (it waits for
// that node's daemon, seen for minutes with a cut link), so a silent remote rank first gets the
// time for Open MPI's own failure detection (its TCP keepalive) to end the job.
inline constexpr double kStopWaitSeconds = 5, kRemoteStopWaitSeconds = 30;
// A worker is stalled when its batch is overdue by max(kStallSeconds, kStallFactor x the batch's
// estimated time) and nothing came from it for kStallSeconds. A worker that holds work sends a
// sign of life after kAliveSeconds without sending anything else: with units that take longer
// than kStallSeconds (from N = 23 on; minutes at N = 27) every worker used to be taken for
// stalled 30 s into the job, before its first batch was done, and the job stopped (exit 7).
// NQUEENS_STALL_SECONDS replaces kStallSeconds (tests), and kAliveSeconds with a third of it.
inline constexpr double kStallSeconds = 3, kStallFactor = 10, kAliveSeconds = 1;
// A compute thread that has been on one unit this long since its search last checked in is
// hung (ComputePool::hung): its rank reports it as a failure (rank_failure), the job stops and
// keeps its finished work (exit 7), as for a unit that throws. A rank's sign of life comes from
// its main thread, which still answers then, so the stall rule above cannot see such a thread,
// and its batch would never come back. Searches check in at least every kCancelSplitLevels
// levels: every few milliseconds in units of N = 27-28, at most ~seconds in a default plan's
// whole units (N <= 20), ~10 s in the whole 18-level units of N = 22 at depth 1 (docs/faults.md).
// NQUEENS_HUNG_SECONDS replaces it (tests).
inline constexpr double kHungSeconds = 600;
// At the end of a run the compute threads are stopped (a count unit is cancelled at its next
// check); those still in a unit this much later are left running, not joined, until the
// process ends.
inline constexpr double kReleaseWaitSeconds = 2;
// With every worker stalled for this long the job stops (rank_failure).
inline constexpr double kNoWorkerSeconds = 10;
// The other way round: a worker that has heard nothing from the master for this long while the
// job computes ends the job (run_worker says why; the app calls abort(), exit 7, the finished
// units in the master's journal). A master that hangs (stopped, deadlocked, its node lost
// without the launcher noticing) used to leave every worker idle until the time limit. The
// master sends every worker a sign of life each third of it, and says when the compute phase is
// over: the workers stop watching while it writes the result file, however long that takes.
// NQUEENS_MASTER_SILENT_SECONDS replaces it (tests).
inline constexpr double kMasterSilentSeconds = 600;

// Rank 0 only. `job` is broadcast; workers then compute until every unit is done or the
// master stops (interrupt, an audit failure, a rank failure). Calls hooks.on_finished, then
// stops the workers (bounded: see JobOutcome::unresponsive). audit_fraction: the share of units computed
// twice by two different workers and compared (AuditPolicy); with a single worker rank the
// master audits on a thread of its own, in a single process the one pool recomputes them.
JobOutcome run_master(const MpiSession& mpi, const proto::JobSpec& job,
                      Scheduler::Skip skip, std::uint64_t units_to_do, MasterHooks& hooks,
                      double progress_interval, double audit_fraction = kDefaultAuditFraction);
// Rank 0 only, instead of run_master when the master failed before the start: the workers
// learn there is no job and return from run_worker.
void cancel_job(const MpiSession& mpi);
// Ranks > 0: receives the job and computes until told to stop; returns nullopt once the master
// stopped and released it. Returns why the job must end when the master fell silent
// (kMasterSilentSeconds): the caller reports it and ends the job with abort().
std::optional<std::string> run_worker(const MpiSession& mpi);

}  // namespace nq::cluster
