#include "cluster/fault_injection.h"
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <memory>
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
  std::atomic<bool> done{false};   // a once-per-process kind struck already
  bool hits(std::uint64_t id, int on_rank) const { return id == unit && (!rank || *rank == on_rank); }
};
using Faults = std::vector<std::unique_ptr<Fault>>;

// One spec KIND:UNIT[@RANK]; nullptr if malformed (a malformed spec injects nothing).
std::unique_ptr<Fault> parse_one(const std::string& s) {
  const auto colon = s.find(':');
  if (colon == std::string::npos || colon == 0) return nullptr;
  auto f = std::make_unique<Fault>();
  f->kind = s.substr(0, colon);
  try {
    const auto at = s.find('@', colon);
    f->unit = std::stoull(s.substr(colon + 1, at == std::string::npos ? std::string::npos : at - colon - 1));
    if (at != std::string::npos) f->rank = std::stoi(s.substr(at + 1));
  } catch (const std::exception&) {
    return nullptr;
  }
  return f;
}
[[noreturn]] void sleep_for_ever() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

Faults parse_faults() {
  Faults faults;
  const char* env = std::getenv("NQUEENS_INJECT_FAULT");
  if (!env) return faults;
  const std::string s(env);
  for (std::size_t begin = 0; begin <= s.size();) {
    const auto comma = std::min(s.find(',', begin), s.size());
    if (auto f = parse_one(s.substr(begin, comma - begin))) faults.push_back(std::move(f));
    begin = comma + 1;
  }
  return faults;
}
// The fault of this kind, nullptr if none was asked for (the normal case).
Fault* fault(std::string_view kind) {
  static const Faults faults = parse_faults();
  for (const auto& f : faults)
    if (f->kind == kind) return f.get();
  return nullptr;
}
}  // namespace

void inject_batch_fault(proto::ResultBatch& batch, int n) {
  for (const char* kind : {"garble", "wrong", "wrong-always", "duplicate", "repeat-board"}) {
    Fault* f = fault(kind);
    if (!f) continue;
    const bool always = f->kind == "wrong-always";
    if (!always && f->done) continue;
    for (std::size_t i = 0; i < batch.results.size(); ++i) {
      auto& r = batch.results[i];
      if (!f->hits(r.id, r.rank)) continue;
      if (!always && f->done.exchange(true)) break;
      if (f->kind == "garble") r.solutions ^= 1;
      if (f->kind == "wrong" || always) {
        r.solutions += 1;
        r.check = proto::result_check(r);   // a consistent lie: the checksum cannot catch it
      }
      if (f->kind == "repeat-board") {   // the last board becomes the first again: valid, a repeat
        const auto w = static_cast<std::size_t>(n);
        if (r.boards.size() >= 2 * w) {
          std::copy_n(r.boards.begin(), w, r.boards.end() - static_cast<std::ptrdiff_t>(w));
          // class mode: with its class size, so that only the repeat itself is wrong
          if (!r.class_sizes.empty()) r.class_sizes.back() = r.class_sizes.front();
        }
        r.check = proto::result_check(r);   // consistent: only the master's board check can see it
      }
      if (f->kind == "duplicate") {
        batch.results.push_back(r);
        break;
      }
    }
  }
}

void inject_message_fault(const proto::ResultBatch& batch, std::string& encoded) {
  Fault* f = fault("undecodable");
  if (!f || f->done) return;
  for (const auto& r : batch.results)
    if (f->hits(r.id, r.rank) && !f->done.exchange(true)) {
      encoded.resize(encoded.size() / 2);
      return;
    }
}

void inject_unit_fault(std::uint64_t unit, int rank) {
  if (const Fault* f = fault("throw"); f && f->hits(unit, rank))
    throw std::runtime_error("injected fault: NQUEENS_INJECT_FAULT=throw:" + std::to_string(unit));
  if (const Fault* f = fault("freeze"); f && f->hits(unit, rank)) sleep_for_ever();
}

void inject_master_fault(const std::vector<core::WorkUnit>& units) {
  const Fault* f = fault("master-throw");
  if (!f) return;
  for (const auto& u : units)
    if (u.id == f->unit)
      throw std::runtime_error("injected fault: NQUEENS_INJECT_FAULT=master-throw:" + std::to_string(u.id));
}

void inject_work_fault(const proto::WorkBatch& batch, int rank) {
  const Fault* f = fault("hang");
  if (!f) return;
  for (const auto& u : batch.units)
    if (f->hits(u.id, rank) || (f->rank == rank && u.id >= f->unit)) sleep_for_ever();
}

void inject_journal_fault(std::uint64_t journaled, const std::function<void()>& sync) {
  Fault* f = fault("stop-after");
  if (!f || journaled < f->unit || f->done.exchange(true)) return;
  sync();
  std::raise(SIGSTOP);
}

void inject_write_fault() {
  if (Fault* f = fault("stop-writing"); f && !f->done.exchange(true)) std::raise(SIGSTOP);
}

void inject_open_fault() {
  if (Fault* f = fault("stop-opening"); f && !f->done.exchange(true)) std::raise(SIGSTOP);
}

}  // namespace nq::cluster
