#include "propose/llm/profile_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace galapagos::propose {

namespace {

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

// The value of a metric over the launches (the largest: the launch that matters most), or NaN.
double metric(const std::vector<profile_fact>& m, const std::string& name) {
  double v = std::numeric_limits<double>::quiet_NaN();
  for (const auto& x : m)
    if (x.metric == name && !(x.value <= v)) v = x.value;
  return v;
}

std::string gpu_reading(const std::vector<profile_fact>& m) {
  std::string out;
  const double dram = metric(m, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
  const double sm = metric(m, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
  const double occupancy = metric(m, "sm__warps_active.avg.pct_of_peak_sustained_active");
  const double registers = metric(m, "launch__registers_per_thread");
  const double spill_ld = metric(m, "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum");
  const double spill_st = metric(m, "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum");
  if (std::isfinite(dram) && std::isfinite(sm))
    out += dram >= sm ? format("- DRAM throughput %.0f%% of peak against SM throughput %.0f%%: memory-bound.\n", dram, sm)
                      : format("- SM throughput %.0f%% of peak against DRAM throughput %.0f%%: compute-bound.\n", sm, dram);
  if (std::isfinite(occupancy))
    out += format("- Achieved occupancy %.0f%% of the warps an SM can hold", occupancy) +
           (occupancy < 40 ? " (low: fewer registers or shared memory per block, or more blocks, may hide latency better).\n"
                           : ".\n");
  if (std::isfinite(registers)) out += format("- %.0f registers per thread.\n", registers);
  const double spills = (std::isfinite(spill_ld) ? spill_ld : 0) + (std::isfinite(spill_st) ? spill_st : 0);
  if (spills > 0)
    out += format("- %.0f bytes of local-memory (register spill) traffic: reduce the live values per thread.\n", spills);
  else if (std::isfinite(spill_ld) || std::isfinite(spill_st))
    out += "- No register spills.\n";
  return out;
}

}  // namespace

std::string describe_profile(const profile_facts& f) {
  std::string out = "Profile of candidate " + std::to_string(f.candidate_id) + " (" + f.backend + "):\n";
  if (!(f.time_s > 0) || !std::isfinite(f.time_s)) return out + "- It has no correct measurement: nothing to profile.\n";
  if (f.floor_s > 0)
    out += format("- Roofline: measured %.3g s against the cost model's floor of %.3g s: %.1f%% of the roofline.\n", f.time_s,
                  f.floor_s, 100 * f.floor_s / f.time_s);
  else
    out += format("- Measured %.3g s (no floor: the family has no cost model).\n", f.time_s);
  const double gbs = f.bytes / f.time_s / 1e9, gflops = f.flops / f.time_s / 1e9;
  double memory_share = 0, compute_share = 0;
  if (f.bytes > 0) {
    memory_share = f.bandwidth_gbs > 0 ? gbs / f.bandwidth_gbs : 0;
    out += format("- Memory traffic (cost model, %.3g bytes): %.1f GB/s achieved", f.bytes, gbs) +
           (f.bandwidth_gbs > 0 ? format(", %.0f%% of the measured %.1f GB/s.\n", 100 * memory_share, f.bandwidth_gbs) : ".\n");
  }
  if (f.flops > 0) {
    compute_share = f.peak_gflops > 0 ? gflops / f.peak_gflops : 0;
    out += format("- Arithmetic (cost model, %.3g flops): %.1f GFLOP/s achieved", f.flops, gflops) +
           (f.peak_gflops > 0 ? format(", %.0f%% of the measured peak of %.0f GFLOP/s.\n", 100 * compute_share, f.peak_gflops)
                              : ".\n");
  }
  if (f.bytes > 0 && f.flops > 0 && f.bandwidth_gbs > 0 && f.peak_gflops > 0) {
    const double intensity = f.flops / f.bytes, ridge = f.peak_gflops / f.bandwidth_gbs;
    out += format("- Arithmetic intensity %.3g flop/byte against the machine's ridge point of %.3g: ", intensity, ridge) +
           (intensity < ridge ? "memory-bound by design: save traffic (blocking for cache reuse, fusing passes, fewer "
                                "reads and writes per element, streaming stores); more arithmetic speed will not help.\n"
                              : "compute-bound by design: vectorise, use fused multiply-adds, raise instruction-level "
                                "parallelism; memory traffic is not the limit.\n");
  }
  if (memory_share > 0 || compute_share > 0) {
    const double share = std::max(memory_share, compute_share);
    out += share > 0.8   ? "- It is close to its ceiling: big gains need less work, not faster work.\n"
           : share < 0.2 ? "- It is far from both ceilings: the code, not the hardware, limits it (parallelism, "
                           "vectorisation, access pattern, overheads).\n"
                         : "";
  }
  if (!f.metrics.empty()) {
    out += "Profiler metrics (Nsight Compute, per kernel launch):\n";
    int shown = 0;
    for (const auto& m : f.metrics) {
      if (++shown > 24) {
        out += "- ... (" + std::to_string(f.metrics.size() - 24) + " more)\n";
        break;
      }
      char buf[512];
      std::snprintf(buf, sizeof buf, "- %s: %s = %.4g %s\n", m.kernel.c_str(), m.metric.c_str(), m.value, m.unit.c_str());
      out += buf;
    }
    out += gpu_reading(f.metrics);
  } else if (f.backend != "cpu") {
    out += "- No profiler metrics for it (no Nsight Compute, or not profiled yet).\n";
  }
  return out;
}

}  // namespace galapagos::propose
