#include "app/run_job.h"
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <unistd.h>
#include "app/exit_codes.h"
#include "app/compute_need.h"
#include "app/plan_limits.h"
#include "app/progress.h"
#include "app/report.h"
#include "app/result_files.h"
#include "app/run_end.h"
#include "app/signals.h"
#include "buildinfo/git_commit.h"
#include "cluster/fault_injection.h"
#include "core/known_counts.h"
#include "core/symmetry.h"
#include "core/total.h"
#include "core/version.h"
#include "store/journal.h"
#include "store/result_file.h"

namespace nq::app {
namespace fs = std::filesystem;
namespace {

// "memory   peak RSS 52 MB (master), 48 MB (largest worker: rank 2 of 3)": every rank's peak
// resident memory, of which the workers' came with their stop confirmations (ranks that did
// not confirm are left out and named).
void print_memory(std::ostream& out, const std::vector<std::uint64_t>& kib) {
  if (kib.empty() || !kib[0]) return;
  const auto mb = [](std::uint64_t k) { return std::to_string((k + 512) / 1024) + " MB"; };
  out << "memory   peak RSS " << mb(kib[0]) << " (master)";
  std::size_t largest = 0, missing = 0;
  for (std::size_t r = 1; r < kib.size(); ++r) {
    if (!kib[r]) ++missing;
    if (kib[r] > (largest ? kib[largest] : 0)) largest = r;
  }
  if (largest)
    out << ", " << mb(kib[largest]) << " (largest worker: rank " << largest << " of " << kib.size() << ")";
  if (missing) out << "; " << missing << " worker(s) did not report";
  out << "\n";
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// `word` as one word of a POSIX shell command line: as it is where no character is special,
// else in single quotes (a ' inside as '\''). The commands the report prints can be pasted.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("_-./:=@%+,").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (plain) return word;
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The analysis launcher as the user can call it: `nqanalyze` beside this binary (an install,
// P/bin) or analysis/nqanalyze of the checkout it was built in (build/<preset>/src/app), by its
// path, or by its bare name when its folder is on PATH; the bare name if neither exists.
std::string analysis_launcher() {
  const auto is_file = [](const fs::path& p) {
    std::error_code ec;   // not found is an error here: it only means "no"
    return fs::is_regular_file(p, ec);
  };
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "nqanalyze";
  fs::path found;
  if (is_file(exe.parent_path() / "nqanalyze")) found = exe.parent_path() / "nqanalyze";
  for (fs::path p = exe.parent_path(); found.empty() && p.has_relative_path(); p = p.parent_path())
    if (is_file(p / "analysis" / "nqanalyze")) found = p / "analysis" / "nqanalyze";
  if (found.empty()) return "nqanalyze";
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  for (std::size_t begin = 0; begin <= path.size();) {
    const auto colon = std::min(path.find(':', begin), path.size());
    if (fs::equivalent(path.substr(begin, colon - begin), found.parent_path(), ec)) return "nqanalyze";
    begin = colon + 1;
  }
  return found.string();
}

// The exact unit count of `plan` of a run of `p`, within the limits of `cost` (checked_plan_size)
// and, in boards mode, of a unit's result (check_boards_plan); says on stderr when the count
// takes a noticeable time.
std::uint64_t checked_plan_units(const core::UnitPlan& plan, const core::JobParams& p, const PlanCost& cost,
                                 const core::StopFn& stop) {
  const std::uint64_t units = checked_plan_size(plan, cost, stop, true);
  if (p.boards_mode()) check_boards_plan(plan, p.boards, units, stop);
  return units;
}

// The lock of a journal that another process holds is tried again this often while --lock-wait
// lasts, and the stop flag polled in between.
constexpr std::chrono::milliseconds kLockRetry{500}, kStopPollSleep{50};

// From this N on the Burnside search takes a noticeable time (one core: 0.8 s at N = 23, 9 s at
// 24, ~2 min at 27; it runs on every core the master may use): finish() says on stderr that it runs.
constexpr int kAnnounceBurnsideN = 23;

// `--skip-complete` and OUT already holds this job's complete result: the run ends at once, exit 0.
struct AlreadyComplete {
  std::string message;
};

// The directory of OUT, where the run creates OUT, its journal and their temporary files (and
// the directory itself if missing): ExitError(kIoError) where it cannot, before a plan is counted
// or a job queued (`run --dry-run`, slurm/submit). It used to be found at the journal's creation
// only, so a dry run approved a read-only file system, or a path under a regular file.
void require_writable_directory(const std::string& out) {
  fs::path dir = fs::path(out).parent_path();
  if (dir.empty()) dir = ".";
  fs::path existing = dir;   // the nearest existing directory on the way: the run creates the rest there
  std::error_code ec;
  while (!fs::exists(existing, ec) && existing.has_parent_path() && existing.parent_path() != existing)
    existing = existing.parent_path();
  if (!fs::exists(existing, ec)) existing = ".";
  if (!fs::is_directory(existing, ec))
    throw ExitError(kIoError, "cannot create directory " + dir.string() + " for " + out + ": " + existing.string() +
                                  " is not a directory; give --out a path in a directory");
  if (::access(existing.c_str(), W_OK | X_OK) != 0)
    throw ExitError(kIoError, "cannot write in " + existing.string() + " (" + fs::path(out).filename().string() +
                                  ", its journal" + (existing == dir ? "" : ", the directories on the way") +
                                  "): " + std::strerror(errno) + "; give --out a path where you can write");
}

// Why the complete result `complete` is not the verified result of the job of `p`, or nullopt:
// it has other parameters, or its counts (said again from themselves: the file may be edited)
// contradict the published table or Burnside.
std::optional<std::string> not_this_jobs(const core::JobParams& p, const store::RunInfo& complete) {
  if (const auto diffs = core::differences(complete.params, p); !diffs.empty())
    return "of other parameters (" + core::describe(diffs, "there", "here") + ")";
  const CountsNow now = counts_now(complete);
  if (!now.burnside.empty()) return "its counts disagree (" + now.burnside + ")";
  if (now.matches == core::KnownMatch::mismatch) return "it contradicts the published counts";
  return std::nullopt;
}

core::JobParams with_depth(core::JobParams p, int depth) {
  p.depth = depth;
  return p;
}

// OUT as it stands before a run, judged as the run judges it: nullopt where there is none.
// Throws ExitError where OUT is a directory or its directory cannot be written (kIoError), is not
// an nqueens result file, or holds a complete result that neither --force (recompute it) nor
// --skip-complete (take it as done) lets the run take (kRefused). A run reads it before its plan
// is counted (a finished job is refused at once) and again under the journal's lock (another run
// of the job may have finished it meanwhile); `run --dry-run` reads it too.
std::optional<store::RunInfo> previous_result(const JobConfig& c) {
  std::error_code ec;
  if (fs::is_directory(fs::path(c.out), ec))
    throw ExitError(kIoError, "output " + c.out + " is a directory; give a file path with --out");
  if (!fs::exists(fs::path(c.out), ec)) {
    require_writable_directory(c.out);
    return std::nullopt;
  }
  auto previous = read_result_info(c.out);   // throws ExitError(kRefused) if foreign
  if (previous.status == store::Status::complete && !c.force && !c.skip_complete) {
    const std::string said = c.out + " already holds a complete result (N = " + std::to_string(previous.params.n) +
                             ", total " + core::to_decimal(previous.total) + ")";
    // --skip-complete offered only where it would take the result (the depth, if not given, as the file's)
    if (const auto why = not_this_jobs(c.params.depth ? c.params : with_depth(c.params, previous.params.depth), previous))
      throw ExitError(kRefused, said + ", but " + *why + ": pass --force to replace it, or choose another --out");
    throw ExitError(kRefused, said + "; pass --force to recompute it, --skip-complete to take it as done, or choose another --out");
  }
  if (!(previous.status == store::Status::complete && c.skip_complete)) require_writable_directory(c.out);   // else done
  return previous;
}

// --skip-complete and OUT `complete`, the parameters final (the depth chosen): throws
// AlreadyComplete for this job's verified result, ExitError(kRefused) for any other.
[[noreturn]] void judge_complete(const JobConfig& c, const store::RunInfo& complete) {
  if (const auto why = not_this_jobs(c.params, complete))
    throw ExitError(kRefused, c.out + " already holds a complete result, but " + *why +
                                  ": --skip-complete takes only this job's verified result as done; choose another "
                                  "--out, or pass --force to replace it");
  throw AlreadyComplete{c.out + " already holds the complete result of this job (total " +
                        core::to_decimal(complete.total) + "): nothing to do (--skip-complete)"};
}

// OUT `partial`, the parameters final (the depth chosen), without --force: a run resumes the
// job from OUT.journal (a count job whose journal is gone, from OUT's units), and writes OUT anew.
// Throws ExitError(kRefused) where that would replace finished units that the run does not take
// over: OUT holds another job's (other parameters; until session 33 any run replaced it), or it
// is a boards job's whose journal is gone (OUT holds the boards, not the journal's completions).
void judge_partial(const JobConfig& c, const store::RunInfo& partial) {
  const std::string done = with_commas(partial.units_done) + " of " + with_commas(partial.params.shard.size(partial.units_total)) +
                           " units done";
  const auto diffs = core::differences(partial.params, c.params);
  if (!diffs.empty())
    throw ExitError(kRefused, c.out + " holds a partial result of other parameters (" +
                                  core::describe(diffs, "there", "here") + "; " + done +
                                  "): rerun with its parameters to resume it, choose another --out, or pass --force to replace it");
  std::error_code ec;
  if (c.params.boards_mode() && partial.units_done > 0 && !fs::exists(fs::path(c.out + ".journal"), ec))
    throw ExitError(kRefused, c.out + " holds a partial result of boards mode (" + done + ") but not its journal " + c.out +
                                  ".journal, from which a run resumes: put the journal back to resume, choose another "
                                  "--out, or pass --force to recompute every unit and replace the file");
}

// Everything rank 0 holds during a run.
class MasterSession : public cluster::MasterHooks {
 public:
  MasterSession(JobConfig c, const cluster::MpiSession& mpi, std::string hosts)
      : c_(std::move(c)), mpi_(mpi), hosts_(std::move(hosts)) {}

  // Checks the output, opens (or resumes) the journal. Throws ExitError.
  proto::JobSpec prepare();
  RunEnd run(const proto::JobSpec& job);

  // MasterHooks
  void on_results(const proto::ResultBatch& results, const std::vector<core::WorkUnit>& units) override;
  void on_rejected(int worker, const std::string& why) override;
  void on_audit_mismatch(const std::string& what) override;
  void on_worker_lost(int worker, const std::string& why) override;
  void on_progress(const cluster::MasterProgress& p) override;
  bool stop_requested() override { return stop_signal_received() || write_failure_; }
  void on_finished(const cluster::JobOutcome& outcome) override;

 private:
  void fail_write(const store::WriteError& e) {
    write_failure_ = true;
    if (!write_failure_msg_) write_failure_msg_ = e.what();
  }
  bool in_shard(std::uint64_t id) const { return c_.params.shard.contains(id); }
  // prepare(): the plan (checked against the limits, touching no file), then the output and the journal.
  void prepare_plan();
  proto::JobSpec prepare_files();
  std::unique_ptr<store::Journal> open_journal(const std::string& path, const core::StopFn& stop,
                                               const store::Journal::RecoveredFn& on_recovered) const;
  // A record the journal (or OUT) holds from an earlier run, into the table (its unit's result is
  // kept); `source` names where it came from in the refusals.
  void recover(const store::UnitRecord& r, const std::string& source);
  // A count job's partial OUT without its journal: OUT's units into the table (recover), then,
  // once they are found to be the plan's, into the journal that this run made. Returns how many.
  std::uint64_t adopt_partial_units();
  // The recovered units' placements and multiplicities must be the plan's: those of another plan
  // (an nqueens of the same version but another commit) would pair their counts with other units.
  // Throws ExitError(kRefused) naming `source` and, besides the nqueens that wrote them, `remedy`.
  void check_recovered_units(const std::string& source, const std::string& remedy) const;
  // Before a refusal: the journal goes again if it holds no unit (this run made it), so that the
  // files stay as the run found them.
  void drop_empty_journal();
  // OUT as it is (previous_result): a complete one to judge (--skip-complete) kept in complete_, a
  // partial one's wall time and start carried on.
  void check_previous_result();
  // The end of the run: gathers the facts, writes the result file, lets decide_totals and
  // decide_ending (app/run_end.h) decide, and reports. Returns the exit code.
  int finish(const cluster::JobOutcome& outcome, double seconds);
  void report(Ending ending, const store::RunInfo& info, bool integrity_ok, const cluster::JobOutcome& outcome,
              std::size_t done, core::Total nodes) const;

  JobConfig c_;
  const cluster::MpiSession& mpi_;
  std::string hosts_;
  std::optional<core::UnitPlan> plan_;
  std::uint64_t units_total_ = 0, units_in_shard_ = 0;
  std::unique_ptr<store::Journal> journal_;
  std::optional<UnitTable> table_;   // the finished units of the shard
  UnitDigest journaled_;             // of the units recovered from the journal
  std::chrono::steady_clock::time_point last_sync_ = std::chrono::steady_clock::now();
  std::optional<std::string> write_failure_msg_;
  bool write_failure_ = false;
  std::unique_ptr<ProgressLine> progress_;
  std::optional<store::RunInfo> complete_;   // a complete OUT to be judged (--skip-complete)
  std::optional<store::RunInfo> partial_;    // a partial OUT to be judged (not --force)
  bool over_complete_ = false;               // --force, and OUT holds a complete result (can_write_result)
  double previous_wall_ = 0;
  std::string start_time_ = utc_now();
  std::chrono::steady_clock::time_point run_start_;
  int code_ = kInternal;   // set by on_finished
  std::uint64_t resumed_ = 0, finished_ = 0;   // units done before this run, and written to the journal by it
  ProgressState progress_state_;               // what is known at the run's start; on_progress adds the rest
};

proto::JobSpec MasterSession::prepare() {
  try {
    prepare_plan();
    return prepare_files();
  } catch (const core::Interrupted& e) {
    throw ExitError(kInterrupted, "stopped by signal " + std::to_string(stop_signal()) + " while " + e.phase() +
                                      ": " + c_.out + " was not changed (finished units, if any, are in " + c_.out +
                                      ".journal); rerun the same command to resume (exit " +
                                      std::to_string(kInterrupted) + ")");
  }
}

void MasterSession::check_previous_result() {
  const auto previous = previous_result(c_);
  if (!previous) return;
  over_complete_ = previous->status == store::Status::complete && c_.force;
  if (previous->status == store::Status::complete && c_.skip_complete) {
    complete_ = previous;
    if (c_.params.depth) judge_complete(c_, *complete_);   // else once prepare_plan has chosen the depth
    return;
  }
  if (previous->status == store::Status::partial && !c_.force) {   // its wall time and start carry on
    partial_ = previous;
    previous_wall_ = previous->wall_seconds;
    start_time_ = previous->start_time;
  }
}

void MasterSession::prepare_plan() {
  check_previous_result();
  // The plan before any file is created or changed: one that cannot run is refused here.
  const auto stop = stop_on_signal();
  core::JobParams& p = c_.params;
  p.depth = run_depth(p, stop);
  if (complete_) judge_complete(c_, *complete_);
  if (partial_) judge_partial(c_, *partial_);
  plan_.emplace(p.n, p.depth, p.symmetry);
  units_total_ = checked_plan_units(*plan_, p, run_cost(p.shard.count), stop);
  units_in_shard_ = p.shard.size(units_total_);
  // The table the limits allowed for, at once (pages are only used as it fills): no doubling
  // while it grows, and a machine that cannot hold it says so now, not hours into the run.
  try {
    table_.emplace(p.shard, units_total_);
  } catch (const std::bad_alloc&) {
    throw ExitError(kUsage, "this machine cannot give the master " +
                                std::to_string(units_in_shard_ * sizeof(UnitTable::Outcome) >> 20) + " MiB for the " +
                                std::to_string(units_in_shard_) + " units of its plan: use --shard i/n or a smaller --depth");
  }
}

proto::JobSpec MasterSession::prepare_files() {
  const fs::path out(c_.out);
  std::error_code ec;
  if (out.has_parent_path()) {
    fs::create_directories(out.parent_path(), ec);
    if (ec) throw ExitError(kIoError, "cannot create directory " + out.parent_path().string() + ": " + ec.message());
  }
  const std::string journal_path = c_.out + ".journal";
  const auto stop = stop_on_signal();
  cluster::inject_open_fault();
  journal_ = open_journal(journal_path, stop, [&](const store::UnitRecord& r) { recover(r, "journal " + journal_path); });
  try {
    check_previous_result();
  } catch (...) {   // finished meanwhile (refused, or done)
    drop_empty_journal();
    throw;
  }
  remove_stale_temp_files(c_.out);
  if (journal_->dropped_tail_bytes())
    std::cerr << "nqueens: journal " << journal_path << ": dropped a torn last record ("
              << journal_->dropped_tail_bytes() << " bytes); that unit is recomputed\n";
  if (table_->size()) {
    check_recovered_units("journal " + journal_path, "move it away and rerun to recompute");
    std::cerr << "nqueens: resuming from " << journal_path << ": " << table_->size() << " of " << units_in_shard_
              << " units already done"
              << (c_.force ? " (--force keeps this job's finished units: remove the journal to recompute them)" : "")
              << "\n";
  } else if (partial_ && partial_->units_done) {   // judge_partial let only a count job's through
    const std::uint64_t adopted = adopt_partial_units();   // (before the line: it may refuse the file)
    std::cerr << "nqueens: resuming from " << c_.out << ", whose journal was gone: " << adopted << " of "
              << units_in_shard_ << " units already done, now in a new " << journal_path << "\n";
  }
  const fs::path dir = fs::absolute(out, ec).parent_path();
  const auto space = fs::space(dir, ec);
  if (!ec)
    if (const auto warning = disk_shortfall(disk_need(c_.params, units_total_, units_in_shard_),
                                            static_cast<double>(fs::file_size(journal_path, ec)),
                                            static_cast<double>(space.available), dir.string()))
      std::cerr << "nqueens: warning: " << *warning << "\n";

  return proto::JobSpec{c_.params, c_.threads};
}

void MasterSession::recover(const store::UnitRecord& r, const std::string& source) {
  if (r.id >= units_total_ || !in_shard(r.id))
    throw ExitError(kBadInput, source + " holds unit " + std::to_string(r.id) + ", which is not part of this job");
  if (c_.params.boards_mode()) {   // the file's boards are made from the record's placement
    try {
      plan_->checked_search(core::WorkUnit{r.id, r.multiplicity, r.placement});
    } catch (const std::invalid_argument& e) {   // a record with a valid CRC that no run wrote
      throw core::IntegrityError(source + ": the record of unit " + std::to_string(r.id) +
                                 " does not fit the plan (" + e.what() +
                                 "): the journal was changed after it was written; move it away and rerun to recompute");
    }
  }
  if (table_->add(r)) journaled_.add(r);   // a unit journaled twice (recomputed after a crash): the first record is kept
}

void MasterSession::check_recovered_units(const std::string& source, const std::string& remedy) const {
  if (!(digest_of(table_->units(*plan_)) == journaled_))
    throw ExitError(kRefused, source + ": its units are not those of " + this_programs_plan(*plan_) +
                                  ": their placements or multiplicities differ; resume it with the nqueens that wrote "
                                  "it, or " + remedy);
}

void MasterSession::drop_empty_journal() {
  try {
    if (!journal_->recovered_count()) journal_->remove();
  } catch (const store::WriteError&) {   // the refusal is what to report; an empty journal is harmless
  }
}

std::uint64_t MasterSession::adopt_partial_units() {
  const std::string source = c_.out + " (its /units)";
  try {
    store::ResultReader(c_.out).for_each_unit([&](const store::UnitRecord& r) { recover(r, source); });
    check_recovered_units(source, "pass --force to recompute every unit and replace the file");
  } catch (...) {
    drop_empty_journal();
    throw;
  }
  table_->units(*plan_).for_each([&](const store::UnitRecord& r) { journal_->append(r, {}, {}); });
  journal_->sync();
  return table_->size();
}

// The journal, under its lock. A lock that another process holds is waited for, up to
// --lock-wait seconds, polling the stop flag: a file server keeps the lock of a master whose node
// died until its lease ends (NFSv4: ~90 s), and a requeued job can start sooner. Without the wait
// (or after it) JournalInUse: exit 5.
std::unique_ptr<store::Journal> MasterSession::open_journal(const std::string& path, const core::StopFn& stop,
                                                            const store::Journal::RecoveredFn& on_recovered) const {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const auto waited = [&] { return std::chrono::duration<double>(clock::now() - t0).count(); };
  const core::StopPoll poll(stop, "waiting for the lock of " + path);
  for (bool announced = false;;) {
    try {
      auto journal = std::make_unique<store::Journal>(path, store::JournalKey{c_.params, units_total_, kProgramVersion}, stop,
                                                      c_.force ? store::Journal::Open::resume_or_discard : store::Journal::Open::resume,
                                                      on_recovered);
      if (announced) {
        std::ostringstream line;   // (a stream of its own: std::cerr keeps its format)
        line << "nqueens: " << path << " is free now, after " << std::fixed << std::setprecision(1) << waited() << " s\n";
        std::cerr << line.str();
      }
      return journal;
    } catch (const store::JournalInUse& e) {
      if (waited() >= c_.lock_wait) {
        if (!announced) throw;
        std::ostringstream what;
        what << e.what() << " (still, after waiting " << c_.lock_wait << " s: --lock-wait)";
        throw store::JournalInUse(what.str());
      }
      if (!announced)
        std::cerr << "nqueens: " << path << " is locked by another process: waiting up to " << c_.lock_wait
                  << " s for it (--lock-wait)\n";
      announced = true;
    }
    for (const auto retry = clock::now() + kLockRetry; clock::now() < retry && waited() < c_.lock_wait;) {
      poll.check();
      std::this_thread::sleep_for(kStopPollSleep);
    }
  }
}

void MasterSession::on_results(const proto::ResultBatch& results, const std::vector<core::WorkUnit>& units) {
  if (write_failure_) return;
  try {
    std::uint64_t appended = 0;
    for (std::size_t i = 0; i < units.size(); ++i) {
      const auto& r = results.results[i];
      if (table_->done(r.id)) continue;   // finished twice (e.g. recomputed after a rejection): keep one
      const store::UnitRecord rec = unit_record(units[i], r);   // the scheduler paired them by id
      journal_->append(rec, r.boards, r.class_sizes);
      table_->add(rec);
      ++appended;
    }
    cluster::inject_journal_fault(table_->size(), [this] { journal_->sync(); });
    // Written at once (a killed master loses none of them), fsynced every checkpoint_interval
    // (a crash of the machine loses at most that much): until session 44 the records waited in
    // the journal's buffer for the next sync, and a kill lost them too.
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last_sync_).count() >= c_.checkpoint_interval) {
      journal_->sync();
      last_sync_ = std::chrono::steady_clock::now();
    } else {
      journal_->write_out();
    }
    finished_ += appended;   // written: a failed write leaves them out (they may be torn)
  } catch (const store::WriteError& e) {
    fail_write(e);
  }
}

void MasterSession::on_rejected(int worker, const std::string& why) {
  std::cerr << "nqueens: rejected a result batch from rank " << worker << " (recomputing it): " << why << "\n";
}

void MasterSession::on_audit_mismatch(const std::string& what) {
  std::cerr << "nqueens: " << what << "\n";
}

void MasterSession::on_worker_lost(int worker, const std::string& why) {
  std::cerr << "nqueens: warning: " << why << " (rank " << worker << " gets work again if it answers)\n";
}

void MasterSession::on_finished(const cluster::JobOutcome& outcome) {
  progress_.reset();
  code_ = finish(outcome, std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start_).count());
}

void MasterSession::on_progress(const cluster::MasterProgress& p) {
  if (!progress_) progress_ = std::make_unique<ProgressLine>("run");
  progress_state_.units_done = resumed_ + p.units_done;
  progress_state_.solutions = table_->solutions();   // the done units' (on_results adds this run's)
  progress_state_.nodes = table_->nodes();
  progress_state_.seconds = p.seconds;
  progress_state_.busy_seconds = table_->seconds();
  progress_state_.threads = p.threads;
  progress_->report(progress_state_);
}

RunEnd MasterSession::run(const proto::JobSpec& job) {
  run_start_ = std::chrono::steady_clock::now();
  resumed_ = table_->size();
  progress_state_ = {.units_total = units_in_shard_, .units_before = resumed_, .solutions_before = table_->solutions(),
                     .nodes_before = table_->nodes(), .busy_before = table_->seconds()};
  // A shard's share of the totals: its units are every count-th of the plan.
  expect_totals(progress_state_, c_.params, units_total_,
                static_cast<double>(units_in_shard_) / static_cast<double>(units_total_));
  const std::uint64_t to_do = units_in_shard_ - resumed_;
  const auto outcome = cluster::run_master(
      mpi_, job, [this](std::uint64_t id) { return !in_shard(id) || table_->done(id); }, to_do, *this,
      c_.progress_interval, c_.audit);
  if (code_ == kOk) print_memory(std::cout, outcome.peak_rss_kib);   // after the summary; an interrupted run prints none
  if (!outcome.unresponsive.empty()) {
    std::string ranks;
    for (const int r : outcome.unresponsive) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    std::cerr << "nqueens: rank(s) " << ranks << " did not answer the stop (hung, stopped or cut off); "
              << (code_ == kOk ? "the result file is complete; " : "")
              << "ending the job with MPI_Abort (exit " << code_ << ")\n";
    return {code_, finished_, true};
  }
  return {code_, finished_};
}

int MasterSession::finish(const cluster::JobOutcome& outcome, double seconds) {
  try {
    journal_->sync();
  } catch (const store::WriteError& e) {
    fail_write(e);   // keeps the first failure's message (ENOSPC, EFBIG, ...), not "an earlier write failed"
  }
  const std::uint64_t done = table_->size();
  store::RunInfo info;
  info.program_version = kProgramVersion;
  info.git_commit = kGitCommit;
  info.params = c_.params;
  info.ranks = outcome.ranks;
  info.threads = outcome.threads_per_rank;
  info.hosts = hosts_;
  info.start_time = start_time_;
  info.end_time = utc_now();
  info.wall_seconds = previous_wall_ + seconds;
  info.units_total = units_total_;
  if (done == units_in_shard_ && !stop_signal_received() && c_.params.shard.whole() && c_.params.n >= kAnnounceBurnsideN)
    std::cerr << "nqueens: Burnside check: counting the boards fixed by the half and quarter turns (N = "
              << c_.params.n << ")\n";
  const Totals totals = decide_totals(info, table_->units(*plan_), units_in_shard_, stop_signal_received(), stop_on_signal());
  if (!totals.integrity_ok) std::cerr << "nqueens: integrity check failed: " << totals.integrity_error << "\n";
  const core::Total nodes = table_->nodes();

  RunFacts facts;
  facts.file = FileWrite::skipped;
  if (can_write_result(c_.params, write_failure_, info.status == store::Status::complete, over_complete_)) {
    try {
      // A signal during the write abandons it (one that came before is why a partial file is
      // being written, and one within kSameStopSeconds of that is the same stop sent twice):
      // OUT stays as it was, the journal has every finished unit.
      write_result_file(c_.out, info, table_->units(*plan_), journal_board_source(*journal_, *plan_, c_.params.boards, units_total_),
                        stop_on_new_signal());
      facts.file = FileWrite::written;
    } catch (const store::WriteError& e) {
      std::cerr << "nqueens: error: " << e.what() << "\n";
      facts.file = FileWrite::failed;
    } catch (const core::Interrupted& e) {
      std::cerr << "nqueens: stopped by signal " << stop_signal() << " while " << e.phase() << ": " << c_.out
                << " was left as it was; the " << done << " finished units are in " << c_.out
                << ".journal; rerun the same command to resume (exit " << kInterrupted << ")\n";
      facts.file = FileWrite::interrupted;
    }
  }
  facts.journal_failed = write_failure_;
  facts.rank_failed = outcome.rank_failure.has_value();
  facts.verify_failed = outcome.failure.has_value();
  facts.complete = info.status == store::Status::complete;
  facts.integrity_ok = totals.integrity_ok;
  facts.matches_known = info.matches_known;
  const Ending ending = decide_ending(facts);
  if (result_is_final(ending)) journal_->remove();
  report(ending, info, totals.integrity_ok, outcome, done, nodes);
  return exit_code(ending);
}

void MasterSession::report(Ending ending, const store::RunInfo& info, bool integrity_ok,
                           const cluster::JobOutcome& outcome, std::size_t done, core::Total nodes) const {
  const int code = exit_code(ending);
  // What OUT holds after a run that ended early (can_write_result).
  const std::string out_holds = over_complete_ && info.status != store::Status::complete
                                    ? c_.out + " still holds the earlier complete result, which this job replaces once it completes"
                                    : "partial result in " + c_.out;
  switch (ending) {
    case Ending::write_interrupted:   // said when it happened
      return;
    case Ending::io_error:
      if (write_failure_) std::cerr << "nqueens: error: " << *write_failure_msg_ << "\n";
      if (std::error_code ec; !fs::exists(c_.out + ".journal", ec) && !ec) {   // its directory removed under the run
        std::cerr << "nqueens: " << c_.out << ".journal is gone (removed, or its directory), and with it the units "
                  << "this run finished: rerun the same command to compute them again\n";
        return;
      }
      std::cerr << "nqueens: finished units up to the failure are kept in " << c_.out
                << ".journal; free space (or fix permissions) and rerun the same command to resume\n";
      return;
    case Ending::rank_failed:
      std::cerr << "nqueens: error: " << *outcome.rank_failure << "\nnqueens: the job was stopped: " << done
                << " of " << units_in_shard_ << " units done are kept in " << c_.out << ".journal (" << out_holds
                << "); fix the cause and rerun the same command to resume (exit " << code << ")\n";
      return;
    case Ending::verify_failed:
      std::cerr << "nqueens: error: " << *outcome.failure << "\nnqueens: " << done << " of "
                << units_in_shard_ << " units agreed and are kept in " << c_.out << ".journal (" << out_holds
                << "); exit " << code << "\n";
      return;
    case Ending::interrupted:
      std::cerr << "nqueens: stopped by signal " << stop_signal() << ": " << done << " of "
                << units_in_shard_ << " units done; " << out_holds
                << "; rerun the same command to resume (exit " << code << ")\n";
      return;
    case Ending::wrong_count:
    case Ending::ok:
      break;
  }
  CountReport r{c_.params.n, info.total, info.unique, {info.rot180_fixed, info.rot90_fixed}, info.wall_seconds,
                nodes, outcome.total_threads, units_total_, c_.params.depth};
  if (!c_.params.shard.whole()) {
    std::cout << "shard    " << core::to_string(c_.params.shard) << " complete: " << done
              << " units, subtotal " << core::to_decimal(info.total) << "\n";
  } else {
    print_count_report(std::cout, r);
  }
  if (outcome.batches_received) {   // messages were sent: the master's dispatch figures
    const double units = static_cast<double>(std::max<std::uint64_t>(1, outcome.units_done));
    std::cout << std::fixed << std::setprecision(0) << "dispatch " << outcome.units_done << " units in "
              << outcome.batches_sent << " work batches, " << units / std::max(outcome.seconds, 1e-9)
              << " units/s; " << std::setprecision(1) << static_cast<double>(outcome.bytes_sent) / units << " + "
              << static_cast<double>(outcome.bytes_received) / units << " bytes per unit (work + results); "
              << outcome.batches_received << " result messages\n"
              << std::defaultfloat;
  }
  std::cout << "layout   " << outcome.ranks << " rank(s), " << outcome.total_threads << " compute thread(s) on " << hosts_ << "\n"
            << "file     " << c_.out << "\n"
            << "inspect  nqueens info " << shell_word(c_.out) << "   |   h5dump -A " << shell_word(c_.out)
            << "   |   " << shell_word(analysis_launcher()) << " summary " << shell_word(c_.out) << "\n";
  if (outcome.audited_units || outcome.audit_mismatches)
    std::cout << "audit    " << outcome.audited_units << " unit(s) computed twice (on two workers when there are two) and equal"
              << (outcome.audit_mismatches ? ", " + std::to_string(outcome.audit_mismatches) +
                                                 " mismatch(es) discarded and recomputed"
                                           : std::string())
              << "\n";
  if (outcome.rejected_batches)
    std::cout << "note     " << outcome.rejected_batches << " result batch(es) failed the checks and were recomputed\n";
  if (!outcome.lost_workers.empty())
    std::cout << "note     " << outcome.lost_workers.size()
              << " worker rank(s) stopped answering; their batches were computed by the others\n";
  if (ending != Ending::wrong_count) return;
  if (integrity_ok)
    std::cerr << "nqueens: verification failed: total " << core::to_decimal(info.total) << ", unique "
              << core::to_decimal(info.unique)
              << " differ from the published " << info.known_total << ", " << info.known_unique
              << "; " << c_.out << " says matches_known = no (exit " << code << ")\n";
  else
    std::cerr << "nqueens: " << c_.out << " says matches_known = " << core::to_string(info.matches_known)
              << " (exit " << code << ")\n";
}

// `run --status-file`: one line, the exit code and the units this run journaled, written over
// the file (checked by finalize_config: a regular file, none of the job's own). Failing to write
// it is a warning, not a new exit code: the run's own result stands (slurm/nqueens.sbatch checks
// that it can write the file).
RunEnd record_end(const std::optional<std::string>& status_file, const RunEnd& end) {
  if (!status_file) return end;
  std::ofstream f(*status_file, std::ios::trunc);
  f << end.code << " " << end.units_finished << "\n";
  f.close();
  if (!f) std::cerr << "nqueens: warning: cannot write the status file " << *status_file << " (--status-file)\n";
  return end;
}

}  // namespace

int dry_run(JobConfig config) {
  finalize_config(config);
  const auto previous = previous_result(config);   // refused as the run refuses it
  core::JobParams& p = config.params;
  p.depth = run_depth(p, {});
  std::optional<std::string> done;   // --skip-complete, and OUT holds this job's result
  if (previous && previous->status == store::Status::complete && config.skip_complete) try {
      judge_complete(config, *previous);
    } catch (const AlreadyComplete& d) {
      done = d.message;
    }
  if (previous && previous->status == store::Status::partial && !config.force) judge_partial(config, *previous);
  const core::UnitPlan plan(p.n, p.depth, p.symmetry);
  const std::uint64_t units = checked_plan_units(plan, p, planned_run_cost(p.shard.count), {});
  const std::string journal = config.out + ".journal";
  // A journal the run would resume must be this job's (an empty file is not a journal); --force
  // discards another job's.
  const bool has_journal = store::Journal::exists_at(journal);
  std::error_code ec;
  const std::uintmax_t size = has_journal ? fs::file_size(journal, ec) : 0;
  const double journal_bytes = ec ? 0 : static_cast<double>(size);
  const store::JournalKey key{p, units, kProgramVersion};
  if (has_journal && !config.force) store::Journal::check_key(journal, key);
  const bool resumes_journal = has_journal && (!config.force || store::Journal::is_of(journal, key));
  // A run of this job under way holds the journal: the run is refused unless it waits (--force too).
  const bool locked = [&] {
    try {
      store::Journal::check_not_in_use(journal);
      return false;
    } catch (const store::JournalInUse&) {
      if (config.lock_wait <= 0) throw;
      return true;
    }
  }();
  // What a resume skips, where the compute line has an estimate to take it off: the journal's
  // units (read without its lock: a run may hold it), else those of a partial count result
  // (which the run adopts: judge_partial let it through). A journal the run resumes is read
  // whole, estimate or not: one damaged before its last record is refused as the run refuses it.
  std::optional<DoneWork> done_work;
  const bool estimated = !plan_nodes_unknown(p);
  const auto add = [&](const store::UnitRecord& r) {
    if (done_work) done_work->add(r);
  };
  if (resumes_journal) {
    if (journal_bytes > 256e6)   // ~2.5 M records, ~0.3 s warm; seconds to minutes beyond
      std::cerr << "nqueens: reading the journal " << journal << " (" << gigabytes(journal_bytes)
                << ") for the units a resume skips\n";
    if (estimated) done_work.emplace(units, "the journal");
    store::Journal::read_records(journal, key, add);
  } else if (estimated && !config.force && previous && previous->status == store::Status::partial &&
             previous->units_done) {
    done_work.emplace(units, config.out + "'s units");
    store::ResultReader(config.out).for_each_unit(add);
  }
  print_run_needs(std::cout, p, units, config.out, resumes_journal ? journal_bytes : 0);
  print_compute_need(std::cout, p, units, time_nodes_here, done_work);
  std::cout << "output   ";
  if (done) {
    std::cout << *done << "\n";
  } else {
    if (!previous) std::cout << config.out << " does not exist yet";
    else
      std::cout << config.out << " holds a " << core::to_string(previous->status) << " result ("
                << with_commas(previous->units_done) << " units done"
                << (previous->status == store::Status::complete ? ", total " + core::to_decimal(previous->total) : "")
                << ")";
    const std::string journal_text = journal + " (" + gigabytes(journal_bytes) + ")";
    if (resumes_journal) {
      std::cout << "; its journal " << journal_text << " holds finished units" << (config.force ? " of this job" : "")
                << ": the run resumes, skipping them";
      if (config.force)
        std::cout << (previous ? ", and replaces it at the end" : "")
                  << " (--force keeps this job's finished units: remove the journal to recompute them)";
    } else if (config.force && (previous || has_journal))
      std::cout << ": --force recomputes every unit"
                << (has_journal ? ", discarding the journal " + journal_text + ", which is not this job's" : "")
                << (previous ? ", and replaces it at the end" : "");
    else if (previous && previous->status == store::Status::partial && previous->units_done)   // count mode
      std::cout << "; it has no journal: the run resumes from its units, journaled anew";
    else
      std::cout << (previous ? "; it has no journal: " : ": ") << "the run computes every unit";
    if (locked)
      std::cout << "; but another process holds the journal now: the run waits up to " << config.lock_wait
                << " s for it (--lock-wait)";
    std::cout << "\n";
  }
  flush_stdout();   // before stderr's line flushes it (cerr is tied to cout): a failure keeps its reason
  std::cerr << "nqueens: nothing was run or written (--dry-run)\n";
  return kOk;
}

RunEnd run_job(const std::function<JobConfig()>& job, const cluster::MpiSession& mpi) {
  const auto warnings = mpi.gather_warnings();   // collective: every rank takes part
  if (mpi.rank() != 0) {
    install_worker_signals();
    if (const auto master_silent = cluster::run_worker(mpi)) {
      std::cerr << "nqueens: " << *master_silent << "\n";
      return {.code = kRankFailed, .abort_job = true};
    }
    return {};
  }
  for (const auto& w : warnings) std::cerr << "nqueens: warning: " << w << "\n";
  install_master_signals();
  std::optional<MasterSession> session;
  std::optional<std::string> status_file;   // only once checked: a bad one is never written
  proto::JobSpec spec;
  try {
    JobConfig config = job();
    finalize_config(config);
    status_file = config.status_file;
    if (const auto w = config.threads ? mpi.threads_warning(config.threads) : std::nullopt)
      std::cerr << "nqueens: warning: " << *w << "\n";
    session.emplace(std::move(config), mpi, mpi.host_list());
    spec = session->prepare();
  } catch (const AlreadyComplete& done) {
    cluster::cancel_job(mpi);   // the workers learn there is no job and exit cleanly
    std::cerr << "nqueens: " << done.message << "\n";
    return record_end(status_file, {kOk});
  } catch (...) {
    cluster::cancel_job(mpi);   // the workers learn there is no job and exit cleanly
    return record_end(status_file, {report_current_exception()});
  }
  return record_end(status_file, session->run(spec));
}

}  // namespace nq::app
