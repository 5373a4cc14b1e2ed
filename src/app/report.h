// The human-readable summary of a count (used by `count` and `run`), and the comparison with
// the published table.
#pragma once
#include <ostream>
#include <string>
#include "core/known_counts.h"
#include "core/symmetry.h"
#include "core/total.h"
#include "core/types.h"

namespace nq::app {

struct CountReport {
  int n = 0;
  core::Total total = 0;
  core::Total unique = 0;
  core::RotationFixed fixed;
  double seconds = 0;
  core::Total nodes = 0;
  int threads = 0;
  std::uint64_t units = 0;
  int depth = 0;
};

inline core::KnownMatch known_match(const CountReport& r) { return core::known_match(r.n, r.total, r.unique); }

void print_count_report(std::ostream& out, const CountReport& r);

}  // namespace nq::app
