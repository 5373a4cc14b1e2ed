// Entry point of `nqueens`: parses the command line, runs one subcommand, maps every error to
// one line on stderr and a documented exit code (app/exit_codes.h).
#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>
#include "app/commands.h"
#include "app/exit_codes.h"
#include "core/stop.h"
#include "core/symmetry.h"
#include "core/types.h"
#include "proto/messages.h"
#include "store/errors.h"
#include "core/version.h"

namespace nq::app {

CLI::Validator whole_number(const std::string& what, long long lo, long long hi) {
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        std::size_t used = 0;
        long long v = 0;
        try {
          v = std::stoll(s, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == s.size() && !s.empty() && v >= lo && v <= hi) return {};
        return what + " must be a whole number from " + std::to_string(lo) + " to " +
               std::to_string(hi) + ", got '" + s + "'";
      },
      "INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

CLI::Validator board_size() { return whole_number("board size N", 1, nq::core::kMaxN); }

}  // namespace nq::app

int main(int argc, char** argv) {
  using namespace nq::app;
  // Past a file-size limit (ulimit -f, a batch system's limit) write() must fail with EFBIG so
  // the store reports a WriteError (exit 4, journal kept); SIGXFSZ's default would kill us silently.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App cli{"nqueens: enumerate and count all solutions of the N-Queens puzzle"};
  cli.set_version_flag("--version", std::string("nqueens ") + nq::kProgramVersion + " (" +
                                        nq::kGitCommit + ")");
  cli.require_subcommand(1);
  Runner run;
  add_solve_command(cli, run);
  add_count_command(cli, run);
  add_run_command(cli, run);
  add_info_command(cli, run);
  add_merge_command(cli, run);
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App* sub : cli.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "nqueens: error: unknown command '" << argv[1] << "' (commands: " << names
                << "; see nqueens --help)\n";
      return kUsage;
    }
  }
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "nqueens: error: " << e.what() << " (see nqueens --help)\n";
    return kUsage;
  }
  try {
    return run();
  } catch (const Failure& e) {
    std::cerr << (e.code() == kInterrupted ? "nqueens: " : "nqueens: error: ") << e.what() << "\n";
    return e.code();
  } catch (const nq::core::Interrupted& e) {
    std::cerr << "nqueens: " << e.what() << "\n";
    return kInterrupted;
  } catch (const nq::store::NotAResultFile& e) {
    std::cerr << "nqueens: error: " << e.what() << "\n";
    return kBadInput;
  } catch (const nq::store::CorruptJournal& e) {
    std::cerr << "nqueens: error: " << e.what()
              << "\n(the journal is damaged before its last record: move it away to recompute those units)\n";
    return kBadInput;
  } catch (const nq::store::WriteError& e) {
    std::cerr << "nqueens: error: " << e.what() << "\n";
    return kIoError;
  } catch (const nq::store::ParameterMismatch& e) {
    std::cerr << "nqueens: error: " << e.what()
              << "\n(the existing journal belongs to a run with other parameters: rerun with those, or pass --force to start over)\n";
    return kRefused;
  } catch (const nq::proto::ProtocolError& e) {
    std::cerr << "nqueens: error: " << e.what() << "\n";
    return kInternal;
  } catch (const nq::core::IntegrityError& e) {
    std::cerr << "nqueens: integrity check failed: " << e.what() << "\n";
    return kVerifyFailed;
  } catch (const std::exception& e) {
    std::cerr << "nqueens: internal error: " << e.what() << "\n";
    return kInternal;
  }
}
