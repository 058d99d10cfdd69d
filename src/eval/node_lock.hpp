// Islands that share a node take turns at building and timing, so that no measurement runs
// beside another island's compiler or kernel. An flock on a node-local file: released by the
// kernel if the holder dies.
#pragma once

#include <filesystem>

namespace galapagos::eval {

class node_lock {
 public:
  explicit node_lock(const std::filesystem::path& file);  // empty path: a no-op lock
  node_lock(const node_lock&) = delete;
  node_lock& operator=(const node_lock&) = delete;
  ~node_lock();
  void lock();
  void unlock();

 private:
  int fd_ = -1;
};

class node_lock_guard {
 public:
  explicit node_lock_guard(node_lock& l) : l_(l) { l_.lock(); }
  ~node_lock_guard() { l_.unlock(); }
  node_lock_guard(const node_lock_guard&) = delete;
  node_lock_guard& operator=(const node_lock_guard&) = delete;

 private:
  node_lock& l_;
};

}  // namespace galapagos::eval
