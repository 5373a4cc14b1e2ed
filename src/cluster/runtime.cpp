#include "cluster/runtime.h"
#include <mpi.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <list>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include "core/parallel.h"
#include "cluster/compute_pool.h"
#include "cluster/fault_injection.h"
#include "cluster/layout.h"
#include "proto/frames.h"

namespace nq::cluster {
namespace {

// kTagResult carries frames (proto/frames.h); kTagFailed a worker's "rank R on host H: ..." line;
// kTagAlive nothing (a worker holding work that sent nothing for kAliveSeconds, or the master's
// sign of life to every worker: kMasterSilentSeconds); kTagRelease nothing (every worker
// confirmed the stop: they may finalize, see run_worker); kTagEnding nothing (the compute phase
// is over: the master writes the result file, then stops the workers).
enum Tag : int {
  kTagWork = 1, kTagResult = 2, kTagStop = 3, kTagStopped = 4, kTagFailed = 5, kTagAlive = 6, kTagRelease = 7,
  kTagEnding = 8
};
constexpr auto kIdleSleep = std::chrono::microseconds(1000);
// A polling loop that did not turn for this long was not running (see RunningClock).
constexpr double kOwnPauseSeconds = 1;
// How long the master waits for its notices that the compute phase is over to go out.
constexpr double kEndingSendSeconds = 1;

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
// Units per batch, at most. Count mode: 48 units are ~2.5 KB of work and ~3.5 KB of results,
// under the 4 KB eager limit of Open MPI's shared-memory transport (larger messages need a
// rendezvous, which costs round trips of the polling loops): measured 3x the units/s of 256.
constexpr std::uint32_t kMaxCountBatch = 48, kMaxBoardsBatch = 256;

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw std::runtime_error(std::string("cluster: ") + what + ": " + std::string(msg, len));
  }
}

// Non-blocking sends whose buffers live until MPI is done with them.
class Sender {
 public:
  void send(int dest, int tag, std::string bytes) {
    if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw std::length_error("cluster: a message of " + std::to_string(bytes.size()) + " bytes exceeds MPI's int count");
    auto& p = pending_.emplace_back(Pending{std::move(bytes), MPI_REQUEST_NULL});
    check_mpi(MPI_Isend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, dest, tag,
                        MPI_COMM_WORLD, &p.request),
              "MPI_Isend");
  }
  void poll() {
    pending_.remove_if([](Pending& p) {
      int done = 0;
      check_mpi(MPI_Test(&p.request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      return done != 0;
    });
  }
  bool empty() const { return pending_.empty(); }
  // Polls, kIdleSleep apart, until every send has completed or `seconds` have passed (a send to
  // a rank that is hung or cut off may never complete).
  void drain(double seconds = std::numeric_limits<double>::infinity()) {
    const auto t0 = std::chrono::steady_clock::now();
    for (poll(); !empty() && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds;
         poll())
      std::this_thread::sleep_for(kIdleSleep);
  }

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
  check_mpi(MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
  if (!flag) return std::nullopt;
  int count = 0;
  check_mpi(MPI_Get_count(&st, MPI_BYTE, &count), "MPI_Get_count");
  std::string bytes(static_cast<std::size_t>(count), '\0');
  check_mpi(MPI_Recv(bytes.data(), count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE),
            "MPI_Recv");
  if (tag_out) *tag_out = st.MPI_TAG;
  return std::make_pair(st.MPI_SOURCE, std::move(bytes));
}

// Waits for a nonblocking operation by polling it with IdlePause's sleeps: a blocking MPI call
// spins at 100 % of a core in Open MPI for as long as it waits.
void wait_polling(MPI_Request& request, const char* what) {
  IdlePause pause;
  for (int done = 0;;) {
    check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    std::this_thread::sleep_for(pause.next());
  }
}

// Rank 0's bytes to every rank. The workers wait here while the master prepares the job (the
// plan's count, the lock of the journal with --lock-wait, a journal's replay: minutes at large
// N), so the wait polls instead of spinning (every rank must use the nonblocking form: blocking
// and nonblocking collectives do not match).
void broadcast(std::string& bytes, int rank) {
  unsigned long long size = bytes.size();
  MPI_Request request;
  check_mpi(MPI_Ibcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD, &request), "MPI_Ibcast");
  wait_polling(request, "MPI_Ibcast");
  if (rank != 0) bytes.resize(size);
  if (!size) return;
  check_mpi(MPI_Ibcast(bytes.data(), static_cast<int>(size), MPI_BYTE, 0, MPI_COMM_WORLD, &request), "MPI_Ibcast");
  wait_polling(request, "MPI_Ibcast");
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The seconds a rank's polling loop has run since it began, for measuring how long a peer has
// been silent. A turn of the loop takes at most ~1 ms: a gap of over kOwnPauseSeconds between two
// turns is time this rank did not run (a suspended job: Slurm's `scontrol suspend` stops every
// process of it; a paused VM), not the peer's silence, so it does not count. Without this, a job
// suspended for longer than the watches' limits ended (the workers took the master for silent)
// or lost its batches in flight (the master took every worker for stalled) once resumed.
class RunningClock {
 public:
  // At the start of each turn: takes a gap since the last one out; returns now().
  double turn() {
    const double t = seconds_since(t0_);
    if (t - last_turn_ > kOwnPauseSeconds) paused_ += t - last_turn_;
    last_turn_ = t;
    return t - paused_;
  }
  // Between turns (a gap within a turn counts at the next one).
  double now() const { return seconds_since(t0_) - paused_; }

 private:
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  double last_turn_ = 0, paused_ = 0;
};

// A number of seconds from the environment variable `name` (> 0), else `fallback`.
double seconds_from_env(const char* name, double fallback) {
  const char* env = std::getenv(name);
  const double d = env ? std::strtod(env, nullptr) : 0;
  return d > 0 && std::isfinite(d) ? d : fallback;
}
// kStallSeconds, or NQUEENS_STALL_SECONDS (for tests: a stall within seconds) on every rank; a
// worker's sign of life comes after a third of it (kAliveSeconds by default).
double stall_seconds() {
  static const double v = seconds_from_env("NQUEENS_STALL_SECONDS", kStallSeconds);
  return v;
}
// kHungSeconds, or NQUEENS_HUNG_SECONDS (for tests) on every rank.
double hung_seconds() {
  static const double v = seconds_from_env("NQUEENS_HUNG_SECONDS", kHungSeconds);
  return v;
}
// After pool->stop(): a pool whose threads are still in a unit kReleaseWaitSeconds later is not
// joined (its destructor would wait for a hung thread for ever, or for a long unit that checks
// its cancel only at its end: a stop signal left the process hanging there). It, and the plan
// its threads read, are left to the end of the process, so that such a thread finds them whole
// should it return (kept reachable, so not a leak to LeakSanitizer). The job ends around it as
// it would have (a hung thread: exit 7).
void release_unless_idle(std::unique_ptr<const core::UnitPlan>& plan, std::unique_ptr<ComputePool>& pool) {
  if (!pool || pool->wait_idle(std::chrono::milliseconds(static_cast<int>(kReleaseWaitSeconds * 1000)))) return;
  struct Left {
    std::unique_ptr<const core::UnitPlan> plan;
    std::unique_ptr<ComputePool> pool;
  };
  static auto* const left = new std::vector<Left>();   // never destroyed
  left->push_back({std::move(plan), std::move(pool)});
}
double alive_seconds() { return stall_seconds() * (kAliveSeconds / kStallSeconds); }
// kMasterSilentSeconds, or NQUEENS_MASTER_SILENT_SECONDS (for tests) on every rank.
double master_silent_seconds() {
  static const double v = seconds_from_env("NQUEENS_MASTER_SILENT_SECONDS", kMasterSilentSeconds);
  return v;
}

// Result messages are cut into parts of at most this many bytes. NQUEENS_MAX_MESSAGE_BYTES
// (for tests; at least 64) lowers it.
std::size_t max_message_bytes() {
  static const std::size_t cap = [] {
    const char* env = std::getenv("NQUEENS_MAX_MESSAGE_BYTES");
    const unsigned long long v = env ? std::strtoull(env, nullptr, 10) : 0;
    return v >= 64 && v < proto::kDefaultMaxMessageBytes ? static_cast<std::size_t>(v) : proto::kDefaultMaxMessageBytes;
  }();
  return cap;
}

// Every rank's string, cut to `width` - 1 bytes, in rank order: on rank 0 only, or on every rank
// with to_all (collective: call on every rank).
std::vector<std::string> gather_strings(const std::string& mine, int rank, int size, std::size_t width,
                                        bool to_all) {
  std::vector<char> buf(width, '\0');
  std::memcpy(buf.data(), mine.data(), std::min(mine.size(), width - 1));
  const bool here = to_all || rank == 0;
  std::vector<char> all(here ? static_cast<std::size_t>(size) * width : 0);
  const int w = static_cast<int>(width);
  if (to_all)
    check_mpi(MPI_Allgather(buf.data(), w, MPI_CHAR, all.data(), w, MPI_CHAR, MPI_COMM_WORLD), "MPI_Allgather");
  else
    check_mpi(MPI_Gather(buf.data(), w, MPI_CHAR, all.data(), w, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<std::string> out;
  for (int r = 0; here && r < size; ++r) out.emplace_back(all.data() + static_cast<std::size_t>(r) * width);
  return out;
}

CpuSet own_affinity() {
  CpuSet mask;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < kMaxCpus && c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) mask.set(c);
  }
  if (mask.none())
    for (int c = 0; c < core::usable_cpus() && c < kMaxCpus; ++c) mask.set(c);
  return mask;
}

void set_affinity(const CpuSet& mask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c = 0; c < kMaxCpus && c < CPU_SETSIZE; ++c)
    if (mask[c]) CPU_SET(c, &set);
  sched_setaffinity(0, sizeof set, &set);   // best effort: a refusal keeps the launcher's binding
}

// The CPUs of this node the job may expect to use: Slurm's allocation here when known, else
// the node's online CPUs.
int node_cpus() {
  if (const char* env = std::getenv("SLURM_CPUS_ON_NODE")) {
    const int v = std::atoi(env);
    if (v > 0) return v;
  }
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : core::usable_cpus();
}

}  // namespace

MpiSession::MpiSession(Ranks roles) : roles_(roles) {
  int provided = 0;
  check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_FUNNELED) throw std::runtime_error("cluster: MPI lacks MPI_THREAD_FUNNELED");
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  check_mpi(MPI_Get_processor_name(name, &len), "MPI_Get_processor_name");
  host_.assign(name, static_cast<std::size_t>(len));
  rank_hosts_ = gather_strings(host_, rank_, size_, MPI_MAX_PROCESSOR_NAME + 1, true);

  // The ranks sharing this node plan their CPUs together (cluster/layout.h).
  MPI_Comm node;
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  int node_rank = 0, node_size = 1;
  check_mpi(MPI_Comm_rank(node, &node_rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(node, &node_size), "MPI_Comm_size");
  constexpr int kWords = kMaxCpus / 64 + 1;   // the mask's words, then "is the master"
  const CpuSet mine = own_affinity();
  std::vector<unsigned long long> words(kWords, 0), all(static_cast<std::size_t>(kWords) * node_size);
  for (int c = 0; c < kMaxCpus; ++c)
    if (mine[c]) words[c / 64] |= 1ULL << (c % 64);
  words[kWords - 1] = rank_ == 0 && roles == Ranks::master_and_workers;
  check_mpi(MPI_Allgather(words.data(), kWords, MPI_UNSIGNED_LONG_LONG, all.data(), kWords,
                          MPI_UNSIGNED_LONG_LONG, node),
            "MPI_Allgather");
  check_mpi(MPI_Comm_free(&node), "MPI_Comm_free");
  std::vector<RankCpus> ranks(static_cast<std::size_t>(node_size));
  for (int r = 0; r < node_size; ++r) {
    for (int c = 0; c < kMaxCpus; ++c)
      if (all[static_cast<std::size_t>(r) * kWords + c / 64] >> (c % 64) & 1) ranks[r].mask.set(c);
    ranks[r].master = all[static_cast<std::size_t>(r) * kWords + kWords - 1] != 0;
  }
  const NodeLayout layout = plan_node(ranks, node_cpus());
  if (layout.masks[node_rank] != mine) set_affinity(layout.masks[node_rank]);
  default_threads_ = std::max(1, layout.threads[node_rank]);
  if (node_rank == 0 && layout.warning) warning_ = "on host " + host_ + ": " + *layout.warning;
  rank_pools_.resize(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  check_mpi(MPI_Gather(&layout.pool, 1, MPI_INT, rank_pools_.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void MpiSession::abort(int code) const {
  std::cerr.flush();
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);   // MPI_Abort does not return; this is for the compiler
}

std::string MpiSession::host_list() const {
  const std::set<std::string> hosts(rank_hosts_.begin(), rank_hosts_.end());
  std::string out;
  for (const auto& h : hosts) out += (out.empty() ? "" : ",") + h;
  return out;
}

std::vector<std::string> MpiSession::gather_warnings() const {
  std::vector<std::string> out;
  for (auto& w : gather_strings(warning_, rank_, size_, 1024, false))
    if (!w.empty()) out.push_back(std::move(w));
  return out;
}

std::optional<std::string> MpiSession::threads_warning(int threads) const {
  std::map<std::string, std::pair<int, int>> hosts;   // host: its computing ranks, their pool
  for (int r = 0; r < static_cast<int>(rank_pools_.size()); ++r)
    if (roles_ == Ranks::peers || size_ == 1 || r != 0) {
      auto& [ranks, pool] = hosts[host_of(r)];
      ++ranks;
      pool = rank_pools_[static_cast<std::size_t>(r)];
    }
  for (const auto& [host, node] : hosts)
    if (auto w = oversubscription_warning(node.first, threads, node.second)) return "on host " + host + ": " + *w;
  return std::nullopt;
}

void cancel_job(const MpiSession& mpi) {
  std::string none;
  broadcast(none, mpi.rank());
}

namespace {
// A launcher's whole-number variable, or nullopt (unset, or not a number).
std::optional<int> launcher_number(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  const char* end = v + std::strlen(v);
  int value = 0;
  const auto [at, ec] = std::from_chars(v, end, value);
  if (ec != std::errc() || at != end) return std::nullopt;
  return value;
}
}  // namespace

int launched_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS", "PMI_SIZE"})
    if (const auto ranks = launcher_number(name); ranks && *ranks > 1) return *ranks;
  return 1;
}

int launched_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const auto rank = launcher_number(name)) return *rank;
  return 0;
}

int MpiSession::max_over_ranks(int value) const {
  int out = value;
  check_mpi(MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return out;
}

std::vector<std::uint64_t> MpiSession::sum_over_ranks(const std::vector<std::uint64_t>& values) const {
  std::vector<std::uint64_t> out(values.size());
  check_mpi(MPI_Allreduce(values.data(), out.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM,
                          MPI_COMM_WORLD),
            "MPI_Allreduce");
  return out;
}

std::vector<core::Total> MpiSession::sum_totals_over_ranks(const std::vector<core::Total>& values) const {
  // MPI has no 128-bit integer: each value travels as four 32-bit limbs in 64-bit sums (exact
  // below 2^31 ranks), carried here.
  constexpr int kLimbs = 4;
  constexpr std::uint64_t kLimbMask = 0xffffffffu;
  std::vector<std::uint64_t> limbs;
  for (const core::Total v : values)
    for (int k = 0; k < kLimbs; ++k) limbs.push_back(static_cast<std::uint64_t>(v >> (32 * k)) & kLimbMask);
  const auto sums = sum_over_ranks(limbs);
  std::vector<core::Total> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    core::Total total = 0;
    std::uint64_t carry = 0;
    for (int k = 0; k < kLimbs; ++k) {
      const std::uint64_t limb = sums[i * kLimbs + static_cast<std::size_t>(k)] + carry;
      total |= core::Total{limb & kLimbMask} << (32 * k);
      carry = limb >> 32;
    }
    if (carry) throw std::overflow_error("cluster: a sum over the ranks exceeds 2^128");
    out.push_back(total);
  }
  return out;
}

std::uint64_t MpiSession::from_rank0(std::uint64_t value) const {
  check_mpi(MPI_Bcast(&value, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return value;
}

std::vector<std::string> MpiSession::gather_text(const std::string& mine) const {
  // MPI counts are int: every rank learns the total first, so that all of them refuse alike.
  if (sum_over_ranks({mine.size()})[0] > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw std::length_error("cluster: the ranks' texts exceed 2 GiB together");
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(rank_ == 0 ? static_cast<std::size_t>(size_) : 0), offsets(lengths.size());
  check_mpi(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::size_t total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(lengths[r]);
  }
  std::vector<char> all(total);
  check_mpi(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                        MPI_COMM_WORLD),
            "MPI_Gatherv");
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lengths.size(); ++r)
    out.emplace_back(all.data() + offsets[r], static_cast<std::size_t>(lengths[r]));
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
  check_mpi(MPI_Gather(&mine, 1, MPI_INT, threads.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  JobOutcome out;
  out.ranks = size;
  out.peak_rss_kib.assign(static_cast<std::size_t>(size), 0);
  out.total_threads = std::max(1, std::accumulate(threads.begin(), threads.end(), 0));
  out.threads_per_rank = *std::max_element(threads.begin(), threads.end());

  auto plan_owner = std::make_unique<const core::UnitPlan>(job->params.n, job->params.depth, job->params.symmetry);
  const core::UnitPlan& plan = *plan_owner;
  // With one worker rank, the audit copies need a second worker: a thread of the master.
  const bool master_audits = size == 2 && audit_fraction > 0;
  AuditPolicy audit;
  audit.fraction = audit_fraction;
  audit.workers = size == 1 ? 1 : size - 1 + (master_audits ? 1 : 0);
  Scheduler sched(plan, *job, std::move(skip), units_to_do, out.total_threads,
                  job->params.boards_mode() ? kMaxBoardsBatch : kMaxCountBatch, audit);
  for (int w = 0; w < size; ++w) sched.set_threads(w, std::max(1, threads[w]));
  std::unique_ptr<ComputePool> local;
  if (mine > 0 || master_audits)
    local = std::make_unique<ComputePool>(plan, *job, 0, mine > 0 ? mine : 1, hung_seconds());
  Sender sender;
  IdlePause pause;
  std::vector<proto::Reassembler> parts(static_cast<std::size_t>(size));
  const auto t0 = std::chrono::steady_clock::now();
  RunningClock run_clock;   // the scheduler's times: how long the workers are silent

  // Scheduler::wants_batch: threads + 1 batches in flight, in count mode more (cheap units).
  auto wants_more = [&](int w, bool audits_only) {
    if (audits_only) return sched.batches_in_flight(w) < 2;
    return threads[w] > 0 && sched.wants_batch(w);
  };
  auto feed = [&](int w) {
    const bool audits_only = w == 0 && master_audits;
    while (wants_more(w, audits_only)) {
      auto batch = sched.next_batch(w, audits_only, run_clock.now());
      if (!batch) return;
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
  auto handle = [&](int w, proto::ResultBatch rb) {
    try {
      const auto units = sched.accept(w, rb);   // rb keeps the results accepted now
      inject_master_fault(units);
      if (!units.empty()) hooks.on_results(rb, units);
    } catch (const ResultError& e) {
      hooks.on_rejected(w, e.what());
    }
    for (const auto& line : sched.take_audit_reports()) hooks.on_audit_mismatch(line);
  };
  // One result message part from worker w: a whole batch once its last part is in. Each copy of
  // a boards batch is freed as soon as the next is made (the message once fed, the joined
  // bytes once decoded): two copies at a time, not four.
  auto receive_part = [&](int w, std::string message) {
    auto frame = parts[w].feed(std::move(message));
    if (!frame) return;
    if (frame->error.empty()) {
      try {
        proto::ResultBatch rb = proto::decode_results(frame->bytes);
        std::string().swap(frame->bytes);
        handle(w, std::move(rb));
        return;
      } catch (const proto::ProtocolError& e) {
        frame->error = "batch " + std::to_string(*frame->batch_id) + ": " + e.what();
      }
    }
    if (frame->batch_id && sched.reject(w, *frame->batch_id))
      hooks.on_rejected(w, frame->error);
    else
      hooks.on_rejected(w, frame->error + " (not traced to a batch in flight: it is handed out again once overdue)");
  };
  for (int w = 0; w < size; ++w) feed(w);

  double next_report = progress_interval, next_stall_check = 0, all_lost_since = -1;
  double next_sign_of_life = master_silent_seconds() / 3;
  while (!sched.all_done()) {
    if (sched.failure()) {
      out.failure = sched.failure();
      break;
    }
    if (hooks.stop_requested()) {
      out.interrupted = true;
      break;
    }
    const double turn = run_clock.turn();
    bool busy = false;
    int tag = 0;
    while (!out.rank_failure) {
      auto msg = try_receive(MPI_ANY_SOURCE, MPI_ANY_TAG, &tag);
      if (!msg) break;
      const int w = msg->first;
      sched.heard_from(w, turn);
      busy = true;
      if (tag == kTagFailed) {
        out.rank_failure = msg->second;
        break;
      }
      if (tag != kTagResult) continue;
      ++out.batches_received;
      out.bytes_received += msg->second.size();
      receive_part(w, std::move(msg->second));
    }
    if (local) {
      for (auto& rb : local->take_completed()) {
        handle(0, std::move(rb));
        busy = true;
      }
      if (auto f = local->failure()) out.rank_failure = "rank 0 on host " + mpi.host() + ": " + *f;
    }
    if (out.rank_failure) break;
    const double now = seconds_since(t0);
    if (size > 1 && now >= next_stall_check) {
      next_stall_check = now + 0.1;
      for (const int w : sched.stalled(turn, stall_seconds(), kStallFactor)) {
        if (w == 0) continue;   // the master's own audit thread is not a remote rank
        sched.worker_lost(w);
        if (std::ranges::find(out.lost_workers, w) == out.lost_workers.end()) out.lost_workers.push_back(w);
        hooks.on_worker_lost(w, "rank " + std::to_string(w) + " has not answered for over " +
                                    std::to_string(static_cast<int>(stall_seconds())) +
                                    " s with work overdue; its batches are handed to the other workers");
        busy = true;
      }
      bool any_live = false;
      for (int w = 1; w < size; ++w) any_live = any_live || !sched.lost(w);
      if (any_live) {
        all_lost_since = -1;
      } else if (all_lost_since < 0) {
        all_lost_since = turn;
      } else if (turn - all_lost_since > kNoWorkerSeconds) {
        out.rank_failure = "no worker rank has answered for " + std::to_string(static_cast<int>(turn - all_lost_since + stall_seconds())) +
                           " s (hung, stopped or cut off)";
        break;
      }
    }
    if (busy)
      for (int w = 0; w < size; ++w) feed(w);   // refill, including units put back after a rejection
    if (now >= next_sign_of_life) {   // to every worker, lost ones too: see kMasterSilentSeconds
      for (int w = 1; w < size; ++w) sender.send(w, kTagAlive, {});
      next_sign_of_life = now + master_silent_seconds() / 3;
    }
    sender.poll();
    if (now >= next_report) {
      hooks.on_progress({sched.units_done(), sched.units_to_do(), now, out.total_threads});
      next_report = now + progress_interval;
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
  hooks.on_progress({sched.units_done(), sched.units_to_do(), seconds_since(t0), out.total_threads});
  if (local) local->stop();
  // However long the file takes, the workers must know: on_finished makes no MPI call that would
  // move a send on, so the notices go out first (for at most kEndingSendSeconds: a send to a
  // rank that is cut off may never complete).
  for (int w = 1; w < size; ++w) sender.send(w, kTagEnding, {});
  sender.drain(kEndingSendSeconds);
  hooks.on_finished(out);   // the result file is on disk before anything can wait on a worker
  release_unless_idle(plan_owner, local);

  // Stop the workers; drain whatever they still send until each confirms, for a bounded time.
  for (int w = 1; w < size; ++w) sender.send(w, kTagStop, {});
  std::vector<bool> stopped(static_cast<std::size_t>(size), false);
  int confirmed = 0;
  const auto stop_t0 = std::chrono::steady_clock::now();
  auto waited_enough = [&] {
    const double waited = seconds_since(stop_t0);
    if (waited >= kRemoteStopWaitSeconds) return true;
    if (waited < kStopWaitSeconds) return false;
    for (int w = 1; w < size; ++w)
      if (!stopped[w] && mpi.host_of(w) != mpi.host()) return false;   // see kRemoteStopWaitSeconds
    return true;
  };
  while (confirmed < size - 1 && !waited_enough()) {
    int tag = 0;
    if (auto msg = try_receive(MPI_ANY_SOURCE, MPI_ANY_TAG, &tag)) {
      if (tag == kTagStopped && !stopped[msg->first]) {
        stopped[msg->first] = true;
        ++confirmed;
        std::uint64_t kib = 0;   // the worker's peak memory rides on its confirmation
        if (msg->second.size() == sizeof kib) std::memcpy(&kib, msg->second.data(), sizeof kib);
        out.peak_rss_kib[static_cast<std::size_t>(msg->first)] = kib;
      }
      continue;
    }
    sender.poll();
    std::this_thread::sleep_for(kIdleSleep);
  }
  for (int w = 1; w < size; ++w)
    if (!stopped[w]) out.unresponsive.push_back(w);
  // Every worker confirmed: they may finalize. Until then they wait outside MPI_Finalize, for the
  // app ends a job with an unresponsive rank with MPI_Abort, and an MPI_Abort while some ranks
  // wait in MPI_Finalize and another never got there makes Open MPI 4.1.4's mpirun hang or crash
  // in its own finalize (docs/faults.md).
  // Sends to ranks that stopped cleanly complete; those to an unresponsive rank may never.
  if (out.unresponsive.empty()) {
    hooks.on_workers_stopped();
    for (int w = 1; w < size; ++w) sender.send(w, kTagRelease, {});
    sender.drain(kRemoteStopWaitSeconds + kStopWaitSeconds - seconds_since(stop_t0));
  }
  out.peak_rss_kib[0] = peak_rss_kib();
  return out;
}

std::optional<std::string> run_worker(const MpiSession& mpi) {
  std::string bytes;
  broadcast(bytes, mpi.rank());
  if (bytes.empty()) return std::nullopt;   // the master failed before the start
  const proto::JobSpec job = proto::decode_job(bytes);
  int threads = job.threads_per_worker ? job.threads_per_worker : mpi.default_threads();
  check_mpi(MPI_Gather(&threads, 1, MPI_INT, nullptr, 0, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");

  auto plan = std::make_unique<const core::UnitPlan>(job.params.n, job.params.depth, job.params.symmetry);
  auto pool_owner = std::make_unique<ComputePool>(*plan, job, mpi.rank(), threads, hung_seconds());
  ComputePool& pool = *pool_owner;
  Sender sender;
  IdlePause pause;
  bool failed = false;   // told the master; now only waiting for its stop
  const auto t0 = std::chrono::steady_clock::now();
  double last_sent = 0;    // seconds since t0
  RunningClock run_clock;  // the master's silence, measured at the turn's start
  double last_heard = 0;   // run_clock's seconds
  bool watching = true;    // the master's silence: until it says the compute phase is over
  std::optional<std::string> master_silent;
  for (bool running = true; running;) {
    const double turn = run_clock.turn();
    bool busy = false;
    int tag = 0;
    while (auto msg = try_receive(0, MPI_ANY_TAG, &tag)) {
      busy = true;
      last_heard = turn;
      if (tag == kTagStop) {
        running = false;
        break;
      }
      if (tag == kTagEnding) watching = false;
      if (tag != kTagWork || failed) continue;
      const proto::WorkBatch batch = proto::decode_work(msg->second);
      inject_work_fault(batch, mpi.rank());
      pool.submit(batch);
    }
    if (!running) break;
    if (watching && turn - last_heard > master_silent_seconds()) {
      std::ostringstream why;
      why << mpi.where() << "the master (rank 0 on host " << mpi.host_of(0) << ") has sent nothing for over "
          << master_silent_seconds() << " s: it hangs or is cut off; ending the job (the units it journaled are "
          << "kept: rerun the same command to resume)";
      master_silent = why.str();
      break;
    }
    for (auto& rb : pool.take_completed()) {
      // One copy of a batch's boards at a time besides the parts being sent: the batch is freed
      // once encoded, and the encoding becomes the parts (a one-part batch without a copy).
      std::string encoded = proto::encode(rb);
      inject_message_fault(rb, encoded);
      const std::uint64_t batch_id = rb.batch_id;
      rb = {};
      auto parts = proto::frame_parts(batch_id, std::move(encoded), max_message_bytes());
      for (auto& part : parts) sender.send(0, kTagResult, std::move(part));
      last_sent = seconds_since(t0);
      busy = true;
    }
    // Holding work and silent for kAliveSeconds (its units take longer): say so, or the master
    // takes this rank for stalled (runtime.h).
    if (!failed && seconds_since(t0) - last_sent >= alive_seconds() && pool.batches_pending()) {
      sender.send(0, kTagAlive, {});
      last_sent = seconds_since(t0);
    }
    if (!failed) {
      if (auto f = pool.failure()) {
        failed = true;
        const std::string what = mpi.where() + *f;
        // Said here too, though the master says it again as the job's error: if the master
        // never gets the message (it hangs, the link is cut), this line is the failure's trace.
        std::cerr << "nqueens: " << what << "\n";
        sender.send(0, kTagFailed, what);
      }
    }
    sender.poll();
    if (busy) pause.reset();
    else if (failed) std::this_thread::sleep_for(pause.next());
    else pool.wait_completed(pause.next());   // wakes at once when a batch is done
  }
  pool.stop();
  release_unless_idle(plan, pool_owner);
  if (master_silent) return master_silent;
  sender.drain();   // the master drains results until we confirm
  std::uint64_t kib = peak_rss_kib();
  check_mpi(MPI_Send(&kib, sizeof kib, MPI_BYTE, 0, kTagStopped, MPI_COMM_WORLD), "MPI_Send");
  // MPI_Finalize only once the master releases us (see run_master); its MPI_Abort ends the wait.
  while (!try_receive(0, kTagRelease)) std::this_thread::sleep_for(kIdleSleep);
  return std::nullopt;
}

std::uint64_t peak_rss_kib() {
  rusage u{};
  return getrusage(RUSAGE_SELF, &u) == 0 && u.ru_maxrss > 0 ? static_cast<std::uint64_t>(u.ru_maxrss) : 0;   // KiB on Linux
}

}  // namespace nq::cluster
