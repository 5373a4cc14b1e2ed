// Entry point of `nqueens`: parses the command line, runs one subcommand, maps every error to
// one line on stderr and a documented exit code (app/exit_codes.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include "app/commands.h"
#include "app/exit_codes.h"
#include "core/symmetry.h"
#include "proto/messages.h"
#include "store/errors.h"
#include "core/version.h"

int main(int argc, char** argv) {
  using namespace nq::app;
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
    std::cerr << "nqueens: error: " << e.what() << "\n";
    return e.code();
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
