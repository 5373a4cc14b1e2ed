// Process exit codes of `nqueens` (documented in docs/usage.md).
#pragma once
#include <stdexcept>
#include <string>

namespace nq::app {

enum ExitCode : int {
  kOk = 0,
  kInternal = 1,       // a bug: please report
  kUsage = 2,          // bad arguments or job file
  kBadInput = 3,       // not an nqueens file, unreadable, corrupt journal
  kIoError = 4,        // cannot write the output (disk full, permission, path is a directory)
  kRefused = 5,        // resume with other parameters, or would overwrite a complete result
  kVerifyFailed = 6,   // a count contradicts the published table or an integrity check
  kRankFailed = 7,     // a rank failed or stopped answering: the job was ended, finished units kept
  kInterrupted = 75,   // SIGTERM/SIGUSR1: partial file written, rerun the same command
};

// An error that ends the command with a documented exit code (not h5::Failure, the store's
// read/write kind); what() is the one line shown to the user.
class ExitError : public std::runtime_error {
 public:
  ExitError(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Inside a catch block: the current exception's exit code and what report_current_exception
// prints for it.
struct Reported {
  int code = kOk;
  std::string text;   // whole lines
};
Reported describe_current_exception(const std::string& where = {});

// Inside a catch block: prints the current exception as one line on stderr ("nqueens: error:
// <where><what>", plus a hint for some kinds) and returns its exit code.
int report_current_exception(const std::string& where = {});

// Flushes stdout and returns the command's exit code, unless what it wrote there was lost (a
// full disk, a closed stdout, a reader gone while SIGPIPE is ignored): then one line on stderr
// (once: the stream's error is cleared), and exit 4 instead of 0. Every command used to exit 0
// with its output gone. run_command_line calls it last; rank 0 of several calls it before the
// MPI session ends too: once a rank has left with a non-zero code, mpirun kills the others, and
// output still in stdout's buffer would be lost.
int checked_stdout(int code);

// For commands that write as they go: whether every write to stdout so far succeeded. At the
// first failure one of them sees, it keeps errno, the failed write's reason, which later calls
// lose (stdio drops the unwritten buffer), for checked_stdout to say. Not thread-safe: callers
// that write from several threads call it under their lock. flush_stdout flushes first.
bool stdout_good();
bool flush_stdout();

}  // namespace nq::app
