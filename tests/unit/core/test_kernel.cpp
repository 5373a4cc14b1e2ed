#include <gtest/gtest.h>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include "core/kernel.h"
#include "core/known_counts.h"
#include "core/solve.h"
#include "support/brute_force.h"
#include "support/searches.h"

using namespace nq::core;

TEST(Kernel, FullSearchEqualsPublishedTotalsUpToFourteen) {
  for (int n = 1; n <= 14; ++n)
    EXPECT_EQ(count_completions(*place_prefix(n, {})).solutions, known_counts(n)->total) << n;
}

TEST(Kernel, ReferenceKernelEqualsPublishedTotalsUpToFourteen) {
  for (int n = 1; n <= 14; ++n) EXPECT_EQ(reference_total(n), known_counts(n)->total) << n;
}

TEST(Kernel, VisitedBoardsEqualBruteForceInOrder) {
  for (int n = 1; n <= 9; ++n) {
    std::vector<Board> got;
    const auto st = visit_completions(*place_prefix(n, {}), {}, [&](BoardView b) {
      got.emplace_back(b.begin(), b.end());
      return true;
    });
    EXPECT_EQ(got, nq::test::brute_force_solutions(n)) << n;
    EXPECT_EQ(st.solutions, got.size());
  }
}

TEST(Kernel, CountingAndVisitingAgreeOnNodesAndSolutionsFromAPrefix) {
  const Column prefix[] = {1, 3};
  const auto p = place_prefix(10, prefix);
  ASSERT_TRUE(p);
  const auto counted = count_completions(*p);
  Count visited = 0;
  const auto st = visit_completions(*p, prefix, [&](BoardView b) {
    EXPECT_TRUE(is_solution(b));
    EXPECT_EQ(b[0], 1);
    EXPECT_EQ(b[1], 3);
    ++visited;
    return true;
  });
  EXPECT_EQ(counted.solutions, visited);
  EXPECT_EQ(counted.nodes, st.nodes);
  EXPECT_GT(visited, 0u);
}

TEST(Kernel, PlacePrefixRejectsAttacksAndOffBoardColumns) {
  const Column attack[] = {0, 1};
  const Column column[] = {2, 2};
  const Column off[] = {9};
  EXPECT_FALSE(place_prefix(8, attack));
  EXPECT_FALSE(place_prefix(8, column));
  EXPECT_FALSE(place_prefix(8, off));
  EXPECT_FALSE(place_prefix(33, {}));
  EXPECT_TRUE(place_prefix(32, {}));
}

TEST(Kernel, VisitStopsWhenAskedTo) {
  int seen = 0;
  visit_completions(*place_prefix(8, {}), {}, [&](BoardView) { return ++seen < 3; });
  EXPECT_EQ(seen, 3);
}

// ---- Pre-placed queens in any rows; the vector kernel against the scalar search ----

namespace {
// Deterministic pseudo-random numbers (the tests must not depend on the platform's <random>).
struct Lcg {
  std::uint64_t x;
  unsigned next(unsigned bound) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<unsigned>((x >> 33) % bound);
  }
};

// Queens of `board` in a random subset of rows (each row kept with probability keep/8).
Placement random_rows_of(BoardView board, Lcg& rng, unsigned keep) {
  Placement p = Placement{};
  p.fill(kEmptyRow);
  for (std::size_t r = 0; r < board.size(); ++r)
    if (rng.next(8) < keep) p[r] = board[r];
  return p;
}

// A random placement of non-attacking queens in random rows (not necessarily completable).
Placement random_placement(int n, Lcg& rng, int queens) {
  Placement p;
  p.fill(kEmptyRow);
  for (int tries = 0; queens > 0 && tries < 200; ++tries) {
    const int r = static_cast<int>(rng.next(static_cast<unsigned>(n)));
    if (p[r] != kEmptyRow) continue;
    const Mask free = full_mask(n) & ~attacked_squares(n, p, r);
    if (!free) continue;
    int k = static_cast<int>(rng.next(static_cast<unsigned>(std::popcount(free))));
    Mask m = free;
    while (k-- > 0) m &= m - 1;
    p[r] = static_cast<Column>(std::countr_zero(m));
    --queens;
  }
  return p;
}

// Checks every kernel against the scalar search on s; returns the most bytes the vector kernel
// moved to the heap with the smallest stack (0 without AVX-512).
std::size_t expect_kernels_agree(const RowSearch& s, const char* what) {
  const SearchStats scalar = count_completions_scalar(s);
  const SearchStats counted = count_completions(s);
  EXPECT_EQ(counted.solutions, scalar.solutions) << what;
  EXPECT_EQ(counted.nodes, scalar.nodes) << what;
  Count visited = 0;
  const SearchStats v = visit_completions(s, [&](BoardView) { return ++visited, true; });
  EXPECT_EQ(v.solutions, scalar.solutions) << what;
  EXPECT_EQ(v.nodes, scalar.nodes) << what;
  EXPECT_EQ(visited, scalar.solutions) << what;
  if (const auto avx2 = count_completions_avx2(s)) {
    EXPECT_EQ(avx2->solutions, scalar.solutions) << what << " (AVX2)";
    EXPECT_EQ(avx2->nodes, scalar.nodes) << what << " (AVX2)";
  }
  // Cancellable: split into the searches of the first levels' children, 3 levels deep or (small
  // searches) down to 2 levels.
  const CancelFlag never{false};
  const int split = s.levels <= 12 ? 2 : s.levels - 3;
  const SearchStats parts = count_completions(s, never, split);
  EXPECT_EQ(parts.solutions, scalar.solutions) << what << " split at " << split;
  EXPECT_EQ(parts.nodes, scalar.nodes) << what << " split at " << split;
  VectorMemory memory;
  for (bool count_level : {true, false}) {   // wider boards: the level counted or in a field
    if (!count_level && s.n <= kPackedMaxN) break;   // narrower ones have one layout
    allow_level_count(count_level);
    for (int limit : {kVectorStackCapacity, 120, 97})   // small limits move the stack's bottom to the heap
      if (const auto vec = count_completions_vector(s, limit, &memory)) {
        EXPECT_EQ(vec->solutions, scalar.solutions) << what << " limit " << limit << " counted " << count_level;
        EXPECT_EQ(vec->nodes, scalar.nodes) << what << " limit " << limit << " counted " << count_level;
      }
  }
  allow_level_count(true);
  return memory.heap_bytes;
}
}  // namespace

TEST(Kernel, PreplacedRowsAnywhereCompleteExactlyToTheMatchingSolutions) {
  Lcg rng{42};
  for (int n = 4; n <= 9; ++n) {
    const auto all = nq::test::brute_force_solutions(n);
    for (int trial = 0; trial < 40; ++trial) {
      // From a solution (so completions exist) or random queens (often none).
      const Placement p = trial % 2 ? random_rows_of(all[rng.next(static_cast<unsigned>(all.size()))], rng, 3)
                                    : random_placement(n, rng, 1 + static_cast<int>(rng.next(3)));
      const auto s = prepare_search(n, p);
      ASSERT_TRUE(s);
      std::vector<Board> expected;
      for (const auto& b : all) {
        bool match = true;
        for (int r = 0; r < n; ++r) match = match && (p[r] == kEmptyRow || p[r] == b[r]);
        if (match) expected.push_back(b);
      }
      std::vector<Board> got;
      visit_completions(*s, [&](BoardView b) {
        got.emplace_back(b.begin(), b.end());
        return true;
      });
      EXPECT_EQ(got, expected) << "n=" << n << " trial " << trial;   // lexicographic order
      EXPECT_EQ(count_completions(*s).solutions, expected.size()) << "n=" << n << " trial " << trial;
      expect_kernels_agree(*s, "brute-force sized");
    }
  }
}

TEST(Kernel, VectorAndScalarKernelsAgreeOnSolutionsAndNodes) {
  if (!vector_kernel_available()) GTEST_SKIP() << "no AVX-512 on this CPU: only the scalar kernel runs";
  Lcg rng{7};
  int spilling = 0;   // searches whose stack of 128 nodes moved nodes to the heap
  for (int n = 6; n <= 13; ++n)   // whole boards and first-row prefixes
    spilling += expect_kernels_agree(prepare_search(*place_prefix(n, {})), "empty board") > 0;
  // Wide boards, ~11 rows left to the search; up to 27 columns the kernel keeps a node's level
  // in its column mask, from 28 in a field of its own.
  for (int n : {17, 20, 24, 27, 28, 32})
    for (int trial = 0; trial < 6; ++trial) {
      const Placement p = random_placement(n, rng, n - 11);
      const auto s = prepare_search(n, p);
      ASSERT_TRUE(s);
      spilling += expect_kernels_agree(*s, "wide board") > 0;
    }
  // Many rows left (16-19 levels), with a third of each row's squares blocked besides (both
  // kernels search any RowSearch) to keep the trees small.
  for (int n : {24, 27, 28})
    for (int left : {16, 17, 18, 19})
      for (int trial = 0; trial < 2; ++trial) {
        auto s = prepare_search(n, random_placement(n, rng, n - left));
        ASSERT_TRUE(s);
        for (int i = 0; i < s->levels; ++i)
          for (int c = 0; c < n; ++c)
            if (rng.next(3) == 0) s->blocked[static_cast<std::size_t>(i)] |= Mask{1} << c;
        spilling += expect_kernels_agree(*s, "many rows left") > 0;
      }
  // 29-32 levels (a node looks up the tables two levels past its own, at 32 levels past their
  // 32 entries: vector_step.h). Every square is blocked but those of a solution of N = 32 and
  // a few more, so the trees are small and reach the last level.
  const auto solution = first_solution(32);
  ASSERT_TRUE(solution);
  for (int left : {29, 30, 31, 32})
    for (int trial = 0; trial < 3; ++trial) {
      Placement p;
      p.fill(kEmptyRow);
      for (int placed = 0; placed < 32 - left;) {
        const unsigned r = rng.next(32);
        if (p[r] == kEmptyRow) p[r] = (*solution)[r], ++placed;
      }
      auto s = prepare_search(32, p);
      ASSERT_TRUE(s);
      ASSERT_EQ(s->levels, left);
      for (int i = 0; i < s->levels; ++i) {
        Mask open = Mask{1} << (*solution)[s->row[i]];
        for (int extra = 0; extra < 3; ++extra) open |= Mask{1} << rng.next(32);
        s->blocked[static_cast<std::size_t>(i)] |= ~open;
      }
      EXPECT_GE(count_completions_scalar(*s).solutions, 1u);   // the solution's own squares
      expect_kernels_agree(*s, "29-32 levels");
    }
  // 32 levels, whose last row's lookahead wraps around to the first level's entry.
  const auto wrapping = nq::test::wrapping_lookahead_search();
  ASSERT_TRUE(wrapping);
  ASSERT_EQ(wrapping->levels, 32);
  EXPECT_EQ(count_completions_scalar(*wrapping).solutions, 1u);
  expect_kernels_agree(*wrapping, "32 levels, the last queen free in a 33rd row");
  EXPECT_GT(spilling, 0) << "no search filled a stack of 128 nodes: the heap path went untested";
  if (!level_count_available())
    std::printf("no AVX512_VPOPCNTDQ on this CPU: boards above 27 columns tested with the level in a field only\n");
}

TEST(Kernel, Avx2AndScalarKernelsAgreeOnSolutionsAndNodes) {
  if (!avx2_kernel_available()) GTEST_SKIP() << "no AVX2 on this CPU";
  Lcg rng{11};
  for (int n = 2; n <= 14; ++n) {   // whole boards: the published totals, and the scalar nodes
    const RowSearch s = prepare_search(*place_prefix(n, {}));
    EXPECT_EQ(count_completions_avx2(s)->solutions, known_counts(n)->total) << n;
    expect_kernels_agree(s, "empty board");
  }
  // Wide boards with queens pre-placed in random rows (uneven gaps between the levels), up to
  // 32 columns; and few rows left (a batch never fills) or many (batches fill and drain).
  for (int n : {16, 17, 21, 24, 27, 31, 32})
    for (int left : {3, 6, 10, 12})
      for (int trial = 0; trial < 4; ++trial) {
        const auto s = prepare_search(n, random_placement(n, rng, n - left));
        ASSERT_TRUE(s);
        expect_kernels_agree(*s, "wide board");
      }
}

TEST(Kernel, PrepareSearchRejectsBadPlacements) {
  Placement p;
  p.fill(kEmptyRow);
  EXPECT_TRUE(prepare_search(8, p));
  p[2] = 3;
  p[5] = 0;   // diagonal with (2, 3)
  EXPECT_FALSE(prepare_search(8, p));
  p[5] = 3;   // same column
  EXPECT_FALSE(prepare_search(8, p));
  p[5] = 8;   // off the board
  EXPECT_FALSE(prepare_search(8, p));
  p[5] = kEmptyRow;
  p[9] = 1;   // a row past the board
  EXPECT_FALSE(prepare_search(8, p));
  EXPECT_FALSE(prepare_search(33, Placement{}));
}

TEST(Kernel, ReferenceFirstRowsAddUpToTheReferenceTotal) {
  for (int n = 1; n <= 12; ++n) {
    Count total = 0, nodes = 0;
    for (int c = 0; c < (n + 1) / 2; ++c) {
      const Count part = reference_first_row(n, c);
      const SearchStats counted = reference_first_row_nodes(n, c);
      EXPECT_EQ(counted.solutions, part);
      nodes += counted.nodes;
      total += (n % 2 && c == n / 2 ? 1 : 2) * part;
    }
    EXPECT_EQ(total, reference_total(n)) << n;
    EXPECT_GE(nodes, total / 2) << n;
  }
  // One node per queen placed: (0,0); (1,2) dead; (1,3) -> (2,1) dead.
  EXPECT_EQ(reference_first_row_nodes(4, 0).nodes, 4u);
  EXPECT_EQ(reference_first_row_nodes(4, 0).solutions, 0u);
  // (0,1) -> (1,3) -> (2,0) -> (3,2): the solution [1, 3, 0, 2].
  EXPECT_EQ(reference_first_row_nodes(4, 1).nodes, 4u);
  EXPECT_EQ(reference_first_row_nodes(4, 1).solutions, 1u);
}

TEST(Kernel, ScalarPathAloneGivesPublishedTotals) {
  choose_kernel(KernelChoice::scalar);   // what a CPU without AVX2 runs
  EXPECT_STREQ(kernel_name(), "scalar");
  for (int n = 1; n <= 13; ++n)
    EXPECT_EQ(count_completions(*place_prefix(n, {})).solutions, known_counts(n)->total) << n;
  choose_kernel(KernelChoice::fastest);
}

TEST(Kernel, EachChosenKernelGivesTheSameSolutionsAndNodes) {
  // `nqueens check` recounts with another kernel than the run's: each must follow the one rule.
  const auto s = *place_prefix(12, std::vector<Column>{2});
  choose_kernel(KernelChoice::scalar);
  const SearchStats scalar = count_completions(s);
  for (const auto k : {KernelChoice::avx2, KernelChoice::fastest}) {
    choose_kernel(k);
    const SearchStats st = count_completions(s);
    EXPECT_EQ(st.solutions, scalar.solutions) << kernel_name();
    EXPECT_EQ(st.nodes, scalar.nodes) << kernel_name();
  }
  choose_kernel(KernelChoice::avx2);
  EXPECT_STREQ(kernel_name(), avx2_kernel_available() ? "AVX2" : "scalar");
  choose_kernel(KernelChoice::fastest);
  EXPECT_STREQ(kernel_name(), vector_kernel_available() ? "AVX-512" : avx2_kernel_available() ? "AVX2" : "scalar");
}

TEST(Kernel, ACancelledSearchThrowsInterrupted) {
  CancelFlag cancel{true};
  const RowSearch small = prepare_search(*place_prefix(8, {}));
  EXPECT_THROW(count_completions(small, cancel, kCancelSplitLevels), Interrupted);
  cancel = false;
  EXPECT_EQ(count_completions(small, cancel, kCancelSplitLevels).solutions, 92u);
}

TEST(Kernel, ASearchIsCancelledByAnotherThread) {
  // The whole board of N = 21 (21 levels: split into parts of kCancelSplitLevels), which takes
  // minutes; the flag is set 20 ms after the search started.
  CancelFlag cancel{false};
  bool interrupted = false;
  std::thread search([&] {
    try {
      count_completions(prepare_search(*place_prefix(21, {})), cancel, kCancelSplitLevels);
    } catch (const Interrupted& e) {
      interrupted = e.phase() == kSearchPhase;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  cancel = true;
  search.join();
  EXPECT_TRUE(interrupted);
}
