// std::cerr one whole line per write(2). Under mpirun a rank's stderr reaches the terminal
// through the launcher, which forwards each write on its own; a message written in pieces
// (`std::cerr << a << b`, unit-buffered) could have the launcher's own text, such as Open MPI's
// MPI_ABORT notice, land inside it. Text is held until its line ends ('\n' or '\r'), then the
// whole lines go out in one write (atomic on a pipe up to PIPE_BUF bytes).
#pragma once

#include <mutex>
#include <streambuf>
#include <string>

namespace nq::app {

class LineWriteBuf : public std::streambuf {
 public:
  explicit LineWriteBuf(int fd) : fd_(fd) {}
  ~LineWriteBuf() override;   // writes a last unfinished line
  LineWriteBuf(const LineWriteBuf&) = delete;
  LineWriteBuf& operator=(const LineWriteBuf&) = delete;

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;   // writes the finished lines; an unfinished one waits for its end

 private:
  bool write_out(std::size_t n);   // the first n bytes of pending_, then drops them
  int fd_;
  std::string pending_;
  std::mutex mu_;   // worker threads report failures on std::cerr too
};

// For the lifetime of the object std::cerr writes through a LineWriteBuf on fd 2; the previous
// buffer comes back (after the last unfinished line is written) when it ends.
class StderrLines {
 public:
  StderrLines();
  ~StderrLines();
  StderrLines(const StderrLines&) = delete;
  StderrLines& operator=(const StderrLines&) = delete;

 private:
  LineWriteBuf buf_;
  std::streambuf* previous_;
};

}  // namespace nq::app
