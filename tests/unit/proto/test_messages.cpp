#include <gtest/gtest.h>
#include "proto/messages.h"

using namespace nq;

TEST(Messages, JobSpecRoundTrips) {
  proto::JobSpec job{17, 4, core::Symmetry::mirror, true, core::BoardSet::classes, 3};
  EXPECT_EQ(proto::decode_job(proto::encode(job)), job);
}

TEST(Messages, WorkBatchRoundTripsEveryUnit) {
  const core::UnitPlan plan(10, 3);
  proto::WorkBatch batch{42, plan.units()};
  const auto back = proto::decode_work(proto::encode(batch));
  EXPECT_EQ(back.batch_id, 42u);
  ASSERT_EQ(back.units.size(), batch.units.size());
  for (std::size_t i = 0; i < batch.units.size(); ++i) {
    EXPECT_EQ(back.units[i].id, batch.units[i].id);
    EXPECT_EQ(back.units[i].multiplicity, batch.units[i].multiplicity);
    EXPECT_EQ(back.units[i].placement, batch.units[i].placement);
  }
}

TEST(Messages, ResultBatchRoundTripsWithBoardsAndLargeCounts) {
  proto::UnitResult r;
  r.id = 7;
  r.solutions = 234907967154122528ULL;   // Q(27): needs all 64 bits
  r.nodes = ~0ULL;
  r.seconds = 1.5;
  r.started = 1.7e9;
  r.rank = 3;
  r.thread = 1;
  r.boards = {1, 3, 0, 2, 2, 0, 3, 1};
  r.class_sizes = {2, 2};
  r.check = proto::result_check(r);
  proto::ResultBatch b{9, {r, r}};
  const auto back = proto::decode_results(proto::encode(b));
  EXPECT_EQ(back.batch_id, 9u);
  ASSERT_EQ(back.results.size(), 2u);
  EXPECT_EQ(back.results[0], r);
  EXPECT_EQ(proto::result_check(back.results[1]), r.check);
}

TEST(Messages, ChecksumChangesWithTheCount) {
  proto::UnitResult r;
  r.id = 1;
  r.solutions = 10;
  const auto a = proto::result_check(r);
  r.solutions = 11;
  EXPECT_NE(proto::result_check(r), a);
}

TEST(Messages, OtherProtocolVersionAndGarbageAreRefused) {
  std::string bytes = proto::encode(proto::JobSpec{8, 2});
  bytes[0] = static_cast<char>(bytes[0] + 1);   // the version comes first
  EXPECT_THROW(proto::decode_job(bytes), proto::ProtocolError);
  EXPECT_THROW(proto::decode_results("not a message"), proto::ProtocolError);
  const std::string good = proto::encode(proto::WorkBatch{1, core::UnitPlan(8, 2).units()});
  EXPECT_THROW(proto::decode_work(good.substr(0, good.size() / 2)), proto::ProtocolError);
}
