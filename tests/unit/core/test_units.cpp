#include <gtest/gtest.h>
#include <bit>
#include <set>
#include "core/kernel.h"
#include "core/known_counts.h"
#include "core/units.h"
#include "support/brute_force.h"

using namespace nq::core;

namespace {
Count weighted_total(const UnitPlan& plan) {
  Count total = 0;
  for (const auto& u : plan.units()) total += u.multiplicity * plan.count(u).solutions;
  return total;
}
}  // namespace

TEST(Units, WeightedSumEqualsTotalForEveryDepthAndSymmetry) {
  for (int n = 1; n <= 12; ++n)
    for (int depth = 1; depth <= std::min(n, 5); ++depth)
      for (Symmetry s : {Symmetry::none, Symmetry::mirror})
        EXPECT_EQ(weighted_total(UnitPlan(n, depth, s)), known_counts(n)->total)
            << "n=" << n << " depth=" << depth << " symmetry=" << to_string(s);
}

TEST(Units, TotalsUpToSixteenEqualPublishedTable) {
  for (int n = 13; n <= 16; ++n)
    EXPECT_EQ(weighted_total(UnitPlan(n, 3)), known_counts(n)->total) << n;
}

TEST(Units, IdsAreStableConsecutiveAndPrefixesDistinct) {
  const UnitPlan plan(11, 3);
  const auto a = plan.units(), b = plan.units();
  ASSERT_EQ(a.size(), plan.size());
  std::set<std::array<Column, kMaxN>> seen;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, i);
    EXPECT_EQ(a[i].placement, b[i].placement);
    EXPECT_TRUE(seen.insert(a[i].placement).second);
    EXPECT_EQ(plan.multiplicity_of(a[i].placement), a[i].multiplicity);
  }
}

TEST(Units, MirrorHalvesTheUnitsAndOddMiddleColumnIsHandled) {
  EXPECT_EQ(UnitPlan(8, 1, Symmetry::mirror).size(), 4u);
  EXPECT_EQ(UnitPlan(8, 1, Symmetry::none).size(), 8u);
  const auto odd = UnitPlan(9, 1).units();   // columns 0..4, the middle one counted once
  ASSERT_EQ(odd.size(), 5u);
  EXPECT_EQ(odd[4].multiplicity, 1u);
  EXPECT_EQ(odd[0].multiplicity, 2u);
}

TEST(Units, BoardsOfAllUnitsAreExactlyTheSolutions) {
  for (int n : {5, 6, 8, 9}) {
    for (Symmetry s : {Symmetry::none, Symmetry::mirror}) {
      const UnitPlan plan(n, 2, s);
      std::multiset<Board> got;
      for (const auto& u : plan.units()) {
        Count boards = 0;
        const auto st = plan.visit_boards(u, [&](BoardView b) {
          got.emplace(b.begin(), b.end());
          ++boards;
          return true;
        });
        EXPECT_EQ(boards, u.multiplicity * st.solutions);
      }
      const auto expected = nq::test::brute_force_solutions(n);
      EXPECT_EQ(got, std::multiset<Board>(expected.begin(), expected.end())) << n;
    }
  }
}

TEST(Units, ForeignUnitsAreRejected) {
  const UnitPlan plan(8, 2);
  WorkUnit u;
  u.placement[0] = 0;
  u.placement[1] = 1;   // attacks
  EXPECT_THROW(plan.count(u), std::invalid_argument);
  u.placement[1] = 2;
  u.multiplicity = 2;
  EXPECT_NO_THROW(plan.count(u));
  u.placement[0] = 7;   // mirror image the plan leaves out
  u.placement[1] = 5;
  EXPECT_THROW(plan.count(u), std::invalid_argument);
  EXPECT_THROW(UnitPlan(8, 9), std::invalid_argument);
  EXPECT_THROW(UnitPlan(0, 1), std::invalid_argument);
  EXPECT_THROW(UnitPlan(33, 1), std::invalid_argument);
}

TEST(Units, DefaultDepthGivesEnoughUnits) {
  EXPECT_GE(UnitPlan(16, default_depth(16, 500)).size(), 500u);
  EXPECT_EQ(default_depth(4, 1000000), 4);
}

// ---- Symmetry::full: border pre-placement, one representative per class of borders ----

namespace {
const std::vector<Board>& solutions_of(int n) {   // brute force, computed once per n
  static std::vector<Board> cache[11];
  if (cache[n].empty()) cache[n] = nq::test::brute_force_solutions(n);
  return cache[n];
}

// The border squares of a placement of a full plan: the queens of rows 0 and n-1 and of
// columns 0 and n-1, as a sorted set of (row, column).
std::set<std::pair<int, int>> border_squares(int n, const Placement& p) {
  std::set<std::pair<int, int>> out;
  for (int r = 0; r < n; ++r)
    if (p[r] != kEmptyRow && (r == 0 || r == n - 1 || p[r] == 0 || p[r] == n - 1))
      out.insert({r, p[r]});
  return out;
}

// Independent of units.cpp: the image of a set of squares under symmetry k (n >= 3), found with
// board.h's transform. A square is embedded in two permutation boards that share only that
// square; the two images share only its image.
std::set<std::pair<int, int>> image_of(int n, const std::set<std::pair<int, int>>& squares, int k) {
  std::set<std::pair<int, int>> out;
  for (auto [r, c] : squares) {
    Board b1(static_cast<std::size_t>(n)), b2(static_cast<std::size_t>(n));
    std::vector<int> rows, cols;
    for (int x = 0; x < n; ++x) {
      if (x != r) rows.push_back(x);
      if (x != c) cols.push_back(x);
    }
    b1[r] = b2[r] = static_cast<Column>(c);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      b1[rows[i]] = static_cast<Column>(cols[i]);
      b2[rows[i]] = static_cast<Column>(cols[(i + 1) % cols.size()]);
    }
    const Board t1 = transform(b1, k), t2 = transform(b2, k);
    int common = 0;
    for (int x = 0; x < n; ++x)
      if (t1[x] == t2[x]) {
        out.insert({x, t1[x]});
        ++common;
      }
    EXPECT_EQ(common, 1);
  }
  return out;
}
}  // namespace

TEST(Units, FullSymmetryWeightedSumEqualsPublishedTotalAtSeveralDepths) {
  for (int n = 1; n <= 16; ++n) {
    const int max_depth = n <= 11 ? std::min(n, 4) : n <= 14 ? 3 : 2;
    for (int depth = 1; depth <= max_depth; ++depth)
      EXPECT_EQ(weighted_total(UnitPlan(n, depth, Symmetry::full)), known_counts(n)->total)
          << "n=" << n << " depth=" << depth;
  }
}

TEST(Units, FullSymmetryBoardsAreExactlyTheBruteForceSolutions) {
  for (int n = 1; n <= 10; ++n) {
    for (int depth = 1; depth <= std::min(n, 3); ++depth) {
      const UnitPlan plan(n, depth, Symmetry::full);
      std::multiset<Board> got;
      for (const auto& u : plan.units()) {
        Count boards = 0;
        const auto st = plan.visit_boards(u, [&](BoardView b) {
          EXPECT_TRUE(is_solution(b));
          got.emplace(b.begin(), b.end());
          ++boards;
          return true;
        });
        EXPECT_EQ(boards, u.multiplicity * st.solutions) << "n=" << n << " unit " << u.id;
        EXPECT_EQ(st.solutions, plan.count(u).solutions);
      }
      const auto& expected = solutions_of(n);
      // Equal as multisets: every solution exactly once (distinct across units).
      EXPECT_EQ(got, std::multiset<Board>(expected.begin(), expected.end()))
          << "n=" << n << " depth=" << depth;
    }
  }
}

TEST(Units, FullPlanTotalEqualsMirrorPlanAndReferenceKernel) {
  for (int n = 1; n <= 14; ++n) {
    const Count full = weighted_total(UnitPlan(n, default_depth(n, 64, Symmetry::full), Symmetry::full));
    EXPECT_EQ(full, weighted_total(UnitPlan(n, std::min(n, 3), Symmetry::mirror))) << n;
    EXPECT_EQ(full, reference_total(n)) << n;
  }
}

TEST(Units, FullUnitsAreOneBorderPerClassWeightedByItsOrbit) {
  for (int n = 4; n <= 11; ++n) {
    const UnitPlan plan(n, 1, Symmetry::full);
    std::set<std::set<std::pair<int, int>>> covered;
    for (const auto& u : plan.units()) {
      const auto border = border_squares(n, u.placement);
      // Depth 1 pre-places exactly the border: rows 0, n-1 and the side queens' rows.
      int filled = 0;
      for (int r = 0; r < kMaxN; ++r) filled += u.placement[r] != kEmptyRow;
      EXPECT_EQ(static_cast<std::size_t>(filled), border.size());
      std::set<std::set<std::pair<int, int>>> orbit;
      for (int k = 0; k < kSymmetries; ++k) orbit.insert(image_of(n, border, k));
      EXPECT_EQ(u.multiplicity, orbit.size()) << "n=" << n << " unit " << u.id;
      for (const auto& im : orbit)   // no other unit is an image of this one
        EXPECT_TRUE(covered.insert(im).second) << "n=" << n << " unit " << u.id;
    }
    // The orbits cover every valid border: count them by brute force over the four queens.
    std::size_t valid = 0;
    for (int top = 0; top < n; ++top)
      for (int bottom = 0; bottom < n; ++bottom)
        for (int left = 0; left < n; ++left)
          for (int right = 0; right < n; ++right) {
            Placement p = WorkUnit::empty_placement();
            bool ok = true;
            auto put = [&](int r, int c) {
              if (p[r] != kEmptyRow && p[r] != c) ok = false;
              p[r] = static_cast<Column>(c);
            };
            put(0, top);
            put(n - 1, bottom);
            put(left, 0);
            put(right, n - 1);
            valid += ok && prepare_search(n, p);   // one tuple per border: no duplicates
          }
    EXPECT_EQ(covered.size(), valid) << n;
  }
}

TEST(Units, FullSymmetryIdsAreStableAndMultiplicityOfAgrees) {
  for (int depth : {1, 2, 3}) {
    const UnitPlan plan(11, depth, Symmetry::full);
    const auto a = plan.units(), b = plan.units();
    ASSERT_EQ(a.size(), plan.size());
    std::set<Placement> seen;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].id, i);
      EXPECT_EQ(a[i].placement, b[i].placement);
      EXPECT_TRUE(seen.insert(a[i].placement).second);
      EXPECT_EQ(plan.multiplicity_of(a[i].placement), a[i].multiplicity);
      EXPECT_TRUE(a[i].multiplicity == 8 || a[i].multiplicity == 4 || a[i].multiplicity == 2);
      for (int r = 0; r < depth; ++r) EXPECT_NE(a[i].placement[r], kEmptyRow);
      EXPECT_NE(a[i].placement[10], kEmptyRow);
    }
  }
}

TEST(Units, FullSymmetryRejectsForeignUnits) {
  const UnitPlan plan(8, 1, Symmetry::full);
  const auto units = plan.units();
  ASSERT_FALSE(units.empty());
  WorkUnit u = units.front();
  EXPECT_NO_THROW(plan.count(u));
  // Every other image of a representative border is left out by the plan.
  int rejected_images = 0;
  for (int k = 1; k < kSymmetries; ++k) {
    const auto squares = image_of(8, border_squares(8, u.placement), k);
    WorkUnit img;
    for (auto [r, c] : squares) img.placement[r] = static_cast<Column>(c);
    if (img.placement == u.placement) continue;
    EXPECT_EQ(plan.multiplicity_of(img.placement), 0u) << k;
    img.multiplicity = u.multiplicity;
    EXPECT_THROW(plan.count(img), std::invalid_argument) << k;
    ++rejected_images;
  }
  EXPECT_EQ(rejected_images + 1, static_cast<int>(u.multiplicity));
  WorkUnit wrong = u;
  wrong.multiplicity = u.multiplicity == 8 ? 4 : 8;
  EXPECT_THROW(plan.count(wrong), std::invalid_argument);
  WorkUnit extra = u;   // a row the plan leaves to the search
  for (int r = 1; r < 7; ++r)
    if (extra.placement[r] == kEmptyRow) {
      const Mask free = full_mask(8) & ~attacked_squares(8, extra.placement, r);
      if (!free) continue;
      extra.placement[r] = static_cast<Column>(std::countr_zero(free));
      break;
    }
  EXPECT_EQ(plan.multiplicity_of(extra.placement), 0u);
  WorkUnit first_rows;   // a mirror-style unit is not a full-symmetry unit
  first_rows.placement[0] = 1;
  first_rows.multiplicity = 2;
  EXPECT_THROW(plan.count(first_rows), std::invalid_argument);
}

TEST(Units, FullSymmetryOnSmallBoardsFallsBackToTheMirrorScheme) {
  for (int n = 1; n <= 3; ++n)
    for (int depth = 1; depth <= n; ++depth) {
      const auto full = UnitPlan(n, depth, Symmetry::full).units();
      const auto mirror = UnitPlan(n, depth, Symmetry::mirror).units();
      ASSERT_EQ(full.size(), mirror.size());
      for (std::size_t i = 0; i < full.size(); ++i) {
        EXPECT_EQ(full[i].placement, mirror[i].placement);
        EXPECT_EQ(full[i].multiplicity, mirror[i].multiplicity);
      }
    }
  EXPECT_GE(UnitPlan(2, 1, Symmetry::full).size(), 1u);
  EXPECT_GE(UnitPlan(3, 1, Symmetry::full).size(), 1u);
}

TEST(Units, FullSymmetryDefaultDepthGivesEnoughUnits) {
  EXPECT_EQ(default_depth(16, 500, Symmetry::full), 1);
  EXPECT_GE(UnitPlan(16, 1, Symmetry::full).size(), 500u);
  const int d = default_depth(16, 20000, Symmetry::full);
  EXPECT_GE(d, 2);
  EXPECT_GE(UnitPlan(16, d, Symmetry::full).size(), 20000u);
  EXPECT_EQ(default_depth(4, 1000000, Symmetry::full), 4);
}

TEST(Units, TheDefaultRunPlanDependsOnNOnlyAndHasEnoughUnits) {
  for (const auto sym : {Symmetry::mirror, Symmetry::full}) {
    for (int n = 8; n <= 20; ++n) {
      const int d = default_run_depth(n, sym);
      EXPECT_LE(d, std::max(1, n - 4)) << n;
      if (d < n - 4) {   // not capped: the smallest depth with enough units
        EXPECT_GE(UnitPlan(n, d, sym).size(), default_run_min_units(n)) << n;
        if (d > 1) {
          EXPECT_LT(UnitPlan(n, d - 1, sym).size(), default_run_min_units(n)) << n;
        }
      }
    }
  }
  EXPECT_EQ(default_run_min_units(17), 2000u);
  EXPECT_EQ(default_run_min_units(19), 12500u);
  EXPECT_EQ(default_run_depth(17, Symmetry::full), 1);   // 4319 units
  EXPECT_EQ(default_run_depth(19, Symmetry::full), 2);   // 84270 units
}

TEST(Units, CountingTheUnitsGivesTheNumberTheCursorEnumerates) {
  for (int n = 1; n <= 11; ++n)
    for (int depth = 1; depth <= n; ++depth)
      for (Symmetry s : {Symmetry::none, Symmetry::mirror, Symmetry::full}) {
        const UnitPlan plan(n, depth, s);
        const std::uint64_t enumerated = plan.units().size();
        EXPECT_EQ(plan.size(), enumerated) << "n=" << n << " depth=" << depth << " " << to_string(s);
        for (std::uint64_t cap : {std::uint64_t{0}, std::uint64_t{1}, enumerated / 2, enumerated + 1})
          EXPECT_EQ(plan.count_up_to(cap), std::min(cap, enumerated)) << n << " " << depth << " " << cap;
      }
  EXPECT_EQ(UnitPlan(29, 7, Symmetry::mirror).count_up_to(1000000), 1000000u);   // stops early
}

TEST(Units, CountingStopsWhenAsked) {
  const UnitPlan plan(18, 6, Symmetry::mirror);   // ~2.4 M units
  int polls = 0;
  const StopFn stop_at_second_poll = [&] { return ++polls == 2; };
  try {
    (void)plan.size(stop_at_second_poll);
    FAIL() << "not interrupted";
  } catch (const Interrupted& e) {
    EXPECT_EQ(e.phase(), "counting the work units");
  }
  EXPECT_EQ(polls, 2);
  EXPECT_THROW(default_depth(18, 100000000, Symmetry::mirror, [] { return true; }), Interrupted);
  const StopFn never = [] { return false; };
  EXPECT_EQ(plan.size(never), plan.size());
}

TEST(Estimate, SmallPlansAreCountedExactly) {
  for (int n = 1; n <= 12; ++n)
    for (Symmetry s : {Symmetry::none, Symmetry::mirror, Symmetry::full}) {
      const auto est = estimate_sizes(UnitPlan(n, std::min(n, 4), s));
      for (int d = 1; d <= std::min(n, 4); ++d) {
        const auto& e = est[static_cast<std::size_t>(d - 1)];
        ASSERT_TRUE(e.exact) << n << " " << d << " " << to_string(s);
        EXPECT_EQ(e.units, static_cast<double>(UnitPlan(n, d, s).size())) << n << " " << d << " " << to_string(s);
        EXPECT_EQ(e.relative_error, 0.0);
      }
    }
}

TEST(Estimate, LargePlansAreEstimatedWithinTheirStatedError) {
  // Plans of 10^6-10^8 units, shallow and deep, whose exact count takes well under a second:
  // at most 5 % or five standard errors off, the margin app/plan_limits.cpp allows (measured:
  // 0.03-2 % here).
  struct Case {
    int n, depth;
    Symmetry s;
  };
  for (const Case c : {Case{20, 5, Symmetry::full}, Case{29, 6, Symmetry::mirror}, Case{17, 8, Symmetry::none},
                       Case{14, 13, Symmetry::mirror}}) {
    const UnitPlan plan(c.n, c.depth, c.s);
    const auto e = estimate_sizes(plan).back();
    const auto exact = static_cast<double>(plan.size());
    EXPECT_FALSE(e.exact);
    EXPECT_GT(e.relative_error, 0.0);
    EXPECT_LT(std::abs(e.units / exact - 1), std::max(0.05, 5 * e.relative_error))
        << "n=" << c.n << " depth=" << c.depth << " " << to_string(c.s) << ": " << e.units << " vs " << exact;
  }
}

TEST(Estimate, EveryDepthOfOnePassAgreesWithItsOwnPlanAndRepeats) {
  const auto deep = estimate_sizes(UnitPlan(26, 22, Symmetry::mirror));
  ASSERT_EQ(deep.size(), 22u);
  EXPECT_GT(deep.back().units, 1e15);   // far beyond any limit: no exact count needed to refuse it
  for (int d = 1; d <= 4; ++d) {
    const auto& e = deep[static_cast<std::size_t>(d - 1)];
    EXPECT_TRUE(e.exact) << d;
    EXPECT_EQ(e.units, static_cast<double>(UnitPlan(26, d, Symmetry::mirror).size())) << d;
  }
  const auto again = estimate_sizes(UnitPlan(26, 22, Symmetry::mirror));
  for (std::size_t i = 0; i < deep.size(); ++i) EXPECT_EQ(deep[i].units, again[i].units) << i;   // fixed seed
  const auto full = estimate_sizes(UnitPlan(32, 32, Symmetry::full));
  EXPECT_TRUE(full.front().exact);
  EXPECT_EQ(full.front().units, static_cast<double>(UnitPlan(32, 1, Symmetry::full).size()));
}
