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

std::string encode_chunk(std::span<const std::uint8_t> raw, std::size_t element_size, int deflate_level,
                         DeflateSearch search) {
  std::vector<std::uint8_t> shuffled;
  std::span<const std::uint8_t> input = raw;
  if (element_size > 1 && raw.size() % element_size == 0) {   // byte j of element i -> j * count + i
    const std::size_t count = raw.size() / element_size;
    shuffled.resize(raw.size());
    for (std::size_t i = 0; i < count; ++i)
      for (std::size_t j = 0; j < element_size; ++j) shuffled[j * count + i] = raw[i * element_size + j];
    input = shuffled;
  }
  // A zlib stream (windowBits 15: the zlib wrapper HDF5's deflate filter writes and reads).
  z_stream zs{};
  if (deflateInit2(&zs, deflate_level, Z_DEFLATED, 15, 8,
                   search == DeflateSearch::runs ? Z_RLE : Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("store::encode_chunk: zlib failed to start");
  const uLong bound = deflateBound(&zs, static_cast<uLong>(input.size()));
  std::string out(bound + 4, '\0');
  auto* dst = reinterpret_cast<Bytef*>(out.data());
  zs.next_in = const_cast<Bytef*>(input.data());
  zs.avail_in = static_cast<uInt>(input.size());
  zs.next_out = dst;
  zs.avail_out = static_cast<uInt>(bound);
  const int rc = deflate(&zs, Z_FINISH);
  const auto size = static_cast<std::size_t>(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("store::encode_chunk: zlib failed");
  const std::uint32_t sum = fletcher32({dst, static_cast<std::size_t>(size)});
  for (int b = 0; b < 4; ++b) out[size + b] = static_cast<char>((sum >> (8 * b)) & 0xFF);
  out.resize(size + 4);
  return out;
}

}  // namespace nq::store
