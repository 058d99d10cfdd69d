// The node's ceilings, measured at the start of every run and stored in the results file:
// memory bandwidth (STREAM-like copy, triad and streaming-store copy, best of several) and a
// practical float64 peak (OpenBLAS dgemm), plus the last-level cache size and CPU model.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>

namespace galapagos::eval {

// The node's limits, for the roofline floor. Measured ones are never below what anything
// measured on the node achieved: a later probe or a library baseline that does better raises
// them, and each says where it came from. The hardware bound is what the processor's own
// description allows (cores x vector width x FMA pipes x clock); nothing can beat it.
struct ceilings {
  double bandwidth_gbs = 0;
  double peak_gflops = 0;      // float64
  double peak_gflops_f32 = 0;  // float32; 0: use peak_gflops
  std::size_t llc_bytes = 32u << 20;
  std::string bandwidth_source = "probe", peak_source = "probe", peak_f32_source = "probe";
  double hardware_gflops = 0, hardware_gflops_f32 = 0;  // 0: unknown
  std::string hardware_source;
};

// The processor's arithmetic bound from its description: online cores x FMA pipes (2, the most
// any x86 core has) x vector lanes (from the ISA flags) x 2 flops x the highest clock it reports
// (cpufreq's maximum; without cpufreq, 2.5 x the current clock, above every boost seen).
struct hardware_bound {
  double gflops = 0, gflops_f32 = 0;
  std::string description;
};
hardware_bound cpu_hardware_bound(int cores);

struct machine_probe {
  std::string host;
  std::string cpu_model;
  int cores = 0;
  std::size_t llc_bytes = 0;
  double bandwidth_gbs = 0;
  double peak_gflops = 0;      // OpenBLAS dgemm
  double peak_gflops_f32 = 0;  // OpenBLAS sgemm
  ceilings limits() const;
};

// The last-level cache this process's cores can fill: the largest data cache the kernel reports
// for CPU 0, but no more than kLlcPerCoreBytes per usable core (kLlcFloorBytes at least). A VM or
// a container on a few cores of a many-chiplet processor is told the whole socket's L3 (seen:
// 480 MiB on a 2-core VM of a 16-chiplet EPYC), of which its cores reach one chiplet's; sizing
// the cache flush and the bandwidth probe from that would flush gigabytes per timed run and
// allocate tens of gigabytes. kDefaultLlcBytes when the kernel reports no cache.
constexpr std::size_t kLlcPerCoreBytes = std::size_t{16} << 20, kLlcFloorBytes = std::size_t{64} << 20,
                      kDefaultLlcBytes = std::size_t{32} << 20;
std::size_t last_level_cache_bytes(int cores);
// The largest data or unified cache the kernel reports for CPU 0 (0: none reported).
std::size_t reported_llc_bytes();
// What this process may still allocate, in bytes: MemAvailable of /proc/meminfo (free pages when
// it is missing), less where a cgroup's memory limit (a Slurm job's, a container's; v1 or v2,
// the process's own cgroup and its ancestors) leaves less; 0 when unknown.
std::size_t available_memory_bytes();
std::string cpu_model_name();
// The vector and arithmetic extensions the CPU reports that a kernel writer cares about
// (e.g. "sse4_2 avx avx2 fma avx512f avx512dq avx512vl"); "" when unknown.
std::string cpu_isa_summary();
// Takes a few seconds: run it while the node is not busy (hold the node lock).
machine_probe probe_machine();
// The two halves of probe_machine. describe_machine is quick: host, CPU model, cache, and the
// cores this process may use (it widens its affinity to all of them and gives OpenMP one thread
// per core). measure_ceilings fills in the measured bandwidth and BLAS rates.
machine_probe describe_machine();
void measure_ceilings(machine_probe& p);
// Whether two probes describe nodes of one kind (CPU model, cores, cache), whose ceilings are the same.
bool same_machine_kind(const machine_probe& a, const machine_probe& b);
// The STREAM-like part alone (best of copy, triad and streaming-store copy), in GB/s.
double measure_bandwidth_gbs(std::size_t llc_bytes);
// The BLAS part alone: the best dgemm (or sgemm) rate of `reps` products of 1536 x 1536 and
// 4 x `reps` of 512 x 512, in GFLOP/s.
double measure_peak_gflops(bool single_precision, int reps = 6);

// The STREAM-like probe with its arrays (3 x the larger of 8 x the last-level cache and 256 MiB,
// within a quarter of the available memory)
// kept between measurements: for probes taken again and again, as between the rounds of a final
// comparison, where allocating and touching the arrays each time would cost more than measuring.
class bandwidth_probe {
 public:
  explicit bandwidth_probe(std::size_t llc_bytes);
  // The best rate of `reps` passes of copy, triad and streaming-store copy, each followed by
  // bursts over cold regions of half the LLC (see bursts()), in GB/s.
  double gbs(int reps);

 private:
  double bursts();
  struct aligned_free {
    void operator()(double* p) const { std::free(p); }
  };
  long n_;
  long burst_;  // doubles per burst region
  std::unique_ptr<double[], aligned_free> a_, b_, c_;
};

}  // namespace galapagos::eval
