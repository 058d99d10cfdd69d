#include "archipelago/archipelago.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "archipelago/channels.hpp"
#include "archipelago/records.hpp"
#include "archipelago/run_config.hpp"
#include "core/island.hpp"
#include "eval/evaluator.hpp"
#include "eval/node_lock.hpp"
#include "eval/probe.hpp"
#include "families/family.hpp"
#include "store/results_file.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace galapagos::archipelago {

namespace {

using nlohmann::json;
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string format_time(double s) {
  char buf[32];
  if (!std::isfinite(s)) return "-";
  if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else if (s < 1) std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

// Everything a rank needs before the search starts. Built identically on every rank, so a bad
// input fails everywhere the same way, before any results file exists.
struct setup {
  run_config config;
  families::family family;
  std::unique_ptr<core::search_space> space;
  eval::machine_probe probe;
  std::unique_ptr<eval::node_lock> lock;
  std::unique_ptr<eval::evaluator> evaluator;
};

struct baseline_result {
  std::string name;
  eval::measurement m;
};

class island_runner {
 public:
  island_runner(setup& s, message_channel& migrants, message_channel& records, double best_baseline_s,
                std::string best_baseline_name, bool quiet)
      : s_(s), migrants_(migrants), records_(records), best_baseline_s_(best_baseline_s),
        best_baseline_name_(std::move(best_baseline_name)), quiet_(quiet),
        island_(*s.space, s.config.ga, core::derive_seed(s.config.seed, static_cast<std::uint64_t>(migrants.rank()))) {}

  // Runs the island to its budget. On rank 0 `file` receives every island's records.
  void run(store::results_file* file) {
    file_ = file;
    const auto t0 = std::chrono::steady_clock::now();
    busy_at_start_s_ = s_.evaluator->device_busy_s();
    const int rank = migrants_.rank();
    const auto& cfg = s_.config;
    while (static_cast<int>(island_.evaluated()) < cfg.budget) {
      const int room = cfg.budget - static_cast<int>(island_.evaluated());
      std::vector<std::pair<core::genome, std::int64_t>> todo;  // genome, parent id (-1: none)
      for (auto& [g, parent] : take_immigrants())
        if (static_cast<int>(todo.size()) < room && !island_.seen(g)) {
          island_.mark_seen(g);
          todo.emplace_back(g, parent);
        }
      const int want = std::min(room - static_cast<int>(todo.size()), island_.generation() == 0 ? cfg.ga.population : cfg.ga.offspring);
      for (auto& g : island_.propose(std::max(want, 0))) todo.emplace_back(std::move(g), -2);
      if (todo.empty()) break;  // the space is exhausted
      std::vector<eval::candidate_source> upcoming;  // built on spare cores while the device measures
      for (const auto& [g, parent] : todo) upcoming.push_back(candidate_of(g));
      s_.evaluator->compile_ahead(upcoming);
      for (const auto& [g, parent] : todo) evaluate(g, parent);
      island_.advance();
      report_generation(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (cfg.migration.topology == "ring" && migrants_.size() > 1 && cfg.migration.count > 0 &&
          island_.generation() % cfg.migration.interval == 0)
        emigrate();
      flush_records();
    }
    (void)rank;
    if (s_.config.backend != "cpu" && !quiet_) {
      const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double busy_s = s_.evaluator->device_busy_s() - busy_at_start_s_;
      std::printf("island %d: the device was held for measuring %.0f%% of the search's %.1f s\n", rank,
                  wall_s > 0 ? 100 * busy_s / wall_s : 0.0, wall_s);
    }
    profile_elites();
    flush_records();
  }

  // The island's elites under the profiler (GPU backends with Nsight Compute): metrics for the
  // report and the proposers, never for the fitness.
  void profile_elites() {
    if (!s_.evaluator->can_profile()) return;
    for (const auto& ind : island_.best(s_.config.eval.profile_elites)) {
      if (!std::isfinite(ind.fitness)) continue;
      std::string why;
      std::vector<eval::profile_metric> metrics;
      {
        eval::node_lock_guard hold(*s_.lock);
        metrics = s_.evaluator->profile(candidate_of(ind.g), why);
      }
      for (const auto& pm : metrics)
        batch_.profiles.push_back({ind.id, migrants_.rank(), pm.kernel, pm.launch, pm.metric, pm.unit, pm.value});
      if (!quiet_) {
        if (metrics.empty()) std::printf("island %d: profiling candidate %lld: %s\n", migrants_.rank(), static_cast<long long>(ind.id), why.c_str());
        else std::printf("island %d: profiled candidate %lld (%zu metrics)\n", migrants_.rank(), static_cast<long long>(ind.id), metrics.size());
        std::fflush(stdout);
      }
    }
  }

  // Rank 0: writes records that arrived from other islands.
  void drain_records() {
    if (!file_) return;
    for (auto& [src, text] : records_.poll()) absorb(text);
  }
  void absorb(const std::string& text) {
    const record_batch b = decode(text);
    for (const auto& c : b.candidates)
      if (c.status == "ok" && (!best_row_ || c.time_median_s < best_row_->time_median_s)) best_row_ = c;
    write_batch(*file_, b);
    file_->flush();
  }
  const std::optional<store::candidate_row>& best_row() const { return best_row_; }

 private:
  std::vector<std::pair<core::genome, std::int64_t>> take_immigrants() {
    std::vector<std::pair<core::genome, std::int64_t>> out;
    for (auto& [src, text] : migrants_.poll()) {
      const json j = json::parse(text);
      for (const auto& ind : j.at("individuals"))
        out.emplace_back(ind.at("genome").get<core::genome>(), ind.at("id").get<std::int64_t>());
    }
    return out;
  }

  void emigrate() {
    const int rank = migrants_.rank();
    const int dest = (rank + 1) % migrants_.size();
    json j{{"from", rank}, {"individuals", json::array()}};
    for (const auto& ind : island_.best(s_.config.migration.count)) {
      if (!std::isfinite(ind.fitness)) continue;
      j["individuals"].push_back({{"genome", ind.g}, {"id", ind.id}, {"fitness", ind.fitness}});
      batch_.migrations.push_back({island_.generation(), rank, dest, ind.id, s_.space->to_json(ind.g), ind.fitness});
    }
    if (!j["individuals"].empty()) migrants_.send(dest, j.dump());
  }

  eval::candidate_source candidate_of(const core::genome& g) const {
    return eval::candidate_from(s_.family.backend(s_.config.backend).tmpl, s_.space->values(g));
  }

  void evaluate(const core::genome& g, std::int64_t parent) {
    const int rank = migrants_.rank();
    const auto& b = s_.family.backend(s_.config.backend);
    eval::measurement m;
    {
      eval::node_lock_guard hold(*s_.lock);
      m = s_.evaluator->evaluate(candidate_of(g));
    }
    const std::int64_t id = static_cast<std::int64_t>(rank) * 1000000 + next_id_++;
    const bool ok = m.status == "ok";
    island_.record({g, ok ? m.time_median_s : inf, id});
    ++evaluated_;
    if (!ok) ++failed_;
    if (ok) best_time_ = std::min(best_time_, m.time_median_s);
    store::candidate_row r;
    r.id = id;
    r.island = rank;
    r.generation = island_.generation();
    r.origin = parent >= 0 ? "migrant" : (island_.generation() == 0 ? "random" : "offspring");
    r.status = m.status;
    r.reason = m.reason;
    r.params = s_.space->to_json(g);
    r.parents = parent >= 0 ? "[" + std::to_string(parent) + "]" : "[]";
    r.source_hash = m.source_hash;
    r.compile_time_s = m.compile_time_s;
    r.setup_time_s = m.setup_time_s;
    r.eval_time_s = m.eval_time_s;
    r.time_median_s = m.time_median_s;
    r.time_min_s = m.time_min_s;
    r.time_spread_s = m.time_spread_s;
    r.repetitions = m.repetitions;
    r.rel_error = m.rel_error;
    r.speedup = ok ? best_baseline_s_ / m.time_median_s : nan;
    r.roofline_fraction = m.roofline_fraction();
    r.device_time_s = m.device_time_s;
    r.energy_j = m.energy_j;
    r.power_w = m.power_w;
    r.sm_clock_mhz = m.sm_clock_mhz;
    r.throttled_runs = m.throttled_runs;
    batch_.candidates.push_back(r);
    if (!sources_sent_) {
      batch_.sources.emplace_back(m.source_hash.empty() ? util::hash_text(util::read_file(b.tmpl.source.string())) : m.source_hash,
                                  util::read_file(b.tmpl.source.string()));
      sources_sent_ = true;
    }
    if (!ok && !quiet_) std::fprintf(stdout, "island %d: candidate %lld %s: %s\n", rank, static_cast<long long>(id), m.status.c_str(), m.reason.substr(0, 200).c_str());
    drain_records();
  }

  void report_generation(double wall_s) {
    const int rank = migrants_.rank();
    const int gen = island_.generation();
    int k = 0;
    for (const auto& ind : island_.population()) batch_.populations.push_back({rank, gen, k++, ind.id, ind.fitness});
    const double speedup = std::isfinite(best_time_) ? best_baseline_s_ / best_time_ : nan;
    const double busy_s = s_.evaluator->device_busy_s() - busy_at_start_s_;
    batch_.generations.push_back({rank, gen, evaluated_, failed_, best_time_, speedup, wall_s, busy_s});
    if (!quiet_) {
      std::fprintf(stdout, "island %d gen %d: evaluated %d (failed %d) | best %s | %.2fx over %s\n", rank, gen, evaluated_,
                   failed_, format_time(best_time_).c_str(), std::isfinite(speedup) ? speedup : 0.0, best_baseline_name_.c_str());
      std::fflush(stdout);
    }
  }

  void flush_records() {
    if (batch_.empty()) return;
    if (file_) {
      absorb(encode(batch_));
    } else {
      records_.send(0, encode(batch_));
    }
    batch_.clear();
  }

  setup& s_;
  message_channel& migrants_;
  message_channel& records_;
  double best_baseline_s_;
  std::string best_baseline_name_;
  bool quiet_;
  core::island island_;
  store::results_file* file_ = nullptr;
  record_batch batch_;
  std::int64_t next_id_ = 0;
  int evaluated_ = 0, failed_ = 0;
  double best_time_ = inf;
  bool sources_sent_ = false;
  double busy_at_start_s_ = 0;
  std::optional<store::candidate_row> best_row_;
};

std::unique_ptr<setup> prepare(const std::filesystem::path& config, const run_overrides& o) {
  auto s = std::make_unique<setup>();
  s->config = load_run_config(config);
  if (o.out) s->config.out = *o.out;
  if (o.budget) s->config.budget = *o.budget;
  if (o.seed) s->config.seed = *o.seed;
  auto path = s->config.kernel_paths;
  for (const auto& p : families::default_search_path()) path.push_back(p);
  s->family = families::load_family(s->config.family, path);
  s->space = std::make_unique<core::search_space>(s->family.space(s->config.backend));
  core::rng r(s->config.seed);
  if (s->space->count_valid(1) == 0 && !s->space->sample(r, 100000))
    throw error(s->family.toml_file.string(), "the parameter space of backend '" + s->config.backend +
                                                  "' is empty: no point satisfies the constraints");
  s->family.fitness_size(s->config.eval.fitness_size);
  s->lock = std::make_unique<eval::node_lock>(s->config.node_lock);
  return s;
}

}  // namespace

int run_search(MPI_Comm comm, const std::filesystem::path& config, const run_overrides& o) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  // Setup: every rank reads and checks the same inputs; all agree before anything is written.
  std::unique_ptr<setup> s;
  std::string problem;
  auto all_fine = [&]() {  // collective: false when any rank failed; the error is printed once
    int failed = problem.empty() ? 0 : 1, any_failed = 0, rank0_failed = failed;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm);
    MPI_Bcast(&rank0_failed, 1, MPI_INT, 0, comm);
    if (failed && rank == 0) std::fprintf(stderr, "galapagos: %s\n", problem.c_str());
    if (failed && rank != 0 && !rank0_failed) std::fprintf(stderr, "galapagos (rank %d): %s\n", rank, problem.c_str());
    return any_failed == 0;
  };
  try {
    s = prepare(config, o);
    {
      eval::node_lock_guard hold(*s->lock);
      s->probe = eval::probe_machine();
    }
    std::random_device rd;  // the check inputs' seed is secret: not derived from the config
    const std::uint64_t secret = (std::uint64_t{rd()} << 32) ^ rd();
    s->evaluator = std::make_unique<eval::evaluator>(s->family, s->config.backend, s->config.eval, s->probe.limits(), secret);
  } catch (const std::exception& e) {
    problem = e.what();
  }
  if (!all_fine()) return 2;
  // A shared node's throughput swings between probes: every island judges and reports against
  // the best ceilings any island measured (islands of one job run on nodes of one kind).
  {
    const auto& mine = s->evaluator->machine();
    double local[3] = {mine.bandwidth_gbs, mine.peak_gflops, mine.peak_gflops_f32}, best[3];
    MPI_Allreduce(local, best, 3, MPI_DOUBLE, MPI_MAX, comm);
    s->evaluator->raise_ceilings(best[0], best[1], best[2]);
  }
  std::vector<baseline_result> baselines;
  try {
    if (rank == 0) {
      for (const auto& b : s->family.backend(s->config.backend).baselines) {
        eval::node_lock_guard hold(*s->lock);
        baselines.push_back({b.name, s->evaluator->evaluate(eval::candidate_from(b))});
        const auto& m = baselines.back().m;
        if (m.status != "ok")
          throw error(b.source.string(), "baseline '" + b.name + "' failed (" + m.status + "): " + m.reason);
      }
    }
  } catch (const std::exception& e) {
    problem = e.what();
  }
  if (!all_fine()) return 2;

  // The fastest baseline is what every speedup is measured against.
  double best_baseline[1] = {inf};
  std::string best_name;
  for (const auto& b : baselines)
    if (b.m.time_median_s < best_baseline[0]) {
      best_baseline[0] = b.m.time_median_s;
      best_name = b.name;
    }
  MPI_Bcast(best_baseline, 1, MPI_DOUBLE, 0, comm);
  int name_len = static_cast<int>(best_name.size());
  MPI_Bcast(&name_len, 1, MPI_INT, 0, comm);
  best_name.resize(static_cast<std::size_t>(name_len));
  MPI_Bcast(best_name.data(), name_len, MPI_CHAR, 0, comm);

  // Hardware probes of every island, for the file.
  // Each island's own measurement (the device's on GPUs) goes into the file.
  const auto& ceil = s->evaluator->measured();
  std::vector<double> probe_numbers = {ceil.bandwidth_gbs, ceil.peak_gflops, static_cast<double>(s->probe.cores),
                                       static_cast<double>(s->probe.llc_bytes), ceil.peak_gflops_f32};
  constexpr int probe_fields = 5;
  std::vector<double> all_probes(probe_fields * static_cast<std::size_t>(size));
  MPI_Gather(probe_numbers.data(), probe_fields, MPI_DOUBLE, all_probes.data(), probe_fields, MPI_DOUBLE, 0, comm);

  std::unique_ptr<store::results_file> file;
  const auto& cfg = s->config;
  if (rank == 0) {
    if (cfg.out.has_parent_path()) std::filesystem::create_directories(cfg.out.parent_path());
    file = std::make_unique<store::results_file>(store::results_file::create(
        cfg.out.string(), {{"galapagos_version", build_info::version},
                           {"config_toml", cfg.text},
                           {"config_file", cfg.file.string()},
                           {"created_utc", utc_now()},
                           {"git_revision", build_info::git_revision},
                           {"family", cfg.family},
                           {"backend", cfg.backend},
                           {"fitness_size", s->evaluator->fitness_description()},
                           {"tolerance", format_number(s->family.tolerance)},
                           {"compiler", s->evaluator->compiler().compiler_identity()},
                           {"hdf5_flavor", build_info::hdf5_flavor},
                           {"islands", std::to_string(size)},
                           {"seed", std::to_string(cfg.seed)}}));
    std::vector<store::machine_row> machines;
    for (int r = 0; r < size; ++r) {
      const double* p = &all_probes[probe_fields * static_cast<std::size_t>(r)];
      machines.push_back({r, r == 0 ? s->probe.host : "", s->probe.cpu_model, static_cast<std::int32_t>(p[2]),
                          static_cast<std::int64_t>(p[3]), p[0], p[1], p[4]});
    }
    file->append(machines);
    std::vector<store::baseline_row> rows;
    for (const auto& b : baselines) {
      const auto& spec = std::find_if(s->family.backend(cfg.backend).baselines.begin(), s->family.backend(cfg.backend).baselines.end(),
                                      [&](const auto& x) { return x.name == b.name; });
      file->add_source(b.m.source_hash, util::read_file(spec->source.string()));
      rows.push_back({b.name, b.m.status, b.m.reason, b.m.source_hash, b.m.setup_time_s, b.m.time_median_s, b.m.time_min_s,
                      b.m.time_spread_s, b.m.repetitions, b.m.rel_error, b.m.roofline_fraction(), b.m.energy_j,
                      b.m.power_w, b.m.sm_clock_mhz, b.m.throttled_runs});
      std::printf("baseline %s: %s (roofline %.0f%%)\n", b.name.c_str(), format_time(b.m.time_median_s).c_str(),
                  100 * b.m.roofline_fraction());
    }
    file->append(rows);
    file->flush();
    std::printf("search: %d islands, budget %d evaluations each, fitness size %s, floor %s\n", size, cfg.budget,
                s->evaluator->fitness_description().c_str(),
                format_time(s->evaluator->floor_s(s->evaluator->fitness_size())).c_str());
    std::fflush(stdout);
  }

  message_channel migrants(comm), records(comm);
  island_runner runner(*s, migrants, records, best_baseline[0], best_name, o.quiet);
  runner.run(file.get());
  migrants.finish();  // migrants still in flight are dropped: the search is over
  for (auto& [src, text] : records.finish())
    if (rank == 0) runner.absorb(text);

  int code = 0;
  if (rank == 0) {
    const auto& best = runner.best_row();
    if (!best) {
      std::printf("no correct candidate was found: see %s\n", cfg.out.c_str());
    } else {
      // The final word: the winner timed interleaved with every baseline, each run verified.
      const auto& b = s->family.backend(cfg.backend);
      std::map<std::string, std::string> params;
      const json best_params = json::parse(best->params);
      for (const auto& [k, v] : best_params.items()) params[k] = v.is_string() ? v.get<std::string>() : v.dump();
      std::vector<eval::candidate_source> sources = {eval::candidate_from(b.tmpl, params)};
      for (const auto& bl : b.baselines) sources.push_back(eval::candidate_from(bl));
      std::vector<eval::measurement> ms;
      {
        eval::node_lock_guard hold(*s->lock);
        ms = s->evaluator->evaluate_interleaved(sources, cfg.final_rounds);
      }
      double fastest = inf;
      std::string fastest_name;
      store::attributes w = {{"candidate_id", std::to_string(best->id)}, {"params", best->params}, {"status", ms[0].status},
                             {"reason", ms[0].reason}, {"method", "interleaved A B A B, every run verified"}};
      for (std::size_t i = 1; i < ms.size(); ++i) {
        file->set_attribute("/winner", "baseline_" + b.baselines[i - 1].name + "_median_s", ms[i].time_median_s);
        if (ms[i].status == "ok" && ms[i].time_median_s < fastest) {
          fastest = ms[i].time_median_s;
          fastest_name = b.baselines[i - 1].name;
        }
      }
      const double speedup = ms[0].status == "ok" ? fastest / ms[0].time_median_s : nan;
      w["fastest_baseline"] = fastest_name;
      file->set_attributes("/winner", w);
      file->set_attribute("/winner", "time_median_s", ms[0].time_median_s);
      file->set_attribute("/winner", "time_min_s", ms[0].time_min_s);
      file->set_attribute("/winner", "time_spread_s", ms[0].time_spread_s);
      file->set_attribute("/winner", "repetitions", ms[0].repetitions);
      file->set_attribute("/winner", "speedup", speedup);
      file->set_attribute("/winner", "roofline_fraction", ms[0].roofline_fraction());
      file->set_attribute("/winner", "rel_error", ms[0].rel_error);
      file->set_attribute("/winner", "energy_j", ms[0].energy_j);
      file->set_attribute("/winner", "power_w", ms[0].power_w);
      file->set_attribute("/winner", "sm_clock_mhz", ms[0].sm_clock_mhz);
      file->set_attribute("/winner", "throttled_runs", ms[0].throttled_runs);
      file->flush();
      std::printf("\nwinner: candidate %lld %s\n", static_cast<long long>(best->id), best->params.c_str());
      if (ms[0].status != "ok") {
        std::printf("  the winner failed its final check: %s: %s\n", ms[0].status.c_str(), ms[0].reason.c_str());
        code = 1;
      } else {
        std::printf("  time %s (min %s, IQR %s, %d interleaved runs)\n", format_time(ms[0].time_median_s).c_str(),
                    format_time(ms[0].time_min_s).c_str(), format_time(ms[0].time_spread_s).c_str(), ms[0].repetitions);
        std::printf("  speedup %.2fx over %s (%s), roofline fraction %.0f%%\n", speedup, fastest_name.c_str(),
                    format_time(fastest).c_str(), 100 * ms[0].roofline_fraction());
        for (std::size_t i = 1; i < ms.size(); ++i)
          std::printf("  baseline %s: %s, roofline fraction %.0f%%\n", b.baselines[i - 1].name.c_str(),
                      format_time(ms[i].time_median_s).c_str(), 100 * ms[i].roofline_fraction());
        for (std::size_t i = 0; i < ms.size(); ++i)
          if (std::isfinite(ms[i].energy_j))
            std::printf("  energy %s: %.3g mJ per call at %.0f W, SM clock %.0f MHz, %d of %d timed runs throttled\n",
                        i == 0 ? "winner" : b.baselines[i - 1].name.c_str(), 1e3 * ms[i].energy_j, ms[i].power_w,
                        ms[i].sm_clock_mhz, ms[i].throttled_runs, static_cast<int>(ms[i].sm_clocks_mhz.size()));
      }
    }
    std::printf("results: %s\n", std::filesystem::absolute(cfg.out).c_str());
    std::fflush(stdout);
    file.reset();
  }
  MPI_Request done;
  MPI_Ibcast(&code, 1, MPI_INT, 0, comm, &done);
  wait_politely(done);
  return code;
}

}  // namespace galapagos::archipelago
