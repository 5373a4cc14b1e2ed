#include "store/chunks.h"
#include <zlib.h>
#include <stdexcept>
#include <vector>

namespace nq::store {

std::uint32_t fletcher32(std::span<const std::uint8_t> data) {
  const std::uint8_t* p = data.data();
  std::size_t words = data.size() / 2;
  std::uint32_t sum1 = 0, sum2 = 0;
  while (words) {
    std::size_t block = words > 360 ? 360 : words;
    words -= block;
    do {
      sum1 += static_cast<std::uint32_t>((p[0] << 8) | p[1]);
      p += 2;
      sum2 += sum1;
    } while (--block);
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  if (data.size() % 2) {
    sum1 += static_cast<std::uint32_t>(*p << 8);
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  return (sum2 << 16) | sum1;
}

namespace {

// One deflate state per thread, reset for each chunk: deflateInit2 allocates ~270 KB, more than
// the work of a chunk of /units (32 KB), and freeing it gave the pages back each time (a third
// of the time of writing a count file went to the kernel).
class Deflater {
 public:
  ~Deflater() {
    if (level_ >= 0) deflateEnd(&zs_);
  }
  z_stream& start(int level, int strategy) {
    if (level_ < 0) {
      if (deflateInit2(&zs_, level, Z_DEFLATED, 15, 8, strategy) != Z_OK)
        throw std::runtime_error("store::encode_chunk: zlib failed to start");
    } else if (deflateReset(&zs_) != Z_OK ||
               ((level != level_ || strategy != strategy_) && deflateParams(&zs_, level, strategy) != Z_OK)) {
      throw std::runtime_error("store::encode_chunk: zlib failed to restart");
    }
    level_ = level;
    strategy_ = strategy;
    return zs_;
  }

 private:
  z_stream zs_{};
  int level_ = -1, strategy_ = -1;
};

}  // namespace

std::string encode_chunk(std::span<const std::uint8_t> raw, std::size_t element_size, int deflate_level,
                         DeflateSearch search) {
  // Scratch buffers kept by the thread: a chunk of /units is 32 KB, and buffers allocated and
  // freed per chunk went back to the kernel each time (page faults, a third of the time).
  thread_local std::vector<std::uint8_t> shuffled, compressed;
  std::span<const std::uint8_t> input = raw;
  if (element_size > 1 && raw.size() % element_size == 0) {   // byte j of element i -> j * count + i
    const std::size_t count = raw.size() / element_size;
    shuffled.resize(raw.size());
    for (std::size_t i = 0; i < count; ++i)
      for (std::size_t j = 0; j < element_size; ++j) shuffled[j * count + i] = raw[i * element_size + j];
    input = shuffled;
  }
  // A zlib stream (windowBits 15: the zlib wrapper HDF5's deflate filter writes and reads).
  thread_local Deflater deflater;
  z_stream& zs = deflater.start(deflate_level, search == DeflateSearch::runs ? Z_RLE : Z_DEFAULT_STRATEGY);
  const uLong bound = deflateBound(&zs, static_cast<uLong>(input.size()));
  if (compressed.size() < bound) compressed.resize(bound);
  Bytef* dst = compressed.data();
  zs.next_in = const_cast<Bytef*>(input.data());
  zs.avail_in = static_cast<uInt>(input.size());
  zs.next_out = dst;
  zs.avail_out = static_cast<uInt>(bound);
  const int rc = deflate(&zs, Z_FINISH);
  const auto size = static_cast<std::size_t>(zs.total_out);
  if (rc != Z_STREAM_END) throw std::runtime_error("store::encode_chunk: zlib failed");
  const std::uint32_t sum = fletcher32({dst, static_cast<std::size_t>(size)});
  std::string out(reinterpret_cast<const char*>(dst), size);
  for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((sum >> (8 * b)) & 0xFF));
  return out;
}

}  // namespace nq::store
