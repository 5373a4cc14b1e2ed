// The job parameters (core/job_params.h) and the one table of names (core/names.h).
#include <gtest/gtest.h>
#include <algorithm>
#include "core/job_params.h"
#include "core/known_counts.h"

using namespace nq::core;

namespace {

template <class E>
void expect_round_trip(std::initializer_list<E> values, std::initializer_list<const char*> names) {
  ASSERT_EQ(values.size(), names.size());
  auto name = names.begin();
  for (const E v : values) {
    EXPECT_EQ(to_string(v), *name);
    EXPECT_EQ(from_string<E>(*name), v);
    ++name;
  }
  EXPECT_EQ(names_of<E>(), std::vector<std::string>(names.begin(), names.end()));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(Names, EveryEnumRoundTripsThroughItsNames) {
  expect_round_trip({Mode::count, Mode::boards}, {"count", "boards"});
  expect_round_trip({Symmetry::none, Symmetry::mirror, Symmetry::full}, {"none", "mirror", "full"});
  expect_round_trip({BoardSet::all, BoardSet::classes}, {"all", "class"});
  expect_round_trip({KnownMatch::match, KnownMatch::mismatch, KnownMatch::unknown}, {"yes", "no", "unknown"});
}

TEST(Names, AnUnknownNameIsAnErrorListingTheValidOnes) {
  EXPECT_EQ(error_of([] { from_string<Symmetry>("rotation"); }),
            "unknown symmetry 'rotation' (valid: none, mirror, full)");
  EXPECT_EQ(error_of([] { from_string<Mode>("Count"); }), "unknown mode 'Count' (valid: count, boards)");
  EXPECT_EQ(error_of([] { from_string<BoardSet>(""); }), "unknown board set '' (valid: all, class)");
  EXPECT_FALSE(find_name<BoardSet>("classes"));
}

TEST(JobParams, DefaultsAreACountOverTheFullSymmetryGroup) {
  const JobParams p;
  EXPECT_EQ(p.mode, Mode::count);
  EXPECT_EQ(p.symmetry, Symmetry::full);
  EXPECT_EQ(p.shard, (Shard{0, 1}));
  EXPECT_EQ(boards_stored(p), "none");
}

TEST(JobParams, BoardsStoredIsTheModeAndTheBoardSetTogether) {
  JobParams p;
  p.n = 8;
  EXPECT_EQ(boards_stored(p), "none");
  p.mode = Mode::boards;
  EXPECT_EQ(boards_stored(p), "all");
  p.boards = BoardSet::classes;
  EXPECT_EQ(boards_stored(p), "class");
  EXPECT_TRUE(p.class_boards());

  JobParams q = p;
  set_boards_stored(q, "all");
  EXPECT_EQ(q.boards, BoardSet::all);
  set_boards_stored(q, "class");
  EXPECT_EQ(q, p);
  // The two attributes contradict each other, or name nothing.
  EXPECT_EQ(error_of([&] { set_boards_stored(q, "none"); }), "boards_stored 'none' does not go with mode boards");
  q.mode = Mode::count;
  EXPECT_EQ(error_of([&] { set_boards_stored(q, "class"); }), "boards_stored 'class' does not go with mode count");
  EXPECT_EQ(error_of([&] { set_boards_stored(q, "some"); }), "boards_stored 'some' is not none, all, class");
  set_boards_stored(q, "none");
  EXPECT_EQ(q.boards, BoardSet::all);   // count mode keeps one value, so equal jobs compare equal
}

TEST(Shard, ParsesIOfNAndRefusesEverythingElse) {
  EXPECT_EQ(parse_shard("0/1"), (Shard{0, 1}));
  EXPECT_EQ(parse_shard("3/4"), (Shard{3, 4}));
  EXPECT_EQ(to_string(parse_shard("12/100")), "12/100");
  EXPECT_EQ(parse_shard("0/2147483647"), (Shard{0, 2147483647}));   // the most shards: the refusal names it
  for (const char* bad : {"", "/", "1", "4/4", "-1/4", "0/0", "1/-2", "0/4x", " 0/4", "0//4", "a/4", "0/99999999999", "0/2147483648"})
    EXPECT_EQ(error_of([&] { parse_shard(bad); }),
              std::string("shard '") + bad + "' must be i/n with 0 <= i < n <= 2147483647 (e.g. 0/4)")
        << bad;
}

TEST(Shard, TheShardsOfAPlanPartitionItsUnits) {
  for (const std::uint64_t total : {0, 1, 5, 12, 13}) {
    for (int count = 1; count <= 5; ++count) {
      std::uint64_t sum = 0;
      std::vector<int> owners(total, 0);
      for (int index = 0; index < count; ++index) {
        const Shard s{index, count};
        std::uint64_t mine = 0;
        for (std::uint64_t id = 0; id < total; ++id)
          if (s.contains(id)) ++mine, ++owners[id];
        EXPECT_EQ(s.size(total), mine) << index << "/" << count << " of " << total;
        sum += mine;
      }
      EXPECT_EQ(sum, total);
      EXPECT_TRUE(std::all_of(owners.begin(), owners.end(), [](int o) { return o == 1; }));
    }
  }
}

TEST(JobParams, DifferencesNameEveryDifferingFieldWithBothValues) {
  JobParams a;
  a.n = 12;
  a.depth = 3;
  JobParams b = a;
  EXPECT_TRUE(differences(a, b).empty());
  b.mode = Mode::boards;
  b.boards = BoardSet::classes;
  b.depth = 4;
  b.symmetry = Symmetry::mirror;
  b.shard = {1, 2};
  const auto d = differences(a, b);
  std::vector<std::string> text;
  for (const auto& x : d) text.push_back(x.name + ":" + x.a + "->" + x.b);
  EXPECT_EQ(text, (std::vector<std::string>{"mode:count->boards", "boards_stored:none->class", "depth:3->4",
                                            "symmetry:full->mirror", "shard_index:0->1", "shard_count:1->2"}));
  // One phrase for every message that names them: numbers bare, names quoted, in file order.
  const std::vector<ParamDifference> two(d.begin() + 1, d.begin() + 3);
  EXPECT_EQ(describe(two, "in the journal", "now"),
            "boards_stored is 'none' in the journal, 'class' now; depth is 3 in the journal, 4 now");
  EXPECT_EQ(describe({}, "there", "here"), "");
}
