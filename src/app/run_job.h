// `nqueens run`: the distributed job on every rank. Rank 0 prepares the output (refusing to
// overwrite a complete result, resuming from the journal), runs the master, journals every
// checked batch, and writes the HDF5 result file (complete, or partial on a stop signal).
#pragma once
#include "app/job_config.h"
#include "cluster/runtime.h"

namespace nq::app {

// Returns the process exit code (app/exit_codes.h) on every rank. An exception that escapes
// leaves the job's ranks out of step: the caller must end the job (MpiSession::abort).
int run_job(JobConfig config, const cluster::MpiSession& mpi);

}  // namespace nq::app
