// Signal handling of `nqueens run`: the master turns SIGTERM, SIGUSR1 (Slurm's warning) and
// SIGINT into a stop request (checkpoint, partial file, exit 75); workers ignore SIGTERM and
// SIGUSR1 and wait for the master's stop message instead. The flag is a lock-free atomic, set by
// the handler and read from any thread; the long loops of prepare and finish poll it through
// the predicates below (core/stop.h).
#pragma once
#include "core/stop.h"

namespace nq::app {

void install_master_signals();
void install_worker_signals();
// A reader of a run's output that is gone (a pipe into `tee` or `head` that ended, a lost login
// session's pipe) must not kill the job: with SIGPIPE ignored its writes fail (EPIPE) instead, a
// lost stdout is exit 4 at the end, and the job computes and writes its result file all the same.
void ignore_lost_readers();
bool stop_signal_received();
int stop_signal();         // the last signal number received, 0 if none
int stop_signal_count();   // stop signals received so far

// true once any stop signal arrived (before or after the call).
core::StopFn stop_on_signal();
// true once a stop signal arrives after the call: for the result file written because of an
// earlier signal, which a second one abandons, unless it comes within kSameStopSeconds of that
// signal: the same stop, sent twice (at a time limit Slurm sends the step SIGTERM and the batch
// script forwards its own; the second used to abandon the partial file every time).
inline constexpr int kSameStopSeconds = 10;
core::StopFn stop_on_new_signal();

}  // namespace nq::app
