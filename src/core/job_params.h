// The parameters that define one job, and so its result: the same value in the job file and
// command line (app), the job message (proto), the journal key and the result file (store).
// Strings appear only where those are read and written (core/names.h has the one table of
// names). Plain values, no I/O.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>
#include "core/boards.h"
#include "core/names.h"
#include "core/units.h"

namespace nq::core {

enum class Mode : std::uint8_t { count = 0, boards = 1 };
template <>
struct EnumNames<Mode> {
  static constexpr std::string_view what = "mode";
  static constexpr std::array table{std::pair{Mode::count, std::string_view("count")},
                                    std::pair{Mode::boards, std::string_view("boards")}};
};

// Shard `index` of `count` holds the units with id % count == index.
struct Shard {
  int index = 0;
  int count = 1;

  bool contains(std::uint64_t id) const { return id % static_cast<std::uint64_t>(count) == static_cast<std::uint64_t>(index); }
  // The units of a plan of `units_total` units that fall in this shard.
  std::uint64_t size(std::uint64_t units_total) const;
  bool whole() const { return count == 1; }
  bool operator==(const Shard&) const = default;
};
// "i/n" with 0 <= i < n; std::invalid_argument otherwise.
Shard parse_shard(std::string_view s);
std::string to_string(const Shard& s);   // "i/n"

struct JobParams {
  int n = 0;                             // board size, 1..kMaxN
  Mode mode = Mode::count;               // count: totals only; boards: every solution stored
  BoardSet boards = BoardSet::all;       // boards mode: which boards; always `all` in count mode
  int depth = 0;                         // rows pre-placed per unit; 0 = not chosen yet
  Symmetry symmetry = Symmetry::full;    // the work-unit reduction (see core/units.h)
  Shard shard;

  bool boards_mode() const { return mode == Mode::boards; }
  bool class_boards() const { return boards_mode() && boards == BoardSet::classes; }
  bool operator==(const JobParams&) const = default;
};

// What a result file and a journal call the boards they hold: "none" in count mode, else the
// board set's name ("all" or "class").
std::string boards_stored(const JobParams& p);
// The inverse, where files are read: sets p.boards from `boards_stored`, given p.mode.
// std::invalid_argument for a name that is not none/all/class or does not go with p.mode.
void set_boards_stored(JobParams& p, std::string_view boards_stored);

// Every parameter that differs between a and b, by its name in the files, with both values
// as text (e.g. {"depth", "2", "3"}), in the order of the file format.
struct ParamDifference {
  std::string name, a, b;
};
std::vector<ParamDifference> differences(const JobParams& a, const JobParams& b);
// The differences as one phrase, each value said where it is: with "in the journal" and "now",
// "depth is 2 in the journal, 3 now; boards_stored is 'class' in the journal, 'all' now"
// (names quoted, numbers not). Every message naming differing parameters says them this way.
std::string describe(const std::vector<ParamDifference>& diffs, std::string_view where_a, std::string_view where_b);

}  // namespace nq::core
