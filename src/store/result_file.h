// HDF5 result files (format `nqueens-result` v2; v1 files are read too; schema in the README's
// "Result file (HDF5)" section): written by the app at
// the end of a run or on interrupt, read by `info`, `merge` and resume. An object is used by one
// thread at a time; distinct objects may live in different threads (Debian's libhdf5 is thread-safe).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include "core/job_params.h"
#include "core/known_counts.h"
#include "core/total.h"
#include "store/errors.h"
#include "store/unit_record.h"

namespace nq::store {

enum class Status : std::uint8_t { partial = 0, complete = 1 };   // every unit of the job (shard) is in

}  // namespace nq::store

template <>
struct nq::core::EnumNames<nq::store::Status> {
  static constexpr std::string_view what = "status";
  static constexpr std::array table{std::pair{nq::store::Status::partial, std::string_view("partial")},
                                    std::pair{nq::store::Status::complete, std::string_view("complete")}};
};

namespace nq::store {

// Every root attribute of the result file, same names and meanings as docs/contract.md.
// (`format` and `format_version` are written and checked by the store itself.)
struct RunInfo {
  std::string program_version, git_commit;
  core::JobParams params;   // attributes n, mode, boards_stored, depth, symmetry, shard_index, shard_count
  int ranks = 1, threads = 1;
  std::string hosts, start_time, end_time;
  double wall_seconds = 0;
  Status status = Status::partial;
  std::uint64_t units_total = 0, units_done = 0;
  // total and unique are exact (128 bits): in the file each is a uint64 attribute (2^64 - 1
  // when the value does not fit) plus <name>_hi, <name>_lo (uint64 halves) and <name>_decimal.
  core::Total total = 0, unique = 0;
  std::uint64_t rot180_fixed = 0, rot90_fixed = 0;
  std::int64_t known_total = -1, known_unique = -1;
  core::KnownMatch matches_known = core::KnownMatch::unknown;   // yes|no|unknown in the file

  bool operator==(const RunInfo&) const = default;
};

// Writes PATH atomically: everything goes to a temporary file `PATH.tmp-<pid>-<k>` in the same
// directory (created exclusively); commit() writes the attributes, flushes, closes, fsyncs and
// renames it over PATH (then fsyncs the directory). The destructor of an uncommitted writer
// removes the temporary file. An existing PATH is untouched until the rename (a symlink at PATH
// is replaced, not followed). Units and boards are buffered and written in whole chunks, so
// memory stays bounded (a few MB: one chunk per dataset) whatever the number of boards.
// HDF5 file locking is left at the library default (on); on NFS/Lustre set
// HDF5_USE_FILE_LOCKING=FALSE in the environment.
// Errors: WriteError for anything the file system refuses (after which the writer is dead:
// further calls throw WriteError, the destructor cleans up); std::invalid_argument /
// std::logic_error for caller bugs (bad sizes, ids out of order, commit twice, a RunInfo that
// contradicts the units written).
class ResultWriter {
 public:
  // The file of a job with `params` (n in 1..32; count mode: no /boards group).
  ResultWriter(const std::string& path, const core::JobParams& params);
  ~ResultWriter();
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;

  // Appends rows to /units. Ids must increase strictly across all calls.
  void append_units(std::span<const UnitRecord> units);
  // Appends k boards: `boards` holds k*n columns, `unit_ids` k ids, `class_sizes` k sizes when
  // boards_stored is class and is empty otherwise. Not allowed when boards_stored is none.
  void append_boards(std::span<const std::uint8_t> boards, std::span<const std::uint8_t> class_sizes,
                     std::span<const std::uint64_t> unit_ids);
  // Checks `info` against what was written (params as given to the constructor, units_done = rows of
  // /units, total = sum of multiplicity * solutions: std::invalid_argument naming the field),
  // writes the attributes and publishes the file at PATH. Called at most once. The board counts
  // of the contract are not checked here (see boards_written / class_size_sum).
  void commit(const RunInfo& info);

  const std::string& path() const;
  std::uint64_t units_written() const;
  std::uint64_t boards_written() const;    // S so far
  std::uint64_t class_size_sum() const;    // sum of class_size so far (class mode)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads a result file (complete or partial), format version 1 (64-bit totals only) or 2. While it
// is in the HDF5 library, a crash of the library ends the process as a damaged file (CrashIsDamage).
// Throws NotAResultFile for a missing, unreadable, foreign (no `format` = nqueens-result),
// unsupported-version, truncated or damaged file (including 128-bit total attributes that
// disagree with each other, and a checksum (fletcher32) failure while reading boards).
class ResultReader {
 public:
  explicit ResultReader(const std::string& path);
  ~ResultReader();
  ResultReader(const ResultReader&) = delete;
  ResultReader& operator=(const ResultReader&) = delete;

  const RunInfo& info() const;
  std::vector<UnitRecord> units() const;   // all of /units, in file (= id) order
  std::uint64_t unit_count() const;        // rows of /units
  // Rows [start, start+count) of /units into `out` (resized). std::out_of_range past unit_count().
  void read_units(std::uint64_t start, std::uint64_t count, std::vector<UnitRecord>& out) const;
  // Calls f with each row of /units in file order, reading kUnitSlice rows at a time (memory
  // stays small whatever the file holds).
  static constexpr std::uint64_t kUnitSlice = 1 << 16;
  void for_each_unit(const std::function<void(const UnitRecord&)>& f) const;
  std::uint64_t board_count() const;       // rows of /boards/solutions; 0 in count mode
  // Boards [start, start+count): boards gets count*n columns, unit_ids count ids, class_sizes
  // count sizes in class mode (cleared otherwise). std::out_of_range past board_count().
  void read_boards(std::uint64_t start, std::uint64_t count, std::vector<std::uint8_t>& boards,
                   std::vector<std::uint8_t>& class_sizes, std::vector<std::uint64_t>& unit_ids) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nq::store
