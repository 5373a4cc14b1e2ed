// Progress lines on stderr: units done/total, solutions so far, rate, ETA. A live line
// (carriage return) when stderr is a terminal, otherwise one line per report.
#pragma once
#include <cstdint>
#include <string>
#include "core/total.h"

namespace nq::app {

class ProgressLine {
 public:
  explicit ProgressLine(std::string label);
  ~ProgressLine();   // ends a live line
  // units_done and solutions: the whole job's; seconds: this run's. A resumed run passes what
  // was done before it (done_before, solutions_before): the rate and the ETA are this run's.
  void report(std::uint64_t units_done, std::uint64_t units_total, core::Total solutions, double seconds,
              std::uint64_t done_before = 0, core::Total solutions_before = 0);

 private:
  std::string label_;
  bool live_;
  bool shown_ = false;
};

std::string format_duration(double seconds);   // "3.2 s", "4 min 10 s", "2 h 05 min", "3.1 d"

}  // namespace nq::app
