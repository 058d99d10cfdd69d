#include "run/setup.hpp"

#include <unistd.h>

#include <sstream>

#include "core/rng.hpp"
#include "util/error.hpp"
#include "util/report.hpp"

namespace galapagos::run {

std::unique_ptr<setup> prepare(const search_start& st, int rank, int islands) {
  auto s = std::make_unique<setup>();
  const run_overrides& o = st.overrides;
  if (st.plan) {  // the stored config, with the settings the run started with
    // The run's config, or in a mixed job the config of this island's kind (read_resume_plan
    // holds one for every kind).
    resume_plan::kind_config mine{st.plan->config_text, st.plan->config_file, st.plan->settings.budget, st.plan->settings.seed};
    std::string origin = st.plan->path + " (its stored config)";
    if (!st.plan->island_kinds.empty()) {
      const std::string& kind = st.plan->island_kinds.at(static_cast<std::size_t>(rank));
      mine = st.plan->kind_configs.at(kind);
      origin = st.plan->path + " (its stored config of " + kind + ")";
    }
    s->config = config::parse_run_config(mine.config_text, mine.config_file, origin);
    s->config.out = st.plan->path;
    s->config.budget = mine.budget;
    s->config.seed = mine.seed;
    if (st.plan->settings.stop) s->config.stop = *st.plan->settings.stop;
    if (o.budget) s->config.budget = *o.budget;  // resume --budget: more evaluations per island
    s->settings = st.plan->settings;
    s->settings.budget = s->config.budget;
    s->settings.seed = s->config.seed;
  } else {
    s->config = config::load_run_config(st.config);
    if (o.out) s->config.out = *o.out;
    if (o.budget) s->config.budget = *o.budget;
    if (o.seed) s->config.seed = *o.seed;
    s->settings = {s->config.budget, s->config.seed, o.replay ? std::filesystem::absolute(*o.replay).string() : "",
                   o.replay_delay_s};
  }
  if (o.time_limit_s) s->config.stop.time_limit_s = *o.time_limit_s;
  if (o.target_roofline) s->config.stop.target_roofline = *o.target_roofline;
  if (o.stagnant_generations) s->config.stop.stagnant_generations = *o.stagnant_generations;
  s->settings.stop = s->config.stop;
  if (!s->settings.replay.empty() && s->config.llm.enabled())
    throw error(s->config.file.string(), "[llm]: a replayed run cannot judge new sources (remove [llm] to replay this config)");
  // The LLM proposer: its templates, notes and keys are checked before anything is written.
  if (s->config.llm.enabled()) {
    auto settings = s->config.llm;
    settings.budget.max_tokens /= islands;  // the run's budget, split evenly
    settings.budget.max_cost /= islands;
    try {
      s->llm = std::make_unique<propose::llm_proposer>(settings,
                                                       core::derive_seed(s->config.seed, static_cast<std::uint64_t>(rank), 29));
    } catch (const error& e) {
      throw error(s->config.file.string(), std::string("[llm]: ") + e.what());
    }
  }
  s->family = families::load_family(s->config.family, families::default_search_path(s->config.kernel_paths));
  s->space = std::make_unique<core::search_space>(s->family.space(s->config.backend));
  core::rng r(s->config.seed);
  if (s->space->count_valid(1) == 0 && !s->space->sample(r, 100000))
    throw error(s->family.toml_file.string(),
                "the parameter space of backend '" + s->config.backend + "' is empty: no point satisfies the constraints");
  s->family.fitness_size(s->config.eval.fitness_size);
  if (!s->config.warm_start.empty()) {
    s->warm_start = simulate::read_warm_start(s->config.warm_start, *s->space);
    if (rank == 0) report::line("%s; guides the forest islands", s->warm_start.summary().c_str());
  }
  // A replayed run builds and times nothing: it never makes measurements on the node wait.
  s->lock = std::make_unique<eval::node_lock>(s->settings.replay.empty() ? s->config.node_lock : std::filesystem::path());
  if (!s->settings.replay.empty()) s->replay = std::make_unique<replay_source>(s->settings.replay, s->settings.replay_delay_s);
  return s;
}

void check_template_builds(const setup& s) {
  const auto& tmpl = s.family.backend(s.config.backend).tmpl;
  core::rng pick(s.config.seed);
  const auto g = s.space->sample(pick, 100000);
  if (!g) return;
  const auto built =
      s.evaluator->compiler().build(s.evaluator->build_request_for(eval::candidate_from(tmpl, s.space->values(*g))));
  if (built.ok || built.killed) return;
  std::string line;  // the compiler's first error line
  std::istringstream log(built.log);
  for (std::string l; std::getline(log, l);)
    if (line.empty() || (l.find("error") != std::string::npos && line.find("error") == std::string::npos)) line = l;
  throw error(tmpl.source.string(), "the template does not compile at " + s.space->to_json(*g) + ": " + line);
}

namespace {

eval::machine_probe probe_of(const store::machine_row& m) {
  eval::machine_probe p;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  p.host = host;
  p.cpu_model = m.cpu_model;
  p.cores = m.cores;
  p.llc_bytes = static_cast<std::size_t>(m.llc_bytes);
  p.bandwidth_gbs = m.bandwidth_gbs;
  p.peak_gflops = m.peak_gflops;
  p.peak_gflops_f32 = m.peak_gflops_f32;
  return p;
}

}  // namespace

eval::machine_probe recorded_probe(const replay_source& r, int rank) { return probe_of(r.machine(rank)); }

std::optional<eval::machine_probe> kept_probe(const std::vector<store::machine_row>& rows, int island,
                                              const eval::machine_probe& here) {
  for (const auto& row : rows) {
    if (row.island != island) continue;
    const auto p = probe_of(row);
    if (!eval::same_machine_kind(p, here) || !(p.bandwidth_gbs > 0) || !(p.peak_gflops > 0)) return std::nullopt;
    return p;
  }
  return std::nullopt;
}

}  // namespace galapagos::run
