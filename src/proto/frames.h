// Result messages on the wire: an encoded ResultBatch cut into parts of at most `max_bytes`
// each (MPI counts are `int`: a boards batch must never reach 2 GiB in one message), each part
// behind a fixed header that names its batch outside the Boost archive, so that a message whose
// archive cannot be decoded is still traced to its batch and recomputed. No MPI here.
//
// | bytes | field                                                  |
// |-------|--------------------------------------------------------|
// | 0-7   | batch id                                               |
// | 8-11  | part index, 0-based                                    |
// | 12-15 | part count, >= 1                                       |
// | 16-23 | FNV-1a of the whole encoded batch (all parts, in order) |
// | 24-   | this part's bytes                                      |
// All fields little-endian. Invariants: 1. the parts of one batch are sent in order by one
// sender on one tag (MPI does not reorder them); 2. a batch is decoded only once every part
// arrived and the hash matched.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nq::proto {

inline constexpr std::size_t kFrameHeaderBytes = 24;
inline constexpr std::size_t kDefaultMaxMessageBytes = std::size_t{64} << 20;   // 64 MiB

// The parts of `encoded` (the bytes of encode(ResultBatch)), each at most max_bytes long
// (header included; max_bytes > kFrameHeaderBytes). A batch of one part is sent from the
// encoding's own buffer (moved in: no second copy of a boards batch).
std::vector<std::string> frame_parts(std::uint64_t batch_id, std::string encoded, std::size_t max_bytes);

// Joins the parts of one sender's batches. feed() returns a Frame when a batch is complete or
// when a message cannot belong to one (too short, parts out of order, a bad hash).
class Reassembler {
 public:
  struct Frame {
    std::optional<std::uint64_t> batch_id;   // none: the header itself is unreadable
    std::string bytes;                       // the encoded batch when ok
    std::string error;                       // empty: ok
  };
  // A batch of one part keeps the message's own buffer (moved in: no copy of its bytes).
  std::optional<Frame> feed(std::string message);
  std::size_t open_batches() const { return open_.size(); }

 private:
  struct Open {
    std::uint32_t next = 0, count = 0;
    std::uint64_t hash = 0;
    std::string bytes;
  };
  std::map<std::uint64_t, Open> open_;
};

}  // namespace nq::proto
