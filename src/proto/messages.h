// Messages between the master and the workers, and their wire format (Boost.Serialization
// binary archives; every message starts with kProtocolVersion and decode() refuses others).
// Used by src/cluster; no MPI here. Encoding/decoding is thread-safe (no shared state).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
#include "core/boards.h"
#include "core/job_params.h"
#include "core/units.h"

namespace nq::proto {

inline constexpr std::uint32_t kProtocolVersion = 3;   // 3: JobSpec carries core::JobParams; 2: framed results, word-wise FNV-1a

class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What every worker needs to rebuild the plan; broadcast once at start.
struct JobSpec {
  core::JobParams params;   // boards mode: workers send each unit's boards back (core::append_unit_results)
  int threads_per_worker = 1;
  bool operator==(const JobSpec&) const = default;
};

struct WorkBatch {
  std::uint64_t batch_id = 0;
  std::vector<core::WorkUnit> units;   // empty: no more work for now
};

// The result of one unit. `check` = checksum over (id, solutions, nodes, boards) so the
// master detects a result that was garbled or paired with the wrong unit.
struct UnitResult {
  std::uint64_t id = 0;
  core::Count solutions = 0;
  core::Count nodes = 0;
  double seconds = 0;
  double started = 0;   // unix time
  std::int32_t rank = 0;
  std::int32_t thread = 0;
  std::vector<std::uint8_t> boards;        // boards mode: k * n bytes (all: the completions)
  std::vector<std::uint8_t> class_sizes;   // boards mode, class set: k bytes
  std::uint64_t check = 0;
  bool operator==(const UnitResult&) const = default;
};

struct ResultBatch {
  std::uint64_t batch_id = 0;
  std::vector<UnitResult> results;
};

// Checksum of a result's payload (FNV-1a over the fields named above).
std::uint64_t result_check(const UnitResult& r);

// FNV-1a over 64-bit words (then the last bytes one by one), the one hash of the messages
// (result checksums, frame checks, audit digests). Not for files: only this program reads it.
inline constexpr std::uint64_t kFnvBasis = 14695981039346656037ULL;
std::uint64_t fnv1a(const void* data, std::size_t size, std::uint64_t h = kFnvBasis);

std::string encode(const JobSpec& m);
std::string encode(const WorkBatch& m);
std::string encode(const ResultBatch& m);
// Throw ProtocolError on a different protocol version or a malformed buffer.
JobSpec decode_job(std::string_view bytes);
WorkBatch decode_work(std::string_view bytes);
ResultBatch decode_results(std::string_view bytes);

}  // namespace nq::proto
