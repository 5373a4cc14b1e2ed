// The bench programs' command-line ending (nq_bench, nq_engines): CLI11 parses, `--help` prints
// the help and ends with 0, a bad option ends with 2 after one line naming the program.
#pragma once
#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>

namespace nq::bench {

// Parses argv into `app`'s options: nullopt to go on, or the exit code to end with.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << app.get_name() << ": " << e.what() << " (see " << app.get_name() << " --help)\n";
    return 2;
  }
  return std::nullopt;
}

}  // namespace nq::bench
