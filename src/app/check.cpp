#include "app/check.h"
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>
#include <unordered_set>
#include "app/exit_codes.h"
#include "app/plan_limits.h"
#include "app/progress.h"
#include "app/signals.h"
#include "app/unit_table.h"
#include "buildinfo/git_commit.h"
#include "cluster/runtime.h"
#include "core/kernel.h"
#include "core/parallel.h"
#include "core/units.h"
#include "store/result_file.h"

namespace nq::app {
namespace {

// Rows read, matched with the plan and recounted at a time: memory stays bounded whatever the
// selection (every unit of N = 27's plan is 1.6e8).
constexpr std::uint64_t kChunk = 1 << 12;
// Up to this many units selected, each gets its line; beyond, only those that differ.
constexpr std::uint64_t kListedUnits = 100;
// With several ranks, each keeps at most kKeptLines lines for rank 0 to print, and fewer where
// the ranks are so many that rank 0 would get more than kKeptLinesInAll (it counts the others): a
// file whose every unit is wrong must not fill the memory.
constexpr std::uint64_t kKeptLines = 1000, kKeptLinesInAll = 100000;
// How often the signal flag is looked at while units are recounted.
constexpr std::chrono::milliseconds kStopPoll{50};
// A progress line on stderr every this often (as `count`'s), from the first on.
constexpr std::chrono::seconds kProgressInterval{2};

using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }

std::uint64_t id_at(const store::ResultReader& r, std::uint64_t row, std::vector<store::UnitRecord>& buf) {
  r.read_units(row, 1, buf);
  return buf[0].id;
}

// The first row whose id is >= id (rows are sorted by id), or the row count.
std::uint64_t lower_row(const store::ResultReader& r, std::uint64_t id, std::vector<store::UnitRecord>& buf) {
  std::uint64_t lo = 0, hi = r.unit_count();
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (id_at(r, mid, buf) < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

std::string text(const std::pair<std::uint64_t, std::uint64_t>& range) {
  return range.first == range.second ? std::to_string(range.first)
                                     : std::to_string(range.first) + "-" + std::to_string(range.second);
}

// The rows to check, in increasing order, and how the selection is described.
std::vector<RowSpan> select_rows(const store::ResultReader& r, const CheckOptions& o, std::string& what) {
  const std::uint64_t rows = r.unit_count();
  if (o.all || (o.ranges.empty() && o.sample >= rows)) {
    what = "every unit of the file (" + with_commas(rows) + ")";
    return {{0, rows}};
  }
  std::vector<store::UnitRecord> buf;
  std::vector<RowSpan> spans;
  if (!o.ranges.empty()) {
    const std::uint64_t plan_units = r.info().units_total;   // (the whole plan's, in a shard's file too)
    for (const auto& range : o.ranges) {
      if (range.second >= plan_units)   // (past the plan: a range there was cut short unsaid)
        throw ExitError(kUsage, "--units " + text(range) + ": the plan of " + o.file + " has unit ids 0 to " +
                                    std::to_string(plan_units - 1) + " (" + with_commas(plan_units) + " units)");
      const RowSpan s{lower_row(r, range.first, buf),
                      range.second == UINT64_MAX ? rows : lower_row(r, range.second + 1, buf)};
      if (s.begin == s.end)
        throw ExitError(kUsage, "--units " + text(range) + ": " + o.file + " holds no unit of " +
                                    (range.first == range.second ? "that id" : "those ids") + " (its " +
                                    with_commas(rows) + " units have ids " + std::to_string(id_at(r, 0, buf)) +
                                    " to " + std::to_string(id_at(r, rows - 1, buf)) +
                                    (r.info().params.shard.whole() ? "" : ", those of shard " + core::to_string(r.info().params.shard)) +
                                    ")");
      spans.push_back(s);
    }
    std::sort(spans.begin(), spans.end(), [](const RowSpan& a, const RowSpan& b) { return a.begin < b.begin; });
    std::vector<RowSpan> merged;   // overlapping ranges: each unit once
    for (const auto& s : spans) {
      if (!merged.empty() && s.begin <= merged.back().end) merged.back().end = std::max(merged.back().end, s.end);
      else merged.push_back(s);
    }
    what = "the " + with_commas(rows_in(merged)) + " of --units";
    return merged;
  }
  // A sample of distinct rows (Floyd's algorithm: o.sample draws, whatever the row count).
  std::mt19937_64 random(*o.seed);
  std::unordered_set<std::uint64_t> chosen;
  for (std::uint64_t j = rows - o.sample; j < rows; ++j) {
    const std::uint64_t t = std::uniform_int_distribution<std::uint64_t>(0, j)(random);
    chosen.insert(chosen.count(t) ? j : t);
  }
  std::vector<std::uint64_t> sorted(chosen.begin(), chosen.end());
  std::sort(sorted.begin(), sorted.end());
  for (const std::uint64_t row : sorted) spans.push_back({row, row + 1});
  what = with_commas(o.sample) + " drawn at random (--seed " + std::to_string(*o.seed) + " draws them again)";
  return spans;
}

struct Tally {
  std::uint64_t checked = 0, differ = 0;
  std::uint64_t not_the_plans = 0;   // of those that differ: a placement or multiplicity
  std::uint64_t unlisted = 0;        // lines of differing units past the rank's bound (kKeptLines...)
};

// Where the unit lines go: stdout as they come (one process), or kept for rank 0.
class Lines {
 public:
  explicit Lines(std::uint64_t keep) : keep_(keep) {}   // keep: at most this many (0: none, stdout)
  void add(const std::string& line, Tally& t) {   // under the caller's lock
    if (!keep_) {
      std::cout << line;
      flush_stdout();   // a failure is said at the end, with its reason
    } else if (kept_ < keep_) {
      text_ += line;
      ++kept_;
    } else {
      ++t.unlisted;
    }
  }
  const std::string& kept() const { return text_; }

 private:
  std::uint64_t keep_;
  std::string text_;
  std::uint64_t kept_ = 0;
};

// A unit of the file beside the plan's unit of its id, and its recount.
struct Item {
  store::UnitRecord stored;
  core::WorkUnit unit;
  core::SearchStats recount;
  double seconds = 0;
};

class Checker {
 public:
  // rank: "" in one process, else who checks ("rank 2, host h"): the lines name it and up to
  // `keep` of them are kept for rank 0. progress: the units to check here, the threads and what
  // is expected of them.
  Checker(const store::ResultReader& reader, const CheckOptions& o, bool list, const std::string& rank,
          std::uint64_t keep, const ProgressState& progress)
      : reader_(reader), o_(o), list_(list), lines_(rank.empty() ? 0 : keep), by_(rank.empty() ? "" : "  (" + rank + ")"),
        plan_(reader.info().params.n, reader.info().params.depth, reader.info().params.symmetry), cursor_(plan_),
        progress_(progress) {
    have_ = cursor_.next(next_);
  }

  // Reads the rows of `spans`, matches each unit with the plan's and recounts the matched ones,
  // kChunk at a time on the threads (a sample's units, one per span, together).
  void check(const std::vector<RowSpan>& spans, const std::atomic<bool>& cancel) {
    std::vector<store::UnitRecord> recs;
    std::vector<Item> items;
    for (const auto& span : spans)
      for (std::uint64_t row = span.begin; row < span.end; row += kChunk) {
        reader_.read_units(row, std::min(kChunk, span.end - row), recs);
        for (const auto& rec : recs)
          if (auto unit = plans_unit(rec, cancel)) items.push_back({rec, *unit, {}, 0});
        if (items.size() >= kChunk) recount(items, cancel);
      }
    recount(items, cancel);
  }

  const Tally& tally() const { return tally_; }
  ProgressState progress() {   // (its seconds are the caller's)
    const std::lock_guard lock(mutex_);
    return progress_;
  }
  const std::string& kept_lines() const { return lines_.kept(); }
  const core::UnitPlan& plan() const { return plan_; }

 private:
  void recount(std::vector<Item>& items, const std::atomic<bool>& cancel) {
    core::parallel_for(items.size(), o_.threads, [&](std::size_t i) {
      const auto start = clock::now();
      items[i].recount = plan_.count(items[i].unit, cancel);
      items[i].seconds = seconds_since(start);
      report(items[i]);
    });
    items.clear();
  }

  // The plan's unit of rec's id, if rec's placement and multiplicity are its (else it differs).
  std::optional<core::WorkUnit> plans_unit(const store::UnitRecord& rec, const std::atomic<bool>& cancel) {
    for (std::uint32_t steps = 0; have_ && next_.id < rec.id; ++steps) {
      if ((steps & 0xFFFF) == 0 && cancel.load(std::memory_order_relaxed)) throw core::Interrupted(core::kSearchPhase);
      have_ = cursor_.next(next_);
    }
    std::string why;
    if (!have_) why = "the plan has no unit of this id";
    else if (next_.id != rec.id)   // the plan's ids are 0, 1, ...: an earlier row took the cursor past it
      why = "its row comes after that of a higher id (the file's units are out of id order, or an id repeats)";
    else if (next_.placement != rec.placement) why = "its placement is not that of the plan's unit of this id";
    else if (next_.multiplicity != rec.multiplicity)
      why = "its multiplicity is " + std::to_string(rec.multiplicity) + ", the plan's " + std::to_string(next_.multiplicity);
    if (why.empty()) return next_;
    const std::lock_guard lock(mutex_);
    progress_.units_done = ++tally_.checked;
    ++tally_.differ;
    ++tally_.not_the_plans;
    std::ostringstream line;
    line << "unit     " << std::left << std::setw(12) << rec.id << "DIFFERS  " << why << by_ << "\n";
    lines_.add(line.str(), tally_);
    return std::nullopt;
  }

  void report(const Item& it) {
    const bool agrees = it.recount.solutions == it.stored.solutions && it.recount.nodes == it.stored.nodes;
    const std::lock_guard lock(mutex_);
    progress_.units_done = ++tally_.checked;
    progress_.solutions += core::Total{it.unit.multiplicity} * it.recount.solutions;
    progress_.nodes += it.recount.nodes;
    progress_.busy_seconds += it.seconds;
    if (!agrees) ++tally_.differ;
    if (agrees && !list_) return;
    std::ostringstream line;
    line << "unit     " << std::left << std::setw(12) << it.unit.id << (agrees ? "agrees   " : "DIFFERS  ");
    if (agrees)
      line << with_commas(it.recount.solutions) << " solutions, " << with_commas(it.recount.nodes) << " nodes";
    else
      line << "the file says " << with_commas(it.stored.solutions) << " solutions and " << with_commas(it.stored.nodes)
           << " nodes, the recount " << with_commas(it.recount.solutions) << " and " << with_commas(it.recount.nodes);
    line << std::setprecision(3) << "  " << it.seconds << " s (" << it.stored.seconds << " s in the run)" << by_ << "\n";
    lines_.add(line.str(), tally_);
  }

  const store::ResultReader& reader_;
  const CheckOptions& o_;
  const bool list_;
  Lines lines_;
  const std::string by_;
  const core::UnitPlan plan_;
  core::UnitCursor cursor_;
  core::WorkUnit next_;
  bool have_ = false;
  std::mutex mutex_;
  Tally tally_;
  ProgressState progress_;
};

}  // namespace

std::vector<std::pair<std::uint64_t, std::uint64_t>> parse_unit_ranges(const std::string& text) {
  const auto number = [&](std::string_view s) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
      throw ExitError(kUsage, "--units takes unit ids and ranges of them, as 12,40-49 (got '" + text + "')");
    return v;
  };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  std::string_view rest(text);
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const auto dash = item.find('-');
    const std::uint64_t a = number(item.substr(0, dash));
    const std::uint64_t b = dash == std::string_view::npos ? a : number(item.substr(dash + 1));
    if (b < a) throw ExitError(kUsage, "--units: the range " + std::string(item) + " ends before it starts");
    ranges.emplace_back(a, b);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return ranges;
}

namespace {

// Every rank's kept unit lines as rank 0 prints them: in id order.
std::string in_id_order(const std::vector<std::string>& texts) {
  std::vector<std::pair<std::uint64_t, std::string>> lines;
  for (const auto& text : texts) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      lines.emplace_back(std::stoull(line.substr(line.find_first_not_of(' ', 4))), line + "\n");
  }
  std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& l : lines) out += l.second;
  return out;
}

}  // namespace

int check_units(const CheckOptions& given, const cluster::MpiSession& mpi) {
  const bool several = mpi.size() > 1;
  const std::string where = several ? mpi.where() : "";
  CheckOptions o = given;
  o.seed = mpi.from_rank0(o.seed ? *o.seed : std::random_device{}());   // every rank draws the same sample
  // Every rank opens the file and selects its rows. A failure on any rank ends all of them alike
  // (a file that one node cannot see must not leave the others waiting): rank 0 says why, with
  // its own message if it failed too, else with the first failed rank's.
  std::unique_ptr<store::ResultReader> reader;
  std::vector<RowSpan> spans;
  std::string what;
  Reported failure;
  try {
    if (o.sample == 0) throw ExitError(kUsage, "--sample must be at least 1");
    try {
      reader = std::make_unique<store::ResultReader>(o.file);
    } catch (const store::NotAResultFile& e) {
      throw ExitError(kBadInput, std::string("check: ") + e.what());
    }
    if (!reader->unit_count() && !o.ranges.empty())   // (ids asked for: none is there)
      throw ExitError(kUsage, "check: " + o.file + " holds no unit" +
                                  (reader->info().status == store::Status::complete ? "" : " yet") +
                                  ": --units has nothing to check");
    if (reader->unit_count()) spans = select_rows(*reader, o, what);
  } catch (...) {
    failure = describe_current_exception(mpi.rank() ? where : "");
  }
  const auto failures = mpi.gather_text(failure.text);
  if (const int code = mpi.max_over_ranks(failure.code)) {
    const auto said = std::find_if(failures.begin(), failures.end(), [](const std::string& t) { return !t.empty(); });
    if (said != failures.end()) std::cerr << *said;
    return code;
  }
  const store::RunInfo& info = reader->info();
  const core::JobParams& p = info.params;
  const std::uint64_t selected = rows_in(spans);
  install_master_signals();   // before the lines below, which say that the recount is under way
  const bool has_two_vector_kernels = core::vector_kernel_available() && core::avx2_kernel_available();
  core::choose_kernel(o.kernel.value_or(has_two_vector_kernels ? core::KernelChoice::avx2 : core::KernelChoice::scalar));
  const int threads = o.threads ? o.threads : mpi.default_threads();
  const std::uint64_t all_threads = mpi.sum_over_ranks({static_cast<std::uint64_t>(threads)})[0];
  if (mpi.rank() == 0) {
    if (const auto w = o.threads ? mpi.threads_warning(o.threads) : std::nullopt)
      std::cerr << "nqueens: warning: " << *w << "\n";
    std::cout << "check    " << o.file << ": N = " << p.n << ", " << core::to_string(p.mode) << " mode, depth " << p.depth
              << ", symmetry " << core::to_string(p.symmetry)
              << (p.shard.whole() ? "" : ", shard " + core::to_string(p.shard)) << "; "
              << core::to_string(info.status) << ", " << with_commas(reader->unit_count()) << " units\n";
    if (!selected)   // nothing wrong (a complete shard of a plan with fewer units than shards): exit 0
      std::cout << "result   nothing to check: the file holds no unit"
                << (info.status == store::Status::complete ? "" : " yet") << "\n";
  }
  if (!selected) return kOk;
  if (mpi.rank() == 0) {
    double stored_seconds = 0;
    if (selected <= kListedUnits) {   // what the run spent on them: a guide to this check's time
      std::vector<store::UnitRecord> recs;
      for (const auto& s : spans) {
        reader->read_units(s.begin, s.end - s.begin, recs);
        for (const auto& r : recs) stored_seconds += r.seconds;
      }
    }
    std::cout << "units    " << what;
    if (selected <= kListedUnits) std::cout << std::setprecision(3) << ", which the run counted in " << stored_seconds << " s";
    std::cout << "; recounted with the " << core::kernel_name() << " search on " << all_threads << " thread(s)"
              << (several ? " of " + std::to_string(mpi.size()) + " ranks" : "") << "\n";
    flush_stdout();
  }

  const auto share = several ? rank_share(spans, mpi.rank(), mpi.size()) : spans;
  ProgressState progress;
  progress.units_total = rows_in(share);
  progress.threads = threads;
  // What all of a complete file's units found and walked is known (published or extrapolated,
  // and sampled): the share of it here gives the ETA. Else the ETA goes by the units.
  if (selected == reader->unit_count() && info.status == store::Status::complete)
    expect_totals(progress, p, info.units_total,   // (the whole plan's: it was taken K times over for a shard)
                  static_cast<double>(progress.units_total) / static_cast<double>(selected) / p.shard.count);
  const auto start = clock::now();
  const std::uint64_t keep = std::clamp<std::uint64_t>(kKeptLinesInAll / static_cast<std::uint64_t>(mpi.size()), 1, kKeptLines);
  Checker checker(*reader, o, selected <= kListedUnits,
                  several ? "rank " + std::to_string(mpi.rank()) + ", host " + mpi.host() : "", keep, progress);
  // Rank 0's progress stands for the job's (the ranks' shares are dealt alike). Not where one
  // process lists each unit as it comes on the terminal that shows the live progress line.
  const bool listed_on_the_terminal = !several && selected <= kListedUnits && isatty(STDOUT_FILENO) && isatty(STDERR_FILENO);
  const bool show_progress = !o.quiet && mpi.rank() == 0 && !listed_on_the_terminal;
  std::atomic<bool> cancel{false};
  std::jthread watch([&](const std::stop_token& ended) {   // a stop signal cancels the searches under way
    std::optional<ProgressLine> line;
    for (auto next = start + kProgressInterval; !ended.stop_requested(); std::this_thread::sleep_for(kStopPoll)) {
      if (stop_signal_received()) cancel.store(true);
      if (!show_progress || clock::now() < next) continue;
      if (!line) line.emplace(several ? "check, rank 0's share" : "check");
      ProgressState now = checker.progress();
      now.seconds = seconds_since(start);
      line->report(now);
      next += kProgressInterval;
    }
  });   // (its destructor ends it however this function ends)
  bool stopped = false;
  try {
    checker.check(share, cancel);
  } catch (const core::Interrupted&) {
    stopped = true;
  } catch (...) {
    if (several) mpi.abort(report_current_exception(where));   // the other ranks wait for this one
    throw;
  }
  watch.request_stop();
  watch.join();   // its progress line ends before the lines below
  const Tally& mine = checker.tally();
  const auto sums = mpi.sum_over_ranks({mine.checked, mine.differ, mine.not_the_plans, mine.unlisted});
  const Tally t{sums[0], sums[1], sums[2], sums[3]};
  const int signal = mpi.max_over_ranks(stopped ? stop_signal() : 0);
  const auto kept = mpi.gather_text(checker.kept_lines());
  const int code = t.differ ? kVerifyFailed : signal ? kInterrupted : kOk;
  if (mpi.rank() != 0) return code;
  std::cout << in_id_order(kept);
  if (t.unlisted)
    std::cout << "more     " << with_commas(t.unlisted) << " units differ and are not listed (each rank lists at most "
              << keep << "): recount a part of the file with --units to see them\n";
  std::cout << "result   " << std::setprecision(3);
  if (signal)
    std::cout << "stopped by signal " << signal << " after " << with_commas(t.checked) << " of "
              << with_commas(selected) << " units: ";
  if (t.differ)
    std::cout << with_commas(t.differ) << " of " << with_commas(t.checked)
              << " units differ (above): the file's counts of them are wrong, or the machine that counted them erred";
  else
    std::cout << (signal ? "all " : "") << with_commas(t.checked) << " of " << with_commas(t.checked)
              << " units agree: their placements and multiplicities are the plan's, their solutions and nodes the recount's";
  std::cout << " (" << seconds_since(start) << " s)\n";
  if (t.not_the_plans && info.git_commit != kGitCommit)
    std::cout << "note     " << o.file << " was written by nqueens " << info.program_version << ", commit " << info.git_commit
              << ": a unit whose placement or multiplicity is not that of " << this_programs_plan(checker.plan())
              << " may be right for the plan of the nqueens that wrote it; check it with that one\n";
  return checked_stdout(code);   // out before the session ends: the other ranks leave with `code`
}

}  // namespace nq::app
