// Entry point of `nqueens`: everything else is the nq_app library (app/commands.h).
#include <csignal>
#include "app/commands.h"
#include "app/stderr_lines.h"

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f, a batch system's limit) write() must fail with EFBIG so
  // the store reports a WriteError (exit 4, journal kept); SIGXFSZ's default would kill us silently.
  std::signal(SIGXFSZ, SIG_IGN);
  // Each stderr line in one write: under mpirun no launcher text lands inside a message.
  const nq::app::StderrLines lines;
  return nq::app::run_command_line(argc, argv);
}
