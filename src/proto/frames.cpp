#include "proto/frames.h"
#include <algorithm>
#include <stdexcept>
#include "proto/messages.h"

namespace nq::proto {
namespace {

template <class T>
void put(std::string& out, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
template <class T>
T get(std::string_view in, std::size_t at) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    v |= static_cast<T>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  return v;
}

}  // namespace

std::vector<std::string> frame_parts(std::uint64_t batch_id, std::string encoded, std::size_t max_bytes) {
  if (max_bytes <= kFrameHeaderBytes) throw std::invalid_argument("proto::frame_parts: max_bytes too small");
  const std::size_t payload = max_bytes - kFrameHeaderBytes;
  const std::size_t count = std::max<std::size_t>(1, (encoded.size() + payload - 1) / payload);
  if (count > UINT32_MAX) throw std::invalid_argument("proto::frame_parts: too many parts");
  const std::uint64_t hash = fnv1a(encoded.data(), encoded.size());
  auto header = [&](std::size_t i) {
    std::string h;
    h.reserve(kFrameHeaderBytes);
    put(h, batch_id);
    put(h, static_cast<std::uint32_t>(i));
    put(h, static_cast<std::uint32_t>(count));
    put(h, hash);
    return h;
  };
  std::vector<std::string> parts;
  parts.reserve(count);
  if (count == 1) {   // one part: the header goes in front of the encoding, in its own buffer
    encoded.insert(0, header(0));
    parts.push_back(std::move(encoded));
    return parts;
  }
  const std::string_view all(encoded);
  for (std::size_t i = 0; i < count; ++i) {
    const std::string_view slice = all.substr(std::min(all.size(), i * payload), payload);
    std::string& m = parts.emplace_back(header(i));
    m.reserve(kFrameHeaderBytes + slice.size());
    m.append(slice);
  }
  return parts;
}

std::optional<Reassembler::Frame> Reassembler::feed(std::string message) {
  if (message.size() < kFrameHeaderBytes)
    return Frame{std::nullopt, {}, "a result message of " + std::to_string(message.size()) +
                                       " bytes, shorter than its header"};
  const auto id = get<std::uint64_t>(message, 0);
  const auto index = get<std::uint32_t>(message, 8);
  const auto count = get<std::uint32_t>(message, 12);
  const auto hash = get<std::uint64_t>(message, 16);
  auto bad = [&](const std::string& why) {
    open_.erase(id);
    return Frame{id, {}, "batch " + std::to_string(id) + ": " + why};
  };
  Open& o = open_[id];
  if (index == 0) o = Open{0, count, hash, {}};
  if (count == 0 || index != o.next || count != o.count || hash != o.hash)
    return bad("result message part " + std::to_string(index) + " of " + std::to_string(count) +
               " out of order or with another header");
  if (o.count == 1) {
    message.erase(0, kFrameHeaderBytes);
    o.bytes = std::move(message);
  } else {
    o.bytes.append(std::string_view(message).substr(kFrameHeaderBytes));
  }
  if (++o.next < o.count) return std::nullopt;
  Frame done{id, std::move(o.bytes), {}};
  open_.erase(id);
  if (fnv1a(done.bytes.data(), done.bytes.size()) != hash) {
    done.bytes.clear();
    done.error = "batch " + std::to_string(id) + ": the result message fails its hash (garbled on the way)";
  }
  return done;
}

}  // namespace nq::proto
