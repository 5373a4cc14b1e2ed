// Entry point of `nqueens`: parses the command line, runs one subcommand, maps every error to
// one line on stderr and a documented exit code (app/exit_codes.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include "app/commands.h"
#include "app/exit_codes.h"
#include "core/symmetry.h"
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
  } catch (const nq::core::IntegrityError& e) {
    std::cerr << "nqueens: integrity check failed: " << e.what() << "\n";
    return kVerifyFailed;
  } catch (const std::exception& e) {
    std::cerr << "nqueens: internal error: " << e.what() << "\n";
    return kInternal;
  }
}
