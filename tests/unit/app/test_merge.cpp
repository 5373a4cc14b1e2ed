// `nqueens merge` (app/merge.h): shard files written as `run --shard` writes them, merged into
// one file equal to a single run, and every refusal with its exit code.
#include <gtest/gtest.h>
#include "app/exit_codes.h"
#include "app/merge.h"
#include "app_test_util.h"
#include "core/known_counts.h"
#include "store_test_util.h"

using namespace nq;
using app::ExitError;

namespace {

class Merge : public store::test::TempDirTest {
 protected:
  // Writes shard i of `count` of the job `p` to shard<i>.h5 and returns the path.
  std::string shard(core::JobParams p, int i, int count) {
    p.shard = {i, count};
    const std::string path = file("shard" + std::to_string(i) + "-" + std::to_string(p.depth) + ".h5");
    app::test::write_shard(path, p);
    return path;
  }
  std::vector<std::string> shards(const core::JobParams& p, int count) {
    std::vector<std::string> v;
    for (int i = 0; i < count; ++i) v.push_back(shard(p, i, count));
    return v;
  }
  // The refusal of a merge: its exit code and message.
  std::pair<int, std::string> refusal(const std::vector<std::string>& files, bool force = false,
                                      const std::string& out_name = "merged.h5") {
    try {
      app::merge_shards(file(out_name), files, force);
    } catch (const ExitError& e) {
      return {e.code(), e.what()};
    }
    return {0, "no error"};
  }
};

const core::JobParams kJob = app::test::count_job(9, 2);

std::pair<int, std::string> refused(const std::string& what) { return {app::kRefused, what}; }

}  // namespace

TEST_F(Merge, ShardsMergeIntoTheFileOfASingleRun) {
  const auto files = shards(kJob, 3);
  testing::internal::CaptureStdout();
  const int code = app::merge_shards(file("merged.h5"), {files[2], files[0], files[1]}, false);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, app::kOk);
  EXPECT_NE(out.find("merged   3 shards into " + file("merged.h5") + ": N = 9, total 352, unique 46, matches published: yes"),
            std::string::npos) << out;

  const store::ResultReader merged(file("merged.h5"));
  app::test::write_shard(file("single.h5"), kJob);
  const store::ResultReader single(file("single.h5"));
  EXPECT_EQ(merged.info().params, kJob);   // shard 0/1
  EXPECT_EQ(merged.info().status, store::Status::complete);
  EXPECT_EQ(merged.info().total, single.info().total);
  EXPECT_EQ(merged.info().unique, single.info().unique);
  EXPECT_EQ(merged.info().rot180_fixed, single.info().rot180_fixed);
  EXPECT_EQ(merged.info().matches_known, core::KnownMatch::match);
  EXPECT_EQ(merged.info().hosts, "node0,node1,node2");
  const auto a = merged.units(), b = single.units();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].solutions, b[i].solutions);
    EXPECT_EQ(a[i].multiplicity, b[i].multiplicity);
  }
}

TEST_F(Merge, AMissingShardIsAGap) {
  const auto files = shards(kJob, 4);
  EXPECT_EQ(refusal({files[0], files[3]}), refused("merge: shards missing (gap): 1, 2 of 4"));
}

TEST_F(Merge, AGapOfManyShardsNamesTheFirstTenAndCountsTheRest) {
  // One shard of 2^31 - 1 (--shard takes it): the message used to list every other index,
  // gigabytes, and the merge ended in std::bad_alloc.
  const int count = 2147483647;
  EXPECT_EQ(refusal({shard(kJob, 3, count), shard(kJob, 0, count)}),
            refused("merge: shards missing (gap): 1, 2, 4, 5, 6, 7, 8, 9, 10, 11 and 2147483635 more of 2147483647"));
}

TEST_F(Merge, AShardGivenTwiceIsAnOverlap) {
  const auto files = shards(kJob, 2);
  EXPECT_EQ(refusal({files[0], files[1], files[0]}),
            refused("merge: shard 0/2 is given twice (overlap)"));
}

TEST_F(Merge, ShardsOfDifferentJobsAreRefusedNamingTheField) {
  const std::string a = shard(kJob, 0, 2);
  core::JobParams deeper = kJob;
  deeper.depth = 3;
  const std::string b = shard(deeper, 1, 2);
  const auto [code, what] = refusal({a, b});
  EXPECT_EQ(code, app::kRefused);
  // Every difference is named: the depth, and the plan size that follows from it.
  EXPECT_EQ(what, "merge: shards of different jobs cannot be merged: depth is 2 in " + a + ", 3 in " + b +
                      "; units_total is " + std::to_string(app::test::plan_size(kJob)) + " in " + a + ", " +
                      std::to_string(app::test::plan_size(deeper)) + " in " + b);
  core::JobParams other_symmetry = kJob;
  other_symmetry.symmetry = core::Symmetry::none;
  const std::string c = shard(other_symmetry, 1, 2);   // same depth: same file name as shard 1 of kJob
  EXPECT_NE(refusal({a, c}).second.find("symmetry is 'mirror' in " + a + ", 'none' in " + c), std::string::npos);
  const std::string d = shard(kJob, 1, 3);
  EXPECT_NE(refusal({a, d}).second.find("shard_count is 2 in " + a + ", 3 in " + d), std::string::npos);
}

TEST_F(Merge, APartialShardIsRefused) {
  const auto files = shards(kJob, 2);
  core::JobParams p = kJob;
  p.shard = {1, 2};
  auto records = app::test::finished_units(p);
  records.pop_back();
  store::RunInfo info = app::test::run_info(p, records);
  ASSERT_EQ(info.status, store::Status::partial);
  app::write_result_file(files[1], info, app::test::source_of(records), app::no_boards());
  const auto [code, what] = refusal(files);
  EXPECT_EQ(code, app::kRefused);
  EXPECT_NE(what.find(files[1] + " is partial"), std::string::npos) << what;
}

TEST_F(Merge, ACompleteOutputIsOverwrittenOnlyWithForce) {
  const auto files = shards(kJob, 2);
  testing::internal::CaptureStdout();
  ASSERT_EQ(app::merge_shards(file("merged.h5"), files, false), app::kOk);
  EXPECT_EQ(refusal(files).first, app::kRefused);
  EXPECT_EQ(app::merge_shards(file("merged.h5"), files, true), app::kOk);
  testing::internal::GetCapturedStdout();
}

TEST_F(Merge, BadOutputsAndInputsHaveTheirExitCodes) {
  const auto files = shards(kJob, 2);
  EXPECT_EQ(refusal(files, false, "shard0-2.h5").first, app::kUsage);   // the output is also a shard
  std::filesystem::create_directory(file("dir.h5"));
  EXPECT_EQ(refusal(files, false, "dir.h5").first, app::kIoError);
  store::test::spit(file("junk.h5"), "not hdf5");
  EXPECT_EQ(refusal({files[0], file("junk.h5")}).first, app::kBadInput);
}

TEST_F(Merge, ShardsWithAWrongCountMergeIntoAFileThatSaysSoAndExit6) {
  auto files = shards(kJob, 2);
  core::JobParams p = kJob;
  p.shard = {1, 2};
  auto records = app::test::finished_units(p);
  records[0].solutions += 8;   // a wrong count a worker might have sent
  app::write_result_file(files[1], app::test::run_info(p, records), app::test::source_of(records), app::no_boards());
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  EXPECT_EQ(app::merge_shards(file("merged.h5"), files, false), app::kVerifyFailed);
  testing::internal::GetCapturedStdout();
  testing::internal::GetCapturedStderr();
  const auto info = store::ResultReader(file("merged.h5")).info();
  EXPECT_EQ(info.total, 352u + 8 * records[0].multiplicity);
  EXPECT_EQ(info.matches_known, core::KnownMatch::mismatch);
}
