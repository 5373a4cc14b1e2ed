// MPI-aware gtest main: every rank runs every test (tests are collective); the exit code is the
// worst result over all ranks, so a failure on any rank fails the test.
#include <gtest/gtest.h>
#include "mpi_support.h"

namespace nq::test {
const cluster::MpiSession* g_mpi = nullptr;
const cluster::MpiSession& mpi() { return *g_mpi; }
}  // namespace nq::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const nq::cluster::MpiSession session;
  nq::test::g_mpi = &session;
  if (session.rank() != 0) {   // one rank prints; the others stay quiet
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int result = RUN_ALL_TESTS();
  return session.max_over_ranks(result);
}
