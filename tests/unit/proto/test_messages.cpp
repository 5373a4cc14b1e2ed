#include <gtest/gtest.h>
#include "proto/messages.h"

using namespace nq;

TEST(Messages, JobSpecRoundTrips) {
  proto::JobSpec job;
  job.params = {17, core::Mode::boards, core::BoardSet::classes, 4, core::Symmetry::mirror, {2, 5}};
  job.threads_per_worker = 3;
  EXPECT_EQ(proto::decode_job(proto::encode(job)), job);
  proto::JobSpec other = job;   // every field travels
  other.params.shard.index = 1;
  EXPECT_NE(proto::decode_job(proto::encode(job)), other);
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

TEST(Messages, ChecksumChangesWithTheIdTheCountsAndEveryByteOfTheBoards) {
  proto::UnitResult r;
  r.id = 1;
  r.solutions = 10;
  r.nodes = 99;
  for (int i = 0; i < 37; ++i) r.boards.push_back(static_cast<std::uint8_t>(i % 13));   // whole words and a tail
  r.class_sizes = {8, 4, 8};
  const auto a = proto::result_check(r);
  auto changed = [&](auto edit) {
    proto::UnitResult x = r;
    edit(x);
    return proto::result_check(x) != a;
  };
  EXPECT_TRUE(changed([](auto& x) { x.id = 2; }));
  EXPECT_TRUE(changed([](auto& x) { x.solutions = 11; }));
  EXPECT_TRUE(changed([](auto& x) { x.nodes = 98; }));
  for (std::size_t i = 0; i < r.boards.size(); ++i)
    EXPECT_TRUE(changed([&](auto& x) { x.boards[i] ^= 1; })) << "board byte " << i;
  EXPECT_TRUE(changed([](auto& x) { std::swap(x.boards[0], x.boards[1]); }));
  EXPECT_TRUE(changed([](auto& x) { x.boards.pop_back(); }));
  for (std::size_t i = 0; i < r.class_sizes.size(); ++i)
    EXPECT_TRUE(changed([&](auto& x) { x.class_sizes[i] = 2; })) << "class size " << i;
  EXPECT_FALSE(changed([](auto& x) { x.seconds = 5; }));   // timing is not part of the result
}

TEST(Messages, OtherProtocolVersionAndGarbageAreRefused) {
  std::string bytes = proto::encode(proto::JobSpec{});
  bytes[0] = static_cast<char>(bytes[0] + 1);   // the version comes first
  EXPECT_THROW(proto::decode_job(bytes), proto::ProtocolError);
  EXPECT_THROW(proto::decode_results("not a message"), proto::ProtocolError);
  const std::string good = proto::encode(proto::WorkBatch{1, core::UnitPlan(8, 2).units()});
  EXPECT_THROW(proto::decode_work(good.substr(0, good.size() / 2)), proto::ProtocolError);
}
