// The restart journal: an append-only file holding one record per finished work unit (with its
// boards in boards mode), so a run killed at any point resumes without redoing finished units.
// Used by the master (app) only; a Journal object is used by one thread at a time.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>
#include "core/job_params.h"
#include "core/stop.h"
#include "store/errors.h"
#include "store/unit_record.h"

namespace nq::store {

// The job parameters a journal belongs to; resuming with any other value is refused.
struct JournalKey {
  core::JobParams params;
  std::uint64_t units_total = 0;
  std::string program_version;

  bool operator==(const JournalKey&) const = default;
};

// File layout (all integers little-endian; crc32 = CRC-32/ISO-HDLC as zlib, boost::crc_32_type):
//
//   header                                   record (repeated to the end of the file)
//   | off  | size | field                |   | off | size | field                          |
//   |------|------|----------------------|   |-----|------|--------------------------------|
//   | 0    | 8    | "NQJOURNL"           |   | 0   | 4    | magic 0x4E514A52               |
//   | 8    | 4    | version u32 = 2      |   | 4   | 4    | payload length P u32           |
//   | 12   | 4    | key length K u32     |   | 8   | P    | payload                        |
//   | 16   | K    | key                  |   | 8+P | 4    | crc32 of the payload           |
//   | 16+K | 4    | crc32 of bytes 8..16+K |
//
//   key                                      payload
//   | off | size | field                 |   | off | size | field                           |
//   |-----|------|-----------------------|   |-----|------|---------------------------------|
//   | 0   | 4    | n i32                 |   | 0   | 8    | id u64                          |
//   | 4   | 4    | depth i32             |   | 8   | 32   | placement (0xFF = empty row)    |
//   | 8   | 4    | shard_index i32       |   | 40  | 4    | multiplicity u32                |
//   | 12  | 4    | shard_count i32       |   | 44  | 8    | solutions u64                   |
//   | 16  | 8    | units_total u64       |   | 52  | 8    | nodes u64                       |
//   | 24  | ...  | mode, boards_stored,  |   | 60  | 8    | seconds f64                     |
//   |     |      | symmetry,             |   | 68  | 8    | started f64                     |
//   |     |      | program_version: each |   | 76  | 4    | rank i32                        |
//   |     |      | u16 length + bytes    |   | 80  | 4    | thread i32                      |
//   |     |      | (names: core/names.h) |   |     |      |                                 |
//                                            | 84  | 4    | k = boards u32                  |
//                                            | 88  | 4    | c = class sizes u32 (0 or k)    |
//                                            | 92  | k*n  | boards, n columns each          |
//                                            | ... | c    | class sizes                     |
// Invariants:
//   1. The header is written to a temporary file and linked into place: it is never torn, and
//      it never replaces a journal that another run created first.
//   2. Records are only appended; after open() the file ends with a complete, valid record
//      (a torn tail is truncated), so appends never follow garbage.
//   3. P == 92 + k*n + c; c == k in class mode, else 0; k == 0 when boards_stored is none.
//   4. The boards are the unit's result as sent (core::append_unit_results): in all mode its
//      completions, which the result file stores with their images; version 1 held the images
//      too, and is refused (ParameterMismatch: resume it with the nqueens that wrote it).
class Journal {
 public:
  using RecordFn = std::function<void(const UnitRecord&, std::span<const std::uint8_t> boards,
                                      std::span<const std::uint8_t> class_sizes)>;
  using RecoveredFn = std::function<void(const UnitRecord&)>;

  // resume: keep the records found (a journal of another job is ParameterMismatch);
  // resume_or_discard (--force): keep them where the header is `key`'s, else start over,
  // removing the journal (another job's, another version's, or not a journal at all) once its
  // lock is taken (never one that a running job holds).
  enum class Open { resume, resume_or_discard };

  // Opens PATH for appending (taking an exclusive flock), creating it with `key` if missing.
  // An existing journal's key must equal `key`, else ParameterMismatch naming every differing
  // field with both values, or a journal of an earlier version. Records are scanned: a torn tail (truncated or garbled last record)
  // is cut off (the file is truncated) and reported by dropped_tail_bytes(); a bad record
  // followed by a valid one -> CorruptJournal naming its byte offset; not a journal at all ->
  // CorruptJournal. JournalInUse if another process holds it (another run of the same job);
  // WriteError if the file cannot be created/written. std::invalid_argument for a key with n
  // outside 1..32. The scan polls `stop` (core::Interrupted; nothing is changed then).
  // `on_recovered`, if given, is called with each valid record as the scan finds it (file order,
  // boards not loaded), and recovered() stays empty: a caller that keeps the records its own way
  // never holds them twice (88 bytes a record). An exception from it ends the constructor.
  Journal(const std::string& path, const JournalKey& key, const core::StopFn& stop = {}, Open open = Open::resume,
          const RecoveredFn& on_recovered = {});
  ~Journal();   // flushes the buffer (best effort, no fsync)
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Whether something is at PATH, where a journal would be: false if nothing; true for a regular
  // file (or a symlink to one); WriteError for a directory, a FIFO, a socket or a device, which a
  // run never reads as a journal nor removes. The constructor's first check; `run --dry-run`'s.
  static bool exists_at(const std::string& path);
  // Reads the header of the journal at PATH, taking no lock and changing nothing, and throws as
  // the constructor would for it and `key` (ParameterMismatch, CorruptJournal): `run --dry-run`
  // says so before a job is queued.
  static void check_key(const std::string& path, const JournalKey& key);
  // Whether Open::resume_or_discard would keep the journal at PATH: its header is `key`'s.
  // Takes no lock and changes nothing (`run --dry-run`).
  static bool is_of(const std::string& path, const JournalKey& key);
  // Hands each valid record of the journal at PATH to `on_record`, in file order, up to its end
  // or its first bad record, after checking the header as check_key does. A bad record that valid
  // records follow throws CorruptJournal, as a resume would; a torn tail ends the walk (a resume
  // cuts it off). Takes no lock and changes nothing: a run may be appending to it meanwhile (what
  // it appends after the scan's start is not seen). Polls `stop`. `run --dry-run` sums the nodes
  // a resume would skip with it.
  static void read_records(const std::string& path, const JournalKey& key, const RecoveredFn& on_record,
                           const core::StopFn& stop = {});
  // Throws JournalInUse, as the constructor would, where another process holds the journal at
  // PATH (a run of its job under way): `run --dry-run` says so before a job is queued. It takes a
  // shared lock for an instant and lets it go (a run opening the journal in that instant finds it
  // in use, as it would during another's dry run; --lock-wait rides it out); no lock is kept and
  // nothing changes. Nothing is thrown where there is no journal or no flock.
  static void check_not_in_use(const std::string& path);

  const std::string& path() const { return path_; }
  // Unit records found on open, in file order (boards not loaded); empty if on_recovered took them.
  const std::vector<UnitRecord>& recovered() const { return recovered_; }
  std::uint64_t recovered_count() const { return recovered_count_; }   // however they were taken
  std::uint64_t dropped_tail_bytes() const { return dropped_tail_bytes_; }

  // Buffered append of one unit: `boards` holds k*n columns (empty in count mode), class_sizes k
  // sizes in class mode (empty otherwise). WriteError if a buffer flush fails; after any
  // WriteError the journal refuses further appends (reopen it: the torn tail is cut off then).
  void append(const UnitRecord& u, std::span<const std::uint8_t> boards,
              std::span<const std::uint8_t> class_sizes);
  // Writes the buffer to the file, without fdatasync: after it returns, every appended record
  // survives the end of this process (kill -9, the OOM killer), not yet a crash of the machine.
  // WriteError on ENOSPC/EFBIG/EIO etc.
  void write_out();
  // Writes the buffer and fdatasyncs: after it returns, every appended record survives a crash.
  // WriteError as write_out.
  void sync();
  // Calls f for every record (recovered and appended), in file order, one record in memory at
  // a time. Flushes the buffer first (WriteError). CorruptJournal if the file changed under us.
  void for_each_record(const RecordFn& f) const;
  // Deletes the file (once a complete result was committed). The object is unusable afterwards.
  void remove();

 private:
  static constexpr int kOpenAttempts = 8;   // a journal removed or replaced while opened: try again
  void open_locked(Open open);
  // Writes the header to PATH.tmp-<pid> and links it to PATH; false: another run's journal was
  // there first. A kill in between leaves the temporary file (app::run_job removes it later).
  bool create_file(const JournalKey& key);
  void read_header(const JournalKey& key);
  void scan(const core::StopFn& stop, const RecoveredFn& on_recovered);
  void put(const std::uint8_t* data, std::size_t size) const;
  void flush() const;
  void check_usable() const;

  std::string path_;
  JournalKey key_;
  int fd_ = -1;
  std::uint64_t data_start_ = 0;   // first record
  mutable std::uint64_t file_end_ = 0;   // bytes in the file (the buffer not included)
  mutable std::vector<std::uint8_t> buffer_;
  mutable bool failed_ = false;
  bool removed_ = false;
  std::vector<UnitRecord> recovered_;
  std::uint64_t recovered_count_ = 0;
  std::uint64_t dropped_tail_bytes_ = 0;
};

}  // namespace nq::store
