#include "eval/node_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.hpp"

namespace galapagos::eval {

node_lock::node_lock(const std::filesystem::path& file) {
  if (file.empty()) return;
  fd_ = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) throw error(file.string(), std::string("cannot open the node lock: ") + std::strerror(errno));
}

node_lock::~node_lock() {
  if (fd_ >= 0) close(fd_);
}

void node_lock::lock() {
  if (fd_ < 0) return;
  while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
  }
}

void node_lock::unlock() {
  if (fd_ >= 0) flock(fd_, LOCK_UN);
}

}  // namespace galapagos::eval
