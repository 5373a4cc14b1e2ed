// `nqueens check`: recounts work units of a result file, by default with another kernel than the
// one that counted them, and compares each with what the file says:
// its placement and multiplicity those of the plan's unit of its id, its solutions and nodes.
// The re-countable slices that independent confirmation asks for: a random sample (default), a
// list of ids, or every unit.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include "app/rank_share.h"
#include "core/kernel.h"

namespace nq::cluster {
class MpiSession;
}

namespace nq::app {

struct CheckOptions {
  std::string file;
  std::uint64_t sample = 16;   // this many units drawn at random, unless `ranges` or `all`
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;   // --units: ids A..B (inclusive)
  bool all = false;
  std::optional<std::uint64_t> seed;   // of the sample; random (and printed) when not given
  // The kernel of the recount; by default another than the one runs use on this CPU (theirs is
  // `fastest`): AVX2 where the CPU has AVX-512 (another algorithm, ~1.4x the time), else scalar
  // (~12x at N = 18).
  std::optional<core::KernelChoice> kernel;
  int threads = 0;   // 0: the CPUs this process may use
  bool quiet = false;   // no progress line
};

// Parses --units' "A-B,C,...": ids and inclusive ranges of ids. Throws ExitError(kUsage).
std::vector<std::pair<std::uint64_t, std::uint64_t>> parse_unit_ranges(const std::string& text);

// Every rank of `mpi` opens the file and makes the same selection; each recounts its
// rank_share on its threads. Rank 0 prints the lines: with several ranks, the unit lines of all
// of them once every rank is done, in id order. Returns the exit code, the same on every rank:
// 0 every unit checked agrees; kVerifyFailed one or more differ (each named on stdout);
// kInterrupted a stop signal ended it (what was checked is reported); kBadInput for a file that
// is not a result and kUsage for a selection it does not hold (one line on stderr, rank 0's, or
// that of a rank which alone failed). An error during the recount on one of several ranks ends
// the job (MPI_Abort) with its code.
int check_units(const CheckOptions& o, const cluster::MpiSession& mpi);

}  // namespace nq::app
