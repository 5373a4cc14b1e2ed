#include "app/result_files.h"
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include "app/exit_codes.h"
#include "app/report.h"
#include "cluster/fault_injection.h"
#include "core/known_counts.h"
#include "core/symmetry.h"

namespace nq::app {
namespace fs = std::filesystem;

store::RunInfo read_result_info(const std::string& path, const std::string& elsewhere) {
  try {
    return store::ResultReader(path).info();
  } catch (const store::ResultFileInUse& e) {
    throw ExitError(kRefused, std::string(e.what()) + ": close it there and rerun");
  } catch (const store::NotAResultFile& e) {
    throw ExitError(kRefused, path + " exists and is not a readable nqueens result file (" + e.what() +
                                  "); refusing to overwrite it: move it away or " + elsewhere);
  }
}

std::string result_path(const std::string& out) {
  constexpr int kMaxLinks = 40;   // as the kernel's MAXSYMLINKS: a loop stays as given (its open fails)
  fs::path p(out);
  std::error_code ec;
  for (int i = 0; i < kMaxLinks && fs::is_symlink(p, ec); ++i) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return p == fs::path(out) ? out : p.lexically_normal().string();
}

// A run that starts while this one holds the journal's lock may be creating the journal's
// header (it then finds this journal and drops its own): such a temporary file is stale only
// once it is this old.
constexpr std::chrono::minutes kStaleHeaderAge{10};

void remove_stale_temp_files(const std::string& out) {
  const fs::path p(out);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const std::string result_prefix = p.filename().string() + ".tmp-";
  const std::string header_prefix = p.filename().string() + ".journal.tmp-";
  const auto digits = [](const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  };
  const auto after = [](const std::string& name, const std::string& prefix) -> std::optional<std::string> {
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    return name.substr(prefix.size());
  };
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code rm;
    if (const auto rest = after(name, result_prefix)) {   // <pid>-<k>
      const auto dash = rest->find('-');
      if (dash == std::string::npos || !digits(rest->substr(0, dash)) || !digits(rest->substr(dash + 1))) continue;
    } else if (const auto pid = after(name, header_prefix)) {
      if (!digits(*pid)) continue;
      const auto written = fs::last_write_time(it->path(), rm);
      if (rm || fs::file_time_type::clock::now() - written < kStaleHeaderAge) continue;
    } else {
      continue;
    }
    if (it->is_regular_file(rm) && fs::remove(it->path(), rm))
      std::cerr << "nqueens: removed " << it->path().string() << " (left by an earlier run or merge that was killed while writing)\n";
  }
}

CountsNow counts_now(const store::RunInfo& i) {
  if (i.status != store::Status::complete || !i.params.shard.whole()) return {{}, i.matches_known};
  CountsNow now{{}, core::known_match(i.params.n, i.total, i.unique)};
  try {
    const core::Total from = core::unique_from_burnside(i.params.n, i.total, {i.rot180_fixed, i.rot90_fixed});
    if (from != i.unique) now.burnside = "Burnside gives " + core::to_decimal(from) + " from total, P and R";
  } catch (const core::IntegrityError& e) {
    now.burnside = e.what();
  }
  return now;
}

void finalize_totals(store::RunInfo& info, const UnitSource& units, bool whole_job, const core::StopFn& stop) {
  info.units_done = units.count;
  core::Total total = 0;
  units.for_each([&](const store::UnitRecord& r) {   // seconds at most (N = 27: 164 M units, ~2 s)
    if (!core::add_product(total, r.multiplicity, r.solutions))
      throw core::IntegrityError("128-bit overflow while adding unit " + std::to_string(r.id));
  });
  info.total = total;
  const auto known = core::known_counts(info.params.n);
  info.known_total = known ? static_cast<std::int64_t>(known->total) : -1;
  info.known_unique = known ? static_cast<std::int64_t>(known->unique) : -1;
  info.unique = 0;
  info.matches_known = core::KnownMatch::unknown;
  if (!whole_job) return;
  // On every CPU this process may use: the workers are done by now (N = 27: ~2 core-minutes).
  const auto fixed = core::count_rotation_fixed(info.params.n, stop, 0);
  info.rot180_fixed = fixed.rot180;
  info.rot90_fixed = fixed.rot90;
  try {
    info.unique = core::unique_from_burnside(info.params.n, total, fixed);
  } catch (const core::IntegrityError&) {
    info.matches_known = known ? core::KnownMatch::mismatch : core::KnownMatch::unknown;
    throw;
  }
  info.matches_known = core::known_match(info.params.n, info.total, info.unique);
}

BoardSource journal_board_source(const store::Journal& journal, const core::UnitPlan& plan, core::BoardSet set,
                                 std::uint64_t units_total) {
  return [&journal, &plan, set, units_total](const BoardSink& sink) {
    const auto n = static_cast<std::size_t>(plan.n());
    std::vector<std::uint64_t> ids;
    std::vector<std::uint8_t> images;
    std::vector<bool> streamed(units_total, false);   // a unit journaled twice counts once
    journal.for_each_record([&](const store::UnitRecord& r, std::span<const std::uint8_t> boards,
                                std::span<const std::uint8_t> class_sizes) {
      if (r.id >= units_total || streamed[r.id]) return;
      streamed[r.id] = true;
      if (boards.empty()) return;
      if (set == core::BoardSet::classes) {
        ids.assign(class_sizes.size(), r.id);
        sink(boards, class_sizes, ids);
        return;
      }
      const core::WorkUnit u{r.id, r.multiplicity, r.placement};
      for (std::size_t at = 0; at < boards.size(); at += kImagePiece * n) {
        images.clear();
        core::append_unit_images(plan, u, boards.subspan(at, std::min(kImagePiece * n, boards.size() - at)), images);
        ids.assign(images.size() / n, r.id);
        sink(images, {}, ids);
      }
    });
  };
}

StoredBoardsCheck::StoredBoardsCheck(const core::UnitPlan& plan, core::BoardSet set,
                                     std::vector<store::UnitRecord> units, std::size_t piece)
    : plan_(plan), set_(set), units_(std::move(units)), seen_(units_.size(), false), piece_(piece) {
  at_.reserve(units_.size());
  for (std::size_t i = 0; i < units_.size(); ++i) at_.emplace(units_[i].id, i);
}

void StoredBoardsCheck::begin_unit(std::uint64_t id) {
  const auto it = at_.find(id);
  if (it == at_.end()) throw BoardsNotStoredRight("boards of unit " + std::to_string(id) + ", which the file does not hold");
  if (seen_[it->second])
    throw BoardsNotStoredRight("the boards of unit " + std::to_string(id) + " are not stored together");
  seen_[it->second] = true;
  unit_ = &units_[it->second];
  boards_.clear();
  sizes_.clear();
  pending_.clear();
  per_completion_ = set_ == core::BoardSet::classes
                        ? 1
                        : static_cast<std::size_t>(plan_.image_symmetries(work_unit()).count);
}

core::WorkUnit StoredBoardsCheck::work_unit() const { return {unit_->id, unit_->multiplicity, unit_->placement}; }

// All mode: the pending rows, whole completions each followed by its images, against the images
// made again from their completions.
void StoredBoardsCheck::check_pending() {
  const auto n = static_cast<std::size_t>(plan_.n());
  const std::size_t row_bytes = n * per_completion_;
  completions_.clear();
  for (std::size_t at = 0; at < pending_.size(); at += row_bytes)
    completions_.insert(completions_.end(), pending_.begin() + static_cast<std::ptrdiff_t>(at),
                        pending_.begin() + static_cast<std::ptrdiff_t>(at + n));
  images_.clear();
  core::append_unit_images(plan_, work_unit(), completions_, images_);
  if (images_ != pending_) {
    const auto differ = std::mismatch(images_.begin(), images_.end(), pending_.begin()).first - images_.begin();
    const std::size_t checked_rows = boards_.size() / n * per_completion_;   // (boards_: the completions checked)
    throw BoardsNotStoredRight("unit " + std::to_string(unit_->id) + ": its board " +
                               std::to_string(checked_rows + static_cast<std::size_t>(differ) / n) +
                               " is not the image of its completion that the file's order puts there");
  }
  boards_.insert(boards_.end(), completions_.begin(), completions_.end());
  pending_.clear();
}

void StoredBoardsCheck::end_unit() {
  if (!unit_) return;
  const auto n = static_cast<std::size_t>(plan_.n());
  const std::string which = "unit " + std::to_string(unit_->id);
  if (set_ != core::BoardSet::classes) {
    if (pending_.size() % (n * per_completion_))
      throw BoardsNotStoredRight(which + ": its rows are not whole completions with their " +
                                 std::to_string(per_completion_ - 1) + " images each");
    check_pending();
  }
  if (const auto wrong = core::check_unit_boards(plan_, work_unit(), set_, unit_->solutions, boards_, sizes_))
    throw BoardsNotStoredRight(which + ": " + *wrong);
  unit_ = nullptr;
}

void StoredBoardsCheck::add(std::span<const std::uint8_t> boards, std::span<const std::uint8_t> class_sizes,
                            std::span<const std::uint64_t> ids) {
  const auto n = static_cast<std::size_t>(plan_.n());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (!unit_ || ids[i] != unit_->id) {
      end_unit();
      begin_unit(ids[i]);
    }
    const auto row = boards.subspan(i * n, n);
    if (set_ == core::BoardSet::classes) {
      boards_.insert(boards_.end(), row.begin(), row.end());
      sizes_.push_back(class_sizes[i]);
      continue;
    }
    pending_.insert(pending_.end(), row.begin(), row.end());
    if (pending_.size() == piece_ * n * per_completion_) check_pending();
  }
}

void StoredBoardsCheck::finish() {
  end_unit();
  if (set_ == core::BoardSet::classes) return;   // (a unit may hold no canonical board: only counted)
  for (std::size_t i = 0; i < units_.size(); ++i)
    if (!seen_[i] && units_[i].solutions)
      throw BoardsNotStoredRight("unit " + std::to_string(units_[i].id) + ": " + std::to_string(units_[i].solutions) +
                                 " solutions, and no board stored");
}

BoardSource no_boards() {
  return [](const BoardSink&) {};
}

void write_result_file(const std::string& path, const store::RunInfo& info, const UnitSource& units,
                       const BoardSource& boards, const core::StopFn& stop) {
  core::StopPoll poll(stop, "writing " + path);
  store::ResultWriter writer(path, info.params);   // its destructor removes an unfinished file
  constexpr std::size_t kSlice = 1 << 14;   // units per call between polls (~10 ms of compression)
  std::vector<store::UnitRecord> slice;
  slice.reserve(kSlice);
  const auto append = [&] {
    poll.check();
    writer.append_units(slice);
    slice.clear();
  };
  units.for_each([&](const store::UnitRecord& r) {
    slice.push_back(r);
    if (slice.size() == kSlice) append();
  });
  append();
  cluster::inject_write_fault();
  if (info.params.boards_mode())
    boards([&](auto b, auto c, auto ids) {
      poll.check();
      writer.append_boards(b, c, ids);
    });
  poll.check();
  writer.commit(info);
}

}  // namespace nq::app
