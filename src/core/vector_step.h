// The AVX-512 tree walk's step, the one copy shared by the counting kernel (kernel.cpp) and the
// board generator's traversal (boards.cpp), which differ only in what they do with a step's
// results: count the solutions, or record them. Internal to core: nothing outside kernel.cpp
// and boards.cpp includes it.
//
// Lanes are nodes of a RowSearch's tree, kGroups vectors of kLanes at a time. A node is its
// free columns F (those its queens leave: a square test is then one vptestmd against F, where
// the occupied columns took an OR and a compare), its diagonals L and R (shifted to its row),
// its level LV and A, the squares of its row it has yet to try. One step tries each lane's
// lowest untried square: the child is dropped if its row is full, or the row after it (a
// one-row lookahead); otherwise it is a solution (its row is the last) or pushed on a stack of
// nodes, from which empty lanes are refilled.
//
// Where a node keeps its level on the stack (the template parameter of push and refill, Level):
//   field: a fourth stack field, expanded into LV;
//   packed: bits kLevelShift..31 of F, only for boards of at most kPackedMaxN columns.
//     Those bits are off the board, so the blocked tables already hold them and they never
//     change a node's free squares, and F is never shifted. A push then compresses three
//     vectors instead of four and a refill expands three: the counting kernel took 0.9x the
//     time of the field layout (docs/performance.md has the figures);
//   counted: nowhere, for wider boards: F starts with all 32 bits set and each level clears
//     one, so the level is the count of F's clear bits (vpopcntd, on CPUs with
//     AVX512_VPOPCNTDQ; the caller checks). Three vectors a push and a refill, as packed.
#pragma once
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#include <bit>
#include <cstddef>
#include <cstdint>
#include "core/kernel.h"

#define NQ_HAVE_VECTOR_STEP 1
// The callers' target attributes must include these (an always_inline function inlines only
// into a function built for at least its features).
#define NQ_VECTOR_STEP __attribute__((target("avx512f,popcnt,bmi,bmi2"), always_inline)) inline

namespace nq::core::vector_step {

inline constexpr int kLanes = 16;
// Groups per step: independent groups hide the latency of the step's dependency chain, and
// more of them spill registers. With the kernel's order (refills before pushes, kernel.cpp) 4
// are best: on AMD Zen 5 (N = 18, one thread, docs/performance.md) 3 groups took 1.1x the
// time per node on sampled N = 20 units, 5 1.08x and 6 1.5x; 4 also measured best on Zen 4
// (session 13).
inline constexpr int kGroups = 4;
inline constexpr int kPushMax = kLanes * kGroups;   // nodes one step can push
static_assert(kPushMax <= 64, "the counting kernel adds up a step's solutions as one 64-bit mask");
inline constexpr int kLevelShift = kPackedMaxN;   // packed: the level in bits 27..31 of F, off the board
static_assert(sizeof(Mask) * 8 - kLevelShift == 5 && kPackedMaxN < 32, "a packed level takes 5 bits, so levels < 32");
// Put before a loop over the kGroups groups: unrolled whole, so each group lives in registers.
#if defined(__clang__)
#define NQ_UNROLL_GROUPS _Pragma("clang loop unroll(full)")
#else
#define NQ_UNROLL_GROUPS _Pragma("GCC unroll 8")
#endif
static_assert(kGroups <= 8, "NQ_UNROLL_GROUPS unrolls gcc's loops 8 times");

// A per-level value as a 32-entry table (two vectors), looked up per lane by level.
struct LevelTable {
  __m512i lo, hi;
};
NQ_VECTOR_STEP __m512i lookup(const LevelTable& t, __m512i level) {
  return _mm512_permutex2var_epi32(t.lo, level, t.hi);
}

// The search's rows as two per-level tables, for level d: the squares blocked in its row, and
// the rows from it to the next level (levels past the last: all blocked, gap 1). A node of
// level d looks up d, d + 1 and d + 2 (2 tables, not 5: fewer registers). A lookup takes its
// index modulo kTableLevels, so only a search of 32 levels looks past the tables: its last
// parent level (30) looks up 32 as 0 for its children's lookahead row, where its children in
// the last row would be kept if their column were free there too (see step).
inline constexpr int kTableLevels = 32;
struct Tables {
  LevelTable blk, gap;
  __m512i last_parent;   // the level whose children are in the last row
};
NQ_VECTOR_STEP LevelTable load_table(const std::uint32_t* t) {
  return {_mm512_load_si512(t), _mm512_load_si512(t + 16)};
}
NQ_VECTOR_STEP Tables make_tables(const RowSearch& s) {
  alignas(64) std::uint32_t b[kTableLevels], g[kTableLevels];
  for (int d = 0; d < kTableLevels; ++d) {
    b[d] = blocked_at(s, d);
    g[d] = static_cast<std::uint32_t>(gap_after(s, d));
  }
  // A named function, not a lambda: a lambda does not inherit the target attribute, and a build
  // with -march=native on a CPU without AVX-512 would not compile.
  return {load_table(b), load_table(g), _mm512_set1_epi32(s.levels - 2)};
}

// One group of lanes. Packed, LV is a copy of F's level bits, which refill (the only place that
// changes F) takes from F.
struct Group {
  __m512i F, L, R, LV, A;
  __mmask16 live = 0;   // the lanes whose A is not empty (set by refill)
};

// What one step of a group found. For the lanes that tried a square (`tried`): the square as
// a one-bit mask, the child's masks, the squares of the child's row that its diagonals and the
// blocked squares leave (`open`; its free squares are open & nf), whether its row has a free
// square (`alive`), the solutions (`solved`: alive, and its row is the last), and the children
// to push (`keep`: alive, not in the last row, the lookahead row not full).
struct Step {
  __m512i bit, nf, nl, nr, open, level;   // level: the parent's
  __mmask16 tried, alive, solved, keep;
};
// kMaxLevels: the most levels the caller's searches have. With fewer than kTableLevels, the
// lookahead row of a child in the last row is past the last level, where every square is
// blocked, so such a child is never kept; with kTableLevels that row's lookup wraps around to
// level 0, and the solutions are dropped from `keep` explicitly (one mask operation, which the
// counting kernel spares on boards of at most kPackedMaxN columns).
template <int kMaxLevels>
NQ_VECTOR_STEP Step step(const Tables& t, Group& g) {
  static_assert(kMaxLevels <= kTableLevels);
  Step s;
  s.bit = _mm512_and_si512(g.A, _mm512_sub_epi32(_mm512_setzero_si512(), g.A));
  s.tried = g.live;
  s.level = g.LV;
  g.A = _mm512_xor_si512(g.A, s.bit);
  const __m512i lv1 = _mm512_add_epi32(g.LV, _mm512_set1_epi32(1));
  const __m512i lv2 = _mm512_add_epi32(g.LV, _mm512_set1_epi32(2));
  const __m512i gap = lookup(t.gap, g.LV);
  s.nf = _mm512_xor_si512(g.F, s.bit);
  s.nl = _mm512_sllv_epi32(_mm512_or_si512(g.L, s.bit), gap);
  s.nr = _mm512_srlv_epi32(_mm512_or_si512(g.R, s.bit), gap);
  s.open = _mm512_ternarylogic_epi32(s.nl, s.nr, lookup(t.blk, lv1), 0x01);   // none of the three
  s.alive = _mm512_mask_test_epi32_mask(s.tried, s.open, s.nf);
  s.solved = _mm512_mask_cmpeq_epi32_mask(s.alive, g.LV, t.last_parent);
  const __m512i gap1 = lookup(t.gap, lv1);
  const __m512i ahead = _mm512_ternarylogic_epi32(_mm512_sllv_epi32(s.nl, gap1), _mm512_srlv_epi32(s.nr, gap1),
                                                  lookup(t.blk, lv2), 0x01);
  const __mmask16 unsolved = kMaxLevels < kTableLevels ? s.alive : static_cast<__mmask16>(s.alive & ~s.solved);
  s.keep = _mm512_mask_test_epi32_mask(unsolved, ahead, s.nf);
  return s;
}

enum class Level { field, packed, counted };

// The stack of nodes, one array per field, kLanes entries of room past its top (`level` only
// for Level::field; null otherwise). Every node on it has a free square in its row (refill
// relies on it): a pushed child is `alive`, and the callers push a start node only if its row
// has one.
struct Stack {
  std::uint32_t *free, *dl, *dr, *level;   // free: F
};

// Pushes the step's `keep` children on the stack at sp; returns how many.
template <Level kLevel>
NQ_VECTOR_STEP int push(const Step& s, const Stack& st, std::size_t sp) {
  if constexpr (kLevel == Level::packed) {   // the child's level is its parent's + 1, in the same bits
    const __m512i child = _mm512_add_epi32(s.nf, _mm512_set1_epi32(1 << kLevelShift));
    _mm512_storeu_si512(st.free + sp, _mm512_maskz_compress_epi32(s.keep, child));
  } else {
    _mm512_storeu_si512(st.free + sp, _mm512_maskz_compress_epi32(s.keep, s.nf));
  }
  if constexpr (kLevel == Level::field) {
    const __m512i child = _mm512_add_epi32(s.level, _mm512_set1_epi32(1));
    _mm512_storeu_si512(st.level + sp, _mm512_maskz_compress_epi32(s.keep, child));
  }
  _mm512_storeu_si512(st.dl + sp, _mm512_maskz_compress_epi32(s.keep, s.nl));
  _mm512_storeu_si512(st.dr + sp, _mm512_maskz_compress_epi32(s.keep, s.nr));
  return std::popcount(static_cast<unsigned>(s.keep));
}

// A vector loaded into a register, which the empty asm keeps there: the compiler would fold the
// load into the expand that uses it, and AMD Zen 4 runs an expand from memory so slowly that the
// counting kernel took 2.2-3.1x its time (nq_bench, N = 16-18, one and two threads, against this
// form in the same script); the load and an expand between registers are cheap on every
// AVX-512 core.
NQ_VECTOR_STEP __m512i load_reg(const void* p) {
  __m512i v = _mm512_loadu_si512(p);
  __asm__("" : "+v"(v));
  return v;
}

// Each lane's count of set bits: vpopcntd, by inline assembly, so that no function needs the
// AVX512_VPOPCNTDQ target (the compiler could then use it anywhere in them). Only for
// Level::counted, which the caller picks only where the CPU has it.
NQ_VECTOR_STEP __m512i popcount_lanes(__m512i v) {
  __m512i r;
  __asm__("vpopcntd %1, %0" : "=v"(r) : "v"(v));
  return r;
}

// Moves nodes from the top of the stack (sp entries) into the group's empty lanes and sets
// their untried squares. Returns the lanes filled (a caller carrying more fields expands them
// from st + sp with the same mask); sp drops by their number and `idle` grows by the empty
// lanes left.
template <Level kLevel>
NQ_VECTOR_STEP __mmask16 refill(const Tables& t, Group& g, const Stack& st, std::size_t& sp, int& idle) {
  const __mmask16 empty = _mm512_testn_epi32_mask(g.A, g.A);
  const auto want = static_cast<std::size_t>(std::popcount(static_cast<unsigned>(empty)));
  const std::size_t take = want < sp ? want : sp;
  idle += static_cast<int>(want - take);
  const auto fill = static_cast<__mmask16>(_pdep_u32((1u << take) - 1, empty));
  g.live = static_cast<__mmask16>(~empty | fill);   // a node from the stack has a free square
  sp -= take;
  g.F = _mm512_mask_expand_epi32(g.F, fill, load_reg(st.free + sp));
  g.L = _mm512_mask_expand_epi32(g.L, fill, load_reg(st.dl + sp));
  g.R = _mm512_mask_expand_epi32(g.R, fill, load_reg(st.dr + sp));
  if constexpr (kLevel == Level::packed)
    g.LV = _mm512_srli_epi32(g.F, kLevelShift);
  else if constexpr (kLevel == Level::counted)   // the bits F has lost
    g.LV = popcount_lanes(_mm512_ternarylogic_epi32(g.F, g.F, g.F, 0x55));
  else
    g.LV = _mm512_mask_expand_epi32(g.LV, fill, load_reg(st.level + sp));
  const __m512i free = _mm512_ternarylogic_epi32(g.F, g.L, g.R, 0x10);   // F and neither diagonal
  g.A = _mm512_mask_andnot_epi32(g.A, fill, lookup(t.blk, g.LV), free);
  return fill;
}

}  // namespace nq::core::vector_step
#endif
