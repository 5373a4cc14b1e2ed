// The search kernel: counts (or visits) the completions of a partial board. Queens may be
// pre-placed in any rows (the first rows, or the border of the board); the search fills the
// empty rows top to bottom. Called by units.cpp for every work unit. Allocation-free and
// exception-free; thread-safe (no shared state).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include "core/board.h"
#include "core/stop.h"
#include "core/types.h"

namespace nq::core {

// A partial board: the column of the queen of each row, or kEmptyRow where the search decides.
inline constexpr Column kEmptyRow = 0xFF;
using Placement = std::array<Column, kMaxN>;

// The state after queens were placed in rows 0..row-1 (bit c = column c).
// Invariants: 1 <= n <= kMaxN; 0 <= row <= n; popcount(cols) == row; all masks within n bits
// after masking with full_mask(n) (diag_l / diag_r may hold bits shifted past the board).
struct Partial {
  int n = 0;
  int row = 0;
  Mask cols = 0;     // columns taken
  Mask diag_l = 0;   // squares of row `row` attacked along down-left diagonals
  Mask diag_r = 0;   // squares of row `row` attacked along down-right diagonals
};

// The partial placement of `prefix` (columns of rows 0..k-1) on an n-board, or nullopt if the
// queens attack each other or a column is off the board.
std::optional<Partial> place_prefix(int n, std::span<const Column> prefix);

// Places one more queen in column `c` of row p.row (caller guarantees it is free).
constexpr Partial place(const Partial& p, int c) {
  const Mask bit = Mask{1} << c;
  return {p.n, p.row + 1, p.cols | bit, (p.diag_l | bit) << 1, (p.diag_r | bit) >> 1};
}
constexpr Mask free_columns(const Partial& p) {
  return full_mask(p.n) & ~(p.cols | p.diag_l | p.diag_r);
}

// A partial board compiled for the search. The empty rows, top to bottom, are the search's
// levels. Invariants (established by prepare_search, relied on by the kernel):
//   1. levels == number of empty rows == number of columns no pre-placed queen uses;
//   2. row[i] is the board row of level i; gap[i] == row[i+1] - row[i] for i + 1 < levels;
//   3. blocked[i] holds, for row row[i], every square a pre-placed queen attacks (its column and
//      both diagonals, from above and from below) plus every bit >= n (off the board);
//   4. the pre-placed queens do not attack each other.
struct RowSearch {
  int n = 0;
  int levels = 0;
  Placement placement{};                    // the pre-placed queens (copied into visited boards)
  std::array<std::uint8_t, kMaxN> row{};
  std::array<std::uint8_t, kMaxN> gap{};
  std::array<Mask, kMaxN> blocked{};
};

// The squares blocked at level i and the rows from level i to the next, as the walkers read them
// up to two levels past a node: past the last level, every square is blocked and the gap is 1.
constexpr Mask blocked_at(const RowSearch& s, int i) { return i < s.levels ? s.blocked[i] : ~Mask{0}; }
constexpr int gap_after(const RowSearch& s, int i) { return i + 1 < s.levels ? s.gap[i] : 1; }

// Squares of board row `row` that the queens of `placement` in the other rows attack (their
// columns and both diagonals, in either direction). Bits >= n may be set.
Mask attacked_squares(int n, const Placement& placement, int row);

// The search over the empty rows of `placement` (rows >= n must be empty), or nullopt if
// n is out of range, a column is off the board, a row >= n is filled or queens attack each other.
std::optional<RowSearch> prepare_search(int n, const Placement& placement);
// The same for the first rows of `p` (placed as masks; the placement's rows are left empty).
RowSearch prepare_search(const Partial& p);

// Number of ways to complete the board to a full solution, and the nodes of the search.
// The search rule (counting and visiting follow it exactly, so they report the same nodes):
//   - a node is a partial board with the levels above it filled; expanding it tries every free
//     square of its row, and each square tried is a node (nodes += free squares);
//   - a square tried in the next-to-last level is a solution if the last row still has a free
//     square (its queen is a node too); a square tried higher up is expanded only if the next
//     row has a free square and the row after it has one given the queens placed so far
//     (a one-row lookahead that prunes most dead ends before they cost a node each).
// The CPU picks the kernel at run time: with AVX-512 it searches 64 nodes at once with vector
// code, with AVX2 64 nodes of one level at once (core/level_step.h), otherwise it is a plain
// iterative search. All give the same solutions and nodes.
SearchStats count_completions(const RowSearch& s);
SearchStats count_completions(const Partial& p);
// count_completions, which another thread can end early: once `cancel` is set it throws
// Interrupted(kSearchPhase). A search of more than `split_levels` levels is done as the
// searches of its first level's children that the rule keeps (recursively; the same solutions
// and nodes), with `cancel` checked before each, and `beat` (if given) set to the time of each
// check (so they are at most one search of `split_levels` levels apart: milliseconds in units of
// N = 27-28, up to ~10 s in whole units of 18 levels, N = 22 at depth 1). The kernels check
// nothing themselves: a check of a flag in the AVX-512 kernel's loop took it 1.02-1.09x the
// time (N = 18, one thread, three placements tried), clang allocating its registers otherwise.
SearchStats count_completions(const RowSearch& s, const CancelFlag& cancel, int split_levels,
                              Heartbeat* beat = nullptr);
// The levels that a cancellable count leaves to one search (units have more from N = 21 on).
// Measured (docs/faults.md): a cancel ended sampled units of N = 27 and 28 (20-23 levels, seconds
// to minutes each) within 2 ms; the split took 0.99x (N = 22) and 1.01x (N = 24) the time of the
// whole searches, and 1.03x with 16.
inline constexpr int kCancelSplitLevels = 18;
// The plain iterative search, regardless of the CPU (tests compare the two).
SearchStats count_completions_scalar(const RowSearch& s);
// The vector kernel's work stack, in nodes: count_completions uses all of it. Units of N = 27
// and 28 (20-23 levels) were measured below 4,500 (kernel.cpp); past it, the stack's bottom
// moves to the heap and back.
inline constexpr int kVectorStackCapacity = 16384;
// What the vector kernel's work stack took: its arrays on the thread's stack (fixed per board
// width), and the most bytes of it that a search moved to the heap (0 unless the stack filled).
struct VectorMemory {
  std::size_t stack_bytes = 0, heap_bytes = 0;
};
// The vector kernel with its work stack limited to `stack_limit` nodes (at most
// kVectorStackCapacity; tests pass small limits to exercise the move to the heap), or nullopt
// if the CPU has no AVX-512; `memory`, if given, receives what its stack took.
std::optional<SearchStats> count_completions_vector(const RowSearch& s, int stack_limit,
                                                    VectorMemory* memory = nullptr);
// True if the CPU can run the vector kernel.
bool vector_kernel_available();
// The AVX2 kernel, or nullopt if the CPU has no AVX2; and whether it has.
std::optional<SearchStats> count_completions_avx2(const RowSearch& s);
bool avx2_kernel_available();
// The kernel count_completions uses (default fastest): fastest: AVX-512, else AVX2, else the
// scalar search; avx2: AVX2, else scalar; scalar: the plain iterative search. For `nqueens check`
// (a recount by another kernel than the run's), benchmarks and tests; affects searches started
// afterwards, in all threads.
enum class KernelChoice { fastest, avx2, scalar };
void choose_kernel(KernelChoice choice);
// Boards of up to kPackedMaxN columns: the vector kernel keeps a node's level in the spare bits
// of its free-column mask. On wider ones it counts the level from its columns (vpopcntd) where
// the CPU has AVX512_VPOPCNTDQ, instead of keeping it in a field of its own: whether it can, and
// whether it may (default true; tests compare the two layouts).
inline constexpr int kPackedMaxN = 27;
bool level_count_available();
void allow_level_count(bool allowed);
// The kernel count_completions uses now, for reports: "AVX-512", "AVX2" or "scalar".
const char* kernel_name();

// Calls f(board) for every completion, in lexicographic order of the board, until f returns
// false. For `p`, the first p.row entries of the board are taken from `prefix`; for `s`, the
// pre-placed queens are its placement's. Visiting is always the scalar search; it places the
// same queens as counting, so both report the same nodes.
using BoardFn = std::function<bool(BoardView)>;
SearchStats visit_completions(const Partial& p, std::span<const Column> prefix, const BoardFn& f);
SearchStats visit_completions(const RowSearch& s, const BoardFn& f);

// The plain mirror-only recursive reference solver (Somers-style bitmasks): an independent
// check in tests and the baseline of bench/. Deliberately simple; do not optimise it.
Count reference_total(int n);
// The part of the reference search with the queen of row 0 in column `c` (not multiplied):
// reference_total(n) is twice the sum over c < n/2, plus c = n/2 for odd n. bench/ splits this
// loop over threads.
Count reference_first_row(int n, int c);
// The same, also counting the reference's nodes (one per queen placed, row 0 included); a
// separate, untimed instantiation so that the timed search does no extra work.
SearchStats reference_first_row_nodes(int n, int c);

}  // namespace nq::core
