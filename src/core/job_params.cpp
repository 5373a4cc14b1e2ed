#include "core/job_params.h"
#include <algorithm>
#include <charconv>
#include <limits>

namespace nq::core {

std::uint64_t Shard::size(std::uint64_t units_total) const {
  const auto k = static_cast<std::uint64_t>(count), i = static_cast<std::uint64_t>(index);
  return units_total > i ? (units_total - i + k - 1) / k : 0;   // ids i, i + k, ... below the total
}

Shard parse_shard(std::string_view s) {
  Shard shard{-1, 0};
  const char* const end = s.data() + s.size();
  const auto first = std::from_chars(s.data(), end, shard.index);
  bool ok = first.ec == std::errc() && first.ptr != end && *first.ptr == '/';
  if (ok) {
    const auto second = std::from_chars(first.ptr + 1, end, shard.count);
    ok = second.ec == std::errc() && second.ptr == end;
  }
  if (!ok || shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
    throw std::invalid_argument("shard '" + std::string(s) + "' must be i/n with 0 <= i < n <= " +
                                std::to_string(std::numeric_limits<int>::max()) + " (e.g. 0/4)");
  return shard;
}

std::string to_string(const Shard& s) { return std::to_string(s.index) + "/" + std::to_string(s.count); }

std::string boards_stored(const JobParams& p) { return p.boards_mode() ? to_string(p.boards) : "none"; }

void set_boards_stored(JobParams& p, std::string_view boards_stored) {
  const bool none = boards_stored == "none";
  const auto set = find_name<BoardSet>(boards_stored);
  if (!none && !set)
    throw std::invalid_argument("boards_stored '" + std::string(boards_stored) + "' is not none, " +
                                name_list<BoardSet>());
  if (none == p.boards_mode())
    throw std::invalid_argument("boards_stored '" + std::string(boards_stored) + "' does not go with mode " +
                                to_string(p.mode));
  p.boards = none ? BoardSet::all : *set;
}

namespace {

// The one list of the parameters as text, in the order of the file format.
template <class F>
void text_fields(const JobParams& p, F&& f) {
  f("n", std::to_string(p.n));
  f("mode", to_string(p.mode));
  f("boards_stored", boards_stored(p));
  f("depth", std::to_string(p.depth));
  f("symmetry", to_string(p.symmetry));
  f("shard_index", std::to_string(p.shard.index));
  f("shard_count", std::to_string(p.shard.count));
}

}  // namespace

std::string describe(const std::vector<ParamDifference>& diffs, std::string_view where_a, std::string_view where_b) {
  const auto text = [](const std::string& v) {   // names quoted, numbers not
    return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }) ? v : "'" + v + "'";
  };
  std::string out;
  for (const auto& d : diffs) {
    out += (out.empty() ? "" : "; ") + d.name + " is " + text(d.a) + " ";
    out.append(where_a).append(", ").append(text(d.b)).append(" ").append(where_b);
  }
  return out;
}

std::vector<ParamDifference> differences(const JobParams& a, const JobParams& b) {
  std::vector<std::pair<const char*, std::string>> fa;
  text_fields(a, [&](const char* name, std::string v) { fa.emplace_back(name, std::move(v)); });
  std::vector<ParamDifference> out;
  std::size_t i = 0;
  text_fields(b, [&](const char* name, std::string v) {
    if (fa[i].second != v) out.push_back({name, fa[i].second, std::move(v)});
    ++i;
  });
  return out;
}

}  // namespace nq::core
