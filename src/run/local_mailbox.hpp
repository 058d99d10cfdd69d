// Several islands of a run in one process (unit tests, and anything that drives islands without
// MPI): a post office holding one queue per island, and the mailbox each island sees. Safe to
// use from one thread per island.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "run/mailbox.hpp"

namespace galapagos::run {

class local_post {
 public:
  explicit local_post(int islands);
  ~local_post();
  local_post(const local_post&) = delete;
  local_post& operator=(const local_post&) = delete;
  // The mailbox of island `rank`; it lives as long as the post.
  mailbox& box(int rank);
  int size() const { return static_cast<int>(boxes_.size()); }

 private:
  class local_mailbox;
  friend class local_mailbox;
  std::mutex mutex_;
  std::vector<std::vector<std::pair<int, std::string>>> queues_;  // per destination: (source, payload)
  std::vector<std::unique_ptr<local_mailbox>> boxes_;
};

// A stop request raised by hand (request()), seen by every island that polls it.
class local_stop : public stop_signal {
 public:
  void request() { request(stop_reason::signal); }
  void request(stop_reason why) override {
    int now = reason_.load();
    while (static_cast<int>(why) > now && !reason_.compare_exchange_weak(now, static_cast<int>(why))) {
    }
    requested_ = true;
  }
  bool poll() override { return requested_; }
  bool requested() const override { return requested_; }
  stop_reason reason() const override { return static_cast<stop_reason>(reason_.load()); }
  bool out_of_time(double) const override { return requested_; }

 private:
  std::atomic<bool> requested_{false};
  std::atomic<int> reason_{0};
};

}  // namespace galapagos::run
