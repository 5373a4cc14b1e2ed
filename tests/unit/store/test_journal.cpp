// The restart journal: round trips, recovery after a crash, damage, parameter checks, errors.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include "store/journal.h"
#include "store_test_util.h"

using namespace nq::store;
using nq::store::test::run_in_child;
using nq::store::test::slurp;
using nq::store::test::spit;
namespace stdfs = std::filesystem;

namespace {

JournalKey key_for(const std::string& boards_stored) {
  JournalKey k;
  k.params = nq::store::test::params_for(6, boards_stored);
  k.params.depth = 2;
  k.params.symmetry = nq::core::Symmetry::mirror;
  k.params.shard = {1, 3};
  k.units_total = 20;
  k.program_version = "0.1.0";
  return k;
}

UnitRecord unit(std::uint64_t id) {
  UnitRecord u;
  u.id = id;
  u.placement[0] = static_cast<std::uint8_t>(id % 6);
  u.placement[1] = static_cast<std::uint8_t>((id + 2) % 6);
  u.multiplicity = 2;
  u.solutions = id * 3;
  u.nodes = 1000 + id;
  u.seconds = 0.5 + static_cast<double>(id);
  u.started = 1.7e9 + static_cast<double>(id);
  u.rank = static_cast<std::int32_t>(id % 4);
  u.thread = -1;
  return u;
}

// A unit's boards and class sizes: `k` boards with recognisable bytes.
struct Boards {
  std::vector<std::uint8_t> boards, class_sizes;
};
Boards boards_of(std::uint64_t id, std::size_t k, bool classes) {
  Boards b;
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t r = 0; r < 6; ++r) b.boards.push_back(static_cast<std::uint8_t>((id + i + r) % 6));
    if (classes) b.class_sizes.push_back(static_cast<std::uint8_t>(i % 2 ? 8 : 4));
  }
  return b;
}

// Size of one record on disk: frame 12 + fixed payload 92 + boards + class sizes.
std::size_t record_size(std::size_t k, bool classes) { return 12 + 92 + k * 6 + (classes ? k : 0); }

struct Seen {
  UnitRecord unit;
  std::vector<std::uint8_t> boards, class_sizes;
};
std::vector<Seen> all_records(const Journal& j) {
  std::vector<Seen> out;
  j.for_each_record([&](const UnitRecord& u, std::span<const std::uint8_t> b, std::span<const std::uint8_t> c) {
    out.push_back({u, {b.begin(), b.end()}, {c.begin(), c.end()}});
  });
  return out;
}

class JournalTest : public nq::store::test::TempDirTest {
 protected:
  // A class-mode journal with three units of 2, 3 and 4 boards; returns the header size.
  std::size_t write_three(const std::string& path) {
    std::size_t header = 0;
    Journal j(path, key_for("class"));
    header = stdfs::file_size(path);
    for (std::uint64_t id : {3, 7, 9}) {
      const Boards b = boards_of(id, id == 3 ? 2 : id == 7 ? 3 : 4, true);
      j.append(unit(id), b.boards, b.class_sizes);
    }
    j.sync();
    return header;
  }
  void flip_byte(const std::string& path, std::size_t offset) {
    std::string bytes = slurp(path);
    bytes[offset] = static_cast<char>(bytes[offset] ^ 0x40);
    spit(path, bytes);
  }
};

}  // namespace

TEST_F(JournalTest, NewJournalStartsEmptyWithOnlyAHeader) {
  const Journal j(file("run.journal"), key_for("all"));
  EXPECT_TRUE(j.recovered().empty());
  EXPECT_EQ(j.dropped_tail_bytes(), 0u);
  EXPECT_TRUE(all_records(j).empty());
  EXPECT_GT(stdfs::file_size(file("run.journal")), 16u);
  EXPECT_EQ(listing(), std::vector<std::string>{"run.journal"});
}

TEST_F(JournalTest, RecordsWithBoardsAndClassSizesRoundTripBeforeAndAfterReopening) {
  const std::string path = file("run.journal");
  std::vector<Seen> expected;
  {
    Journal j(path, key_for("class"));
    for (std::uint64_t id : {4, 1, 11}) {   // any order: the journal keeps file order
      const Boards b = boards_of(id, id, true);
      j.append(unit(id), b.boards, b.class_sizes);
      expected.push_back({unit(id), b.boards, b.class_sizes});
    }
    const auto seen = all_records(j);   // includes the buffered, unsynced records
    ASSERT_EQ(seen.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(seen[i].unit, expected[i].unit);
      EXPECT_EQ(seen[i].boards, expected[i].boards);
      EXPECT_EQ(seen[i].class_sizes, expected[i].class_sizes);
    }
    j.sync();
  }
  const Journal j(path, key_for("class"));
  ASSERT_EQ(j.recovered().size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(j.recovered()[i], expected[i].unit);
  EXPECT_EQ(j.dropped_tail_bytes(), 0u);
  const auto seen = all_records(j);
  ASSERT_EQ(seen.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(seen[i].unit, expected[i].unit);
    EXPECT_EQ(seen[i].boards, expected[i].boards);
    EXPECT_EQ(seen[i].class_sizes, expected[i].class_sizes);
  }
}

TEST_F(JournalTest, CountModeRecordsCarryNoBoards) {
  {
    Journal j(file("run.journal"), key_for("none"));
    for (std::uint64_t id = 0; id < 5; ++id) j.append(unit(id), {}, {});
    const std::vector<std::uint8_t> board{0, 2, 4, 1, 3, 5};
    EXPECT_THROW(j.append(unit(5), board, {}), std::invalid_argument);
  }   // the destructor writes the buffer out
  const Journal j(file("run.journal"), key_for("none"));
  ASSERT_EQ(j.recovered().size(), 5u);
  EXPECT_EQ(j.recovered()[4], unit(4));
  for (const Seen& s : all_records(j)) EXPECT_TRUE(s.boards.empty() && s.class_sizes.empty());
}

TEST_F(JournalTest, ReopenedJournalAppendsAfterTheRecoveredRecords) {
  const std::string path = file("run.journal");
  write_three(path);
  {
    Journal j(path, key_for("class"));
    ASSERT_EQ(j.recovered().size(), 3u);
    const Boards b = boards_of(12, 1, true);
    j.append(unit(12), b.boards, b.class_sizes);
    j.sync();
  }
  const Journal j(path, key_for("class"));
  ASSERT_EQ(j.recovered().size(), 4u);
  EXPECT_EQ(j.recovered()[3], unit(12));
  EXPECT_EQ(all_records(j)[3].boards, boards_of(12, 1, true).boards);
}

TEST_F(JournalTest, AppendRejectsBoardsThatDoNotFitTheKey) {
  Journal j(file("run.journal"), key_for("class"));
  const Boards b = boards_of(1, 2, true);
  EXPECT_THROW(j.append(unit(1), std::span(b.boards).first(7), b.class_sizes), std::invalid_argument);
  EXPECT_THROW(j.append(unit(1), b.boards, {}), std::invalid_argument);
  Journal all(file("all.journal"), key_for("all"));
  EXPECT_THROW(all.append(unit(1), b.boards, b.class_sizes), std::invalid_argument);
}

TEST_F(JournalTest, TruncatedLastRecordIsCutOffAndReported) {
  const std::string path = file("run.journal");
  const std::size_t header = write_three(path);
  const std::size_t good = header + record_size(2, true) + record_size(3, true);
  const std::size_t full = good + record_size(4, true);
  ASSERT_EQ(stdfs::file_size(path), full);
  for (const std::size_t cut : {std::size_t{1}, std::size_t{10}, record_size(4, true) - 1}) {
    write_three(file("fresh.journal"));
    stdfs::copy_file(file("fresh.journal"), path, stdfs::copy_options::overwrite_existing);
    stdfs::remove(file("fresh.journal"));
    stdfs::resize_file(path, full - cut);
    Journal j(path, key_for("class"));
    ASSERT_EQ(j.recovered().size(), 2u) << "cut " << cut;
    EXPECT_EQ(j.recovered()[1], unit(7));
    EXPECT_EQ(j.dropped_tail_bytes(), record_size(4, true) - cut);
    EXPECT_EQ(stdfs::file_size(path), good);
    const Boards b = boards_of(9, 4, true);   // the lost unit is redone and appended cleanly
    j.append(unit(9), b.boards, b.class_sizes);
    j.sync();
  }
  const Journal j(path, key_for("class"));
  EXPECT_EQ(j.recovered().size(), 3u);
  EXPECT_EQ(j.dropped_tail_bytes(), 0u);
}

TEST_F(JournalTest, GarbledChecksumOrLengthOfTheLastRecordIsATornTail) {
  const std::string path = file("run.journal");
  const std::size_t header = write_three(path);
  const std::size_t last = header + record_size(2, true) + record_size(3, true);
  const std::string pristine = slurp(path);
  for (const std::size_t offset : {pristine.size() - 1, last + 5, last + 200 % record_size(4, true)}) {
    spit(path, pristine);
    flip_byte(path, offset);
    const Journal j(path, key_for("class"));
    EXPECT_EQ(j.recovered().size(), 2u) << "byte " << offset;
    EXPECT_EQ(j.dropped_tail_bytes(), record_size(4, true));
    EXPECT_EQ(stdfs::file_size(path), last);
  }
}

TEST_F(JournalTest, CorruptRecordInTheMiddleIsCorruptJournalNamingItsOffset) {
  const std::string path = file("run.journal");
  const std::size_t header = write_three(path);
  const std::size_t second = header + record_size(2, true);
  const std::string pristine = slurp(path);
  // A flipped board byte (crc mismatch), a flipped length (resync finds the next record), a
  // flipped magic.
  for (const std::size_t offset : {second + 8 + 95, second + 5, second + 1}) {
    spit(path, pristine);
    flip_byte(path, offset);
    try {
      Journal j(path, key_for("class"));
      FAIL() << "byte " << offset;
    } catch (const CorruptJournal& e) {
      EXPECT_NE(std::string(e.what()).find("offset " + std::to_string(second)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("move it away to recompute those units"), std::string::npos) << e.what();
    }
    EXPECT_EQ(stdfs::file_size(path), pristine.size()) << "a corrupt journal must not be truncated";
    // The dry run's read without a lock judges it the same way.
    EXPECT_THROW(Journal::read_records(path, key_for("class"), [](const UnitRecord&) {}), CorruptJournal) << offset;
  }
}

TEST_F(JournalTest, DifferentJobParametersAreAParameterMismatchNamingTheFields) {
  const std::string path = file("run.journal");
  write_three(path);
  JournalKey k = key_for("class");
  k.params.depth = 3;
  try {
    Journal j(path, k);
    FAIL();
  } catch (const ParameterMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("depth is 2 in the journal, 3 now"), std::string::npos) << e.what();
  }
  k = key_for("class");
  k.program_version = "0.2.0";
  k.params.boards = nq::core::BoardSet::all;
  try {
    Journal j(path, k);
    FAIL();
  } catch (const ParameterMismatch& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("boards_stored is 'class' in the journal, 'all' now"), std::string::npos) << what;
    EXPECT_NE(what.find("program_version is '0.1.0' in the journal, '0.2.0' now"), std::string::npos) << what;
  }
  EXPECT_EQ(Journal(path, key_for("class")).recovered().size(), 3u);   // untouched
}

TEST_F(JournalTest, CheckKeyJudgesTheHeaderAsOpeningDoesWithoutLockingOrChangingIt) {
  const std::string path = file("run.journal");
  write_three(path);
  const auto before = slurp(path);
  const Journal held(path, key_for("class"));   // a run holds its lock: check_key takes none
  EXPECT_NO_THROW(Journal::check_key(path, key_for("class")));
  JournalKey k = key_for("class");
  k.params.depth = 3;
  try {
    Journal::check_key(path, k);
    FAIL();
  } catch (const ParameterMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("depth is 2 in the journal, 3 now"), std::string::npos) << e.what();
  }
  spit(file("text"), "hello, this is a text file and not a journal at all\n");
  EXPECT_THROW(Journal::check_key(file("text"), key_for("class")), CorruptJournal);
  EXPECT_THROW(Journal::check_key(file("missing"), key_for("class")), CorruptJournal);
  EXPECT_EQ(slurp(path), before);
}

TEST_F(JournalTest, ReadRecordsHandsOverTheValidRecordsUpToATornTailWithoutLockingOrChangingAnything) {
  const std::string path = file("run.journal");
  write_three(path);
  const auto ids = [&](const JournalKey& k) {
    std::vector<UnitRecord> seen;
    Journal::read_records(path, k, [&](const UnitRecord& u) { seen.push_back(u); });
    return seen;
  };
  {
    const Journal held(path, key_for("class"));   // a run holds its lock: read_records takes none
    EXPECT_EQ(ids(key_for("class")), (std::vector<UnitRecord>{unit(3), unit(7), unit(9)}));
  }
  stdfs::resize_file(path, stdfs::file_size(path) - 5);   // a torn last record: the others, and no cut
  const auto torn = slurp(path);
  EXPECT_EQ(ids(key_for("class")), (std::vector<UnitRecord>{unit(3), unit(7)}));
  EXPECT_EQ(slurp(path), torn);
  JournalKey other = key_for("class");
  other.params.depth = 3;
  EXPECT_THROW(ids(other), ParameterMismatch);   // the header judged as check_key does
  stdfs::remove(path);
  EXPECT_THROW(ids(key_for("class")), CorruptJournal);
}

TEST_F(JournalTest, FileThatIsNotAJournalIsCorruptJournal) {
  spit(file("text"), "hello, this is a text file and not a journal at all\n");
  EXPECT_THROW(Journal(file("text"), key_for("all")), CorruptJournal);
  spit(file("empty"), "");
  EXPECT_THROW(Journal(file("empty"), key_for("all")), CorruptJournal);
  write_three(file("run.journal"));
  flip_byte(file("run.journal"), 20);   // inside the key: header checksum
  try {
    Journal j(file("run.journal"), key_for("class"));
    FAIL();
  } catch (const CorruptJournal& e) {
    EXPECT_NE(std::string(e.what()).find("not an nqueens journal"), std::string::npos) << e.what();
    // its remedy, not that of a record damaged in the middle (session 47)
    EXPECT_NE(std::string(e.what()).find("move it away, or pass --force to discard it"), std::string::npos) << e.what();
  }
  // A FIFO (or socket, device) where the journal goes is no journal to read: WriteError, exit 4
  // (a FIFO read as a journal said "Illegal seek ... damaged before its last record").
  ASSERT_EQ(::mkfifo(file("fifo").c_str(), 0600), 0);
  EXPECT_THROW(Journal(file("fifo"), key_for("all")), WriteError);
  EXPECT_THROW(Journal::exists_at(file("fifo")), WriteError);
  EXPECT_FALSE(Journal::exists_at(file("none")));
  EXPECT_TRUE(Journal::exists_at(file("empty")));
}

TEST_F(JournalTest, AJournalOfAnotherVersionIsRefusedAndLeftAsItIs) {
  // Version 1 journals held all-mode images beside the completions: an older journal is a
  // ParameterMismatch (resume it with the nqueens that wrote it, or --force), a newer one corrupt.
  const std::string path = file("run.journal");
  write_three(path);
  std::string bytes = slurp(path);
  bytes[8] = 1;   // version u32 at offset 8, little-endian
  spit(path, bytes);
  try {
    Journal j(path, key_for("class"));
    FAIL();
  } catch (const ParameterMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("has journal version 1, written by an earlier nqueens; this one reads version 2"),
              std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(path), bytes);   // untouched
  bytes[8] = 3;
  spit(path, bytes);
  EXPECT_THROW(Journal(path, key_for("class")), CorruptJournal);
}

TEST_F(JournalTest, SecondOpenOfAJournalInUseIsRefusedEvenToDiscardItAndTheProbeSaysSo) {
  // A second run of the same job (the flock is per open file, so one process can play both).
  const std::string path = file("run.journal");
  {
    Journal first(path, key_for("all"));
    const Boards b = boards_of(4, 2, false);
    first.append(unit(4), b.boards, {});
    first.sync();
    struct stat before {};
    ASSERT_EQ(::stat(path.c_str(), &before), 0);
    EXPECT_THROW(Journal(path, key_for("all")), JournalInUse);
    EXPECT_THROW(Journal(path, key_for("class"), {}, Journal::Open::resume_or_discard), JournalInUse);   // --force
    EXPECT_THROW(Journal::check_not_in_use(path), JournalInUse);   // what `run --dry-run` finds
    struct stat after {};
    ASSERT_EQ(::stat(path.c_str(), &after), 0);
    EXPECT_EQ(after.st_ino, before.st_ino);   // still the first run's file, not removed or replaced
    first.append(unit(5), b.boards, {});      // which goes on working
  }
  EXPECT_NO_THROW(Journal::check_not_in_use(path));   // no run holds it now, and the probe keeps no lock:
  EXPECT_NO_THROW(Journal::check_not_in_use(file("none.journal")));
  const Journal again(path, key_for("all"));
  ASSERT_EQ(again.recovered().size(), 2u);
  EXPECT_EQ(again.recovered()[0], unit(4));
  EXPECT_EQ(again.recovered()[1], unit(5));
  EXPECT_EQ(listing(), std::vector<std::string>{"run.journal"});
}

// --force: this job's finished units are kept (a forced run that was stopped resumes, and a
// requeued one too); a journal of other parameters, or not a journal at all, starts over.
TEST_F(JournalTest, ResumeOrDiscardKeepsThisJobsJournalAndStartsOverAnyOtherNoRunHolds) {
  const std::string path = file("run.journal");
  write_three(path);
  EXPECT_TRUE(Journal::is_of(path, key_for("class")));
  EXPECT_EQ(Journal(path, key_for("class"), {}, Journal::Open::resume_or_discard).recovered().size(), 3u);
  EXPECT_FALSE(Journal::is_of(path, key_for("all")));   // other parameters: gone
  EXPECT_TRUE(Journal(path, key_for("all"), {}, Journal::Open::resume_or_discard).recovered().empty());
  EXPECT_TRUE(Journal::is_of(path, key_for("all")));    // a new one of this job
  EXPECT_THROW(Journal(path, key_for("class")), ParameterMismatch);
  spit(path, "not a journal");
  EXPECT_FALSE(Journal::is_of(path, key_for("class")));
  EXPECT_THROW(Journal(path, key_for("class")), CorruptJournal);
  EXPECT_TRUE(Journal(path, key_for("class"), {}, Journal::Open::resume_or_discard).recovered().empty());
  EXPECT_TRUE(Journal(path, key_for("class")).recovered().empty());
  EXPECT_FALSE(Journal::is_of(file("none.journal"), key_for("class")));
  EXPECT_EQ(listing(), std::vector<std::string>{"run.journal"});
}

TEST_F(JournalTest, MissingDirectoryIsAWriteError) {
  EXPECT_THROW(Journal(file("missing/run.journal"), key_for("all")), WriteError);
}

TEST_F(JournalTest, DiskFullIsAWriteErrorAndTheSyncedRecordsSurvive) {
  // RLIMIT_FSIZE makes write() fail (EFBIG) as a full disk (ENOSPC) would.
  const std::string path = file("run.journal");
  const int rc = run_in_child({.file_size_limit = 64 * 1024}, [&] {
    Journal j(path, key_for("all"));
    const Boards small = boards_of(1, 10, false);
    j.append(unit(1), small.boards, {});
    j.sync();
    try {
      for (std::uint64_t id = 2; id < 100; ++id) {
        const Boards b = boards_of(id, 1000, false);   // 6 KB each: the limit is hit at id ~12
        j.append(unit(id), b.boards, {});
      }
      j.sync();
      return 1;
    } catch (const WriteError& e) {
      const std::string what = e.what();
      if (what.find("File too large") == std::string::npos) return 2;
    }
    try {
      j.append(unit(200), small.boards, {});   // a failed journal refuses more records
      return 3;
    } catch (const WriteError&) {
    }
    return 0;
  });
  ASSERT_EQ(rc, 0);
  const Journal j(path, key_for("all"));
  ASSERT_GE(j.recovered().size(), 1u);
  EXPECT_EQ(j.recovered()[0], unit(1));
  for (std::size_t i = 0; i < j.recovered().size(); ++i) EXPECT_EQ(j.recovered()[i].id, i + 1);
}

TEST_F(JournalTest, RemoveDeletesTheFile) {
  Journal j(file("run.journal"), key_for("none"));
  j.append(unit(1), {}, {});
  j.remove();
  EXPECT_TRUE(listing().empty());
  EXPECT_THROW(j.append(unit(2), {}, {}), std::logic_error);
}

TEST_F(JournalTest, LargeRecordsBypassTheBufferAndStillRoundTrip) {
  const Boards big = boards_of(5, 300'000, true);   // ~2 MB record, larger than the buffer
  {
    Journal j(file("run.journal"), key_for("class"));
    const Boards small = boards_of(4, 3, true);
    j.append(unit(4), small.boards, small.class_sizes);
    j.append(unit(5), big.boards, big.class_sizes);
    j.append(unit(6), small.boards, small.class_sizes);
    j.sync();
  }
  const Journal j(file("run.journal"), key_for("class"));
  const auto seen = all_records(j);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[1].unit, unit(5));
  EXPECT_EQ(seen[1].boards, big.boards);
  EXPECT_EQ(seen[1].class_sizes, big.class_sizes);
  EXPECT_EQ(seen[2].unit, unit(6));
}

TEST_F(JournalTest, RecoveredRecordsCanBeTakenOverWithoutACopy) {
  write_three(file("j"));
  const auto kept = Journal(file("j"), key_for("class")).recovered();
  std::vector<UnitRecord> taken;
  Journal j(file("j"), key_for("class"), {}, Journal::Open::resume, [&](const UnitRecord& r) { taken.push_back(r); });
  ASSERT_EQ(taken.size(), 3u);
  EXPECT_EQ(taken[1], unit(7));
  EXPECT_EQ(taken, kept);
  EXPECT_TRUE(j.recovered().empty());
  EXPECT_EQ(j.recovered_count(), 3u);
}

TEST_F(JournalTest, ARecordTheCallerRefusesEndsTheOpenAndLeavesTheJournalUnlocked) {
  write_three(file("j"));
  int seen = 0;
  EXPECT_THROW(Journal(file("j"), key_for("class"), {}, Journal::Open::resume,
                       [&](const UnitRecord&) {
                         if (++seen == 2) throw std::runtime_error("not this job's unit");
                       }),
               std::runtime_error);
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(Journal(file("j"), key_for("class")).recovered().size(), 3u);   // not held, not changed
}

TEST_F(JournalTest, AJournalOfManyWindowsReadsBackWholeAndFindsATornTailOrACorruptRecordPastTheFirstWindow) {
  // ~40,000 records of 104 bytes and some of 5-100 KB: 4+ MiB, records across every 1 MiB
  // boundary of the scan's window, and records larger than a quarter window.
  JournalKey k = key_for("all");
  k.params.shard = {};
  k.units_total = 40000;
  const std::string path = file("j");
  const auto boards_of_unit = [](std::uint64_t id) {
    return boards_of(id, id % 997 == 0 ? 500 + (id * 7919) % 60000 : 0, false);   // up to 360 KB
  };
  std::vector<std::size_t> offsets;   // of each record
  {
    Journal j(path, k);
    std::size_t at = stdfs::file_size(path);
    for (std::uint64_t id = 0; id < 40000; ++id) {
      offsets.push_back(at);
      const Boards b = boards_of_unit(id);
      j.append(unit(id), b.boards, {});
      at += record_size(b.boards.size() / 6, false);
    }
    j.sync();
  }
  const std::string pristine = slurp(path);
  ASSERT_GT(pristine.size(), std::size_t{4} << 20);
  {
    const Journal j(path, k);
    ASSERT_EQ(j.recovered().size(), 40000u);
    for (std::uint64_t id = 0; id < 40000; id += 1231) EXPECT_EQ(j.recovered()[id], unit(id));
    const auto seen = all_records(j);
    ASSERT_EQ(seen.size(), 40000u);
    for (std::uint64_t id = 0; id < 40000; id += 997) EXPECT_EQ(seen[id].boards, boards_of_unit(id).boards);
  }
  const std::size_t middle = offsets[30000];   // past 3 MiB
  ASSERT_GT(middle, std::size_t{3} << 20);
  flip_byte(path, middle + 50);
  EXPECT_THROW(Journal(path, k), CorruptJournal);
  spit(path, pristine.substr(0, pristine.size() - 3));   // the last record torn
  const Journal torn(path, k);
  EXPECT_EQ(torn.recovered().size(), 39999u);
  EXPECT_EQ(stdfs::file_size(path), offsets.back());
}

TEST_F(JournalTest, ScanningALongJournalStopsWhenAsked) {
  JournalKey k = key_for("none");
  k.params.shard = {};
  k.units_total = 10000;
  {
    Journal j(file("j"), k);
    for (std::uint64_t id = 0; id < 10000; ++id) j.append(unit(id), {}, {});
    j.sync();
  }
  const auto before = slurp(file("j"));
  try {
    Journal j(file("j"), k, [] { return true; });
    FAIL() << "not interrupted";
  } catch (const nq::core::Interrupted& e) {
    EXPECT_EQ(e.phase(), "reading the journal");
  }
  EXPECT_EQ(slurp(file("j")), before);   // nothing changed
  Journal again(file("j"), k, [] { return false; });
  EXPECT_EQ(again.recovered().size(), 10000u);
}
