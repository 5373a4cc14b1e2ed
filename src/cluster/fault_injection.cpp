#include "cluster/fault_injection.h"
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace nq::cluster {
namespace {
struct Fault {
  std::string kind;
  std::uint64_t unit = 0;
  std::optional<int> rank;
  bool hits(std::uint64_t id, int on_rank) const {
    return !kind.empty() && id == unit && (!rank || *rank == on_rank);
  }
};
Fault parse_fault() {
  const char* env = std::getenv("NQUEENS_INJECT_FAULT");
  if (!env) return {};
  const std::string s(env);
  const auto colon = s.find(':');
  if (colon == std::string::npos) return {};
  Fault f{s.substr(0, colon), 0, std::nullopt};
  try {
    const auto at = s.find('@', colon);
    f.unit = std::stoull(s.substr(colon + 1, at == std::string::npos ? std::string::npos : at - colon - 1));
    if (at != std::string::npos) f.rank = std::stoi(s.substr(at + 1));
  } catch (const std::exception&) {
    return {};   // a malformed spec injects nothing
  }
  return f;
}
const Fault& fault() {
  static const Fault f = parse_fault();
  return f;
}
std::atomic<bool> g_done{false};   // the once-per-process kinds struck already
}  // namespace

void inject_batch_fault(proto::ResultBatch& batch) {
  const Fault& f = fault();
  const bool always = f.kind == "wrong-always";
  if (!always && f.kind != "garble" && f.kind != "wrong" && f.kind != "duplicate") return;
  if (g_done && !always) return;
  for (auto& r : batch.results) {
    if (!f.hits(r.id, r.rank)) continue;
    if (!always && g_done.exchange(true)) return;
    if (f.kind == "garble") r.solutions ^= 1;
    if (f.kind == "wrong" || always) {
      r.solutions += 1;
      r.check = proto::result_check(r);   // a consistent lie: the checksum cannot catch it
    }
    if (f.kind == "duplicate") {
      batch.results.push_back(r);
      return;
    }
  }
}

void inject_message_fault(const proto::ResultBatch& batch, std::string& encoded) {
  const Fault& f = fault();
  if (f.kind != "undecodable" || g_done) return;
  for (const auto& r : batch.results)
    if (f.hits(r.id, r.rank) && !g_done.exchange(true)) {
      encoded.resize(encoded.size() / 2);
      return;
    }
}

void inject_unit_fault(std::uint64_t unit, int rank) {
  if (fault().kind == "throw" && fault().hits(unit, rank))
    throw std::runtime_error("injected fault: NQUEENS_INJECT_FAULT=throw:" + std::to_string(unit));
}

void inject_master_fault(const std::vector<core::WorkUnit>& units) {
  if (fault().kind != "master-throw") return;
  for (const auto& u : units)
    if (u.id == fault().unit)
      throw std::runtime_error("injected fault: NQUEENS_INJECT_FAULT=master-throw:" + std::to_string(u.id));
}

void inject_work_fault(const proto::WorkBatch& batch, int rank) {
  if (fault().kind != "hang") return;
  for (const auto& u : batch.units)
    if (fault().hits(u.id, rank) || (fault().rank == rank && u.id >= fault().unit))
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

}  // namespace nq::cluster
