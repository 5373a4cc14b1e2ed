// The command line of `nqueens`: the subcommands, their checks, and parsing plus running one
// of them with every error mapped to one line on stderr and a documented exit code
// (app/exit_codes.h). main.cpp only calls run_command_line.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string_view>
#include "app/commands.h"
#include "app/exit_codes.h"
#include "buildinfo/git_commit.h"
#include "cluster/runtime.h"
#include "core/kernel.h"
#include "core/types.h"
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

CLI::Validator number(const std::string& what) {
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        char* end = nullptr;
        (void)std::strtod(s.c_str(), &end);   // out of range is still a number: the range check names the range
        return !s.empty() && end == s.c_str() + s.size() ? std::string() : what + " must be a number, got '" + s + "'";
      },
      "NUMBER");
}

CLI::Validator board_size() { return whole_number("board size N", 1, nq::core::kMaxN); }

CLI::Validator file_path(const std::string& what) {
  return CLI::Validator([what](std::string& s) { return s.empty() ? what + " is empty: give a file path" : std::string(); },
                        "PATH");
}

namespace {
// CLI11 puts the option's name before its validator's message, which names it too
// ("--seed: --seed must be a whole number ..."): the message alone then.
std::string without_repeated_name(const std::string& message) {
  const std::size_t colon = message.find(": ");
  if (colon == std::string::npos || colon == 0) return message;
  const std::string rest = message.substr(colon + 2);
  return rest.find(message.substr(0, colon)) != std::string::npos ? rest : message;
}

// A usage error found while parsing: one line on stderr, exit 2. Under a launcher every rank
// parses the same arguments and fails alike, so rank 0 alone says it, before MPI_Finalize (whose
// fence keeps the other ranks from leaving first: mpirun ends the job once one rank has left with
// a non-zero code). Every rank used to say it, as many lines as ranks.
int usage_error(const std::string& message) {
  std::optional<cluster::MpiSession> mpi;
  try {
    if (cluster::launched_ranks() > 1) mpi.emplace(cluster::MpiSession::Ranks::peers);
  } catch (const std::exception&) {   // (MPI would not start: then each rank says it, as before)
  }
  if (!mpi || mpi->rank() == 0) std::cerr << "nqueens: error: " << message << "\n";
  return kUsage;
}
}  // namespace

int run_command_line(int argc, char** argv) {
  CLI::App cli{"nqueens: enumerate and count all solutions of the N-Queens puzzle"};
  // The second line names the kernel this CPU runs (`srun nqueens --version` on a compute node).
  cli.set_version_flag("--version", std::string("nqueens ") + nq::kProgramVersion + " (" +
                                        nq::kGitCommit + ")\nkernel " + nq::core::kernel_name() +
                                        " on this CPU");
  cli.require_subcommand(1);
  Runner run;
  add_solve_command(cli, run);
  add_count_command(cli, run);
  add_run_command(cli, run);
  add_info_command(cli, run);
  add_merge_command(cli, run);
  add_check_command(cli, run);
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App* sub : cli.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      return usage_error("unknown command '" + std::string(argv[1]) + "' (commands: " + names + "; see nqueens --help)");
    }
  }
  // The help and the version as any output: a stdout that cannot be written is exit 4 (they said
  // exit 0 into /dev/full). Checked at once, while errno still holds the reason of the write
  // that CLI11's flush made.
  const auto printed = [](int code) {
    stdout_good();
    return checked_stdout(code);
  };
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {   // the help once under a launcher, from its first rank
    return printed(cluster::launched_rank() == 0 ? cli.exit(e) : kOk);
  } catch (const CLI::CallForAllHelp& e) {
    return printed(cluster::launched_rank() == 0 ? cli.exit(e) : kOk);
  } catch (const CLI::CallForVersion& e) {   // every rank: each names its CPU's kernel (srun on mixed nodes)
    return printed(cli.exit(e));
  } catch (const CLI::ParseError& e) {
    // `count --n 10`: N is `run`'s --n, but these take it bare.
    const std::string command = argc > 1 ? argv[1] : "";
    const bool flag_n = std::any_of(argv + 1, argv + argc, [](const char* a) { return std::string_view(a) == "--n"; });
    if ((command == "count" || command == "solve") && flag_n)
      return usage_error(without_repeated_name(e.what()) + " (" + command + " takes N without --n: nqueens " + command +
                         " 10; see nqueens " + command + " --help)");
    // `count --bogus`: CLI11 misses N first, but the flag it does not know is what is wrong.
    if (dynamic_cast<const CLI::RequiredError*>(&e))
      for (const CLI::App* sub : cli.get_subcommands([&](CLI::App* a) { return a->get_name() == command; }))
        for (int i = 2; i < argc; ++i) {
          const std::string_view a = argv[i];
          if (a.size() < 2 || a[0] != '-' || (a[1] >= '0' && a[1] <= '9')) continue;   // a value, or a negative number
          const std::string name(a.substr(0, a.find('=')));
          if (name != "-h" && name != "--help" && !sub->get_option_no_throw(name))
            return usage_error("The following argument was not expected: " + name + " (see nqueens " + command + " --help)");
        }
    return usage_error(without_repeated_name(e.what()) + " (see nqueens --help)");
  }
  int code = kOk;
  try {
    code = run();
  } catch (...) {
    code = report_current_exception();
  }
  return checked_stdout(code);
}

}  // namespace nq::app
