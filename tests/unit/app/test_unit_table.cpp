// The master's table of finished units (app/unit_table.h): what goes in comes out whole, in id
// order, with the placement and multiplicity of the plan, each unit once, for a shard too.
#include <gtest/gtest.h>
#include <algorithm>
#include <random>
#include "app/unit_table.h"
#include "app_test_util.h"

using namespace nq;
using app::UnitTable;

namespace {

// What the table gives back for `plan`.
std::vector<store::UnitRecord> read_back(const UnitTable& table, const core::UnitPlan& plan) {
  std::vector<store::UnitRecord> out;
  const auto source = table.units(plan);
  source.for_each([&](const store::UnitRecord& r) { out.push_back(r); });
  EXPECT_EQ(source.count, out.size());
  return out;
}

// Distinct times, ranks and threads per unit, so that a mix-up between units shows.
std::vector<store::UnitRecord> finished(const core::JobParams& p) {
  auto records = app::test::finished_units(p);
  for (auto& r : records) {
    r.seconds = 0.5 + static_cast<double>(r.id);
    r.started = 1.8e9 + 3.0 * static_cast<double>(r.id);
    r.rank = static_cast<std::int32_t>(r.id % 5);
    r.thread = static_cast<std::int32_t>(r.id % 7);
  }
  return records;
}

}  // namespace

TEST(UnitTable, UnitsFinishedInAnyOrderComeBackWholeInIdOrder) {
  for (const auto symmetry : {core::Symmetry::none, core::Symmetry::mirror, core::Symmetry::full}) {
    const auto p = app::test::count_job(10, 3, symmetry);
    const core::UnitPlan plan(p.n, p.depth, p.symmetry);
    const auto records = finished(p);
    auto shuffled = records;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(7));
    UnitTable table(p.shard, plan.size());
    core::Total nodes = 0;
    for (const auto& r : shuffled) {
      EXPECT_TRUE(table.add(r));
      nodes += r.nodes;
    }
    EXPECT_EQ(table.size(), records.size());
    EXPECT_EQ(table.nodes(), nodes);
    EXPECT_EQ(table.solutions(), core::Total{724});   // the board's total, the units' multiplicities applied
    EXPECT_EQ(read_back(table, plan), records) << core::to_string(symmetry);
  }
}

TEST(UnitTable, APlacementOrMultiplicityIsThePlansNotTheRecords) {
  const auto p = app::test::count_job(9, 2, core::Symmetry::full);
  const core::UnitPlan plan(p.n, p.depth, p.symmetry);
  const auto records = finished(p);
  UnitTable table(p.shard, plan.size());
  for (auto r : records) {
    r.placement = core::WorkUnit::empty_placement();   // not kept: the cursor makes them again
    r.multiplicity = 0;
    table.add(r);
  }
  EXPECT_EQ(read_back(table, plan), records);
}

TEST(UnitTable, AUnitFinishedTwiceKeepsItsFirstResult) {
  const auto p = app::test::count_job(8, 2);
  const core::UnitPlan plan(p.n, p.depth, p.symmetry);
  const auto records = finished(p);
  UnitTable table(p.shard, plan.size());
  ASSERT_TRUE(table.add(records[3]));
  auto again = records[3];
  again.solutions += 1;
  again.rank = 9;
  EXPECT_TRUE(table.done(3));
  EXPECT_FALSE(table.done(4));
  EXPECT_FALSE(table.add(again));
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(table.nodes(), records[3].nodes);
  EXPECT_EQ(table.solutions(), core::Total{records[3].multiplicity} * records[3].solutions);
  EXPECT_EQ(read_back(table, plan), std::vector{records[3]});
}

TEST(UnitTable, AShardKeepsItsOwnUnitsAndRefusesOthers) {
  auto p = app::test::count_job(10, 3);
  p.shard = {1, 3};
  const core::UnitPlan plan(p.n, p.depth, p.symmetry);
  const std::uint64_t total = plan.size();
  UnitTable table(p.shard, total);
  EXPECT_EQ(table.units_in_shard(), p.shard.size(total));
  auto records = finished(p);
  std::reverse(records.begin(), records.end());
  for (const auto& r : records) ASSERT_TRUE(table.add(r));
  std::reverse(records.begin(), records.end());
  EXPECT_EQ(read_back(table, plan), records);
  store::UnitRecord other;
  other.id = 3;   // shard 0 of 3
  EXPECT_THROW(table.add(other), std::out_of_range);
  other.id = (total / 3 + 1) * 3 + 1;   // in shard 1, past the plan
  ASSERT_TRUE(p.shard.contains(other.id));
  EXPECT_THROW(table.add(other), std::out_of_range);
  EXPECT_EQ(table.size(), records.size());
}

TEST(UnitTable, APartialTableGivesItsDoneUnitsOnly) {
  const auto p = app::test::count_job(10, 3, core::Symmetry::full);
  const core::UnitPlan plan(p.n, p.depth, p.symmetry);
  const auto records = finished(p);
  UnitTable table(p.shard, plan.size());
  std::vector<store::UnitRecord> every_third;
  for (std::size_t i = 0; i < records.size(); i += 3) {
    table.add(records[i]);
    every_third.push_back(records[i]);
  }
  EXPECT_EQ(read_back(table, plan), every_third);
  const UnitTable empty(p.shard, plan.size());
  EXPECT_TRUE(read_back(empty, plan).empty());
}

TEST(UnitTable, DoneUnitsPastTheEndOfAnotherPlanAreAPlanTooShort) {
  const auto p = app::test::count_job(10, 3);
  const core::UnitPlan plan(p.n, p.depth, p.symmetry), smaller(p.n, 2, p.symmetry);
  ASSERT_LT(smaller.size(), plan.size());
  UnitTable table(p.shard, plan.size());
  table.add(finished(p).back());
  EXPECT_THROW(read_back(table, smaller), UnitTable::PlanTooShort);   // merge: a shard's depth edited, exit 3
}

TEST(UnitDigest, TheSameUnitsInAnyOrderAgreeAndAnotherPlacementOrMultiplicityDoesNot) {
  const auto p = app::test::count_job(10, 3, core::Symmetry::full);
  const auto records = finished(p);
  ASSERT_GE(records.size(), 2u);
  const auto digest = [](const std::vector<store::UnitRecord>& units) {
    app::UnitDigest d;
    for (const auto& r : units) d.add(r);
    return d;
  };
  auto shuffled = records;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(11));
  EXPECT_TRUE(digest(shuffled) == digest(records));
  auto swapped = records;   // two units' placements exchanged: each still a unit of the plan
  std::swap(swapped[0].placement, swapped[1].placement);
  EXPECT_FALSE(digest(swapped) == digest(records));
  auto multiplied = records;
  multiplied.back().multiplicity ^= 12;   // 8 <-> 4
  EXPECT_FALSE(digest(multiplied) == digest(records));
  auto counted = records;   // what a unit's result said is not part of it
  counted.front().solutions += 8;
  counted.front().seconds += 1;
  EXPECT_TRUE(digest(counted) == digest(records));
}
