#include "dist/fault_injection.h"
#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>

namespace nq::dist {
namespace {
struct Fault {
  std::string kind;
  std::uint64_t unit = 0;
  std::optional<int> rank;
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
}  // namespace

void inject_batch_fault(proto::ResultBatch& batch) {
  static const Fault fault = parse_fault();
  static std::atomic<bool> done{false};
  if (fault.kind.empty()) return;
  const bool always = fault.kind == "wrong-always";
  if (done && !always) return;
  for (auto& r : batch.results) {
    if (r.id != fault.unit || (fault.rank && r.rank != *fault.rank)) continue;
    if (!always && done.exchange(true)) return;
    if (fault.kind == "garble") r.solutions ^= 1;
    if (fault.kind == "wrong" || always) {
      r.solutions += 1;
      r.check = proto::result_check(r);   // a consistent lie: the checksum cannot catch it
    }
    if (fault.kind == "duplicate") {
      batch.results.push_back(r);
      return;
    }
  }
}

}  // namespace nq::dist
