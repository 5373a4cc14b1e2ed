// Turning finished units into a result file, shared by `run` (from the journal) and `merge`
// (from shard files): totals and their cross-checks, and the streaming of boards.
#pragma once
#include <functional>
#include <span>
#include <string>
#include <vector>
#include "app/unit_table.h"
#include "core/boards.h"
#include "core/stop.h"
#include "store/journal.h"
#include "store/result_file.h"

namespace nq::app {

// The root attributes of an existing file; ExitError(kRefused) if the path holds something that
// is not an nqueens result file (we never overwrite what we did not write), its message ending in
// `elsewhere`, how the command writes somewhere else.
store::RunInfo read_result_info(const std::string& path, const std::string& elsewhere = "choose another --out");

// Fills units_done, total (exact in 128 bits; overflow is an IntegrityError), the published
// values and, for a whole complete job, P, R, unique (Burnside; IntegrityError if the identity
// fails) and matches_known. A shard or a partial run gets unique = 0 and matches_known =
// "unknown". The Burnside search (seconds from N = 24 on) polls `stop` (core::Interrupted).
void finalize_totals(store::RunInfo& info, const UnitSource& units, bool whole_job, const core::StopFn& stop = {});

// Boards in pieces: boards (k*n), class sizes (k or empty), unit ids (k).
using BoardSink = std::function<void(std::span<const std::uint8_t>, std::span<const std::uint8_t>,
                                     std::span<const std::uint64_t>)>;
using BoardSource = std::function<void(const BoardSink&)>;
// The stored boards of every journal record of `plan`'s units, each unit once (the first record
// of a unit id wins): class mode as journaled; all mode each completion followed by its images
// (core::append_unit_images), made here in pieces of at most kImagePiece completions.
inline constexpr std::size_t kImagePiece = 1 << 15;
BoardSource journal_board_source(const store::Journal& journal, const core::UnitPlan& plan, core::BoardSet set,
                                 std::uint64_t units_total);
BoardSource no_boards();

// Writes `path` atomically: the units as `units` visits them (in id order), boards streamed from
// `boards`. Polls `stop` while it writes: core::Interrupted leaves `path` as it was (the
// temporary file is removed).
void write_result_file(const std::string& path, const store::RunInfo& info, const UnitSource& units,
                       const BoardSource& boards, const core::StopFn& stop = {});

}  // namespace nq::app
