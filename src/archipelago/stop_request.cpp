#include "archipelago/stop_request.hpp"

#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
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

namespace {

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

bool stop_request::poll() {
  const auto now = std::chrono::steady_clock::now();
  if (signal_seen && !told_signal_) {
    told_signal_ = true;
    raise(signal_time_point() + seconds(grace_s_), run::stop_reason::signal, true);
  }
  for (auto it = timers_.begin(); it != timers_.end();)
    if (now >= it->first) {
      raise(now + seconds(grace_s_), it->second, true);
      it = timers_.erase(it);
    } else {
      ++it;
    }
  for (auto& [src, text] : control_.poll()) {
    // "stop <seconds left> <reason>": clocks of different nodes are not comparable, durations are.
    std::istringstream words(text.substr(text.find(' ') + 1));
    double left_s = 0;
    int why = static_cast<int>(run::stop_reason::signal);
    words >> left_s >> why;
    raise(now + seconds(left_s), static_cast<run::stop_reason>(why), false);
    (void)src;
  }
  return requested_;
}

void stop_request::request(run::stop_reason why) { raise(std::chrono::steady_clock::now() + seconds(grace_s_), why, true); }

void stop_request::stop_at(std::chrono::steady_clock::time_point when, run::stop_reason why) { timers_.emplace_back(when, why); }

void stop_request::raise(std::chrono::steady_clock::time_point deadline, run::stop_reason why, bool own) {
  const bool earlier = !requested_ || deadline < deadline_;
  deadline_ = requested_ ? std::min(deadline_, deadline) : deadline;
  requested_ = true;
  const bool stronger = why > reason_;
  reason_ = std::max(reason_, why);
  if (own && (earlier || stronger)) tell_others();
}

void stop_request::tell_others() {
  const double left_s = std::chrono::duration<double>(deadline_ - std::chrono::steady_clock::now()).count();
  for (int r = 0; r < control_.size(); ++r)
    if (r != control_.rank())
      control_.send(r, "stop " + std::to_string(left_s) + " " + std::to_string(static_cast<int>(reason_)));
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

run::stop_reason stop_request::agree() {
  poll();
  int mine = requested_ ? std::max(1, static_cast<int>(reason_)) : 0, strongest = 0;
  MPI_Allreduce(&mine, &strongest, 1, MPI_INT, MPI_MAX, barrier_comm_);
  control_.finish();  // stop messages still in flight: everyone already knows
  return static_cast<run::stop_reason>(strongest);
}

}  // namespace galapagos::archipelago
