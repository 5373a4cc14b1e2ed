#include "app/report.h"
#include <iomanip>
#include "core/known_counts.h"

namespace nq::app {

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
    case core::KnownMatch::match:
      out << "known    match (published total " << known->total << ", unique " << known->unique
          << ")\n";
      break;
    case core::KnownMatch::mismatch:
      out << "known    MISMATCH: published total " << known->total << ", unique "
          << known->unique << "\n";
      break;
    case core::KnownMatch::unknown:
      out << "known    none published for N = " << r.n << "\n";
      break;
  }
}

}  // namespace nq::app
