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
std::pair<int, std::string> reported(const E& e, const std::string& where = {}) {
  testing::internal::CaptureStderr();
  int code = -1;
  try {
    throw e;
  } catch (...) {
    code = app::report_current_exception(where);
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
  // A damaged journal's remedy depends on the damage: its message carries it (store/journal.cpp).
  EXPECT_EQ(reported(store::CorruptJournal("c\n(what to do)")), (std::pair<int, std::string>{3, "nqueens: error: c\n(what to do)\n"}));
}

// describe_current_exception gives the code and the text that report_current_exception prints
// (a command of several ranks prints one rank's text for all of them), with `where` in it.
TEST(ExitCodes, DescribedAsReported) {
  const auto described = [](const auto& e) {
    try {
      throw e;
    } catch (...) {
      const app::Reported r = app::describe_current_exception("rank 1 on host h: ");
      return std::pair<int, std::string>{r.code, r.text};
    }
  };
  const auto reported_at = [](const auto& e) { return reported(e, "rank 1 on host h: "); };
  EXPECT_EQ(described(app::ExitError(app::kUsage, "bad")), (std::pair<int, std::string>{2, "nqueens: error: rank 1 on host h: bad\n"}));
  EXPECT_EQ(described(store::CorruptJournal("c")), reported_at(store::CorruptJournal("c")));
  EXPECT_EQ(described(store::NotAResultFile("x.h5")), reported_at(store::NotAResultFile("x.h5")));
  EXPECT_EQ(described(core::Interrupted("counting")), reported_at(core::Interrupted("counting")));
  EXPECT_EQ(described(std::runtime_error("bug")), reported_at(std::runtime_error("bug")));
}
