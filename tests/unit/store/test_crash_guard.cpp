// A crash of the HDF5 library while a file is read (store/crash_guard.h): exit 3 with one line
// naming the file, and only while a reader is in the library.
#include <gtest/gtest.h>
#include <unistd.h>
#include <csignal>
#include "store/crash_guard.h"

using namespace nq;

TEST(CrashIsDamage, ACrashWhileAFileIsReadEndsTheProcessAsADamagedFile) {
  EXPECT_EXIT(
      {
        const store::CrashIsDamage outer("a.h5");
        const store::CrashIsDamage inner("results/b.h5");
        std::raise(SIGSEGV);
      },
      testing::ExitedWithCode(store::kDamagedFileExit),
      "^nqueens: error: store::read: results/b.h5: the HDF5 library crashed reading it: the file is damaged; move it "
      "away, or run the job that wrote it again\n$");
  EXPECT_EXIT(
      {
        const store::CrashIsDamage guard("c.h5");
        std::raise(SIGBUS);
      },
      testing::ExitedWithCode(store::kDamagedFileExit), "store::read: c.h5: ");
}

namespace {
extern "C" void exit_42(int) { _exit(42); }
}  // namespace

TEST(CrashIsDamage, OnceTheLastReaderLeftTheProcesssOwnHandlerIsBack) {
  // (The process's own: here a test's, which says 42; in nqueens Open MPI's, or the default;
  // under AddressSanitizer its own, which a default crash would meet instead.)
  EXPECT_EXIT(
      {
        std::signal(SIGSEGV, exit_42);
        { const store::CrashIsDamage outer("a.h5"); { const store::CrashIsDamage inner("a.h5"); } }
        std::raise(SIGSEGV);
      },
      testing::ExitedWithCode(42), "");
}
