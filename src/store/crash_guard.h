// A crash of the HDF5 library while a ResultReader reads a file, taken for a damaged file.
// libhdf5 1.10 (Debian 12) can crash (SIGSEGV) on a damaged object header instead of reporting it:
// found by flipping bytes of a result file's root attribute messages (inside H5Aexists: `check`
// crashed, exit 139 with Open MPI's backtrace, where `info` on the same file got an error).
#pragma once
#include <string>

namespace nq::store {

// The exit code of such a crash: app::kBadInput's value (a damaged file; docs/contract.md).
inline constexpr int kDamagedFileExit = 3;

// While one exists (in any thread), SIGSEGV and SIGBUS end the process with one line on stderr,
// "nqueens: error: store::read: PATH: the HDF5 library crashed reading it: ...", and
// kDamagedFileExit. Nested and concurrent guards share the handler (the line names the latest
// path); the process's own handlers (Open MPI's) are back once the last one ends.
class CrashIsDamage {
 public:
  explicit CrashIsDamage(const std::string& path);
  ~CrashIsDamage();
  CrashIsDamage(const CrashIsDamage&) = delete;
  CrashIsDamage& operator=(const CrashIsDamage&) = delete;
};

}  // namespace nq::store
