// Result files: round trips, the on-disk schema other tools see, atomic publication, errors.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <chrono>
#include <cstdio>
#include <numeric>
#include "core/boards.h"
#include "core/known_counts.h"
#include "core/units.h"
#include "store/chunks.h"
#include "store/result_file.h"
#include "store_test_util.h"

using namespace nq;
using namespace nq::store;
using nq::store::test::params_for;
using nq::store::test::ChildOptions;
using nq::store::test::run_in_child;
using nq::store::test::slurp;
using nq::store::test::spit;
namespace stdfs = std::filesystem;


namespace {

// A real job: the units of a plan, their boards, and the RunInfo that goes with them.
struct Job {
  RunInfo info;
  std::vector<UnitRecord> units;
  std::vector<std::uint8_t> boards, class_sizes;
  std::vector<std::uint64_t> unit_ids;
};

Job make_job(int n, int depth, const std::string& boards_stored) {
  Job j;
  const core::UnitPlan plan(n, depth, core::Symmetry::mirror);
  std::uint64_t total = 0;
  for (const core::WorkUnit& wu : plan.units()) {
    UnitRecord r;
    r.id = wu.id;
    r.placement = wu.placement;
    r.multiplicity = wu.multiplicity;
    core::SearchStats st;
    if (boards_stored == "none") {
      st = plan.count(wu);
    } else {
      const auto set = boards_stored == "all" ? core::BoardSet::all : core::BoardSet::classes;
      st = core::visit_unit_boards(plan, wu, set, [&](core::BoardView b, int cs) {
        j.boards.insert(j.boards.end(), b.begin(), b.end());
        j.unit_ids.push_back(wu.id);
        if (boards_stored == "class") j.class_sizes.push_back(static_cast<std::uint8_t>(cs));
      });
    }
    r.solutions = st.solutions;
    r.nodes = st.nodes;
    r.seconds = 0.25 * static_cast<double>(wu.id + 1);
    r.started = 1.7e9 + static_cast<double>(wu.id);
    r.rank = static_cast<std::int32_t>(wu.id % 3);
    r.thread = static_cast<std::int32_t>(wu.id % 2);
    total += r.multiplicity * r.solutions;
    j.units.push_back(r);
  }
  const auto known = core::known_counts(n);
  RunInfo& i = j.info;
  i.program_version = "0.1.0";
  i.git_commit = "0123abcd";
  i.params = params_for(n, boards_stored);
  i.params.depth = depth;
  i.params.symmetry = core::Symmetry::mirror;
  i.ranks = 3;
  i.threads = 2;
  i.hosts = "node1,node2";
  i.start_time = "2024-05-01T10:00:00Z";
  i.end_time = "2024-05-01T10:00:02Z";
  i.wall_seconds = 2.5;
  i.status = Status::complete;
  i.units_total = j.units.size();
  i.units_done = j.units.size();
  i.total = total;
  i.unique = known->unique;
  i.rot180_fixed = known->rot180_fixed;
  i.rot90_fixed = known->rot90_fixed;
  i.known_total = static_cast<std::int64_t>(known->total);
  i.known_unique = static_cast<std::int64_t>(known->unique);
  i.matches_known = core::KnownMatch::match;
  return j;
}

void write_job(const std::string& path, const Job& j) {
  ResultWriter w(path, j.info.params);
  w.append_units(j.units);
  if (j.info.params.boards_mode()) w.append_boards(j.boards, j.class_sizes, j.unit_ids);
  w.commit(j.info);
}

// Owned HDF5 id for direct inspection of the files.
struct Id {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Id() {
    if (id >= 0) close(id);
  }
};

std::vector<H5Z_filter_t> filters_of(const std::string& path, const char* dataset) {
  Id f{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  Id d{H5Dopen2(f.id, dataset, H5P_DEFAULT), H5Dclose};
  Id p{H5Dget_create_plist(d.id), H5Pclose};
  std::vector<H5Z_filter_t> out;
  for (int i = 0; i < H5Pget_nfilters(p.id); ++i) {
    unsigned flags = 0, cd[8], config = 0;
    std::size_t ncd = 8;
    char name[64];
    out.push_back(H5Pget_filter2(p.id, static_cast<unsigned>(i), &flags, &ncd, cd, sizeof name, name, &config));
  }
  return out;
}

class ResultFile : public nq::store::test::TempDirTest {
 protected:
  // What a Python script (h5py, /usr/bin/python3) prints about the file `h5` (its argv[1]).
  std::string python_output(const std::string& script, const std::string& h5) {
    const std::string out = file("py.txt");
    spit(file("check.py"), script);
    const int rc = std::system((std::string(NQ_PYTHON) + " '" + file("check.py") + "' '" + h5 + "' > '" + out +
                                "' 2>&1").c_str());
    EXPECT_EQ(rc, 0) << slurp(out);
    return slurp(out);
  }
};

// Commits a writer whose `count` boards came from units of 1000 boards each (unit u holds boards
// 1000u..1000u+999): the unit table and a complete run's attributes.
void commit_units_of_1000_boards(ResultWriter& w, int n, const char* boards_stored, std::uint64_t count) {
  std::vector<UnitRecord> units(count / 1000);
  for (std::size_t u = 0; u < units.size(); ++u) {
    units[u].id = u;
    units[u].solutions = 1000;
  }
  w.append_units(units);
  RunInfo info;
  info.params = params_for(n, boards_stored);
  info.status = Status::complete;
  info.units_total = info.units_done = units.size();
  info.total = count;
  w.commit(info);
}

}  // namespace

TEST_F(ResultFile, RoundTripKeepsAttributesUnitsAndEveryBoard) {
  const Job j = make_job(8, 2, "all");
  ASSERT_EQ(j.info.total, 92u);
  ASSERT_EQ(j.unit_ids.size(), 92u);
  write_job(file("out.h5"), j);

  const ResultReader r(file("out.h5"));
  EXPECT_EQ(r.info(), j.info);
  EXPECT_EQ(r.units(), j.units);
  ASSERT_EQ(r.board_count(), 92u);
  std::vector<std::uint8_t> boards, cls;
  std::vector<std::uint64_t> ids;
  r.read_boards(0, 92, boards, cls, ids);
  EXPECT_EQ(boards, j.boards);
  EXPECT_EQ(ids, j.unit_ids);
  EXPECT_TRUE(cls.empty());
  for (std::size_t b = 0; b < 92; ++b)
    EXPECT_TRUE(core::is_solution(std::span(boards).subspan(b * 8, 8))) << b;
}

TEST_F(ResultFile, UnitsCompressedInBatchesOnEveryCoreReadBackWhole) {
  // N = 14, depth 5, full: 286,996 units, more than one batch of 64 chunks of 4096 rows, the
  // last chunk short; each column's values vary, so a chunk written at the wrong place shows.
  const core::UnitPlan plan(14, 5, core::Symmetry::full);
  RunInfo info;
  info.params = params_for(14, "none");
  info.params.depth = 5;
  info.params.symmetry = core::Symmetry::full;
  info.status = Status::partial;
  std::vector<UnitRecord> units;
  for (const core::WorkUnit& wu : plan.units()) {
    UnitRecord r;
    r.id = wu.id;
    r.placement = wu.placement;
    r.multiplicity = wu.multiplicity;
    r.solutions = wu.id % 13;
    r.nodes = wu.id * 3 + 1;
    r.seconds = 1e-3 * static_cast<double>(wu.id % 1000);
    r.started = 1.8e9 + static_cast<double>(wu.id) / 7;
    r.rank = static_cast<std::int32_t>(1 + wu.id % 5);
    r.thread = static_cast<std::int32_t>(wu.id % 3);
    core::add_product(info.total, r.multiplicity, r.solutions);
    units.push_back(r);
  }
  ASSERT_GT(units.size(), 64u * 4096u);
  ASSERT_NE(units.size() % 4096, 0u);
  info.units_total = info.units_done = units.size();
  {
    ResultWriter w(file("big.h5"), info.params);
    for (std::size_t i = 0; i < units.size(); i += 10000)   // slices that cross the batches
      w.append_units(std::span(units).subspan(i, std::min<std::size_t>(10000, units.size() - i)));
    w.commit(info);
  }
  const ResultReader r(file("big.h5"));
  EXPECT_EQ(r.info().total, info.total);
  EXPECT_EQ(r.units(), units);
  std::vector<UnitRecord> visited;   // in slices of kUnitSlice rows, the last one short
  ASSERT_GT(units.size(), 2 * ResultReader::kUnitSlice);
  ASSERT_NE(units.size() % ResultReader::kUnitSlice, 0u);
  r.for_each_unit([&](const UnitRecord& u) { visited.push_back(u); });
  EXPECT_EQ(visited, units);
}

TEST_F(ResultFile, UnitsReadInSlicesAreTheRowsWrittenAndNoRowPastTheEnd) {
  const Job j = make_job(10, 3, "none");
  ASSERT_GT(j.units.size(), 40u);
  write_job(file("out.h5"), j);
  const ResultReader r(file("out.h5"));
  ASSERT_EQ(r.unit_count(), j.units.size());
  std::vector<UnitRecord> slice, all;
  for (std::uint64_t start = 0; start < r.unit_count(); start += 7) {   // the last slice is short
    r.read_units(start, std::min<std::uint64_t>(7, r.unit_count() - start), slice);
    all.insert(all.end(), slice.begin(), slice.end());
  }
  EXPECT_EQ(all, j.units);
  r.read_units(r.unit_count(), 0, slice);
  EXPECT_TRUE(slice.empty());
  EXPECT_THROW(r.read_units(r.unit_count(), 1, slice), std::out_of_range);
  EXPECT_THROW(r.read_units(r.unit_count() - 5, 6, slice), std::out_of_range);
}

TEST_F(ResultFile, RoundTripKeepsClassRepresentativesAndClassSizes) {
  const Job j = make_job(8, 3, "class");
  write_job(file("out.h5"), j);
  const ResultReader r(file("out.h5"));
  EXPECT_EQ(r.info(), j.info);
  EXPECT_EQ(r.units(), j.units);
  ASSERT_EQ(r.board_count(), 12u);   // unique(8)
  std::vector<std::uint8_t> boards, cls;
  std::vector<std::uint64_t> ids;
  r.read_boards(0, 12, boards, cls, ids);
  EXPECT_EQ(boards, j.boards);
  EXPECT_EQ(cls, j.class_sizes);
  EXPECT_EQ(ids, j.unit_ids);
  EXPECT_EQ(std::accumulate(cls.begin(), cls.end(), 0u), 92u);
}

TEST_F(ResultFile, CountModeFileHasUnitsButNoBoardsGroup) {
  const Job j = make_job(10, 3, "none");
  write_job(file("out.h5"), j);
  const ResultReader r(file("out.h5"));
  EXPECT_EQ(r.info(), j.info);
  EXPECT_EQ(r.units(), j.units);
  EXPECT_EQ(r.board_count(), 0u);
  Id f{H5Fopen(file("out.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  EXPECT_EQ(H5Lexists(f.id, "boards", H5P_DEFAULT), 0);
  EXPECT_GT(H5Lexists(f.id, "units", H5P_DEFAULT), 0);
}

TEST_F(ResultFile, PlacementIsOneColumnPerRowWith255ForRowsLeftToTheSearch) {
  const Job j = make_job(6, 2, "none");
  write_job(file("out.h5"), j);
  Id f{H5Fopen(file("out.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  Id d{H5Dopen2(f.id, "/units/placement", H5P_DEFAULT), H5Dclose};
  Id s{H5Dget_space(d.id), H5Sclose};
  ASSERT_EQ(H5Sget_simple_extent_ndims(s.id), 2);
  hsize_t dims[2];
  H5Sget_simple_extent_dims(s.id, dims, nullptr);
  EXPECT_EQ(dims[0], j.units.size());
  EXPECT_EQ(dims[1], 6u);
  Id t{H5Dget_type(d.id), H5Tclose};
  EXPECT_EQ(H5Tget_class(t.id), H5T_INTEGER);
  EXPECT_EQ(H5Tget_size(t.id), 1u);
  EXPECT_EQ(H5Tget_sign(t.id), H5T_SGN_NONE);
  std::vector<std::uint8_t> raw(dims[0] * dims[1]);
  ASSERT_GE(H5Dread(d.id, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()), 0);
  for (std::size_t u = 0; u < dims[0]; ++u)
    for (std::size_t r = 0; r < 6; ++r)
      EXPECT_EQ(raw[u * 6 + r], r < 2 ? j.units[u].placement[r] : 255) << "unit " << u << " row " << r;
  EXPECT_EQ(H5Lexists(f.id, "/units/prefix", H5P_DEFAULT), 0);
}

TEST_F(ResultFile, BoardsAreShuffledDeflatedAndChecksummed) {
  write_job(file("out.h5"), make_job(8, 2, "class"));
  const std::vector<H5Z_filter_t> expected{H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32};
  EXPECT_EQ(filters_of(file("out.h5"), "/boards/solutions"), expected);
  EXPECT_EQ(filters_of(file("out.h5"), "/boards/class_size"), expected);
  EXPECT_EQ(filters_of(file("out.h5"), "/boards/unit"), expected);
  EXPECT_EQ(filters_of(file("out.h5"), "/units/solutions"), expected);
}

TEST_F(ResultFile, AttributesHaveTheContractTypes) {
  write_job(file("out.h5"), make_job(6, 2, "all"));
  Id f{H5Fopen(file("out.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  auto type_of = [&](const char* name, H5T_class_t cls, std::size_t size, int sign) {
    Id a{H5Aopen(f.id, name, H5P_DEFAULT), H5Aclose};
    ASSERT_GE(a.id, 0) << name;
    Id t{H5Aget_type(a.id), H5Tclose};
    Id s{H5Aget_space(a.id), H5Sclose};
    EXPECT_EQ(H5Sget_simple_extent_type(s.id), H5S_SCALAR) << name;
    EXPECT_EQ(H5Tget_class(t.id), cls) << name;
    if (cls == H5T_STRING) {
      EXPECT_EQ(H5Tis_variable_str(t.id), 0) << name;
    } else {
      EXPECT_EQ(H5Tget_size(t.id), size) << name;
      if (cls == H5T_INTEGER) {
        EXPECT_EQ(static_cast<int>(H5Tget_sign(t.id)), sign) << name;
      }
    }
  };
  for (const char* s : {"format", "program_version", "git_commit", "mode", "boards_stored", "symmetry", "hosts",
                        "start_time", "end_time", "status", "matches_known"})
    type_of(s, H5T_STRING, 0, 0);
  for (const char* s : {"format_version", "n", "depth", "ranks", "threads", "shard_index", "shard_count"})
    type_of(s, H5T_INTEGER, 4, H5T_SGN_2);
  for (const char* s : {"units_total", "units_done", "total", "unique", "rot180_fixed", "rot90_fixed", "total_hi",
                        "total_lo", "unique_hi", "unique_lo"})
    type_of(s, H5T_INTEGER, 8, H5T_SGN_NONE);
  for (const char* s : {"total_decimal", "unique_decimal"}) type_of(s, H5T_STRING, 0, 0);
  for (const char* s : {"known_total", "known_unique"}) type_of(s, H5T_INTEGER, 8, H5T_SGN_2);
  type_of("wall_seconds", H5T_FLOAT, 8, 0);
}

TEST_F(ResultFile, H5dumpReadsTheFile) {
  write_job(file("out.h5"), make_job(6, 2, "class"));
  const std::string header = file("header.txt"), attrs = file("attrs.txt");
  ASSERT_EQ(std::system((std::string(NQ_H5DUMP) + " -H '" + file("out.h5") + "' > '" + header + "' 2>&1").c_str()), 0)
      << slurp(header);
  EXPECT_NE(slurp(header).find("DATASET \"solutions\""), std::string::npos);
  ASSERT_EQ(std::system((std::string(NQ_H5DUMP) + " -a /format -a /total '" + file("out.h5") + "' > '" + attrs +
                         "' 2>&1").c_str()), 0)
      << slurp(attrs);
  EXPECT_NE(slurp(attrs).find("\"nqueens-result\""), std::string::npos) << slurp(attrs);
  EXPECT_NE(slurp(attrs).find("(0): 4"), std::string::npos) << slurp(attrs);
}

TEST_F(ResultFile, H5pyReadsAttributesUnitsAndBoards) {
  write_job(file("out.h5"), make_job(8, 2, "all"));
  EXPECT_EQ(python_output("import h5py, sys\n"
                          "f = h5py.File(sys.argv[1], 'r')\n"
                          "a = f.attrs\n"
                          "s = lambda v: v.decode() if isinstance(v, bytes) else str(v)\n"
                          "print(s(a['format']), int(a['total']), s(a['status']), s(a['hosts']),"
                          " f['boards/solutions'].shape, f['units/placement'].shape[1],"
                          " int(f['units/multiplicity'][:].astype('u8').dot(f['units/solutions'][:])))\n",
                          file("out.h5")),
            "nqueens-result 92 complete node1,node2 (92, 8) 8 92\n");
}

TEST_F(ResultFile, ManyBoardsSpanSeveralChunksAndReadBackInAnySlice) {
  const int n = 12;
  const std::uint64_t count = 150'000;   // > 2 chunks of 65536 rows
  auto board_of = [&](std::uint64_t i, std::size_t r) { return static_cast<std::uint8_t>((i * 7 + r * 5) % n); };
  {
    ResultWriter w(file("big.h5"), params_for(n, "all"));
    std::vector<std::uint8_t> boards;
    std::vector<std::uint64_t> ids;
    for (std::uint64_t i = 0; i < count;) {   // uneven pieces, crossing chunk boundaries
      const std::uint64_t k = std::min<std::uint64_t>(count - i, 1 + (i * 31) % 7000);
      boards.clear();
      ids.clear();
      for (std::uint64_t b = i; b < i + k; ++b) {
        for (std::size_t r = 0; r < n; ++r) boards.push_back(board_of(b, r));
        ids.push_back(b / 1000);
      }
      w.append_boards(boards, {}, ids);
      i += k;
    }
    commit_units_of_1000_boards(w, n, "all", count);
  }
  const ResultReader r(file("big.h5"));
  ASSERT_EQ(r.board_count(), count);
  std::vector<std::uint8_t> boards, cls;
  std::vector<std::uint64_t> ids;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> slices{{0, 10}, {65530, 20}, {131000, 19000}, {count - 1, 1}};
  for (const auto& [start, k] : slices) {
    r.read_boards(start, k, boards, cls, ids);
    ASSERT_EQ(boards.size(), k * n);
    for (std::uint64_t b = 0; b < k; ++b) {
      ASSERT_EQ(ids[b], (start + b) / 1000);
      for (std::size_t c = 0; c < n; ++c) ASSERT_EQ(boards[b * n + c], board_of(start + b, c)) << start + b;
    }
  }
  EXPECT_THROW(r.read_boards(count, 1, boards, cls, ids), std::out_of_range);
  EXPECT_THROW(r.read_boards(count - 5, 6, boards, cls, ids), std::out_of_range);
  r.read_boards(count, 0, boards, cls, ids);
  EXPECT_TRUE(boards.empty());
}

TEST_F(ResultFile, ClassBoardsDeflatedAsRunsReadBackHereAndInH5py) {
  // Class-mode columns are deflated with zlib's run search (store/chunks.h), in the background,
  // read back by the reader and by stock h5py.
  const int n = 12;
  const std::uint64_t count = 600'000;   // 5 chunk rows: more than the encoder queues at once
  auto board_of = [&](std::uint64_t i, std::size_t r) { return static_cast<std::uint8_t>((i / (r + 1) + r * 5) % n); };
  std::vector<std::uint8_t> boards, sizes;
  std::vector<std::uint64_t> ids;
  for (std::uint64_t b = 0; b < count; ++b) {
    for (std::size_t r = 0; r < n; ++r) boards.push_back(board_of(b, r));
    sizes.push_back(b % 3 ? 8 : 4);
    ids.push_back(b / 1000);
  }
  {
    ResultWriter w(file("class.h5"), params_for(n, "class"));
    w.append_boards(boards, sizes, ids);
    commit_units_of_1000_boards(w, n, "class", count);
  }
  const ResultReader r(file("class.h5"));
  std::vector<std::uint8_t> got, got_sizes;
  std::vector<std::uint64_t> got_ids;
  r.read_boards(0, count, got, got_sizes, got_ids);
  EXPECT_EQ(got, boards);
  EXPECT_EQ(got_sizes, sizes);
  EXPECT_EQ(got_ids, ids);
  std::uint64_t weighted = 0;
  for (std::size_t i = 0; i < boards.size(); ++i) weighted += boards[i] * (i % 7 + 1);
  EXPECT_EQ(python_output("import h5py, numpy as np, sys\n"
                          "b = h5py.File(sys.argv[1], 'r')['boards/solutions'][:].astype('u8').ravel()\n"
                          "print(b.shape[0], int((b * (np.arange(b.shape[0]) % 7 + 1)).sum()))\n",
                          file("class.h5")),
            std::to_string(count * n) + " " + std::to_string(weighted) + "\n");
  // The two searches give different streams (the file above holds the run search's).
  std::vector<std::uint8_t> column(131072);
  for (std::size_t i = 0; i < column.size(); ++i) column[i] = board_of(i, 9);
  EXPECT_NE(encode_chunk(column, 1, 4, DeflateSearch::runs), encode_chunk(column, 1, 4, DeflateSearch::matches));
}

TEST_F(ResultFile, UncommittedWriterRemovesItsTemporaryFileAndLeavesTheOldFileAlone) {
  write_job(file("out.h5"), make_job(6, 2, "all"));
  const std::string before = slurp(file("out.h5"));
  {
    const Job j = make_job(8, 2, "all");
    ResultWriter w(file("out.h5"), params_for(8, "all"));
    w.append_units(j.units);
    w.append_boards(j.boards, {}, j.unit_ids);
    EXPECT_EQ(listing().size(), 2u);   // out.h5 and the temporary file
  }
  EXPECT_EQ(listing(), std::vector<std::string>{"out.h5"});
  EXPECT_EQ(slurp(file("out.h5")), before);
  EXPECT_EQ(ResultReader(file("out.h5")).info().params.n, 6);
}

TEST_F(ResultFile, CommitReplacesAnExistingFileAndLeavesNoTemporaryFile) {
  write_job(file("out.h5"), make_job(6, 2, "all"));
  write_job(file("out.h5"), make_job(8, 2, "class"));
  EXPECT_EQ(listing(), std::vector<std::string>{"out.h5"});
  const ResultReader r(file("out.h5"));
  EXPECT_EQ(r.info().params.n, 8);
  EXPECT_EQ(r.board_count(), 12u);
}

TEST_F(ResultFile, CommitRejectsARunInfoThatContradictsTheDataWritten) {
  const Job j = make_job(6, 2, "all");
  ResultWriter w(file("out.h5"), j.info.params);
  RunInfo wrong = j.info;
  w.append_units(j.units);
  w.append_boards(j.boards, {}, j.unit_ids);
  wrong.total += 1;
  EXPECT_THROW(w.commit(wrong), std::invalid_argument);   // total must equal the units' sum
  wrong = j.info;
  wrong.params.n = 7;
  EXPECT_THROW(w.commit(wrong), std::invalid_argument);
  wrong = j.info;
  wrong.params.symmetry = core::Symmetry::none;   // any parameter the file was not created for
  EXPECT_THROW(w.commit(wrong), std::invalid_argument);
  w.commit(j.info);   // still usable after a rejected RunInfo
  EXPECT_THROW(w.commit(j.info), std::logic_error);
  EXPECT_EQ(listing(), std::vector<std::string>{"out.h5"});
}

TEST_F(ResultFile, WriterRejectsUnitsOutOfOrderAndBadBoardShapes) {
  ResultWriter w(file("out.h5"), params_for(6, "class"));
  UnitRecord a, b;
  a.id = 5;
  b.id = 5;
  w.append_units(std::span(&a, 1));
  EXPECT_THROW(w.append_units(std::span(&b, 1)), std::invalid_argument);
  UnitRecord off_board;
  off_board.id = 9;
  off_board.placement[6] = 0;
  EXPECT_THROW(w.append_units(std::span(&off_board, 1)), std::invalid_argument);
  const std::vector<std::uint8_t> board{1, 3, 5, 0, 2, 4};
  const std::vector<std::uint64_t> id{5};
  EXPECT_THROW(w.append_boards(board, {}, id), std::invalid_argument);   // class sizes missing
  const std::vector<std::uint8_t> cls{4};
  EXPECT_THROW(w.append_boards(std::span(board).first(5), cls, id), std::invalid_argument);
  w.append_boards(board, cls, id);
  EXPECT_EQ(w.boards_written(), 1u);
  EXPECT_EQ(w.class_size_sum(), 4u);
  ResultWriter count_mode(file("count.h5"), params_for(6, "none"));
  EXPECT_THROW(count_mode.append_boards(board, {}, id), std::logic_error);
}

TEST_F(ResultFile, PathThatIsADirectoryIsAWriteError) {
  stdfs::create_directory(file("out.h5"));
  try {
    ResultWriter w(file("out.h5"), params_for(8, "none"));
    FAIL() << "no error";
  } catch (const WriteError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

TEST_F(ResultFile, MissingDirectoryIsAWriteError) {
  EXPECT_THROW(ResultWriter(file("missing/out.h5"), params_for(8, "none")), WriteError);
}

TEST_F(ResultFile, ReadOnlyDirectoryIsAWriteError) {
  stdfs::create_directory(file("ro"));
  stdfs::permissions(file("ro"), stdfs::perms::owner_read | stdfs::perms::owner_exec |
                                     stdfs::perms::others_read | stdfs::perms::others_exec);
  ::chmod(dir_.c_str(), 0755);   // let `nobody` reach ro/
  const std::string path = file("ro/out.h5");
  const int rc = run_in_child({.unprivileged = true}, [&] {
    try {
      ResultWriter w(path, params_for(8, "none"));
    } catch (const WriteError& e) {
      return std::string(e.what()).find("cannot write in directory") != std::string::npos ? 0 : 2;
    }
    return 1;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(stdfs::is_empty(file("ro")));
}

TEST_F(ResultFile, DiskFullDuringWriteIsAWriteErrorAndRemovesTheTemporaryFile) {
  // RLIMIT_FSIZE makes write() fail (EFBIG) like a full disk (ENOSPC) would, without a real one.
  const std::string path = file("out.h5");
  const int rc = run_in_child({.file_size_limit = 256 * 1024}, [&] {
    try {
      ResultWriter w(path, params_for(16, "all"));
      std::vector<std::uint8_t> boards(16 * 4096);
      std::vector<std::uint64_t> ids(4096);
      std::uint64_t x = 88172645463325252ull;
      for (int piece = 0; piece < 200; ++piece) {   // 800k poorly compressible boards
        for (auto& c : boards) {
          x ^= x << 13, x ^= x >> 7, x ^= x << 17;
          c = static_cast<std::uint8_t>(x % 16);
        }
        w.append_boards(boards, {}, ids);
      }
      return 1;
    } catch (const WriteError& e) {
      return std::string(e.what()).find("store::write") != std::string::npos ? 0 : 2;
    }
  });
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(listing().empty());
}

TEST_F(ResultFile, MissingFileIsNotAResultFile) {
  try {
    ResultReader r(file("nope.h5"));
    FAIL();
  } catch (const NotAResultFile& e) {
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
}

TEST_F(ResultFile, TextFileIsNotAResultFile) {
  spit(file("notes.h5"), "these are not the boards you are looking for\n");
  try {
    ResultReader r(file("notes.h5"));
    FAIL();
  } catch (const NotAResultFile& e) {
    EXPECT_NE(std::string(e.what()).find("not an nqueens result file"), std::string::npos) << e.what();
  }
}

TEST_F(ResultFile, Hdf5FileWithoutTheFormatAttributeIsNotAResultFile) {
  {
    Id f{H5Fcreate(file("other.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    Id g{H5Gcreate2(f.id, "units", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  }
  try {
    ResultReader r(file("other.h5"));
    FAIL();
  } catch (const NotAResultFile& e) {
    EXPECT_NE(std::string(e.what()).find("not an nqueens result file"), std::string::npos) << e.what();
  }
}

TEST_F(ResultFile, TruncatedCopyIsNotAResultFile) {
  write_job(file("out.h5"), make_job(8, 2, "all"));
  const std::string bytes = slurp(file("out.h5"));
  for (const std::size_t keep : {bytes.size() / 2, bytes.size() - 1, std::size_t{600}}) {
    spit(file("cut.h5"), bytes.substr(0, keep));
    EXPECT_THROW(ResultReader r(file("cut.h5")), NotAResultFile) << "kept " << keep << " bytes";
  }
}

TEST_F(ResultFile, DamagedBoardChunkFailsItsChecksumOnRead) {
  write_job(file("out.h5"), make_job(8, 2, "all"));
  haddr_t addr = 0;
  hsize_t size = 0;
  {
    Id f{H5Fopen(file("out.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
    Id d{H5Dopen2(f.id, "/boards/solutions", H5P_DEFAULT), H5Dclose};
    const hsize_t origin[2] = {0, 0};
    unsigned mask = 0;
    ASSERT_GE(H5Dget_chunk_info_by_coord(d.id, origin, &mask, &addr, &size), 0);
  }
  std::string bytes = slurp(file("out.h5"));
  ASSERT_LT(addr + size, bytes.size());
  bytes[addr + size / 2] = static_cast<char>(bytes[addr + size / 2] ^ 0x5A);
  spit(file("out.h5"), bytes);
  const ResultReader r(file("out.h5"));   // attributes and units are intact
  EXPECT_EQ(r.info().total, 92u);
  std::vector<std::uint8_t> boards, cls;
  std::vector<std::uint64_t> ids;
  try {
    r.read_boards(0, 92, boards, cls, ids);
    FAIL() << "damage not detected";
  } catch (const NotAResultFile& e) {
    EXPECT_NE(std::string(e.what()).find("/boards/solutions"), std::string::npos) << e.what();
  }
}

// Built with ASan? g++ defines __SANITIZE_ADDRESS__; clang answers __has_feature, which g++ 12
// lacks. Nested because `defined(f) && f(x)` in one #if does not parse where f is undefined.
#if defined(__SANITIZE_ADDRESS__)
#define NQ_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NQ_UNDER_ASAN 1
#endif
#endif

// Memory stays bounded however many boards are written. The default size runs in about a
// second; NQ_STORE_BIG_BOARDS=15000000 reproduces the N=16 figure (14.7 million boards).
TEST_F(ResultFile, WritingMillionsOfBoardsKeepsMemoryBounded) {
#if defined(NQ_UNDER_ASAN)
  GTEST_SKIP() << "ASan's shadow memory and quarantine make RSS meaningless";
#endif
  const char* env = std::getenv("NQ_STORE_BIG_BOARDS");
  const std::uint64_t count = env ? std::stoull(env) : 3'000'000;
  constexpr int n = 16;
  const std::string path = file("big.h5");
  auto peak_rss_kb = [&](bool write) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int rc = 0;
      if (write) {
        try {
          ResultWriter w(path, params_for(n, "all"));
          std::vector<std::uint8_t> boards;
          std::vector<std::uint64_t> ids;
          std::array<std::uint8_t, n> perm;
          std::iota(perm.begin(), perm.end(), std::uint8_t{0});
          std::uint64_t x = 0x9E3779B97F4A7C15ull;
          const std::uint64_t per_unit = 100;
          for (std::uint64_t i = 0; i < count; i += per_unit) {   // one call per unit, as the app does
            boards.clear();
            ids.clear();
            for (std::uint64_t b = i; b < std::min(count, i + per_unit); ++b) {
              x ^= x << 13, x ^= x >> 7, x ^= x << 17;
              std::swap(perm[x % n], perm[(x >> 8) % n]);
              boards.insert(boards.end(), perm.begin(), perm.end());
              ids.push_back(i / per_unit);
            }
            w.append_boards(boards, {}, ids);
          }
          std::vector<UnitRecord> units((count + per_unit - 1) / per_unit);
          for (std::size_t u = 0; u < units.size(); ++u) {
            units[u].id = u;
            units[u].solutions = std::min<std::uint64_t>(per_unit, count - u * per_unit);
          }
          w.append_units(units);
          RunInfo info;
          info.params = params_for(n, "all");
          info.status = Status::complete;
          info.units_total = info.units_done = units.size();
          info.total = count;
          w.commit(info);
        } catch (...) {
          rc = 1;
        }
      }
      ::_exit(rc);
    }
    int status = 0;
    rusage ru{};
    ::wait4(pid, &status, 0, &ru);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return ru.ru_maxrss;
  };
  const long idle = peak_rss_kb(false);
  const auto t0 = std::chrono::steady_clock::now();
  const long busy = peak_rss_kb(true);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double mb = static_cast<double>(stdfs::file_size(path)) / 1e6;
  std::printf("[ figures  ] %llu boards of N=16: %.2f s, peak RSS %ld MB (idle child %ld MB), file %.1f MB\n",
              static_cast<unsigned long long>(count), secs, busy / 1024, idle / 1024, mb);
  // Buffering everything would need count * 24 bytes (72 MB at the default size).
  EXPECT_LT(busy - idle, 40 * 1024);
  EXPECT_EQ(ResultReader(path).board_count(), count);
}

namespace {

// A count-mode file of N = 29 whose units add up to 2^64 + 6, just past 64 bits: unit 0 has
// multiplicity 8 and 2^61 completions, unit 1 multiplicity 2 and 3.
RunInfo write_wide(const std::string& path) {
  std::vector<UnitRecord> units(2);
  units[0].id = 0;
  units[0].multiplicity = 8;
  units[0].solutions = std::uint64_t{1} << 61;
  units[1].id = 1;
  units[1].multiplicity = 2;
  units[1].solutions = 3;
  RunInfo info;
  info.params = params_for(29, "none");
  info.params.depth = 1;
  info.status = Status::complete;
  info.units_total = info.units_done = 2;
  info.total = (core::Total{1} << 64) + 6;
  info.unique = (core::Total{1} << 64) * 5 + 7;   // synthetic: wider than 64 bits too
  info.matches_known = core::KnownMatch::unknown;
  ResultWriter w(path, info.params);
  w.append_units(units);
  w.commit(info);
  return info;
}

// Rewrites an attribute of an existing file with the HDF5 C API (another program's edit).
template <class T>
void set_attr(const std::string& path, const char* name, T value, hid_t type) {
  Id f{H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose};
  Id a{H5Aopen(f.id, name, H5P_DEFAULT), H5Aclose};
  ASSERT_GE(a.id, 0) << name;
  ASSERT_GE(H5Awrite(a.id, type, &value), 0) << name;
}

}  // namespace

TEST_F(ResultFile, TotalsPast64BitsRoundTripExactly) {
  const RunInfo info = write_wide(file("wide.h5"));
  const ResultReader r(file("wide.h5"));
  EXPECT_EQ(core::to_decimal(r.info().total), "18446744073709551622");
  EXPECT_EQ(core::to_decimal(r.info().unique), "92233720368547758087");
  EXPECT_EQ(r.info(), info);
  // What other programs see: the uint64 says "does not fit", the halves and the text are exact.
  EXPECT_EQ(python_output("import h5py, sys\n"
                          "a = h5py.File(sys.argv[1], 'r').attrs\n"
                          "for k in ('total', 'unique'):\n"
                          "    hi, lo, text = int(a[k + '_hi']), int(a[k + '_lo']), a[k + '_decimal'].decode()\n"
                          "    print(k, int(a[k]), hi, lo, text, (hi << 64 | lo) == int(text), int(a['format_version']))\n",
                          file("wide.h5")),
            "total 18446744073709551615 1 6 18446744073709551622 True 2\n"
            "unique 18446744073709551615 5 7 92233720368547758087 True 2\n");
}

TEST_F(ResultFile, TotalsThatFitKeepTheirValueInTheUint64Attribute) {
  write_job(file("out.h5"), make_job(8, 2, "all"));
  EXPECT_EQ(python_output("import h5py, sys\n"
                          "a = h5py.File(sys.argv[1], 'r').attrs\n"
                          "print(int(a['total']), int(a['total_hi']), int(a['total_lo']), a['total_decimal'].decode(),"
                          " int(a['unique']))\n",
                          file("out.h5")),
            "92 0 92 92 12\n");
}

TEST_F(ResultFile, VersionOneFilesAreReadFromTheirUint64Totals) {
  write_job(file("v1.h5"), make_job(8, 2, "none"));
  {   // a version 1 file: no halves, no decimal text
    set_attr<std::int32_t>(file("v1.h5"), "format_version", 1, H5T_NATIVE_INT32);
    Id f{H5Fopen(file("v1.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose};
    for (const char* a : {"total_hi", "total_lo", "total_decimal", "unique_hi", "unique_lo", "unique_decimal"})
      ASSERT_GE(H5Adelete(f.id, a), 0) << a;
  }
  const ResultReader r(file("v1.h5"));
  EXPECT_EQ(r.info().total, 92u);
  EXPECT_EQ(r.info().unique, 12u);
}

TEST_F(ResultFile, DisagreeingTotalAttributesAreRefused) {
  for (const char* edit : {"total_lo", "total", "unique_hi"}) {
    const std::string path = file(std::string(edit) + ".h5");
    write_wide(path);
    set_attr<std::uint64_t>(path, edit, 1234, H5T_NATIVE_UINT64);
    try {
      ResultReader r(path);
      ADD_FAILURE() << edit << ": read without complaint";
    } catch (const NotAResultFile& e) {
      EXPECT_NE(std::string(e.what()).find("disagree"), std::string::npos) << e.what();
    }
  }
  write_job(file("v3.h5"), make_job(6, 2, "none"));
  set_attr<std::int32_t>(file("v3.h5"), "format_version", 3, H5T_NATIVE_INT32);
  EXPECT_THROW(ResultReader(file("v3.h5")), NotAResultFile);
}

// Attributes that no run writes (a damaged or edited file) are refused by every reader, naming
// them: `info` showed "units 3402 of 0", `check` and `merge` stopped with an internal error.
TEST_F(ResultFile, AttributesThatNoRunWritesAreRefused) {
  struct Edit {
    const char* name;
    std::uint64_t value;
    bool wide;   // a uint64 attribute, else int32
    const char* said;
  };
  for (const Edit& e : {Edit{"depth", 0, false, "depth = 0 is out of range 1..n = 6"},
                        Edit{"depth", 7, false, "depth = 7 is out of range 1..n = 6"},
                        Edit{"shard_count", 0, false, "shard_index = 0, shard_count = 0 is no shard"},
                        Edit{"shard_index", 1, false, "shard_index = 1, shard_count = 1 is no shard"},
                        Edit{"units_total", 1, true, "is more than the 1 units of its shard (units_total = 1)"},
                        // a complete file short of its units (a partial one marked complete): --skip-complete
                        // took it as done, with its wrong total (session 47)
                        Edit{"units_done", 3, true, "status is complete, but units_done = 3 of units_total = 10"},
                        Edit{"units_total", 11, true, "status is complete, but units_done = 10 of units_total = 11"}}) {
    const std::string path = file(std::string(e.name) + std::to_string(e.value) + ".h5");
    write_job(path, make_job(6, 2, "none"));
    if (e.wide) set_attr<std::uint64_t>(path, e.name, e.value, H5T_NATIVE_UINT64);
    else set_attr<std::int32_t>(path, e.name, static_cast<std::int32_t>(e.value), H5T_NATIVE_INT32);
    try {
      ResultReader r(path);
      ADD_FAILURE() << e.name << " = " << e.value << ": read without complaint";
    } catch (const NotAResultFile& x) {
      EXPECT_NE(std::string(x.what()).find(e.said), std::string::npos) << x.what();
    }
  }
}
