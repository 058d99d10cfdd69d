// The worker's CPU device: its flush before a timed run touches every page of every argument of
// every staged input set (a page left alone while a worker waits its turn is slow to touch again;
// docs/BENCHMARKS.md) and every resident page of the candidate's own memory, and its calibration
// work touches none of them.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cpu/cpu_device.hpp"
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

// A timing batch's further sets take the problem instance's generated inputs (a matrix) from set
// 0, so that a candidate's glp_setup for set 0's arguments serves every call of the batch; every
// other argument stays the set's own.
TEST(CpuDevice, FurtherSetsTakeTheArgumentsTheyAreToldFromSetZero) {
  std::vector<double> a0(64), x0(8), a1(64), x1(8), y1(8);
  const auto arg = [](std::vector<double>& v, int intent) {
    return be::arena_arg{reinterpret_cast<std::byte*>(v.data()), static_cast<std::int64_t>(v.size()), GLP_FLOAT64, intent};
  };
  auto dev = be::make_cpu_device(2, 1 << 20);
  const auto s0 = dev->stage({arg(a0, GLP_IN), arg(x0, GLP_IN)}, 0);
  const auto s1 = dev->stage({arg(a1, GLP_IN), arg(x1, GLP_IN), arg(y1, GLP_OUT)}, 1, 0b001);
  ASSERT_EQ(s1.size(), 3u);
  EXPECT_EQ(s1[0].data, s0[0].data) << "the matrix is set 0's";
  EXPECT_EQ(s1[1].data, static_cast<void*>(x1.data())) << "x is the set's own";
  EXPECT_EQ(s1[2].data, static_cast<void*>(y1.data()));
  const auto own = dev->stage({arg(a1, GLP_IN), arg(x1, GLP_IN)}, 1);
  EXPECT_EQ(own[0].data, static_cast<void*>(a1.data())) << "without the bit, the set's own bytes";
  const auto first = dev->stage({arg(a0, GLP_IN), arg(x0, GLP_IN)}, 0, 0b011);
  EXPECT_EQ(first[1].data, static_cast<void*>(x0.data())) << "set 0 has no first set to take from";
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

// What a candidate's glp_setup allocates is named by no staged argument: the flush also reads
// the resident pages of the process's private anonymous memory, and faults none in.
TEST(CpuDevice, FlushTouchesTheResidentPagesOfTheCandidatesOwnMemory) {
  constexpr std::size_t pages = 64;
  // Three private mappings between guard pages, so that the kernel merges them with nothing:
  // one written (resident, as a candidate's buffer is), one never touched, one to skip.
  constexpr std::size_t bytes = (3 * pages + 4) * page;
  auto* base = static_cast<std::byte*>(mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(base, MAP_FAILED);
  std::byte* used = base + page;
  std::byte* untouched = used + (pages + 1) * page;
  std::byte* skipped = untouched + (pages + 1) * page;
  for (std::byte* m : {used, untouched, skipped}) ASSERT_EQ(mprotect(m, pages * page, PROT_READ | PROT_WRITE), 0);
  for (std::size_t i = 0; i < pages * page; i += page) used[i] = skipped[i] = std::byte{1};
  const auto ranges = be::cpu::touch_private_pages(skipped, skipped + pages * page);
  auto find = [&](const std::byte* p) {
    for (const auto& r : ranges)
      if (r.lo == reinterpret_cast<std::uintptr_t>(p)) return r;
    return be::cpu::touched_range{};
  };
  EXPECT_EQ(find(used).hi, reinterpret_cast<std::uintptr_t>(used + pages * page));
  EXPECT_EQ(find(used).pages, pages) << "every resident page of the written mapping read";
  EXPECT_EQ(find(untouched).hi, reinterpret_cast<std::uintptr_t>(untouched + pages * page));
  EXPECT_EQ(find(untouched).pages, 0u);
  EXPECT_EQ(find(skipped).hi, reinterpret_cast<std::uintptr_t>(skipped + pages * page));
  EXPECT_EQ(find(skipped).pages, 0u) << "the skipped range is not read";
  std::vector<unsigned char> v(pages);
  ASSERT_EQ(mincore(untouched, pages * page, v.data()), 0);
  for (std::size_t i = 0; i < pages; ++i) EXPECT_EQ(v[i] & 1, 0) << "page " << i << " of the untouched mapping faulted in";
  // The device's flush does the same before a timed run (and leaves the bytes alone).
  auto dev = be::make_cpu_device(2, 1 << 20);
  dev->flush();
  for (std::size_t i = 0; i < pages * page; i += page) ASSERT_EQ(used[i], std::byte{1});
  munmap(base, bytes);
}
