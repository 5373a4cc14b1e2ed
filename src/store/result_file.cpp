// HDF5 result file: layout and the code that writes and reads it. The schema (names, types,
// shapes, meanings) is the table in the README ("Result file (HDF5)"); this file is its only
// implementation.
//
//   /            root attributes: format, format_version, then every RunInfo field (attribute_fields);
//                a 128-bit count (total, unique) is four attributes (write_attr for core::Total):
//                  <name>          uint64   the value, or 2^64 - 1 when it does not fit
//                  <name>_hi/_lo   uint64   the high and low 64 bits            (version 2 on)
//                  <name>_decimal  string   the value in decimal digits         (version 2 on)
//   /units/      id u64 (U) | placement u8 (U,N) | multiplicity u32 | solutions u64 | nodes u64 |
//                seconds f64 | started f64 | rank i32 | thread i32          chunks of 4096 rows,
//                compressed on every core and written with H5Dwrite_chunk, as the boards
//   /boards/     solutions u8 (S,N) | class_size u8 (S) [class only] | unit u64 (S)   chunks of 131072 rows;
//                solutions chunked by column, (131072, 1): a chunk holds one row of 131072
//                boards in the order they were made (a completion, then its images), which
//                deflate packs to ~4.2 bytes a board at N = 16 (row-major chunks: 6.6; the
//                boards sorted within their unit: 5.2); the board chunks are compressed on
//                every core (store/chunks.h) and written with H5Dwrite_chunk
// Every dataset: chunked, extendible (max rows unlimited), shuffle + deflate level 4 + fletcher32.
// Strings: fixed-length, NULLPAD, ASCII (UTF-8 if non-ASCII).
// Default (earliest) file format bounds so h5py 3.7 / h5dump 1.10 / HDF5 1.8 read the files.
#include "store/result_file.h"
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include "core/parallel.h"
#include "store/chunks.h"
#include "store/crash_guard.h"
#include "store/fs.h"
#include "store/h5.h"

namespace nq::store {
namespace {

constexpr const char* kFormat = "nqueens-result";
// 2: total and unique also as 128-bit hi/lo halves and decimal strings. 1: 64-bit only (read).
constexpr std::int32_t kFormatVersion = 2;
constexpr std::int32_t kOldestReadableVersion = 1;
constexpr std::uint64_t kDoesNotFit = ~std::uint64_t{0};   // the uint64 attribute of a wider count
constexpr hsize_t kUnitChunkRows = 4096;
constexpr std::size_t kUnitBatchRows = 64 * kUnitChunkRows;   // units compressed together: 576 chunks
constexpr hsize_t kBoardChunkRows = 131072;   // 128 KiB per column chunk of boards
constexpr unsigned kDeflateLevel = 4;

// C++ type -> HDF5 memory type and (little-endian, fixed-width) file type.
template <class T>
struct H5Type;
template <>
struct H5Type<std::uint8_t> {
  static hid_t mem() { return H5T_NATIVE_UINT8; }
  static hid_t file() { return H5T_STD_U8LE; }
};
template <>
struct H5Type<std::uint32_t> {
  static hid_t mem() { return H5T_NATIVE_UINT32; }
  static hid_t file() { return H5T_STD_U32LE; }
};
template <>
struct H5Type<std::int32_t> {
  static hid_t mem() { return H5T_NATIVE_INT32; }
  static hid_t file() { return H5T_STD_I32LE; }
};
template <>
struct H5Type<std::uint64_t> {
  static hid_t mem() { return H5T_NATIVE_UINT64; }
  static hid_t file() { return H5T_STD_U64LE; }
};
template <>
struct H5Type<std::int64_t> {
  static hid_t mem() { return H5T_NATIVE_INT64; }
  static hid_t file() { return H5T_STD_I64LE; }
};
template <>
struct H5Type<double> {
  static hid_t mem() { return H5T_NATIVE_DOUBLE; }
  static hid_t file() { return H5T_IEEE_F64LE; }
};

// boards_stored (none|all|class) is the mode and the board set together: written as
// core::boards_stored(params), read back through core::set_boards_stored (after mode).
template <class Params>
struct BoardsStoredAttr {
  Params& params;
};
template <class Params>
BoardsStoredAttr<Params> boards_stored_attr(Params& p) {
  return {p};
}

// The one list of root attributes (besides format/format_version), in contract order. `f` is
// called with (name, member) for a RunInfo or a const RunInfo; enums are stored by their names
// (core/names.h).
template <class Info, class F>
void attribute_fields(Info& r, F&& f) {
  f("program_version", r.program_version);
  f("git_commit", r.git_commit);
  f("n", r.params.n);
  f("mode", r.params.mode);
  f("boards_stored", boards_stored_attr(r.params));
  f("depth", r.params.depth);
  f("symmetry", r.params.symmetry);
  f("ranks", r.ranks);
  f("threads", r.threads);
  f("hosts", r.hosts);
  f("start_time", r.start_time);
  f("end_time", r.end_time);
  f("wall_seconds", r.wall_seconds);
  f("status", r.status);
  f("units_total", r.units_total);
  f("units_done", r.units_done);
  f("shard_index", r.params.shard.index);
  f("shard_count", r.params.shard.count);
  f("total", r.total);
  f("unique", r.unique);
  f("rot180_fixed", r.rot180_fixed);
  f("rot90_fixed", r.rot90_fixed);
  f("known_total", r.known_total);
  f("known_unique", r.known_unique);
  f("matches_known", r.matches_known);
}
static_assert(sizeof(int) == sizeof(std::int32_t), "int attributes are stored as int32");

// ---- attributes ------------------------------------------------------------------------------

void write_attr(hid_t obj, const char* name, const std::string& v, const h5::Site& s) {
  const std::string what = std::string("write attribute ") + name;
  auto t = h5::type(H5Tcopy(H5T_C_S1), s, what);
  h5::check(H5Tset_size(t.get(), std::max<std::size_t>(v.size(), 1)), s, what);
  h5::check(H5Tset_strpad(t.get(), H5T_STR_NULLPAD), s, what);
  const bool ascii = std::all_of(v.begin(), v.end(), [](char c) { return (c & 0x80) == 0; });
  h5::check(H5Tset_cset(t.get(), ascii ? H5T_CSET_ASCII : H5T_CSET_UTF8), s, what);
  auto sp = h5::space(H5Screate(H5S_SCALAR), s, what);
  auto a = h5::attribute(H5Acreate2(obj, name, t.get(), sp.get(), H5P_DEFAULT, H5P_DEFAULT), s, what);
  const std::string buf = v.empty() ? std::string(1, '\0') : v;
  h5::check(H5Awrite(a.get(), t.get(), buf.data()), s, what);
  a.close(s, what);
}

template <class T>
void write_attr(hid_t obj, const char* name, const T& v, const h5::Site& s) {
  using Stored = std::conditional_t<std::is_same_v<T, int>, std::int32_t, T>;
  const std::string what = std::string("write attribute ") + name;
  auto sp = h5::space(H5Screate(H5S_SCALAR), s, what);
  auto a = h5::attribute(
      H5Acreate2(obj, name, H5Type<Stored>::file(), sp.get(), H5P_DEFAULT, H5P_DEFAULT), s, what);
  const Stored x = v;
  h5::check(H5Awrite(a.get(), H5Type<Stored>::mem(), &x), s, what);
  a.close(s, what);
}

template <core::NamedEnum E>
void write_attr(hid_t obj, const char* name, const E& v, const h5::Site& s) {
  write_attr(obj, name, core::to_string(v), s);
}

void write_attr(hid_t obj, const char* name, const BoardsStoredAttr<const core::JobParams>& v, const h5::Site& s) {
  write_attr(obj, name, core::boards_stored(v.params), s);
}

void write_attr(hid_t obj, const char* name, const core::Total& v, const h5::Site& s) {
  const std::string base(name);
  write_attr(obj, name, core::fits_u64(v) ? core::low_half(v) : kDoesNotFit, s);
  write_attr(obj, (base + "_hi").c_str(), core::high_half(v), s);
  write_attr(obj, (base + "_lo").c_str(), core::low_half(v), s);
  write_attr(obj, (base + "_decimal").c_str(), core::to_decimal(v), s);
}

h5::Handle open_attr(hid_t obj, const char* name, const h5::Site& s) {
  const std::string what = std::string("attribute ") + name;
  if (h5::check(H5Aexists(obj, name), s, what) == 0) h5::raise(s, "missing " + what);
  return h5::attribute(H5Aopen(obj, name, H5P_DEFAULT), s, what);
}

void read_attr(hid_t obj, const char* name, std::string& out, const h5::Site& s) {
  const std::string what = std::string("read attribute ") + name;
  auto a = open_attr(obj, name, s);
  auto ft = h5::type(H5Aget_type(a.get()), s, what);
  if (h5::check(H5Tget_class(ft.get()), s, what) != H5T_STRING)
    h5::raise(s, std::string("attribute ") + name + " is not a string");
  if (h5::check(H5Tis_variable_str(ft.get()), s, what) > 0) {   // written by other tools
    auto mt = h5::type(H5Tcopy(H5T_C_S1), s, what);
    h5::check(H5Tset_size(mt.get(), H5T_VARIABLE), s, what);
    h5::check(H5Tset_cset(mt.get(), h5::check(H5Tget_cset(ft.get()), s, what)), s, what);
    char* p = nullptr;
    h5::check(H5Aread(a.get(), mt.get(), &p), s, what);
    out = p ? p : "";
    h5::check(H5free_memory(p), s, what);
    return;
  }
  const std::size_t size = H5Tget_size(ft.get());
  if (size == 0) h5::raise(s, what + ": no string size");   // H5Tget_size's failure value
  std::string buf(size, '\0');
  auto mt = h5::type(H5Tcopy(ft.get()), s, what);
  h5::check(H5Aread(a.get(), mt.get(), buf.data()), s, what);
  const auto end = buf.find('\0');   // NULLPAD / NULLTERM; SPACEPAD trailing blanks too
  buf.resize(end == std::string::npos ? buf.size() : end);
  if (h5::check(H5Tget_strpad(ft.get()), s, what) == H5T_STR_SPACEPAD)
    while (!buf.empty() && buf.back() == ' ') buf.pop_back();
  out = std::move(buf);
}

template <class T>
void read_attr(hid_t obj, const char* name, T& out, const h5::Site& s) {
  using Stored = std::conditional_t<std::is_same_v<T, int>, std::int32_t, T>;
  const std::string what = std::string("read attribute ") + name;
  auto a = open_attr(obj, name, s);
  Stored x{};
  h5::check(H5Aread(a.get(), H5Type<Stored>::mem(), &x), s, what);   // converts other widths
  out = x;
}

template <core::NamedEnum E>
void read_attr(hid_t obj, const char* name, E& out, const h5::Site& s) {
  std::string text;
  read_attr(obj, name, text, s);
  const auto e = core::find_name<E>(text);
  if (!e) h5::raise(s, std::string(name) + " = '" + text + "' is not one of " + core::name_list<E>());
  out = *e;
}

void read_attr(hid_t obj, const char* name, BoardsStoredAttr<core::JobParams> v, const h5::Site& s) {
  std::string text;
  read_attr(obj, name, text, s);
  try {
    core::set_boards_stored(v.params, text);
  } catch (const std::invalid_argument& e) {
    h5::raise(s, e.what());
  }
}

// A count written by write_attr(core::Total): version 1 files only have the uint64 attribute;
// from version 2 on the halves are the value, and the decimal string and the uint64 must agree.
void read_attr(hid_t obj, const char* name, core::Total& out, std::int32_t version, const h5::Site& s) {
  std::uint64_t u64 = 0;
  read_attr(obj, name, u64, s);
  if (version < 2) {
    out = u64;
    return;
  }
  const std::string base(name);
  std::uint64_t hi = 0, lo = 0;
  std::string decimal;
  read_attr(obj, (base + "_hi").c_str(), hi, s);
  read_attr(obj, (base + "_lo").c_str(), lo, s);
  read_attr(obj, (base + "_decimal").c_str(), decimal, s);
  out = core::from_halves(hi, lo);
  const auto parsed = core::parse_decimal(decimal);
  if (!parsed || *parsed != out || u64 != (core::fits_u64(out) ? lo : kDoesNotFit))
    h5::raise(s, "attributes " + base + " = " + std::to_string(u64) + ", " + base + "_hi/_lo = " +
                     core::to_decimal(out) + " and " + base + "_decimal = '" + decimal + "' disagree");
}

// ---- datasets --------------------------------------------------------------------------------

// One dataset of the file: chunked, grown by chunks compressed outside HDF5 (store/chunks.h),
// rows of `width` elements (width 0 = 1-D), with the file's filter pipeline. (Not core::Column, a board's entry.)
struct ExtendibleDataset {
  std::string name;   // full path, for messages
  h5::Handle ds;
  hsize_t rows = 0;
  hsize_t width = 0;

  int rank() const { return width ? 2 : 1; }

  // chunk_width 0: whole rows per chunk; else chunks of (chunk_rows, chunk_width).
  template <class T>
  static ExtendibleDataset create(hid_t parent, const std::string& path, const char* name, hsize_t width,
                       hsize_t chunk_rows, const h5::Site& s, hsize_t chunk_width = 0) {
    ExtendibleDataset c;
    c.name = path + "/" + name;
    c.width = width;
    const std::string what = "create " + c.name;
    const hsize_t dims[2] = {0, width};
    const hsize_t maxdims[2] = {H5S_UNLIMITED, width};
    const hsize_t chunk[2] = {chunk_rows, chunk_width ? chunk_width : width};
    auto sp = h5::space(H5Screate_simple(c.rank(), dims, maxdims), s, what);
    auto dcpl = h5::plist(H5Pcreate(H5P_DATASET_CREATE), s, what);
    h5::check(H5Pset_chunk(dcpl.get(), c.rank(), chunk), s, what);
    h5::check(H5Pset_shuffle(dcpl.get()), s, what);   // a no-op on bytes, but the contract lists it
    h5::check(H5Pset_deflate(dcpl.get(), kDeflateLevel), s, what);
    h5::check(H5Pset_fletcher32(dcpl.get()), s, what);
    c.ds = h5::dataset(H5Dcreate2(parent, name, H5Type<T>::file(), sp.get(), H5P_DEFAULT,
                                  dcpl.get(), H5P_DEFAULT),
                       s, what);
    return c;
  }

  // Opens an existing dataset and checks its shape: (rows,) or (rows, width).
  static ExtendibleDataset open(hid_t parent, const std::string& path, const char* name, hsize_t width,
                     const h5::Site& s) {
    ExtendibleDataset c;
    c.name = path + "/" + name;
    c.width = width;
    const std::string what = "open " + c.name;
    if (h5::check(H5Lexists(parent, name, H5P_DEFAULT), s, what) == 0)
      h5::raise(s, "missing dataset " + c.name);
    c.ds = h5::dataset(H5Dopen2(parent, name, H5P_DEFAULT), s, what);
    auto sp = h5::space(H5Dget_space(c.ds.get()), s, what);
    const int rank = h5::check(H5Sget_simple_extent_ndims(sp.get()), s, what);
    hsize_t dims[2] = {0, 0};
    if (rank != c.rank()) h5::raise(s, c.name + " has rank " + std::to_string(rank));
    h5::check(H5Sget_simple_extent_dims(sp.get(), dims, nullptr), s, what);
    if (width && dims[1] != width)
      h5::raise(s, c.name + " has " + std::to_string(dims[1]) + " columns, expected " +
                       std::to_string(width));
    c.rows = dims[0];
    return c;
  }

  // Grows the dataset to `new_rows` rows (for chunks written directly).
  void extend(hsize_t new_rows, const h5::Site& s) {
    const hsize_t new_dims[2] = {new_rows, width};
    h5::check(H5Dset_extent(ds.get(), new_dims), s, "write " + name);
    rows = new_rows;
  }
  // A chunk encoded by encode_chunk, at chunk coordinates (row, col) in elements.
  void write_chunk(hsize_t row, hsize_t col, const std::string& bytes, const h5::Site& s) {
    const hsize_t offset[2] = {row, col};
    h5::check(H5Dwrite_chunk(ds.get(), H5P_DEFAULT, 0, offset, bytes.size(), bytes.data()), s, "write " + name);
  }

  template <class T>
  void read(hsize_t start_row, hsize_t count, T* out, const h5::Site& s) const {
    if (count == 0) return;
    const std::string what = "read " + name + " rows " + std::to_string(start_row) + ".." +
                             std::to_string(start_row + count - 1);
    auto file_space = h5::space(H5Dget_space(ds.get()), s, what);
    const hsize_t start[2] = {start_row, 0};
    const hsize_t n[2] = {count, width};
    h5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, n, nullptr), s, what);
    auto mem_space = h5::space(H5Screate_simple(rank(), n, nullptr), s, what);
    h5::check(H5Dread(ds.get(), H5Type<T>::mem(), mem_space.get(), file_space.get(), H5P_DEFAULT, out),
              s, what);
  }
  template <class T>
  std::vector<T> read_rows(hsize_t start_row, hsize_t count, const h5::Site& s) const {
    std::vector<T> v(static_cast<std::size_t>(count * (width ? width : 1)));
    read(start_row, count, v.data(), s);
    return v;
  }
};

std::string temp_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  for (;;) {
    std::string t = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    if (!fs::exists(t)) return t;   // H5F_ACC_EXCL still guards against a race
  }
}

}  // namespace

// ============================================================================= ChunkEncoder ==
namespace {

// Compresses whole chunk rows of boards on a thread of its own (each row's chunks in parallel:
// core::parallel_for), so that the thread appending boards goes on (reading the journal, or
// taking results) while the previous rows compress. No HDF5 here: rows come back in order,
// encoded, to the appending thread, which writes them. At most kInFlight rows are queued.
class ChunkEncoder {
 public:
  struct Row {
    hsize_t first = 0;   // the row of the dataset the chunk row starts at
    std::size_t count = 0;
    std::vector<std::uint8_t> boards, class_sizes;
    std::vector<std::uint64_t> units;
    std::vector<std::string> encoded;   // solutions' columns, then unit, then class_size
    std::exception_ptr error;
    bool done = false;
  };

  ChunkEncoder(std::size_t width, bool classes) : width_(width), classes_(classes) {}
  ~ChunkEncoder() { stop(); }

  // Queues a row; returns the rows encoded by now, in order (waits while kInFlight rows are
  // queued and none is done).
  std::vector<Row> submit(Row row) {
    std::unique_lock lock(mutex_);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    std::vector<Row> out;
    for (;;) {
      while (!rows_.empty() && rows_.front().done) {
        out.push_back(std::move(rows_.front()));
        rows_.pop_front();
      }
      if (rows_.size() < kInFlight) break;
      changed_.wait(lock);
    }
    rows_.push_back(std::move(row));
    changed_.notify_all();
    return out;
  }
  // Every queued row, encoded, in order.
  std::vector<Row> drain() {
    std::unique_lock lock(mutex_);
    return take_done(lock, true);
  }
  void stop() noexcept {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  static constexpr std::size_t kInFlight = 3;

  std::vector<Row> take_done(std::unique_lock<std::mutex>& lock, bool all) {
    if (all) changed_.wait(lock, [&] { return std::ranges::all_of(rows_, &Row::done); });
    std::vector<Row> out;
    while (!rows_.empty() && rows_.front().done) {
      out.push_back(std::move(rows_.front()));
      rows_.pop_front();
    }
    return out;
  }

  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stopping_ || std::ranges::any_of(rows_, [](const Row& r) { return !r.done; }); });
      if (stopping_) return;
      Row* row = &*std::ranges::find_if(rows_, [](const Row& r) { return !r.done; });   // stable: a deque
      lock.unlock();
      try {
        encode(*row);
      } catch (...) {
        row->error = std::current_exception();
      }
      lock.lock();
      row->done = true;
      changed_.notify_all();
    }
  }

  void encode(Row& row) const {
    const auto rows = static_cast<std::size_t>(kBoardChunkRows);
    const std::size_t k = row.count, w = width_;
    const std::size_t chunks = w + 1 + (classes_ ? 1 : 0);
    row.encoded.assign(chunks, {});
    core::parallel_for(chunks, 0, [&](std::size_t i) {
      if (i < w) {
        std::vector<std::uint8_t> column(rows, 0);
        for (std::size_t r = 0; r < k; ++r) column[r] = row.boards[r * w + i];
        row.encoded[i] = encode_chunk(column, 1, kDeflateLevel, classes_ ? DeflateSearch::runs : DeflateSearch::matches);
      } else if (i == w) {
        std::vector<std::uint8_t> raw(rows * sizeof(std::uint64_t), 0);
        std::memcpy(raw.data(), row.units.data(), k * sizeof(std::uint64_t));   // little-endian, as H5T_STD_U64LE
        row.encoded[i] = encode_chunk(raw, sizeof(std::uint64_t), kDeflateLevel);
      } else {
        std::vector<std::uint8_t> raw(rows, 0);
        std::copy(row.class_sizes.begin(), row.class_sizes.end(), raw.begin());
        row.encoded[i] = encode_chunk(raw, 1, kDeflateLevel);
      }
    });
    row.boards = {};
    row.units = {};
    row.class_sizes = {};
  }

  const std::size_t width_;
  const bool classes_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Row> rows_;   // queued, oldest first; the encoder takes the first not done
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace

// ============================================================================== ResultWriter ==

struct ResultWriter::Impl {
  std::string path;
  std::string tmp;
  int n = 0;
  core::JobParams params;
  h5::Site site{"store::write", "", h5::Failure::write};

  h5::Handle file;
  h5::Handle units_group, boards_group;
  ExtendibleDataset u_id, u_placement, u_multiplicity, u_solutions, u_nodes, u_seconds, u_started, u_rank, u_thread;
  ExtendibleDataset b_solutions, b_class_size, b_unit;

  // Rows not yet written (at most kUnitBatchRows of each).
  struct {
    std::vector<std::uint64_t> id, solutions, nodes;
    std::vector<std::uint8_t> placement;
    std::vector<std::uint32_t> multiplicity;
    std::vector<double> seconds, started;
    std::vector<std::int32_t> rank, thread;
  } ub;
  std::vector<std::uint8_t> bb_boards, bb_class;
  std::vector<std::uint64_t> bb_unit;
  std::unique_ptr<ChunkEncoder> encoder;   // boards files: compresses chunk rows in the background
  hsize_t queued_rows = 0;                 // board rows handed to the encoder

  std::uint64_t units = 0, boards = 0;   // rows appended (buffered or written)
  core::Total weighted_total = 0;        // sum of multiplicity * solutions
  std::uint64_t class_sum = 0;
  std::uint64_t last_id = 0;
  bool temp_exists = false, committed = false, failed = false;

  ~Impl() { abandon(); }

  void abandon() noexcept {
    if (encoder) encoder->stop();
    b_solutions.ds.reset(); b_class_size.ds.reset(); b_unit.ds.reset();
    for (ExtendibleDataset* c : unit_columns()) c->ds.reset();
    boards_group.reset();
    units_group.reset();
    file.reset();
    if (temp_exists) ::unlink(tmp.c_str());
    temp_exists = false;
  }

  std::array<ExtendibleDataset*, 9> unit_columns() {
    return {&u_id, &u_placement, &u_multiplicity, &u_solutions, &u_nodes, &u_seconds, &u_started, &u_rank, &u_thread};
  }

  void create(const std::string& p, const core::JobParams& job) {
    if (job.n < 1 || job.n > core::kMaxN)
      throw std::invalid_argument("store::create: board size " + std::to_string(job.n) + " is outside 1.." +
                                  std::to_string(core::kMaxN));
    path = p;
    n = job.n;
    params = job;
    site.path = path;
    const h5::Site cs{"store::create", path, h5::Failure::write};
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) throw WriteError("store::create: " + path + ": is a directory");
      if (!S_ISREG(st.st_mode)) throw WriteError("store::create: " + path + ": not a regular file");
    }
    const std::string dir = fs::parent_dir(path);
    if (!fs::is_directory(dir))
      throw WriteError("store::create: " + path + ": directory " + dir + " does not exist");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      throw WriteError("store::create: " + path + ": cannot write in directory " + dir + ": " +
                       fs::errno_text(errno));
    tmp = temp_name(path);
    // SEMI: H5Fclose fails while objects are open instead of silently keeping the file open,
    // so commit() can never fsync and publish a file that HDF5 has not finished writing.
    auto fapl = h5::plist(H5Pcreate(H5P_FILE_ACCESS), cs, "file access properties");
    h5::check(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_SEMI), cs, "file access properties");
    try {
      file = h5::file(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()), cs,
                      "create temporary file " + tmp);
    } catch (const WriteError&) {
      // HDF5 may leave the file it created behind when writing its superblock fails (ENOSPC,
      // EFBIG); temp_name() checked that nothing had that name before.
      ::unlink(tmp.c_str());
      throw;
    }
    temp_exists = true;

    const auto w = static_cast<hsize_t>(n);
    units_group = h5::group(H5Gcreate2(file.get(), "units", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), cs, "create /units");
    const hid_t g = units_group.get();
    u_id = ExtendibleDataset::create<std::uint64_t>(g, "/units", "id", 0, kUnitChunkRows, cs);
    u_placement = ExtendibleDataset::create<std::uint8_t>(g, "/units", "placement", w, kUnitChunkRows, cs);
    u_multiplicity = ExtendibleDataset::create<std::uint32_t>(g, "/units", "multiplicity", 0, kUnitChunkRows, cs);
    u_solutions = ExtendibleDataset::create<std::uint64_t>(g, "/units", "solutions", 0, kUnitChunkRows, cs);
    u_nodes = ExtendibleDataset::create<std::uint64_t>(g, "/units", "nodes", 0, kUnitChunkRows, cs);
    u_seconds = ExtendibleDataset::create<double>(g, "/units", "seconds", 0, kUnitChunkRows, cs);
    u_started = ExtendibleDataset::create<double>(g, "/units", "started", 0, kUnitChunkRows, cs);
    u_rank = ExtendibleDataset::create<std::int32_t>(g, "/units", "rank", 0, kUnitChunkRows, cs);
    u_thread = ExtendibleDataset::create<std::int32_t>(g, "/units", "thread", 0, kUnitChunkRows, cs);
    if (params.boards_mode()) {
      boards_group = h5::group(H5Gcreate2(file.get(), "boards", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), cs, "create /boards");
      const hid_t bg = boards_group.get();
      b_solutions = ExtendibleDataset::create<std::uint8_t>(bg, "/boards", "solutions", w, kBoardChunkRows, cs, 1);
      if (params.class_boards())
        b_class_size = ExtendibleDataset::create<std::uint8_t>(bg, "/boards", "class_size", 0, kBoardChunkRows, cs);
      b_unit = ExtendibleDataset::create<std::uint64_t>(bg, "/boards", "unit", 0, kBoardChunkRows, cs);
      bb_boards.reserve(kBoardChunkRows * w);
      bb_unit.reserve(kBoardChunkRows);
      if (params.class_boards()) bb_class.reserve(kBoardChunkRows);
      encoder = std::make_unique<ChunkEncoder>(static_cast<std::size_t>(n), params.class_boards());
    }
  }

  // Runs a public operation; a StoreError on the way leaves the writer dead.
  template <class F>
  void guarded(F&& f) {
    h5::silence_errors();
    if (committed) throw std::logic_error("store::write: " + path + ": already committed");
    if (failed) throw WriteError("store::write: " + path + ": an earlier write failed");
    try {
      f();
    } catch (const StoreError&) {
      failed = true;
      throw;
    }
  }

  // Writes the buffered units: each column's chunks compressed on every core (encode_chunk, as
  // the boards; deflate in HDF5's one thread took 2/3 of writing a count file: 0.46 us a unit,
  // ~75 s for N = 27's 164 M units while the allocation waits) and written with H5Dwrite_chunk.
  // The rows written before are a multiple of the chunk (only the last flush is short, padded).
  void flush_units() {
    const std::size_t k = ub.id.size();
    if (k == 0) return;
    struct Column {
      ExtendibleDataset* ds;
      const void* data;
      std::size_t row_bytes, element;
    };
    static_assert(std::endian::native == std::endian::little, "the file's types are little-endian");
    const auto column = [](ExtendibleDataset& ds, const auto& values, std::size_t width = 1) {
      const std::size_t size = sizeof(values[0]);
      return Column{&ds, values.data(), size * width, size};
    };
    const std::array<Column, 9> columns{column(u_id, ub.id), column(u_placement, ub.placement, static_cast<std::size_t>(n)),
                                        column(u_multiplicity, ub.multiplicity), column(u_solutions, ub.solutions),
                                        column(u_nodes, ub.nodes), column(u_seconds, ub.seconds),
                                        column(u_started, ub.started), column(u_rank, ub.rank),
                                        column(u_thread, ub.thread)};
    const auto rows = static_cast<std::size_t>(kUnitChunkRows);
    const std::size_t chunk_rows = (k + rows - 1) / rows;
    std::vector<std::string> encoded(chunk_rows * columns.size());
    try {
      core::parallel_for(encoded.size(), 0, [&](std::size_t t) {
        const Column& c = columns[t % columns.size()];
        const std::size_t first = t / columns.size() * rows, count = std::min(rows, k - first);
        const std::span<const std::uint8_t> rows_given(static_cast<const std::uint8_t*>(c.data) + first * c.row_bytes,
                                                       count * c.row_bytes);   // little-endian, as the file types
        if (count == rows) {
          encoded[t] = encode_chunk(rows_given, c.element, kDeflateLevel);
        } else {   // the last chunk of the file, padded
          std::vector<std::uint8_t> raw(rows * c.row_bytes, 0);
          std::ranges::copy(rows_given, raw.begin());
          encoded[t] = encode_chunk(raw, c.element, kDeflateLevel);
        }
      });
    } catch (const std::exception& e) {
      throw WriteError("store::write: " + path + ": compressing units: " + e.what());
    }
    const hsize_t start = u_id.rows;
    for (const Column& c : columns) c.ds->extend(start + k, site);
    for (std::size_t t = 0; t < encoded.size(); ++t)
      columns[t % columns.size()].ds->write_chunk(start + t / columns.size() * rows, 0, encoded[t], site);
    ub.id.clear(); ub.placement.clear(); ub.multiplicity.clear(); ub.solutions.clear();
    ub.nodes.clear(); ub.seconds.clear(); ub.started.clear(); ub.rank.clear(); ub.thread.clear();
  }

  // Hands the buffered boards (a whole chunk row of each board dataset, the last one possibly
  // short) to the encoder and writes the rows it has finished; `wait`: every row, now.
  void flush_boards(bool wait = false) {
    const hsize_t k = bb_unit.size();
    if (k > 0) {
      ChunkEncoder::Row row;
      row.first = queued_rows;
      row.count = k;
      row.boards = std::exchange(bb_boards, {});
      row.units = std::exchange(bb_unit, {});
      row.class_sizes = std::exchange(bb_class, {});
      queued_rows += k;
      bb_boards.reserve(kBoardChunkRows * static_cast<std::size_t>(n));
      bb_unit.reserve(kBoardChunkRows);
      if (params.class_boards()) bb_class.reserve(kBoardChunkRows);
      write_rows(encoder->submit(std::move(row)));
    }
    if (wait && encoder) write_rows(encoder->drain());
  }

  // Rows written so far are a multiple of the chunk; rows come in order.
  void write_rows(std::vector<ChunkEncoder::Row> done) {
    for (ChunkEncoder::Row& row : done) {
      if (row.error) {
        try {
          std::rethrow_exception(row.error);
        } catch (const std::exception& e) {
          throw WriteError("store::write: " + path + ": compressing boards: " + e.what());
        }
      }
      const std::size_t w = static_cast<std::size_t>(n);
      const hsize_t end = row.first + row.count;
      for (ExtendibleDataset* c : {&b_solutions, &b_unit}) c->extend(end, site);
      if (params.class_boards()) b_class_size.extend(end, site);
      for (std::size_t i = 0; i < w; ++i) b_solutions.write_chunk(row.first, i, row.encoded[i], site);
      b_unit.write_chunk(row.first, 0, row.encoded[w], site);
      if (params.class_boards()) b_class_size.write_chunk(row.first, 0, row.encoded[w + 1], site);
    }
  }

  void append_units(std::span<const UnitRecord> recs) {
    for (const UnitRecord& u : recs) {
      if (units > 0 && u.id <= last_id)
        throw std::invalid_argument("store::write: unit ids must increase: " + std::to_string(u.id) +
                                    " after " + std::to_string(last_id));
      for (int r = 0; r < core::kMaxN; ++r) {
        const auto c = u.placement[static_cast<std::size_t>(r)];
        if (c == core::kEmptyRow) continue;
        if (r >= n || c >= n)
          throw std::invalid_argument("store::write: unit " + std::to_string(u.id) + ": row " +
                                      std::to_string(r) + " holds column " + std::to_string(c) +
                                      " on a board of size " + std::to_string(n));
      }
    }
    for (const UnitRecord& u : recs) {
      ub.id.push_back(u.id);
      ub.placement.insert(ub.placement.end(), u.placement.begin(), u.placement.begin() + n);
      ub.multiplicity.push_back(u.multiplicity);
      ub.solutions.push_back(u.solutions);
      ub.nodes.push_back(u.nodes);
      ub.seconds.push_back(u.seconds);
      ub.started.push_back(u.started);
      ub.rank.push_back(u.rank);
      ub.thread.push_back(u.thread);
      if (!core::add_product(weighted_total, u.multiplicity, u.solutions))
        throw std::invalid_argument("store::write: the units' total exceeds 128 bits");
      last_id = u.id;
      ++units;
      if (ub.id.size() == kUnitBatchRows) flush_units();
    }
  }

  void append_boards(std::span<const std::uint8_t> bds, std::span<const std::uint8_t> cls,
                     std::span<const std::uint64_t> ids) {
    if (!params.boards_mode())
      throw std::logic_error("store::write: " + path + ": boards appended to a count-mode file");
    const std::size_t w = static_cast<std::size_t>(n);
    const std::size_t k = ids.size();
    if (bds.size() != k * w)
      throw std::invalid_argument("store::write: " + std::to_string(bds.size()) + " columns for " +
                                  std::to_string(k) + " boards of size " + std::to_string(n));
    const bool classes = params.class_boards();
    if (cls.size() != (classes ? k : 0))
      throw std::invalid_argument("store::write: " + std::to_string(cls.size()) + " class sizes for " +
                                  std::to_string(k) + " boards with boards_stored = " + core::boards_stored(params));
    std::size_t i = 0;
    while (i < k) {
      const std::size_t take = std::min(k - i, static_cast<std::size_t>(kBoardChunkRows) - bb_unit.size());
      bb_boards.insert(bb_boards.end(), bds.begin() + static_cast<std::ptrdiff_t>(i * w),
                       bds.begin() + static_cast<std::ptrdiff_t>((i + take) * w));
      bb_unit.insert(bb_unit.end(), ids.begin() + static_cast<std::ptrdiff_t>(i),
                     ids.begin() + static_cast<std::ptrdiff_t>(i + take));
      if (classes) {
        for (std::size_t j = i; j < i + take; ++j) class_sum += cls[j];
        bb_class.insert(bb_class.end(), cls.begin() + static_cast<std::ptrdiff_t>(i),
                        cls.begin() + static_cast<std::ptrdiff_t>(i + take));
      }
      i += take;
      boards += take;
      if (bb_unit.size() == kBoardChunkRows) flush_boards();
    }
  }

  void check_info(const RunInfo& info) const {
    auto bad = [&](const std::string& what) {
      throw std::invalid_argument("store::commit: " + path + ": " + what);
    };
    auto num = [](auto v) { return std::to_string(v); };
    if (const auto diffs = core::differences(info.params, params); !diffs.empty())
      bad("the RunInfo is not of the job the file was created for: " +
          core::describe(diffs, "in the RunInfo", "in the file"));
    if (info.units_done != units)
      bad("RunInfo.units_done = " + num(info.units_done) + " but " + num(units) + " units were written");
    if (info.total != weighted_total)
      bad("RunInfo.total = " + core::to_decimal(info.total) + " but the units add up to " +
          core::to_decimal(weighted_total));
    // Board counts (S = total, or S = unique and sum(class_size) = total) are verification, not
    // structure: the caller checks them (boards_written(), class_size_sum()) and decides between
    // writing the file and exit 6; refusing to write here would lose the evidence.
  }

  void commit(const RunInfo& info) {
    check_info(info);
    flush_units();
    flush_boards(true);
    const hid_t root = file.get();
    write_attr(root, "format", std::string(kFormat), site);
    write_attr(root, "format_version", kFormatVersion, site);
    attribute_fields(info, [&](const char* name, const auto& v) { write_attr(root, name, v, site); });
    for (ExtendibleDataset* c : {&b_solutions, &b_class_size, &b_unit}) c->ds.close(site, "close " + c->name);
    for (ExtendibleDataset* c : unit_columns()) c->ds.close(site, "close " + c->name);
    boards_group.close(site, "close /boards");
    units_group.close(site, "close /units");
    file.close(site, "close the temporary file " + tmp);
    fs::fsync_path(tmp, "store::commit");
    fs::rename_file(tmp, path, "store::commit");
    temp_exists = false;
    committed = true;
    fs::fsync_dir(fs::parent_dir(path), "store::commit");
  }
};

ResultWriter::ResultWriter(const std::string& path, const core::JobParams& params)
    : impl_(std::make_unique<Impl>()) {
  h5::silence_errors();
  impl_->create(path, params);
}
ResultWriter::~ResultWriter() = default;

void ResultWriter::append_units(std::span<const UnitRecord> units) {
  impl_->guarded([&] { impl_->append_units(units); });
}
void ResultWriter::append_boards(std::span<const std::uint8_t> boards,
                                 std::span<const std::uint8_t> class_sizes,
                                 std::span<const std::uint64_t> unit_ids) {
  impl_->guarded([&] { impl_->append_boards(boards, class_sizes, unit_ids); });
}
void ResultWriter::commit(const RunInfo& info) {
  impl_->guarded([&] { impl_->commit(info); });
}
const std::string& ResultWriter::path() const { return impl_->path; }
std::uint64_t ResultWriter::units_written() const { return impl_->units; }
std::uint64_t ResultWriter::boards_written() const { return impl_->boards; }
std::uint64_t ResultWriter::class_size_sum() const { return impl_->class_sum; }

// ============================================================================== ResultReader ==

struct ResultReader::Impl {
  std::string path;
  h5::Site site{"store::open", "", h5::Failure::read};
  h5::Handle file;
  RunInfo info;
  ExtendibleDataset u_id, u_placement, u_multiplicity, u_solutions, u_nodes, u_seconds, u_started, u_rank, u_thread;
  ExtendibleDataset b_solutions, b_class_size, b_unit;
  bool classes = false;

  [[noreturn]] void foreign(const std::string& why) const {
    throw NotAResultFile("store::open: not an nqueens result file: " + path + " (" + why + ")");
  }

  // Whether another process holds HDF5's write lock on the file (flock, as HDF5 takes it on Linux).
  static bool locked_for_writing(const std::string& p) {
    const fs::Fd fd(::open(p.c_str(), O_RDONLY | O_CLOEXEC));
    return fd && ::flock(fd.get(), LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  }

  void open(const std::string& p) {
    path = p;
    site.path = p;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw NotAResultFile("store::open: " + path + ": " + fs::errno_text(errno));
    if (S_ISDIR(st.st_mode)) throw NotAResultFile("store::open: " + path + ": is a directory");
    // A FIFO or a device would block or stream forever in H5Fis_hdf5: refuse before opening it.
    if (!S_ISREG(st.st_mode)) throw NotAResultFile("store::open: " + path + ": not a regular file");
    if (h5::check(H5Fis_hdf5(path.c_str()), site, "cannot read") == 0) foreign("not an HDF5 file");
    const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (id < 0 && locked_for_writing(path))
      throw ResultFileInUse("store::open: " + path + ": open for writing in another program (it holds the "
                            "file's HDF5 lock, e.g. h5py with mode 'r+')");
    file = h5::file(id, site, "cannot open");
    const hid_t root = file.get();
    if (h5::check(H5Aexists(root, "format"), site, "read attribute format") == 0)
      foreign("no 'format' attribute");
    std::string format;
    read_attr(root, "format", format, site);
    if (format != kFormat) foreign("format is '" + format + "'");
    std::int32_t version = 0;
    read_attr(root, "format_version", version, site);
    if (version < kOldestReadableVersion || version > kFormatVersion)
      throw NotAResultFile("store::open: " + path + ": unsupported format_version " + std::to_string(version) +
                           " (this program reads " + std::to_string(kOldestReadableVersion) + " to " +
                           std::to_string(kFormatVersion) + ")");
    attribute_fields(info, [&](const char* name, auto&& v) {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(v)>, core::Total>)
        read_attr(root, name, v, version, site);
      else
        read_attr(root, name, v, site);
    });
    // Attributes that no run writes (a damaged or edited file) are refused here, once for every
    // reader: the commands used to take them further (`info` showed "units 3402 of 0", and
    // `check` and `merge` stopped with "internal error: depth 0 is outside 1..12").
    const core::JobParams& jp = info.params;
    if (jp.n < 1 || jp.n > core::kMaxN) h5::raise(site, "n = " + std::to_string(jp.n) + " is out of range");
    if (jp.depth < 1 || jp.depth > jp.n)
      h5::raise(site, "depth = " + std::to_string(jp.depth) + " is out of range 1..n = " + std::to_string(jp.n));
    if (jp.shard.count < 1 || jp.shard.index < 0 || jp.shard.index >= jp.shard.count)
      h5::raise(site, "shard_index = " + std::to_string(jp.shard.index) + ", shard_count = " +
                          std::to_string(jp.shard.count) + " is no shard");
    if (info.units_done > jp.shard.size(info.units_total))
      h5::raise(site, "units_done = " + std::to_string(info.units_done) + " is more than the " +
                          std::to_string(jp.shard.size(info.units_total)) + " units of its shard (units_total = " +
                          std::to_string(info.units_total) + ")");
    if (info.status == Status::complete && info.units_done != jp.shard.size(info.units_total))
      h5::raise(site, "status is complete, but units_done = " + std::to_string(info.units_done) +
                          (jp.shard.whole() ? " of units_total = " + std::to_string(info.units_total)
                                            : " of the " + std::to_string(jp.shard.size(info.units_total)) +
                                                  " units of its shard (units_total = " +
                                                  std::to_string(info.units_total) + ")"));

    const auto w = static_cast<hsize_t>(info.params.n);
    if (h5::check(H5Lexists(root, "units", H5P_DEFAULT), site, "open /units") == 0) h5::raise(site, "missing group /units");
    auto g = h5::group(H5Gopen2(root, "units", H5P_DEFAULT), site, "open /units");
    u_id = ExtendibleDataset::open(g.get(), "/units", "id", 0, site);
    u_placement = ExtendibleDataset::open(g.get(), "/units", "placement", w, site);
    u_multiplicity = ExtendibleDataset::open(g.get(), "/units", "multiplicity", 0, site);
    u_solutions = ExtendibleDataset::open(g.get(), "/units", "solutions", 0, site);
    u_nodes = ExtendibleDataset::open(g.get(), "/units", "nodes", 0, site);
    u_seconds = ExtendibleDataset::open(g.get(), "/units", "seconds", 0, site);
    u_started = ExtendibleDataset::open(g.get(), "/units", "started", 0, site);
    u_rank = ExtendibleDataset::open(g.get(), "/units", "rank", 0, site);
    u_thread = ExtendibleDataset::open(g.get(), "/units", "thread", 0, site);
    for (const ExtendibleDataset* c : {&u_placement, &u_multiplicity, &u_solutions, &u_nodes, &u_seconds, &u_started, &u_rank, &u_thread})
      if (c->rows != u_id.rows)
        h5::raise(site, c->name + " has " + std::to_string(c->rows) + " rows, /units/id " + std::to_string(u_id.rows));
    if (u_id.rows != info.units_done)
      h5::raise(site, "units_done = " + std::to_string(info.units_done) + ", but /units holds " +
                          std::to_string(u_id.rows) + " units");

    if (!info.params.boards_mode()) return;
    classes = info.params.class_boards();
    if (h5::check(H5Lexists(root, "boards", H5P_DEFAULT), site, "open /boards") == 0) h5::raise(site, "missing group /boards");
    auto bg = h5::group(H5Gopen2(root, "boards", H5P_DEFAULT), site, "open /boards");
    b_solutions = ExtendibleDataset::open(bg.get(), "/boards", "solutions", w, site);
    b_unit = ExtendibleDataset::open(bg.get(), "/boards", "unit", 0, site);
    if (b_unit.rows != b_solutions.rows) h5::raise(site, "/boards/unit and /boards/solutions differ in length");
    if (classes) {
      b_class_size = ExtendibleDataset::open(bg.get(), "/boards", "class_size", 0, site);
      if (b_class_size.rows != b_solutions.rows)
        h5::raise(site, "/boards/class_size and /boards/solutions differ in length");
    }
  }
};

ResultReader::ResultReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
  const CrashIsDamage guard(path);
  h5::silence_errors();
  impl_->open(path);
  impl_->site.op = "store::read";
}
ResultReader::~ResultReader() = default;

const RunInfo& ResultReader::info() const { return impl_->info; }

std::vector<UnitRecord> ResultReader::units() const {
  std::vector<UnitRecord> out;
  read_units(0, unit_count(), out);
  return out;
}

std::uint64_t ResultReader::unit_count() const { return impl_->u_id.rows; }

namespace {

// Throws std::out_of_range unless [start, start+count) lies within `rows` rows of `what`.
void check_rows(std::uint64_t start, std::uint64_t count, std::uint64_t rows, const std::string& path,
                const char* what) {
  if (start > rows || count > rows - start)
    throw std::out_of_range("store::read: " + path + ": " + what + " " + std::to_string(start) + "+" +
                            std::to_string(count) + " past the " + std::to_string(rows) + " stored");
}

}  // namespace

void ResultReader::for_each_unit(const std::function<void(const UnitRecord&)>& f) const {
  std::vector<UnitRecord> rows;
  for (std::uint64_t at = 0, end = unit_count(); at < end; at += kUnitSlice) {
    read_units(at, std::min(kUnitSlice, end - at), rows);
    for (const auto& r : rows) f(r);
  }
}

void ResultReader::read_units(std::uint64_t start, std::uint64_t count, std::vector<UnitRecord>& out) const {
  const CrashIsDamage guard(impl_->path);
  h5::silence_errors();
  const Impl& m = *impl_;
  const auto& s = m.site;
  check_rows(start, count, m.u_id.rows, m.path, "units");
  const auto ids = m.u_id.read_rows<std::uint64_t>(start, count, s);
  const auto placement = m.u_placement.read_rows<std::uint8_t>(start, count, s);
  const auto mult = m.u_multiplicity.read_rows<std::uint32_t>(start, count, s);
  const auto sol = m.u_solutions.read_rows<std::uint64_t>(start, count, s);
  const auto nodes = m.u_nodes.read_rows<std::uint64_t>(start, count, s);
  const auto secs = m.u_seconds.read_rows<double>(start, count, s);
  const auto started = m.u_started.read_rows<double>(start, count, s);
  const auto rank = m.u_rank.read_rows<std::int32_t>(start, count, s);
  const auto thread = m.u_thread.read_rows<std::int32_t>(start, count, s);
  const auto w = static_cast<std::size_t>(m.info.params.n);
  out.assign(ids.size(), UnitRecord{});
  for (std::size_t i = 0; i < ids.size(); ++i) {
    UnitRecord& u = out[i];
    u.id = ids[i];
    std::copy_n(placement.begin() + static_cast<std::ptrdiff_t>(i * w), w, u.placement.begin());
    u.multiplicity = mult[i];
    u.solutions = sol[i];
    u.nodes = nodes[i];
    u.seconds = secs[i];
    u.started = started[i];
    u.rank = rank[i];
    u.thread = thread[i];
  }
}

std::uint64_t ResultReader::board_count() const { return impl_->b_solutions.rows; }

void ResultReader::read_boards(std::uint64_t start, std::uint64_t count, std::vector<std::uint8_t>& boards,
                               std::vector<std::uint8_t>& class_sizes, std::vector<std::uint64_t>& unit_ids) const {
  const CrashIsDamage guard(impl_->path);
  h5::silence_errors();
  const Impl& m = *impl_;
  check_rows(start, count, m.b_solutions.rows, m.path, "boards");
  const auto k = static_cast<std::size_t>(count);
  boards.resize(k * static_cast<std::size_t>(m.info.params.n));
  unit_ids.resize(k);
  class_sizes.resize(m.classes ? k : 0);
  m.b_solutions.read(start, count, boards.data(), m.site);
  m.b_unit.read(start, count, unit_ids.data(), m.site);
  if (m.classes) m.b_class_size.read(start, count, class_sizes.data(), m.site);
}

}  // namespace nq::store
