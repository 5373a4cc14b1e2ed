// `nqueens merge`: combines the complete shard files of one job into one result file equal to a
// single run, refusing overlaps, gaps and shards of different parameters or program versions.
#pragma once
#include <string>
#include <vector>

namespace nq::app {

int merge_shards(const std::string& out, const std::vector<std::string>& shards, bool force);

}  // namespace nq::app
