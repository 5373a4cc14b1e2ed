#include "app/exit_codes.h"
#include <exception>
#include <iostream>
#include "core/stop.h"
#include "core/symmetry.h"
#include "proto/messages.h"
#include "store/errors.h"

namespace nq::app {

int report_current_exception(const std::string& where) {
  const std::string error = "nqueens: error: " + where;
  try {
    throw;
  } catch (const ExitError& e) {
    std::cerr << (e.code() == kInterrupted ? "nqueens: " + where : error) << e.what() << "\n";
    return e.code();
  } catch (const nq::core::Interrupted& e) {
    std::cerr << "nqueens: " << where << e.what() << "\n";
    return kInterrupted;
  } catch (const nq::store::NotAResultFile& e) {
    std::cerr << error << e.what() << "\n";
    return kBadInput;
  } catch (const nq::store::CorruptJournal& e) {
    std::cerr << error << e.what()
              << "\n(the journal is damaged before its last record: move it away to recompute those units)\n";
    return kBadInput;
  } catch (const nq::store::WriteError& e) {
    std::cerr << error << e.what() << "\n";
    return kIoError;
  } catch (const nq::store::ParameterMismatch& e) {
    std::cerr << error << e.what()
              << "\n(the existing journal belongs to a run with other parameters: rerun with those, or pass --force to start over)\n";
    return kRefused;
  } catch (const nq::store::JournalInUse& e) {
    std::cerr << error << e.what()
              << "\n(another run of this job is writing its result file: let it finish, or give this run another --out;"
                 " if none runs, a file server still holds the lock of a node that died, until its lease ends:"
                 " rerun with --lock-wait SECONDS)\n";
    return kRefused;
  } catch (const nq::proto::ProtocolError& e) {
    std::cerr << error << e.what() << "\n";
    return kInternal;
  } catch (const nq::core::IntegrityError& e) {
    std::cerr << "nqueens: integrity check failed: " << where << e.what() << "\n";
    return kVerifyFailed;
  } catch (const std::exception& e) {
    std::cerr << "nqueens: internal error: " << where << e.what() << "\n";
    return kInternal;
  } catch (...) {
    std::cerr << "nqueens: internal error: " << where << "an exception of unknown type\n";
    return kInternal;
  }
}

}  // namespace nq::app
