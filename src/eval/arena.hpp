// Shared memory between the orchestrator and its workers: one memfd mapped by both sides.
// The orchestrator fills inputs and poisons outputs here; the worker hands these addresses to
// the candidate; the orchestrator reads the outputs back and compares them in private memory.
#pragma once

#include <cstddef>
#include <cstdint>

namespace galapagos::eval {

class arena {
 public:
  explicit arena(std::size_t bytes);  // throws galapagos::error when memory is short
  arena(const arena&) = delete;
  arena& operator=(const arena&) = delete;
  ~arena();

  std::byte* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  int fd() const { return fd_; }
  static std::size_t align(std::size_t n) { return (n + 4095) & ~std::size_t{4095}; }

 private:
  int fd_ = -1;
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace galapagos::eval
