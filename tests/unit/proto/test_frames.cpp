// Result messages cut into parts under a byte cap and joined again (proto/frames.h).
#include <gtest/gtest.h>
#include <random>
#include "proto/frames.h"
#include "proto/messages.h"

using namespace nq;

namespace {
// A boards-mode batch whose encoding is `size`-ish bytes of varied content.
std::string encoded_batch(std::uint64_t id, std::size_t boards) {
  proto::ResultBatch rb{id, {}};
  proto::UnitResult r;
  r.id = id * 10;
  std::mt19937 rng(static_cast<unsigned>(id));
  for (std::size_t i = 0; i < boards * 8; ++i) r.boards.push_back(static_cast<std::uint8_t>(rng() % 8));
  r.solutions = boards;
  r.check = proto::result_check(r);
  rb.results.push_back(r);
  return proto::encode(rb);
}
}  // namespace

TEST(Frames, EveryPartRespectsTheCapAndTheBatchComesBackWhole) {
  const std::string bytes = encoded_batch(5, 1000);
  for (std::size_t cap : {std::size_t{25}, std::size_t{64}, std::size_t{1000}, bytes.size() + 24, std::size_t{1} << 20}) {
    const auto parts = proto::frame_parts(5, bytes, cap);
    EXPECT_EQ(parts.size(), std::max<std::size_t>(1, (bytes.size() + cap - 25) / (cap - 24))) << cap;
    proto::Reassembler r;
    std::optional<proto::Reassembler::Frame> done;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      EXPECT_LE(parts[i].size(), cap);
      ASSERT_FALSE(done) << "complete before its last part, cap " << cap;
      done = r.feed(parts[i]);
    }
    ASSERT_TRUE(done);
    EXPECT_EQ(done->error, "");
    EXPECT_EQ(done->batch_id, 5u);
    EXPECT_EQ(done->bytes, bytes);
    EXPECT_EQ(proto::decode_results(done->bytes).results.at(0).solutions, 1000u);
    EXPECT_EQ(r.open_batches(), 0u);
  }
}

TEST(Frames, InterleavedBatchesOfOneSenderAreJoinedSeparately) {
  const std::string a = encoded_batch(1, 300), b = encoded_batch(2, 500);
  const auto pa = proto::frame_parts(1, a, 200), pb = proto::frame_parts(2, b, 200);
  proto::Reassembler r;
  std::map<std::uint64_t, std::string> got;
  for (std::size_t i = 0; i < std::max(pa.size(), pb.size()); ++i)
    for (const auto* p : {&pa, &pb})
      if (i < p->size())
        if (auto f = r.feed((*p)[i])) got[*f->batch_id] = f->bytes;
  EXPECT_EQ(got.at(1), a);
  EXPECT_EQ(got.at(2), b);
}

TEST(Frames, AGarbledOrMissingPartIsReportedWithItsBatch) {
  const std::string bytes = encoded_batch(9, 400);
  auto parts = proto::frame_parts(9, bytes, 300);
  ASSERT_GE(parts.size(), 3u);
  {
    auto garbled = parts;
    garbled[1][100] ^= 0x40;   // payload byte: only the hash over the whole batch can tell
    proto::Reassembler r;
    std::optional<proto::Reassembler::Frame> f;
    for (const auto& p : garbled) f = r.feed(p);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->batch_id, 9u);
    EXPECT_NE(f->error.find("fails its hash"), std::string::npos) << f->error;
    EXPECT_TRUE(f->bytes.empty());
  }
  {
    proto::Reassembler r;
    EXPECT_FALSE(r.feed(parts[0]));
    const auto f = r.feed(parts[2]);   // part 1 lost
    ASSERT_TRUE(f);
    EXPECT_EQ(f->batch_id, 9u);
    EXPECT_NE(f->error.find("out of order"), std::string::npos) << f->error;
    EXPECT_EQ(r.open_batches(), 0u);
  }
  {
    proto::Reassembler r;
    const auto f = r.feed(parts[0].substr(0, 10));
    ASSERT_TRUE(f);
    EXPECT_FALSE(f->batch_id);
    EXPECT_NE(f->error.find("shorter than its header"), std::string::npos);
  }
}

TEST(Frames, AnEmptyBatchIsOnePart) {
  const auto parts = proto::frame_parts(3, "", 64);
  ASSERT_EQ(parts.size(), 1u);
  proto::Reassembler r;
  const auto f = r.feed(parts[0]);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->error, "");
  EXPECT_EQ(f->bytes, "");
}
