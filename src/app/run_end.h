// How a run ends, decided without I/O (MasterSession::finish in run_job.cpp gathers the facts,
// writes the result file and prints the report; this decides): the status and totals of the
// result file, and the exit code. Pure functions, unit-tested in tests/unit/app.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "app/exit_codes.h"
#include "app/unit_table.h"
#include "core/stop.h"
#include "store/result_file.h"

namespace nq::app {

// The verdict on the finished units (decide_totals).
struct Totals {
  bool integrity_ok = true;       // no 128-bit overflow, the Burnside identity holds
  std::string integrity_error;    // why not
};

// Sets info's status, units_done, total, published values and, for a whole job whose every unit
// is done, P, R, unique (the Burnside search polls `stop`) and matches_known. `complete` means
// every unit of the shard is done and no stop signal came (a stop ends the job even then: the
// Burnside search alone takes minutes at large N). A stop during the search leaves a partial
// result, as for any stop.
Totals decide_totals(store::RunInfo& info, const UnitSource& units, std::uint64_t units_in_shard, bool stop_requested,
                     const core::StopFn& stop = {});

// Whether the result file is written, its status `complete` or not: after a journal write
// failure the boards cannot be streamed from the journal, so in boards mode there is no partial
// file then; and a partial result never replaces a complete one (`over_complete`: --force, and OUT
// held a complete result as the run began). That one stays until this run's is complete, and
// the journal keeps the finished units, from which the same command resumes.
bool can_write_result(const core::JobParams& params, bool journal_failed, bool complete, bool over_complete);

enum class FileWrite : std::uint8_t { written, skipped, failed, interrupted };

// What happened, for decide_ending.
struct RunFacts {
  FileWrite file = FileWrite::written;
  bool journal_failed = false;   // a journal write failed during the run
  bool rank_failed = false;      // a rank failed or stopped answering (JobOutcome::rank_failure)
  bool verify_failed = false;    // the results could not be trusted (JobOutcome::failure)
  bool complete = false;         // status complete
  bool integrity_ok = true;
  core::KnownMatch matches_known = core::KnownMatch::unknown;
};

// The ways a run ends, in the order they are checked (the first that applies wins).
enum class Ending : std::uint8_t {
  write_interrupted,   // a stop signal during the result file write: the file is as it was
  io_error,            // the journal or the result file could not be written
  rank_failed,
  verify_failed,       // results that failed the checks and could not be recomputed
  interrupted,         // stopped by a signal: partial result, rerun to resume
  wrong_count,         // complete, but the totals contradict the published table or Burnside
  ok,
};
Ending decide_ending(const RunFacts& f);
// The documented exit code of each ending (app/exit_codes.h).
ExitCode exit_code(Ending e);
// Whether the journal is deleted: the result file holds every unit.
inline bool result_is_final(Ending e) { return e == Ending::ok || e == Ending::wrong_count; }

}  // namespace nq::app
