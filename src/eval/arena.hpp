// Shared memory between the orchestrator and its workers: one memfd mapped by both sides.
// The orchestrator fills inputs and poisons outputs here; the worker hands these addresses to
// the candidate; the orchestrator reads the outputs back and compares them in private memory.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace galapagos::eval {

// It is cut into `regions` equal regions: a problem lives in one (region 0 holds every
// acceptance size and the fitness size; regions 1.. hold the further input sets of a timing
// batch). Region 0 is faulted in at once; the others when first written.
class arena {
 public:
  static constexpr int max_regions = 16;
  // misalign: every argument's slot starts this many bytes past a page boundary (0: aligned), so
  // that a check can hand candidates pointers that no vector width divides (`family check`).
  explicit arena(std::size_t region_bytes, int regions = 1,
                 std::size_t misalign = 0);  // throws galapagos::error when memory is short
  arena(const arena&) = delete;
  arena& operator=(const arena&) = delete;
  ~arena();

  std::byte* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  std::size_t region_bytes() const { return region_bytes_; }
  int regions() const { return regions_; }
  int fd() const { return fd_; }
  static std::size_t align(std::size_t n) { return (n + 4095) & ~std::size_t{4095}; }
  // Bytes one argument of n bytes takes in an arena of this misalignment (its slot starts
  // `misalign` bytes in and ends on a page boundary).
  static std::size_t slot_bytes(std::size_t n, std::size_t misalign) { return align(n + misalign); }
  std::size_t misalign() const { return misalign_; }
  // Which problem staged its inputs into a region last (problems of several sizes share region 0).
  void staged_by(int region, const void* problem) { staged_by_[static_cast<std::size_t>(region)] = problem; }
  const void* staged_by(int region) const { return staged_by_[static_cast<std::size_t>(region)]; }

 private:
  std::array<const void*, max_regions> staged_by_{};
  std::size_t misalign_ = 0;
  std::size_t region_bytes_ = 0;
  int regions_ = 1;
  int fd_ = -1;
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Memory the orchestrator shares with the family's own process (family_process.hpp) and with no
// worker: a MAP_SHARED anonymous mapping, inherited by a fork, dropped by the exec that starts a
// worker. The problems' private inputs and reference outputs live here.
class shared_bytes {
 public:
  // Zeroed; `populate`: every page faulted in now (memory written on every run), else on first
  // use (expected outputs that a family with a checker never writes at the fitness size). Throws
  // galapagos::error when memory is short.
  explicit shared_bytes(std::size_t n = 0, bool populate = false);
  shared_bytes(shared_bytes&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr, o.size_ = 0; }
  shared_bytes& operator=(shared_bytes&& o) noexcept;
  shared_bytes(const shared_bytes&) = delete;
  shared_bytes& operator=(const shared_bytes&) = delete;
  ~shared_bytes();

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace galapagos::eval
