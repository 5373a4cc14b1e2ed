#include "store/journal.h"
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <bit>
#include <zlib.h>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include "store/fs.h"

namespace nq::store {
namespace {

constexpr char kSignature[8] = {'N', 'Q', 'J', 'O', 'U', 'R', 'N', 'L'};
constexpr std::uint32_t kVersion = 2;   // 2: all-mode records hold completions, not images
constexpr std::uint32_t kRecordMagic = 0x4E514A52;
constexpr std::size_t kFrame = 12;         // magic + length + crc
constexpr std::size_t kFixedPayload = 92;  // payload bytes before the boards
constexpr std::size_t kBufferLimit = 1 << 20;
constexpr std::uint32_t kMaxKey = 1 << 16;

JournalInUse in_use(const std::string& path) { return JournalInUse("store::journal: " + path + " is in use by another process"); }

// CRC-32 (ISO-HDLC: zlib's, the same values as boost::crc_32_type, several times faster).
// (zlib answers a null buffer with the initial value, so empty spans are skipped.)
std::uint32_t crc32_of(const std::uint8_t* p, std::size_t n, std::uint32_t crc = 0) {
  return n ? static_cast<std::uint32_t>(crc32_z(crc, p, n)) : crc;
}

// Little-endian encoding into a byte vector.
struct Encoder {
  std::vector<std::uint8_t> out;
  template <class T>
  void put(T v) {
    static_assert(std::is_integral_v<T>);
    using U = std::make_unsigned_t<T>;
    const auto u = static_cast<U>(v);
    for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<std::uint8_t>(u >> (8 * i)));
  }
  void put_f64(double d) { put(std::bit_cast<std::uint64_t>(d)); }
  void put_bytes(const std::uint8_t* p, std::size_t n) { out.insert(out.end(), p, p + n); }
  void put_string(const std::string& s) {
    if (s.size() > 0xFFFF) throw std::invalid_argument("store::journal: key string longer than 65535 bytes");
    put(static_cast<std::uint16_t>(s.size()));
    put_bytes(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  }
};

// Little-endian decoding; `ok` turns false (and values read as 0) past the end.
struct Decoder {
  const std::uint8_t* p;
  std::size_t left;
  bool ok = true;
  template <class T>
  T get() {
    using U = std::make_unsigned_t<T>;
    if (left < sizeof(T)) {
      ok = false;
      left = 0;
      return 0;
    }
    U u = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) u = static_cast<U>(u | (U{p[i]} << (8 * i)));
    p += sizeof(T);
    left -= sizeof(T);
    return static_cast<T>(u);
  }
  double get_f64() { return std::bit_cast<double>(get<std::uint64_t>()); }
  std::string get_string() {
    const auto n = get<std::uint16_t>();
    if (left < n) {
      ok = false;
      left = 0;
      return {};
    }
    std::string s(reinterpret_cast<const char*>(p), n);
    p += n;
    left -= n;
    return s;
  }
};

std::vector<std::uint8_t> encode_key(const JournalKey& k) {
  Encoder e;
  const core::JobParams& p = k.params;
  e.put(static_cast<std::int32_t>(p.n));
  e.put(static_cast<std::int32_t>(p.depth));
  e.put(static_cast<std::int32_t>(p.shard.index));
  e.put(static_cast<std::int32_t>(p.shard.count));
  e.put(k.units_total);
  e.put_string(core::to_string(p.mode));
  e.put_string(core::boards_stored(p));
  e.put_string(core::to_string(p.symmetry));
  e.put_string(k.program_version);
  return std::move(e.out);
}

std::optional<JournalKey> decode_key(const std::uint8_t* p, std::size_t n) {
  Decoder d{p, n};
  JournalKey k;
  core::JobParams& params = k.params;
  params.n = d.get<std::int32_t>();
  params.depth = d.get<std::int32_t>();
  params.shard.index = d.get<std::int32_t>();
  params.shard.count = d.get<std::int32_t>();
  k.units_total = d.get<std::uint64_t>();
  const std::string mode = d.get_string(), boards_stored = d.get_string(), symmetry = d.get_string();
  k.program_version = d.get_string();
  if (!d.ok || d.left != 0) return std::nullopt;
  const auto m = core::find_name<core::Mode>(mode);
  const auto s = core::find_name<core::Symmetry>(symmetry);
  if (!m || !s) return std::nullopt;
  params.mode = *m;
  params.symmetry = *s;
  try {
    core::set_boards_stored(params, boards_stored);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  return k;
}

// "n is 14 in the journal, 15 now; depth is ..." for every field that differs.
std::string key_differences(const JournalKey& file, const JournalKey& now) {
  auto diffs = core::differences(file.params, now.params);
  if (file.units_total != now.units_total)
    diffs.push_back({"units_total", std::to_string(file.units_total), std::to_string(now.units_total)});
  if (file.program_version != now.program_version)
    diffs.push_back({"program_version", file.program_version, now.program_version});
  return core::describe(diffs, "in the journal", "now");
}

// The fixed part of a payload.
std::array<std::uint8_t, kFixedPayload> encode_fixed(const UnitRecord& u, std::uint32_t k, std::uint32_t c) {
  Encoder e;
  e.out.reserve(kFixedPayload);
  e.put(u.id);
  e.put_bytes(u.placement.data(), u.placement.size());
  e.put(u.multiplicity);
  e.put(u.solutions);
  e.put(u.nodes);
  e.put_f64(u.seconds);
  e.put_f64(u.started);
  e.put(u.rank);
  e.put(u.thread);
  e.put(k);
  e.put(c);
  std::array<std::uint8_t, kFixedPayload> a{};
  std::copy(e.out.begin(), e.out.end(), a.begin());
  return a;
}

struct Fixed {
  UnitRecord unit;
  std::uint32_t k = 0, c = 0;
};
Fixed decode_fixed(const std::uint8_t* p) {
  Decoder d{p, kFixedPayload};
  Fixed f;
  f.unit.id = d.get<std::uint64_t>();
  std::copy_n(d.p, f.unit.placement.size(), f.unit.placement.begin());
  d.p += f.unit.placement.size();
  d.left -= f.unit.placement.size();
  f.unit.multiplicity = d.get<std::uint32_t>();
  f.unit.solutions = d.get<std::uint64_t>();
  f.unit.nodes = d.get<std::uint64_t>();
  f.unit.seconds = d.get_f64();
  f.unit.started = d.get_f64();
  f.unit.rank = d.get<std::int32_t>();
  f.unit.thread = d.get<std::int32_t>();
  f.k = d.get<std::uint32_t>();
  f.c = d.get<std::uint32_t>();
  return f;
}

std::uint32_t get_u32(const std::uint8_t* p) {
  Decoder d{p, 4};
  return d.get<std::uint32_t>();
}

// Reads exactly n bytes at off; false at end of file. CorruptJournal on a read error.
bool pread_exact(int fd, void* buf, std::size_t n, std::uint64_t off, const std::string& path) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(off));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw CorruptJournal("store::journal: cannot read " + path + ": " + fs::errno_text(errno));
    }
    if (r == 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
    off += static_cast<std::uint64_t>(r);
  }
  return true;
}

// Reads of one file through a window of kWindow bytes, for scans: a run of small records costs
// one pread per window, not two per record (two took ~3.5 us a record here: resuming a journal
// of 15 M records spent 52 s reading it). Reads larger than a quarter window go straight to the
// file. The file must not change while a window is in use.
class FileWindow {
 public:
  FileWindow(int fd, const std::string& path) : fd_(fd), path_(path) {}
  // pread_exact through the window: false if the file ends first.
  bool read(void* out, std::size_t n, std::uint64_t off) {
    if (n > kWindow / 4) return pread_exact(fd_, out, n, off, path_);
    if (off < start_ || off - start_ + n > size_) fill(off);
    if (off - start_ + n > size_) return false;
    std::memcpy(out, buf_.data() + (off - start_), n);
    return true;
  }

 private:
  static constexpr std::size_t kWindow = 1 << 20;
  void fill(std::uint64_t off) {
    buf_.resize(kWindow);
    std::size_t got = 0;
    while (got < kWindow) {
      const ssize_t r = ::pread(fd_, buf_.data() + got, kWindow - got, static_cast<off_t>(off + got));
      if (r < 0) {
        if (errno == EINTR) continue;
        throw CorruptJournal("store::journal: cannot read " + path_ + ": " + fs::errno_text(errno));
      }
      if (r == 0) break;
      got += static_cast<std::size_t>(r);
    }
    start_ = off;
    size_ = got;
  }
  int fd_;
  const std::string& path_;
  std::vector<std::uint8_t> buf_;
  std::uint64_t start_ = 0, size_ = 0;
};

// A record that checked out: its unit, its size in the file, and (if asked) its payload.
struct Probe {
  Fixed fixed;
  std::uint64_t size = 0;
};

// Checks the record at `off` (frame, length, crc, payload structure) without trusting anything
// in it. The payload is read into `payload` (one record's worth of memory).
std::optional<Probe> probe(FileWindow& file, std::uint64_t off, std::uint64_t end, const JournalKey& key,
                           std::vector<std::uint8_t>& payload) {
  if (off > end || end - off < kFrame + kFixedPayload) return std::nullopt;
  std::uint8_t head[8];
  if (!file.read(head, 8, off)) return std::nullopt;
  if (get_u32(head) != kRecordMagic) return std::nullopt;
  const std::uint64_t len = get_u32(head + 4);
  if (len < kFixedPayload || len > end - off - kFrame) return std::nullopt;
  payload.resize(static_cast<std::size_t>(len) + 4);
  if (!file.read(payload.data(), payload.size(), off + 8)) return std::nullopt;
  if (crc32_of(payload.data(), len) != get_u32(payload.data() + len)) return std::nullopt;
  payload.resize(static_cast<std::size_t>(len));
  Probe pr{decode_fixed(payload.data()), kFrame + len};
  const std::uint64_t k = pr.fixed.k, c = pr.fixed.c;
  const bool boards = key.params.boards_mode(), classes = key.params.class_boards();
  if (len != kFixedPayload + k * static_cast<std::uint64_t>(key.params.n) + c) return std::nullopt;
  if ((!boards && k != 0) || c != (classes ? k : 0)) return std::nullopt;
  return pr;
}

// Hands each valid record from `off` on to `f`, polling `stop`, until the file's end (its size
// now) or the first record that is not valid; returns where it stopped and the file's end.
struct Walked {
  std::uint64_t stopped_at = 0, end = 0;
};
Walked walk_valid_records(int fd, const std::string& path, std::uint64_t off, const JournalKey& key,
                          const core::StopFn& stop, const std::function<void(const UnitRecord&)>& f) {
  core::StopPoll poll(stop, "reading the journal");
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw CorruptJournal("store::journal: cannot stat " + path + ": " + fs::errno_text(errno));
  const auto end = static_cast<std::uint64_t>(st.st_size);
  std::vector<std::uint8_t> payload;
  FileWindow file(fd, path);
  while (off < end) {
    poll.tick();
    const auto pr = probe(file, off, end, key, payload);
    if (!pr) break;
    f(pr->fixed.unit);
    off += pr->size;
  }
  return {off, end};
}

// The bad record at `off` (before the file's `end`) is harmless only if nothing valid follows it:
// a write torn by a crash. Else throws CorruptJournal: the journal is damaged before its last
// record. Tries where the bad record's own length says the next record starts, then every later
// magic.
void throw_if_damaged_inside(int fd, const std::string& path, std::uint64_t off, std::uint64_t end,
                             const JournalKey& key) {
  FileWindow file(fd, path);
  std::vector<std::uint8_t> payload;
  bool valid_after = false;
  std::uint8_t head[8];
  if (pread_exact(fd, head, 8, off, path)) {
    const std::uint64_t next = off + kFrame + get_u32(head + 4);
    valid_after = next < end && probe(file, next, end, key, payload).has_value();
  }
  std::vector<std::uint8_t> block;
  for (std::uint64_t pos = off + 1; !valid_after && pos + 4 <= end;) {
    const std::uint64_t n = std::min<std::uint64_t>(kBufferLimit, end - pos);
    block.resize(static_cast<std::size_t>(n));
    if (!pread_exact(fd, block.data(), block.size(), pos, path)) break;
    for (std::size_t i = 0; i + 4 <= block.size() && !valid_after; ++i)
      if (get_u32(block.data() + i) == kRecordMagic) valid_after = probe(file, pos + i, end, key, payload).has_value();
    pos += n - 3;   // overlap: a magic may straddle two blocks (n >= 4 here)
  }
  if (valid_after)
    throw CorruptJournal("store::journal: " + path + ": corrupt record at byte offset " + std::to_string(off) +
                         " followed by valid records\n(the journal is damaged before its last record: move it away "
                         "to recompute those units)");
}

// The header of the journal open at fd: checked against `key` (ParameterMismatch, CorruptJournal
// as Journal's constructor says). Returns the offset of the first record.
std::uint64_t read_journal_header(int fd, const std::string& path, const JournalKey& key) {
  auto not_journal = [&](const std::string& why) {
    throw CorruptJournal("store::journal: not an nqueens journal: " + path + " (" + why +
                         ")\n(no unit in it can be resumed: move it away, or pass --force to discard it)");
  };
  std::uint8_t head[16];
  if (!pread_exact(fd, head, sizeof head, 0, path)) not_journal("too short");
  if (std::memcmp(head, kSignature, sizeof kSignature) != 0) not_journal("no journal signature");
  const std::uint32_t version = get_u32(head + 8);
  if (version < kVersion)   // its records mean other things: version 1 held all-mode images
    throw ParameterMismatch("store::journal: " + path + " has journal version " + std::to_string(version) +
                            ", written by an earlier nqueens; this one reads version " + std::to_string(kVersion));
  if (version != kVersion)
    throw CorruptJournal("store::journal: " + path + ": unsupported journal version " + std::to_string(version));
  const std::uint32_t klen = get_u32(head + 12);
  if (klen > kMaxKey) not_journal("damaged header");
  std::vector<std::uint8_t> buf(8 + klen + 4);
  if (!pread_exact(fd, buf.data(), buf.size(), 8, path)) not_journal("damaged header");
  if (crc32_of(buf.data(), 8 + klen) != get_u32(buf.data() + 8 + klen)) not_journal("header checksum mismatch");
  const auto file_key = decode_key(buf.data() + 8, klen);
  if (!file_key) not_journal("damaged header");
  if (!(*file_key == key))
    throw ParameterMismatch("store::journal: " + path + " belongs to another job: " + key_differences(*file_key, key));
  return 16 + klen + 4;
}

// Whether the journal open at fd has `key`'s header (read_journal_header throws nothing for it).
bool header_is(int fd, const std::string& path, const JournalKey& key) {
  try {
    read_journal_header(fd, path, key);
    return true;
  } catch (const ParameterMismatch&) {
    return false;
  } catch (const CorruptJournal&) {
    return false;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Journal::Journal(const std::string& path, const JournalKey& key, const core::StopFn& stop, Open open,
                 const RecoveredFn& on_recovered)
    : path_(path), key_(key) {
  if (key.params.n < 1 || key.params.n > core::kMaxN)
    throw std::invalid_argument("store::journal: board size " + std::to_string(key.params.n) + " is outside 1.." +
                                std::to_string(core::kMaxN));
  exists_at(path_);
  open_locked(open);
  try {
    read_header(key);
    scan(stop, on_recovered);
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

// Two processes appending to one journal would interleave records, so the one that uses it holds
// an exclusive flock on it. The lock is on the file, not the name: the file locked must still be
// the one at path_ (a run that ended may have removed it meanwhile: then again), and a new journal
// never replaces one that another run created first (create_file). Discarding another job's
// journal (--force) happens under the lock, so it never removes a journal that a running job
// holds. A file system without flock (ENOLCK, some NFS mounts) is used unlocked, as before the
// lock existed.
void Journal::open_locked(Open open) {
  for (int attempt = 0; attempt < kOpenAttempts; ++attempt) {
    if (!fs::exists(path_) && create_file(key_)) open = Open::resume;   // a new one: nothing to discard
    fs::Fd fd(::open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC));
    if (!fd) {
      if (errno == ENOENT) continue;   // removed by a run that ended
      throw WriteError("store::journal: cannot open " + path_ + ": " + fs::errno_text(errno));
    }
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
      throw in_use(path_);
    struct stat held {}, named {};
    if (::fstat(fd.get(), &held) != 0 || ::stat(path_.c_str(), &named) != 0 || held.st_dev != named.st_dev ||
        held.st_ino != named.st_ino)
      continue;   // removed or replaced before the lock was taken
    if (open == Open::resume_or_discard && !header_is(fd.get(), path_, key_)) {   // start over: no run holds it
      if (::unlink(path_.c_str()) != 0 && errno != ENOENT)
        throw WriteError("store::journal: cannot remove " + path_ + ": " + fs::errno_text(errno));
      open = Open::resume;
      continue;
    }
    fd_ = fd.release();
    return;
  }
  throw WriteError("store::journal: " + path_ + " kept being removed or replaced while it was opened");
}

Journal::~Journal() {
  if (fd_ < 0) return;
  if (!failed_) {
    try {
      flush();
    } catch (...) {   // the torn tail, if any, is cut off when the journal is reopened
    }
  }
  ::close(fd_);
}

bool Journal::create_file(const JournalKey& key) {
  const std::string dir = fs::parent_dir(path_);
  if (!fs::is_directory(dir))
    throw WriteError("store::journal: " + path_ + ": directory " + dir + " does not exist");
  Encoder e;
  e.put_bytes(reinterpret_cast<const std::uint8_t*>(kSignature), sizeof kSignature);
  const auto k = encode_key(key);
  e.put(kVersion);
  e.put(static_cast<std::uint32_t>(k.size()));
  e.put_bytes(k.data(), k.size());
  e.put(crc32_of(e.out.data() + 8, e.out.size() - 8));
  const std::string tmp = path_ + ".tmp-" + std::to_string(::getpid());
  fs::Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd) throw WriteError("store::journal: cannot create " + tmp + ": " + fs::errno_text(errno));
  bool created = false;
  try {
    fs::write_all(fd.get(), e.out.data(), e.out.size(), "store::journal", tmp);
    if (::fsync(fd.get()) != 0) throw WriteError("store::journal: " + tmp + ": " + fs::errno_text(errno));
    fd.reset();
    created = fs::link_new(tmp, path_, "store::journal");   // a journal another run created first stays
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  ::unlink(tmp.c_str());
  fs::fsync_dir(dir, "store::journal");
  return created;
}

void Journal::read_header(const JournalKey& key) { data_start_ = read_journal_header(fd_, path_, key); }

void Journal::check_not_in_use(const std::string& path) {
  const fs::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return;
  if (::flock(fd.get(), LOCK_SH | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) throw in_use(path);
    return;
  }
  ::flock(fd.get(), LOCK_UN);
}

bool Journal::exists_at(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;   // (a dangling symlink: the run creates its target)
  if (S_ISREG(st.st_mode)) return true;
  throw WriteError("store::journal: " + path +
                   (S_ISDIR(st.st_mode) ? ": is a directory"
                                        : ": is not a regular file (a FIFO, socket or device): move it away"));
}

bool Journal::is_of(const std::string& path, const JournalKey& key) {
  const fs::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  return fd.get() >= 0 && header_is(fd.get(), path, key);
}

void Journal::check_key(const std::string& path, const JournalKey& key) {
  const fs::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw CorruptJournal("store::journal: cannot open " + path + ": " + fs::errno_text(errno));
  read_journal_header(fd.get(), path, key);
}

void Journal::read_records(const std::string& path, const JournalKey& key, const RecoveredFn& on_record,
                           const core::StopFn& stop) {
  const fs::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw CorruptJournal("store::journal: cannot open " + path + ": " + fs::errno_text(errno));
  const auto [off, end] = walk_valid_records(fd.get(), path, read_journal_header(fd.get(), path, key), key, stop, on_record);
  if (off < end) throw_if_damaged_inside(fd.get(), path, off, end, key);   // (a torn tail: a resume cuts it off)
}

void Journal::scan(const core::StopFn& stop, const RecoveredFn& on_recovered) {
  const auto [off, end] = walk_valid_records(fd_, path_, data_start_, key_, stop, [&](const UnitRecord& u) {
    if (on_recovered) on_recovered(u);
    else recovered_.push_back(u);
    ++recovered_count_;
  });
  if (off < end) {
    throw_if_damaged_inside(fd_, path_, off, end, key_);   // else a write torn by a crash: cut it off
    if (::ftruncate(fd_, static_cast<off_t>(off)) != 0 || ::fsync(fd_) != 0)
      throw WriteError("store::journal: cannot cut the torn tail of " + path_ + ": " + fs::errno_text(errno));
    dropped_tail_bytes_ = end - off;
  }
  file_end_ = off;
}

void Journal::check_usable() const {
  if (removed_ || fd_ < 0) throw std::logic_error("store::journal: " + path_ + " was removed");
  if (failed_) throw WriteError("store::journal: " + path_ + ": an earlier write failed");
}

void Journal::flush() const {
  if (buffer_.empty()) return;
  try {
    fs::write_all(fd_, buffer_.data(), buffer_.size(), "store::journal: cannot write", path_);
  } catch (...) {
    failed_ = true;
    throw;
  }
  file_end_ += buffer_.size();
  buffer_.clear();
}

void Journal::put(const std::uint8_t* data, std::size_t size) const {
  if (buffer_.size() + size > kBufferLimit) flush();
  if (size >= kBufferLimit) {   // a big record goes straight to the file
    try {
      fs::write_all(fd_, data, size, "store::journal: cannot write", path_);
    } catch (...) {
      failed_ = true;
      throw;
    }
    file_end_ += size;
    return;
  }
  buffer_.insert(buffer_.end(), data, data + size);
}

void Journal::append(const UnitRecord& u, std::span<const std::uint8_t> boards,
                     std::span<const std::uint8_t> class_sizes) {
  check_usable();
  const auto n = static_cast<std::size_t>(key_.params.n);
  const std::size_t k = boards.size() / n;
  auto bad = [&](const std::string& what) {
    throw std::invalid_argument("store::journal: unit " + std::to_string(u.id) + ": " + what);
  };
  if (!key_.params.boards_mode() && (!boards.empty() || !class_sizes.empty()))
    bad("boards given but boards_stored is none");
  if (boards.size() % n != 0) bad(std::to_string(boards.size()) + " columns is not a whole number of boards");
  if (class_sizes.size() != (key_.params.class_boards() ? k : 0))
    bad(std::to_string(class_sizes.size()) + " class sizes for " + std::to_string(k) + " boards with boards_stored = " +
        core::boards_stored(key_.params));
  const std::uint64_t len = kFixedPayload + boards.size() + class_sizes.size();
  if (len > std::numeric_limits<std::uint32_t>::max() - kFrame) bad("record larger than 4 GiB");

  const auto fixed = encode_fixed(u, static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(class_sizes.size()));
  std::uint32_t crc = crc32_of(fixed.data(), fixed.size());
  crc = crc32_of(boards.data(), boards.size(), crc);
  crc = crc32_of(class_sizes.data(), class_sizes.size(), crc);
  Encoder head;
  head.put(kRecordMagic);
  head.put(static_cast<std::uint32_t>(len));
  Encoder tail;
  tail.put(crc);
  put(head.out.data(), head.out.size());
  put(fixed.data(), fixed.size());
  put(boards.data(), boards.size());
  put(class_sizes.data(), class_sizes.size());
  put(tail.out.data(), tail.out.size());
}

void Journal::write_out() {
  check_usable();
  flush();
}

void Journal::sync() {
  write_out();
  if (::fdatasync(fd_) != 0) {
    failed_ = true;
    throw WriteError("store::journal: cannot sync " + path_ + ": " + fs::errno_text(errno));
  }
}

void Journal::for_each_record(const RecordFn& f) const {
  check_usable();
  flush();
  std::vector<std::uint8_t> payload;
  FileWindow file(fd_, path_);
  for (std::uint64_t off = data_start_; off < file_end_;) {
    const auto pr = probe(file, off, file_end_, key_, payload);
    if (!pr)
      throw CorruptJournal("store::journal: " + path_ + ": record at byte offset " + std::to_string(off) +
                           " changed since it was written");
    const std::size_t nb = std::size_t{pr->fixed.k} * static_cast<std::size_t>(key_.params.n);
    const std::span<const std::uint8_t> all(payload);
    f(pr->fixed.unit, all.subspan(kFixedPayload, nb), all.subspan(kFixedPayload + nb, pr->fixed.c));
    off += pr->size;
  }
}

void Journal::remove() {
  if (removed_) return;
  buffer_.clear();
  removed_ = true;
  // Unlinked while still locked: a run that opens it meanwhile finds it gone once it has the lock.
  const int err = ::unlink(path_.c_str()) != 0 && errno != ENOENT ? errno : 0;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (err) throw WriteError("store::journal: cannot remove " + path_ + ": " + fs::errno_text(err));
}

}  // namespace nq::store
