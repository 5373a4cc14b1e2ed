#include "app/signals.h"
#include <csignal>
#include <initializer_list>

namespace nq::app {
namespace {
volatile std::sig_atomic_t g_signal = 0;
extern "C" void on_stop_signal(int sig) { g_signal = sig; }
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

bool stop_signal_received() { return g_signal != 0; }
int stop_signal() { return g_signal; }

}  // namespace nq::app
