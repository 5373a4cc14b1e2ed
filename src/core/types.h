// Basic types and limits of the solver core. Header-only; used by every layer.
#pragma once
#include <cstdint>

namespace nq::core {

using Count = std::uint64_t;   // a unit's solution / node count; sums over units: core::Total (total.h)
using Mask = std::uint32_t;    // one bit per column; N <= 32
inline constexpr int kMaxN = 32;

// Result of searching part of the tree.
struct SearchStats {
  Count solutions = 0;
  Count nodes = 0;   // queens placed by the search (a proxy for the work done)
  SearchStats& operator+=(const SearchStats& o) {
    solutions += o.solutions;
    nodes += o.nodes;
    return *this;
  }
};

constexpr Mask full_mask(int n) { return n >= 32 ? ~Mask{0} : (Mask{1} << n) - 1; }

}  // namespace nq::core
