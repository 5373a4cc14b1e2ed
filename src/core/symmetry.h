// Unique (fundamental) counts by Burnside's lemma, independent of the total's search:
//   unique = (total + P + 2R) / 8   for n >= 2,
// where P and R are the solutions fixed by the half turn and by the quarter turn, found here
// by small searches restricted to symmetric placements. Pure functions; thread-safe.
#pragma once
#include <stdexcept>
#include "core/stop.h"
#include "core/total.h"
#include "core/types.h"

namespace nq::core {

struct RotationFixed {
  Count rot180 = 0;   // P (includes the quarter-turn-symmetric ones)
  Count rot90 = 0;    // R
};

// Raised when counts contradict each other (e.g. Burnside's sum is not a multiple of 8).
class IntegrityError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The search runs on `threads` threads (0 = usable_cpus()) and grows ~x3 per N; it polls
// `stop` (Interrupted, core/stop.h) from every thread, so `stop` must be thread-safe.
RotationFixed count_rotation_fixed(int n, const StopFn& stop = {}, int threads = 1);

// Unique count from the total and P, R, exact in 128 bits. Throws IntegrityError if
// total + P + 2R is not a multiple of 8 (a wrong total) or does not fit in 128 bits.
Total unique_from_burnside(int n, Total total, const RotationFixed& fixed);

}  // namespace nq::core
