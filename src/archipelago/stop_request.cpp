#include "archipelago/stop_request.hpp"

#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>

namespace galapagos::archipelago {

namespace {

volatile sig_atomic_t signal_seen = 0;
timespec signal_time{};  // CLOCK_MONOTONIC, the clock of std::chrono::steady_clock on Linux

extern "C" void on_stop_signal(int) {
  if (!signal_seen) clock_gettime(CLOCK_MONOTONIC, &signal_time);  // async-signal-safe
  signal_seen = 1;
}

std::chrono::steady_clock::time_point signal_time_point() {
  const auto since_boot = std::chrono::seconds(signal_time.tv_sec) + std::chrono::nanoseconds(signal_time.tv_nsec);
  return std::chrono::steady_clock::time_point(std::chrono::duration_cast<std::chrono::steady_clock::duration>(since_boot));
}

}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // interrupted reads and writes resume instead of failing
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGUSR1, &sa, nullptr);
}

stop_request::stop_request(MPI_Comm comm, double grace_s) : control_(comm), grace_s_(grace_s) {
  MPI_Comm_dup(comm, &barrier_comm_);
}

stop_request::~stop_request() { MPI_Comm_free(&barrier_comm_); }

bool stop_request::poll() {
  const auto now = std::chrono::steady_clock::now();
  if (signal_seen && !told_) {
    const auto deadline = signal_time_point() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                    std::chrono::duration<double>(grace_s_));
    deadline_ = requested_ ? std::min(deadline_, deadline) : deadline;
    requested_ = true;
    tell_others();
  }
  for (auto& [src, text] : control_.poll()) {
    // "stop <seconds left>": clocks of different nodes are not comparable, durations are.
    const double left_s = std::stod(text.substr(text.find(' ') + 1));
    const auto deadline =
        now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(left_s));
    deadline_ = requested_ ? std::min(deadline_, deadline) : deadline;
    requested_ = true;
    (void)src;
  }
  return requested_;
}

void stop_request::tell_others() {
  told_ = true;
  const double left_s = std::chrono::duration<double>(deadline_ - std::chrono::steady_clock::now()).count();
  for (int r = 0; r < control_.size(); ++r)
    if (r != control_.rank()) control_.send(r, "stop " + std::to_string(left_s));
}

bool stop_request::out_of_time(double next_s) const {
  if (!requested_) return false;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                          std::chrono::duration<double>(next_s + 0.25 * grace_s_));
  return end > deadline_;
}

void stop_request::wait_for_all(const std::function<void()>& idle) {
  MPI_Request r;
  MPI_Ibarrier(barrier_comm_, &r);
  int done = 0;
  while (!done) {
    poll();
    if (idle) idle();
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

bool stop_request::agree() {
  poll();
  int mine = requested_ ? 1 : 0, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, barrier_comm_);
  control_.finish();  // stop messages still in flight: everyone already knows
  return any != 0;
}

}  // namespace galapagos::archipelago
