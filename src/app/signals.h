// Signal handling of `nqueens run`: the master turns SIGTERM, SIGUSR1 (Slurm's warning) and
// SIGINT into a stop request (checkpoint, partial file, exit 75); workers ignore SIGTERM and
// SIGUSR1 and wait for the master's stop message instead.
#pragma once

namespace nq::app {

void install_master_signals();
void install_worker_signals();
bool stop_signal_received();
int stop_signal();   // the signal number received, 0 if none

}  // namespace nq::app
