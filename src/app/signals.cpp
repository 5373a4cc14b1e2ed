#include "app/signals.h"
#include <atomic>
#include <cstdint>
#include <ctime>
#include <csignal>
#include <initializer_list>

namespace nq::app {
namespace {
// Written by the handler, read by other threads: it must be a lock-free atomic (a
// volatile sig_atomic_t is only safe within the interrupted thread).
static_assert(std::atomic<int>::is_always_lock_free, "the signal flag must be a lock-free atomic");
std::atomic<int> g_signal{0};
std::atomic<int> g_count{0};
std::atomic<std::int64_t> g_last_ns{0};   // CLOCK_MONOTONIC of the last one
static_assert(std::atomic<std::int64_t>::is_always_lock_free, "the signal time must be a lock-free atomic");
extern "C" void on_stop_signal(int sig) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);   // (async-signal-safe)
  g_last_ns.store(std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec);
  g_signal.store(sig);
  g_count.fetch_add(1);
}
}  // namespace

void install_master_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGUSR1, SIGINT}) sigaction(sig, &sa, nullptr);
}

void install_worker_signals() {
  std::signal(SIGTERM, SIG_IGN);
  std::signal(SIGUSR1, SIG_IGN);
}

void ignore_lost_readers() { std::signal(SIGPIPE, SIG_IGN); }

bool stop_signal_received() { return g_signal.load() != 0; }
int stop_signal() { return g_signal.load(); }
int stop_signal_count() { return g_count.load(); }

core::StopFn stop_on_signal() {
  return [] { return stop_signal_received(); };
}

core::StopFn stop_on_new_signal() {
  const int before = stop_signal_count();
  const std::int64_t since = g_last_ns.load();
  return [before, since] {
    if (stop_signal_count() <= before) return false;
    return before == 0 || g_last_ns.load() - since >= std::int64_t{kSameStopSeconds} * 1'000'000'000;
  };
}

}  // namespace nq::app
