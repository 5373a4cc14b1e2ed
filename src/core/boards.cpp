#include "core/boards.h"
#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include "core/level_step.h"
#include "core/vector_step.h"
#if NQ_HAVE_VECTOR_STEP
#define NQ_HAVE_AVX512_BOARDS 1
#define NQ_BOARDS_AVX512 __attribute__((target("avx512f,popcnt,bmi,bmi2")))
#endif
#if NQ_HAVE_AVX512_BOARDS || NQ_HAVE_LEVEL_STEP
#define NQ_HAVE_VECTOR_BOARDS 1
#endif

namespace nq::core {

namespace {

// Row 0 of the image of `p` (a board, or a unit's pre-placement: kEmptyRow for an empty row)
// under each symmetry, when p has a queen on each of its four sides (rows 0 and n-1, column 0,
// column n-1; a corner queen is on two): a symmetry maps sides to sides, so row 0 of an image
// is the image of one of them, and images compare there first with no transform. For a unit
// that pre-places its border, every completion has these values. nullopt otherwise.
std::optional<std::array<int, kSymmetries>> image_first_rows(std::span<const Column> p) {
  const int n = static_cast<int>(p.size());
  if (n == 0 || p.front() == kEmptyRow || p.back() == kEmptyRow) return std::nullopt;
  int row[4] = {0, n - 1, -1, -1}, col[4] = {p.front(), p.back(), 0, n - 1};
  for (int r = 0; r < n; ++r) {
    if (p[static_cast<std::size_t>(r)] == 0) row[2] = r;
    if (p[static_cast<std::size_t>(r)] == n - 1) row[3] = r;
  }
  if (row[2] < 0 || row[3] < 0) return std::nullopt;
  std::array<int, kSymmetries> first{};
  for (int k = 0; k < kSymmetries; ++k)
    for (int i = 0; i < 4; ++i) {
      int r = row[i], c = col[i];
      map_square(n, k, r, c);
      if (r == 0) first[static_cast<std::size_t>(k)] = c;
    }
  return first;
}
std::optional<std::array<int, kSymmetries>> image_first_rows(const UnitPlan& plan, const WorkUnit& u) {
  return image_first_rows(std::span<const Column>(u.placement).first(static_cast<std::size_t>(plan.n())));
}
constexpr int inverse_symmetry(int k) { return k < 4 ? (4 - k) % 4 : k; }   // reflections are involutions

// True if symmetry k is one of the unit's image symmetries G.
bool has_image(const UnitPlan::Images& im, int k) {
  return std::find(im.symmetries.begin(), im.symmetries.begin() + im.count, k) != im.symmetries.begin() + im.count;
}

// The symmetries K0 whose images have the smallest row 0 (only they can give the canonical
// image), in order of k, each marked if it is one of the unit's image symmetries G.
struct SmallestFirstRow {
  int count = 0;
  int sym[kSymmetries] = {};
  bool in_g[kSymmetries] = {};
  bool any_in_g = false;
};
SmallestFirstRow smallest_first_row(const std::array<int, kSymmetries>& first, const UnitPlan::Images& im) {
  SmallestFirstRow k0;
  const int smallest = *std::min_element(first.begin(), first.end());
  for (int k = 0; k < kSymmetries; ++k) {
    if (first[static_cast<std::size_t>(k)] != smallest) continue;
    k0.in_g[k0.count] = has_image(im, k);
    k0.any_in_g |= k0.in_g[k0.count];
    k0.sym[k0.count++] = k;
  }
  return k0;
}

// True if no image of `b` is lexicographically smaller; with `first` (b's image_first_rows),
// only the images whose row 0 ties with b's are transformed.
bool no_smaller_image(BoardView b, const std::optional<std::array<int, kSymmetries>>& first) {
  Column image[kMaxN];
  const BoardView view(image, b.size());
  for (int k = 1; k < kSymmetries; ++k) {
    if (first) {
      const int row0 = (*first)[static_cast<std::size_t>(k)];
      if (row0 > b[0]) continue;
      if (row0 < b[0]) return false;
    }
    transform_into(b, k, image);
    if (std::ranges::lexicographical_compare(view, b)) return false;
  }
  return true;
}

bool fills_placement(BoardView b, const Placement& p) {
  for (std::size_t r = 0; r < b.size(); ++r)
    if (p[r] != kEmptyRow && b[r] != p[r]) return false;
  return true;
}

}  // namespace

bool is_canonical(BoardView b) { return no_smaller_image(b, image_first_rows(b)); }

namespace {

// ---- completions by the vector traversal ----------------------------------------------------
//
// The levels of the search split in two: a scalar walk over levels 0..F-1 gives the frontier
// nodes (level F) in lexicographic order, each with the columns of its levels; the vector walk
// then searches the frontier nodes' subtrees 16 x 3 lanes at a time, as the vector counting
// kernel does (same rule, same nodes), every lane carrying the columns of the levels F..m-3 of
// its node in 5-bit fields (kWindow levels: F = m - 2 - kWindow). A solution found at a lane is
// a key (frontier index, those columns, the columns of the last two levels) whose order is the
// lexicographic order of the boards; the keys of a batch of frontier nodes are sorted and
// turned into boards. The stacks grow on demand (no fixed limit, no fallback path).

constexpr int kWindow = 6;                 // levels carried by a lane: 6 x 5 bits = 30 bits
constexpr std::size_t kMaxSeedBatch = std::size_t{1} << 24;   // frontier indices in a key: 24 bits
constexpr int kColumnBits = 5;             // a column < 32
// Where a node of level d carries its column (levels f..m-3 are carried), else 0.
constexpr int carried_shift(int m, int f, int d) { return d >= f && d <= m - 3 ? kColumnBits * (m - 3 - d) : 0; }

// The scalar walk over levels 0..f-1 (f <= s.levels - 2): calls on_seed(cols, dl, dr, path)
// for every node of level f the search rule keeps (f = 0: the root, if its row has a free
// square), in lexicographic order (path: the columns of levels 0..f-1). Returns the squares
// it tried (each a node of the rule).
template <class OnSeed>
Count walk_to_frontier(const RowSearch& s, int f, OnSeed&& on_seed) {
  Column path[kMaxN] = {};
  if (f == 0) {   // the root, if its row has a free square (the vector walk's stack holds no other)
    if (~s.blocked[0]) on_seed(Mask{0}, Mask{0}, Mask{0}, path);
    return 0;
  }
  Mask cols[kMaxN], dl[kMaxN], dr[kMaxN], avail[kMaxN];
  int d = 0;
  cols[0] = dl[0] = dr[0] = 0;
  avail[0] = ~s.blocked[0];
  Count tried = 0;
  for (;;) {
    if (!avail[d]) {
      if (d == 0) break;
      --d;
      continue;
    }
    const Mask bit = avail[d] & (0u - avail[d]);
    avail[d] ^= bit;
    ++tried;
    path[d] = static_cast<Column>(std::countr_zero(bit));
    const int g = s.gap[d], g2 = s.gap[d + 1];   // d + 2 <= f + 1 < s.levels
    const Mask nc = cols[d] | bit, nl = (dl[d] | bit) << g, nr = (dr[d] | bit) >> g;
    const Mask next = ~(nc | nl | nr | s.blocked[d + 1]);
    if (!next || !~(nc | (nl << g2) | (nr >> g2) | s.blocked[d + 2])) continue;
    if (d + 1 == f) {
      on_seed(nc, nl, nr, path);
      continue;
    }
    ++d;
    cols[d] = nc;
    dl[d] = nl;
    dr[d] = nr;
    avail[d] = next;
  }
  return tried;
}

#if NQ_HAVE_VECTOR_BOARDS
// Room for a step's stores (pushes or solutions) past the top: 64 nodes and a vector of 16
// lanes (each walker checks it below).
constexpr std::size_t kSlack = 64 + 16;

// The buffers of a vector walk, reused across units by a thread.
struct Workspace {
  // The stack of nodes: masks of the node's row, level, frontier index, columns carried.
  std::vector<std::uint32_t> cols, dl, dr, level, id, path;
  // The solutions found: frontier index, columns carried, last two columns (5 bits each).
  std::vector<std::uint32_t> f_id, f_path, f_tail;
  std::vector<std::uint64_t> keys;
  std::vector<Column> prefixes;   // f columns per frontier node of the batch
  std::size_t seeds = 0;

  void grow_stack(std::size_t need) {
    if (cols.size() >= need) return;
    const std::size_t size = std::max(need, 2 * cols.size());
    for (auto* v : {&cols, &dl, &dr, &level, &id, &path}) v->resize(size);
  }
  void grow_found(std::size_t need) {
    if (f_id.size() >= need) return;
    const std::size_t size = std::max(need, 2 * f_id.size());
    for (auto* v : {&f_id, &f_path, &f_tail}) v->resize(size);
  }
};

#endif   // NQ_HAVE_VECTOR_BOARDS

#if NQ_HAVE_AVX512_BOARDS
using namespace vector_step;
static_assert(kSlack >= kPushMax + kLanes);

#if !defined(__clang__)
// gcc 12's intrinsics headers trip -W(maybe-)uninitialized on their own _mm512_undefined idiom.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// The index of the one set bit of each lane (garbage in lanes without one): its float's exponent.
NQ_BOARDS_AVX512 inline __attribute__((always_inline)) __m512i bit_index(__m512i one_bit) {
  const __m512i exponent = _mm512_srli_epi32(_mm512_castps_si512(_mm512_cvtepu32_ps(one_bit)), 23);
  return _mm512_sub_epi32(exponent, _mm512_set1_epi32(127));
}

// Searches the subtrees of the w.seeds frontier nodes on the stack (level f); appends their
// solutions to w.f_*; returns the squares tried. The vector kernel's step (core/vector_step.h),
// each node also carrying its frontier index and the columns of its levels from f on.
NQ_BOARDS_AVX512 Count vector_walk(const RowSearch& s, int f, Workspace& w, std::size_t& found) {
  const int m = s.levels;
  const Tables t = make_tables(s);
  alignas(64) std::uint32_t t_shift[32];   // where a node of level d carries its column
  for (int d = 0; d < 32; ++d)
    t_shift[d] = static_cast<std::uint32_t>(carried_shift(m, f, d));
  const LevelTable shift{_mm512_load_si512(t_shift), _mm512_load_si512(t_shift + 16)};
  const __m512i zero = _mm512_setzero_si512();
  Group g[kGroups];
  __m512i ID[kGroups], P[kGroups];
  for (int h = 0; h < kGroups; ++h) {
    g[h] = {zero, zero, zero, zero, zero};
    ID[h] = P[h] = zero;
  }
  std::size_t sp = w.seeds;
  for (std::size_t i = 0; i < sp; ++i) w.cols[i] = ~w.cols[i];   // the step keeps free columns
  Count tried_total = 0;
  for (;;) {
    w.grow_stack(sp + kSlack);
    w.grow_found(found + kSlack);
    const Stack st{w.cols.data(), w.dl.data(), w.dr.data(), w.level.data()};
    std::uint32_t *st_id = w.id.data(), *st_path = w.path.data();
NQ_UNROLL_GROUPS
    for (int h = 0; h < kGroups; ++h) {
      const Step x = step<kMaxN>(t, g[h]);
      tried_total += static_cast<Count>(std::popcount(static_cast<unsigned>(x.tried)));
      const __m512i col = bit_index(x.bit);
      const __mmask16 emit = x.solved;
      if (emit) {
        const __m512i last = bit_index(_mm512_and_si512(x.open, x.nf));
        const __m512i tail = _mm512_or_si512(_mm512_slli_epi32(col, kColumnBits), last);
        _mm512_storeu_si512(w.f_id.data() + found, _mm512_maskz_compress_epi32(emit, ID[h]));
        _mm512_storeu_si512(w.f_path.data() + found, _mm512_maskz_compress_epi32(emit, P[h]));
        _mm512_storeu_si512(w.f_tail.data() + found, _mm512_maskz_compress_epi32(emit, tail));
        found += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(emit)));
      }
      const __m512i np = _mm512_or_si512(P[h], _mm512_sllv_epi32(col, lookup(shift, g[h].LV)));
      _mm512_storeu_si512(st_id + sp, _mm512_maskz_compress_epi32(x.keep, ID[h]));
      _mm512_storeu_si512(st_path + sp, _mm512_maskz_compress_epi32(x.keep, np));
      sp += static_cast<std::size_t>(push<Level::field>(x, st, sp));
    }
    int idle = 0;
NQ_UNROLL_GROUPS
    for (int h = 0; h < kGroups; ++h) {
      const __mmask16 fill = refill<Level::field>(t, g[h], st, sp, idle);
      ID[h] = _mm512_mask_expand_epi32(ID[h], fill, load_reg(st_id + sp));
      P[h] = _mm512_mask_expand_epi32(P[h], fill, load_reg(st_path + sp));
    }
    if (idle == kPushMax) break;   // every lane empty and the stack too
  }
  return tried_total;
}

#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif   // NQ_HAVE_AVX512_BOARDS

#if NQ_HAVE_LEVEL_STEP
// The same search by the AVX2 level walk (core/level_step.h): nodes carry the frontier index and
// the columns of their levels from f on as two more fields.
namespace ls = level_step;
constexpr int kId = ls::kNodeFields, kPath = ls::kNodeFields + 1, kBoardFields = ls::kNodeFields + 2;
static_assert(kSlack >= ls::kBatch + ls::kLanes);

struct BoardWalker {
  const RowSearch& s;
  int f;
  Workspace& w;
  std::size_t& found;
  std::size_t next_seed = 0;

  NQ_AVX2_INLINE int fill(ls::Batch<kBoardFields>& b, int count) {
    while (count < ls::kBatch && next_seed < w.seeds) {
      const std::size_t i = next_seed++;
      b.f[ls::kCols][count] = w.cols[i];
      b.f[ls::kDl][count] = w.dl[i];
      b.f[ls::kDr][count] = w.dr[i];
      b.f[ls::kUntried][count] = ls::untried_at(s, f, w.cols[i], w.dl[i], w.dr[i]);
      b.f[kId][count] = w.id[i];
      b.f[kPath][count] = w.path[i];
      ++count;
    }
    return count;
  }
  NQ_AVX2_INLINE void child(ls::Lanes<kBoardFields>& c, const ls::Lanes<kBoardFields>& parent, __m256i bit, int d) {
    const int shift = carried_shift(s.levels, f, d);
    c.v[kId] = parent.v[kId];
    c.v[kPath] = _mm256_or_si256(parent.v[kPath], _mm256_sll_epi32(ls::bit_index(bit), _mm_cvtsi32_si128(shift)));
  }
  NQ_AVX2_INLINE void on_solutions(int lanes, const ls::Lanes<kBoardFields>& parent, __m256i bit, __m256i last_free) {
    if (!lanes) return;
    w.grow_found(found + kSlack);
    const __m256i tail = _mm256_or_si256(_mm256_slli_epi32(ls::bit_index(bit), kColumnBits), ls::bit_index(last_free));
    const __m256i idx = ls::compress_index(lanes);
    ls::compress_store(w.f_id.data() + found, idx, parent.v[kId]);
    ls::compress_store(w.f_path.data() + found, idx, parent.v[kPath]);
    ls::compress_store(w.f_tail.data() + found, idx, tail);
    found += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(lanes)));
  }
};

NQ_AVX2 Count level_walk(const RowSearch& s, int f, Workspace& w, std::size_t& found) {
  BoardWalker walker{s, f, w, found};
  return ls::walk<kBoardFields>(s, f, walker);
}
#endif   // NQ_HAVE_LEVEL_STEP

#if NQ_HAVE_VECTOR_BOARDS
// The batch's solutions, sorted, as boards appended to `out`.
void emit_batch(const RowSearch& s, int f, Workspace& w, std::size_t found, std::vector<Column>& out) {
  const int m = s.levels;
  w.keys.resize(found);
  for (std::size_t i = 0; i < found; ++i)
    w.keys[i] = std::uint64_t{w.f_id[i]} << 40 | std::uint64_t{w.f_path[i]} << 10 | w.f_tail[i];
  std::sort(w.keys.begin(), w.keys.end());
  const auto n = static_cast<std::size_t>(s.n);
  Column base[kMaxN] = {};
  for (int r = 0; r < s.n; ++r)
    if (s.placement[r] != kEmptyRow) base[r] = s.placement[r];
  std::size_t at = out.size();
  out.resize(at + found * n);
  for (const std::uint64_t key : w.keys) {
    Column* b = out.data() + at;
    std::memcpy(b, base, n);
    const Column* prefix = w.prefixes.data() + (key >> 40) * static_cast<std::size_t>(f);
    for (int l = 0; l < f; ++l) b[s.row[l]] = prefix[l];
    const auto carried = static_cast<std::uint32_t>(key >> 10) & ((1u << 30) - 1);
    for (int l = f; l <= m - 3; ++l)
      b[s.row[l]] = static_cast<Column>(carried >> carried_shift(m, f, l) & 31);
    b[s.row[m - 2]] = static_cast<Column>(key >> 5 & 31);
    b[s.row[m - 1]] = static_cast<Column>(key & 31);
    at += n;
  }
}

SearchStats vector_completions(const RowSearch& s, std::vector<Column>& out, std::size_t seed_batch) {
  thread_local Workspace w;
  const int m = s.levels;
  const int f = std::max(0, m - 2 - kWindow);
  Count solutions = 0, tried = 0;
  w.seeds = 0;
  w.prefixes.clear();
  auto run_batch = [&] {
    std::size_t found = 0;
#if NQ_HAVE_AVX512_BOARDS
    if (vector_kernel_available())
      tried += vector_walk(s, f, w, found);
    else
#endif
      tried += level_walk(s, f, w, found);
    emit_batch(s, f, w, found, out);
    solutions += found;
    w.seeds = 0;
    w.prefixes.clear();
  };
  tried += walk_to_frontier(s, f, [&](Mask cols, Mask dl, Mask dr, const Column* path) {
    w.grow_stack(w.seeds + kSlack);
    w.cols[w.seeds] = cols;
    w.dl[w.seeds] = dl;
    w.dr[w.seeds] = dr;
    w.level[w.seeds] = static_cast<std::uint32_t>(f);
    w.id[w.seeds] = static_cast<std::uint32_t>(w.seeds);
    w.path[w.seeds] = 0;
    w.prefixes.insert(w.prefixes.end(), path, path + f);
    if (++w.seeds == seed_batch) run_batch();
  });
  if (w.seeds) run_batch();
  return {solutions, tried + solutions};
}
#endif   // NQ_HAVE_VECTOR_BOARDS

SearchStats scalar_completions(const RowSearch& s, std::vector<Column>& out) {
  return visit_completions(s, [&](BoardView b) {
    out.insert(out.end(), b.begin(), b.end());
    return true;
  });
}


}  // namespace

std::optional<SearchStats> append_completions_vector(const RowSearch& s, std::vector<Column>& out,
                                                     std::size_t seed_batch) {
#if NQ_HAVE_VECTOR_BOARDS
  if (!vector_kernel_available() && !avx2_kernel_available()) return std::nullopt;
  if (s.levels < 2) return scalar_completions(s, out);
  return vector_completions(s, out, std::clamp<std::size_t>(seed_batch, 1, kMaxSeedBatch));
#else
  (void)s;
  (void)out;
  (void)seed_batch;
  return std::nullopt;
#endif
}

SearchStats append_completions(const RowSearch& s, std::vector<Column>& out) {
  if (auto st = append_completions_vector(s, out)) return *st;
  return scalar_completions(s, out);
}

void append_unit_images(const UnitPlan& plan, const WorkUnit& u, std::span<const Column> completions,
                        std::vector<Column>& out) {
  const UnitPlan::Images im = plan.image_symmetries(u);
  const auto n = static_cast<std::size_t>(plan.n());
  std::size_t at = out.size();
  out.resize(at + completions.size() * static_cast<std::size_t>(im.count));
  for (std::size_t j = 0; j < completions.size(); j += n) {
    const BoardView b = completions.subspan(j, n);
    for (int i = 0; i < im.count; ++i, at += n) transform_into(b, im.symmetries[i], out.data() + at);
  }
}

SearchStats append_unit_boards(const UnitPlan& plan, const WorkUnit& u, BoardSet set,
                               std::vector<Column>& boards, std::vector<std::uint8_t>& class_sizes) {
  if (set == BoardSet::classes) return append_unit_results(plan, u, set, boards, class_sizes);
  thread_local std::vector<Column> completions;
  completions.clear();
  const SearchStats st = append_unit_results(plan, u, set, completions, class_sizes);
  append_unit_images(plan, u, completions, boards);
  return st;
}

// Class mode. Every completion b of a unit comes with its images g(b), g in the unit's image
// symmetries G (UnitPlan::image_symmetries): a group of boards of one class, and every board of
// the plan is in exactly one group, so the class's canonical (smallest) board is in exactly one
// group: the unit emits it from there. The canonical image's row 0 is the smallest row 0 of the
// eight images; with the border pre-placed those rows are the unit's (image_first_rows), so only
// the symmetries K0 reaching the smallest can give the canonical board, and it is in b's group
// only if it is g(b) for some g in G and K0. Usually K0 has one symmetry h: every completion
// emits h(b) (h in G) or none does (the unit is then only counted).
SearchStats append_unit_results(const UnitPlan& plan, const WorkUnit& u, BoardSet set,
                                std::vector<Column>& boards, std::vector<std::uint8_t>& class_sizes) {
  const RowSearch s = plan.checked_search(u);
  if (set == BoardSet::all) return append_completions(s, boards);
  const UnitPlan::Images im = plan.image_symmetries(u);
  const auto n = static_cast<std::size_t>(plan.n());
  thread_local std::vector<Column> completions;
  // The class boards in buckets by the symmetry k that gives them from their completion (the
  // smallest such k of G), each bucket in the completions' order, the buckets in order of k: a
  // bucket's boards are one symmetry's images of lexicographically ordered completions, so each
  // column keeps the completions' runs (N = 16: 4.75 -> 4.44 bytes a board; docs/performance.md).
  // check_unit_boards checks that order.
  thread_local std::array<std::vector<Column>, kSymmetries> bucket;
  for (auto& v : bucket) v.clear();
  auto emit = [&](int k, BoardView c) {
    auto& v = bucket[static_cast<std::size_t>(k)];
    v.insert(v.end(), c.begin(), c.end());
  };
  const auto first = image_first_rows(plan, u);
  const SmallestFirstRow k0 = first ? smallest_first_row(*first, im) : SmallestFirstRow{};
  if (first && !k0.any_in_g) return count_completions(s);   // no canonical board here: count only
  completions.clear();
  const SearchStats st = append_completions(s, completions);
  Column image[kSymmetries][kMaxN], canon[kMaxN];
  const BoardView c(canon, n);
  for (std::size_t j = 0; j < completions.size(); j += n) {
    const BoardView b(completions.data() + j, n);
    if (!first) {   // the general case: the canonical form, looked for in the group
      canonical_into(b, canon);
      for (int k = 0; k < kSymmetries; ++k) {
        if (!has_image(im, k)) continue;
        transform_into(b, k, image[0]);
        if (std::equal(c.begin(), c.end(), image[0])) {
          emit(k, c);
          break;
        }
      }
      continue;
    }
    int best = 0;
    for (int i = 0; i < k0.count; ++i) {
      transform_into(b, k0.sym[i], image[i]);
      if (i > 0 && std::lexicographical_compare(image[i], image[i] + n, image[best], image[best] + n)) best = i;
    }
    for (int i = 0; i < k0.count; ++i)
      if (k0.in_g[i] && std::equal(image[i], image[i] + n, image[best])) {   // K0 is in order of k
        emit(k0.sym[i], BoardView(image[best], n));
        break;
      }
  }
  for (const auto& v : bucket) {
    boards.insert(boards.end(), v.begin(), v.end());
    for (std::size_t j = 0; j < v.size(); j += n)
      class_sizes.push_back(static_cast<std::uint8_t>(solution_class_size(BoardView(v.data() + j, n))));
  }
  return st;
}

std::optional<std::string> check_unit_boards(const UnitPlan& plan, const WorkUnit& u, BoardSet set,
                                             std::uint64_t solutions, std::span<const Column> boards,
                                             std::span<const std::uint8_t> class_sizes) {
  const auto n = static_cast<std::size_t>(plan.n());
  const std::size_t k = boards.size() / n;
  const bool all = set == BoardSet::all;
  if (boards.size() % n || (all && k != solutions) || (!all && class_sizes.size() != k))
    return "reports " + std::to_string(solutions) + " solutions but sends " + std::to_string(k) + " boards" +
           (all ? "" : " and " + std::to_string(class_sizes.size()) + " class sizes");
  const UnitPlan::Images im = plan.image_symmetries(u);
  const auto bad = [&](std::size_t i, const std::string& what) {
    return "board " + std::to_string(i) + " " + to_columns(boards.subspan(i * n, n)) + " " + what;
  };
  Column image[kMaxN];
  const BoardView view(image, n);
  // Class mode: b must be h(c) for a completion c of the unit and h in its symmetries G, and no
  // image of c smaller than b. With the border pre-placed, c's images have the unit's first rows
  // (image_first_rows): only h in G reaching the smallest (K0) can give b, and only the images
  // under K0 can tie with it, so usually one transform decides. Otherwise (none/mirror plans)
  // every h in G is tried and b's eight images are compared.
  const auto first = all ? std::nullopt : image_first_rows(plan, u);
  const SmallestFirstRow k0 = first ? smallest_first_row(*first, im) : SmallestFirstRow{};
  // The completion c of b, written to `c`, and the smallest symmetry k of G taking c to b
  // (append_unit_boards' bucket), or -1.
  const auto canonical_completion = [&](BoardView b, Column* c) {
    const BoardView cv(c, n);
    if (!first) {
      for (int g = 0; g < kSymmetries; ++g) {
        if (!has_image(im, g)) continue;
        transform_into(b, inverse_symmetry(g), c);
        if (fills_placement(cv, u.placement)) return is_canonical(b) ? g : -1;
      }
      return -1;
    }
    for (int j = 0; j < k0.count; ++j) {
      if (!k0.in_g[j]) continue;
      transform_into(b, inverse_symmetry(k0.sym[j]), c);
      if (!fills_placement(cv, u.placement)) continue;
      for (int t = 0; t < k0.count; ++t) {
        transform_into(cv, k0.sym[t], image);
        if (std::ranges::lexicographical_compare(view, b)) return -1;
      }
      return k0.sym[j];
    }
    return -1;
  };
  Column completion[2][kMaxN];   // class mode: this board's and the previous board's
  int bucket[2] = {};            // and their symmetries
  for (std::size_t i = 0; i < k; ++i) {
    const BoardView b = boards.subspan(i * n, n);
    if (!is_solution(b)) return bad(i, "is not a solution");
    if (all) {   // a completion of the unit, later than the previous one
      if (!fills_placement(b, u.placement)) return bad(i, "is not a completion of the unit's pre-placement");
      if (i && !std::ranges::lexicographical_compare(boards.subspan((i - 1) * n, n), b))
        return bad(i, "does not follow the unit's previous completion in lexicographic order (a repeat?)");
      continue;
    }
    if (class_sizes[i] != solution_class_size(b))
      return bad(i, "has class size " + std::to_string(solution_class_size(b)) + ", not " +
                        std::to_string(class_sizes[i]));
    Column* c = completion[i % 2];
    bucket[i % 2] = canonical_completion(b, c);
    if (bucket[i % 2] < 0) return bad(i, "is not the canonical image of a completion of the unit");
    const Column* prev = completion[(i - 1) % 2];
    if (i && (bucket[i % 2] < bucket[(i - 1) % 2] ||
              (bucket[i % 2] == bucket[(i - 1) % 2] && !std::lexicographical_compare(prev, prev + n, c, c + n))))
      return bad(i, "does not follow the unit's previous board in the order of their symmetries and completions (a repeat?)");
  }
  return std::nullopt;
}

SearchStats visit_unit_boards(const UnitPlan& plan, const WorkUnit& u, BoardSet set,
                              const ClassBoardFn& f) {
  thread_local std::vector<Column> boards;
  std::vector<std::uint8_t> sizes;
  boards.clear();
  const SearchStats st = append_unit_boards(plan, u, set, boards, sizes);
  const auto n = static_cast<std::size_t>(plan.n());
  for (std::size_t j = 0, i = 0; j < boards.size(); j += n, ++i) {
    const BoardView b(boards.data() + j, n);
    f(b, set == BoardSet::classes ? sizes[i] : solution_class_size(b));
  }
  return st;
}

void visit_plan_boards(const UnitPlan& plan, BoardSet set, const ClassBoardFn& f) {
  UnitCursor cursor(plan);
  WorkUnit u;
  while (cursor.next(u)) visit_unit_boards(plan, u, set, f);
}

}  // namespace nq::core
