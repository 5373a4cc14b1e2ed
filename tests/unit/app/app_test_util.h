// Helpers of the app tests: the finished units of a real plan (counted by the core), and shard
// result files written the way `nqueens run --shard` writes them.
#pragma once
#include <string>
#include <vector>
#include "app/result_files.h"
#include "app/run_end.h"
#include "core/job_params.h"
#include "core/version.h"

namespace nq::app::test {

// A count job of size n over `symmetry` units of `depth` rows.
inline core::JobParams count_job(int n, int depth, core::Symmetry symmetry = core::Symmetry::mirror) {
  core::JobParams p;
  p.n = n;
  p.depth = depth;
  p.symmetry = symmetry;
  return p;
}

// Every unit of the plan of `p` in p.shard, counted.
inline std::vector<store::UnitRecord> finished_units(const core::JobParams& p) {
  const core::UnitPlan plan(p.n, p.depth, p.symmetry);
  std::vector<store::UnitRecord> out;
  for (const auto& u : plan.units()) {
    if (!p.shard.contains(u.id)) continue;
    store::UnitRecord r;
    r.id = u.id;
    r.placement = u.placement;
    r.multiplicity = u.multiplicity;
    const auto st = plan.count(u);
    r.solutions = st.solutions;
    r.nodes = st.nodes;
    out.push_back(r);
  }
  return out;
}

// `records` (in id order, kept alive by the caller) as the source of a result file's units.
inline UnitSource source_of(const std::vector<store::UnitRecord>& records) {
  return {records.size(), [&records](const UnitVisitor& f) {
            for (const auto& r : records) f(r);
          }};
}

inline std::uint64_t plan_size(const core::JobParams& p) { return core::UnitPlan(p.n, p.depth, p.symmetry).size(); }

// The RunInfo of `records` of the job `p`, decided as a run decides it.
inline store::RunInfo run_info(const core::JobParams& p, const std::vector<store::UnitRecord>& records) {
  store::RunInfo info;
  info.program_version = kProgramVersion;
  info.params = p;
  info.units_total = plan_size(p);
  info.hosts = "node" + std::to_string(p.shard.index);
  decide_totals(info, source_of(records), p.shard.size(info.units_total), false);
  return info;
}

// Writes the (complete) result file of shard `p.shard` of the job `p`; returns its RunInfo.
inline store::RunInfo write_shard(const std::string& path, const core::JobParams& p) {
  const auto records = finished_units(p);
  const auto info = run_info(p, records);
  write_result_file(path, info, source_of(records), no_boards());
  return info;
}

}  // namespace nq::app::test
