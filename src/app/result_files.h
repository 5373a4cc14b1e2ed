// Turning finished units into a result file, shared by `run` (from the journal) and `merge`
// (from shard files): totals and their cross-checks, and the streaming of boards.
#pragma once
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>
#include "app/unit_table.h"
#include "core/boards.h"
#include "core/known_counts.h"
#include "core/stop.h"
#include "store/journal.h"
#include "store/result_file.h"

namespace nq::app {

// The root attributes of an existing file; ExitError(kRefused) if the path holds something that
// is not an nqueens result file (we never overwrite what we did not write), its message ending in
// `elsewhere`, how the command writes somewhere else.
store::RunInfo read_result_info(const std::string& path, const std::string& elsewhere = "choose another --out");

// OUT as `run` and `merge` write it: where OUT is a symbolic link, the file it names (followed to
// the end, a link to a file not made yet too), so that the result replaces the link's target and
// the journal and its lock are beside it: a run through the link and one through the target are
// the same job. Until session 46 the link was replaced by a regular file, the journal lay beside
// the link, and the two runs did not exclude each other. Other paths are returned unchanged.
std::string result_path(const std::string& out);

// Removes the temporary files that a run or a merge of OUT left when it was killed (kill -9, a
// node's crash) while writing, naming each on stderr: `OUT.tmp-<pid>-<k>`, the result file
// (store::write_atomically), and `OUT.journal.tmp-<pid>`, a new journal's header
// (store::Journal::create_file). Call it only while holding OUT's journal (its lock), which every
// run and merge of OUT holds while it writes: so none of those files is still being written.
void remove_stale_temp_files(const std::string& out);

// Fills units_done, total (exact in 128 bits; overflow is an IntegrityError), the published
// values and, for a whole complete job, P, R, unique (Burnside; IntegrityError if the identity
// fails) and matches_known. A shard or a partial run gets unique = 0 and matches_known =
// "unknown". The Burnside search (seconds from N = 24 on) polls `stop` (core::Interrupted).
void finalize_totals(store::RunInfo& info, const UnitSource& units, bool whole_job, const core::StopFn& stop = {});

// A complete whole job's counts said again from themselves, as a file may be edited after it was
// written: `burnside` says why its unique count does not follow from total, P and R (empty if it
// does), and `matches` is the published table's verdict on its total and unique now. A shard or a
// partial file: nothing to say (empty, and the file's matches_known). `info` shows them; a run
// with --skip-complete takes a result as done only where they agree.
struct CountsNow {
  std::string burnside;
  core::KnownMatch matches = core::KnownMatch::unknown;
};
CountsNow counts_now(const store::RunInfo& info);

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

// The stored boards of a result file (its /boards rows in file order, in pieces), checked unit by
// unit as the master checks a worker's result (core::check_unit_boards), the inverse of
// journal_board_source: each unit's rows together, and its only rows; in all mode each
// completion followed by its images, made again and compared; in class mode its canonical boards
// with their class sizes. `units`: the file's unit records. add() and finish() throw
// BoardsNotStoredRight naming the unit and what is wrong. Memory: the records (~100 bytes a
// unit) and one unit's completions (all) or boards (class), as the master holds a result.
class BoardsNotStoredRight : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class StoredBoardsCheck {
 public:
  // `piece`: all mode checks a unit's rows this many completions at a time (tests: a few).
  StoredBoardsCheck(const core::UnitPlan& plan, core::BoardSet set, std::vector<store::UnitRecord> units,
                    std::size_t piece = kImagePiece);
  void add(std::span<const std::uint8_t> boards, std::span<const std::uint8_t> class_sizes,
           std::span<const std::uint64_t> ids);
  // After the last piece: in all mode every unit with solutions had its rows.
  void finish();

 private:
  void begin_unit(std::uint64_t id);
  void end_unit();
  void check_pending();
  core::WorkUnit work_unit() const;

  const core::UnitPlan& plan_;
  core::BoardSet set_;
  std::vector<store::UnitRecord> units_;
  std::unordered_map<std::uint64_t, std::size_t> at_;   // id -> its place in units_
  std::vector<bool> seen_;                               // by place in units_
  const store::UnitRecord* unit_ = nullptr;   // the unit whose rows come now
  std::vector<core::Column> boards_;          // its completions (all) or boards (class)
  std::vector<std::uint8_t> sizes_;           // its class sizes (class)
  std::size_t piece_;
  std::size_t per_completion_ = 1;            // all: rows a completion stands for (it and its images)
  std::vector<core::Column> pending_;         // all: its rows not checked yet (< kImagePiece completions)
  std::vector<core::Column> completions_, images_;   // all: those of the pending rows, made again
};

// Writes `path` atomically: the units as `units` visits them (in id order), boards streamed from
// `boards`. Polls `stop` while it writes: core::Interrupted leaves `path` as it was (the
// temporary file is removed).
void write_result_file(const std::string& path, const store::RunInfo& info, const UnitSource& units,
                       const BoardSource& boards, const core::StopFn& stop = {});

}  // namespace nq::app
