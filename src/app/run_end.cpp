#include "app/run_end.h"
#include "app/result_files.h"
#include "core/symmetry.h"

namespace nq::app {

Totals decide_totals(store::RunInfo& info, const UnitSource& units, std::uint64_t units_in_shard, bool stop_requested,
                     const core::StopFn& stop) {
  bool complete = units.count == units_in_shard && !stop_requested;
  Totals t;
  try {
    try {
      finalize_totals(info, units, complete && info.params.shard.whole(), stop);
    } catch (const core::Interrupted&) {
      complete = false;   // stopped during the search: a partial file, as for any stop
      finalize_totals(info, units, false);
    }
  } catch (const core::IntegrityError& e) {
    t.integrity_ok = false;
    t.integrity_error = e.what();
  }
  info.status = complete ? store::Status::complete : store::Status::partial;
  return t;
}

bool can_write_result(const core::JobParams& params, bool journal_failed, bool complete, bool over_complete) {
  return !(journal_failed && params.boards_mode()) && (complete || !over_complete);
}

Ending decide_ending(const RunFacts& f) {
  if (f.file == FileWrite::interrupted) return Ending::write_interrupted;
  if (f.journal_failed || f.file == FileWrite::failed) return Ending::io_error;
  if (f.rank_failed) return Ending::rank_failed;
  if (f.verify_failed) return Ending::verify_failed;
  if (!f.complete) return Ending::interrupted;
  if (!f.integrity_ok || f.matches_known == core::KnownMatch::mismatch) return Ending::wrong_count;
  return Ending::ok;
}

ExitCode exit_code(Ending e) {
  switch (e) {
    case Ending::write_interrupted:
    case Ending::interrupted: return kInterrupted;
    case Ending::io_error: return kIoError;
    case Ending::rank_failed: return kRankFailed;
    case Ending::verify_failed:
    case Ending::wrong_count: return kVerifyFailed;
    case Ending::ok: return kOk;
  }
  return kInternal;
}

}  // namespace nq::app
