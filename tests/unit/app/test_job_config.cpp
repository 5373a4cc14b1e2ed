// Job files (TOML) and the checks of a job's settings (app/job_config.h).
#include <gtest/gtest.h>
#include <fstream>
#include <functional>
#include "app/exit_codes.h"
#include "app/job_config.h"
#include "store_test_util.h"

using namespace nq;
using app::ExitError;
using app::JobConfig;

namespace {

// The message of the error `f` throws, which must be a usage error (exit 2).
std::string usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ExitError& e) {
    EXPECT_EQ(e.code(), app::kUsage) << e.what();
    return e.what();
  }
  return "no error";
}

class JobFile : public store::test::TempDirTest {
 protected:
  std::string job(const std::string& text) {
    const std::string path = file("job-" + std::to_string(count_++) + ".toml");
    std::ofstream(path) << text;
    return path;
  }
  // The error of reading `text` as a job file: its exit code must be the usage code.
  std::string error_of(const std::string& text) {
    const std::string path = job(text);
    return usage_error([&] { app::read_job_file(path); });
  }

 private:
  int count_ = 0;
};

std::string finalize_error(JobConfig c) {
  return usage_error([&] { app::finalize_config(c); });
}

}  // namespace

TEST_F(JobFile, EveryKeyIsReadIntoItsTypedValue) {
  const JobConfig c = app::read_job_file(job(R"(
description = "a test job"
n = 12
mode = "boards"
boards = "class"
symmetry = "none"
depth = 3
shard = "2/5"
out = "x/y.h5"
threads = 7
progress_interval = 1.5
checkpoint_interval = 3
audit = 0.25
time_limit = "01:00:00"
)"));
  EXPECT_EQ(c.params, (core::JobParams{12, core::Mode::boards, core::BoardSet::classes, 3, core::Symmetry::none, {2, 5}}));
  EXPECT_EQ(c.out, "x/y.h5");
  EXPECT_EQ(c.threads, 7);
  EXPECT_EQ(c.progress_interval, 1.5);
  EXPECT_EQ(c.checkpoint_interval, 3.0);
  EXPECT_EQ(c.audit, 0.25);
  EXPECT_EQ(c.time_limit, "01:00:00");
}

TEST_F(JobFile, UnsetKeysKeepTheDefaults) {
  const JobConfig c = app::read_job_file(job("n = 9\n"));
  EXPECT_EQ(c.params, (core::JobParams{9, core::Mode::count, core::BoardSet::all, 0, core::Symmetry::full, {0, 1}}));
  EXPECT_EQ(c.out, "");
  EXPECT_EQ(c.audit, 1.0 / 64);
}

TEST_F(JobFile, ErrorsNameTheFileTheKeyAndWhatIsWrong) {
  const struct {
    const char* text;
    const char* expected;
  } cases[] = {
      {"mode = \"count\"\n", "key 'n' (the board size) is missing"},
      {"n = 8\nspeed = 3\n", "unknown key 'speed' (known: n, mode, out"},
      {"n = \"8\"\n", "key 'n' must be an integer"},
      {"n = 40\n", "key 'n' = 40 is outside 1..32"},
      {"n = 8\ndepth = -1\n", "key 'depth' = -1 is outside 1..32"},
      // 0 was taken as the default (what leaving the key out does); the flags refuse it too.
      {"n = 8\ndepth = 0\n", "key 'depth' = 0 is outside 1..32"},
      {"n = 8\nthreads = 0\n", "key 'threads' = 0 is outside 1..4096"},
      {"n = 8\nthreads = 4097\n", "key 'threads' = 4097 is outside 1..4096"},
      {"n = 8\nmode = \"fast\"\n", "key 'mode' = \"fast\" is not one of count, boards"},
      {"n = 8\nsymmetry = \"rotation\"\n", "key 'symmetry' = \"rotation\" is not one of none, mirror, full"},
      {"n = 8\nboards = \"classes\"\n", "key 'boards' = \"classes\" is not one of all, class"},
      {"n = 8\nshard = \"4/4\"\n", "key 'shard': shard '4/4' must be i/n with 0 <= i < n <= 2147483647 (e.g. 0/4)"},
      {"n = 8\nshard = 2\n", "key 'shard' must be a string like \"0/4\""},
      {"n = 8\nprogress_interval = 0\n", "key 'progress_interval' must be a number of seconds in (0, 86400]"},
      {"n = 8\naudit = 1.5\n", "key 'audit' must be a number from 0 to 1"},
      {"n = 8\nn = 9\n", "line 2: "},
      {"n = [8\n", "line "},
      // Slurm's --time forms only, and not 0, which Slurm takes for no limit: `submit` passed
      // "0" (a job without a limit) and "99:99:99" on, and `run` took "abc" (exit 0).
      {"n = 8\ntime_limit = \"0\"\n", "key 'time_limit' must be a wall time for Slurm's --time"},
      {"n = 8\ntime_limit = \"00:00:00\"\n", "not 0 (which Slurm takes for no limit); got \"00:00:00\""},
      {"n = 8\ntime_limit = \"99:99:99\"\n", "got \"99:99:99\""},
      {"n = 8\ntime_limit = \"abc\"\n", "got \"abc\""},
      {"n = 8\ntime_limit = \"1-24\"\n", "got \"1-24\""},
      {"n = 8\ntime_limit = \"5:60\"\n", "got \"5:60\""},
      {"n = 8\ntime_limit = \"1:2:3:4\"\n", "got \"1:2:3:4\""},
      {"n = 8\ntime_limit = \"-5\"\n", "got \"-5\""},
      {"n = 8\ntime_limit = \"\"\n", "got \"\""},
  };
  for (const auto& c : cases) {
    const std::string what = error_of(c.text);
    EXPECT_NE(what.find("job file " + file("")), std::string::npos) << what;
    EXPECT_NE(what.find(c.expected), std::string::npos) << c.text << " -> " << what;
  }
}

TEST_F(JobFile, EveryFormOfSlurmsTimeIsATimeLimit) {
  for (const char* t : {"90", "5:30", "02:00:00", "100:00:00", "1-12", "1-12:30", "1-12:30:05", "0-1", "0:30"})
    EXPECT_EQ(app::read_job_file(job("n = 8\ntime_limit = \"" + std::string(t) + "\"\n")).time_limit, t);
}

TEST_F(JobFile, AMissingFileIsAUsageError) {
  EXPECT_EQ(usage_error([&] { app::read_job_file(file("none.toml")); }),
            "job file " + file("none.toml") + ": not found or not a regular file");
}

TEST(JobConfig, FinalizeFillsTheDefaultOutputFromTheParameters) {
  JobConfig c;
  c.params.n = 10;
  app::finalize_config(c);
  EXPECT_EQ(c.out, "results/nqueens-n10-count.h5");
  EXPECT_EQ(c.params.symmetry, core::Symmetry::full);   // the default reduction
  c = JobConfig{};
  c.params.n = 8;
  c.params.mode = core::Mode::boards;
  c.params.shard = {1, 4};
  app::finalize_config(c);
  EXPECT_EQ(c.out, "results/nqueens-n8-boards-shard1of4.h5");
  c.out = "mine.h5";
  app::finalize_config(c);
  EXPECT_EQ(c.out, "mine.h5");
}

TEST(JobConfig, CountModeDropsTheBoardSetOfABoardsJobFileCountedSoEqualJobsHaveEqualParameters) {
  JobConfig a, b;
  a.params.n = b.params.n = 8;
  b.params.boards = core::BoardSet::classes;   // a boards job file's `boards = "class"`, run with --mode count
  b.job_file = "j.toml";
  b.file_keys = {"n", "boards"};
  b.flag_keys = {"mode"};
  app::finalize_config(a);
  app::finalize_config(b);
  EXPECT_EQ(a.params, b.params);
  b.params.mode = core::Mode::boards;
  b.params.boards = core::BoardSet::classes;
  app::finalize_config(b);
  EXPECT_EQ(b.params.boards, core::BoardSet::classes);
}

TEST(JobConfig, TheClassBoardSetOfACountJobIsAUsageError) {
  // `run --n 8 --boards class` wrote a count file without a word (no board stored).
  JobConfig c;
  c.params.n = 8;
  c.params.boards = core::BoardSet::classes;
  EXPECT_EQ(finalize_error(c), "--boards class is for boards mode, and this job counts (mode count): give --mode "
                               "boards to store the boards, or leave the board set out");
  c.job_file = "j.toml";   // both from the job file: `boards = "class"` in a count job file
  c.file_keys = {"n", "boards"};
  EXPECT_NE(finalize_error(c).find("boards class (key 'boards' of job file j.toml) is for boards mode"), std::string::npos);
  c.params.boards = core::BoardSet::all;   // the default set, given or not, says nothing
  app::finalize_config(c);
}

TEST(JobConfig, FinalizeRefusesJobsThatCannotRun) {
  JobConfig c;
  EXPECT_NE(finalize_error(c).find("N is missing or outside 1..32"), std::string::npos);
  c.params.n = 8;
  c.params.depth = 9;
  EXPECT_EQ(finalize_error(c), "--depth 9 exceeds N = 8: give a depth of at most N, or none for the default");
  c.params.depth = 0;
  c.params.n = 21;
  c.params.mode = core::Mode::boards;
  // What it would take (it said "petabytes"): 314,666,222,712 boards at ~3.4 bytes, and the
  // journal's N bytes a completion (an eighth of them).
  EXPECT_EQ(finalize_error(c),
            "boards mode stores every solution, up to N = 20; N = 21 has about 3.1e+11 solutions: ~1.1 TB of result "
            "file, and ~826 GB of journal beside it (use count mode)");
  c.params.n = 8;
  c.audit = -0.5;
  EXPECT_NE(finalize_error(c).find("--audit must be a number from 0 to 1"), std::string::npos);
  c.audit = 0;
  c.checkpoint_interval = 4000;
  EXPECT_EQ(finalize_error(c), "--checkpoint-interval must be a number of seconds in (0, 3600]");
}

TEST_F(JobFile, FinalizeNamesTheJobFilesKeyWhereTheValueIsTheFiles) {
  // It named the flag (or nothing) for a value the user had put in the job file.
  const std::string path = job("n = 10\ndepth = 11\nout = \"results/\"\n");
  JobConfig c = app::read_job_file(path);
  EXPECT_EQ(finalize_error(c), "depth 11 (key 'depth' of job file " + path +
                                   ") exceeds N = 10: give a depth of at most N, or none for the default");
  c.params.n = 1;   // as --n 1 sets it: the flag's value is no longer the file's
  c.file_keys.erase("n");
  EXPECT_EQ(finalize_error(c), "depth 11 (key 'depth' of job file " + path +
                                   ") exceeds N = 1 (--n): give a depth of at most N, or none for the default");
  c.params.depth = 0;
  EXPECT_EQ(finalize_error(c), "out 'results/' (key 'out' of job file " + path +
                                   ") ends with '/': give the result file's path (e.g. results/result.h5)");
  c.file_keys.erase("out");
  EXPECT_NE(finalize_error(c).find("--out 'results/' ends with '/'"), std::string::npos);
}

TEST(JobConfig, AShardFlagIsAUsageErrorNamingTheFlag) {
  EXPECT_EQ(app::parse_shard("3/8", "--shard"), (core::Shard{3, 8}));
  EXPECT_EQ(usage_error([] { app::parse_shard("1/0", "--shard"); }),
            "--shard: shard '1/0' must be i/n with 0 <= i < n <= 2147483647 (e.g. 0/4)");
}
