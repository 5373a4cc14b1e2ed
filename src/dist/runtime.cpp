#include "dist/runtime.h"
#include <mpi.h>
#include <unistd.h>
#include <algorithm>
#include <numeric>
#include <chrono>
#include <list>
#include <set>
#include <stdexcept>
#include <thread>
#include "core/parallel.h"
#include "dist/compute_pool.h"

namespace nq::dist {
namespace {

enum Tag : int { kTagWork = 1, kTagResult = 2, kTagStop = 3, kTagStopped = 4 };
constexpr auto kIdleSleep = std::chrono::microseconds(1000);

// The pause of a polling loop with nothing to do: 50 us after activity, doubling while idle up
// to 1 ms. Polling (MPI_Iprobe) costs CPU the compute threads need; sleeping in a blocking
// receive would spin at 100 % in Open MPI. A rank's queue holds >= kQueuedSeconds of work, far
// longer than the longest pause.
class IdlePause {
 public:
  std::chrono::microseconds next() {
    const auto d = pause_;
    pause_ = std::min(pause_ * 2, kMax);
    return d;
  }
  void reset() { pause_ = kMin; }

 private:
  static constexpr std::chrono::microseconds kMin{50}, kMax{1000};
  std::chrono::microseconds pause_ = kMin;
};
constexpr double kQueuedSeconds = 0.02;      // estimated work queued per worker thread
// In flight per worker thread, at most. With cheap units the round trip (polling loops on both
// sides, shared cores) takes milliseconds: 8 batches per thread capped N = 14 / depth 10 at
// 86k units/s, 64 reach 320k (bench/dispatch.sh).
constexpr int kMaxBatchesPerThread = 64;
// Units per batch, at most. Count mode: 48 units are ~2.5 KB of work and ~3.5 KB of results,
// under the 4 KB eager limit of Open MPI's shared-memory transport (larger messages need a
// rendezvous, which costs round trips of the polling loops): measured 3x the units/s of 256.
constexpr std::uint32_t kMaxCountBatch = 48, kMaxBoardsBatch = 256;

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw std::runtime_error(std::string("dist: ") + what + ": " + std::string(msg, len));
  }
}

// Non-blocking sends whose buffers live until MPI is done with them.
class Sender {
 public:
  void send(int dest, int tag, std::string bytes) {
    auto& p = pending_.emplace_back(Pending{std::move(bytes), MPI_REQUEST_NULL});
    check_mpi(MPI_Isend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, dest, tag,
                        MPI_COMM_WORLD, &p.request),
              "MPI_Isend");
  }
  void poll() {
    pending_.remove_if([](Pending& p) {
      int done = 0;
      MPI_Test(&p.request, &done, MPI_STATUS_IGNORE);
      return done != 0;
    });
  }
  bool empty() const { return pending_.empty(); }

 private:
  struct Pending {
    std::string bytes;
    MPI_Request request;
  };
  std::list<Pending> pending_;
};

// The next message with `tag` from `source` (or any), if one is waiting.
std::optional<std::pair<int, std::string>> try_receive(int source, int tag, int* tag_out = nullptr) {
  int flag = 0;
  MPI_Status st;
  MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st);
  if (!flag) return std::nullopt;
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  std::string bytes(static_cast<std::size_t>(count), '\0');
  check_mpi(MPI_Recv(bytes.data(), count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE),
            "MPI_Recv");
  if (tag_out) *tag_out = st.MPI_TAG;
  return std::make_pair(st.MPI_SOURCE, std::move(bytes));
}

void broadcast(std::string& bytes, int rank) {
  unsigned long long size = bytes.size();
  MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank != 0) bytes.resize(size);
  if (size) MPI_Bcast(bytes.data(), static_cast<int>(size), MPI_BYTE, 0, MPI_COMM_WORLD);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

MpiSession::MpiSession() {
  int provided = 0;
  check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_FUNNELED) throw std::runtime_error("dist: MPI lacks MPI_THREAD_FUNNELED");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  // Ranks sharing this node; the master's rank leaves its cores to the workers.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  int node_size = 1;
  MPI_Comm_size(node, &node_size);
  int master_here = rank_ == 0 ? 1 : 0, masters = 0;
  MPI_Allreduce(&master_here, &masters, 1, MPI_INT, MPI_SUM, node);
  MPI_Comm_free(&node);
  const int workers_here = size_ == 1 ? 1 : std::max(1, node_size - masters);
  default_threads_ = std::max(1, core::hardware_threads() / workers_here);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

std::string MpiSession::gather_hosts() const {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> all(static_cast<std::size_t>(size_) * MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
             0, MPI_COMM_WORLD);
  if (rank_ != 0) return {};
  std::set<std::string> hosts;
  for (int r = 0; r < size_; ++r) hosts.insert(std::string(all.data() + r * MPI_MAX_PROCESSOR_NAME));
  std::string out;
  for (const auto& h : hosts) out += (out.empty() ? "" : ",") + h;
  return out;
}

void cancel_job(const MpiSession& mpi) {
  std::string none;
  broadcast(none, mpi.rank());
}

int MpiSession::max_over_ranks(int value) const {
  int out = value;
  MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

JobOutcome run_master(const MpiSession& mpi, const proto::JobSpec& spec,
                      Scheduler::Skip skip, std::uint64_t units_to_do, MasterHooks& hooks,
                      double progress_interval, double audit_fraction) {
  std::string bytes = proto::encode(spec);
  broadcast(bytes, 0);
  const proto::JobSpec* job = &spec;

  const int size = mpi.size();
  const int mine = size == 1 ? (job->threads_per_worker ? job->threads_per_worker : mpi.default_threads()) : 0;
  std::vector<int> threads(static_cast<std::size_t>(size));
  MPI_Gather(&mine, 1, MPI_INT, threads.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  JobOutcome out;
  out.ranks = size;
  out.total_threads = std::max(1, std::accumulate(threads.begin(), threads.end(), 0));
  out.threads_per_rank = *std::max_element(threads.begin(), threads.end());

  const core::UnitPlan plan(job->n, job->depth, job->symmetry);
  // With one worker rank, the audit copies need a second worker: a thread of the master.
  const bool master_audits = size == 2 && audit_fraction > 0;
  AuditPolicy audit;
  audit.fraction = audit_fraction;
  audit.workers = size == 1 ? 1 : size - 1 + (master_audits ? 1 : 0);
  Scheduler sched(plan, *job, std::move(skip), units_to_do, out.total_threads,
                  job->boards ? kMaxBoardsBatch : kMaxCountBatch, audit);
  std::optional<ComputePool> local;
  if (mine > 0) local.emplace(plan, *job, 0, mine);
  else if (master_audits) local.emplace(plan, *job, 0, 1);
  Sender sender;
  IdlePause pause;

  // Each worker keeps at least (threads + 1) batches in flight, and more while they hold less
  // than kQueuedSeconds of estimated work per thread (cheap units), so no thread waits for a
  // round trip.
  std::vector<int> in_flight(static_cast<std::size_t>(size), 0);
  auto wants_more = [&](int w, bool audits_only) {
    if (audits_only) return in_flight[w] < 2;
    if (threads[w] == 0) return false;
    if (in_flight[w] < threads[w] + 1) return true;
    return in_flight[w] < kMaxBatchesPerThread * threads[w] && sched.seconds_in_flight(w) < kQueuedSeconds * threads[w];
  };
  auto feed = [&](int w) {
    const bool audits_only = w == 0 && master_audits;
    while (wants_more(w, audits_only)) {
      auto batch = sched.next_batch(w, audits_only);
      if (!batch) return;
      ++in_flight[w];
      if (w == 0) {
        local->submit(*batch);
        continue;
      }
      std::string work = proto::encode(*batch);
      ++out.batches_sent;
      out.bytes_sent += work.size();
      sender.send(w, kTagWork, std::move(work));
    }
  };
  core::Count solutions = 0;
  auto handle = [&](int w, proto::ResultBatch rb) {
    --in_flight[w];
    try {
      const auto units = sched.accept(w, rb);   // rb keeps the results accepted now
      for (std::size_t i = 0; i < units.size(); ++i)
        solutions += units[i].multiplicity * rb.results[i].solutions;
      if (!units.empty()) hooks.on_results(rb, units);
    } catch (const ResultError& e) {
      hooks.on_rejected(w, e.what());
    }
    for (const auto& line : sched.take_audit_reports()) hooks.on_audit_mismatch(line);
  };
  const auto t0 = std::chrono::steady_clock::now();
  for (int w = 0; w < size; ++w) feed(w);

  double next_report = progress_interval;
  while (!sched.all_done()) {
    if (sched.failure()) {
      out.failure = sched.failure();
      break;
    }
    if (hooks.stop_requested()) {
      out.interrupted = true;
      break;
    }
    bool busy = false;
    while (auto msg = try_receive(MPI_ANY_SOURCE, kTagResult)) {
      ++out.batches_received;
      out.bytes_received += msg->second.size();
      handle(msg->first, proto::decode_results(msg->second));
      busy = true;
    }
    if (local)
      for (auto& rb : local->take_completed()) {
        handle(0, std::move(rb));
        busy = true;
      }
    if (busy)
      for (int w = 0; w < size; ++w) feed(w);   // refill, including units put back after a rejection
    sender.poll();
    const double elapsed = seconds_since(t0);
    if (elapsed >= next_report) {
      hooks.on_progress({sched.units_done(), sched.units_to_do(), solutions, elapsed});
      next_report = elapsed + progress_interval;
    }
    if (busy) {
      pause.reset();
      continue;
    }
    if (local) local->wait_completed(pause.next());
    else std::this_thread::sleep_for(pause.next());
  }
  if (!out.failure && sched.failure()) out.failure = sched.failure();
  out.units_done = sched.units_done();
  out.seconds = seconds_since(t0);
  out.rejected_batches = sched.rejected_batches();
  out.audited_units = sched.audited_units();
  out.audit_mismatches = sched.audit_mismatches();
  hooks.on_progress({sched.units_done(), sched.units_to_do(), solutions, seconds_since(t0)});

  // Stop the workers; drain whatever they still send until each confirms.
  if (local) local->stop();
  for (int w = 1; w < size; ++w) sender.send(w, kTagStop, {});
  int stopped = 0;
  while (stopped < size - 1) {
    int tag = 0;
    if (auto msg = try_receive(MPI_ANY_SOURCE, MPI_ANY_TAG, &tag)) {
      if (tag == kTagStopped) ++stopped;
      continue;
    }
    sender.poll();
    std::this_thread::sleep_for(kIdleSleep);
  }
  while (!sender.empty()) sender.poll();
  return out;
}

void run_worker(const MpiSession& mpi) {
  std::string bytes;
  broadcast(bytes, mpi.rank());
  if (bytes.empty()) return;   // the master failed before the start
  const proto::JobSpec job = proto::decode_job(bytes);
  int threads = job.threads_per_worker ? job.threads_per_worker : mpi.default_threads();
  MPI_Gather(&threads, 1, MPI_INT, nullptr, 0, MPI_INT, 0, MPI_COMM_WORLD);

  const core::UnitPlan plan(job.n, job.depth, job.symmetry);
  ComputePool pool(plan, job, mpi.rank(), threads);
  Sender sender;
  IdlePause pause;
  for (bool running = true; running;) {
    bool busy = false;
    int tag = 0;
    while (auto msg = try_receive(0, MPI_ANY_TAG, &tag)) {
      busy = true;
      if (tag == kTagStop) {
        running = false;
        break;
      }
      pool.submit(proto::decode_work(msg->second));
    }
    if (!running) break;
    for (const auto& rb : pool.take_completed()) {
      sender.send(0, kTagResult, proto::encode(rb));
      busy = true;
    }
    sender.poll();
    if (busy) pause.reset();
    else pool.wait_completed(pause.next());   // wakes at once when a batch is done
  }
  pool.stop();
  while (!sender.empty()) {   // the master drains results until we confirm
    sender.poll();
    std::this_thread::sleep_for(kIdleSleep);
  }
  MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagStopped, MPI_COMM_WORLD);
}

}  // namespace nq::dist
