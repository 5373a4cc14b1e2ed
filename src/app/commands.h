// The subcommands of `nqueens`: each registers its options on the CLI and returns the
// function that runs it (called after parsing). Errors are thrown as app::ExitError.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace nq::app {

using Runner = std::function<int()>;

// Checks a whole number in [lo, hi]: "board size must be a whole number from 1 to 32, got 'abc'".
CLI::Validator whole_number(const std::string& what, long long lo, long long hi);
// Checks that the text is a number; its range is finalize_config's (one rule for flags and job files,
// and CLI11's own range message printed DBL_MAX in full).
CLI::Validator number(const std::string& what);
// The board size N, 1..32.
CLI::Validator board_size();
// A path that is not empty (an empty one, e.g. from an unset shell variable, fell back to the
// default result file or ended in a confusing I/O error).
CLI::Validator file_path(const std::string& what);

void add_solve_command(CLI::App& cli, Runner& run);
void add_count_command(CLI::App& cli, Runner& run);
void add_run_command(CLI::App& cli, Runner& run);
void add_info_command(CLI::App& cli, Runner& run);
void add_merge_command(CLI::App& cli, Runner& run);
void add_check_command(CLI::App& cli, Runner& run);

// Parses the command line, runs one subcommand and returns the process exit code; every error
// becomes one line on stderr ("nqueens: error: ...") and its documented code.
int run_command_line(int argc, char** argv);

}  // namespace nq::app
