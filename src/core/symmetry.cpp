#include "core/symmetry.h"
#include <bit>
#include <string>
#include <vector>
#include "core/parallel.h"
#include "core/types.h"

namespace nq::core {
namespace {

// The boards fixed by the half turn (step 2: a queen at (r, c) means one at (n-1-r, n-1-c)) or by
// the quarter turn (step 1: also at (c, n-1-r) and (n-1-c, r)), counted by placing whole orbits,
// each from its square in the first empty row of the top half. Bit masks with absolute
// diagonals: d1 = r + c, d2 = c - r + n - 1 (both < 2n - 1 <= 63). Why a free square is enough:
//   1. the queens placed always form a set the turn maps onto itself, and a turn maps attacks to
//      attacks, so a square no queen attacks has images no queen attacks;
//   2. an orbit's own squares attack each other exactly when c = r or c = n-1-r (the diagonals
//      through the centre; a shared row or column needs the centre row or column, which the
//      centre queen of an odd board holds, and whose top-half rows stop before);
//   3. so a row's candidates are its free squares less those two, and every orbit placed keeps
//      the set symmetric. With the top half's rows filled, the images fill the rest.
class FixedSearch {
 public:
  FixedSearch(int n, int step) : n_(n), step_(step), half_(n / 2) {}

  struct State {
    std::uint64_t rows = 0, cols = 0, d1 = 0, d2 = 0;
  };
  State start() const {
    State s;
    if (n_ % 2) {   // a rotation-symmetric board of odd size has its centre occupied
      const int m = n_ / 2;
      s.rows = s.cols = 1ULL << m;
      s.d1 = 1ULL << (2 * m);
      s.d2 = 1ULL << (n_ - 1);
    }
    return s;
  }
  // The first row of the top half at or after r that is still empty; half_ if none.
  int next_row(const State& s, int r) const {
    while (r < half_ && (s.rows >> r & 1)) ++r;
    return r;
  }
  bool done(int r) const { return r == half_; }
  std::uint64_t candidates(const State& s, int r) const {
    const std::uint64_t full = (std::uint64_t{1} << n_) - 1;
    return ~(s.cols | s.d1 >> r | s.d2 >> (n_ - 1 - r) | std::uint64_t{1} << r | std::uint64_t{1} << (n_ - 1 - r)) &
           full;
  }
  State place(State s, int r, int c) const {
    const int rr[4] = {r, c, n_ - 1 - r, n_ - 1 - c};
    const int cc[4] = {c, n_ - 1 - r, n_ - 1 - c, r};
    for (int i = 0; i < 4; i += step_) {
      s.rows |= std::uint64_t{1} << rr[i];
      s.cols |= std::uint64_t{1} << cc[i];
      s.d1 |= std::uint64_t{1} << (rr[i] + cc[i]);
      s.d2 |= std::uint64_t{1} << (cc[i] - rr[i] + n_ - 1);
    }
    return s;
  }
  // The completions of `s`, whose first empty top-half row is at or after r.
  Count count(const State& s, int r, StopPoll& poll) const {
    r = next_row(s, r);
    if (done(r)) return 1;
    poll.tick();
    Count total = 0;
    for (std::uint64_t f = candidates(s, r); f; f &= f - 1)
      total += count(place(s, r, std::countr_zero(f)), r + 1, poll);
    return total;
  }

 private:
  int n_, step_, half_;
};

// The search split into the states after the first two orbits (up to ~n^2 of them), counted
// on `threads` threads.
Count count_fixed(int n, int step, const StopFn& stop, int threads) {
  if (step == 1 && n % 4 >= 2) return 0;   // quarter-turn orbits have size 4 (plus the centre)
  const FixedSearch search(n, step);
  struct Task {
    FixedSearch::State state;
    int row;
  };
  std::vector<Task> tasks{{search.start(), 0}};
  for (int level = 0; level < 2; ++level) {
    std::vector<Task> next;
    for (const Task& t : tasks) {
      const int r = search.next_row(t.state, t.row);
      if (search.done(r)) {
        next.push_back({t.state, r});
        continue;
      }
      for (std::uint64_t f = search.candidates(t.state, r); f; f &= f - 1)
        next.push_back({search.place(t.state, r, std::countr_zero(f)), r + 1});
    }
    tasks = std::move(next);
  }
  std::vector<Count> counts(tasks.size());
  parallel_for(tasks.size(), threads, [&](std::size_t i) {
    StopPoll poll(stop, "the Burnside search");
    poll.check();
    counts[i] = search.count(tasks[i].state, tasks[i].row, poll);
  });
  Count total = 0;
  for (const Count c : counts) total += c;
  return total;
}

}  // namespace

RotationFixed count_rotation_fixed(int n, const StopFn& stop, int threads) {
  if (n == 1) return {1, 1};
  return {count_fixed(n, 2, stop, threads), count_fixed(n, 1, stop, threads)};
}

Total unique_from_burnside(int n, Total total, const RotationFixed& fixed) {
  if (n == 1) return total;   // the single board is fixed by all eight symmetries
  Total sum = total;
  if (!add_product(sum, 1, fixed.rot180) || !add_product(sum, 2, fixed.rot90))
    throw IntegrityError("Burnside check failed for n=" + std::to_string(n) + ": total " +
                         to_decimal(total) + " + P + 2R does not fit in 128 bits");
  if (sum % 8 != 0)
    throw IntegrityError("Burnside check failed for n=" + std::to_string(n) + ": total " +
                         to_decimal(total) + " + P " + std::to_string(fixed.rot180) + " + 2R " +
                         to_decimal(Total{fixed.rot90} * 2) + " is not a multiple of 8");
  return sum / 8;
}

}  // namespace nq::core
