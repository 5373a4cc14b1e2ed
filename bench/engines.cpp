// nq_engines: times the counting engines side by side on a random sample of the work units of a
// plan (any N, depth and symmetry), and estimates the whole plan's core-seconds with error bars.
// Used by bench/engines.sh (issue 13) for the growth estimate that feeds bench/capacity.py.
//
//   nq_engines --n 20,21 [--plan run|count] [--depth D] [--symmetry none|mirror|full] [--sample 40]
//              [--seed 1] [--engines vector,avx2,scalar,mitm] [--max-seconds S] [--stack NODES]
//
// Engines (every one is checked against the first on every sampled unit):
//   vector  core::count_completions_vector, the AVX-512 tree walker `nqueens` uses (--stack: its
//           work stack limited to fewer nodes, the rest moving to the heap and back; the memory
//           column: its stack plus the most it moved to the heap);
//   avx2    core::count_completions_avx2, the AVX2 level-batched walker `nqueens` uses without
//           AVX-512 (where the CPU has no AVX-512, `vector` is replaced by it);
//   scalar  core::count_completions_scalar, the plain iterative tree walker;
//   mitm    a meet-in-the-middle join measured for issue 13 (bench-only, not in core: it never
//           measured faster): the fillings of the upper and lower halves of a unit's free rows,
//           the lower ones bucketed by the set of columns they use, and each upper filling
//           tested against the bucket of the complementary columns, 8 pairs per AVX-512 test.
//
// The sample: K units, one at random in each of K equal strata of the id range (fixed seed: the
// same plan gives the same sample), timed in pairs of neighbouring strata, the pairs in random
// order, until --max-seconds of engine time are spent (a cut-short sample is a random sample of
// pairs). The plan's core-seconds and nodes: units * the mean per unit, standard errors from the
// pairs (see estimate()); where the board's total is published, by their ratio to the sampled
// solutions instead, twice as precise (total_of()).
// Machines are shared and noisy: read the ratios between engines (same units, same run).
//
// The same estimator gives the board's total from the sampled units' solutions (multiplicity
// times completions): printed beside the published count with its distance in standard errors,
// it checks the sample and its error bars where the answer is known (N <= 27), and estimates the
// total where it is not. --check-solutions Z makes a distance above Z standard errors an error.
//
// Output: one table row per N and engine, and one "solutions" line per N; lines starting with
// "estimate" are machine-readable:
//   estimate N ENGINE CORE_SECONDS RELATIVE_STANDARD_ERROR UNITS TIMED DEPTH NODES NODES_REL_ERROR
//            SOLUTIONS SOLUTIONS_REL_ERROR SYMMETRY
// (nodes: the tree walkers' search nodes, 0 for mitm; machine-independent, unlike the seconds;
// solutions: the estimated total of the board, the same on every engine's line; bench/estimates.py
// refuses the lines of a plan other than full, the one bench/growth.py and capacity.py model).
// Exit codes: 0 every engine agreed on every unit, 1 a count differs (or, with --check-solutions,
// an estimated total is off its published count), 2 bad usage.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#include "core/kernel.h"
#include "core/known_counts.h"
#include "core/units.h"
#include "command_line.h"

// The join needs AVX-512 and BMI2 at compile time (the default -march=native build here);
// without them nq_engines offers the tree walkers only.
#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__BMI2__)
#include <immintrin.h>
#define NQ_ENGINES_AVX512 1
#endif

namespace core = nq::core;

namespace {

struct Options {
  std::vector<int> sizes{18};
  bool count_plan = false;
  int depth = 0;
  core::Symmetry symmetry = core::Symmetry::full;
  std::size_t sample = 40;
  std::uint64_t seed = 1;
  std::vector<std::string> engines{"vector", "scalar"};
  double max_seconds = 0;
  double check_solutions = 0;   // 0: report only
  int stack = core::kVectorStackCapacity;   // the vector engine's stack limit, in nodes
};

// The command line (CLI11, as `nqueens` and nq_bench): the options write into `o`; `plan` is
// turned into a value once parsed.
struct CommandLine {
  Options o;
  std::string plan = "run", symmetry = "full";
  CLI::App app{"Times the counting engines side by side on a stratified random sample of a plan's\n"
               "work units (one unit per stratum of the id range) and estimates the plan's core-seconds\n"
               "and nodes with standard errors; exit 1 if an engine's count differs from the first's.",
               "nq_engines"};

  CommandLine() {
    app.footer("Exit codes: 0 the engines agree, 1 a count differs (or an estimated total is off its published\n"
               "count by more than --check-solutions standard errors), 2 bad usage.");
    app.add_option("--n", o.sizes, "board sizes, comma-separated (default 18)")
        ->delimiter(',')
        ->check(CLI::Range(4, core::kMaxN));
    app.add_option("--plan", plan,
                   "run: the default plan of `nqueens run` (default); count: that of `nqueens count` with 2 "
                   "threads (with full symmetry the border alone at every N >= 4)")
        ->check(CLI::IsMember({"run", "count"}));
    app.add_option("--depth", o.depth, "this depth instead")->check(CLI::PositiveNumber);
    app.add_option("--symmetry", symmetry,
                   "the plan's symmetry, as `nqueens run --symmetry` (default full; the default depth is the "
                   "plan's for it)")
        ->check(CLI::IsMember(core::names_of<core::Symmetry>()));
    app.add_option("--sample", o.sample, "units drawn, one per stratum of the id range (default 40)")
        ->check(CLI::PositiveNumber);
    app.add_option("--seed", o.seed, "the sample's seed (default 1)")->check(CLI::PositiveNumber);
    app.add_option("--engines", o.engines, "engines, comma-separated: vector, avx2, scalar, mitm (default vector,scalar)")
        ->delimiter(',')
        ->check(CLI::IsMember({"vector", "avx2", "scalar", "mitm"}));
    app.add_option("--max-seconds", o.max_seconds, "stop timing an N after this much engine time (default: no limit)")
        ->check(CLI::PositiveNumber);
    app.add_option("--check-solutions", o.check_solutions,
                   "exit 1 if the estimated total of a board with a published count is more than this many "
                   "standard errors from it (exactly: where every unit is sampled)")
        ->check(CLI::PositiveNumber);
    app.add_option("--stack", o.stack,
                   "the vector engine's work stack in nodes, 128-" + std::to_string(core::kVectorStackCapacity) +
                       " (default: all of it); past it, nodes move to the heap")
        ->check(CLI::Range(128, core::kVectorStackCapacity));
  }

  Options finish() {
    o.count_plan = plan == "count";
    o.symmetry = core::from_string<core::Symmetry>(symmetry);
    return o;
  }
};

#if NQ_ENGINES_AVX512
// ---- The meet-in-the-middle join (bench-only study) ----
//
// Levels 0..k-1 of the unit's search are the upper half, k..m-1 the lower half. A filling of a
// half is described by the columns it uses and by the diagonals of its queens, kept only where
// both halves can meet: a queen at (r, c) is on the down-right diagonal c + r and the down-left
// diagonal c - r. With R = row[k] (the first lower row) and R' = row[k-1] (the last upper row),
// bit c + r - R of the low word and bit c - r + R' of the high word: each lands in 0..n-1 for
// every diagonal an upper and a lower queen can share, and the others fall off or cannot match.
// A pair is a solution iff the column sets are complementary and the packed words are disjoint.
struct MitmScratch {
  std::vector<std::uint64_t> lower, sorted;
  std::vector<std::uint32_t> key, offset, fill;
  std::size_t bytes() const {
    return (lower.capacity() + sorted.capacity()) * 8 + (key.capacity() + offset.capacity() + fill.capacity()) * 4;
  }
};
constexpr int kMitmMaxLevels = 24;   // the buckets are indexed by a column set: 2^levels of them

// Calls f(column set as bits of the unit's free columns, packed diagonals) for every filling of
// levels lo..hi-1 (no pruning beyond the halves' own constraints).
template <class F>
void for_each_filling(const core::RowSearch& s, int lo, int hi, int k, core::Mask free_cols, F&& f) {
  const int n = s.n, r_low = s.row[k], r_up = s.row[k - 1];
  struct Frame {
    core::Mask cols, dl, dr, avail;
    std::uint64_t sum, diff;   // bit c + r and bit c - r + n of every queen placed
  };
  Frame st[core::kMaxN + 1];
  int d = lo;
  st[d] = {0, 0, 0, ~s.blocked[d], 0, 0};
  for (;;) {
    if (!st[d].avail) {
      if (d == lo) return;
      --d;
      continue;
    }
    const core::Mask bit = st[d].avail & (0u - st[d].avail);
    st[d].avail ^= bit;
    const int c = std::countr_zero(bit), r = s.row[d];
    const std::uint64_t sum = st[d].sum | std::uint64_t{1} << (c + r);
    const std::uint64_t diff = st[d].diff | std::uint64_t{1} << (c - r + n);
    const core::Mask cols = st[d].cols | bit;
    if (d + 1 == hi) {
      const std::uint64_t low = (sum >> r_low) & 0xFFFFFFFFu, high = (diff >> (n - r_up)) & 0xFFFFFFFFu;
      f(static_cast<std::uint32_t>(_pext_u32(cols, free_cols)), low | high << 32);
      continue;
    }
    const int g = s.gap[d];
    const core::Mask dl = (st[d].dl | bit) << g, dr = (st[d].dr | bit) >> g;
    const core::Mask next = ~(cols | dl | dr | s.blocked[d + 1]);
    if (!next) continue;
    ++d;
    st[d] = {cols, dl, dr, next, sum, diff};
  }
}

core::Count mitm_count(const core::RowSearch& s, MitmScratch& w) {
  const int m = s.levels;
  if (m < 4) return core::count_completions_scalar(s).solutions;
  core::Mask used = 0;
  for (int r = 0; r < s.n; ++r)
    if (s.placement[r] != core::kEmptyRow) used |= core::Mask{1} << s.placement[r];
  const core::Mask free_cols = core::full_mask(s.n) & ~used;
  const int k = m / 2 + 1;   // measured: the lower half is then the smaller table
  w.lower.clear();
  w.key.clear();
  for_each_filling(s, k, m, k, free_cols, [&](std::uint32_t key, std::uint64_t packed) {
    w.key.push_back(key);
    w.lower.push_back(packed);
  });
  const std::size_t buckets = std::size_t{1} << m;
  w.offset.assign(buckets + 1, 0);
  for (std::uint32_t key : w.key) ++w.offset[key + 1];
  for (std::size_t i = 0; i < buckets; ++i) w.offset[i + 1] += w.offset[i];
  w.fill.assign(w.offset.begin(), w.offset.end() - 1);
  w.sorted.resize(w.lower.size());
  for (std::size_t i = 0; i < w.lower.size(); ++i) w.sorted[w.fill[w.key[i]]++] = w.lower[i];
  const auto all = static_cast<std::uint32_t>(buckets - 1);
  __m512i count = _mm512_setzero_si512();
  const __m512i minus_one = _mm512_set1_epi64(-1);
  for_each_filling(s, 0, k, k, free_cols, [&](std::uint32_t key, std::uint64_t packed) {
    const std::uint32_t other = all ^ key;
    const std::uint64_t* b = w.sorted.data() + w.offset[other];
    const auto size = static_cast<int>(w.offset[other + 1] - w.offset[other]);
    const __m512i u = _mm512_set1_epi64(static_cast<long long>(packed));
    int i = 0;
    for (; i + 8 <= size; i += 8) {
      const __mmask8 ok = _mm512_testn_epi64_mask(_mm512_loadu_si512(b + i), u);
      count = _mm512_mask_sub_epi64(count, ok, count, minus_one);
    }
    if (i < size) {
      const auto tail = static_cast<__mmask8>((1u << (size - i)) - 1);
      const __mmask8 ok = _mm512_mask_testn_epi64_mask(tail, _mm512_maskz_loadu_epi64(tail, b + i), u);
      count = _mm512_mask_sub_epi64(count, ok, count, minus_one);
    }
  });
  alignas(64) std::uint64_t lanes[8];   // not _mm512_reduce_add_epi64: g++ 12 warns inside it
  _mm512_store_si512(lanes, count);
  core::Count total = 0;
  for (std::uint64_t c : lanes) total += c;
  return total;
}
#endif

// ---- Sampling and timing ----

struct Sampled {
  core::WorkUnit unit;
  core::RowSearch search;
};

// K units in K equal strata of the id range, one at random in each (the units of a plan are
// ordered by their border, and their cost depends on it: stratifying takes that variation out
// of the estimate). Returned in pairs of neighbouring strata, the pairs in random order. With
// K >= the plan's units, every unit (one stratum each; of an odd number, the last one after the
// pairs, alone).
std::vector<Sampled> draw(const core::UnitPlan& plan, std::uint64_t units, std::size_t k, std::uint64_t seed) {
  std::mt19937_64 rng(seed * 1000003u + static_cast<std::uint64_t>(plan.n()));
  k = k >= units ? units : std::min<std::uint64_t>(k + k % 2, units - units % 2);
  std::vector<std::uint64_t> ids;
  for (std::size_t i = 0; i < k; ++i) {
    const std::uint64_t lo = units * i / k, hi = units * (i + 1) / k;
    ids.push_back(lo + rng() % (hi - lo));
  }
  std::vector<Sampled> in_order;
  core::UnitCursor cursor(plan);
  core::WorkUnit u;
  for (std::size_t next = 0; next < ids.size() && cursor.next(u);)
    if (u.id == ids[next]) {
      in_order.push_back({u, *core::prepare_search(plan.n(), u.placement)});
      ++next;
    }
  std::vector<std::size_t> pairs(in_order.size() / 2);
  for (std::size_t i = 0; i < pairs.size(); ++i) pairs[i] = i;
  std::shuffle(pairs.begin(), pairs.end(), rng);   // timed in random order (see --max-seconds)
  std::vector<Sampled> out;
  for (std::size_t p : pairs) {
    out.push_back(in_order[2 * p]);
    out.push_back(in_order[2 * p + 1]);
  }
  if (in_order.size() % 2) out.push_back(in_order.back());
  return out;
}

struct EngineRun {
  std::vector<double> seconds, nodes;
  std::vector<core::Count> solutions;
  std::size_t peak_bytes = 0;
};

template <class F>
double timed(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Estimate {
  double total = 0, se = 0, mean = 0;   // se: the standard error of the total
  double rel_se() const { return total > 0 ? se / total : 0; }
};

// The plan's total of a per-unit quantity x from the timed pairs of strata (x[2j], x[2j+1]).
// All pairs timed: the stratified estimate, its variance from the pairs' differences (collapsed
// strata: each pair's mean has variance ~ (a - b)^2 / 4). Cut short (--max-seconds): the pairs'
// means as a simple random sample of pairs. Every unit timed: their sum, exact.
Estimate estimate(const std::vector<double>& x, std::uint64_t units, std::size_t pairs_drawn) {
  const auto u = static_cast<double>(units);
  if (x.size() == units) {
    double all = 0;
    for (double v : x) all += v;
    return {all, 0, all / u};
  }
  const std::size_t p = x.size() / 2;
  if (p == 0) return {};
  const auto pf = static_cast<double>(p);
  double sum = 0, within = 0;
  std::vector<double> means;
  for (std::size_t j = 0; j < p; ++j) {
    means.push_back((x[2 * j] + x[2 * j + 1]) / 2);
    sum += means.back();
    within += (x[2 * j] - x[2 * j + 1]) * (x[2 * j] - x[2 * j + 1]) / 4;
  }
  const double mean = sum / pf;
  double var = within / (pf * pf);
  if (p < pairs_drawn) {
    double sq = 0;
    for (double m : means) sq += (m - mean) * (m - mean);
    var = p > 1 ? sq / (pf - 1) / pf * (1 - pf / static_cast<double>(pairs_drawn)) + within / (pf * pf) : 0;
  }
  return {u * mean, u * std::sqrt(var), mean};
}

// Where the board's total Q is published: x's total by its ratio to the solutions each unit
// stands for (w), Q * sum(x) / sum(w), with the standard error of the residuals x - R w scaled
// by Q / w_total, w's own estimate (the usual first-order variance of a ratio estimator). A unit's
// nodes and seconds follow its solutions closely, so this halves the error of estimate() alone:
// over 150-200 seeds of N = 16, 18 and 20 the nodes' estimates had the same mean (0.999-1.004 of
// the exact total) and scattered 5.6-7.0 % against 11.4-16.9 % with 40 units, 2.0-3.4 % against
// 3.4-6.9 % with 200 (docs/performance.md, "Session 12"). Without Q, or with every unit timed, x's
// own estimate. Requires w_total > 0 when q is given.
Estimate total_of(const std::vector<double>& x, const std::vector<double>& w, double w_total,
                  std::optional<double> q, std::uint64_t units, std::size_t pairs_drawn) {
  if (!q || x.size() == units) return estimate(x, units, pairs_drawn);
  double sx = 0, sw = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sw += w[i];
  }
  const double r = sx / sw;
  std::vector<double> residual;
  for (std::size_t i = 0; i < x.size(); ++i) residual.push_back(x[i] - r * w[i]);
  const double total = *q * r;
  return {total, estimate(residual, units, pairs_drawn).se * *q / w_total, total / static_cast<double>(units)};
}

// The "solutions" line: the estimated total beside the published count (`known`) and how far
// off it is in standard errors, and whether the nodes and seconds were estimated by their ratio
// to it. False if the sample is the whole plan (`exact`: its sum) and that differs from the
// count, or if the estimate is off by more than max_z standard errors (0: reported only).
bool report_solutions(int n, const Estimate& e, const std::optional<core::KnownCounts>& known,
                      std::optional<core::Total> exact, bool by_ratio, double max_z) {
  if (exact && known) {
    const bool equal = *exact == core::Total{known->total};
    std::printf("%3d solutions: %s (every unit), published %llu: %s\n", n, core::to_decimal(*exact).c_str(),
                static_cast<unsigned long long>(known->total), equal ? "equal" : "DIFFERENT");
    return equal;
  }
  std::printf("%3d solutions: estimate %.6g +-%.2f%%", n, e.total, e.rel_se() * 100);
  if (!known) {
    std::printf(", no published count\n");
    return true;
  }
  const auto q = static_cast<double>(known->total);
  const auto published = static_cast<unsigned long long>(known->total);
  const double z = e.se > 0 ? (e.total - q) / e.se : e.total == q ? 0 : std::copysign(HUGE_VAL, e.total - q);
  const bool ok = max_z <= 0 || std::abs(z) <= max_z;
  std::printf(", published %llu: off by %+.2f standard errors%s%s\n", published, z,
              ok ? "" : " (above --check-solutions)", by_ratio ? "; nodes and seconds by their ratio to it" : "");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  CommandLine cli;
  if (const auto code = nq::bench::parse_command_line(cli.app, argc, argv)) return *code;
  Options o = cli.finish();
#if !NQ_ENGINES_AVX512
  std::erase(o.engines, std::string("mitm"));
#endif
  if (!core::vector_kernel_available()) {
    const bool avx2 = core::avx2_kernel_available();
    for (std::string& e : o.engines)
      if (e == "vector" && avx2) e = "avx2";
    std::erase(o.engines, std::string("vector"));
    std::erase(o.engines, std::string("mitm"));
    std::printf("nq_engines: no AVX-512 on this CPU: mitm left out, %s\n",
                avx2 ? "avx2 instead of vector" : "vector too");
  }
  if (!core::avx2_kernel_available()) std::erase(o.engines, std::string("avx2"));
  {   // each engine once, in the order asked
    std::vector<std::string> unique;
    for (const std::string& e : o.engines)
      if (std::find(unique.begin(), unique.end(), e) == unique.end()) unique.push_back(e);
    o.engines = unique;
  }
  if (o.engines.empty()) return 2;
  std::printf("%3s %5s %11s %7s %-7s %11s %14s %8s %10s %20s %8s %s\n", "N", "depth", "units", "timed",
              "engine", "ms/unit", "plan core-s", "+-%", "vs first", "plan nodes", "ns/node", "memory");
  bool agree = true, totals_ok = true;
  std::string estimates;
  char line_buffer[256];
  for (int n : o.sizes) {
    const auto sym = o.symmetry;
    const int depth = o.depth ? std::min(o.depth, n)
                      : o.count_plan ? core::default_depth(n, 128, sym)
                                     : core::default_run_depth(n, sym);
    const core::UnitPlan plan(n, depth, sym);
    const std::uint64_t units = plan.size();
    const std::vector<Sampled> sample = draw(plan, units, o.sample, o.seed);
    std::vector<EngineRun> runs(o.engines.size());
#if NQ_ENGINES_AVX512
    MitmScratch scratch;
#endif
    double spent = 0;
    std::size_t timed_units = 0;
    for (const Sampled& x : sample) {
      if (o.max_seconds > 0 && spent >= o.max_seconds && timed_units % 2 == 0 && timed_units >= 2) break;
      for (std::size_t e = 0; e < o.engines.size(); ++e) {
        const std::string& name = o.engines[e];
        core::SearchStats st;
        double t = 0;
        if (name == "vector") {
          core::VectorMemory memory;
          t = timed([&] { st = *core::count_completions_vector(x.search, o.stack, &memory); });
          runs[e].peak_bytes = std::max(runs[e].peak_bytes, memory.stack_bytes + memory.heap_bytes);
        } else if (name == "avx2") {
          t = timed([&] { st = *core::count_completions_avx2(x.search); });
        } else if (name == "scalar") {
          t = timed([&] { st = core::count_completions_scalar(x.search); });
        } else {
#if NQ_ENGINES_AVX512
          if (x.search.levels > kMitmMaxLevels) {
            std::printf("nq_engines: mitm: a unit of N = %d has %d free rows, above %d\n", n, x.search.levels,
                        kMitmMaxLevels);
            return 2;
          }
          t = timed([&] { st.solutions = mitm_count(x.search, scratch); });
          runs[e].peak_bytes = std::max(runs[e].peak_bytes, scratch.bytes());
#endif
        }
        spent += t;
        runs[e].seconds.push_back(t);
        runs[e].solutions.push_back(st.solutions);
        runs[e].nodes.push_back(static_cast<double>(st.nodes));
        if (st.solutions != runs[0].solutions.back()) {
          std::printf("MISMATCH N = %d unit %llu: %s %llu, %s %llu\n", n,
                      static_cast<unsigned long long>(x.unit.id), name.c_str(),
                      static_cast<unsigned long long>(st.solutions), o.engines[0].c_str(),
                      static_cast<unsigned long long>(runs[0].solutions.back()));
          agree = false;
        }
      }
      ++timed_units;
    }
    double first_sum = 0;
    for (double t : runs[0].seconds) first_sum += t;
    const std::size_t pairs_drawn = sample.size() / 2;
    std::vector<double> weighted;   // the board's solutions each timed unit stands for
    core::Total timed_total = 0;     // their exact sum
    for (std::size_t i = 0; i < timed_units; ++i) {
      weighted.push_back(static_cast<double>(sample[i].unit.multiplicity) *
                         static_cast<double>(runs[0].solutions[i]));
      if (!core::add_product(timed_total, sample[i].unit.multiplicity, runs[0].solutions[i]))
        throw std::overflow_error("nq_engines: the sampled solutions overflow 128 bits");
    }
    const Estimate solutions = estimate(weighted, units, pairs_drawn);
    const std::optional<core::KnownCounts> known = core::known_counts(n);
    std::optional<double> published;   // set: nodes and seconds by their ratio to the solutions
    if (known && solutions.total > 0) published = static_cast<double>(known->total);
    for (std::size_t e = 0; e < o.engines.size(); ++e) {
      const Estimate est = total_of(runs[e].seconds, weighted, solutions.total, published, units, pairs_drawn);
      const Estimate nodes = total_of(runs[e].nodes, weighted, solutions.total, published, units, pairs_drawn);
      double sum = 0;
      for (double t : runs[e].seconds) sum += t;
      char node_text[64] = "-", ns_text[32] = "-";
      if (nodes.total > 0) {
        std::snprintf(node_text, sizeof node_text, "%.4g +-%.1f%%", nodes.total, nodes.rel_se() * 100);
        std::snprintf(ns_text, sizeof ns_text, "%.3f", est.total / nodes.total * 1e9);
      }
      char memory[32] = "-";
      if (runs[e].peak_bytes) std::snprintf(memory, sizeof memory, "%.3f MB", static_cast<double>(runs[e].peak_bytes) / 1e6);
      std::printf("%3d %5d %11llu %7zu %-7s %11.4g %14.4g %8.1f %10.3f %20s %8s %s\n", n, depth,
                  static_cast<unsigned long long>(units), timed_units, o.engines[e].c_str(), est.mean * 1e3,
                  est.total, est.rel_se() * 100, first_sum > 0 ? sum / first_sum : 0.0, node_text, ns_text, memory);
      std::snprintf(line_buffer, sizeof line_buffer, "estimate %d %s %.6g %.4f %llu %zu %d %.6g %.4f %.6g %.4f %s\n", n,
                    o.engines[e].c_str(), est.total, est.rel_se(), static_cast<unsigned long long>(units),
                    timed_units, depth, nodes.total, nodes.rel_se(), solutions.total, solutions.rel_se(),
                    core::to_string(sym).c_str());
      estimates += line_buffer;
    }
    totals_ok &= report_solutions(n, solutions, known, timed_units == units ? std::optional(timed_total) : std::nullopt,
                                  published.has_value(), o.check_solutions);
    std::fputs(estimates.c_str(), stdout);
    estimates.clear();
    std::fflush(stdout);
  }
  return agree && totals_ok ? 0 : 1;
}
