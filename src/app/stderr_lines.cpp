#include "app/stderr_lines.h"

#include <unistd.h>
#include <cerrno>
#include <iostream>

namespace nq::app {

namespace {
// Past this much text without a line end, it goes out anyway (a runaway message).
constexpr std::size_t kMaxHeld = 64 * 1024;
}  // namespace

LineWriteBuf::~LineWriteBuf() { write_out(pending_.size()); }

bool LineWriteBuf::write_out(std::size_t n) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t w = ::write(fd_, pending_.data() + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
  pending_.erase(0, n);   // what could not be written is dropped, as an unbuffered stream would
  return done == n;
}

LineWriteBuf::int_type LineWriteBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
}

std::streamsize LineWriteBuf::xsputn(const char* s, std::streamsize n) {
  const std::lock_guard<std::mutex> lock(mu_);
  pending_.append(s, static_cast<std::size_t>(n));
  if (pending_.size() > kMaxHeld && !write_out(pending_.size())) return 0;
  return n;
}

int LineWriteBuf::sync() {
  const std::lock_guard<std::mutex> lock(mu_);
  const auto end = pending_.find_last_of("\n\r");
  if (end == std::string::npos) return 0;
  return write_out(end + 1) ? 0 : -1;
}

StderrLines::StderrLines() : buf_(STDERR_FILENO), previous_(std::cerr.rdbuf(&buf_)) {}

StderrLines::~StderrLines() {
  std::cerr.rdbuf(previous_);   // buf_'s destructor then writes a last unfinished line
}

}  // namespace nq::app
