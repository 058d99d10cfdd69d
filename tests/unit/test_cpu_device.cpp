// The worker's CPU device: its flush before a timed run touches every page of every argument of
// every staged input set (a page left alone while a worker waits its turn is slow to touch again;
// docs/BENCHMARKS.md), and its calibration work touches none of them.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/device.hpp"

namespace be = galapagos::backends;

namespace {

constexpr std::size_t page = 4096;

// Shared memory as the arena is (a memfd): a page exists once something touched it.
class memfd_pages {
 public:
  explicit memfd_pages(std::size_t pages) : bytes_(pages * page) {
    fd_ = memfd_create("test-cpu-device", MFD_CLOEXEC);
    if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(bytes_)) != 0) return;
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p != MAP_FAILED) data_ = static_cast<std::byte*>(p);
  }
  ~memfd_pages() {
    if (data_) munmap(data_, bytes_);
    if (fd_ >= 0) close(fd_);
  }
  memfd_pages(const memfd_pages&) = delete;
  memfd_pages& operator=(const memfd_pages&) = delete;
  std::byte* data() const { return data_; }
  // Which pages exist now.
  std::vector<bool> resident() const {
    std::vector<unsigned char> v(bytes_ / page);
    std::vector<bool> out(v.size());
    if (mincore(data_, bytes_, v.data()) != 0) return out;
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i] & 1;
    return out;
  }

 private:
  std::size_t bytes_;
  int fd_ = -1;
  std::byte* data_ = nullptr;
};

std::size_t count(const std::vector<bool>& v) {
  std::size_t n = 0;
  for (bool b : v) n += b;
  return n;
}

}  // namespace

TEST(CpuDevice, FlushTouchesEveryPageOfEveryStagedArgumentOfEverySet) {
  memfd_pages set0(48), set1(24);
  ASSERT_NE(set0.data(), nullptr);
  ASSERT_NE(set1.data(), nullptr);
  ASSERT_EQ(count(set0.resident()), 0u);
  auto dev = be::make_cpu_device(2, 1 << 20);
  // Set 0: a float64 input of 10 pages and a float32 output ending 4 bytes into its 30th page
  // (the last page holds only part of it); set 1: an int32 argument of 23 pages' worth of bytes,
  // starting 100 bytes into its first page and so reaching 100 bytes into its 24th (an argument
  // need not start on a page).
  const std::vector<be::arena_arg> a0 = {
      {set0.data(), 10 * page / 8, GLP_FLOAT64, GLP_IN},
      {set0.data() + 10 * page, static_cast<std::int64_t>(29 * page / 4 + 1), GLP_FLOAT32, GLP_OUT}};
  const std::vector<be::arena_arg> a1 = {{set1.data() + 100, static_cast<std::int64_t>(23 * page / 4), GLP_INT32, GLP_INOUT}};
  dev->stage(a0, 0);
  dev->stage(a1, 1);
  dev->flush();
  const auto r0 = set0.resident(), r1 = set1.resident();
  for (std::size_t i = 0; i < 48; ++i) EXPECT_EQ(r0[i], i < 40) << "set 0, page " << i;
  for (std::size_t i = 0; i < 24; ++i) EXPECT_TRUE(r1[i]) << "set 1, page " << i;
}

TEST(CpuDevice, FlushTouchesOnlyWhatWasStagedAndLeavesItsBytesAlone) {
  memfd_pages arena(64);
  ASSERT_NE(arena.data(), nullptr);
  for (std::size_t i = 0; i < 8 * page; ++i) arena.data()[i] = std::byte{0x5a};  // pages 0-7 exist
  auto dev = be::make_cpu_device(2, 1 << 20);
  dev->run_calibration_work();
  EXPECT_EQ(count(arena.resident()), 8u) << "nothing staged yet: nothing to touch";
  // Pages 16-31 staged: 16 more pages exist after the flush, none of 32-63.
  dev->stage({{arena.data() + 16 * page, static_cast<std::int64_t>(16 * page / 8), GLP_FLOAT64, GLP_IN}}, 0);
  dev->run_calibration_work();
  EXPECT_EQ(count(arena.resident()), 8u) << "the calibration work is the cache sweep alone";
  dev->flush();
  const auto r = arena.resident();
  for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(r[i], i < 8 || (i >= 16 && i < 32)) << "page " << i;
  for (std::size_t i = 0; i < 8 * page; ++i) ASSERT_EQ(arena.data()[i], std::byte{0x5a}) << "byte " << i;
  for (std::size_t i = 16 * page; i < 32 * page; ++i) ASSERT_EQ(arena.data()[i], std::byte{0}) << "byte " << i;
}
