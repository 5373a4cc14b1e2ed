#include "app/result_files.h"
#include <algorithm>
#include "app/exit_codes.h"
#include "app/report.h"
#include "cluster/fault_injection.h"
#include "core/known_counts.h"
#include "core/symmetry.h"

namespace nq::app {

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
