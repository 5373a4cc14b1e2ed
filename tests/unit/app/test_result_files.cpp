// The check of stored boards (app/result_files.h, StoredBoardsCheck): a plan's boards as a run
// stores them pass, in pieces of any size; each way a file's boards can differ from them is
// named with its unit.
#include <gtest/gtest.h>
#include <algorithm>
#include <functional>
#include <string>
#include "app/result_files.h"
#include "app_test_util.h"
#include "core/boards.h"

using namespace nq;

namespace {

constexpr int kN = 10;

// The /boards rows of a whole run of N = 10 (full symmetry, depth 2) under `set`, unit by unit
// as the master stores them, with the unit of each row.
struct Stored {
  std::vector<core::Column> boards;
  std::vector<std::uint8_t> sizes;
  std::vector<std::uint64_t> ids;
  std::vector<store::UnitRecord> units;
};

Stored stored(core::BoardSet set) {
  const core::JobParams p = app::test::count_job(kN, 2, core::Symmetry::full);
  const core::UnitPlan plan(p.n, p.depth, p.symmetry);
  Stored s;
  s.units = app::test::finished_units(p);
  for (const auto& u : plan.units()) {
    const std::size_t before = s.boards.size() / kN;
    core::append_unit_boards(plan, u, set, s.boards, s.sizes);
    s.ids.insert(s.ids.end(), s.boards.size() / kN - before, u.id);
  }
  return s;
}

// The check's message for `s` fed in pieces of `rows` rows, or "" when it passes.
std::string check(const Stored& s, core::BoardSet set, std::size_t rows = 7, std::size_t piece = 3) {
  const core::UnitPlan plan(kN, 2, core::Symmetry::full);
  app::StoredBoardsCheck c(plan, set, s.units, piece);
  try {
    for (std::size_t at = 0; at < s.ids.size(); at += rows) {
      const std::size_t k = std::min(rows, s.ids.size() - at);
      c.add(std::span(s.boards).subspan(at * kN, k * kN),
            set == core::BoardSet::classes ? std::span<const std::uint8_t>(s.sizes).subspan(at, k)
                                           : std::span<const std::uint8_t>{},
            std::span(s.ids).subspan(at, k));
    }
    c.finish();
  } catch (const app::BoardsNotStoredRight& e) {
    return e.what();
  }
  return "";
}

// The first row of the unit whose rows are the most (so it has several completions).
std::size_t biggest_unit_start(const Stored& s) {
  std::size_t best = 0, best_len = 0;
  for (std::size_t i = 0; i < s.ids.size();) {
    std::size_t j = i;
    while (j < s.ids.size() && s.ids[j] == s.ids[i]) ++j;
    if (j - i > best_len) best = i, best_len = j - i;
    i = j;
  }
  return best;
}

void erase_rows(Stored& s, std::size_t from, std::size_t to) {
  s.boards.erase(s.boards.begin() + static_cast<std::ptrdiff_t>(from * kN), s.boards.begin() + static_cast<std::ptrdiff_t>(to * kN));
  s.ids.erase(s.ids.begin() + static_cast<std::ptrdiff_t>(from), s.ids.begin() + static_cast<std::ptrdiff_t>(to));
  if (!s.sizes.empty()) s.sizes.erase(s.sizes.begin() + static_cast<std::ptrdiff_t>(from), s.sizes.begin() + static_cast<std::ptrdiff_t>(to));
}

}  // namespace

TEST(StoredBoardsCheck, ARunsBoardsPassInPiecesOfAnySize) {
  for (const auto set : {core::BoardSet::all, core::BoardSet::classes}) {
    const Stored s = stored(set);
    ASSERT_EQ(s.ids.size(), set == core::BoardSet::all ? 724u : 92u);
    for (const std::size_t rows : {1, 7, 64, 100000})
      for (const std::size_t piece : {1, 3, 1000}) EXPECT_EQ(check(s, set, rows, piece), "") << rows << " " << piece;
  }
}

TEST(StoredBoardsCheck, EachWayTheBoardsDifferIsNamedWithItsUnit) {
  const auto all = core::BoardSet::all;
  const Stored good = stored(all);
  const std::size_t at = biggest_unit_start(good);
  const std::string unit = "unit " + std::to_string(good.ids[at]);
  const auto expect = [&](const std::function<void(Stored&)>& edit, const std::string& said) {
    Stored s = good;
    edit(s);
    const std::string what = check(s, all);
    EXPECT_NE(what.find(said), std::string::npos) << what << " (expected: " << said << ")";
  };
  // an image replaced by its completion
  expect([&](Stored& s) { std::copy_n(s.boards.begin() + at * kN, kN, s.boards.begin() + (at + 1) * kN); },
         unit + ": its board 1 is not the image of its completion that the file's order puts there");
  // two completions with their images swapped: out of order
  const core::UnitPlan plan(kN, 2, core::Symmetry::full);
  const auto m = [&] {
    const auto& r = *std::find_if(good.units.begin(), good.units.end(), [&](const auto& u) { return u.id == good.ids[at]; });
    return static_cast<std::size_t>(plan.image_symmetries({r.id, r.multiplicity, r.placement}).count);
  }();
  expect([&](Stored& s) { std::swap_ranges(s.boards.begin() + at * kN, s.boards.begin() + (at + m) * kN, s.boards.begin() + (at + m) * kN); },
         unit + ": ");
  // the last image of a unit gone
  expect([&](Stored& s) {
    std::size_t end = at;
    while (end < s.ids.size() && s.ids[end] == s.ids[at]) ++end;
    erase_rows(s, end - 1, end);
  }, unit + ": its rows are not whole completions with their " + std::to_string(m - 1) + " images each");
  // a whole completion gone: fewer than the unit's solutions
  expect([&](Stored& s) { erase_rows(s, at, at + m); }, unit + ": ");
  // every row of the unit gone
  expect([&](Stored& s) {
    std::size_t end = at;
    while (end < s.ids.size() && s.ids[end] == s.ids[at]) ++end;
    erase_rows(s, at, end);
  }, unit + ": ");
  // its rows split in two places: the first part is short of the unit's solutions
  expect([&](Stored& s) {
    std::size_t end = at;
    while (end < s.ids.size() && s.ids[end] == s.ids[at]) ++end;
    std::rotate(s.boards.begin() + (at + m) * kN, s.boards.begin() + end * kN, s.boards.end());
    std::rotate(s.ids.begin() + static_cast<std::ptrdiff_t>(at + m), s.ids.begin() + static_cast<std::ptrdiff_t>(end), s.ids.end());
  }, unit + ": reports ");
  // its rows twice
  expect([&](Stored& s) {
    std::size_t end = at;
    while (end < s.ids.size() && s.ids[end] == s.ids[at]) ++end;
    s.boards.insert(s.boards.end(), good.boards.begin() + at * kN, good.boards.begin() + end * kN);
    s.ids.insert(s.ids.end(), good.ids.begin() + static_cast<std::ptrdiff_t>(at), good.ids.begin() + static_cast<std::ptrdiff_t>(end));
  }, "the boards of " + unit + " are not stored together");
  // rows of a unit the file does not hold
  expect([&](Stored& s) { s.ids[at] = 1'000'000; }, "boards of unit 1000000, which the file does not hold");
}

TEST(StoredBoardsCheck, AClassSizeOrABoardChangedIsNamed) {
  const auto classes = core::BoardSet::classes;
  Stored s = stored(classes);
  s.sizes[5] = s.sizes[5] == 8 ? 4 : 8;
  EXPECT_NE(check(s, classes).find("unit " + std::to_string(s.ids[5]) + ": "), std::string::npos);
  s = stored(classes);
  std::swap(s.boards[5 * kN], s.boards[5 * kN + 1]);
  EXPECT_NE(check(s, classes).find("unit " + std::to_string(s.ids[5]) + ": "), std::string::npos);
}
