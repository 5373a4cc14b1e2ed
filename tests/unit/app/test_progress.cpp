// The progress line (app/progress.h): the whole job's share done, this run's pace. Written to
// stderr, captured here (not a terminal: one line a report).
#include <gtest/gtest.h>
#include <string>
#include "app/progress.h"

using namespace nq;

namespace {
std::string line_of(std::uint64_t done, std::uint64_t total, core::Total solutions, double seconds,
                    std::uint64_t done_before = 0, core::Total solutions_before = 0) {
  testing::internal::CaptureStderr();
  {
    app::ProgressLine line("run");
    line.report(done, total, solutions, seconds, done_before, solutions_before);
  }
  return testing::internal::GetCapturedStderr();
}
}  // namespace

TEST(ProgressLine, AFreshRunsEtaIsItsTimeOverItsShareDone) {
  const std::string s = line_of(25, 100, 250, 10);
  EXPECT_NE(s.find("[run]  25.0%  units 25/100  solutions 250  25 sol/s  elapsed 10.0 s  ETA 30.0 s\n"), std::string::npos)
      << s;
}

TEST(ProgressLine, AResumedRunsEtaAndRateAreItsOwn) {
  // 50 units done before; this run did 10 more in 10 s, so the 40 left take 40 s. It said 6.7 s
  // (this run's seconds over the whole job's 60 % done), and the rate counted the resumed
  // solutions as this run's.
  const std::string s = line_of(60, 100, 600, 10, 50, 500);
  EXPECT_NE(s.find("  60.0%  units 60/100  solutions 600  10 sol/s  elapsed 10.0 s  ETA 40.0 s\n"), std::string::npos)
      << s;
  EXPECT_NE(line_of(50, 100, 500, 3, 50, 500).find("ETA -\n"), std::string::npos);   // nothing done yet
}

TEST(ProgressLine, SolutionsPast64BitsArePrintedWhole) {
  const core::Total past = (core::Total{1} << 64) * 3 + 5;   // N = 29's total is ~1.5 x 2^64
  EXPECT_NE(line_of(1, 2, past, 1).find("solutions 55340232221128654853 "), std::string::npos);
}
