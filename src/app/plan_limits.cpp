#include "app/plan_limits.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include "app/exit_codes.h"
#include "app/unit_table.h"
#include "core/known_counts.h"

namespace nq::app {
namespace fs = std::filesystem;

std::string gigabytes(double bytes) {
  char buf[32];
  if (bytes < 1e6) std::snprintf(buf, sizeof buf, "%.0f kB", bytes / 1e3);
  else if (bytes < 1e9) std::snprintf(buf, sizeof buf, "%.0f MB", bytes / 1e6);
  else std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

std::string with_commas(std::uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string s;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s.push_back(',');
    s.push_back(digits[i]);
  }
  return s;
}

namespace {

// How far above the estimate the exact count may be: five of its standard errors, at least 5 %
// (measured on plans of 1e8-1.5e9 units: 0.03-1.5 % off, up to 4 % for depths close to N).
// Only a plan estimated above a limit by this margin is refused before it is counted.
double margin(const core::SizeEstimate& e) { return e.exact ? 1.0 : 1.0 + std::max(0.05, 5 * e.relative_error); }
// Above this many units the exact count takes a noticeable time (~0.1 s and more): announce it.
constexpr double kAnnounceUnits = 2e7;
constexpr std::chrono::seconds kAnnounceAfter{2};   // as count's first progress line

// Bytes of the master's per-unit tables for a plan of `units` units. Doubles are exact here:
// every product stays far below 2^53 for the plans that come near the limit.
double master_bytes(const PlanCost& c, double units) {
  return std::ceil(units / c.shard_count) * static_cast<double>(c.bytes_per_unit) +
         std::ceil(units * static_cast<double>(c.bits_per_plan_unit) / 8);
}

// Memory a remedy names: rounded up, so that giving what it says is enough ("8.9 GB" for 8.82).
std::string gigabytes_at_least(double bytes) {
  return gigabytes(bytes < 1e9 ? std::ceil(bytes / 1e6) * 1e6 : std::ceil(bytes / 1e8) * 1e8);
}

// The bytes the master's per-unit tables may take in this process, and how a refusal names them.
struct MasterLimit {
  double bytes = 0;
  std::string text;
  std::optional<MemoryLimit> memory;   // what limits this process's memory, if anything
  bool by_memory = false;              // bytes is kMemoryShare of it (else the kMaxMasterBytes cap)
};
std::string share_text(const MemoryLimit& m) {
  return gigabytes(kMemoryShare * m.bytes) + " (3/4 of the " + gigabytes(m.bytes) + " this process may use: " + m.source + ")";
}
MasterLimit limit_of(const std::optional<MemoryLimit>& m) {
  if (!m || kMemoryShare * m->bytes >= static_cast<double>(kMaxMasterBytes))
    return MasterLimit{static_cast<double>(kMaxMasterBytes), std::to_string(kMaxMasterBytes >> 30) + " GiB", m, false};
  return MasterLimit{kMemoryShare * m->bytes, share_text(*m), m, true};
}
const MasterLimit& master_limit(MemoryOf whose) {
  static const MasterLimit process = limit_of(memory_limit(MemoryOf::this_process));
  static const MasterLimit job = limit_of(memory_limit(MemoryOf::the_job));
  return whose == MemoryOf::the_job ? job : process;
}

bool memory_fits(const PlanCost& c, double units) {
  return master_bytes(c, units) <= master_limit(c.memory).bytes;
}

bool fits(const PlanCost& c, double units) {
  return units <= static_cast<double>(kMaxPlanUnits) && memory_fits(c, units);
}

// The largest unit count within both limits.
std::uint64_t max_units(const PlanCost& c) {
  std::uint64_t lo = 0, hi = kMaxPlanUnits;   // fits(lo); the answer is in [lo, hi]
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(c, static_cast<double>(mid))) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

bool is_run(const PlanCost& c) { return std::string(c.command) == "run"; }

bool passes(const PlanCost& c, const core::SizeEstimate& e) {
  return fits(c, e.units * margin(e));
}

std::string units_text(const core::SizeEstimate& e) {
  if (e.exact || e.units < 1e6) return (e.exact ? "" : "about ") + with_commas(static_cast<std::uint64_t>(std::llround(e.units)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "about %.2g", e.units);
  return buf;
}

enum class Known { counted, estimated, more_than };

// Throws the refusal: the plan has `units` units (`more_than`: the exact count stopped at that
// many, past the limit); by_depth holds the estimates of depths 1..plan.depth().
[[noreturn]] void refuse(const core::UnitPlan& plan, const PlanCost& cost, double units, Known known,
                         const std::vector<core::SizeEstimate>& by_depth) {
  const std::string bound = known == Known::more_than ? "more than " : known == Known::estimated ? "about " : "";
  const std::string count = known == Known::more_than ? bound + with_commas(static_cast<std::uint64_t>(units) - 1)
                                                      : units_text({units, known == Known::counted});
  std::string msg = "the plan (N = " + std::to_string(plan.n()) + ", depth " + std::to_string(plan.depth()) +
                    ", symmetry " + core::to_string(plan.symmetry()) + ") has " + count + " work units";
  const bool too_many = units > static_cast<double>(kMaxPlanUnits);
  if (too_many)
    msg += ", over the limit of " + with_commas(kMaxPlanUnits) +
           " (2^30) per plan (every master walks the whole plan at each start)";
  else
    msg += std::string("; ") + (is_run(cost) ? "the master" : "nqueens count") + " would keep " + bound + gigabytes(master_bytes(cost, units)) + " for them (" +
           std::to_string(cost.bytes_per_unit) + " bytes per unit" +
           (cost.shard_count > 1 ? " of its shard" : "") + "), over its limit of " + master_limit(cost.memory).text;
  std::string remedies;
  for (int d = plan.depth() - 1; d >= 1; --d)
    if (passes(cost, by_depth[static_cast<std::size_t>(d - 1)])) {
      remedies = "--depth " + std::to_string(d) + " (" + units_text(by_depth[static_cast<std::size_t>(d - 1)]) + " units)";
      break;
    }
  // The units the remedies are sized for, so that following one is enough: the exact count, else
  // the estimate with its margin (a count that stopped past the limit is only a lower bound: the
  // memory named from it fell short, N = 27's shard 0/4 in 2 GiB was told "about 2.1 GB" and needs
  // 2.25).
  const core::SizeEstimate& e = by_depth.back();
  const double need = known == Known::counted ? units : std::max(units, e.units * margin(e));
  if (units <= static_cast<double>(kMaxPlanUnits) && is_run(cost)) {
    // Enough shards for those units.
    PlanCost sharded = cost;
    for (sharded.shard_count = cost.shard_count + 1; sharded.shard_count <= (1 << 20); ++sharded.shard_count)
      if (memory_fits(sharded, need)) {
        const std::string k = std::to_string(sharded.shard_count);
        remedies += (remedies.empty() ? "" : " or ") + std::string("--shard i/") + k + " (" + k +
                    " masters, each keeping 1/" + k + " of the units)";
        break;
      }
  }
  if (!too_many && master_limit(cost.memory).by_memory)   // a job with more memory holds it too
    remedies += (remedies.empty() ? "" : " or ") + std::string("more memory (at least ") +
                gigabytes_at_least(memory_to_ask(master_bytes(cost, need))) + ")";
  throw ExitError(kUsage, msg + (remedies.empty() ? "" : ": use " + remedies));
}

// The first depth after `plan`'s whose units hold at most the boards limit on average (N if
// none before it does: a unit of depth N is one board), with its unit count.
std::pair<int, std::uint64_t> first_boards_depth(int n, core::BoardSet set, core::Symmetry symmetry, int from,
                                                 const core::StopFn& stop) {
  for (int d = from;; ++d) {
    const std::uint64_t units = core::UnitPlan(n, d, symmetry).count_up_to(kMaxPlanUnits, stop);
    if (d >= n || mean_unit_board_bytes(n, set, symmetry, units) <= kMaxMeanUnitBoardBytes) return {d, units};
  }
}

std::string mebibytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / (1 << 20));
  return buf;
}

}  // namespace

double mean_unit_board_bytes(int n, core::BoardSet set, core::Symmetry symmetry, std::uint64_t units) {
  const auto known = core::known_counts(n);
  if (!known || units == 0) return 0;
  const double boards = set == core::BoardSet::classes
                            ? static_cast<double>(known->unique)
                            : static_cast<double>(known->total) / core::usual_multiplicity(symmetry);
  return boards * n / static_cast<double>(units);
}

DiskNeed disk_need(const core::JobParams& params, std::uint64_t units_total, std::uint64_t units) {
  const auto u = static_cast<double>(units);
  DiskNeed d{104 * u, 17 * u};
  const auto known = core::known_counts(params.n);
  if (!params.boards_mode() || !known || units_total == 0) return d;
  const bool classes = params.boards == core::BoardSet::classes;
  const double share = u / static_cast<double>(units_total);
  const double boards = static_cast<double>(classes ? known->unique : known->total) * share;
  d.journal += mean_unit_board_bytes(params.n, params.boards, params.symmetry, units_total) * u +
               (classes ? boards : 0);
  d.file += boards * kFileBytesPerBoard[static_cast<int>(params.boards)];
  return d;
}

std::optional<std::string> disk_shortfall(const DiskNeed& need, double journal_now, double available,
                                          const std::string& dir) {
  const double more = need.still_to_add(journal_now);
  if (more <= available) return std::nullopt;
  return "this run needs about " + gigabytes(more) + " more in " + dir + " (its journal, " +
         gigabytes(need.journal) + " when complete, stays until the result file, " + gigabytes(need.file) +
         ", is written), and it has " + gigabytes(available) +
         " free: when the disk fills, the run stops (exit 4) with its finished units kept; make room and rerun the same command to resume";
}

int default_boards_depth(int n, core::BoardSet set, core::Symmetry symmetry, const core::StopFn& stop) {
  return first_boards_depth(n, set, symmetry, core::default_run_depth(n, symmetry, stop), stop).first;
}

void check_boards_plan(const core::UnitPlan& plan, core::BoardSet set, std::uint64_t units, const core::StopFn& stop) {
  const double mean = mean_unit_board_bytes(plan.n(), set, plan.symmetry(), units);
  if (mean <= kMaxMeanUnitBoardBytes) return;
  const auto [depth, deeper_units] = first_boards_depth(plan.n(), set, plan.symmetry(), plan.depth() + 1, stop);
  throw ExitError(kUsage, "boards mode holds each unit's result in memory (its worker builds it, the master checks it): the plan (N = " +
                              std::to_string(plan.n()) + ", depth " + std::to_string(plan.depth()) + ", symmetry " +
                              core::to_string(plan.symmetry()) + ") has " + with_commas(units) + " units; storing " +
                              (set == core::BoardSet::classes ? "one board per class, a unit's result holds "
                                                              : "every board, a unit's result (its completions) holds ") +
                              mebibytes(mean) + " on average, over the limit of " +
                              mebibytes(kMaxMeanUnitBoardBytes) + " (the largest units hold up to ~80x the mean): use --depth " +
                              std::to_string(depth) + " (" + with_commas(deeper_units) + " units)");
}

// docs/usage.md's Limits table quotes these sizes: update it with them.
static_assert(sizeof(UnitTable::Outcome) == 40 && sizeof(core::WorkUnit) == 48, "docs/usage.md, Limits: per-unit bytes");

std::optional<MemoryLimit> memory_limit(const MemorySources& from) {
  std::optional<MemoryLimit> best;
  const auto consider = [&](double bytes, const std::string& source) {
    if (bytes > 0 && bytes < 0x1p60 && (!best || bytes < best->bytes)) best = MemoryLimit{bytes, source};
  };
  const auto number = [](const std::optional<std::string>& text) -> double {   // 0: none
    if (!text) return 0;
    std::size_t end = 0;
    while (end < text->size() && std::isdigit(static_cast<unsigned char>((*text)[end]))) ++end;
    if (end == 0 || end > 19 || text->find_first_not_of(" \n", end) != std::string::npos) return 0;
    return std::stod(text->substr(0, end));
  };
  // Slurm: megabytes (--mem=0, all of the node's memory, says 0).
  if (const double per_node = number(from.env("SLURM_MEM_PER_NODE")); per_node > 0)
    consider(per_node * (1 << 20), "SLURM_MEM_PER_NODE");
  else if (const double per_cpu = number(from.env("SLURM_MEM_PER_CPU")), cpus = number(from.env("SLURM_CPUS_ON_NODE"));
           per_cpu > 0 && cpus > 0)
    consider(per_cpu * cpus * (1 << 20), "SLURM_MEM_PER_CPU x SLURM_CPUS_ON_NODE");
  // The memory cgroup of this process and its parents ("ID:CONTROLLERS:PATH" a hierarchy): v1's
  // memory hierarchy where there is one (a hybrid system's "0::" line is a unified hierarchy
  // without the memory controller), else v2's.
  std::optional<std::pair<bool, std::string>> group;   // (v2, path)
  const auto cgroups = from.file("/proc/self/cgroup");
  for (std::size_t p = 0, q; cgroups && p < cgroups->size(); p = q + 1) {
    q = cgroups->find('\n', p);
    if (q == std::string::npos) q = cgroups->size();
    const std::string line = cgroups->substr(p, q - p);
    const auto c1 = line.find(':'), c2 = line.find(':', c1 == std::string::npos ? 0 : c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos) continue;
    std::string controllers(1, ',');   // ",name,name,": appended (g++ 12 warns of "," + s + ",")
    controllers.append(line, c1 + 1, c2 - c1 - 1).push_back(',');
    if (controllers.find(",memory,") != std::string::npos) group = {false, line.substr(c2 + 1)};
    else if (line.substr(0, c1) == "0" && controllers == ",," && !group) group = {true, line.substr(c2 + 1)};
  }
  if (group) {
    const auto& [v2, start] = *group;
    const std::string root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
    const std::string name = v2 ? "memory.max" : "memory.limit_in_bytes";
    for (std::string path = start;; path.resize(path.rfind('/'))) {
      while (!path.empty() && path.back() == '/') path.pop_back();
      consider(number(from.file(root + path + "/" + name)), "cgroup " + name);   // "max": none
      if (path.find('/') == std::string::npos) break;
    }
  }
  return best;
}

std::optional<MemoryLimit> memory_limit(MemoryOf whose) {
  return memory_limit({[](const std::string& name) -> std::optional<std::string> {
                         const char* v = std::getenv(name.c_str());
                         return v ? std::optional<std::string>(v) : std::nullopt;
                       },
                       [whose](const std::string& path) -> std::optional<std::string> {
                         if (whose == MemoryOf::the_job) return std::nullopt;   // no cgroup: this machine's
                         std::ifstream in(path);
                         if (!in) return std::nullopt;
                         std::ostringstream text;
                         text << in.rdbuf();
                         return text.str();
                       }});
}

PlanCost run_cost(int shard_count) { return {"run", sizeof(UnitTable::Outcome), 2, shard_count}; }
PlanCost count_cost() { return {"count", sizeof(core::WorkUnit), 0, 1}; }

PlanCost planned_run_cost(int shard_count) {
  PlanCost c = run_cost(shard_count);
  c.memory = MemoryOf::the_job;
  return c;
}

double memory_to_ask(double table_bytes) { return std::max(table_bytes / kMemoryShare, kMinJobBytes); }

TableMemory master_memory(std::uint64_t units_total, int shard_count) {
  const double table = master_bytes(run_cost(shard_count), static_cast<double>(units_total));
  return {table, memory_to_ask(table)};
}

TableMemory merge_memory(std::uint64_t units_total) { return master_memory(units_total, 1); }

std::string slurm_mem_option(double bytes) {
  return "--mem=" + std::to_string(static_cast<std::uint64_t>(std::ceil(bytes / (1 << 20)))) + "M";
}

void check_merge_memory(std::uint64_t units) {
  const TableMemory need = merge_memory(units);
  const auto& memory = master_limit(MemoryOf::this_process).memory;   // not the cap: the shards' masters kept to it, a merge may not
  if (!memory || need.table <= kMemoryShare * memory->bytes) return;
  throw ExitError(kUsage, "merge: the job's " + with_commas(units) + " units take about " + gigabytes(need.table) +
                              " in its table (" + std::to_string(run_cost(1).bytes_per_unit) +
                              " bytes per unit), over its limit of " + share_text(*memory) +
                              ": run the merge with more memory (at least " + gigabytes_at_least(need.ask) + ")");
}

int run_depth(const core::JobParams& p, const core::StopFn& stop) {
  if (p.depth) return p.depth;
  return p.boards_mode() ? default_boards_depth(p.n, p.boards, p.symmetry, stop)
                         : core::default_run_depth(p.n, p.symmetry, stop);
}

void print_run_needs(std::ostream& os, const core::JobParams& p, std::uint64_t units, const std::string& out,
                     double journal_now) {
  const std::uint64_t mine = p.shard.size(units);
  os << "plan     N = " << p.n << ", " << core::to_string(p.mode) << " mode, depth " << p.depth << ", symmetry "
     << core::to_string(p.symmetry) << ": " << with_commas(units) << " work units";
  if (!p.shard.whole()) os << "; shard " << core::to_string(p.shard) << ": " << with_commas(mine) << " of them";
  os << "\n";
  const PlanCost cost = planned_run_cost(p.shard.count);
  const TableMemory master = master_memory(units, p.shard.count);
  os << "master   keeps about " << gigabytes(master.table) << " for its units (" << cost.bytes_per_unit << " bytes a unit"
     << (p.shard.whole() ? "" : " of its shard") << ", " << cost.bits_per_plan_unit << " bits a unit of the plan), within "
     << "its limit of " << master_limit(cost.memory).text << ": give its rank about " << gigabytes(master.ask) << " ("
     << slurm_mem_option(master.ask) << " where it is alone on its node)\n";
  if (!p.shard.whole()) {
    const TableMemory merge = merge_memory(units);
    os << "merge    of the " << p.shard.count << " shards keeps about " << gigabytes(merge.table)
       << " for the job's units: give it about " << gigabytes(merge.ask) << " (" << slurm_mem_option(merge.ask) << ")\n";
  }
  const DiskNeed disk = disk_need(p, units, mine);
  std::error_code ec;
  fs::path dir = fs::absolute(fs::path(out), ec).parent_path();
  while (!ec && dir.has_relative_path() && !fs::exists(dir, ec)) dir = dir.parent_path();   // the run creates the rest
  const auto space = fs::space(dir, ec);
  const double more = disk.still_to_add(journal_now);
  os << "disk     about " << gigabytes(disk.journal + disk.file) << " beside " << out << " (its journal grows to "
     << gigabytes(disk.journal) << " and stays until the result file, " << gigabytes(disk.file) << ", is written)";
  if (journal_now > 0) os << ", " << gigabytes(more) << " more than now";
  if (!ec) {
    os << "; " << gigabytes(static_cast<double>(space.available)) << " free in " << dir.string();
    if (more > static_cast<double>(space.available))
      os << ": not enough (a run stops when the disk fills, exit 4, with its finished units kept)";
  }
  os << "\n";
}

std::uint64_t checked_plan_size(const core::UnitPlan& plan, const PlanCost& cost, const core::StopFn& stop,
                                bool say) {
  const auto by_depth = core::estimate_sizes(plan);
  const core::SizeEstimate& e = by_depth.back();
  if (!fits(cost, e.units / margin(e)))
    refuse(plan, cost, e.units, e.exact ? Known::counted : Known::estimated, by_depth);
  // Said before the count of a plan of many units, else once the count has taken
  // kAnnounceAfter: a deep plan of few units walks long to each (`count 16 --depth 16`, 1.9 M
  // units, counted for 58 s in silence until session 47).
  bool said = !say;
  const auto announce = [&] {
    if (said) return;
    said = true;
    std::ostringstream line;   // (a stream of its own: std::cerr keeps its format)
    line << "nqueens: counting the work units of the plan (about " << std::setprecision(2) << e.units << ", depth "
         << plan.depth() << ")\n";
    std::cerr << line.str();
  };
  if (!e.exact && e.units >= kAnnounceUnits) announce();
  const auto start = std::chrono::steady_clock::now();
  const core::StopFn timed = [&] {
    if (!said && std::chrono::steady_clock::now() - start > kAnnounceAfter) announce();
    return stop && stop();
  };
  const std::uint64_t cap = max_units(cost);
  const std::uint64_t units = plan.count_up_to(cap + 1, timed);
  if (units > cap) refuse(plan, cost, static_cast<double>(units), Known::more_than, by_depth);
  return units;
}

}  // namespace nq::app
