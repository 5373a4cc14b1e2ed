// The AVX2 counting kernel (count_completions on CPUs with AVX2 and no AVX-512): the level
// walk of core/level_step.h, counting the solutions.
#include "core/kernel.h"
#include "core/level_step.h"

namespace nq::core {

#if NQ_HAVE_LEVEL_STEP
namespace {
using namespace level_step;

// The root, once; the solutions counted.
struct Counter {
  const RowSearch& s;
  bool root = true;
  Count solutions = 0;

  NQ_AVX2_INLINE int fill(Batch<kNodeFields>& b, int count) {
    if (!root) return count;
    root = false;
    b.f[kCols][count] = b.f[kDl][count] = b.f[kDr][count] = 0;
    b.f[kUntried][count] = untried_at(s, 0, 0, 0, 0);
    return count + 1;
  }
  NQ_AVX2_INLINE void on_solutions(int lanes, const Lanes<kNodeFields>&, __m256i, __m256i) {
    solutions += static_cast<Count>(std::popcount(static_cast<unsigned>(lanes)));
  }
};

NQ_AVX2 SearchStats level_search(const RowSearch& s) {
  Counter c{s};
  const Count tried = walk<kNodeFields>(s, 0, c);
  return {c.solutions, tried + c.solutions};
}

bool detect_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") &&
         __builtin_cpu_supports("bmi2");
}

}  // namespace
#endif

bool avx2_kernel_available() {
#if NQ_HAVE_LEVEL_STEP
  static const bool available = detect_avx2();
  return available;
#else
  return false;
#endif
}

std::optional<SearchStats> count_completions_avx2(const RowSearch& s) {
#if NQ_HAVE_LEVEL_STEP
  if (!avx2_kernel_available()) return std::nullopt;
  if (s.levels < 2) return count_completions_scalar(s);
  return level_search(s);
#else
  (void)s;
  return std::nullopt;
#endif
}

}  // namespace nq::core
