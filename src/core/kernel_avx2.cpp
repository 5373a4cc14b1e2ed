// The AVX2 kernel: count_completions on CPUs without AVX-512 (AMD Zen 2 and 3, Intel before
// Skylake-SP), which have no compress, expand or mask registers. It follows the search rule of
// kernel.h exactly, so it reports the scalar search's solutions and nodes.
//
// Level-synchronous batches: the nodes waiting to be expanded are kept in one small batch per
// level, each node with its squares still untried. A step takes up to kBatch nodes of one level
// (the deepest level holding a full batch, else the shallowest holding any: the deepest would
// be a plain depth-first order, one lane busy per step and 5x slower than the scalar search), and
// each tries its lowest untried square, as in the AVX-512 walker. Since all lanes of a step
// share a level, the level's blocked squares and row gaps are scalars broadcast once per step
// rather than looked up per lane. The children that the rule keeps go to the next level's batch,
// the nodes with squares left back to their own; both by a compress made of a permutation from
// a 256-entry table. Only the deepest full batch grows the one below it, which holds fewer than kBatch
// nodes until then, so no batch ever exceeds 2 * kBatch nodes: the memory is fixed (~70 KB of
// the thread's stack) and there is no overflow path.
//
// Measured on AMD Zen 3 (2 cores, clang 14), `nqueens count` alternating in one script: N = 17
// one thread 1.4-2.0 s against the scalar search's 12.9 s; 8 vectors per step against 4 and 6,
// N = 18: 12.9 s, 14.3 s, 13.5 s (2 vectors: 20 % slower than 4 at N = 17); each node trying
// 2 or 3 squares per step before its batch is stored back: no faster.
#include <bit>
#include <cstdint>
#include "core/kernel.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#define NQ_HAVE_AVX2_KERNEL 1
#define NQ_AVX2 __attribute__((target("avx2,popcnt,bmi,bmi2,lzcnt")))
#define NQ_AVX2_INLINE __attribute__((target("avx2,popcnt,bmi,bmi2,lzcnt"), always_inline)) inline
#endif

namespace nq::core {

#if NQ_HAVE_AVX2_KERNEL
namespace {

constexpr int kLanes = 8;
constexpr int kGroups = 8;                    // vectors per step
constexpr int kBatch = kLanes * kGroups;      // nodes per step (64, as the AVX-512 walker)
constexpr int kRoom = 2 * kBatch + kLanes;    // a batch's bound, plus one vector's store past it

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
constexpr CompressTable kCompress{};

// One level's batch: its nodes' columns, diagonals (shifted to the level's row) and untried
// squares, one array per field.
struct Batch {
  alignas(32) std::uint32_t c[kRoom], l[kRoom], r[kRoom], a[kRoom];
};

struct Lanes {
  __m256i c, l, r, a;
};

NQ_AVX2_INLINE int lane_mask(__m256i v) { return _mm256_movemask_ps(_mm256_castsi256_ps(v)); }

// Appends the lanes of x set in `mask` to b at `at`.
NQ_AVX2_INLINE void compress_store(Batch& b, int at, int mask, const Lanes& x) {
  const __m256i idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(kCompress.index[mask]));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(b.c + at), _mm256_permutevar8x32_epi32(x.c, idx));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(b.l + at), _mm256_permutevar8x32_epi32(x.l, idx));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(b.r + at), _mm256_permutevar8x32_epi32(x.r, idx));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(b.a + at), _mm256_permutevar8x32_epi32(x.a, idx));
}

// (Named functions, not lambdas: a lambda does not inherit the target attribute.)
NQ_AVX2_INLINE __m256i load8(const std::uint32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
NQ_AVX2_INLINE Lanes load(const Batch& b, int at) { return {load8(b.c + at), load8(b.l + at), load8(b.r + at), load8(b.a + at)}; }

NQ_AVX2 SearchStats level_search(const RowSearch& s) {
  const int m = s.levels;
  auto blk = [&](int i) { return i < m ? s.blocked[i] : ~Mask{0}; };
  Batch batch[kMaxN];
  int count[kMaxN] = {};
  std::uint32_t full = 0, any = 1;   // levels holding >= kBatch nodes, and >= 1
  batch[0].c[0] = batch[0].l[0] = batch[0].r[0] = 0;
  batch[0].a[0] = ~blk(0);
  count[0] = 1;
  const __m256i ones = _mm256_set1_epi32(-1), lane_index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  Count solutions = 0, nodes = 0;
  while (any) {
    const int d = full ? 31 - std::countl_zero(full) : std::countr_zero(any);
    Batch& here = batch[d];
    Batch& below = batch[d + 1];
    const int taken = count[d] < kBatch ? count[d] : kBatch;
    int back = count[d] - taken, next = count[d + 1];
    const __m128i gap = _mm_cvtsi32_si128(d + 1 < m ? s.gap[d] : 1);
    const __m128i gap1 = _mm_cvtsi32_si128(d + 2 < m ? s.gap[d + 1] : 1);
    const __m256i blk1 = _mm256_set1_epi32(static_cast<int>(blk(d + 1)));
    const __m256i blk2 = _mm256_set1_epi32(static_cast<int>(blk(d + 2)));
    const bool last_parent = d == m - 2;
    Lanes x[kGroups];
    for (int h = 0; h < kGroups; ++h) {
      x[h] = load(here, back + h * kLanes);
      // Lanes past the nodes taken try nothing.
      const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(taken - h * kLanes), lane_index);
      x[h].a = _mm256_and_si256(x[h].a, valid);
    }
    for (int h = 0; h < kGroups; ++h) {
      Lanes& g = x[h];
      const __m256i bit = _mm256_and_si256(g.a, _mm256_sub_epi32(_mm256_setzero_si256(), g.a));
      const int tried = ~lane_mask(_mm256_cmpeq_epi32(bit, _mm256_setzero_si256())) & 0xFF;
      g.a = _mm256_xor_si256(g.a, bit);
      Lanes child;
      child.c = _mm256_or_si256(g.c, bit);
      child.l = _mm256_sll_epi32(_mm256_or_si256(g.l, bit), gap);
      child.r = _mm256_srl_epi32(_mm256_or_si256(g.r, bit), gap);
      const __m256i occupied = _mm256_or_si256(_mm256_or_si256(child.l, child.r), _mm256_or_si256(child.c, blk1));
      child.a = _mm256_xor_si256(occupied, ones);
      const int alive = tried & ~lane_mask(_mm256_cmpeq_epi32(occupied, ones));
      nodes += static_cast<Count>(std::popcount(static_cast<unsigned>(tried)));
      if (last_parent) {
        solutions += static_cast<Count>(std::popcount(static_cast<unsigned>(alive)));
      } else {
        const __m256i ahead = _mm256_or_si256(
            _mm256_or_si256(_mm256_sll_epi32(child.l, gap1), _mm256_srl_epi32(child.r, gap1)),
            _mm256_or_si256(child.c, blk2));
        const int keep = alive & ~lane_mask(_mm256_cmpeq_epi32(ahead, ones));
        compress_store(below, next, keep, child);
        next += std::popcount(static_cast<unsigned>(keep));
      }
      const int left = ~lane_mask(_mm256_cmpeq_epi32(g.a, _mm256_setzero_si256())) & 0xFF;
      compress_store(here, back, left, g);
      back += std::popcount(static_cast<unsigned>(left));
    }
    count[d] = back;
    count[d + 1] = next;
    const std::uint32_t bits = 3u << d;   // levels d and d + 1
    full = (full & ~bits) | (back >= kBatch ? 1u << d : 0u) | (next >= kBatch ? 2u << d : 0u);
    any = (any & ~bits) | (back > 0 ? 1u << d : 0u) | (next > 0 ? 2u << d : 0u);
  }
  return {solutions, nodes + solutions};
}

bool detect_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") &&
         __builtin_cpu_supports("bmi2");
}

}  // namespace
#endif

bool avx2_kernel_available() {
#if NQ_HAVE_AVX2_KERNEL
  static const bool available = detect_avx2();
  return available;
#else
  return false;
#endif
}

std::optional<SearchStats> count_completions_avx2(const RowSearch& s) {
#if NQ_HAVE_AVX2_KERNEL
  if (!avx2_kernel_available()) return std::nullopt;
  if (s.levels < 2) return count_completions_scalar(s);
  return level_search(s);
#else
  (void)s;
  return std::nullopt;
#endif
}

}  // namespace nq::core
