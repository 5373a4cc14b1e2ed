#include "app/merge.h"
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include "app/exit_codes.h"
#include "app/plan_limits.h"
#include "app/report.h"
#include "app/result_files.h"
#include "app/signals.h"
#include "app/run_end.h"
#include "app/unit_table.h"
#include "core/version.h"
#include "store/journal.h"

namespace nq::app {
namespace {

constexpr std::uint64_t kBoardPiece = 1 << 16;

// Every shard of one job has the same parameters but its shard index, the same plan size and
// the same program version; every difference is named in the error.
void require_same(const store::RunInfo& a, const store::RunInfo& b, const std::string& file_a,
                  const std::string& file_b) {
  core::JobParams pa = a.params, pb = b.params;
  pa.shard.index = pb.shard.index = 0;
  auto diffs = core::differences(pa, pb);
  if (a.units_total != b.units_total)
    diffs.push_back({"units_total", std::to_string(a.units_total), std::to_string(b.units_total)});
  if (a.program_version != b.program_version) diffs.push_back({"program_version", a.program_version, b.program_version});
  if (!diffs.empty())
    throw ExitError(kRefused, "merge: shards of different jobs cannot be merged: " +
                                  core::describe(diffs, "in " + file_a, "in " + file_b));
}

// OUT as the merge finds it, judged while holding its journal (TargetLock). It replaces a result
// only with --force: a complete one, or a partial one, which is a run's progress (until session
// 44 the merge replaced that silently).
void check_merge_target(const std::string& out, bool force) {
  std::error_code ec;
  if (!std::filesystem::exists(out, ec)) return;
  // A file that is not a result is never replaced, --force or not: the merge did not write it.
  const store::RunInfo info = read_result_info(out, "merge into another file");
  if (force) return;
  if (info.status == store::Status::complete)
    throw ExitError(kRefused, out + " already holds a complete result; pass --force to overwrite it");
  throw ExitError(kRefused, out + " holds a partial result (N = " + std::to_string(info.params.n) + ", " +
                                std::to_string(info.units_done) + " of " +
                                std::to_string(info.params.shard.size(info.units_total)) +
                                " units done), which a run of its job resumes: pass --force to replace it, or merge into another file");
}

// OUT's journal, held from the check of OUT to the end of the merge: the lock that every run of
// OUT holds while it computes and writes (store::Journal). A run or another merge of OUT started
// meanwhile is refused (exit 5), and this merge is refused while one of them holds it. Until
// session 46 the merge looked for a run once, before it read the shards, and held nothing: a run
// started meanwhile removed the merge's temporary file as stale (the merge failed, exit 4), or
// wrote its complete result, which the merge then replaced without --force; two merges replaced
// each other's. The journal is the merged job's: a merge that is killed leaves it empty, and
// the merge run again (or a run of that job) takes it. Removed at the end, with OUT complete, and
// on a refusal if it holds no unit (a run's progress is kept).
class TargetLock {
 public:
  TargetLock(const std::string& out, const store::RunInfo& job, bool force) : out_(out) {
    store::JournalKey key{job.params, job.units_total, kProgramVersion};
    key.params.shard = core::Shard{};
    const auto open = force ? store::Journal::Open::resume_or_discard : store::Journal::Open::resume;
    try {   // (the records of a run of the whole job, if any, are skipped, not held)
      journal_ = std::make_unique<store::Journal>(out + ".journal", key, core::StopFn{}, open,
                                                  [](const store::UnitRecord&) {});
    } catch (const store::JournalInUse& e) {
      throw ExitError(kRefused, std::string(e.what()) + ": a run or another merge is writing " + out +
                                    "; let it finish, or merge into another file");
    } catch (const store::ParameterMismatch& e) {
      throw ExitError(kRefused, std::string(e.what()) + ": " + out +
                                    ".journal holds the progress of a run of another job: pass --force to discard it, "
                                    "or merge into another file");
    }
  }
  ~TargetLock() {
    try {
      if (journal_ && !journal_->recovered_count()) journal_->remove();
    } catch (const store::WriteError&) {   // the merge's own outcome is what to report
    }
  }
  TargetLock(const TargetLock&) = delete;
  TargetLock& operator=(const TargetLock&) = delete;
  // OUT holds the merged job's complete result: a run's progress of it is no longer wanted.
  void release_done() {
    try {
      journal_->remove();
    } catch (const store::WriteError& e) {
      std::cerr << "nqueens: warning: " << e.what() << " (harmless: " << out_ << " is complete)\n";
    }
  }

 private:
  std::string out_;
  std::unique_ptr<store::Journal> journal_;
};

}  // namespace

// The missing shards a refusal names (the rest it counts).
constexpr std::size_t kListedGaps = 10;

int merge_shards(const std::string& given_out, const std::vector<std::string>& shards, bool force) {
  const std::string out = result_path(given_out);
  // A stop signal (a scheduler's limit, scancel, Ctrl-C) ends the merge at once, exit 75, with
  // OUT as it was and no temporary file left: the merge of a large boards job takes minutes.
  install_master_signals();
  const core::StopFn stop = stop_on_signal();
  core::StopPoll poll(stop, "merging into " + out);
  std::error_code dir_ec;
  if (std::filesystem::is_directory(out, dir_ec))   // exit 4 like `run --out DIR` (docs/usage.md, exit codes)
    throw ExitError(kIoError, "merge: output " + out + " is a directory; give a file path");
  std::vector<std::unique_ptr<store::ResultReader>> readers;
  for (const auto& s : shards) {
    std::error_code ec;   // a missing OUT is not equivalent to anything
    if (std::filesystem::equivalent(s, out, ec))
      throw ExitError(kUsage, "merge: the output " + out + " is also given as a shard");
    try {
      readers.push_back(std::make_unique<store::ResultReader>(s));
    } catch (const store::NotAResultFile& e) {
      throw ExitError(kBadInput, std::string("merge: ") + e.what());
    }
  }
  const store::RunInfo& first = readers.front()->info();
  std::set<int> indices;
  for (std::size_t i = 0; i < readers.size(); ++i) {
    const auto& info = readers[i]->info();
    require_same(first, info, shards.front(), shards[i]);
    if (info.status != store::Status::complete)
      throw ExitError(kRefused, "merge: " + shards[i] + " is partial (" + std::to_string(info.units_done) +
                                    " units); finish it first by rerunning its job");
    if (!indices.insert(info.params.shard.index).second)
      throw ExitError(kRefused, "merge: shard " + core::to_string(info.params.shard) + " is given twice (overlap)");
  }
  const int count = first.params.shard.count;
  if (const auto absent = static_cast<std::size_t>(count) - indices.size(); absent > 0) {
    // The first few by index: a job of 10^8 shards merged from one made a message of a gigabyte.
    std::string missing;
    std::size_t listed = 0;
    for (int i = 0; i < count && listed < kListedGaps; ++i)   // at most indices.size() + kListedGaps turns
      if (!indices.count(i)) missing += (listed++ ? ", " : "") + std::to_string(i);
    if (absent > listed) missing += " and " + std::to_string(absent - listed) + " more";
    throw ExitError(kRefused, "merge: shards missing (gap): " + missing + " of " + std::to_string(count));
  }

  check_merge_memory(first.units_total);
  check_merge_target(out, force);   // first what OUT is: its refusal says more than its journal's would
  TargetLock lock(out, first, force);
  check_merge_target(out, force);   // again: a run may have written OUT meanwhile
  remove_stale_temp_files(out);

  // The units in a table of the whole job (40 bytes a unit), read in slices: the shards' rows
  // (88 bytes each in memory) are never all held at once.
  const core::UnitPlan plan(first.params.n, first.params.depth, first.params.symmetry);
  UnitTable table(core::Shard{}, first.units_total);
  store::RunInfo info = first;
  std::set<std::string> hosts;
  info.wall_seconds = 0;
  UnitDigest stored;
  for (std::size_t i = 0; i < readers.size(); ++i) {
    const auto& si = readers[i]->info();
    readers[i]->for_each_unit([&](const store::UnitRecord& u) {
      poll.tick();
      if (u.id >= first.units_total || !si.params.shard.contains(u.id) || !table.add(u))
        throw ExitError(kBadInput, "merge: " + shards[i] + " holds unit " + std::to_string(u.id) +
                                       ", which is not part of its shard or appears twice");
      stored.add(u);
    });
    info.wall_seconds += si.wall_seconds;
    info.ranks = std::max(info.ranks, si.ranks);
    info.threads = std::max(info.threads, si.threads);
    info.start_time = std::min(info.start_time, si.start_time);
    info.end_time = std::max(info.end_time, si.end_time);
    for (std::size_t p = 0, q; p <= si.hosts.size(); p = q + 1) {
      q = si.hosts.find(',', p);
      if (q == std::string::npos) q = si.hosts.size();
      if (q > p) hosts.insert(si.hosts.substr(p, q - p));
    }
  }
  if (table.size() != first.units_total)
    throw ExitError(kBadInput, "merge: the shards hold " + std::to_string(table.size()) + " units, the job has " +
                                   std::to_string(first.units_total));
  info.hosts.clear();
  for (const auto& h : hosts) info.hosts += (info.hosts.empty() ? "" : ",") + h;
  info.params.shard = core::Shard{};
  const UnitSource units = table.units(plan);
  const UnitDigest planned = [&] {
    try {
      return digest_of(units);
    } catch (const UnitTable::PlanTooShort& e) {   // units_total or depth changed after the shards were written
      throw ExitError(kBadInput, std::string("merge: the shards' units do not fit their plan: ") + e.what() +
                                     "; their units_total (" + std::to_string(first.units_total) +
                                     ") or depth is not their plan's: a shard file was changed after it was written");
    }
  }();
  if (!(planned == stored))
    throw ExitError(kRefused, "merge: the shards' units are not those of " + this_programs_plan(plan) +
                                  ": their placements or multiplicities differ; merge them with the nqueens that ran them (" +
                                  first.program_version + ", commit " + first.git_commit + ")");
  const Totals totals = decide_totals(info, units, first.units_total, false);
  poll.check();
  if (!totals.integrity_ok) std::cerr << "nqueens: integrity check failed: " << totals.integrity_error << "\n";
  RunFacts facts;
  facts.complete = info.status == store::Status::complete;
  facts.integrity_ok = totals.integrity_ok;
  facts.matches_known = info.matches_known;
  write_result_file(out, info, units, [&](const BoardSink& sink) {
    std::vector<std::uint8_t> boards, sizes;
    std::vector<std::uint64_t> unit_ids;
    for (std::size_t i = 0; i < readers.size(); ++i) {
      // Each shard's boards checked as its run's master checked them (an edited or damaged
      // shard merged as complete: only nqanalyze verify saw it).
      const auto& r = readers[i];
      std::vector<store::UnitRecord> records;
      r->for_each_unit([&](const store::UnitRecord& u) { records.push_back(u); });
      StoredBoardsCheck boards_check(plan, first.params.boards, std::move(records));
      try {
        for (std::uint64_t start = 0; start < r->board_count(); start += kBoardPiece) {
          r->read_boards(start, std::min(kBoardPiece, r->board_count() - start), boards, sizes, unit_ids);
          poll.check();
          boards_check.add(boards, sizes, unit_ids);
          sink(boards, sizes, unit_ids);
        }
        boards_check.finish();
      } catch (const BoardsNotStoredRight& e) {
        throw ExitError(kBadInput, "merge: " + shards[i] + ": " + e.what() +
                                       ": its boards are not those its run stored; run that shard again");
      }
    }
  }, stop);
  lock.release_done();
  std::cout << "merged   " << shards.size() << " shards into " << out << ": N = " << info.params.n << ", total "
            << core::to_decimal(info.total) << ", unique " << core::to_decimal(info.unique)
            << ", matches published: " << core::to_string(info.matches_known) << "\n";
  return exit_code(decide_ending(facts));
}

}  // namespace nq::app
