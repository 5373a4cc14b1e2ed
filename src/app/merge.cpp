#include "app/merge.h"
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include "app/exit_codes.h"
#include "app/report.h"
#include "app/result_files.h"

namespace nq::app {
namespace {

constexpr std::uint64_t kBoardPiece = 1 << 16;

// The fields every shard of one job must share, with their names for the error message.
void require_same(const store::RunInfo& a, const store::RunInfo& b, const std::string& file_a,
                  const std::string& file_b) {
  auto diff = [&](const char* field, const std::string& va, const std::string& vb) {
    if (va != vb)
      throw Failure(kRefused, "merge: " + file_b + " has " + field + " = " + vb + " but " + file_a +
                                  " has " + va + "; shards of different jobs cannot be merged");
  };
  diff("n", std::to_string(a.n), std::to_string(b.n));
  diff("mode", a.mode, b.mode);
  diff("boards_stored", a.boards_stored, b.boards_stored);
  diff("depth", std::to_string(a.depth), std::to_string(b.depth));
  diff("symmetry", a.symmetry, b.symmetry);
  diff("units_total", std::to_string(a.units_total), std::to_string(b.units_total));
  diff("shard_count", std::to_string(a.shard_count), std::to_string(b.shard_count));
  diff("program_version", a.program_version, b.program_version);
}

}  // namespace

int merge_shards(const std::string& out, const std::vector<std::string>& shards, bool force) {
  std::error_code dir_ec;
  if (std::filesystem::is_directory(out, dir_ec))   // exit 4 like `run --out DIR` (docs/usage.md, exit codes)
    throw Failure(kIoError, "merge: output " + out + " is a directory; give a file path");
  std::vector<std::unique_ptr<store::ResultReader>> readers;
  for (const auto& s : shards) {
    std::error_code ec;   // a missing OUT is not equivalent to anything
    if (std::filesystem::equivalent(s, out, ec))
      throw Failure(kUsage, "merge: the output " + out + " is also given as a shard");
    try {
      readers.push_back(std::make_unique<store::ResultReader>(s));
    } catch (const store::NotAResultFile& e) {
      throw Failure(kBadInput, std::string("merge: ") + e.what());
    }
  }
  const store::RunInfo& first = readers.front()->info();
  std::set<int> indices;
  for (std::size_t i = 0; i < readers.size(); ++i) {
    const auto& info = readers[i]->info();
    require_same(first, info, shards.front(), shards[i]);
    if (info.status != "complete")
      throw Failure(kRefused, "merge: " + shards[i] + " is partial (" + std::to_string(info.units_done) +
                                  " units); finish it first by rerunning its job");
    if (!indices.insert(info.shard_index).second)
      throw Failure(kRefused, "merge: shard " + std::to_string(info.shard_index) + "/" +
                                  std::to_string(info.shard_count) + " is given twice (overlap)");
  }
  std::string missing;
  for (int i = 0; i < first.shard_count; ++i)
    if (!indices.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  if (!missing.empty())
    throw Failure(kRefused, "merge: shards missing (gap): " + missing + " of " + std::to_string(first.shard_count));

  std::error_code ec;
  if (std::filesystem::exists(out, ec) && read_result_info(out).status == "complete" && !force)
    throw Failure(kRefused, out + " already holds a complete result; pass --force to overwrite it");

  std::vector<store::UnitRecord> records;
  std::set<std::uint64_t> ids;
  store::RunInfo info = first;
  std::set<std::string> hosts;
  info.wall_seconds = 0;
  for (std::size_t i = 0; i < readers.size(); ++i) {
    const auto& si = readers[i]->info();
    for (const auto& u : readers[i]->units()) {
      if (u.id % si.shard_count != std::uint64_t(si.shard_index) || !ids.insert(u.id).second)
        throw Failure(kBadInput, "merge: " + shards[i] + " holds unit " + std::to_string(u.id) +
                                     ", which is not part of its shard or appears twice");
      records.push_back(u);
    }
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
  if (records.size() != first.units_total)
    throw Failure(kBadInput, "merge: the shards hold " + std::to_string(records.size()) + " units, the job has " +
                                 std::to_string(first.units_total));
  info.hosts.clear();
  for (const auto& h : hosts) info.hosts += (info.hosts.empty() ? "" : ",") + h;
  info.shard_index = 0;
  info.shard_count = 1;
  info.status = "complete";
  bool integrity_ok = true;
  try {
    finalize_totals(info, records, true);
  } catch (const core::IntegrityError& e) {
    std::cerr << "nqueens: integrity check failed: " << e.what() << "\n";
    integrity_ok = false;
  }
  write_result_file(out, info, std::move(records), [&](const BoardSink& sink) {
    std::vector<std::uint8_t> boards, sizes;
    std::vector<std::uint64_t> unit_ids;
    for (const auto& r : readers)
      for (std::uint64_t start = 0; start < r->board_count(); start += kBoardPiece) {
        r->read_boards(start, std::min(kBoardPiece, r->board_count() - start), boards, sizes, unit_ids);
        sink(boards, sizes, unit_ids);
      }
  });
  std::cout << "merged   " << shards.size() << " shards into " << out << ": N = " << info.n << ", total "
            << core::to_decimal(info.total) << ", unique " << core::to_decimal(info.unique)
            << ", matches published: " << info.matches_known << "\n";
  return integrity_ok && info.matches_known != "no" ? int(kOk) : int(kVerifyFailed);
}

}  // namespace nq::app
