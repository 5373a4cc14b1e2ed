#include "store/fs.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include "store/errors.h"

namespace nq::store::fs {

void Fd::reset() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string errno_text(int err) { return std::strerror(err); }

std::string parent_dir(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

namespace {
[[noreturn]] void fail(const std::string& op, const std::string& path, int err) {
  throw WriteError(op + ": " + path + ": " + errno_text(err));
}
}  // namespace

void write_all(int fd, const void* data, std::size_t size, const std::string& op,
               const std::string& path) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t w = ::write(fd, p, size);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(op, path, errno);
    }
    if (w == 0) fail(op, path, EIO);
    p += w;
    size -= static_cast<std::size_t>(w);
  }
}

void fsync_path(const std::string& path, const std::string& op) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) fail(op, path, errno);
  if (::fsync(fd.get()) != 0) fail(op, path, errno);
}

void fsync_dir(const std::string& dir, const std::string& op) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) fail(op, dir, errno);
  // Some file systems refuse fsync on a directory (EINVAL): nothing more can be done there.
  if (::fsync(fd.get()) != 0 && errno != EINVAL) fail(op, dir, errno);
}

void rename_file(const std::string& from, const std::string& to, const std::string& op) {
  if (std::rename(from.c_str(), to.c_str()) != 0) fail(op, to, errno);
}

bool link_new(const std::string& from, const std::string& to, const std::string& op) {
  if (::link(from.c_str(), to.c_str()) == 0) return true;
  if (errno == EEXIST) return false;
  if (errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP || errno == ENOSYS) {
    rename_file(from, to, op);
    return true;
  }
  fail(op, to, errno);
}

}  // namespace nq::store::fs
