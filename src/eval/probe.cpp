#include "eval/probe.hpp"

#include <emmintrin.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cpu/cpu_device.hpp"

extern "C" void sgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const float* alpha,
                       const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c,
                       const int* ldc);
extern "C" void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
                       const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
                       const int* ldc);

namespace galapagos::eval {

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// dst[i] = src[i] for i in [from, to), on every core; `streaming`: with streaming stores (from and
// to even: 16-byte aligned pairs), fenced.
void copy_range(double* dst, const double* src, long from, long to, bool streaming) {
  if (streaming) {
#pragma omp parallel for schedule(static)
    for (long i = from; i < to; i += 2) _mm_stream_pd(dst + i, _mm_load_pd(src + i));
    _mm_sfence();
  } else {
#pragma omp parallel for schedule(static)
    for (long i = from; i < to; ++i) dst[i] = src[i];
  }
}

// Doubles per array of the STREAM-like probe: 8 x the LLC, at least 256 MiB, and the three
// arrays within a quarter of the memory available now (never below 32 MiB each): a probe must not
// be what runs a node out of memory.
long probe_elements(std::size_t llc_bytes) {
  std::size_t bytes = std::max<std::size_t>(8 * llc_bytes, std::size_t{256} << 20);
  if (const std::size_t avail = available_memory_bytes(); avail > 0)
    bytes = std::min(bytes, std::max<std::size_t>(avail / 12, std::size_t{32} << 20));
  return static_cast<long>(bytes / sizeof(double)) & ~7L;
}

}  // namespace

bandwidth_probe::bandwidth_probe(std::size_t llc_bytes)
    : n_(probe_elements(llc_bytes)),
      burst_(std::clamp(static_cast<long>(llc_bytes / 2 / sizeof(double)), 1L << 18, n_ / 8) & ~7L) {
  for (auto* b : {&a_, &b_, &c_}) {
    b->reset(static_cast<double*>(std::aligned_alloc(64, static_cast<std::size_t>(n_) * sizeof(double))));
    if (!*b) throw std::bad_alloc();
  }
  double* A = a_.get();
  double* B = b_.get();
  double* C = c_.get();
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n_; ++i) {
    A[i] = 1.0;
    B[i] = 2.0;
    C[i] = 0.5;
  }
}

double bandwidth_probe::gbs(int reps) {
  double* A = a_.get();
  double* B = b_.get();
  double* C = c_.get();
  const long n = n_;
  double best = 0;
  const double bytes2 = 2.0 * 8 * static_cast<double>(n), bytes3 = 3.0 * 8 * static_cast<double>(n);
  for (int rep = 0; rep < reps; ++rep) {
    double t = now_s();
    copy_range(C, A, 0, n, false);
    best = std::max(best, bytes2 / (now_s() - t));
    t = now_s();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) A[i] = B[i] + 3.0 * C[i];
    best = std::max(best, bytes3 / (now_s() - t));
    // Streaming stores skip the read-for-ownership of the destination: the real read+write rate.
    t = now_s();
    copy_range(C, B, 0, n, true);
    best = std::max(best, bytes2 / (now_s() - t));
    best = std::max(best, bursts());
  }
  return best / 1e9;
}

// A candidate is timed in one short run on cold caches, and on a busy node a run of a millisecond
// can find both cores free while a pass over 256 MiB cannot: its threads are descheduled now and
// then, and the pass waits for the slower one. So the rate is also taken the way candidates are
// timed: half the LLC's worth of each array at a time, regions that no pass has touched since
// the last one over the whole arrays (every pass moves 8 x the LLC, so only the arrays' ends stay
// cached, and the regions are taken from the start), copied with normal and with streaming
// stores in turn: the best burst, in bytes per second.
double bandwidth_probe::bursts() {
  const double* A = a_.get();
  const double* B = b_.get();
  double* C = c_.get();
  const long m = burst_;
  double best = 0;
  for (long at = 0, k = 0; at + m <= n_ / 2; at += m, ++k) {
    const double t = now_s();
    copy_range(C, k % 2 == 0 ? A : B, at, at + m, k % 2 == 1);
    best = std::max(best, 2.0 * 8 * static_cast<double>(m) / (now_s() - t));
  }
  return best;
}

double measure_bandwidth_gbs(std::size_t llc) { return bandwidth_probe(llc).gbs(10); }

namespace {

// The best of a few BLAS matrix products: the practical peak of this node's arithmetic. Then the
// best of several small products: on a busy node a product of a few milliseconds can find the
// cores free, as a candidate's short run can, while one of tens of milliseconds is descheduled
// part of the time (the same reason as bandwidth_probe::bursts()).
template <class T, class Gemm>
double gemm_gflops(Gemm gemm, int reps) {
  double best = 0;
  for (const int n : {1536, 512}) {
    std::vector<T> a(static_cast<std::size_t>(n) * n, T(0.5)), b(a.size(), T(0.25)), c(a.size(), T(0));
    const T one = 1, zero = 0;
    const int count = n == 1536 ? reps : 4 * reps;
    for (int rep = 0; rep <= count; ++rep) {  // the first call starts the library's threads: not counted
      const double t = now_s();
      gemm("N", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero, c.data(), &n);
      if (rep > 0) best = std::max(best, 2.0 * n * static_cast<double>(n) * n / (now_s() - t));
    }
  }
  return best / 1e9;
}

}  // namespace

double measure_peak_gflops(bool single_precision, int reps) {
  return single_precision ? gemm_gflops<float>(sgemm_, reps) : gemm_gflops<double>(dgemm_, reps);
}

std::size_t reported_llc_bytes() {
  std::size_t best = 0;
  for (int idx = 0; idx < 8; ++idx) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx) + "/";
    std::ifstream size(dir + "size"), type(dir + "type");
    std::string s, t;
    if (!(size >> s) || !(type >> t) || t == "Instruction") continue;
    std::size_t v = std::stoull(s);
    if (s.back() == 'K') v <<= 10;
    if (s.back() == 'M') v <<= 20;
    best = std::max(best, v);
  }
  return best;
}

std::size_t last_level_cache_bytes(int cores) {
  const std::size_t reported = reported_llc_bytes();
  if (reported == 0) return kDefaultLlcBytes;
  const std::size_t reach =
      std::max<std::size_t>(kLlcFloorBytes, static_cast<std::size_t>(std::max(cores, 1)) * kLlcPerCoreBytes);
  return std::min(reported, reach);
}

namespace {

std::size_t read_bytes(const std::string& path) {  // a cgroup memory file: a number or "max"
  std::ifstream in(path);
  std::string v;
  if (!(in >> v) || v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return SIZE_MAX;
  return std::stoull(v);
}

// What the cgroups this process is in (the Slurm job's, a container's) still let it allocate:
// for each ancestor with a memory limit, the limit less its usage; SIZE_MAX without limits.
std::size_t cgroup_headroom() {
  std::ifstream in("/proc/self/cgroup");
  std::size_t headroom = SIZE_MAX;
  for (std::string line; std::getline(in, line);) {
    std::string root, limit, usage;
    if (line.rfind("0::", 0) == 0) {
      root = "/sys/fs/cgroup", limit = "memory.max", usage = "memory.current";
    } else if (line.find(":memory:") != std::string::npos) {
      root = "/sys/fs/cgroup/memory", limit = "memory.limit_in_bytes", usage = "memory.usage_in_bytes";
    } else {
      continue;
    }
    for (std::string dir = line.substr(line.find(':', line.find(':') + 1) + 1);;) {  // the cgroup, then its ancestors
      const std::string at = root + dir;
      const std::size_t max = read_bytes(at + "/" + limit), used = read_bytes(at + "/" + usage);
      if (max != SIZE_MAX && used != SIZE_MAX) headroom = std::min(headroom, max > used ? max - used : 0);
      const auto up = dir.rfind('/');
      if (dir.empty() || dir == "/" || up == std::string::npos) break;
      dir.resize(up);
    }
  }
  return headroom;
}

}  // namespace

std::size_t available_memory_bytes() {
  std::size_t avail = 0;
  std::ifstream in("/proc/meminfo");
  for (std::string key; in >> key;) {
    if (key == "MemAvailable:" && in >> avail) {
      avail <<= 10;
      break;
    }
    in.ignore(1 << 10, '\n');
  }
  if (avail == 0) {
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) avail = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
  }
  const std::size_t cg = cgroup_headroom();
  return cg == SIZE_MAX ? avail : avail == 0 ? cg : std::min(avail, cg);
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string cpu_isa_summary() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream flags(line.substr(line.find(':') + 1));
    std::string out;
    for (std::string f; flags >> f;)
      if (f == "sse4_2" || f == "avx" || f == "avx2" || f == "fma" || f.rfind("avx512", 0) == 0 || f == "amx_tile" || f == "sve")
        out += (out.empty() ? "" : " ") + f;
    return out;
  }
  return "";
}

hardware_bound cpu_hardware_bound(int cores) {
  hardware_bound h;
  int lanes64 = 1;
  std::ifstream info("/proc/cpuinfo");
  double mhz = 0;
  std::string isa = "scalar";
  for (std::string line; std::getline(info, line);) {
    if (line.rfind("cpu MHz", 0) == 0) mhz = std::max(mhz, std::atof(line.substr(line.find(':') + 1).c_str()));
    if (line.rfind("flags", 0) != 0 || lanes64 > 1) continue;
    const std::string flags = " " + line.substr(line.find(':') + 1) + " ";
    if (flags.find(" avx512f ") != std::string::npos)
      lanes64 = 8, isa = "avx512f";
    else if (flags.find(" avx ") != std::string::npos)
      lanes64 = 4, isa = "avx";
    else if (flags.find(" sse2 ") != std::string::npos)
      lanes64 = 2, isa = "sse2";
  }
  double ghz = 0;
  std::string clock_from;
  for (int c = 0; c < 4096; ++c) {
    std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(c) + "/cpufreq/cpuinfo_max_freq");
    double khz = 0;
    if (!(f >> khz)) break;
    ghz = std::max(ghz, khz / 1e6);
    clock_from = "cpuinfo_max_freq";
  }
  if (ghz <= 0 && mhz > 0) {
    ghz = 2.5 * mhz / 1e3;
    clock_from = "2.5 x cpu MHz";
  }
  if (ghz <= 0 || cores <= 0) return h;
  const double per_cycle = 2.0 * lanes64 * 2.0;  // FMA pipes x lanes x (multiply + add)
  h.gflops = cores * per_cycle * ghz;
  h.gflops_f32 = 2 * h.gflops;
  char buf[200];
  std::snprintf(buf, sizeof buf, "hardware: %d cores x %.0f float64 flops/cycle (%s, 2 FMA pipes) x %.2f GHz (%s)", cores,
                per_cycle, isa.c_str(), ghz, clock_from.c_str());
  h.description = buf;
  return h;
}

ceilings machine_probe::limits() const {
  ceilings c;
  c.bandwidth_gbs = bandwidth_gbs;
  c.peak_gflops = peak_gflops;
  c.peak_gflops_f32 = peak_gflops_f32;
  c.llc_bytes = llc_bytes;
  c.bandwidth_source = "STREAM-like probe at start";
  c.peak_source = "dgemm probe at start";
  c.peak_f32_source = "sgemm probe at start";
  const auto hw = cpu_hardware_bound(cores);
  c.hardware_gflops = hw.gflops;
  c.hardware_gflops_f32 = hw.gflops_f32;
  c.hardware_source = hw.description;
  return c;
}

machine_probe describe_machine() {
  machine_probe p;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  p.host = host;
  p.cpu_model = cpu_model_name();
  p.cores = backends::cpu::widen_affinity();
  omp_set_num_threads(p.cores);
  p.llc_bytes = last_level_cache_bytes(p.cores);
  return p;
}

void measure_ceilings(machine_probe& p) {
  p.bandwidth_gbs = measure_bandwidth_gbs(p.llc_bytes);
  p.peak_gflops = measure_peak_gflops(false);
  p.peak_gflops_f32 = measure_peak_gflops(true);
}

machine_probe probe_machine() {
  machine_probe p = describe_machine();
  measure_ceilings(p);
  return p;
}

bool same_machine_kind(const machine_probe& a, const machine_probe& b) {
  return a.cpu_model == b.cpu_model && a.cores == b.cores && a.llc_bytes == b.llc_bytes;
}

}  // namespace galapagos::eval
