#include "app/exit_codes.h"
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <sstream>
#include <utility>
#include "core/stop.h"
#include "core/symmetry.h"
#include "proto/messages.h"
#include "store/errors.h"
#include "store/crash_guard.h"

namespace nq::app {

// A reader's HDF5 crash ends the process with the exit code of a damaged file (docs/contract.md).
static_assert(store::kDamagedFileExit == kBadInput);

Reported describe_current_exception(const std::string& where) {
  std::ostringstream out;
  const std::string error = "nqueens: error: " + where;
  try {
    throw;
  } catch (const ExitError& e) {
    out << (e.code() == kInterrupted ? "nqueens: " + where : error) << e.what() << "\n";
    return {e.code(), out.str()};
  } catch (const nq::core::Interrupted& e) {
    out << "nqueens: " << where << e.what() << "\n";
    return {kInterrupted, out.str()};
  } catch (const nq::store::NotAResultFile& e) {
    out << error << e.what() << "\n";
    return {kBadInput, out.str()};
  } catch (const nq::store::CorruptJournal& e) {   // (its text says what to do)
    out << error << e.what() << "\n";
    return {kBadInput, out.str()};
  } catch (const nq::store::WriteError& e) {
    out << error << e.what() << "\n";
    return {kIoError, out.str()};
  } catch (const nq::store::ParameterMismatch& e) {
    out << error << e.what()
        << "\n(the existing journal belongs to a run with other parameters: rerun with those, or pass --force to start over)\n";
    return {kRefused, out.str()};
  } catch (const nq::store::JournalInUse& e) {
    out << error << e.what()
        << "\n(another run, or a merge, is writing this result file: let it finish, or give this run another --out;"
           " if none runs, a file server still holds the lock of a node that died, until its lease ends:"
           " rerun with --lock-wait SECONDS)\n";
    return {kRefused, out.str()};
  } catch (const nq::proto::ProtocolError& e) {
    out << error << e.what() << "\n";
    return {kInternal, out.str()};
  } catch (const nq::core::IntegrityError& e) {
    out << "nqueens: integrity check failed: " << where << e.what() << "\n";
    return {kVerifyFailed, out.str()};
  } catch (const std::exception& e) {
    out << "nqueens: internal error: " << where << e.what() << "\n";
    return {kInternal, out.str()};
  } catch (...) {
    out << "nqueens: internal error: " << where << "an exception of unknown type\n";
    return {kInternal, out.str()};
  }
}

namespace {
int stdout_errno = 0;   // the reason of the first failed write to stdout that stdout_good saw
}  // namespace

bool stdout_good() {
  if (std::cout.good() && !std::ferror(stdout)) return true;
  if (stdout_errno == 0) stdout_errno = errno;
  return false;
}

bool flush_stdout() {
  std::cout.flush();
  return stdout_good();
}

int checked_stdout(int code) {
  errno = 0;
  std::cout.flush();     // through stdio (synced): it flushes stdout, and its failure sets errno
  std::fflush(stdout);   // a failure sets stdout's error flag too
  if (stdout_good()) return code;   // else it kept the first failure's reason: an earlier write's, or this flush's
  const int err = std::exchange(stdout_errno, 0);
  std::cerr << "nqueens: error: cannot write the output to stdout"
            << (err ? std::string(": ") + std::strerror(err) : std::string()) << "\n";
  std::clearerr(stdout);   // said: a later call does not say it again
  std::cout.clear();
  return code == kOk ? kIoError : code;
}

int report_current_exception(const std::string& where) {
  const Reported r = describe_current_exception(where);
  std::cerr << r.text;
  return r.code;
}

}  // namespace nq::app
