// The AVX2 walk, the one copy shared by the counting kernel (kernel_avx2.cpp) and the board
// generator's traversal (boards.cpp) on CPUs without AVX-512 (AMD Zen 2 and 3, Intel before
// Skylake-SP), which have no compress, expand or mask registers. It follows the search rule of
// kernel.h exactly, so it tries the scalar search's squares and finds its solutions. Internal to
// core: nothing outside those two files includes it.
//
// Level-synchronous batches: the nodes waiting to be expanded are kept in one small batch per
// level, each node with its squares still untried. A step takes up to kBatch nodes of one level
// (the deepest level holding a full batch, else the shallowest holding any: the deepest would
// be a plain depth-first order, one lane busy per step and 5x slower than the scalar search), and
// each tries its lowest untried square, as in the AVX-512 walker. Since all lanes of a step
// share a level, the level's blocked squares and row gaps are scalars broadcast once per step
// rather than looked up per lane. The children that the rule keeps go to the next level's batch,
// the nodes with squares left back to their own; both by a compress made of a permutation from
// a 256-entry table. Only the deepest full batch grows the one below it, which holds fewer than
// kBatch nodes until then, and the input tops the first level up to kBatch, so no batch ever
// exceeds 2 * kBatch nodes: the memory is fixed (~70 KB of the thread's stack for 4 fields per
// node) and there is no overflow path.
//
// Measured on AMD Zen 3 (2 cores, clang 14), `nqueens count` alternating in one script: N = 17
// one thread 1.4-2.0 s against the scalar search's 12.9 s; 8 vectors per step against 4 and 6,
// N = 18: 12.9 s, 14.3 s, 13.5 s (2 vectors: 20 % slower than 4 at N = 17); each node trying
// 2 or 3 squares per step before its batch is stored back: no faster.
#pragma once
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#include <bit>
#include <cstdint>
#include "core/kernel.h"

#define NQ_HAVE_LEVEL_STEP 1
// Named functions only, no lambdas, under these: a lambda does not inherit the target attribute.
#define NQ_AVX2 __attribute__((target("avx2,popcnt,bmi,bmi2,lzcnt")))
#define NQ_AVX2_INLINE __attribute__((target("avx2,popcnt,bmi,bmi2,lzcnt"), always_inline)) inline

namespace nq::core::level_step {

inline constexpr int kLanes = 8;
inline constexpr int kGroups = 8;                    // vectors per step
inline constexpr int kBatch = kLanes * kGroups;      // nodes per step (64, as the AVX-512 walker)
inline constexpr int kRoom = 2 * kBatch + kLanes;    // a batch's bound, plus one vector's store past it
// The fields of a node: its columns, its diagonals (shifted to its row), its untried squares;
// a walker's own fields follow.
inline constexpr int kCols = 0, kDl = 1, kDr = 2, kUntried = 3, kNodeFields = 4;

// compress_index[m]: the lanes set in m, lowest first (the rest are don't-care).
struct CompressTable {
  alignas(32) std::uint32_t index[256][kLanes];
  constexpr CompressTable() : index{} {
    for (int m = 0; m < 256; ++m) {
      int k = 0;
      for (int lane = 0; lane < kLanes; ++lane)
        if (m >> lane & 1) index[m][k++] = static_cast<std::uint32_t>(lane);
    }
  }
};
inline constexpr CompressTable kCompress{};

// One level's batch, one array per field.
template <int kFields>
struct Batch {
  alignas(32) std::uint32_t f[kFields][kRoom];
};
template <int kFields>
struct Lanes {
  __m256i v[kFields];
};

NQ_AVX2_INLINE int lane_mask(__m256i v) { return _mm256_movemask_ps(_mm256_castsi256_ps(v)); }
NQ_AVX2_INLINE int nonzero_lanes(__m256i v) {
  return ~lane_mask(_mm256_cmpeq_epi32(v, _mm256_setzero_si256())) & 0xFF;
}
NQ_AVX2_INLINE __m256i load8(const std::uint32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
NQ_AVX2_INLINE void store8(std::uint32_t* p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
NQ_AVX2_INLINE __m256i compress_index(int mask) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(kCompress.index[mask]));
}
// Stores the lanes of v set in the mask behind `idx` (compress_index) to p, lowest first; writes
// 8 lanes.
NQ_AVX2_INLINE void compress_store(std::uint32_t* p, __m256i idx, __m256i v) {
  store8(p, _mm256_permutevar8x32_epi32(v, idx));
}
template <int kFields>
NQ_AVX2_INLINE void compress_store(Batch<kFields>& b, int at, int mask, const Lanes<kFields>& x) {
  const __m256i idx = compress_index(mask);
  for (int i = 0; i < kFields; ++i) compress_store(b.f[i] + at, idx, x.v[i]);
}
template <int kFields>
NQ_AVX2_INLINE Lanes<kFields> load(const Batch<kFields>& b, int at) {
  Lanes<kFields> x;
  for (int i = 0; i < kFields; ++i) x.v[i] = load8(b.f[i] + at);
  return x;
}
// The index of the one set bit of each lane (garbage in lanes without one): its float's exponent
// (bit 31 converts to -2^31, whose exponent field is the same once the sign is masked off).
NQ_AVX2_INLINE __m256i bit_index(__m256i one_bit) {
  const __m256i bits = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(one_bit)), 23);
  return _mm256_sub_epi32(_mm256_and_si256(bits, _mm256_set1_epi32(0xFF)), _mm256_set1_epi32(127));
}

// The untried squares of a new node of level d, from its columns and diagonals.
constexpr Mask untried_at(const RowSearch& s, int d, Mask cols, Mask dl, Mask dr) {
  return ~(cols | dl | dr | blocked_at(s, d));
}

// Walks the subtrees of the nodes `w` gives, all of level `top` (top <= s.levels - 2), by the
// search rule; returns the squares tried. The walker w (kFields - kNodeFields fields of its own):
//   int fill(Batch<kFields>& b, int count): appends up to kBatch - count nodes of level top at
//     b's index count (their untried squares set: untried_at), returns the new count; called
//     whenever level top holds fewer than kBatch nodes, until it returns count unchanged;
//   void child(Lanes<kFields>& c, const Lanes<kFields>& parent, __m256i bit, int d): sets the
//     walker's fields of the children that parent's lanes get by trying `bit` at level d;
//   void on_solutions(int lanes, const Lanes<kFields>& parent, __m256i bit, __m256i last_free):
//     at level s.levels - 2, the lanes (a mask, maybe 0) whose square `bit` completes a solution, whose
//     last row's one free square is last_free.
template <int kFields, class Walker>
NQ_AVX2_INLINE Count walk(const RowSearch& s, int top, Walker& w) {
  const int m = s.levels;
  Batch<kFields> batch[kMaxN];
  int count[kMaxN] = {};
  std::uint32_t full = 0, any = 0;   // levels holding >= kBatch nodes, and >= 1
  bool input = true;
  const __m256i ones = _mm256_set1_epi32(-1), lane_index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  Count tried_total = 0;
  for (;;) {
    if (input && count[top] < kBatch) {
      const int filled = w.fill(batch[top], count[top]);
      input = filled != count[top];
      count[top] = filled;
      if (filled >= kBatch) full |= 1u << top;
      if (filled > 0) any |= 1u << top;
    }
    if (!any) break;
    const int d = full ? 31 - std::countl_zero(full) : std::countr_zero(any);
    Batch<kFields>& here = batch[d];
    Batch<kFields>& below = batch[d + 1];
    const int taken = count[d] < kBatch ? count[d] : kBatch;
    int back = count[d] - taken, next = count[d + 1];
    const __m128i gap = _mm_cvtsi32_si128(gap_after(s, d));
    const __m128i gap1 = _mm_cvtsi32_si128(gap_after(s, d + 1));
    const __m256i blk1 = _mm256_set1_epi32(static_cast<int>(blocked_at(s, d + 1)));
    const __m256i blk2 = _mm256_set1_epi32(static_cast<int>(blocked_at(s, d + 2)));
    const bool last_parent = d == m - 2;
    Lanes<kFields> x[kGroups];
    for (int h = 0; h < kGroups; ++h) {
      x[h] = load(here, back + h * kLanes);
      // Lanes past the nodes taken try nothing.
      const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(taken - h * kLanes), lane_index);
      x[h].v[kUntried] = _mm256_and_si256(x[h].v[kUntried], valid);
    }
    for (int h = 0; h < kGroups; ++h) {
      Lanes<kFields>& g = x[h];
      const __m256i a = g.v[kUntried];
      const __m256i bit = _mm256_and_si256(a, _mm256_sub_epi32(_mm256_setzero_si256(), a));
      const int tried = nonzero_lanes(bit);
      g.v[kUntried] = _mm256_xor_si256(a, bit);
      Lanes<kFields> child;
      child.v[kCols] = _mm256_or_si256(g.v[kCols], bit);
      child.v[kDl] = _mm256_sll_epi32(_mm256_or_si256(g.v[kDl], bit), gap);
      child.v[kDr] = _mm256_srl_epi32(_mm256_or_si256(g.v[kDr], bit), gap);
      const __m256i occupied = _mm256_or_si256(_mm256_or_si256(child.v[kDl], child.v[kDr]),
                                               _mm256_or_si256(child.v[kCols], blk1));
      child.v[kUntried] = _mm256_xor_si256(occupied, ones);
      const int alive = tried & nonzero_lanes(child.v[kUntried]);
      tried_total += static_cast<Count>(std::popcount(static_cast<unsigned>(tried)));
      if (last_parent) {
        w.on_solutions(alive, g, bit, child.v[kUntried]);
      } else {
        const __m256i ahead = _mm256_or_si256(
            _mm256_or_si256(_mm256_sll_epi32(child.v[kDl], gap1), _mm256_srl_epi32(child.v[kDr], gap1)),
            _mm256_or_si256(child.v[kCols], blk2));
        const int keep = alive & ~lane_mask(_mm256_cmpeq_epi32(ahead, ones));
        if constexpr (kFields > kNodeFields) w.child(child, g, bit, d);
        compress_store(below, next, keep, child);
        next += std::popcount(static_cast<unsigned>(keep));
      }
      const int left = nonzero_lanes(g.v[kUntried]);
      compress_store(here, back, left, g);
      back += std::popcount(static_cast<unsigned>(left));
    }
    count[d] = back;
    count[d + 1] = next;
    const std::uint32_t bits = 3u << d;   // levels d and d + 1
    full = (full & ~bits) | (back >= kBatch ? 1u << d : 0u) | (next >= kBatch ? 2u << d : 0u);
    any = (any & ~bits) | (back > 0 ? 1u << d : 0u) | (next > 0 ? 2u << d : 0u);
  }
  return tried_total;
}

}  // namespace nq::core::level_step
#endif
