// write_sample_results FILE: writes a small, fixed results file. check_roundtrip.py reads it
// back with h5py and asserts exactly these values, so the two files change together.
#include <cstdio>
#include <exception>
#include <limits>
#include <vector>

#include "store/results_file.hpp"

namespace {

using namespace galapagos::store;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

candidate_row candidate(std::int64_t id, int island, int generation, const char* origin, const char* status, const char* reason,
                        const char* params, const char* parents, double median, double speedup) {
  const bool ok = std::string(status) == "ok";
  candidate_row r;
  r.id = id;
  r.island = island;
  r.generation = generation;
  r.origin = origin;
  r.status = status;
  r.reason = reason;
  r.params = params;
  r.parents = parents;
  r.source_hash = id == 1 ? "5f3a9c" : "";
  r.compile_time_s = 0.5 + 0.125 * static_cast<double>(id);
  r.eval_time_s = 2.0 + static_cast<double>(id);
  r.time_median_s = median;
  r.time_min_s = ok ? median * 0.5 : nan;
  r.time_spread_s = ok ? 1e-6 : nan;
  r.repetitions = ok ? 11 : 0;
  r.rel_error = ok ? 1e-15 : (std::string(status) == "wrong_result" ? 0.25 : nan);
  r.speedup = speedup;
  r.baseline_time_s = 0.006;
  r.roofline_fraction = ok ? 0.75 : nan;
  r.device_time_s = 1.0 + 0.5 * static_cast<double>(id);
  r.energy_j = ok ? 0.25 * static_cast<double>(id + 1) : nan;
  r.power_w = ok ? 512.5 : nan;
  r.sm_clock_mhz = ok ? 1980.0 : nan;
  r.throttled_runs = static_cast<std::int32_t>(id % 2);
  r.fitness = ok ? median : nan;  // objective "time"
  return r;
}

void write(const char* path) {
  auto f = results_file::create(path, {{"galapagos_version", "0.1.0"},
                                       {"config_toml", "[search]\nislands = 2\nseed = 7\n"},
                                       {"created_utc", "2024-01-02T03:04:05Z"},
                                       {"git_revision", "abc1234"},
                                       {"family", "stencil"},
                                       {"backend", "openmp"},
                                       {"islands", 2},
                                       {"seed", 7},
                                       {"objective", "time"},
                                       {"fitness_unit", "s"},
                                       {"tolerance", 1e-9},
                                       {"finished", true}});
  f.append(std::vector<candidate_row>{
      candidate(0, 0, 0, "random", "ok", "", R"({"TILE": 32, "UNROLL": 1})", "[]", 0.004, 1.5),
      candidate(1, 0, 1, "offspring", "ok", "", R"({"TILE": 64, "UNROLL": 4})", "[0]", 0.002, 3.0),
  });
  f.append(std::vector<candidate_row>{
      candidate(2, 1, 0, "random", "wrong_result", "max rel error 0.25 > 1e-09 (check \"ones\")", R"({"TILE": 8, "UNROLL": 2})",
                "[]", nan, nan),
      candidate(3, 1, 1, "migrant", "compile_error", "error: ‘tile’ was not declared", R"({"TILE": 16, "UNROLL": 8})", "[2]", nan,
                nan),
      candidate(4, 1, 1, "offspring", "timeout", "exceeded 10 s", R"({"TILE": 128, "UNROLL": 1})", "[2, 3]", nan, nan),
  });
  f.append(std::vector<baseline_row>{
      {"naive", "ok", "", "0b1e77", 0.0, 0.006, 0.0055, 2e-5, 11, 0.0, 0.25, 3.5, 600.0, 1755.0, 2, 0},
      {"vendor", "crash", "signal 11 (SIGSEGV)", "", nan, nan, nan, nan, 0, nan, nan, nan, nan, nan, 0, 1},
  });
  f.append(std::vector<baseline_timing_row>{{0, 0, 0, "naive", "ok", 0.006, 0.0055, 2e-5, 11, 1.5},
                                            {0, 1, 1, "naive", "timeout", nan, nan, nan, 0, 2.5}});
  f.append(std::vector<population_row>{{0, 1, 0, 1, 0.002}, {0, 1, 1, 0, 0.004}, {1, 1, 0, 2, inf}, {1, 1, 1, 4, inf}});
  f.append(std::vector<migration_row>{{1, 0, 1, 1, R"({"TILE": 64, "UNROLL": 4})", 0.002, "5f3a9c"}});
  f.append(std::vector<generation_row>{
      {0, 0, 1, 0, 0.004, 1.5, 10.0, 7.5}, {0, 1, 1, 0, 0.002, 3.0, 20.5, 16.25}, {1, 0, 1, 1, inf, nan, 11.0, 0.0}});
  f.append(std::vector<profile_row>{
      {1, 0, "stencil_kernel<64, 4>(const double*, double*)", 0, "dram__bytes.sum.per_second", "byte/second", 3.5e12},
      {1, 0, "stencil_kernel<64, 4>(const double*, double*)", 0, "launch__registers_per_thread", "register/thread", 40.0},
  });
  f.append(std::vector<machine_row>{
      {0, "node001", "AMD EPYC 7763 64-Core Processor", 128, 268435456, 204.8, 2048.0, 4096.0},
      {1, "node002", "Intel® Xeon® Platinum 8480+", 112, 110100480, 307.2, 3584.0, 7168.0},
  });
  f.add_source("5f3a9c", "// candidate 1\nvoid kernel(double* a) { a[0] = 1.0; }\n");
  f.add_source("5f3a9c", "ignored: the first text stays");
  f.set_attributes("/winner", {{"candidate_id", std::int64_t{1}}, {"params", R"({"TILE": 64, "UNROLL": 4})"}});
  f.set_attribute("/winner", "speedup", 3.0);
  f.flush();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  try {
    write(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_sample_results: %s\n", e.what());
    return 1;
  }
  return 0;
}
