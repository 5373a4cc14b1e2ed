#include <gtest/gtest.h>
#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>
#include "core/boards.h"
#include "core/known_counts.h"
#include "support/brute_force.h"
#include "support/searches.h"

using namespace nq::core;

TEST(Boards, AllModeVisitsEverySolutionOnceWithItsClassSize) {
  for (int n = 1; n <= 10; ++n) {
    std::set<Board> got;
    Count visits = 0;
    visit_plan_boards(UnitPlan(n, std::min(n, 2)), BoardSet::all, [&](BoardView b, int size) {
      EXPECT_TRUE(is_solution(b));
      EXPECT_EQ(size, class_size(b));
      got.emplace(b.begin(), b.end());
      ++visits;
    });
    const auto expected = nq::test::brute_force_solutions(n);
    EXPECT_EQ(visits, expected.size()) << n;   // distinct: no board visited twice
    EXPECT_EQ(got, std::set<Board>(expected.begin(), expected.end())) << n;
  }
}

TEST(Boards, ClassModeVisitsOneCanonicalBoardPerClassAndSizesAddUp) {
  for (int n = 1; n <= 12; ++n) {
    std::set<Board> reps;
    Count size_sum = 0;
    visit_plan_boards(UnitPlan(n, std::min(n, 3)), BoardSet::classes, [&](BoardView b, int size) {
      EXPECT_EQ(Board(b.begin(), b.end()), canonical(b));
      EXPECT_TRUE(reps.emplace(b.begin(), b.end()).second);
      size_sum += static_cast<Count>(size);
    });
    EXPECT_EQ(reps.size(), known_counts(n)->unique) << n;
    EXPECT_EQ(size_sum, known_counts(n)->total) << n;
  }
}

TEST(Boards, OrderIsDeterministic) {
  std::vector<Board> a, b;
  visit_plan_boards(UnitPlan(8, 2), BoardSet::all, [&](BoardView x, int) { a.emplace_back(x.begin(), x.end()); });
  visit_plan_boards(UnitPlan(8, 2), BoardSet::all, [&](BoardView x, int) { b.emplace_back(x.begin(), x.end()); });
  EXPECT_EQ(a, b);
}

TEST(Boards, FullSymmetryPlansGiveEverySolutionOnceAndEveryClassOnce) {
  for (int n = 1; n <= 10; ++n) {
    std::set<Board> got;
    Count visits = 0;
    visit_plan_boards(UnitPlan(n, 1, Symmetry::full), BoardSet::all, [&](BoardView b, int size) {
      EXPECT_EQ(size, class_size(b));
      got.emplace(b.begin(), b.end());
      ++visits;
    });
    const auto expected = nq::test::brute_force_solutions(n);
    EXPECT_EQ(visits, expected.size()) << n;
    EXPECT_EQ(got, std::set<Board>(expected.begin(), expected.end())) << n;
  }
  for (int n = 1; n <= 12; ++n) {
    std::set<Board> reps;
    Count size_sum = 0;
    visit_plan_boards(UnitPlan(n, std::min(n, 2), Symmetry::full), BoardSet::classes,
                      [&](BoardView b, int size) {
                        EXPECT_EQ(Board(b.begin(), b.end()), canonical(b));
                        EXPECT_TRUE(reps.emplace(b.begin(), b.end()).second);
                        size_sum += static_cast<Count>(size);
                      });
    EXPECT_EQ(reps.size(), known_counts(n)->unique) << n;
    EXPECT_EQ(size_sum, known_counts(n)->total) << n;
  }
}

namespace {

// Every unit of the plans the boards tests walk: small boards, every scheme, shallow and deep.
std::vector<UnitPlan> generator_plans() {
  std::vector<UnitPlan> plans;
  for (int n = 1; n <= 13; ++n)
    for (Symmetry sym : {Symmetry::none, Symmetry::mirror, Symmetry::full})
      for (int depth : {1, 2, 4})
        if (depth <= n) plans.emplace_back(n, depth, sym);
  return plans;
}

// The boards of a unit as the visitor of UnitPlan::visit_boards gives them, and in class mode
// the reference selection: canonical of each completion group, kept if in the group, in
// buckets by the smallest symmetry number k of the group's images that gives it (a stable sort
// by k: the completions' order within a bucket). Returns the number of buckets used.
int reference_unit_boards(const UnitPlan& plan, const WorkUnit& u, BoardSet set, Board& boards,
                           std::vector<std::uint8_t>& sizes) {
  const auto n = static_cast<std::size_t>(plan.n());
  const UnitPlan::Images im = plan.image_symmetries(u);
  std::vector<Board> group;
  std::vector<std::pair<int, Board>> selected;
  plan.visit_boards(u, [&](BoardView b) {
    if (set == BoardSet::all) {
      boards.insert(boards.end(), b.begin(), b.end());
      return true;
    }
    group.emplace_back(b.begin(), b.end());
    if (group.size() < u.multiplicity) return true;
    const Board c = canonical(group[0]);
    int k = kSymmetries;
    for (int i = 0; i < im.count; ++i)
      if (group[static_cast<std::size_t>(i)] == c) k = std::min(k, im.symmetries[static_cast<std::size_t>(i)]);
    if (k < kSymmetries) selected.emplace_back(k, c);
    group.clear();
    return true;
  });
  std::ranges::stable_sort(selected, {}, &std::pair<int, Board>::first);
  int buckets = 0;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const Board& c = selected[i].second;
    boards.insert(boards.end(), c.begin(), c.end());
    sizes.push_back(static_cast<std::uint8_t>(class_size(c)));
    buckets += i == 0 || selected[i].first != selected[i - 1].first;
  }
  EXPECT_EQ(boards.size() % std::max<std::size_t>(n, 1), 0u);
  return buckets;
}

}  // namespace

TEST(BoardGenerator, VectorTraversalGivesTheScalarVisitsBoardsInOrderWithItsStats) {
  Board scalar, vector;
  std::size_t units = 0, multi_batch = 0;
  for (const UnitPlan& plan : generator_plans()) {
    for (const WorkUnit& u : plan.units()) {
      const RowSearch s = plan.checked_search(u);
      scalar.clear();
      const SearchStats want = visit_completions(s, [&](BoardView b) {
        scalar.insert(scalar.end(), b.begin(), b.end());
        return true;
      });
      for (std::size_t batch : {std::size_t{1}, std::size_t{7}, kSeedBatch}) {
        vector.clear();
        const auto got = append_completions_vector(s, vector, batch);
        if (!got) GTEST_SKIP() << "no AVX-512 or AVX2 on this CPU: the vector traversal is not used";
        ASSERT_EQ(vector, scalar) << plan.n() << " unit " << u.id << " batch " << batch;
        EXPECT_EQ(got->solutions, want.solutions);
        EXPECT_EQ(got->nodes, want.nodes) << plan.n() << " unit " << u.id;
      }
      ++units;
      multi_batch += s.levels > 9;   // frontier below level 1: several batches of 1 or 7 nodes
    }
  }
  EXPECT_GT(units, 1000u);
  EXPECT_GT(multi_batch, 100u);
}

TEST(BoardGenerator, VectorTraversalMatchesTheScalarOneWhereTheLookaheadWraps) {
  const auto s = nq::test::wrapping_lookahead_search();   // 32 levels: support/searches.h
  ASSERT_TRUE(s);
  Board scalar, vector;
  const SearchStats want = visit_completions(*s, [&](BoardView b) {
    scalar.assign(b.begin(), b.end());
    return true;
  });
  ASSERT_EQ(want.solutions, 1u);
  for (std::size_t batch : {std::size_t{1}, std::size_t{7}, kSeedBatch}) {
    vector.clear();
    const auto got = append_completions_vector(*s, vector, batch);
    if (!got) GTEST_SKIP() << "no AVX-512 or AVX2 on this CPU: the vector traversal is not used";
    EXPECT_EQ(vector, scalar) << "batch " << batch;
    EXPECT_EQ(got->solutions, want.solutions) << "batch " << batch;
    EXPECT_EQ(got->nodes, want.nodes) << "batch " << batch;
  }
}

TEST(BoardGenerator, CompletionsMatchCountingOnALargeUnit) {
  // N = 16, one queen in row 0: ~10^6 completions through several batches of kSeedBatch nodes.
  const UnitPlan plan(16, 1, Symmetry::none);
  const WorkUnit u = plan.units()[3];
  const RowSearch s = plan.checked_search(u);
  Board boards;
  const SearchStats st = append_completions(s, boards);
  const SearchStats counted = count_completions(s);
  EXPECT_EQ(st.solutions, counted.solutions);
  EXPECT_EQ(st.nodes, counted.nodes);
  ASSERT_EQ(boards.size(), st.solutions * 16);
  for (std::size_t j = 0; j < boards.size(); j += 16) {
    const BoardView b(boards.data() + j, 16);
    ASSERT_TRUE(is_solution(b));
    ASSERT_EQ(b[0], 3);
    if (j) {
      ASSERT_TRUE(std::ranges::lexicographical_compare(BoardView(boards.data() + j - 16, 16), b));
    }
  }
}

TEST(BoardGenerator, UnitBoardsAreTheVisitorsBoardsAndTheReferenceClassSelection) {
  int mixed = 0;   // class-mode units whose boards come from more than one symmetry
  for (const UnitPlan& plan : generator_plans()) {
    for (BoardSet set : {BoardSet::all, BoardSet::classes}) {
      for (const WorkUnit& u : plan.units()) {
        Board want, got;
        std::vector<std::uint8_t> want_sizes, got_sizes;
        const int buckets = reference_unit_boards(plan, u, set, want, want_sizes);
        mixed += set == BoardSet::classes && buckets > 1;
        const SearchStats st = append_unit_boards(plan, u, set, got, got_sizes);
        ASSERT_EQ(got, want) << plan.n() << " " << to_string(plan.symmetry()) << " depth "
                             << plan.depth() << " unit " << u.id << " " << to_string(set);
        EXPECT_EQ(got_sizes, want_sizes);
        EXPECT_EQ(st.solutions, plan.count(u).solutions);
        EXPECT_EQ(st.nodes, plan.count(u).nodes);
        // What a worker sends: the master accepts it and, in all mode, makes the same boards of it.
        Board sent, stored;
        std::vector<std::uint8_t> sent_sizes;
        const SearchStats sent_st = append_unit_results(plan, u, set, sent, sent_sizes);
        EXPECT_EQ(sent_st.solutions, st.solutions);
        EXPECT_EQ(sent_st.nodes, st.nodes);
        EXPECT_EQ(sent_sizes, got_sizes);
        EXPECT_EQ(check_unit_boards(plan, u, set, st.solutions, sent, sent_sizes), std::nullopt)
            << plan.n() << " " << to_string(plan.symmetry()) << " unit " << u.id;
        if (set == BoardSet::all) {
          ASSERT_EQ(sent.size(), st.solutions * static_cast<std::size_t>(plan.n()));   // completions only
          append_unit_images(plan, u, sent, stored);
        } else {
          stored = sent;
        }
        EXPECT_EQ(stored, want);
      }
    }
  }
  EXPECT_GT(mixed, 0);   // the buckets' order is exercised
}

TEST(BoardGenerator, ClassModeSkipsNoClassAtSixteen) {
  // N = 16 under the full plan: one board per class, 1,846,955 of them, sizes adding to the total.
  const UnitPlan plan(16, 1, Symmetry::full);
  Board boards;
  std::vector<std::uint8_t> sizes;
  Count total = 0;
  for (const WorkUnit& u : plan.units()) total += u.multiplicity * append_unit_boards(plan, u, BoardSet::classes, boards, sizes).solutions;
  EXPECT_EQ(total, known_counts(16)->total);
  ASSERT_EQ(sizes.size(), known_counts(16)->unique);
  ASSERT_EQ(boards.size(), sizes.size() * 16);
  Count size_sum = 0;
  for (auto z : sizes) size_sum += z;
  EXPECT_EQ(size_sum, known_counts(16)->total);
  std::vector<std::array<Column, 16>> rows(sizes.size());
  std::memcpy(rows.data(), boards.data(), boards.size());
  std::ranges::sort(rows);
  EXPECT_EQ(std::ranges::adjacent_find(rows), rows.end());   // distinct
  for (std::size_t j = 0; j < boards.size(); j += 16 * 997) {   // a sample: canonical solutions
    const BoardView b(boards.data() + j, 16);
    EXPECT_TRUE(is_solution(b));
    EXPECT_TRUE(is_canonical(b));
  }
}

namespace {

struct UnitBoards {
  WorkUnit unit;
  std::uint64_t solutions = 0;
  Board boards;
  std::vector<std::uint8_t> sizes;
};
UnitBoards unit_boards(const UnitPlan& plan, const WorkUnit& u, BoardSet set) {
  UnitBoards r;
  r.unit = u;
  r.solutions = append_unit_results(plan, u, set, r.boards, r.sizes).solutions;
  return r;
}
// The units of the plan whose results hold at least `min_boards` boards under `set`.
std::vector<UnitBoards> units_with(const UnitPlan& plan, BoardSet set, std::size_t min_boards) {
  std::vector<UnitBoards> out;
  for (const WorkUnit& u : plan.units())
    if (auto r = unit_boards(plan, u, set); r.boards.size() >= min_boards * static_cast<std::size_t>(plan.n()))
      out.push_back(std::move(r));
  return out;
}
bool says(const std::string& refusal, const std::string& what) { return refusal.find(what) != std::string::npos; }
std::string refusal(const UnitPlan& plan, BoardSet set, const UnitBoards& r) {
  return check_unit_boards(plan, r.unit, set, r.solutions, r.boards, r.sizes).value_or("accepted");
}
// Board j of r (n columns).
std::span<Column> board(UnitBoards& r, std::size_t j, int n) {
  return std::span<Column>(r.boards).subspan(j * static_cast<std::size_t>(n), static_cast<std::size_t>(n));
}
void swap_boards(UnitBoards& r, std::size_t a, std::size_t b, int n) { std::ranges::swap_ranges(board(r, a, n), board(r, b, n)); }

}  // namespace

TEST(BoardCheck, AllModeRefusesRepeatsReorderingsAndForeignBoards) {
  // All mode: a worker sends a unit's completions; the master makes their images itself.
  for (const UnitPlan& plan : {UnitPlan(10, 1, Symmetry::full), UnitPlan(9, 2, Symmetry::mirror), UnitPlan(8, 2, Symmetry::none)}) {
    const int n = plan.n();
    const auto units = units_with(plan, BoardSet::all, 1);
    ASSERT_GE(units.size(), 2u);
    std::size_t pairs_tested = 0;
    for (const UnitBoards& honest : units) {
      ASSERT_EQ(refusal(plan, BoardSet::all, honest), "accepted");
      UnitBoards r = honest;
      ++r.solutions;   // the count and the boards disagree
      EXPECT_PRED2(says, refusal(plan, BoardSet::all, r), "solutions but sends");
      r = honest;   // the images too, as the journal of version 1 held them: too many boards
      if (honest.unit.multiplicity > 1) {
        r.boards.clear();
        append_unit_images(plan, r.unit, honest.boards, r.boards);
        EXPECT_PRED2(says, refusal(plan, BoardSet::all, r), "solutions but sends");
      }
      r = honest;
      board(r, 0, n)[0] = board(r, 0, n)[1];   // two queens in one column
      EXPECT_PRED2(says, refusal(plan, BoardSet::all, r), "is not a solution");
      if (honest.solutions >= 2) {
        ++pairs_tested;
        r = honest;   // the second completion first
        swap_boards(r, 0, 1, n);
        EXPECT_PRED2(says, refusal(plan, BoardSet::all, r), "lexicographic order");
        r = honest;   // the first completion twice: a repeat
        std::ranges::copy(board(r, 0, n), board(r, 1, n).begin());
        EXPECT_PRED2(says, refusal(plan, BoardSet::all, r), "lexicographic order");
      }
      if (honest.unit.multiplicity > 1) {   // an image in place of the completion: not this unit's row
        r = honest;
        const UnitPlan::Images im = plan.image_symmetries(r.unit);
        const Board image = transform(board(r, 0, n), im.symmetries[1]);
        if (!std::ranges::equal(image, board(r, 0, n))) {
          std::ranges::copy(image, board(r, 0, n).begin());
          EXPECT_NE(refusal(plan, BoardSet::all, r), "accepted");
        }
      }
    }
    EXPECT_GT(pairs_tested, 0u);
    // Another unit's completion, claimed by this unit: a board of the plan counted twice.
    UnitBoards r = units[0];
    const UnitBoards& other = units[1];
    r.solutions = 1;
    r.boards.assign(other.boards.begin(), other.boards.begin() + n);
    EXPECT_PRED2(says, refusal(plan, BoardSet::all, r), "is not a completion of the unit");
  }
}

TEST(BoardCheck, ClassModeRefusesRepeatsNonCanonicalBoardsWrongSizesAndForeignBoards) {
  for (const UnitPlan& plan : {UnitPlan(12, 1, Symmetry::full), UnitPlan(10, 2, Symmetry::mirror), UnitPlan(9, 2, Symmetry::none)}) {
    const int n = plan.n();
    const auto units = units_with(plan, BoardSet::classes, 2);
    ASSERT_GE(units.size(), 2u);
    for (const UnitBoards& honest : units) {
      ASSERT_EQ(refusal(plan, BoardSet::classes, honest), "accepted");
      UnitBoards r = honest;
      r.sizes.pop_back();
      EXPECT_PRED2(says, refusal(plan, BoardSet::classes, r), "class sizes");
      r = honest;
      swap_boards(r, 0, 1, n);
      std::swap(r.sizes[0], r.sizes[1]);
      EXPECT_PRED2(says, refusal(plan, BoardSet::classes, r), "order of their symmetries and completions");
      r = honest;
      std::ranges::copy(board(r, 0, n), board(r, 1, n).begin());
      r.sizes[1] = r.sizes[0];
      EXPECT_PRED2(says, refusal(plan, BoardSet::classes, r), "order of their symmetries and completions");
      r = honest;
      r.sizes[0] = static_cast<std::uint8_t>(r.sizes[0] == 8 ? 4 : 8);
      EXPECT_PRED2(says, refusal(plan, BoardSet::classes, r), "has class size");
      // An image of the canonical board instead of the board itself (same class, same unit).
      r = honest;
      r.boards.resize(static_cast<std::size_t>(n));
      r.sizes.resize(1);
      for (int k = 1; k < kSymmetries; ++k) {
        const Board img = transform(board(r, 0, n), k);
        if (img != Board(board(r, 0, n).begin(), board(r, 0, n).end())) {
          std::ranges::copy(img, board(r, 0, n).begin());
          break;
        }
      }
      EXPECT_PRED2(says, refusal(plan, BoardSet::classes, r), "is not the canonical image of a completion of the unit");
    }
    // Another unit's canonical board claimed by this unit: a class stored twice.
    std::size_t foreign = 0;
    for (std::size_t a = 0; a < units.size(); ++a)
      for (std::size_t b = 0; b < units.size() && foreign < 20; ++b) {
        if (a == b) continue;
        UnitBoards r = units[a];
        r.boards.assign(units[b].boards.begin(), units[b].boards.begin() + n);
        r.sizes.assign(1, units[b].sizes[0]);
        EXPECT_PRED2(says, refusal(plan, BoardSet::classes, r), "is not the canonical image of a completion of the unit");
        ++foreign;
      }
    EXPECT_GT(foreign, 0u);
  }
}

TEST(BoardCheck, IsCanonicalAgreesWithTheSmallestImageOnEveryPermutation) {
  for (int n = 1; n <= 7; ++n) {   // every permutation (solutions or not): the side shortcut is exact
    Board b(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) b[static_cast<std::size_t>(i)] = static_cast<Column>(i);
    do {
      ASSERT_EQ(is_canonical(b), canonical(b) == b) << to_columns(b);
    } while (std::ranges::next_permutation(b).found);
  }
}
