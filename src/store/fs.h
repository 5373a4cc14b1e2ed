// Private to src/store: the few POSIX file operations the store needs, each failing with a
// WriteError that names the operation, the file and errno's text.
#pragma once
#include <cstddef>
#include <string>
#include <utility>

namespace nq::store::fs {

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset() noexcept;
  int release() noexcept { return std::exchange(fd_, -1); }   // the caller closes it

 private:
  int fd_ = -1;
};

std::string errno_text(int err);                 // strerror(err)
std::string parent_dir(const std::string& path);  // "." for a bare file name
bool exists(const std::string& path);            // anything at path (lstat)
bool is_directory(const std::string& path);      // follows symlinks

// Each throws WriteError("<op>: <path>: <errno text>") on failure.
void write_all(int fd, const void* data, std::size_t size, const std::string& op, const std::string& path);
void fsync_path(const std::string& path, const std::string& op);   // fsync of a file by name
void fsync_dir(const std::string& dir, const std::string& op);     // make a rename/create durable
void rename_file(const std::string& from, const std::string& to, const std::string& op);
// Makes `from` also appear at `to` unless something is there already (then nothing changes and
// it returns false): link(2), which never replaces; on a file system without hard links, a
// rename (which would).
bool link_new(const std::string& from, const std::string& to, const std::string& op);

}  // namespace nq::store::fs
