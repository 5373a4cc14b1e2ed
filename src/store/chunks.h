// Chunks compressed outside HDF5 and written with H5Dwrite_chunk (direct chunk write), so that
// the boards of a result file are compressed on every core instead of in HDF5's one thread.
// encode_chunk applies exactly the pipeline the datasets declare, in order: shuffle (HDF5's
// byte transpose; the identity for 1-byte elements), deflate (a zlib stream, as HDF5's
// deflate filter writes it), fletcher32 (HDF5's checksum of the compressed bytes, appended
// little-endian). Any HDF5 reader (h5py, h5dump) decodes them with its built-in filters.
// Pure functions, thread-safe; no HDF5 calls here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace nq::store {

// Which repeats deflate looks for (any reader inflates both: the choice is the writer's).
//   matches: zlib's default search for earlier copies (all-mode boards come in groups of a
//            completion's images, whose columns repeat at the group's period: Z_RLE would
//            take 75 % more bytes there);
//   runs:    runs of one byte only (Z_RLE): for the columns of class-mode boards ~8 % smaller
//            than level 4's search and ~2.5x faster (N = 18, measured on the file's chunks).
enum class DeflateSearch { matches, runs };

// The chunk's raw bytes (a whole chunk, `element_size`-byte elements) through the pipeline.
// Throws std::runtime_error if zlib fails.
std::string encode_chunk(std::span<const std::uint8_t> raw, std::size_t element_size, int deflate_level,
                         DeflateSearch search = DeflateSearch::matches);

// HDF5's Fletcher-32 (H5_checksum_fletcher32): 16-bit big-endian words, sums reduced mod
// 65535 in blocks of 360 words, an odd last byte as the high byte of a word.
std::uint32_t fletcher32(std::span<const std::uint8_t> data);

}  // namespace nq::store
