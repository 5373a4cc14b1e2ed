// One finished work unit as the store keeps it: a row of /units in a result file and the fixed
// part of a journal record. Plain data; written by the app, read by `info`/`merge`/resume.
#pragma once
#include <array>
#include <cstdint>
#include "core/types.h"
#include "core/units.h"

namespace nq::store {

struct UnitRecord {
  std::uint64_t id = 0;   // position in the plan's enumeration
  // Column of the pre-placed queen in row r, or core::kEmptyRow (0xFF) for rows left to the
  // search; entries at r >= n are always 0xFF.
  std::array<std::uint8_t, core::kMaxN> placement = core::WorkUnit::empty_placement();
  std::uint32_t multiplicity = 1;
  std::uint64_t solutions = 0;   // completions of the placement (not multiplied)
  std::uint64_t nodes = 0;
  double seconds = 0;            // compute time of the unit
  double started = 0;            // unix time the unit started
  std::int32_t rank = 0;
  std::int32_t thread = 0;

  bool operator==(const UnitRecord&) const = default;
};

}  // namespace nq::store
