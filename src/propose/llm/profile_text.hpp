// What is known of a candidate's performance, read for a model: its place on the roofline (the
// cost model's floor against its measured time), the bandwidth and arithmetic rate it achieved
// against the measured ceilings, whether that makes it memory- or compute-bound, and on GPUs the
// profiler's metrics (Nsight Compute) with a short reading of occupancy, spills and throughput.
// Plain numbers in, text out: the island gathers the facts, the prompt and the profile tool use
// the text.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace galapagos::propose {

struct profile_fact {  // one profiler metric of one kernel launch
  std::string kernel, metric, unit;
  double value = 0;
};

struct profile_facts {
  std::int64_t candidate_id = -1;
  std::string backend;  // cpu, cuda, hip
  double time_s = std::numeric_limits<double>::quiet_NaN();
  double floor_s = std::numeric_limits<double>::quiet_NaN();  // the cost model's floor at the fitness size
  double bytes = 0, flops = 0;                                // the cost model's, at the fitness size
  double bandwidth_gbs = 0, peak_gflops = 0;                  // the ceilings the floor is computed from
  std::vector<profile_fact> metrics;                          // the profiler's (GPUs), when taken
};

// A few lines: "roofline: ...", "memory traffic: ...", "arithmetic: ...", "bound: ...", then the
// profiler's metrics and their reading. A candidate without a correct time says so.
std::string describe_profile(const profile_facts& f);

}  // namespace galapagos::propose
