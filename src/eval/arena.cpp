#include "eval/arena.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "util/error.hpp"

namespace galapagos::eval {

arena::arena(std::size_t region_bytes, int regions, std::size_t misalign)
    : misalign_(misalign),
      region_bytes_(align(region_bytes == 0 ? 1 : region_bytes)),
      regions_(regions),
      bytes_(region_bytes_ * static_cast<std::size_t>(regions)) {
  if (regions < 1 || regions > max_regions) throw error("shared arena", "regions must be 1.." + std::to_string(max_regions));
  fd_ = memfd_create("galapagos-arena", MFD_CLOEXEC);
  if (fd_ < 0) throw error("shared arena", std::string("memfd_create failed: ") + std::strerror(errno));
  if (ftruncate(fd_, static_cast<off_t>(bytes_)) != 0) {
    close(fd_);
    throw error("shared arena", "cannot size " + std::to_string(bytes_) + " bytes: " + std::strerror(errno));
  }
  // Region 0 pre-faulted: the first evaluation would otherwise pay for every page as it stages its
  // inputs. The further regions of a timing batch are faulted in by their first inputs.
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | (regions_ == 1 ? MAP_POPULATE : 0), fd_, 0);
  if (p == MAP_FAILED) {
    close(fd_);
    throw error("shared arena", std::string("mmap failed: ") + std::strerror(errno));
  }
  data_ = static_cast<std::byte*>(p);
  if (regions_ > 1) std::memset(data_, 0, region_bytes_);
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
