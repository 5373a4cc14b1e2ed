#include "core/kernel.h"
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <vector>
#include "core/vector_step.h"
#if NQ_HAVE_VECTOR_STEP
#define NQ_HAVE_AVX512_KERNEL 1
#endif

namespace nq::core {

std::optional<Partial> place_prefix(int n, std::span<const Column> prefix) {
  if (n < 1 || n > kMaxN || prefix.size() > static_cast<std::size_t>(n)) return std::nullopt;
  Partial p{n, 0, 0, 0, 0};
  for (Column c : prefix) {
    if (c >= n || !(free_columns(p) & (Mask{1} << c))) return std::nullopt;
    p = place(p, c);
  }
  return p;
}

namespace {
// The squares of a row that a queen in column c attacks from `distance` rows away.
Mask queen_attacks(int c, int distance) {
  Mask m = Mask{1} << c;
  if (c + distance < kMaxN) m |= Mask{1} << (c + distance);
  if (c - distance >= 0) m |= Mask{1} << (c - distance);
  return m;
}
}  // namespace

Mask attacked_squares(int n, const Placement& pl, int row) {
  Mask m = 0;
  for (int r = 0; r < n; ++r) {
    if (pl[r] == kEmptyRow || r == row) continue;
    m |= queen_attacks(pl[r], row > r ? row - r : r - row);
  }
  return m;
}

std::optional<RowSearch> prepare_search(int n, const Placement& placement) {
  if (n < 1 || n > kMaxN) return std::nullopt;
  for (int r = n; r < kMaxN; ++r)
    if (placement[r] != kEmptyRow) return std::nullopt;
  RowSearch s;
  s.n = n;
  s.placement = placement;
  for (int r = 0; r < n; ++r) {
    if (placement[r] == kEmptyRow) continue;
    if (placement[r] >= n || (attacked_squares(n, placement, r) >> placement[r] & 1))
      return std::nullopt;
  }
  const Mask off_board = ~full_mask(n);
  for (int r = 0; r < n; ++r) {
    if (placement[r] != kEmptyRow) continue;
    const int i = s.levels++;
    s.row[i] = static_cast<std::uint8_t>(r);
    s.blocked[i] = attacked_squares(n, placement, r) | off_board;
    if (i > 0) s.gap[i - 1] = static_cast<std::uint8_t>(r - s.row[i - 1]);
  }
  return s;
}

RowSearch prepare_search(const Partial& p) {
  RowSearch s;
  s.n = p.n;
  s.levels = p.n - p.row;
  const Mask off_board = ~full_mask(p.n);
  for (int i = 0; i < s.levels; ++i) {
    s.row[i] = static_cast<std::uint8_t>(p.row + i);
    s.gap[i] = 1;
    s.blocked[i] = p.cols | (p.diag_l << i) | (p.diag_r >> i) | off_board;
  }
  return s;
}

namespace {

// The scalar search (see the rule in kernel.h) of the whole tree: counting without AVX-512,
// and visiting. Requires s.levels >= 2. With kVisit it writes each level's column into
// board[row] and calls on_solution() for every solution; false stops the search.
template <bool kVisit, class OnSolution>
SearchStats scalar_search(const RowSearch& s, Column* board, OnSolution&& on_solution) {
  const int m = s.levels;
  Mask blk[kMaxN + 2];
  int gap[kMaxN + 2];
  for (int i = 0; i < kMaxN + 2; ++i) {
    blk[i] = blocked_at(s, i);
    gap[i] = gap_after(s, i);
  }
  Mask cols[kMaxN], dl[kMaxN], dr[kMaxN], avail[kMaxN];
  int d = 0;
  cols[d] = dl[d] = dr[d] = 0;
  avail[d] = ~blk[d];
  Count solutions = 0, nodes = static_cast<Count>(std::popcount(avail[d]));
  for (;;) {
    if (!avail[d]) {
      if (d == 0) break;
      --d;
      continue;
    }
    const Mask bit = avail[d] & (0u - avail[d]);
    avail[d] ^= bit;
    if constexpr (kVisit) board[s.row[d]] = static_cast<Column>(std::countr_zero(bit));
    const int g = gap[d];
    const Mask nc = cols[d] | bit, nl = (dl[d] | bit) << g, nr = (dr[d] | bit) >> g;
    const Mask next = ~(nc | nl | nr | blk[d + 1]);
    if (d + 2 == m) {   // the child is in the last level: a solution if its row is free
      if (!next) continue;
      ++solutions;
      if constexpr (kVisit) {
        board[s.row[d + 1]] = static_cast<Column>(std::countr_zero(next));
        if (!on_solution()) break;
      }
      continue;
    }
    const int g2 = gap[d + 1];
    if (!next || !~(nc | (nl << g2) | (nr >> g2) | blk[d + 2])) continue;
    ++d;
    cols[d] = nc;
    dl[d] = nl;
    dr[d] = nr;
    avail[d] = next;
    nodes += static_cast<Count>(std::popcount(next));
  }
  return {solutions, nodes + solutions};
}

struct NoVisit {
  bool operator()() const { return true; }
};

#if NQ_HAVE_AVX512_KERNEL
// The vector kernel: 16-lane vectors whose lanes are nodes. Each step, every lane tries the
// lowest remaining free square of its node: it computes the child, counts it if it completes a
// solution, and the children that the rule keeps are compressed onto a shared stack; lanes
// whose node has no square left are refilled from the top of the stack. A branchy scalar search
// loses a mispredicted branch per node; here the only branch is the loop's. kGroups independent
// vectors per step hide the latency of a step's dependency chain: with 4 the step is bound by
// throughput, about 4 instructions a cycle on AMD Zen 5 (docs/performance.md).
//
// Each step refills the empty lanes before it pushes the children it found, so a refill loads
// nodes stored a step earlier, never the stores of the same step (a load spanning recent vector
// stores waits for them: 0.88x the time of the fastest order that pushes first, 6 groups;
// docs/performance.md). The stack stays last in, first out, so it stays small.
//
// The stack holds a few hundred nodes at N = 16-18 and more as the searches get deeper: up to
// ~2,100 in units of N = 22 (17 levels), 2,900-3,400 in N = 27's (20 levels), 4,427 in one of
// 22 levels, and below 4,200 in 4 of N = 28 (docs/performance.md, sessions 17-18). If it nears
// kStackCapacity (or a test's smaller limit), its bottom half (the oldest nodes, the last it
// would pop) moves to a Spill on the heap, which refills it when it empties. The search stays
// last in, first out at any depth, with no cliff: until session 18 the overflow path searched
// the top nodes with the scalar search, and a unit of N = 27 whose stack passed 4,096 took
// 1.26x its time. Boards of up to kPackedMaxN columns keep a node's level in its free-column
// mask (vector_step.h), larger ones count it from that mask where the CPU can (session 18:
// 0.64-0.93x the time at N = 28), and the stack takes 192 KB of the thread's stack (195 KB
// built with g++, below); otherwise they keep it in a fourth field (256 KB).
using namespace vector_step;
constexpr auto kStackCapacity = static_cast<std::size_t>(kVectorStackCapacity);
// Each of the stack's fields is an array of kFieldStride nodes, which the compilers lay one after
// the other. Of kStackCapacity + kLanes nodes they lie 64 bytes past whole 4 KiB pages: a
// refill's load of one field then shares the low 12 bits of its address with the last pushes'
// stores to the next field, 16 nodes further on, which store-to-load forwarding can take for a
// dependence. g++ 12's schedule of the walk then took 20-45 ns a node instead of 0.6 (AMD Zen 5,
// session 31: `nqueens count 16 --threads 1` 5.9-6.4 s against 0.14-0.16 s), so its build puts
// them 1 KiB past whole pages. clang's schedule is not hurt, and with the fields 1 or 3 KiB apart
// its walk measured 4-8 % slower (`count 18`, alternating), so it keeps them as they were
// (docs/performance.md).
#if defined(__clang__)
constexpr std::size_t kFieldStride = kStackCapacity + kLanes;
#else
constexpr std::size_t kFieldStride = kStackCapacity + kLanes + 240;
static_assert(kFieldStride * sizeof(Mask) % 4096 == 1024);
#endif

// The stack's continuation on the heap: the nodes moved off its bottom, oldest first.
struct Spill {
  std::vector<Mask> free, dl, dr;
  std::vector<std::uint32_t> level;   // Level::field only
  std::size_t peak = 0;               // the most nodes it held
};

// Calls f(stack array, spill vector) for each field the layout keeps on the stack.
template <Level kLevel, class F>
void each_field(const Stack& st, Spill& spill, F&& f) {
  f(st.free, spill.free);
  f(st.dl, spill.dl);
  f(st.dr, spill.dr);
  if constexpr (kLevel == Level::field) f(st.level, spill.level);
}

// Moves the stack's bottom sp - keep nodes to the spill's top; returns keep (the new sp).
template <Level kLevel>
[[gnu::noinline, gnu::cold]] std::size_t spill_bottom(const Stack& st, std::size_t sp, std::size_t keep, Spill& out) {
  const std::size_t moved = sp - keep;
  each_field<kLevel>(st, out, [&](std::uint32_t* field, std::vector<std::uint32_t>& to) {
    to.insert(to.end(), field, field + moved);
    std::memmove(field, field + moved, keep * sizeof *field);
  });
  out.peak = std::max(out.peak, out.free.size());
  return keep;
}

// Moves up to `room` nodes from the spill's top onto the empty stack; returns how many (sp).
template <Level kLevel>
[[gnu::noinline, gnu::cold]] std::size_t restore(const Stack& st, std::size_t room, Spill& from) {
  if (from.free.empty()) return 0;
  const std::size_t k = std::min(room, from.free.size());
  each_field<kLevel>(st, from, [&](std::uint32_t* field, std::vector<std::uint32_t>& v) {
    std::copy(v.end() - static_cast<std::ptrdiff_t>(k), v.end(), field);
    v.resize(v.size() - k);
  });
  return k;
}

#define NQ_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,popcnt,bmi,bmi2")))
#if !defined(__clang__)
// gcc 12's intrinsics headers trip -Wuninitialized on their own _mm512_undefined idiom.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

template <Level kLevel>
[[gnu::noinline]] NQ_AVX512 SearchStats vector_search(const RowSearch& s, int stack_limit, Spill& spill) {
  const Tables t = make_tables(s);
  alignas(64) Mask st_free[kFieldStride], st_dl[kFieldStride], st_dr[kFieldStride];
  constexpr bool kPacked = kLevel == Level::packed, kField = kLevel == Level::field;
  alignas(64) std::uint32_t st_level[kField ? kFieldStride : 1];
  const Stack st{st_free, st_dl, st_dr, kField ? st_level : nullptr};
  constexpr Mask kColumns = kPacked ? (Mask{1} << kLevelShift) - 1 : ~Mask{0};   // F's column bits
  std::size_t sp = 0;
  constexpr auto push_max = static_cast<std::size_t>(kPushMax);
  const auto wanted = static_cast<std::size_t>(std::max(stack_limit, 0));
  const std::size_t limit = wanted < 2 * push_max ? 2 * push_max : wanted > kStackCapacity ? kStackCapacity : wanted;

  const __m512i zero = _mm512_setzero_si512();
  Group g[kGroups];
  for (Group& x : g) x = {_mm512_set1_epi32(static_cast<int>(kColumns)), zero, zero, zero, zero};   // level 0, every column free
  g[0].A = _mm512_maskz_mov_epi32(1, _mm512_set1_epi32(static_cast<int>(~s.blocked[0])));   // the root
  g[0].live = _mm512_test_epi32_mask(g[0].A, g[0].A);
  Count solutions = 0, nodes = static_cast<Count>(std::popcount(static_cast<unsigned>(g[0].live)));
  for (;;) {
    // Cold, in one branch: the stack is near full (its bottom moves to the spill), or empty
    // (the spill's top, if any, moves back: nodes older than the lanes', so still last in,
    // first out). With a second branch, clang kept fewer of the groups in registers.
    if (sp - 1 >= limit - push_max) [[unlikely]]
      sp = sp ? spill_bottom<kLevel>(st, sp, limit / 2, spill) : restore<kLevel>(st, limit / 2, spill);
    Step x[kGroups];
    std::uint64_t solved = 0;   // the groups' solution masks side by side (kGroups * kLanes <= 64)
NQ_UNROLL_GROUPS
    for (int h = 0; h < kGroups; ++h) {
      x[h] = step<kPacked ? kPackedMaxN : kMaxN>(t, g[h]);
      solved |= static_cast<std::uint64_t>(x[h].solved) << (kLanes * h);
    }
    solutions += static_cast<Count>(std::popcount(solved));
    int idle = 0;
NQ_UNROLL_GROUPS
    for (int h = 0; h < kGroups; ++h) refill<kLevel>(t, g[h], st, sp, idle);
    nodes += static_cast<Count>(kPushMax - idle);   // the next step tries a square in each live lane
    std::size_t pushed = 0;
NQ_UNROLL_GROUPS
    for (int h = 0; h < kGroups; ++h) pushed += static_cast<std::size_t>(push<kLevel>(x[h], st, sp + pushed));
    sp += pushed;
    // Every lane empty, the stack and the spill too, and no child.
    if (idle == kPushMax && pushed == 0 && spill.free.empty()) break;
  }
  return {solutions, nodes + solutions};
}

std::atomic<bool> level_count_allowed{true};

// Where the counting kernel keeps a node's level on boards of n columns (vector_step.h).
Level level_layout(int n) {
  if (n <= kPackedMaxN) return Level::packed;
  return level_count_available() && level_count_allowed.load(std::memory_order_relaxed) ? Level::counted
                                                                                          : Level::field;
}

// The spill lives here, so that the walk above has no destructor to run (with one there and a
// second cold branch, clang's walk took 1.18x the time; with the restore in an outer loop, 1.12x).
NQ_AVX512 SearchStats vector_search(const RowSearch& s, int stack_limit, VectorMemory* memory = nullptr) {
  Spill spill;
  const Level level = level_layout(s.n);
  const SearchStats stats = level == Level::packed  ? vector_search<Level::packed>(s, stack_limit, spill)
                            : level == Level::counted ? vector_search<Level::counted>(s, stack_limit, spill)
                                                      : vector_search<Level::field>(s, stack_limit, spill);
  if (memory) {
    const std::size_t node_bytes = (level == Level::field ? 4 : 3) * sizeof(std::uint32_t);   // the fields of Stack it uses
    *memory = {kFieldStride * node_bytes, spill.peak * node_bytes};
  }
  return stats;
}

#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

bool detect_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi2");
}
#endif

}  // namespace

namespace {
std::atomic<KernelChoice> kernel_choice{KernelChoice::fastest};
KernelChoice chosen_kernel() { return kernel_choice.load(std::memory_order_relaxed); }
}  // namespace

void choose_kernel(KernelChoice choice) { kernel_choice.store(choice, std::memory_order_relaxed); }

void allow_level_count(bool allowed) {
#if NQ_HAVE_AVX512_KERNEL
  level_count_allowed.store(allowed, std::memory_order_relaxed);
#else
  (void)allowed;
#endif
}

bool level_count_available() {
#if NQ_HAVE_AVX512_KERNEL
  static const bool available = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vpopcntdq") != 0;
  }();
  return available && vector_kernel_available();
#else
  return false;
#endif
}

bool vector_kernel_available() {
#if NQ_HAVE_AVX512_KERNEL
  static const bool available = detect_avx512();
  return available;
#else
  return false;
#endif
}

SearchStats count_completions_scalar(const RowSearch& s) {
  if (s.levels == 0) return {1, 0};
  if (s.levels == 1) {
    const auto c = static_cast<Count>(std::popcount(~s.blocked[0]));
    return {c, c};
  }
  return scalar_search<false>(s, nullptr, NoVisit{});
}

const char* kernel_name() {
  const KernelChoice k = chosen_kernel();
  if (k == KernelChoice::fastest && vector_kernel_available()) return "AVX-512";
  return k != KernelChoice::scalar && avx2_kernel_available() ? "AVX2" : "scalar";
}

SearchStats count_completions(const RowSearch& s) {
  const KernelChoice k = chosen_kernel();
  if (s.levels >= 2 && k != KernelChoice::scalar) {
#if NQ_HAVE_AVX512_KERNEL
    if (k == KernelChoice::fastest && vector_kernel_available()) return vector_search(s, kVectorStackCapacity);
#endif
    if (const auto st = count_completions_avx2(s)) return *st;
  }
  return count_completions_scalar(s);
}

std::optional<SearchStats> count_completions_vector(const RowSearch& s, int stack_limit, VectorMemory* memory) {
  if (memory) *memory = {};
#if NQ_HAVE_AVX512_KERNEL
  if (!vector_kernel_available()) return std::nullopt;
  if (s.levels < 2) return count_completions_scalar(s);
  return vector_search(s, stack_limit, memory);
#else
  (void)s;
  (void)stack_limit;
  return std::nullopt;
#endif
}

SearchStats count_completions(const Partial& p) { return count_completions(prepare_search(p)); }

namespace {
// The search below s's first level with its queen in column c: s's other levels, blocked also
// where that queen attacks.
RowSearch place_first(const RowSearch& s, int c) {
  RowSearch t;
  t.n = s.n;
  t.levels = s.levels - 1;
  t.placement = s.placement;
  t.placement[s.row[0]] = static_cast<Column>(c);
  for (int i = 0; i < t.levels; ++i) {
    t.row[i] = s.row[i + 1];
    t.gap[i] = s.gap[i + 1];
    t.blocked[i] = s.blocked[i + 1] | queen_attacks(c, s.row[i + 1] - s.row[0]);
  }
  return t;
}
}  // namespace

SearchStats count_completions(const RowSearch& s, const CancelFlag& cancel, int split_levels, Heartbeat* beat) {
  if (cancel.load(std::memory_order_relaxed)) throw_cancelled();
  if (beat) beat->store(steady_nanoseconds(), std::memory_order_relaxed);
  if (s.levels <= std::max(split_levels, 2)) return count_completions(s);
  SearchStats total;
  for (Mask open = ~s.blocked[0]; open; open &= open - 1) {
    ++total.nodes;   // the square tried
    const RowSearch child = place_first(s, std::countr_zero(open));
    // The rule (kernel.h): expanded if its row and the next have a free square (levels >= 2).
    if (~child.blocked[0] && ~child.blocked[1]) total += count_completions(child, cancel, split_levels, beat);
  }
  return total;
}

SearchStats visit_completions(const RowSearch& s, const BoardFn& f) {
  Column board[kMaxN] = {};
  for (int r = 0; r < s.n; ++r)
    if (s.placement[r] != kEmptyRow) board[r] = s.placement[r];
  const BoardView view(board, static_cast<std::size_t>(s.n));
  if (s.levels == 0) {
    f(view);
    return {1, 0};
  }
  if (s.levels == 1) {
    const Mask free = ~s.blocked[0];
    if (!free) return {0, 0};
    board[s.row[0]] = static_cast<Column>(std::countr_zero(free));
    f(view);
    return {1, 1};
  }
  return scalar_search<true>(s, board, [&] { return f(view); });
}

SearchStats visit_completions(const Partial& p, std::span<const Column> prefix, const BoardFn& f) {
  RowSearch s = prepare_search(p);
  for (std::size_t r = 0; r < prefix.size() && r < static_cast<std::size_t>(p.row); ++r)
    s.placement[r] = prefix[r];
  return visit_completions(s, f);
}

namespace {
// kNodes only exists for bench/'s node column; the timed instantiation is the plain search.
template <bool kNodes>
void reference_search(Mask full, Mask cols, Mask dl, Mask dr, Count& solutions, Count& nodes) {
  if constexpr (kNodes) ++nodes;
  if (cols == full) {
    ++solutions;
    return;
  }
  Mask avail = full & ~(cols | dl | dr);
  while (avail) {
    const Mask bit = avail & (0u - avail);
    avail -= bit;
    reference_search<kNodes>(full, cols | bit, (dl | bit) << 1, (dr | bit) >> 1, solutions, nodes);
  }
}

template <bool kNodes>
SearchStats reference_part(int n, int c) {
  const Mask full = full_mask(n), bit = Mask{1} << c;
  SearchStats st;
  reference_search<kNodes>(full, bit, bit << 1, bit >> 1, st.solutions, st.nodes);
  return st;
}
}  // namespace

Count reference_first_row(int n, int c) { return reference_part<false>(n, c).solutions; }
SearchStats reference_first_row_nodes(int n, int c) { return reference_part<true>(n, c); }

Count reference_total(int n) {
  Count half = 0, middle = 0;
  for (int c = 0; c < n / 2; ++c) half += reference_first_row(n, c);
  if (n % 2) middle = reference_first_row(n, n / 2);
  return 2 * half + middle;
}

}  // namespace nq::core
