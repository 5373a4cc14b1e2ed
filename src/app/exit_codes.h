// Process exit codes of `nqueens` (documented in README.md and docs/contract.md).
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
  kInterrupted = 75,   // SIGTERM/SIGUSR1: partial file written, rerun the same command
};

// A failure that maps to an exit code; what() is the one line shown to the user.
class Failure : public std::runtime_error {
 public:
  Failure(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

}  // namespace nq::app
