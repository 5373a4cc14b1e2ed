#include "dist/fault_injection.h"
#include <atomic>
#include <cstdlib>
#include <string>

namespace nq::dist {
namespace {
struct Fault {
  std::string kind;
  std::uint64_t unit = 0;
};
Fault parse_fault() {
  const char* env = std::getenv("NQUEENS_INJECT_FAULT");
  if (!env) return {};
  const std::string s(env);
  const auto colon = s.find(':');
  if (colon == std::string::npos) return {};
  return {s.substr(0, colon), std::stoull(s.substr(colon + 1))};
}
}  // namespace

void inject_batch_fault(proto::ResultBatch& batch) {
  static const Fault fault = parse_fault();
  static std::atomic<bool> done{false};
  if (fault.kind.empty() || done) return;
  for (auto& r : batch.results) {
    if (r.id != fault.unit || done.exchange(true)) continue;
    if (fault.kind == "garble") r.solutions ^= 1;
    if (fault.kind == "duplicate") {
      batch.results.push_back(r);
      return;
    }
  }
}

}  // namespace nq::dist
