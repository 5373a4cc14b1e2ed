#include "proto/messages.h"
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/array.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <cstring>
#include <sstream>

namespace boost::serialization {

template <class Ar>
void serialize(Ar& ar, nq::core::WorkUnit& u, unsigned) {
  ar & u.id & u.multiplicity & u.placement;
}
template <class Ar>
void serialize(Ar& ar, nq::core::JobParams& p, unsigned) {
  ar & p.n & p.mode & p.boards & p.depth & p.symmetry & p.shard.index & p.shard.count;
}
template <class Ar>
void serialize(Ar& ar, nq::proto::JobSpec& m, unsigned) {
  ar & m.params & m.threads_per_worker;
}
template <class Ar>
void serialize(Ar& ar, nq::proto::WorkBatch& m, unsigned) {
  ar & m.batch_id & m.units;
}
template <class Ar>
void serialize(Ar& ar, nq::proto::UnitResult& r, unsigned) {
  ar & r.id & r.solutions & r.nodes & r.seconds & r.started & r.rank & r.thread & r.boards &
      r.class_sizes & r.check;
}
template <class Ar>
void serialize(Ar& ar, nq::proto::ResultBatch& m, unsigned) {
  ar & m.batch_id & m.results;
}

}  // namespace boost::serialization

namespace nq::proto {
namespace {

constexpr auto kFlags = boost::archive::no_header | boost::archive::no_tracking;

// A read-only stream buffer over bytes that stay alive while it is read: the archive decodes a
// message in place, not from a copy (a boards batch's message is tens of MB).
class ViewBuffer : public std::streambuf {
 public:
  explicit ViewBuffer(std::string_view bytes) {
    char* p = const_cast<char*>(bytes.data());   // only read: no put area, no putback
    setg(p, p, p + bytes.size());
  }
};

// `reserve`: about the bytes the encoding takes, given to the stream up front so that a boards
// batch is written into one buffer instead of one that doubles (and is copied) as it grows.
template <class T>
std::string encode_message(const T& m, std::size_t reserve = 0) {
  std::string buffer;
  buffer.reserve(reserve);
  std::ostringstream out(std::move(buffer));
  {
    boost::archive::binary_oarchive ar(out, kFlags);
    const std::uint32_t version = kProtocolVersion;
    ar << version << m;
  }
  return std::move(out).str();
}

template <class T>
T decode_message(std::string_view bytes, const char* what) {
  T m{};
  try {
    ViewBuffer view(bytes);
    std::istream in(&view);
    boost::archive::binary_iarchive ar(in, kFlags);
    std::uint32_t version = 0;
    ar >> version;
    if (version != kProtocolVersion)
      throw ProtocolError(std::string("proto::decode: ") + what + " has protocol version " +
                          std::to_string(version) + ", this program speaks " +
                          std::to_string(kProtocolVersion));
    ar >> m;
  } catch (const ProtocolError&) {
    throw;
  } catch (const std::exception& e) {
    throw ProtocolError(std::string("proto::decode: malformed ") + what + ": " + e.what());
  }
  return m;
}

void fnv(std::uint64_t& h, const void* data, std::size_t size) { h = fnv1a(data, size, h); }

}  // namespace

std::uint64_t fnv1a(const void* data, std::size_t size, std::uint64_t h) {
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {   // 8 bytes a step: boards batches are hundreds of MB
    std::uint64_t word;
    std::memcpy(&word, p + i, 8);
    h ^= word;
    h *= kPrime;
  }
  for (; i < size; ++i) {
    h ^= p[i];
    h *= kPrime;
  }
  return h;
}

std::uint64_t result_check(const UnitResult& r) {
  std::uint64_t h = kFnvBasis;
  fnv(h, &r.id, sizeof r.id);
  fnv(h, &r.solutions, sizeof r.solutions);
  fnv(h, &r.nodes, sizeof r.nodes);
  fnv(h, r.boards.data(), r.boards.size());
  fnv(h, r.class_sizes.data(), r.class_sizes.size());
  return h;
}

std::string encode(const JobSpec& m) { return encode_message(m); }
std::string encode(const WorkBatch& m) { return encode_message(m); }
std::string encode(const ResultBatch& m) {
  // The archive's fixed fields take a few bytes each: 64 a batch and 128 a unit are ample, and
  // leave room for the frame header that frame_parts puts in front of a one-part batch.
  std::size_t bytes = 64;
  for (const UnitResult& r : m.results) bytes += 128 + r.boards.size() + r.class_sizes.size();
  return encode_message(m, bytes);
}
JobSpec decode_job(std::string_view b) { return decode_message<JobSpec>(b, "job spec"); }
WorkBatch decode_work(std::string_view b) { return decode_message<WorkBatch>(b, "work batch"); }
ResultBatch decode_results(std::string_view b) { return decode_message<ResultBatch>(b, "result batch"); }

}  // namespace nq::proto
