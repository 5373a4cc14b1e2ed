// std::cerr one whole line per write (app/stderr_lines.h): text written in pieces reaches the
// file descriptor only once its line has ended, so nothing another process writes can land
// inside it.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>
#include <cstdio>
#include <ostream>
#include <string>
#include "app/stderr_lines.h"

namespace {

// A pipe whose read end does not block: what is in it now, or "" when nothing is.
struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() {
    EXPECT_EQ(::pipe(fds), 0);
    ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  }
  ~Pipe() {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  std::string drain() const {
    std::string got;
    char buf[256];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) got.append(buf, static_cast<std::size_t>(n));
    return got;
  }
};

}  // namespace

TEST(StderrLines, APieceWiseMessageGoesOutOnlyWhenItsLineEnds) {
  Pipe p;
  nq::app::LineWriteBuf buf(p.fds[1]);
  std::ostream out(&buf);
  out << std::unitbuf;   // as std::cerr: a flush after every insertion
  out << "nqueens: rank(s) " << 1;
  EXPECT_EQ(p.drain(), "") << "a piece went out before its line ended";
  out << " did not answer the stop\nnext ";
  EXPECT_EQ(p.drain(), "nqueens: rank(s) 1 did not answer the stop\n");
  out << "line\r";   // a progress line ends with '\r' on a terminal
  EXPECT_EQ(p.drain(), "next line\r");
}

TEST(StderrLines, AnUnfinishedLineIsWrittenWhenTheBufferEnds) {
  Pipe p;
  {
    nq::app::LineWriteBuf buf(p.fds[1]);
    std::ostream out(&buf);
    out << std::unitbuf << "no line end";
    EXPECT_EQ(p.drain(), "");
  }
  EXPECT_EQ(p.drain(), "no line end");
}

TEST(StderrLines, ARunawayLineIsNotHeldForever) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  const int fd = ::fileno(file);
  nq::app::LineWriteBuf buf(fd);
  std::ostream out(&buf);
  out << std::unitbuf;
  for (int i = 0; i < 70; ++i) out << std::string(1024, 'x');   // 70 KiB without a line end
  EXPECT_GE(::lseek(fd, 0, SEEK_END), 64 * 1024) << "past 64 KiB the text must go out";
  std::fclose(file);
}

TEST(StderrLines, AFailedWriteMarksTheStreamBad) {
  const int full = ::open("/dev/full", O_WRONLY);
  ASSERT_GE(full, 0);
  {
    nq::app::LineWriteBuf buf(full);
    std::ostream out(&buf);
    out << std::unitbuf << "lost\n";
    EXPECT_TRUE(out.bad());
  }
  ::close(full);
}
