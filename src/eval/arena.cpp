#include "eval/arena.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "util/error.hpp"

namespace galapagos::eval {

arena::arena(std::size_t bytes, std::size_t misalign) : misalign_(misalign), bytes_(align(bytes == 0 ? 1 : bytes)) {
  fd_ = memfd_create("galapagos-arena", MFD_CLOEXEC);
  if (fd_ < 0) throw error("shared arena", std::string("memfd_create failed: ") + std::strerror(errno));
  if (ftruncate(fd_, static_cast<off_t>(bytes_)) != 0) {
    close(fd_);
    throw error("shared arena", "cannot size " + std::to_string(bytes_) + " bytes: " + std::strerror(errno));
  }
  // Pre-faulted: the first evaluation would otherwise pay for every page as it stages its inputs.
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd_, 0);
  if (p == MAP_FAILED) {
    close(fd_);
    throw error("shared arena", std::string("mmap failed: ") + std::strerror(errno));
  }
  data_ = static_cast<std::byte*>(p);
}

arena::~arena() {
  if (data_) munmap(data_, bytes_);
  if (fd_ >= 0) close(fd_);
}

shared_bytes::shared_bytes(std::size_t n, bool populate) : size_(n) {
  if (n == 0) return;
  const int flags = MAP_SHARED | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0);
  void* p = mmap(nullptr, arena::align(n), PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) throw error("shared memory", "cannot map " + std::to_string(n) + " bytes: " + std::strerror(errno));
  data_ = static_cast<std::byte*>(p);
}

shared_bytes& shared_bytes::operator=(shared_bytes&& o) noexcept {
  if (this != &o) {
    if (data_) munmap(data_, arena::align(size_));
    data_ = o.data_, size_ = o.size_;
    o.data_ = nullptr, o.size_ = 0;
  }
  return *this;
}

shared_bytes::~shared_bytes() {
  if (data_) munmap(data_, arena::align(size_));
}

}  // namespace galapagos::eval
