#include "app/report.h"
#include <iomanip>
#include "core/known_counts.h"

namespace nq::app {

KnownMatch known_match(int n, core::Total total, core::Total unique) {
  const auto known = core::known_counts(n);
  if (!known) return KnownMatch::unknown;
  return known->total == total && known->unique == unique ? KnownMatch::match : KnownMatch::mismatch;
}

std::string to_string(KnownMatch m) {
  return m == KnownMatch::match ? "yes" : m == KnownMatch::mismatch ? "no" : "unknown";
}

void print_count_report(std::ostream& out, const CountReport& r) {
  const auto known = core::known_counts(r.n);
  out << "N        " << r.n << "\n"
      << "total    " << core::to_decimal(r.total) << "\n"
      << "unique   " << core::to_decimal(r.unique) << "   (Burnside: P = " << r.fixed.rot180
      << ", R = " << r.fixed.rot90 << ")\n"
      << "seconds  " << std::fixed << std::setprecision(3) << r.seconds << "\n"
      << "threads  " << r.threads << "\n"
      << "units    " << r.units << " (depth " << r.depth << "), nodes " << core::to_decimal(r.nodes) << "\n";
  switch (known_match(r)) {
    case KnownMatch::match:
      out << "known    match (published total " << known->total << ", unique " << known->unique
          << ")\n";
      break;
    case KnownMatch::mismatch:
      out << "known    MISMATCH: published total " << known->total << ", unique "
          << known->unique << "\n";
      break;
    case KnownMatch::unknown:
      out << "known    none published for N = " << r.n << "\n";
      break;
  }
}

}  // namespace nq::app
