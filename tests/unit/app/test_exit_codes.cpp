// The exit code of every kind of error that reaches main (app/exit_codes.h).
#include <gtest/gtest.h>
#include "app/exit_codes.h"
#include "core/stop.h"
#include "core/symmetry.h"
#include "proto/messages.h"
#include "store/errors.h"

using namespace nq;

namespace {

// Throws `e`, catches it as main does; returns the code and the line on stderr.
template <class E>
std::pair<int, std::string> reported(const E& e) {
  testing::internal::CaptureStderr();
  int code = -1;
  try {
    throw e;
  } catch (...) {
    code = app::report_current_exception();
  }
  return {code, testing::internal::GetCapturedStderr()};
}

}  // namespace

TEST(ExitCodes, EveryErrorKindMapsToItsDocumentedCode) {
  EXPECT_EQ(reported(app::ExitError(app::kRefused, "no")), (std::pair<int, std::string>{5, "nqueens: error: no\n"}));
  EXPECT_EQ(reported(app::ExitError(app::kUsage, "bad flag")).first, 2);
  EXPECT_EQ(reported(store::NotAResultFile("x.h5")).first, 3);
  EXPECT_EQ(reported(store::CorruptJournal("j")).first, 3);
  EXPECT_EQ(reported(store::WriteError("disk full")).first, 4);
  EXPECT_EQ(reported(store::ParameterMismatch("depth")).first, 5);
  EXPECT_EQ(reported(core::IntegrityError("overflow")).first, 6);
  EXPECT_EQ(reported(core::Interrupted("counting")).first, 75);
  EXPECT_EQ(reported(app::ExitError(app::kInterrupted, "stopped")), (std::pair<int, std::string>{75, "nqueens: stopped\n"}));
  EXPECT_EQ(reported(proto::ProtocolError("garbled")).first, 1);
  EXPECT_EQ(reported(std::runtime_error("bug")), (std::pair<int, std::string>{1, "nqueens: internal error: bug\n"}));
  EXPECT_EQ(reported(42).first, 1);
}

TEST(ExitCodes, HintsTellWhatToDo) {
  EXPECT_NE(reported(store::ParameterMismatch("m")).second.find("pass --force to start over"), std::string::npos);
  EXPECT_NE(reported(store::CorruptJournal("c")).second.find("move it away to recompute those units"), std::string::npos);
}
