// `nqueens run`: the distributed job on every rank. Rank 0 prepares the output (refusing to
// overwrite a complete result, resuming from the journal), runs the master, journals every
// checked batch, and writes the HDF5 result file (complete, or partial on a stop signal).
#pragma once
#include <cstdint>
#include <functional>
#include "app/job_config.h"
#include "cluster/runtime.h"

namespace nq::app {

// How a run ended, on every rank: the process exit code (app/exit_codes.h) and, on rank 0, the
// units this run journaled (not those a resume found done; 0 on the other ranks). abort_job: some
// ranks did not answer the stop, so the caller must end the job with MpiSession::abort(code)
// (MPI_Finalize would wait for them for ever) once it has recorded the end.
struct RunEnd {
  int code = 0;
  std::uint64_t units_finished = 0;
  bool abort_job = false;
};

// `run --dry-run`: checks the configuration, OUT as it stands and the plan's limits as a run
// does, within the job's memory as Slurm's variables give it (not this machine's cgroup: the job
// is planned on another machine; without them, the 16 GiB cap), counts the plan's units and
// prints what the run needs (print_run_needs), then what it finds at OUT: nothing, a result the
// run resumes or replaces (--force), or this job's complete result (--skip-complete: nothing to
// do), and a journal it resumes. Starts no MPI and touches no file; under a launcher the caller
// runs it on the first rank only (cluster::launched_rank), which reads the job. Returns the exit code;
// throws ExitError as a run would (kRefused for a complete OUT without --force or
// --skip-complete).
int dry_run(JobConfig config);

// `job` makes the job's configuration; rank 0 alone calls it (the workers take the job from it),
// and an error it throws is reported once, by rank 0, which ends the job on every rank. An
// exception that escapes leaves the job's ranks out of step: the caller must end the job
// (MpiSession::abort).
RunEnd run_job(const std::function<JobConfig()>& job, const cluster::MpiSession& mpi);

}  // namespace nq::app
