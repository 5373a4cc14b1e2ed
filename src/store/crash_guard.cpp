#include "store/crash_guard.h"
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>

namespace nq::store {
namespace {

std::mutex g_mutex;
int g_depth = 0;
struct sigaction g_old_segv {}, g_old_bus {};
char g_line[1024];
std::atomic<std::size_t> g_length{0};

extern "C" void on_reader_crash(int) {   // (async-signal-safe: write and _exit only)
  const std::size_t n = g_length.load();
  if (n && ::write(STDERR_FILENO, g_line, n) < 0) {
  }
  ::_exit(kDamagedFileExit);
}

}  // namespace

CrashIsDamage::CrashIsDamage(const std::string& path) {
  const std::lock_guard lock(g_mutex);
  const std::string line = "nqueens: error: store::read: " + path +
                           ": the HDF5 library crashed reading it: the file is damaged; move it away, or run the job "
                           "that wrote it again\n";
  g_length.store(0);   // (a crash meanwhile says nothing rather than half a line)
  const std::size_t n = std::min(line.size(), sizeof g_line);
  std::memcpy(g_line, line.data(), n);
  g_length.store(n);
  if (g_depth++ == 0) {
    struct sigaction sa {};
    sa.sa_handler = on_reader_crash;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_old_segv);
    sigaction(SIGBUS, &sa, &g_old_bus);
  }
}

CrashIsDamage::~CrashIsDamage() {
  const std::lock_guard lock(g_mutex);
  if (--g_depth == 0) {
    sigaction(SIGSEGV, &g_old_segv, nullptr);
    sigaction(SIGBUS, &g_old_bus, nullptr);
  }
}

}  // namespace nq::store
