#include "run/records.hpp"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "store/results_reader.hpp"
#include "util/json.hpp"

namespace galapagos::store {

using nlohmann::json;

namespace {
// JSON has no NaN: a null stands for it.
json num(double v) { return util::json_number(v); }  // a short name: records hold many numbers
double num(const json& j) { return j.is_null() ? std::numeric_limits<double>::quiet_NaN() : j.get<double>(); }
}  // namespace

void to_json(json& j, const candidate_row& r) {
  j = json{{"id", r.id},
           {"island", r.island},
           {"generation", r.generation},
           {"origin", r.origin},
           {"status", r.status},
           {"reason", r.reason},
           {"params", r.params},
           {"parents", r.parents},
           {"source_hash", r.source_hash},
           {"compile_time_s", num(r.compile_time_s)},
           {"setup_time_s", num(r.setup_time_s)},
           {"eval_time_s", num(r.eval_time_s)},
           {"time_median_s", num(r.time_median_s)},
           {"time_min_s", num(r.time_min_s)},
           {"time_spread_s", num(r.time_spread_s)},
           {"repetitions", r.repetitions},
           {"rel_error", num(r.rel_error)},
           {"speedup", num(r.speedup)},
           {"baseline_time_s", num(r.baseline_time_s)},
           {"roofline_fraction", num(r.roofline_fraction)},
           {"device_time_s", num(r.device_time_s)},
           {"energy_j", num(r.energy_j)},
           {"power_w", num(r.power_w)},
           {"sm_clock_mhz", num(r.sm_clock_mhz)},
           {"throttled_runs", r.throttled_runs},
           {"fitness", num(r.fitness)}};
}
void from_json(const json& j, candidate_row& r) {
  r.id = j.at("id");
  r.island = j.at("island");
  r.generation = j.at("generation");
  r.origin = j.at("origin");
  r.status = j.at("status");
  r.reason = j.at("reason");
  r.params = j.at("params");
  r.parents = j.at("parents");
  r.source_hash = j.at("source_hash");
  r.compile_time_s = num(j.at("compile_time_s"));
  r.setup_time_s = num(j.at("setup_time_s"));
  r.eval_time_s = num(j.at("eval_time_s"));
  r.time_median_s = num(j.at("time_median_s"));
  r.time_min_s = num(j.at("time_min_s"));
  r.time_spread_s = num(j.at("time_spread_s"));
  r.repetitions = j.at("repetitions");
  r.rel_error = num(j.at("rel_error"));
  r.speedup = num(j.at("speedup"));
  r.baseline_time_s = num(j.value("baseline_time_s", json()));  // absent from checkpoints of older versions
  r.roofline_fraction = num(j.at("roofline_fraction"));
  r.device_time_s = num(j.at("device_time_s"));
  r.energy_j = num(j.at("energy_j"));
  r.power_w = num(j.at("power_w"));
  r.sm_clock_mhz = num(j.at("sm_clock_mhz"));
  r.throttled_runs = j.at("throttled_runs");
  // Absent from checkpoints of older versions, whose searches minimised the time.
  r.fitness = j.contains("fitness") ? num(j.at("fitness")) : r.time_median_s;
}
void to_json(json& j, const baseline_row& r) {
  j = json{{"name", r.name},
           {"status", r.status},
           {"reason", r.reason},
           {"source_hash", r.source_hash},
           {"setup_time_s", num(r.setup_time_s)},
           {"time_median_s", num(r.time_median_s)},
           {"time_min_s", num(r.time_min_s)},
           {"time_spread_s", num(r.time_spread_s)},
           {"repetitions", r.repetitions},
           {"rel_error", num(r.rel_error)},
           {"roofline_fraction", num(r.roofline_fraction)},
           {"energy_j", num(r.energy_j)},
           {"power_w", num(r.power_w)},
           {"sm_clock_mhz", num(r.sm_clock_mhz)},
           {"throttled_runs", r.throttled_runs},
           {"island", r.island}};
}
void from_json(const json& j, baseline_row& r) {
  r.name = j.at("name");
  r.status = j.at("status");
  r.reason = j.at("reason");
  r.source_hash = j.at("source_hash");
  r.setup_time_s = num(j.at("setup_time_s"));
  r.time_median_s = num(j.at("time_median_s"));
  r.time_min_s = num(j.at("time_min_s"));
  r.time_spread_s = num(j.at("time_spread_s"));
  r.repetitions = j.at("repetitions");
  r.rel_error = num(j.at("rel_error"));
  r.roofline_fraction = num(j.at("roofline_fraction"));
  r.energy_j = num(j.at("energy_j"));
  r.power_w = num(j.at("power_w"));
  r.sm_clock_mhz = num(j.at("sm_clock_mhz"));
  r.throttled_runs = j.at("throttled_runs");
  r.island = j.at("island");
}
void to_json(json& j, const baseline_timing_row& r) {
  j = json{{"session", r.session},
           {"island", r.island},
           {"generation", r.generation},
           {"name", r.name},
           {"status", r.status},
           {"time_median_s", num(r.time_median_s)},
           {"time_min_s", num(r.time_min_s)},
           {"time_spread_s", num(r.time_spread_s)},
           {"repetitions", r.repetitions},
           {"wall_time_s", num(r.wall_time_s)}};
}
void from_json(const json& j, baseline_timing_row& r) {
  r.session = j.at("session");
  r.island = j.at("island");
  r.generation = j.at("generation");
  r.name = j.at("name");
  r.status = j.at("status");
  r.time_median_s = num(j.at("time_median_s"));
  r.time_min_s = num(j.at("time_min_s"));
  r.time_spread_s = num(j.at("time_spread_s"));
  r.repetitions = j.at("repetitions");
  r.wall_time_s = num(j.at("wall_time_s"));
}
void to_json(json& j, const machine_row& r) {
  j = json{{"island", r.island},
           {"host", r.host},
           {"cpu_model", r.cpu_model},
           {"cores", r.cores},
           {"llc_bytes", r.llc_bytes},
           {"bandwidth_gbs", num(r.bandwidth_gbs)},
           {"peak_gflops", num(r.peak_gflops)},
           {"peak_gflops_f32", num(r.peak_gflops_f32)}};
}
void from_json(const json& j, machine_row& r) {
  r.island = j.at("island");
  r.host = j.at("host");
  r.cpu_model = j.at("cpu_model");
  r.cores = j.at("cores");
  r.llc_bytes = j.at("llc_bytes");
  r.bandwidth_gbs = num(j.at("bandwidth_gbs"));
  r.peak_gflops = num(j.at("peak_gflops"));
  r.peak_gflops_f32 = num(j.at("peak_gflops_f32"));
}
void to_json(json& j, const orchestration_row& r) {
  j = json{{"session", r.session},   {"island", r.island},
           {"search_s", r.search_s}, {"evaluating_s", r.evaluating_s},
           {"model_s", r.model_s},   {"orchestration_s", r.orchestration_s},
           {"mpi_s", r.mpi_s},       {"migration_s", r.migration_s},
           {"hdf5_s", r.hdf5_s},     {"logic_s", r.logic_s}};
}
void from_json(const json& j, orchestration_row& r) {
  r.session = j.at("session");
  r.island = j.at("island");
  r.search_s = j.at("search_s");
  r.evaluating_s = j.at("evaluating_s");
  r.model_s = j.at("model_s");
  r.orchestration_s = j.at("orchestration_s");
  r.mpi_s = j.at("mpi_s");
  r.migration_s = j.at("migration_s");
  r.hdf5_s = j.at("hdf5_s");
  r.logic_s = j.at("logic_s");
}
void to_json(json& j, const population_row& r) {
  j = json{{"island", r.island},
           {"generation", r.generation},
           {"rank", r.rank},
           {"candidate_id", r.candidate_id},
           {"fitness", num(r.fitness)}};
}
void from_json(const json& j, population_row& r) {
  r.island = j.at("island");
  r.generation = j.at("generation");
  r.rank = j.at("rank");
  r.candidate_id = j.at("candidate_id");
  r.fitness = num(j.at("fitness"));
}
void to_json(json& j, const migration_row& r) {
  j = json{{"generation", r.generation},     {"from_island", r.from_island}, {"to_island", r.to_island},
           {"candidate_id", r.candidate_id}, {"params", r.params},           {"fitness", num(r.fitness)},
           {"source_hash", r.source_hash}};
}
void from_json(const json& j, migration_row& r) {
  r.generation = j.at("generation");
  r.from_island = j.at("from_island");
  r.to_island = j.at("to_island");
  r.candidate_id = j.at("candidate_id");
  r.params = j.at("params");
  r.fitness = num(j.at("fitness"));
  r.source_hash = j.at("source_hash");
}
void to_json(json& j, const profile_row& r) {
  j = json{{"candidate_id", r.candidate_id},
           {"island", r.island},
           {"kernel", r.kernel},
           {"launch", r.launch},
           {"metric", r.metric},
           {"unit", r.unit},
           {"value", num(r.value)}};
}
void from_json(const json& j, profile_row& r) {
  r.candidate_id = j.at("candidate_id");
  r.island = j.at("island");
  r.kernel = j.at("kernel");
  r.launch = j.at("launch");
  r.metric = j.at("metric");
  r.unit = j.at("unit");
  r.value = num(j.at("value"));
}
void to_json(json& j, const llm_call_row& r) {
  j = json{{"id", r.id},
           {"island", r.island},
           {"generation", r.generation},
           {"variation", r.variation},
           {"turn", r.turn},
           {"tool", r.tool},
           {"model", r.model},
           {"status", r.status},
           {"reason", r.reason},
           {"http_status", r.http_status},
           {"attempts", r.attempts},
           {"prompt_tokens", r.prompt_tokens},
           {"completion_tokens", r.completion_tokens},
           {"cost", num(r.cost)},
           {"latency_s", num(r.latency_s)},
           {"edits_applied", r.edits_applied},
           {"edits_failed", r.edits_failed},
           {"outcome", r.outcome},
           {"candidate_id", r.candidate_id},
           {"prompt", r.prompt},
           {"response", r.response}};
}
void from_json(const json& j, llm_call_row& r) {
  r.id = j.at("id");
  r.island = j.at("island");
  r.generation = j.at("generation");
  r.variation = j.at("variation");
  r.turn = j.at("turn");
  r.tool = j.value("tool", "");
  r.model = j.at("model");
  r.status = j.at("status");
  r.reason = j.at("reason");
  r.http_status = j.at("http_status");
  r.attempts = j.at("attempts");
  r.prompt_tokens = j.at("prompt_tokens");
  r.completion_tokens = j.at("completion_tokens");
  r.cost = num(j.at("cost"));
  r.latency_s = num(j.at("latency_s"));
  r.edits_applied = j.at("edits_applied");
  r.edits_failed = j.at("edits_failed");
  r.outcome = j.at("outcome");
  r.candidate_id = j.at("candidate_id");
  r.prompt = j.at("prompt");
  r.response = j.at("response");
}
void to_json(json& j, const generation_row& r) {
  j = json{{"island", r.island},
           {"generation", r.generation},
           {"evaluated", r.evaluated},
           {"failed", r.failed},
           {"best_time_s", num(r.best_time_s)},
           {"best_speedup", num(r.best_speedup)},
           {"wall_time_s", num(r.wall_time_s)},
           {"device_busy_s", num(r.device_busy_s)}};
}
void from_json(const json& j, generation_row& r) {
  r.island = j.at("island");
  r.generation = j.at("generation");
  r.evaluated = j.at("evaluated");
  r.failed = j.at("failed");
  r.best_time_s = num(j.at("best_time_s"));
  r.best_speedup = num(j.at("best_speedup"));
  r.wall_time_s = num(j.at("wall_time_s"));
  r.device_busy_s = num(j.at("device_busy_s"));
}

}  // namespace galapagos::store

namespace galapagos::run {

using nlohmann::json;

std::string encode(const record_batch& b) {
  json j{{"candidates", b.candidates},
         {"populations", b.populations},
         {"migrations", b.migrations},
         {"generations", b.generations},
         {"sources", b.sources},
         {"profiles", b.profiles},
         {"llm_calls", b.llm_calls},
         {"orchestration", b.orchestration},
         {"baseline_timings", b.baseline_timings},
         {"state", b.state}};
  return j.dump();
}

record_batch decode(const std::string& text) {
  const json j = json::parse(text);
  record_batch b;
  j.at("candidates").get_to(b.candidates);
  j.at("populations").get_to(b.populations);
  j.at("migrations").get_to(b.migrations);
  j.at("generations").get_to(b.generations);
  j.at("sources").get_to(b.sources);
  j.at("profiles").get_to(b.profiles);
  j.at("llm_calls").get_to(b.llm_calls);
  j.at("orchestration").get_to(b.orchestration);
  j.at("baseline_timings").get_to(b.baseline_timings);
  j.at("state").get_to(b.state);
  return b;
}

std::vector<store::machine_row> read_machines(const store::results_reader& f) {
  const auto isl = f.integers("/machine", "island");
  const auto host = f.strings("/machine", "host");
  const auto cpu = f.strings("/machine", "cpu_model");
  const auto cores = f.integers("/machine", "cores");
  const auto llc = f.integers("/machine", "llc_bytes");
  const auto bw = f.numbers("/machine", "bandwidth_gbs");
  const auto peak = f.numbers("/machine", "peak_gflops");
  const auto peak32 = f.numbers("/machine", "peak_gflops_f32");
  std::vector<store::machine_row> rows;
  for (std::size_t r = 0; r < isl.size(); ++r)
    rows.push_back({static_cast<std::int32_t>(isl[r]), host[r], cpu[r], static_cast<std::int32_t>(cores[r]), llc[r], bw[r],
                    peak[r], peak32[r]});
  return rows;
}

void write_batch(store::results_file& f, const record_batch& b) {
  for (const auto& [hash, text] : b.sources) f.add_source(hash, text);
  if (!b.candidates.empty()) f.append(b.candidates);
  if (!b.populations.empty()) f.append(b.populations);
  if (!b.migrations.empty()) f.append(b.migrations);
  if (!b.generations.empty()) f.append(b.generations);
  if (!b.profiles.empty()) f.append(b.profiles);
  if (!b.llm_calls.empty()) f.append(b.llm_calls);
  if (!b.orchestration.empty()) f.append(b.orchestration);
  if (!b.baseline_timings.empty()) f.append(b.baseline_timings);
}

}  // namespace galapagos::run
